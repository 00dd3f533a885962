//! `DELETE FROM t WHERE ..` and `UPDATE t SET .. WHERE ..` on a primary-key table
//! ([`crate::PaimonTableProvider`]'s `delete_from` and `update`): the rows matching the
//! filter are read at the latest snapshot and written back with row kind `-D` (DELETE), or
//! as `-U` old and `+U` new rows (UPDATE; a primary-key column in `SET` is refused), through the
//! same sink as `INSERT` ([`crate::insert::PaimonSink`]: one commit, nothing committed when
//! the statement fails). The result is DataFusion's DML row, `count`: the rows written.
//!
//! Append tables (no primary key) are changed by the `append_dml` module instead.
//!
//! Refused as Java refuses it, before anything is read: data-evolution and row-tracking append
//! tables (not yet here: their row ids would be lost), `first-row` tables, `partial-update` tables without
//! `partial-update.remove-record-on-delete`, `aggregation` tables without
//! `aggregation.remove-record-on-delete`, and tables with `ignore-delete` (the deletes would
//! be dropped).

use std::sync::Arc;

use datafusion::catalog::Session;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::expressions::{cast, Column, Literal};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::union::UnionExec;
use datafusion::physical_plan::ExecutionPlan;
use paimon_spec::options::MergeEngine;

/// The column carrying each written row's kind; never a table column (the writer checks).
pub const ROW_KIND_COLUMN: &str = "_paimon_sql_row_kind";

/// Why `statement` cannot change rows of `table` (at `path`), if it cannot.
pub(crate) fn refusal(table: &paimon_meta::Table, path: &str, statement: &str) -> Option<String> {
    let o = table.options();
    let why = if table.query_auth().is_some() {
        // The rows it would rewrite are read filtered and masked: written back, masked values
        // would replace the table's own.
        "the table is under query auth (query-auth.enabled): its rows are read masked and filtered, so they cannot be rewritten"
    } else if table.schema().primary_keys.is_empty() {
        if o.data_evolution_enabled || o.row_tracking_enabled {
            "the table tracks row ids (data-evolution.enabled / row-tracking.enabled), which a row-level change of an append table would lose (not supported yet)"
        } else {
            // Rewritten by crate::append_dml.
            return None;
        }
    } else if o.ignore_delete {
        "the table sets ignore-delete, so the deletes would be dropped"
    } else {
        match o.merge_engine {
            MergeEngine::Deduplicate => return None,
            MergeEngine::FirstRow => "the first-row merge engine does not take deletes",
            MergeEngine::PartialUpdate if !o.partial_update_remove_record_on_delete => {
                "the partial-update merge engine takes deletes only with partial-update.remove-record-on-delete = true"
            }
            MergeEngine::Aggregation
                if o.raw.get("aggregation.remove-record-on-delete").map(String::as_str)
                    != Some("true") =>
            {
                "the aggregation merge engine takes deletes only with aggregation.remove-record-on-delete = true"
            }
            _ => return None,
        }
    };
    Some(format!("{statement} on {path}: {why}"))
}

/// The plan of `DELETE FROM` the table read by `scan` where `filters` hold: the matching rows
/// with [`ROW_KIND_COLUMN`] = `-D`, into `sink`.
pub(crate) fn delete_plan(
    state: &dyn Session,
    scan: Arc<dyn ExecutionPlan>,
    filters: Vec<Expr>,
    sink: crate::insert::PaimonSink,
) -> Result<Arc<dyn ExecutionPlan>> {
    let schema = scan.schema();
    // The scan prunes with the filters; the filter here makes the match exact.
    let input: Arc<dyn ExecutionPlan> = match conjunction(filters) {
        Some(predicate) => {
            let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
            let predicate = state.create_physical_expr(predicate, &df_schema)?;
            Arc::new(FilterExec::try_new(predicate, scan)?)
        }
        None => scan,
    };
    let mut exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            (
                Arc::new(Column::new(f.name(), i)) as Arc<dyn PhysicalExpr>,
                f.name().clone(),
            )
        })
        .collect();
    exprs.push((
        Arc::new(Literal::new(ScalarValue::Utf8(Some("-D".into())))),
        ROW_KIND_COLUMN.to_string(),
    ));
    let rows = Arc::new(ProjectionExec::try_new(exprs, input)?);
    let sink = sink.with_row_kind_column(ROW_KIND_COLUMN, rows.schema());
    Ok(Arc::new(DataSinkExec::new(rows, Arc::new(sink), None)))
}

/// The plan of `UPDATE` the table read by `scan` `SET assignments WHERE filters`: each
/// matching row written twice, its old values with row kind `-U`, then its new values with
/// `+U` (all `-U` rows ahead of all `+U` rows, so a key's `+U` gets the later sequence
/// number), into `sink`.
///
/// # Errors
/// A primary-key column in `SET` (Java refuses it too); an unknown column; expressions that do
/// not plan.
pub(crate) fn update_plan(
    state: &dyn Session,
    scan: Arc<dyn ExecutionPlan>,
    primary_keys: &[String],
    assignments: Vec<(String, Expr)>,
    filters: Vec<Expr>,
    sink: crate::insert::PaimonSink,
) -> Result<Arc<dyn ExecutionPlan>> {
    let schema = scan.schema();
    let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
    let mut new_values: Vec<Option<Arc<dyn PhysicalExpr>>> = vec![None; schema.fields().len()];
    for (column, expr) in assignments {
        if primary_keys.contains(&column) {
            return Err(DataFusionError::Plan(format!(
                "UPDATE: '{column}' is a primary-key column and cannot be SET (delete the row and insert the new key)"
            )));
        }
        let (i, field) = schema.column_with_name(&column).ok_or_else(|| {
            DataFusionError::Plan(format!("UPDATE: the table has no column '{column}'"))
        })?;
        let value = state.create_physical_expr(expr, &df_schema)?;
        new_values[i] = Some(cast(value, &schema, field.data_type().clone())?);
    }
    let input: Arc<dyn ExecutionPlan> = match conjunction(filters) {
        Some(predicate) => {
            let predicate = state.create_physical_expr(predicate, &df_schema)?;
            Arc::new(FilterExec::try_new(predicate, scan)?)
        }
        None => scan,
    };
    let side = |kind: &str, rank: i32, new: bool| -> Result<Arc<dyn ExecutionPlan>> {
        let mut exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = Vec::new();
        for (i, f) in schema.fields().iter().enumerate() {
            let old: Arc<dyn PhysicalExpr> = Arc::new(Column::new(f.name(), i));
            let e = match (&new_values[i], new) {
                (Some(v), true) => Arc::clone(v),
                _ => old,
            };
            exprs.push((e, f.name().clone()));
        }
        exprs.push((
            Arc::new(Literal::new(ScalarValue::Utf8(Some(kind.into())))),
            ROW_KIND_COLUMN.to_string(),
        ));
        exprs.push((
            Arc::new(Literal::new(ScalarValue::Int32(Some(rank)))),
            RANK_COLUMN.to_string(),
        ));
        Ok(Arc::new(ProjectionExec::try_new(
            exprs,
            Arc::clone(&input),
        )?))
    };
    let both = UnionExec::try_new(vec![side("-U", 0, false)?, side("+U", 1, true)?])?;
    let both_schema = both.schema();
    let rank_index = both_schema.fields().len() - 1;
    let ordering = LexOrdering::new(vec![PhysicalSortExpr::new_default(Arc::new(Column::new(
        RANK_COLUMN,
        rank_index,
    )))])
    .ok_or_else(|| DataFusionError::Internal("UPDATE: empty ordering".into()))?;
    let sorted = Arc::new(SortExec::new(
        ordering,
        Arc::new(CoalescePartitionsExec::new(both)),
    ));
    let rows: Vec<(Arc<dyn PhysicalExpr>, String)> = both_schema
        .fields()
        .iter()
        .enumerate()
        .take(rank_index)
        .map(|(i, f)| {
            (
                Arc::new(Column::new(f.name(), i)) as Arc<dyn PhysicalExpr>,
                f.name().clone(),
            )
        })
        .collect();
    let rows = Arc::new(ProjectionExec::try_new(rows, sorted)?);
    let sink = sink.with_row_kind_column(ROW_KIND_COLUMN, rows.schema());
    Ok(Arc::new(DataSinkExec::new(rows, Arc::new(sink), None)))
}

/// Orders an UPDATE's `-U` rows before its `+U` rows; not written.
const RANK_COLUMN: &str = "_paimon_sql_update_rank";
