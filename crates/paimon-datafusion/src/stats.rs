//! Statistics of a planned scan for DataFusion's optimizer: row counts from the splits
//! (exact when every split is raw-convertible with known deletions and nothing filters
//! rows, as Java `DataSplit.mergedRowCount`), column bounds and null counts from the data
//! files' value statistics in the manifests (always inexact: merges and deletions only
//! narrow them).

use arrow::datatypes::{DataType as ArrowType, Schema, TimeUnit};
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, ScalarValue, Statistics};
use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::schema::TableSchema;
use paimon_split::DataSplit;

/// What a scan knows about its output before reading.
pub(crate) struct ScanFacts<'a> {
    /// The planned splits.
    pub splits: &'a [DataSplit],
    /// The schema rows are read with.
    pub schema: &'a TableSchema,
    /// Whether a filter, a row-kind read or a limit changes the rows from the splits' count.
    pub rows_narrowed: bool,
}

/// Statistics of `output` (the scan's schema: names of `facts.schema`'s columns, maybe a
/// leading `rowkind`).
pub(crate) fn scan_statistics(facts: &ScanFacts<'_>, output: &Schema) -> Statistics {
    let columns = output
        .fields()
        .iter()
        .map(|f| column_statistics(facts, f.name(), f.data_type()))
        .collect();
    Statistics {
        num_rows: row_count(facts),
        total_byte_size: Precision::Absent,
        column_statistics: columns,
    }
}

fn row_count(facts: &ScanFacts<'_>) -> Precision<usize> {
    let mut exact = !facts.rows_narrowed;
    let mut rows: i64 = 0;
    for s in facts.splits {
        let merged = s.raw_convertible
            && s.data_deletion_files.as_ref().is_none_or(|d| {
                d.iter()
                    .all(|f| f.as_ref().is_none_or(|f| f.cardinality.is_some()))
            });
        exact &= merged;
        for (i, f) in s.data_files.iter().enumerate() {
            let deleted = s.deletion_file(i).and_then(|d| d.cardinality).unwrap_or(0);
            rows =
                rows.saturating_add(f.row_count.saturating_sub(if merged { deleted } else { 0 }));
        }
    }
    let Ok(n) = usize::try_from(rows) else {
        return Precision::Absent;
    };
    if exact {
        Precision::Exact(n)
    } else {
        Precision::Inexact(n)
    }
}

fn column_statistics(facts: &ScanFacts<'_>, name: &str, arrow: &ArrowType) -> ColumnStatistics {
    let mut stats = ColumnStatistics::new_unknown();
    let Some(field) = facts.schema.field(name) else {
        return stats;
    };
    let mut min: Option<ScalarValue> = None;
    let mut max: Option<ScalarValue> = None;
    let mut nulls: Option<usize> = Some(0);
    for f in facts.splits.iter().flat_map(|s| &s.data_files) {
        // Stats of files written with another schema may describe another type or column.
        let pos = (f.schema_id == facts.schema.id)
            .then(|| stats_position(f, facts.schema, name))
            .flatten();
        let Some(pos) = pos else {
            return stats;
        };
        let ty = field.data_type.with_nullable(true);
        let value = |row: paimon_spec::Result<BinaryRow<'_>>| {
            row.ok()
                .and_then(|r| r.get(pos, &ty).ok())
                .and_then(|d| to_scalar(&d, arrow))
        };
        match (
            value(f.value_stats.min_row()),
            value(f.value_stats.max_row()),
        ) {
            (Some(lo), Some(hi)) => {
                min = Some(match min {
                    Some(m) if m.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) => m,
                    _ => lo,
                });
                max = Some(match max {
                    Some(m) if m.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) => m,
                    _ => hi,
                });
            }
            // A file whose column is all null has no bounds; one without stats leaves the
            // column unknown.
            _ if f.row_count > 0 && null_count(f, pos) == Some(f.row_count) => {}
            _ => return stats,
        }
        nulls = match (
            nulls,
            null_count(f, pos).and_then(|n| usize::try_from(n).ok()),
        ) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
    if let Some(m) = min {
        stats.min_value = Precision::Inexact(m);
    }
    if let Some(m) = max {
        stats.max_value = Precision::Inexact(m);
    }
    if let Some(n) = nulls {
        stats.null_count = Precision::Inexact(n);
    }
    stats
}

/// Where `name`'s stats sit in `f`'s stats rows.
fn stats_position(f: &DataFileMeta, schema: &TableSchema, name: &str) -> Option<usize> {
    match &f.value_stats_cols {
        Some(cols) => cols.iter().position(|c| c == name),
        None => schema.fields.iter().position(|c| c.name == name),
    }
}

fn null_count(f: &DataFileMeta, pos: usize) -> Option<i64> {
    f.value_stats
        .null_counts
        .as_ref()?
        .get(pos)
        .copied()
        .flatten()
}

/// `d` as a scalar of the column's Arrow type, for the types whose order DataFusion and
/// Paimon agree on.
fn to_scalar(d: &Datum, arrow: &ArrowType) -> Option<ScalarValue> {
    Some(match (d, arrow) {
        (Datum::Boolean(v), ArrowType::Boolean) => ScalarValue::Boolean(Some(*v)),
        (Datum::TinyInt(v), ArrowType::Int8) => ScalarValue::Int8(Some(*v)),
        (Datum::SmallInt(v), ArrowType::Int16) => ScalarValue::Int16(Some(*v)),
        (Datum::Int(v), ArrowType::Int32) => ScalarValue::Int32(Some(*v)),
        (Datum::BigInt(v), ArrowType::Int64) => ScalarValue::Int64(Some(*v)),
        (Datum::Float(v), ArrowType::Float32) if !v.is_nan() => ScalarValue::Float32(Some(*v)),
        (Datum::Double(v), ArrowType::Float64) if !v.is_nan() => ScalarValue::Float64(Some(*v)),
        (Datum::Decimal { unscaled, .. }, ArrowType::Decimal128(p, s)) => {
            ScalarValue::Decimal128(Some(*unscaled), *p, *s)
        }
        (Datum::String(v), ArrowType::Utf8) => ScalarValue::Utf8(Some(v.clone())),
        (Datum::Date(v), ArrowType::Date32) => ScalarValue::Date32(Some(*v)),
        (Datum::Timestamp { millis, nanos }, ArrowType::Timestamp(unit, tz))
        | (Datum::LocalZonedTimestamp { millis, nanos }, ArrowType::Timestamp(unit, tz)) => {
            let n = i128::from(*millis) * 1_000_000 + i128::from(*nanos);
            let tz = tz.clone();
            match unit {
                TimeUnit::Second => ScalarValue::TimestampSecond(
                    i64::try_from(n.div_euclid(1_000_000_000)).ok(),
                    tz,
                ),
                TimeUnit::Millisecond => ScalarValue::TimestampMillisecond(Some(*millis), tz),
                TimeUnit::Microsecond => {
                    ScalarValue::TimestampMicrosecond(i64::try_from(n.div_euclid(1_000)).ok(), tz)
                }
                TimeUnit::Nanosecond => ScalarValue::TimestampNanosecond(i64::try_from(n).ok(), tz),
            }
        }
        _ => return None,
    })
}
