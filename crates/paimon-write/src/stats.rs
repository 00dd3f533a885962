//! Column statistics of a written file, as Java collects them.
//!
//! For Parquet, Java reads the statistics back from the footer it just wrote (Java
//! `ParquetSimpleStatsExtractor`), converts them per field with the field's stats mode (Java
//! `SimpleColStatsCollector.convert`), then serializes them (Java `SimpleStatsConverter`): dense
//! by default, so columns whose mode is `none` are left out and the remaining names go to
//! `_VALUE_STATS_COLS`. The same is done here over the footer the `parquet` crate wrote, so the
//! bounds are those of the file, never made up:
//!
//! ```text
//! footer chunk stats (per row group, top-level leaf columns only)
//!   -> merged per field (min of mins, max of maxes, sum of null counts)
//!   -> mode: none (dropped) | counts (null count only) | full | truncate(n) (strings cut)
//!   -> SimpleStats::from_col_stats: { min row, max row, null counts } + _VALUE_STATS_COLS
//! ```

use std::cmp::Ordering;

use arrow_array::Array;

use paimon_spec::binary::Datum;
use paimon_spec::stats::ColStats;
use paimon_spec::types::{DataField, DataType, TypeKind};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::statistics::Statistics;

/// A stats mode (Java `metadata.stats-mode`, `fields.<f>.stats-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatsMode {
    /// No statistics for the column.
    None,
    /// Null counts only.
    Counts,
    /// Exact min, max and null count.
    Full,
    /// Min and max with strings cut to this many code points (max rounded up).
    Truncate(usize),
}

impl StatsMode {
    /// Parses `none`, `counts`, `full` or `truncate(N)` (any case), as Java
    /// `SimpleColStatsCollector.from`.
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim().to_ascii_uppercase();
        match t.as_str() {
            "NONE" => Some(StatsMode::None),
            "COUNTS" => Some(StatsMode::Counts),
            "FULL" => Some(StatsMode::Full),
            _ => {
                let n = t.strip_prefix("TRUNCATE(")?.strip_suffix(')')?;
                let n: usize = n.parse().ok()?;
                (n > 0).then_some(StatsMode::Truncate(n))
            }
        }
    }
}

/// Per-field statistics from a Parquet footer, converted by each field's mode, ready for
/// [`paimon_spec::stats::SimpleStats::from_col_stats`].
///
/// A field without footer statistics of its own (nested types, whose leaves have dotted
/// paths) knows nothing, which Java's `isNone` then treats as `none`: dense stats leave it out.
pub fn parquet_field_stats(
    meta: &ParquetMetaData,
    fields: &[DataField],
    modes: &[StatsMode],
) -> Vec<ColStats> {
    if modes.iter().all(|m| *m == StatsMode::None) {
        return vec![ColStats::none(); fields.len()];
    }
    fields
        .iter()
        .zip(modes)
        .map(|(field, mode)| match merged_chunk_stats(meta, field) {
            None => ColStats::none(),
            Some(s) => convert(*mode, s),
        })
        .collect()
}

/// Java `SimpleColStatsCollector.convert` for `mode`.
pub(crate) fn convert(mode: StatsMode, s: ColStats) -> ColStats {
    match mode {
        StatsMode::None => ColStats::none(),
        StatsMode::Counts => ColStats::new(Datum::Null, Datum::Null, s.null_count),
        StatsMode::Full => s,
        StatsMode::Truncate(n) => {
            let min = match s.min {
                Datum::String(v) => Datum::String(truncate_min(&v, n)),
                other => other,
            };
            let max = match s.max {
                Datum::String(v) => match truncate_max(&v, n) {
                    Some(m) => Datum::String(m),
                    None => return ColStats::new(Datum::Null, Datum::Null, s.null_count),
                },
                Datum::Null => return ColStats::new(Datum::Null, Datum::Null, s.null_count),
                other => other,
            };
            ColStats::new(min, max, s.null_count)
        }
    }
}

/// The first `n` code points (Java `BinaryString.substring(0, n)`).
fn truncate_min(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The smallest string of at most `n` code points that is >= `s`, by incrementing the last
/// code point that can be incremented (Java `TruncateSimpleColStatsCollector.truncateMax`);
/// `None` when none can.
fn truncate_max(s: &str, n: usize) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= n {
        return Some(s.to_string());
    }
    for i in (0..n).rev() {
        let next = u32::from(chars[i]) + 1;
        if next <= 0x10FFFF {
            let mut out: String = chars[..i].iter().collect();
            // Java may step onto a lone surrogate, which its UTF-8 encoder writes as '?'.
            out.push(char::from_u32(next).unwrap_or('?'));
            return Some(out);
        }
    }
    None
}

/// The footer statistics of the top-level leaf column named like `field`, merged over row
/// groups, as Java values of the field's type (Java `ParquetUtil.extractColumnStats` and
/// `ParquetSimpleStatsExtractor.toFieldStats` before the mode is applied).
fn merged_chunk_stats(meta: &ParquetMetaData, field: &DataField) -> Option<ColStats> {
    let mut found = false;
    let mut min = Datum::Null;
    let mut max = Datum::Null;
    let mut nulls: Option<i64> = Some(0);
    for rg in meta.row_groups() {
        let chunk = rg
            .columns()
            .iter()
            .find(|c| c.column_path().parts() == [field.name.as_str()])?;
        found = true;
        let Some(st) = chunk.statistics() else {
            nulls = None;
            continue;
        };
        nulls = match (nulls, st.null_count_opt()) {
            (Some(a), Some(b)) => Some(a.saturating_add(i64::try_from(b).unwrap_or(i64::MAX))),
            _ => None,
        };
        let (lo, hi) = bounds(st, &field.data_type);
        if lo.is_null() || hi.is_null() {
            continue;
        }
        if min.is_null() || compare(&lo, &min) == Some(Ordering::Less) {
            min = lo;
        }
        if max.is_null() || compare(&hi, &max) == Some(Ordering::Greater) {
            max = hi;
        }
    }
    found.then_some(ColStats::new(min, max, nulls))
}

/// One chunk's min and max as values of `ty`; nulls where Java keeps no bound (binary
/// columns, timestamps above microseconds, types the footer cannot order).
fn bounds(st: &Statistics, ty: &DataType) -> (Datum, Datum) {
    let pair = |f: &dyn Fn(bool) -> Option<Datum>| {
        (
            f(true).unwrap_or(Datum::Null),
            f(false).unwrap_or(Datum::Null),
        )
    };
    match (&ty.kind, st) {
        (TypeKind::Boolean, Statistics::Boolean(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::Boolean(*v)))
        }
        (TypeKind::TinyInt, Statistics::Int32(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::TinyInt(*v as i8)))
        }
        (TypeKind::SmallInt, Statistics::Int32(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::SmallInt(*v as i16)))
        }
        (TypeKind::Int, Statistics::Int32(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::Int(*v)))
        }
        (TypeKind::Date, Statistics::Int32(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::Date(*v)))
        }
        (TypeKind::Time { .. }, Statistics::Int32(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::Time(*v)))
        }
        (TypeKind::BigInt, Statistics::Int64(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::BigInt(*v)))
        }
        (TypeKind::Float, Statistics::Float(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::Float(*v)))
        }
        (TypeKind::Double, Statistics::Double(s)) => {
            pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| Datum::Double(*v)))
        }
        (TypeKind::Char { .. } | TypeKind::VarChar { .. }, Statistics::ByteArray(s)) => {
            pair(&|lo| {
                pick(lo, s.min_opt(), s.max_opt())
                    .map(|v| Datum::String(String::from_utf8_lossy(v.data()).into_owned()))
            })
        }
        (TypeKind::Decimal { precision, scale }, st) => {
            let dec = |unscaled: i128| Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            };
            match st {
                Statistics::Int32(s) => {
                    pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| dec(i128::from(*v))))
                }
                Statistics::Int64(s) => {
                    pair(&|lo| pick(lo, s.min_opt(), s.max_opt()).map(|v| dec(i128::from(*v))))
                }
                Statistics::FixedLenByteArray(s) => pair(&|lo| {
                    pick(lo, s.min_opt(), s.max_opt())
                        .and_then(|v| be_signed(v.data()))
                        .map(dec)
                }),
                Statistics::ByteArray(s) => pair(&|lo| {
                    pick(lo, s.min_opt(), s.max_opt())
                        .and_then(|v| be_signed(v.data()))
                        .map(dec)
                }),
                _ => (Datum::Null, Datum::Null),
            }
        }
        (
            TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision },
            Statistics::Int64(s),
        ) if *precision <= 6 => {
            let ltz = matches!(ty.kind, TypeKind::LocalZonedTimestamp { .. });
            let micros = *precision > 3;
            pair(&|lo| {
                pick(lo, s.min_opt(), s.max_opt()).map(|v| {
                    let (millis, nanos) = if micros {
                        (v.div_euclid(1000), (v.rem_euclid(1000) * 1000) as i32)
                    } else {
                        (*v, 0)
                    };
                    if ltz {
                        Datum::LocalZonedTimestamp { millis, nanos }
                    } else {
                        Datum::Timestamp { millis, nanos }
                    }
                })
            })
        }
        _ => (Datum::Null, Datum::Null),
    }
}

fn pick<'a, T>(lo: bool, min: Option<&'a T>, max: Option<&'a T>) -> Option<&'a T> {
    if lo {
        min
    } else {
        max
    }
}

/// A big-endian two's-complement integer of at most 16 bytes (Java `new BigInteger(bytes)`).
fn be_signed(b: &[u8]) -> Option<i128> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let fill = if b[0] & 0x80 != 0 { 0xFF } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

/// Statistics collected from the rows written, for formats without footer statistics (Java
/// `SimpleStatsCollector` inside `StatsCollectingSingleFileWriter`, used for Avro): per
/// top-level field its null count, and min and max for the types whose Java values are
/// `Comparable` (not binary, arrays, maps, multisets or rows).
#[derive(Debug)]
pub struct StatsCollector {
    fields: Vec<DataField>,
    stats: Vec<(Datum, Datum, i64)>,
}

impl StatsCollector {
    /// A collector for files of `fields`.
    pub fn new(fields: &[DataField]) -> Self {
        StatsCollector {
            fields: fields.to_vec(),
            stats: vec![(Datum::Null, Datum::Null, 0); fields.len()],
        }
    }

    /// Takes in the rows of `batch` (in the file's row).
    pub fn collect(&mut self, batch: &arrow_array::RecordBatch) {
        for ((field, col), acc) in self
            .fields
            .iter()
            .zip(batch.columns())
            .zip(self.stats.iter_mut())
        {
            acc.2 = acc.2.saturating_add(col.null_count() as i64);
            if !orderable(&field.data_type) || col.null_count() == col.len() {
                continue;
            }
            let Some((lo, hi)) = min_max_rows(col) else {
                continue;
            };
            let (Some(lo), Some(hi)) = (
                paimon_data::datum::datum_at(col, lo, &field.data_type),
                paimon_data::datum::datum_at(col, hi, &field.data_type),
            ) else {
                continue;
            };
            if acc.0.is_null() || compare(&lo, &acc.0) == Some(Ordering::Less) {
                acc.0 = lo;
            }
            if acc.1.is_null() || compare(&hi, &acc.1) == Some(Ordering::Greater) {
                acc.1 = hi;
            }
        }
    }

    /// The statistics of every field, converted by its mode.
    pub fn finish(self, modes: &[StatsMode]) -> Vec<ColStats> {
        self.stats
            .into_iter()
            .zip(modes)
            .map(|((min, max, nulls), mode)| convert(*mode, ColStats::new(min, max, Some(nulls))))
            .collect()
    }
}

/// Whether Java's collector keeps bounds for values of `ty`.
fn orderable(ty: &DataType) -> bool {
    matches!(
        ty.kind,
        TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Decimal { .. }
            | TypeKind::Char { .. }
            | TypeKind::VarChar { .. }
            | TypeKind::Date
            | TypeKind::Time { .. }
            | TypeKind::Timestamp { .. }
            | TypeKind::LocalZonedTimestamp { .. }
    )
}

/// The rows of the smallest and largest non-null values of `col`.
fn min_max_rows(col: &arrow_array::ArrayRef) -> Option<(usize, usize)> {
    let cmp = arrow_ord::ord::make_comparator(
        col.as_ref(),
        col.as_ref(),
        arrow_schema::SortOptions::default(),
    )
    .ok()?;
    let mut rows = (0..col.len()).filter(|i| col.is_valid(*i));
    let first = rows.next()?;
    let (mut lo, mut hi) = (first, first);
    for i in rows {
        if cmp(i, lo) == Ordering::Less {
            lo = i;
        }
        if cmp(i, hi) == Ordering::Greater {
            hi = i;
        }
    }
    Some((lo, hi))
}

/// Orders two values of one type; `None` for values that do not compare.
pub(crate) fn compare(a: &Datum, b: &Datum) -> Option<Ordering> {
    use Datum as D;
    match (a, b) {
        (D::Boolean(x), D::Boolean(y)) => Some(x.cmp(y)),
        (D::TinyInt(x), D::TinyInt(y)) => Some(x.cmp(y)),
        (D::SmallInt(x), D::SmallInt(y)) => Some(x.cmp(y)),
        (D::Int(x), D::Int(y)) | (D::Date(x), D::Date(y)) | (D::Time(x), D::Time(y)) => {
            Some(x.cmp(y))
        }
        (D::BigInt(x), D::BigInt(y)) => Some(x.cmp(y)),
        (D::Float(x), D::Float(y)) => x.partial_cmp(y),
        (D::Double(x), D::Double(y)) => x.partial_cmp(y),
        (D::Decimal { unscaled: x, .. }, D::Decimal { unscaled: y, .. }) => Some(x.cmp(y)),
        (D::String(x), D::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (D::Binary(x), D::Binary(y)) => Some(x.cmp(y)),
        (
            D::Timestamp {
                millis: m1,
                nanos: n1,
            },
            D::Timestamp {
                millis: m2,
                nanos: n2,
            },
        )
        | (
            D::LocalZonedTimestamp {
                millis: m1,
                nanos: n1,
            },
            D::LocalZonedTimestamp {
                millis: m2,
                nanos: n2,
            },
        ) => Some((m1, n1).cmp(&(m2, n2))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_as_java() {
        assert_eq!(
            StatsMode::parse("truncate(16)"),
            Some(StatsMode::Truncate(16))
        );
        assert_eq!(StatsMode::parse("FULL"), Some(StatsMode::Full));
        assert_eq!(StatsMode::parse("Counts"), Some(StatsMode::Counts));
        assert_eq!(StatsMode::parse("none"), Some(StatsMode::None));
        assert_eq!(StatsMode::parse("truncate(0)"), None);
        assert_eq!(StatsMode::parse("truncate"), None);
    }

    #[test]
    fn truncation_rounds_the_max_up() {
        assert_eq!(truncate_min("abcdef", 3), "abc");
        assert_eq!(truncate_max("abcdef", 3).as_deref(), Some("abd"));
        assert_eq!(truncate_max("ab", 3).as_deref(), Some("ab"));
        // The last code point cannot grow: the one before it does.
        let top = format!("a{}{}x", char::MAX, char::MAX);
        assert_eq!(truncate_max(&top, 3).as_deref(), Some("b"));
        let all_top: String = std::iter::repeat_n(char::MAX, 4).collect();
        assert_eq!(truncate_max(&all_top, 3), None);
    }

    #[test]
    fn big_endian_decimals() {
        assert_eq!(be_signed(&[0xFF, 0xFE]), Some(-2));
        assert_eq!(be_signed(&[0x01, 0x00]), Some(256));
        assert_eq!(be_signed(&[]), None);
    }
}
