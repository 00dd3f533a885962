//! Accumulator cells: values of a merged row that are either a reference to an input cell or a
//! freshly computed one-row array.
//!
//! Most merge results are made of input values (last value wins, non-null overwrites, min/max,
//! first value...), so a merged row mostly holds `(slot, row)` references and the output column
//! is assembled with one `interleave` call. Only computing aggregates (sum, listagg, collect,
//! ...) allocate a one-row array.

use std::cmp::Ordering;

use arrow_array::{Array, ArrayRef};
use arrow_ord::ord::make_comparator;
use arrow_schema::SortOptions;

use super::aggregate_numeric::{compare_nums, read as read_num, Num};
use super::cursor::BatchStore;
use super::error::Result;

/// One field of an accumulator row.
#[derive(Debug, Clone, Default)]
pub(crate) enum Acc {
    /// SQL NULL.
    #[default]
    Null,
    /// The value at `row` of the value column in batch `slot`.
    Ref {
        /// Batch slot in the [`BatchStore`].
        slot: u32,
        /// Row within that batch.
        row: u32,
    },
    /// A computed value: an array of length one.
    Owned(ArrayRef),
    /// A computed number (`sum`, `product`), kept unboxed until the output batch is built.
    Num(Num),
}

/// A non-null value: `array[row]`, or a computed number.
#[derive(Clone, Copy)]
pub(crate) enum Cell<'a> {
    /// The value at `row` of `array`.
    At(&'a dyn Array, usize),
    /// A computed number.
    Num(Num),
}

impl std::fmt::Debug for Cell<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::At(a, r) => write!(f, "Cell({}, {r})", a.data_type()),
            Cell::Num(n) => write!(f, "Cell({n:?})"),
        }
    }
}

impl<'a> Cell<'a> {
    /// The array and row of a cell read from a batch; computed numbers only ever reach the
    /// numeric aggregates, anything else is a type mismatch.
    pub(crate) fn at(self) -> Result<(&'a dyn Array, usize)> {
        match self {
            Cell::At(a, r) => Ok((a, r)),
            Cell::Num(n) => Err(super::error::merge_failed(format!(
                "a computed number {n:?} where a non-numeric value was expected"
            ))),
        }
    }
}

impl Acc {
    /// The value of this cell for value column `col`, `None` when it is null.
    #[inline]
    pub(crate) fn view<'a>(&'a self, store: &'a BatchStore, col: usize) -> Option<Cell<'a>> {
        let (array, row): (&dyn Array, usize) = match self {
            Acc::Null => return None,
            Acc::Ref { slot, row } => (store.column(*slot, col).as_ref(), *row as usize),
            Acc::Owned(a) => (a.as_ref(), 0),
            Acc::Num(n) => return Some(Cell::Num(*n)),
        };
        if array.is_null(row) {
            None
        } else {
            Some(Cell::At(array, row))
        }
    }
}

/// Compares two non-null cells of the same type the way Java's `InternalRowUtils.compare` does
/// for comparable types (floats by total order, like `Double.compare`).
///
/// # Errors
/// When Arrow cannot compare values of this type.
pub(crate) fn compare_cells(a: Cell<'_>, b: Cell<'_>) -> Result<Ordering> {
    match (a, b) {
        (Cell::At(x, _), _) if super::aggregate_numeric::is_numeric(x.data_type()) => {
            compare_nums(read_num(a)?, read_num(b)?)
        }
        (Cell::At(a, i), Cell::At(b, j)) => {
            let cmp = make_comparator(a, b, SortOptions::default())?;
            Ok(cmp(i, j))
        }
        _ => compare_nums(read_num(a)?, read_num(b)?),
    }
}

/// Nulls-first comparison of possibly-null cells.
pub(crate) fn compare_nullable(a: Option<Cell<'_>>, b: Option<Cell<'_>>) -> Result<Ordering> {
    match (a, b) {
        (None, None) => Ok(Ordering::Equal),
        (None, Some(_)) => Ok(Ordering::Less),
        (Some(_), None) => Ok(Ordering::Greater),
        (Some(a), Some(b)) => compare_cells(a, b),
    }
}
