//! `DELETE FROM t WHERE ..` and `UPDATE t SET .. WHERE ..` on an append table (no primary
//! key): the filter and the `SET` expressions are planned here, and the rows are changed by
//! the facade's [`paimon_rs::change_append_rows`] (deletion vectors on a table with
//! `deletion-vectors.enabled`, copy-on-write otherwise; one OVERWRITE commit, nothing committed
//! when the statement touches no row or fails). The plan is a [`DataSinkExec`] over no input,
//! so the result is DataFusion's DML row, `count`: the rows deleted or updated.

use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, BooleanArray, RecordBatch};
use arrow::datatypes::{Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::DFSchema;
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::expressions::cast;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan};

/// What the statement does to a matching row.
#[derive(Debug, Clone)]
enum Action {
    Delete,
    /// Per table column, its new value (`None`: unchanged).
    Update(Vec<Option<Arc<dyn PhysicalExpr>>>),
}

/// Runs one `DELETE` / `UPDATE` of an append table when executed.
#[derive(Clone)]
struct AppendRowSink {
    table: paimon_meta::Table,
    path: String,
    /// The rows touched (`None`: every row).
    predicate: Option<Arc<dyn PhysicalExpr>>,
    action: Action,
    /// The sink takes no rows.
    empty: SchemaRef,
}

impl fmt::Debug for AppendRowSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppendRowSink")
            .field("path", &self.path)
            .finish()
    }
}

impl DisplayAs for AppendRowSink {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.action {
            Action::Delete => "delete from",
            Action::Update(_) => "update",
        };
        write!(f, "PaimonAppendRowChange: {what} {}", self.path)
    }
}

impl AppendRowSink {
    /// The [`paimon_rs::Touched`] rows of one batch of the table's rows.
    fn touch(&self, batch: &RecordBatch) -> Result<paimon_rs::Touched> {
        let n = batch.num_rows();
        let rows = match &self.predicate {
            Some(p) => {
                let v = p.evaluate(batch)?.into_array(n)?;
                v.as_any()
                    .downcast_ref::<BooleanArray>()
                    .cloned()
                    .ok_or_else(|| {
                        DataFusionError::Plan(format!(
                            "{}: the WHERE condition is not a boolean ({})",
                            self.path,
                            v.data_type()
                        ))
                    })?
            }
            None => BooleanArray::from(vec![true; n]),
        };
        let new_rows = match &self.action {
            Action::Delete => None,
            Action::Update(values) => {
                let hit = arrow::compute::filter_record_batch(batch, &rows)?;
                let mut columns = Vec::with_capacity(values.len());
                for (i, v) in values.iter().enumerate() {
                    columns.push(match v {
                        Some(e) => e.evaluate(&hit)?.into_array(hit.num_rows())?,
                        None => Arc::clone(hit.column(i)),
                    });
                }
                Some(RecordBatch::try_new(batch.schema(), columns)?)
            }
        };
        Ok(paimon_rs::Touched { rows, new_rows })
    }
}

#[async_trait]
impl DataSink for AppendRowSink {
    fn schema(&self) -> &SchemaRef {
        &self.empty
    }

    async fn write_all(
        &self,
        _data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let this = self.clone();
        let report = tokio::task::spawn_blocking(move || {
            let mut change = |b: &RecordBatch| this.touch(b).map_err(|e| e.to_string());
            paimon_rs::change_append_rows(&this.table, &mut change, &[])
                .map_err(|e| DataFusionError::Execution(e.chain()))
        })
        .await
        .map_err(|e| {
            DataFusionError::Execution(format!("{}: writer task failed: {e}", self.path))
        })??;
        Ok(report.rows)
    }
}

/// The plan of `DELETE FROM` the append table (read as `schema`) where `filters` hold.
pub(crate) fn delete_plan(
    state: &dyn Session,
    table: &paimon_meta::Table,
    path: &str,
    schema: &SchemaRef,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan(state, table, path, schema, filters, Action::Delete)
}

/// The plan of `UPDATE` the append table (read as `schema`) `SET assignments WHERE filters`.
///
/// # Errors
/// An unknown column; expressions that do not plan.
pub(crate) fn update_plan(
    state: &dyn Session,
    table: &paimon_meta::Table,
    path: &str,
    schema: &SchemaRef,
    assignments: Vec<(String, Expr)>,
    filters: Vec<Expr>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
    let mut values: Vec<Option<Arc<dyn PhysicalExpr>>> = vec![None; schema.fields().len()];
    for (column, expr) in assignments {
        let (i, field) = schema.column_with_name(&column).ok_or_else(|| {
            DataFusionError::Plan(format!("UPDATE: the table has no column '{column}'"))
        })?;
        let value = state.create_physical_expr(expr, &df_schema)?;
        values[i] = Some(cast(value, schema, field.data_type().clone())?);
    }
    plan(state, table, path, schema, filters, Action::Update(values))
}

fn plan(
    state: &dyn Session,
    table: &paimon_meta::Table,
    path: &str,
    schema: &SchemaRef,
    filters: Vec<Expr>,
    action: Action,
) -> Result<Arc<dyn ExecutionPlan>> {
    let predicate = match conjunction(filters) {
        Some(p) => {
            let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
            Some(state.create_physical_expr(p, &df_schema)?)
        }
        None => None,
    };
    let empty: SchemaRef = Arc::new(Schema::empty());
    let sink = AppendRowSink {
        table: table.clone(),
        path: path.to_string(),
        predicate,
        action,
        empty: Arc::clone(&empty),
    };
    Ok(Arc::new(DataSinkExec::new(
        Arc::new(EmptyExec::new(empty)),
        Arc::new(sink),
        None,
    )))
}
