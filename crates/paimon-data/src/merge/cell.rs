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
}

/// A borrowed non-null value: `array[row]`.
#[derive(Clone, Copy)]
pub(crate) struct Cell<'a> {
    pub(crate) array: &'a dyn Array,
    pub(crate) row: usize,
}

impl std::fmt::Debug for Cell<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cell({}, {})", self.array.data_type(), self.row)
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
        };
        if array.is_null(row) {
            None
        } else {
            Some(Cell { array, row })
        }
    }
}

/// Compares two non-null cells of the same type the way Java's `InternalRowUtils.compare` does
/// for comparable types (floats by total order, like `Double.compare`).
///
/// # Errors
/// When Arrow cannot compare values of this type.
pub(crate) fn compare_cells(a: Cell<'_>, b: Cell<'_>) -> Result<Ordering> {
    let cmp = make_comparator(a.array, b.array, SortOptions::default())?;
    Ok(cmp(a.row, b.row))
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
