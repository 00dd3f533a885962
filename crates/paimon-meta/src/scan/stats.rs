//! Mapping a data file's value statistics onto the table's current columns (Java
//! `SimpleStatsEvolution`), for append-table file pruning.

use paimon_spec::binary::BinaryRow;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::predicate::Predicate;
use paimon_spec::schema::TableSchema;
use paimon_spec::types::DataField;

use super::prune::{may_match, ColumnStats};

/// Whether `file` may hold a row matching `pred`, judged by its value stats. Columns that are
/// missing from the file's schema, changed type, or lack stats count as "may match".
pub fn file_may_match(
    pred: &Predicate,
    file: &DataFileMeta,
    current: &TableSchema,
    file_schema: &TableSchema,
) -> bool {
    let (Ok(min), Ok(max)) = (file.value_stats.min_row(), file.value_stats.max_row()) else {
        return true;
    };
    // The stats follow `_VALUE_STATS_COLS`, else `_WRITE_COLS` (which may name the
    // row-tracking columns, not in the schema), else the schema.
    let stats_fields: Vec<Option<&DataField>> =
        match file.value_stats_cols.as_ref().or(file.write_cols.as_ref()) {
            Some(cols) => cols.iter().map(|c| file_schema.field(c)).collect(),
            None => file_schema.fields.iter().map(Some).collect(),
        };
    let expected = stats_fields.len();
    if min.arity() != expected || max.arity() != expected {
        return true;
    }
    let lookup = |column: &str| -> Option<ColumnStats> {
        let cur = current.field(column)?;
        let pos = stats_fields
            .iter()
            .position(|f| f.is_some_and(|f| f.id == cur.id))?;
        let ff = stats_fields[pos]?;
        if !ff.data_type.eq_ignore_nullable(&cur.data_type) {
            return None;
        }
        let ty = ff.data_type.with_nullable(true);
        let get = |row: &BinaryRow<'_>| row.get(pos, &ty).ok().filter(|d| !d.is_null());
        Some(ColumnStats {
            min: get(&min),
            max: get(&max),
            null_count: file
                .value_stats
                .null_counts
                .as_ref()
                .and_then(|n| n.get(pos).copied().flatten()),
        })
    };
    may_match(pred, file.row_count, &lookup)
}
