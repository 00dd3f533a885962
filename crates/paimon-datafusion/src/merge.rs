//! `MERGE INTO target USING source ON cond WHEN MATCHED [AND c] THEN UPDATE SET .. | DELETE
//! WHEN NOT MATCHED [AND c] THEN INSERT [(cols)] VALUES (..)` on a primary-key table, which
//! DataFusion parses but does not plan.
//!
//! The statement is planned here as `source LEFT JOIN target ON cond`; a joined row is
//! *matched* when the target side has a row (its first primary-key column, never NULL in a
//! Paimon table, is not NULL). Each source row takes the first `WHEN` clause of its kind whose
//! condition holds (a NULL condition does not hold), as Spark does, and becomes:
//!
//! - `UPDATE SET`: the target row's old values with row kind `-U`, then its new values with
//!   `+U` (a primary-key column in `SET` is refused, as `UPDATE` refuses it);
//! - `DELETE`: the target row with `-D`;
//! - `INSERT`: a `+I` row (columns left out are NULL).
//!
//! All `-U` / `-D` rows are written ahead of the `+U` / `+I` rows through the same sink as
//! `UPDATE` and `DELETE` ([`crate::insert::PaimonSink`]): one commit for the statement,
//! nothing committed when it fails. The result is one row, `count`: the rows written.
//!
//! An append table (no primary key) is merged by [`crate::merge_append`] instead.
//!
//! Refused by name, before anything is written: a target that is not a Paimon table at its
//! latest snapshot, the merge engines and
//! options [`crate::row_level::refusal`] refuses (when the statement has `WHEN MATCHED`
//! clauses), `WHEN NOT MATCHED BY SOURCE`, `INSERT ROW`, Oracle's `UPDATE .. WHERE` /
//! `DELETE WHERE` / `INSERT .. WHERE` and MSSQL's `OUTPUT`, and a target row matched by
//! more than one source row while the statement has `WHEN MATCHED` clauses (Spark's
//! `MERGE_CARDINALITY_VIOLATION`).

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::catalog::TableProvider;
use datafusion::common::Column;
use datafusion::datasource::sink::DataSinkExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{cast, Expr as DfExpr, SortExpr};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::{collect, ExecutionPlan, ExecutionPlanProperties};
use datafusion::prelude::{DataFrame, SessionContext};
use datafusion::sql::parser::Statement;
use datafusion::sql::sqlparser::ast::{
    AssignmentTarget, Ident, Merge, MergeAction, MergeClause, MergeClauseKind, MergeInsertKind,
    ObjectName, ObjectNamePart, Statement as Sql, TableFactor,
};

use crate::policy::policy_of;
use crate::row_level::ROW_KIND_COLUMN;
use crate::table::PaimonTableProvider;

/// Orders a MERGE's `-U` / `-D` rows before its `+U` / `+I` rows; not written.
const RANK_COLUMN: &str = "_paimon_sql_merge_rank";

/// Runs `statement` when it is a `MERGE`; `None` leaves it to DataFusion.
///
/// # Errors
/// Missing `write` grant, the refusals of the module docs, planning and write errors.
pub(crate) async fn run(ctx: &SessionContext, statement: &Statement) -> Result<Option<DataFrame>> {
    let Statement::Statement(s) = statement else {
        return Ok(None);
    };
    let Sql::Merge(merge) = s.as_ref() else {
        return Ok(None);
    };
    let policy = policy_of(ctx);
    let TableFactor::Table {
        name, alias, args, ..
    } = &merge.table
    else {
        return Err(plan(format!(
            "MERGE INTO {}: the target must be a table",
            merge.table
        )));
    };
    if !policy.grants.write {
        return Err(plan(format!(
            "MERGE INTO {name} needs the write grant, not granted to this session"
        )));
    }
    let fail = |why: &str| plan(format!("MERGE INTO {name}: {why}"));
    if args.is_some() {
        return Err(fail("the target must be a table, not a table function"));
    }
    if merge.output.is_some() {
        return Err(fail("OUTPUT is not supported"));
    }
    let provider = ctx.table_provider(name.to_string()).await?;
    let Some(target) = provider.downcast_ref::<PaimonTableProvider>() else {
        return Err(fail("the target is not a Paimon table"));
    };
    let keys = target.meta().schema().primary_keys.clone();
    let has_matched = merge
        .clauses
        .iter()
        .any(|c| c.clause_kind == MergeClauseKind::Matched);
    if has_matched {
        if let Some(why) =
            crate::row_level::refusal(target.meta(), target.path(), "MERGE INTO .. WHEN MATCHED")
        {
            return Err(plan(why));
        }
    }
    let sink = target.sink(None)?;
    let normalize = ctx
        .state()
        .config()
        .options()
        .sql_parser
        .enable_ident_normalization;
    let columns: Vec<(String, DataType)> = target
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let qualifier = match alias {
        Some(a) => a.name.to_string(),
        None => name.to_string(),
    };
    let shape = Shape {
        merge,
        qualifier: &qualifier,
        columns: &columns,
        keys: &keys,
        normalize,
    };
    let Some(first_key) = keys.first() else {
        return crate::merge_append::run(ctx, &shape, target, &fail)
            .await
            .map(Some);
    };
    if has_matched {
        check_cardinality(ctx, &shape, &fail).await?;
    }
    let matched = format!("({qualifier}.{} IS NOT NULL)", quote(first_key));
    let mut branches: Vec<String> = Vec::new();
    let mut earlier_matched: Vec<String> = Vec::new();
    let mut earlier_not_matched: Vec<String> = Vec::new();
    for clause in &merge.clauses {
        let (base, earlier) = match clause.clause_kind {
            MergeClauseKind::Matched => (matched.clone(), &mut earlier_matched),
            MergeClauseKind::NotMatched | MergeClauseKind::NotMatchedByTarget => {
                (format!("(NOT {matched})"), &mut earlier_not_matched)
            }
            MergeClauseKind::NotMatchedBySource => {
                return Err(fail("WHEN NOT MATCHED BY SOURCE is not supported"))
            }
        };
        let holds = match &clause.predicate {
            Some(p) => format!("COALESCE(({p}), FALSE)"),
            None => "TRUE".to_string(),
        };
        let mut guard = vec![base];
        guard.extend(earlier.iter().map(|e| format!("(NOT {e})")));
        guard.push(holds.clone());
        earlier.push(holds);
        let guard = guard.join(" AND ");
        for (kind, values) in shape.actions(clause, &fail)? {
            branches.push(shape.branch(kind, &values, &guard));
        }
    }
    if branches.is_empty() {
        return Err(fail("the statement has no WHEN clause"));
    }
    let mut rows: Option<DataFrame> = None;
    for sql in branches {
        let df = ctx.sql(&sql).await?;
        policy.check_plan(df.logical_plan())?;
        let mut exprs: Vec<DfExpr> = columns
            .iter()
            .map(|(c, t)| cast(unqualified(c), t.clone()).alias(c))
            .collect();
        exprs.push(cast(unqualified(ROW_KIND_COLUMN), DataType::Utf8).alias(ROW_KIND_COLUMN));
        exprs.push(cast(unqualified(RANK_COLUMN), DataType::Int32).alias(RANK_COLUMN));
        let df = df.select(exprs)?;
        rows = Some(match rows {
            None => df,
            Some(all) => all.union(df)?,
        });
    }
    let Some(rows) = rows else {
        return Err(fail("the statement has no WHEN clause"));
    };
    let mut out: Vec<DfExpr> = columns.iter().map(|(c, _)| unqualified(c)).collect();
    out.push(unqualified(ROW_KIND_COLUMN));
    let rows = rows
        .sort(vec![SortExpr::new(unqualified(RANK_COLUMN), true, false)])?
        .select(out)?;
    let mut exec = rows.create_physical_plan().await?;
    if exec.output_partitioning().partition_count() > 1 {
        exec = Arc::new(CoalescePartitionsExec::new(exec));
    }
    let sink = sink.with_row_kind_column(ROW_KIND_COLUMN, exec.schema());
    let write: Arc<dyn ExecutionPlan> = Arc::new(DataSinkExec::new(exec, Arc::new(sink), None));
    let batches = collect(write, ctx.task_ctx()).await?;
    Ok(Some(ctx.read_batches(batches)?))
}

/// What the branches of one statement share.
pub(crate) struct Shape<'a> {
    pub(crate) merge: &'a Merge,
    /// How the statement names the target's columns (`alias` or the table name).
    pub(crate) qualifier: &'a str,
    pub(crate) columns: &'a [(String, DataType)],
    pub(crate) keys: &'a [String],
    pub(crate) normalize: bool,
}

impl Shape<'_> {
    /// The rows `clause` writes: each a row kind and, per table column, its value (SQL).
    pub(crate) fn actions(
        &self,
        clause: &MergeClause,
        fail: &Fail<'_>,
    ) -> Result<Vec<(&'static str, Vec<String>)>> {
        let old: Vec<String> = self
            .columns
            .iter()
            .map(|(c, _)| format!("{}.{}", self.qualifier, quote(c)))
            .collect();
        let matched = clause.clause_kind == MergeClauseKind::Matched;
        match (&clause.action, matched) {
            (MergeAction::Delete { .. }, true) => Ok(vec![("-D", old)]),
            (MergeAction::Update(u), true) => {
                if u.update_predicate.is_some() || u.delete_predicate.is_some() {
                    return Err(fail("UPDATE .. WHERE / DELETE WHERE is not supported"));
                }
                let mut new = old.clone();
                for a in &u.assignments {
                    let AssignmentTarget::ColumnName(target) = &a.target else {
                        return Err(fail("UPDATE SET (a, b) = .. is not supported"));
                    };
                    let column = self.column(target, fail)?;
                    if self.keys.contains(&self.columns[column].0) {
                        return Err(fail(&format!(
                            "'{}' is a primary-key column and cannot be SET (delete the row and insert the new key)",
                            self.columns[column].0
                        )));
                    }
                    new[column] = format!("({})", a.value);
                }
                Ok(vec![("-U", old), ("+U", new)])
            }
            (MergeAction::Insert(i), false) => {
                if i.insert_predicate.is_some() {
                    return Err(fail("INSERT .. WHERE is not supported"));
                }
                let MergeInsertKind::Values(values) = &i.kind else {
                    return Err(fail("INSERT ROW is not supported (name the VALUES)"));
                };
                let [row] = values.rows.as_slice() else {
                    return Err(fail("INSERT takes exactly one VALUES row"));
                };
                let targets: Vec<usize> = if i.columns.is_empty() {
                    (0..self.columns.len()).collect()
                } else {
                    i.columns
                        .iter()
                        .map(|c| self.column(c, fail))
                        .collect::<Result<_>>()?
                };
                if targets.len() != row.len() {
                    return Err(fail(&format!(
                        "INSERT names {} columns but gives {} values",
                        targets.len(),
                        row.len()
                    )));
                }
                let mut new = vec!["NULL".to_string(); self.columns.len()];
                for (column, value) in targets.into_iter().zip(row.iter()) {
                    new[column] = format!("({value})");
                }
                Ok(vec![("+I", new)])
            }
            (MergeAction::Insert(_), true) => Err(fail("WHEN MATCHED cannot INSERT")),
            (_, false) => Err(fail("WHEN NOT MATCHED can only INSERT")),
        }
    }

    /// The index of the table column `name` (its last part) names.
    fn column(&self, name: &ObjectName, fail: &Fail<'_>) -> Result<usize> {
        let wanted = match name.0.last() {
            Some(ObjectNamePart::Identifier(id)) => self.ident(id),
            _ => return Err(fail(&format!("'{name}' is not a column name"))),
        };
        self.columns
            .iter()
            .position(|(c, _)| *c == wanted)
            .ok_or_else(|| fail(&format!("the table has no column '{wanted}'")))
    }

    /// `id` as DataFusion resolves it (unquoted names lower-cased when normalizing).
    fn ident(&self, id: &Ident) -> String {
        if id.quote_style.is_none() && self.normalize {
            id.value.to_lowercase()
        } else {
            id.value.clone()
        }
    }

    /// `source LEFT JOIN target ON cond`.
    fn from(&self) -> String {
        format!(
            "{} LEFT JOIN {} ON {}",
            self.merge.source, self.merge.table, self.merge.on
        )
    }

    /// The query of one kind of row of one clause: `values` where `guard` holds.
    fn branch(&self, kind: &str, values: &[String], guard: &str) -> String {
        let rank = if matches!(kind, "-U" | "-D") { 0 } else { 1 };
        let mut select: Vec<String> = values
            .iter()
            .zip(self.columns)
            .map(|(v, (c, _))| format!("{v} AS {}", quote(c)))
            .collect();
        select.push(format!("'{kind}' AS {}", quote(ROW_KIND_COLUMN)));
        select.push(format!("{rank} AS {}", quote(RANK_COLUMN)));
        format!(
            "SELECT {} FROM {} WHERE {guard}",
            select.join(", "),
            self.from()
        )
    }
}

/// Refuses a target row matched by more than one source row (Spark's
/// `MERGE_CARDINALITY_VIOLATION`): the statement would update or delete it more than once.
async fn check_cardinality(ctx: &SessionContext, shape: &Shape<'_>, fail: &Fail<'_>) -> Result<()> {
    let keys: Vec<String> = shape
        .keys
        .iter()
        .map(|k| format!("{}.{}", shape.qualifier, quote(k)))
        .collect();
    let sql = format!(
        "SELECT count(*) AS n FROM (SELECT {k} FROM {s} JOIN {t} ON {on} GROUP BY {k} HAVING count(*) > 1)",
        k = keys.join(", "),
        s = shape.merge.source,
        t = shape.merge.table,
        on = shape.merge.on
    );
    let df = ctx.sql(&sql).await?;
    policy_of(ctx).check_plan(df.logical_plan())?;
    let batches = df.collect().await?;
    let repeated = batches
        .first()
        .and_then(|b| {
            b.column(0)
                .as_any()
                .downcast_ref::<arrow::array::Int64Array>()
        })
        .filter(|a| !a.is_empty())
        .map(|a| a.value(0))
        .unwrap_or(0);
    if repeated > 0 {
        return Err(fail(&format!(
            "the ON condition matched {repeated} target row(s) with more than one source row each \
             (MERGE_CARDINALITY_VIOLATION: a target row may be updated or deleted only once); nothing was written"
        )));
    }
    Ok(())
}

/// `name` as a quoted SQL identifier.
pub(crate) fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The column `name` of the projected rows (no qualifier, not parsed).
fn unqualified(name: &str) -> DfExpr {
    DfExpr::Column(Column::new_unqualified(name))
}

/// A planning error with `text`.
fn plan(text: String) -> DataFusionError {
    DataFusionError::Plan(text)
}

/// Makes the statement's error from what is wrong.
pub(crate) type Fail<'a> = dyn Fn(&str) -> DataFusionError + Send + Sync + 'a;
