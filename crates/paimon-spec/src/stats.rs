//! Column statistics (Java `SimpleStats`).

use std::borrow::Cow;

use crate::binary::{encode_array, encode_row, BinaryRow, Datum, RowKind};
use crate::error::Result;
use crate::types::{DataField, DataType, TypeKind};

/// Min/max/null-count statistics of a set of columns (Java `SimpleStats`).
///
/// Min and max rows are kept in their serialized form (`[arity: i32 BE][row bytes]`) so that
/// re-encoding is exact; decode them with [`SimpleStats::min_row`] and a stats row type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SimpleStats {
    /// Serialized min row.
    pub min_values: RowBytes,
    /// Serialized max row.
    pub max_values: RowBytes,
    /// Null count per column; `None` when unknown.
    pub null_counts: Option<NullCounts>,
}

/// The statistics collected for one column (Java `SimpleColStats`).
#[derive(Debug, Clone, PartialEq)]
pub struct ColStats {
    /// Smallest value ([`Datum::Null`] when unknown or all null).
    pub min: Datum,
    /// Largest value.
    pub max: Datum,
    /// Nulls in the column; `None` when not counted.
    pub null_count: Option<i64>,
}

impl ColStats {
    /// Stats of a column.
    pub fn new(min: Datum, max: Datum, null_count: Option<i64>) -> Self {
        ColStats {
            min,
            max,
            null_count,
        }
    }

    /// No statistics (Java `SimpleColStats.NONE`, stats mode `none`).
    pub fn none() -> Self {
        ColStats::new(Datum::Null, Datum::Null, None)
    }

    /// Whether nothing is known (Java `SimpleColStats.isNone`).
    pub fn is_none(&self) -> bool {
        self.min.is_null() && self.max.is_null() && self.null_count.is_none()
    }
}

impl SimpleStats {
    /// Stats from serialized min and max rows (`[arity: i32 BE][row bytes]`, e.g. from
    /// [`crate::binary::BinaryRowBuilder::build_serialized`]) and per-column null counts
    /// (Java `new SimpleStats(min, max, BinaryArray.fromLongArray(nullCounts))`).
    pub fn new(
        min_values: impl Into<RowBytes>,
        max_values: impl Into<RowBytes>,
        null_counts: Option<Vec<Option<i64>>>,
    ) -> Self {
        SimpleStats {
            min_values: min_values.into(),
            max_values: max_values.into(),
            null_counts: null_counts.map(null_counts_from_vec),
        }
    }

    /// Encodes per-column stats of `fields` as Java's `SimpleStatsConverter.toBinary` does.
    ///
    /// With `dense` (`metadata.stats-dense-store`, default true) columns whose stats are
    /// [`ColStats::none`] are left out, and the second value lists the columns kept (the
    /// file's `_VALUE_STATS_COLS`) unless that is every column, where it is `None`. Without
    /// `dense` every column is kept and the list is always `None`.
    ///
    /// # Errors
    /// [`crate::Error::Encode`] when the counts differ or a value does not fit its column.
    pub fn from_col_stats(
        fields: &[DataField],
        stats: &[ColStats],
        dense: bool,
    ) -> Result<(SimpleStats, Option<Vec<String>>)> {
        if fields.len() != stats.len() {
            return Err(crate::Error::Encode {
                what: "SimpleStats".into(),
                reason: format!("{} column stats for {} fields", stats.len(), fields.len()),
            });
        }
        let kept: Vec<usize> = (0..fields.len())
            .filter(|i| !dense || !stats[*i].is_none())
            .collect();
        let types: Vec<DataType> = kept
            .iter()
            .map(|i| fields[*i].data_type.with_nullable(true))
            .collect();
        let pick = |f: fn(&ColStats) -> Datum| -> Vec<Datum> {
            kept.iter().map(|i| f(&stats[*i])).collect()
        };
        let min = serialize_datums(&pick(|s| s.min.clone()), &types)?;
        let max = serialize_datums(&pick(|s| s.max.clone()), &types)?;
        let nulls = kept.iter().map(|i| stats[*i].null_count).collect();
        let cols = (kept.len() != fields.len())
            .then(|| kept.iter().map(|i| fields[*i].name.clone()).collect());
        Ok((SimpleStats::new(min, max, Some(nulls)), cols))
    }

    /// Java `SimpleStats.EMPTY_STATS`: two arity-0 rows and an empty null-count array.
    pub fn empty() -> Self {
        SimpleStats {
            min_values: empty_row_bytes(),
            max_values: empty_row_bytes(),
            null_counts: Some(Cow::Borrowed(&[])),
        }
    }

    /// The min row.
    ///
    /// # Errors
    /// [`crate::Error::Corrupt`] when the bytes are not a serialized row.
    pub fn min_row(&self) -> Result<BinaryRow<'_>> {
        BinaryRow::from_serialized(&self.min_values)
    }

    /// The max row.
    ///
    /// # Errors
    /// [`crate::Error::Corrupt`] when the bytes are not a serialized row.
    pub fn max_row(&self) -> Result<BinaryRow<'_>> {
        BinaryRow::from_serialized(&self.max_values)
    }

    /// The nested row type Java uses for stats inside DataFileMeta.
    pub fn row_type() -> DataType {
        DataType::not_null(TypeKind::Row(vec![
            DataField::new(0, "_MIN_VALUES", DataType::bytes().with_nullable(false)),
            DataField::new(1, "_MAX_VALUES", DataType::bytes().with_nullable(false)),
            DataField::new(
                2,
                "_NULL_COUNTS",
                DataType::nullable(TypeKind::Array(Box::new(DataType::nullable(
                    TypeKind::BigInt,
                )))),
            ),
        ]))
    }

    /// As a datum of [`SimpleStats::row_type`].
    pub fn to_datum(&self) -> Datum {
        Datum::Row(vec![
            Datum::Binary(self.min_values.to_vec()),
            Datum::Binary(self.max_values.to_vec()),
            match &self.null_counts {
                None => Datum::Null,
                Some(v) => Datum::Array(
                    v.iter()
                        .map(|c| c.map(Datum::BigInt).unwrap_or(Datum::Null))
                        .collect(),
                ),
            },
        ])
    }

    /// From a datum of [`SimpleStats::row_type`].
    ///
    /// # Errors
    /// [`crate::Error::Corrupt`] when the datum has another shape.
    pub fn from_datum(d: &Datum) -> Result<Self> {
        let bad = || crate::Error::corrupt("SimpleStats", format!("unexpected value {d:?}"));
        let Datum::Row(f) = d else { return Err(bad()) };
        match f.as_slice() {
            [Datum::Binary(min), Datum::Binary(max), counts] => Ok(SimpleStats {
                min_values: row_bytes(min),
                max_values: row_bytes(max),
                null_counts: match counts {
                    Datum::Null => None,
                    Datum::Array(a) => {
                        Some(null_counts_from_vec(a.iter().map(Datum::as_i64).collect()))
                    }
                    _ => return Err(bad()),
                },
            }),
            _ => Err(bad()),
        }
    }
}

/// Serializes a row as `[arity: i32 BE][row bytes]` (Java `serializeBinaryRow`).
pub fn serialize_row(arity: usize, row_bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + row_bytes.len());
    out.extend_from_slice(&(arity as i32).to_be_bytes());
    out.extend_from_slice(row_bytes);
    out
}

/// Encodes `values` of `types` and serializes the row with its arity.
///
/// # Errors
/// [`crate::Error::Encode`] when a value does not match its type.
pub fn serialize_datums(values: &[Datum], types: &[DataType]) -> Result<Vec<u8>> {
    Ok(serialize_row(
        types.len(),
        &encode_row(RowKind::Insert, values, types)?,
    ))
}

/// The serialized empty row: `00000000` and 8 zero bytes.
pub fn empty_serialized_row() -> Vec<u8> {
    EMPTY_ROW.to_vec()
}

/// The bytes of the serialized empty row ([`empty_serialized_row`]).
pub const EMPTY_ROW: [u8; 12] = [0; 12];

/// A serialized row held by data-file metadata (keys and stats rows), shared when it is the
/// empty row: every file of an append table has empty min/max keys and key stats, so a plan of
/// 100,000 such files would otherwise hold 400,000 copies of the same 12 bytes.
pub type RowBytes = Cow<'static, [u8]>;

/// `bytes` as a [`RowBytes`]: the shared empty row when they are it, else a copy.
pub fn row_bytes(bytes: &[u8]) -> RowBytes {
    if bytes == EMPTY_ROW {
        empty_row_bytes()
    } else {
        Cow::Owned(bytes.to_vec())
    }
}

/// `bytes` as a [`RowBytes`]: the shared empty row when they are it, else `bytes` itself.
pub fn row_bytes_from_vec(bytes: Vec<u8>) -> RowBytes {
    if bytes == EMPTY_ROW {
        empty_row_bytes()
    } else {
        Cow::Owned(bytes)
    }
}

/// Per-column null counts held by data-file metadata, shared when every count is zero (the
/// common case: most files of most tables have no nulls).
pub type NullCounts = Cow<'static, [Option<i64>]>;

/// Counts of up to this many columns are shared when all zero.
const SHARED_NULL_COUNTS: usize = 64;
static NO_NULLS: [Option<i64>; SHARED_NULL_COUNTS] = [Some(0); SHARED_NULL_COUNTS];

/// `n` zero counts, shared when `n` is at most 64.
pub fn zero_null_counts(n: usize) -> NullCounts {
    match NO_NULLS.get(..n) {
        Some(shared) => Cow::Borrowed(shared),
        None => Cow::Owned(vec![Some(0); n]),
    }
}

/// `counts` as [`NullCounts`]: shared when all are zero (and at most 64), else `counts`.
pub fn null_counts_from_vec(counts: Vec<Option<i64>>) -> NullCounts {
    if counts.iter().all(|c| *c == Some(0)) && counts.len() <= SHARED_NULL_COUNTS {
        zero_null_counts(counts.len())
    } else {
        Cow::Owned(counts)
    }
}

/// Heap a [`NullCounts`] owns (none when shared).
pub fn null_counts_heap(counts: &NullCounts) -> usize {
    match counts {
        Cow::Borrowed(_) => 0,
        Cow::Owned(v) => v.capacity() * std::mem::size_of::<Option<i64>>(),
    }
}

/// The shared empty row.
pub fn empty_row_bytes() -> RowBytes {
    Cow::Borrowed(&EMPTY_ROW)
}

/// Heap a [`RowBytes`] owns (none when shared).
pub fn row_bytes_heap(bytes: &RowBytes) -> usize {
    match bytes {
        Cow::Borrowed(_) => 0,
        Cow::Owned(v) => v.capacity(),
    }
}

/// Encodes an array of nullable longs (Java `BinaryArray.fromLongArray`).
///
/// # Errors
/// Never in practice; kept fallible for symmetry.
pub fn encode_long_array(values: &[Option<i64>]) -> Result<Vec<u8>> {
    let d: Vec<Datum> = values
        .iter()
        .map(|v| v.map(Datum::BigInt).unwrap_or(Datum::Null))
        .collect();
    encode_array(&d, &DataType::nullable(TypeKind::BigInt))
}
