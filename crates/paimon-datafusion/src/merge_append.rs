//! `MERGE INTO` an append table (no primary key), as Java's Spark `MergeIntoPaimonTable` does
//! for such tables: the target rows a `WHEN MATCHED` clause updates or deletes are removed as
//! `DELETE` removes them (deletion vectors, or copy-on-write), the updated rows and the
//! `WHEN NOT MATCHED` inserts written as new files, all in one commit
//! ([`paimon_rs::change_append_rows`]).
//!
//! An append table has no key to name a row by, so the matched clauses are planned once per
//! batch of target rows as the facade reads them: the batch, with each row's position, is
//! joined with the source (`source JOIN batch ON cond`), each joined row taking the first
//! `WHEN MATCHED` clause whose condition holds; a target row joined with two source rows is
//! refused (Spark's `MERGE_CARDINALITY_VIOLATION`) and nothing is committed. The inserts are
//! `source LEFT JOIN target ON cond` where no target row joins. The result is `count`: the
//! rows updated, deleted and inserted.
//!
//! The statement names the target by its alias, or by the last part of its name when it has
//! none.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow::array::{Array, BooleanArray, Int64Array, RecordBatch, StringArray, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::Column;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{cast, Expr as DfExpr};
use datafusion::prelude::{DataFrame, SessionContext};
use datafusion::sql::sqlparser::ast::{MergeClauseKind, ObjectNamePart, TableFactor};

use crate::merge::{quote, Fail, Shape};
use crate::policy::policy_of;
use crate::table::PaimonTableProvider;

/// Each target row's position in its batch; not a table column.
const POS: &str = "__paimon_merge_pos";
/// What a matched clause does to the row: `D` or `U`.
const ACTION: &str = "__paimon_merge_action";
/// Set on every target row of the inserts' join; not a table column.
const PRESENT: &str = "__paimon_merge_present";

/// Numbers the batches registered as tables, so statements never share one.
static BATCHES: AtomicU64 = AtomicU64::new(0);

/// Runs the `MERGE` of `shape` into the append table `target`.
///
/// # Errors
/// The refusals of the module docs; planning, read, write and commit errors.
pub(crate) async fn run(
    ctx: &SessionContext,
    shape: &Shape<'_>,
    target: &PaimonTableProvider,
    fail: &Fail<'_>,
) -> Result<DataFrame> {
    let TableFactor::Table { name, alias, .. } = &shape.merge.table else {
        return Err(fail("the target must be a table"));
    };
    let short = match alias {
        Some(a) => a.name.to_string(),
        None => match name.0.last() {
            Some(ObjectNamePart::Identifier(id)) => id.to_string(),
            _ => return Err(fail("the target must be named")),
        },
    };
    let shape = Shape {
        qualifier: &short,
        ..*shape
    };
    let added = inserts(ctx, &shape, &name.to_string(), fail).await?;
    let matched = matched_branches(&shape, fail)?;
    let handle = tokio::runtime::Handle::current();
    let table = target.meta().clone();
    let path = target.path().to_string();
    let task_ctx = ctx.clone();
    let columns: Vec<(String, DataType)> = shape.columns.to_vec();
    let source = shape.merge.source.to_string();
    let on = shape.merge.on.to_string();
    let statement = format!("MERGE INTO {name}");
    let report = tokio::task::spawn_blocking(move || {
        let mut change = |batch: &RecordBatch| {
            if matched.is_empty() {
                return Ok(paimon_rs::Touched {
                    rows: BooleanArray::from(vec![false; batch.num_rows()]),
                    new_rows: None,
                });
            }
            let m = Matched {
                ctx: &task_ctx,
                columns: &columns,
                source: &source,
                on: &on,
                alias: &short,
                branches: &matched,
                statement: &statement,
            };
            handle.block_on(m.touch(batch)).map_err(|e| e.to_string())
        };
        paimon_rs::change_append_rows(&table, &mut change, &added)
            .map_err(|e| DataFusionError::Execution(e.chain()))
    })
    .await
    .map_err(|e| DataFusionError::Execution(format!("{path}: writer task failed: {e}")))??;
    let count = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new(
            "count",
            DataType::UInt64,
            false,
        )])),
        vec![Arc::new(UInt64Array::from(vec![report.rows]))],
    )?;
    ctx.read_batch(count)
}

/// One matched clause's rows: its action (`D` / `U`), its guard (SQL) and, per table column,
/// the row's value afterwards (SQL).
#[derive(Debug, Clone)]
struct Branch {
    action: &'static str,
    guard: String,
    values: Vec<String>,
}

/// The `WHEN MATCHED` clauses as branches, in clause order.
fn matched_branches(shape: &Shape<'_>, fail: &Fail<'_>) -> Result<Vec<Branch>> {
    let mut out = Vec::new();
    let mut earlier: Vec<String> = Vec::new();
    for clause in &shape.merge.clauses {
        if clause.clause_kind != MergeClauseKind::Matched {
            continue;
        }
        let holds = match &clause.predicate {
            Some(p) => format!("COALESCE(({p}), FALSE)"),
            None => "TRUE".to_string(),
        };
        let mut guard: Vec<String> = earlier.iter().map(|e| format!("(NOT {e})")).collect();
        guard.push(holds.clone());
        earlier.push(holds);
        for (kind, values) in shape.actions(clause, fail)? {
            let action = match kind {
                "-D" => "D",
                "+U" => "U",
                _ => continue,
            };
            out.push(Branch {
                action,
                guard: guard.join(" AND "),
                values,
            });
        }
    }
    Ok(out)
}

/// The rows of the `WHEN NOT MATCHED` clauses.
async fn inserts(
    ctx: &SessionContext,
    shape: &Shape<'_>,
    target: &str,
    fail: &Fail<'_>,
) -> Result<Vec<RecordBatch>> {
    let present = format!("({}.{} IS NOT NULL)", shape.qualifier, quote(PRESENT));
    let from = format!(
        "{} LEFT JOIN (SELECT *, TRUE AS {} FROM {target}) AS {} ON {}",
        shape.merge.source,
        quote(PRESENT),
        shape.qualifier,
        shape.merge.on
    );
    let mut earlier: Vec<String> = Vec::new();
    let mut rows: Option<DataFrame> = None;
    for clause in &shape.merge.clauses {
        if !matches!(
            clause.clause_kind,
            MergeClauseKind::NotMatched | MergeClauseKind::NotMatchedByTarget
        ) {
            continue;
        }
        let holds = match &clause.predicate {
            Some(p) => format!("COALESCE(({p}), FALSE)"),
            None => "TRUE".to_string(),
        };
        let mut guard = vec![format!("(NOT {present})")];
        guard.extend(earlier.iter().map(|e| format!("(NOT {e})")));
        guard.push(holds.clone());
        earlier.push(holds);
        for (_, values) in shape.actions(clause, fail)? {
            let select: Vec<String> = values
                .iter()
                .zip(shape.columns)
                .map(|(v, (c, _))| format!("{v} AS {}", quote(c)))
                .collect();
            let sql = format!(
                "SELECT {} FROM {from} WHERE {}",
                select.join(", "),
                guard.join(" AND ")
            );
            let df = typed(ctx, &sql, shape.columns, &[]).await?;
            rows = Some(match rows {
                None => df,
                Some(all) => all.union(df)?,
            });
        }
    }
    match rows {
        Some(df) => df.collect().await,
        None => Ok(Vec::new()),
    }
}

/// `sql`, checked against the session's policy, with the table `columns` cast to their
/// types (after the `lead` columns, kept as they are).
async fn typed(
    ctx: &SessionContext,
    sql: &str,
    columns: &[(String, DataType)],
    lead: &[&str],
) -> Result<DataFrame> {
    let df = ctx.sql(sql).await?;
    policy_of(ctx).check_plan(df.logical_plan())?;
    let mut exprs: Vec<DfExpr> = lead
        .iter()
        .map(|c| DfExpr::Column(Column::new_unqualified(*c)))
        .collect();
    exprs.extend(
        columns
            .iter()
            .map(|(c, t)| cast(DfExpr::Column(Column::new_unqualified(c)), t.clone()).alias(c)),
    );
    df.select(exprs)
}

/// What the matched clauses need to judge one batch of target rows.
struct Matched<'a> {
    ctx: &'a SessionContext,
    columns: &'a [(String, DataType)],
    source: &'a str,
    on: &'a str,
    alias: &'a str,
    branches: &'a [Branch],
    statement: &'a str,
}

impl Matched<'_> {
    /// The rows of `batch` the clauses delete or update, and the updated rows.
    async fn touch(&self, batch: &RecordBatch) -> Result<paimon_rs::Touched> {
        let n = batch.num_rows();
        let name = format!(
            "__paimon_merge_rows_{}",
            BATCHES.fetch_add(1, Ordering::Relaxed)
        );
        let mut fields: Vec<Arc<Field>> = batch.schema().fields().iter().cloned().collect();
        fields.push(Arc::new(Field::new(POS, DataType::Int64, false)));
        let mut arrays = batch.columns().to_vec();
        arrays.push(Arc::new(Int64Array::from_iter_values(0..n as i64)));
        let with_pos = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?;
        self.ctx.register_batch(&name, with_pos)?;
        let result = self.judge(&name, batch).await;
        self.ctx.deregister_table(&name)?;
        result
    }

    async fn judge(&self, table: &str, batch: &RecordBatch) -> Result<paimon_rs::Touched> {
        let n = batch.num_rows();
        let from = format!(
            "{} JOIN {table} AS {} ON {}",
            self.source, self.alias, self.on
        );
        let pos = format!("{}.{}", self.alias, quote(POS));
        let twice = self
            .ctx
            .sql(&format!(
                "SELECT {pos} FROM {from} GROUP BY {pos} HAVING count(*) > 1"
            ))
            .await?
            .collect()
            .await?;
        let repeated: usize = twice.iter().map(RecordBatch::num_rows).sum();
        if repeated > 0 {
            return Err(DataFusionError::Plan(format!(
                "{}: the ON condition matched {repeated} target row(s) with more than one source row each \
                 (MERGE_CARDINALITY_VIOLATION: a target row may be updated or deleted only once); nothing was written",
                self.statement
            )));
        }
        let mut rows: Option<DataFrame> = None;
        for b in self.branches {
            let mut select = vec![
                format!("{pos} AS {}", quote(POS)),
                format!("'{}' AS {}", b.action, quote(ACTION)),
            ];
            select.extend(
                b.values
                    .iter()
                    .zip(self.columns)
                    .map(|(v, (c, _))| format!("{v} AS {}", quote(c))),
            );
            let sql = format!("SELECT {} FROM {from} WHERE {}", select.join(", "), b.guard);
            let df = typed(self.ctx, &sql, self.columns, &[POS, ACTION]).await?;
            rows = Some(match rows {
                None => df,
                Some(all) => all.union(df)?,
            });
        }
        let mut touched = vec![false; n];
        let mut updated: Vec<(i64, RecordBatch, usize)> = Vec::new();
        let batches = match rows {
            Some(df) => df.collect().await?,
            None => Vec::new(),
        };
        for r in &batches {
            let positions = r
                .column(0)
                .as_any()
                .downcast_ref::<Int64Array>()
                .ok_or_else(|| internal("row positions"))?;
            let actions = r
                .column(1)
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or_else(|| internal("row actions"))?;
            for i in 0..r.num_rows() {
                let p = positions.value(i);
                let slot = usize::try_from(p)
                    .ok()
                    .and_then(|p| touched.get_mut(p))
                    .ok_or_else(|| internal("a row position out of the batch"))?;
                *slot = true;
                if actions.value(i) == "U" {
                    updated.push((p, r.clone(), i));
                }
            }
        }
        updated.sort_by_key(|(p, _, _)| *p);
        let new_rows = if self.branches.iter().any(|b| b.action == "U") {
            let schema = batch.schema();
            let mut columns = Vec::with_capacity(self.columns.len());
            for c in 0..self.columns.len() {
                let parts: Vec<arrow::array::ArrayRef> = updated
                    .iter()
                    .map(|(_, r, i)| r.column(c + 2).slice(*i, 1))
                    .collect();
                let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                columns.push(if refs.is_empty() {
                    arrow::array::new_empty_array(schema.field(c).data_type())
                } else {
                    arrow::compute::concat(&refs)?
                });
            }
            Some(RecordBatch::try_new(schema, columns)?)
        } else {
            None
        };
        Ok(paimon_rs::Touched {
            rows: BooleanArray::from(touched),
            new_rows,
        })
    }
}

fn internal(what: &str) -> DataFusionError {
    DataFusionError::Internal(format!("MERGE INTO an append table: {what}"))
}
