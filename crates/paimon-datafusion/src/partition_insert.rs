//! `INSERT OVERWRITE t PARTITION (k = v, ...) SELECT ...` and `INSERT INTO t PARTITION (k = v)
//! SELECT ...` (Spark's and Flink's static partitions), which DataFusion does not plan.
//!
//! The statement is rewritten before DataFusion plans it: the `PARTITION` clause goes, the
//! query becomes `SELECT *, v, ... FROM (query)` and the column list names the table's other
//! columns (or those the user listed) then the static ones, so DataFusion checks and casts the
//! columns as for any INSERT. For an overwrite, the planned statement's target is then the
//! table's provider carrying the static partition, whose commit replaces exactly that
//! partition (Java's `INSERT OVERWRITE ... PARTITION`: the partitions matching the given
//! values, whatever `dynamic-partition-overwrite` says).
//!
//! A partition entry without a value (Spark's dynamic `PARTITION (dt)`) is refused: leaving
//! the column out of `PARTITION` says the same, and the overwrite is then dynamic as the
//! table's `dynamic-partition-overwrite` decides.

use std::sync::Arc;

use datafusion::datasource::{provider_as_source, source_as_provider};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{DmlStatement, LogicalPlan, WriteOp};
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::{DFParser, Statement};
use datafusion::sql::planner::object_name_to_table_reference;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Ident, Insert, ObjectName, ObjectNamePart, SetExpr, Statement as Sql,
    TableFactor, TableObject, UnaryOperator, Value,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;

use crate::table::PaimonTableProvider;

/// A statement with a static `PARTITION (..)` rewritten: the statement DataFusion plans, the
/// static `column = value` pairs, and whether it overwrites.
pub(crate) struct StaticPartition {
    pub statement: Statement,
    pub pairs: Vec<(String, String)>,
    pub overwrite: bool,
}

/// `statement` rewritten as the module docs say, `None` when it is not an INSERT with a
/// `PARTITION` clause.
///
/// # Errors
/// A partition entry that is not `column = literal`; an unknown table.
pub(crate) async fn rewrite(
    ctx: &SessionContext,
    statement: &Statement,
) -> Result<Option<StaticPartition>> {
    let Statement::Statement(s) = statement else {
        return Ok(None);
    };
    let Sql::Insert(insert) = s.as_ref() else {
        return Ok(None);
    };
    let Some(entries) = &insert.partitioned else {
        return Ok(None);
    };
    let TableObject::TableName(name) = &insert.table else {
        return Ok(None);
    };
    let mut pairs = Vec::with_capacity(entries.len());
    let mut literals = Vec::with_capacity(entries.len());
    for e in entries {
        let (column, value, text) = static_entry(e)?;
        pairs.push((column, value));
        literals.push(text);
    }
    let normalize = ctx
        .state()
        .config()
        .options()
        .sql_parser
        .enable_ident_normalization;
    let reference = object_name_to_table_reference(name.clone(), normalize)?;
    let provider = ctx.table_provider(reference.clone()).await?;
    let table_columns: Vec<String> = provider
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    for (c, _) in &pairs {
        if !table_columns.contains(c) {
            return Err(DataFusionError::Plan(format!(
                "PARTITION ({c} = ..): {reference} has no column '{c}'"
            )));
        }
    }
    let is_static = |c: &str| pairs.iter().any(|(k, _)| k == c);
    let given: Vec<String> = if insert.columns.is_empty() {
        table_columns
            .iter()
            .filter(|c| !is_static(c))
            .cloned()
            .collect()
    } else {
        let mut given = Vec::with_capacity(insert.columns.len());
        for c in &insert.columns {
            let c = column_name(c, normalize)?;
            if is_static(&c) {
                return Err(DataFusionError::Plan(format!(
                    "column '{c}' is given both in PARTITION (..) and in the column list"
                )));
            }
            given.push(c);
        }
        given
    };
    let Some(source) = &insert.source else {
        return Err(DataFusionError::Plan(
            "INSERT ... PARTITION (..) needs a query".into(),
        ));
    };
    let mut rewritten: Insert = insert.clone();
    rewritten.partitioned = None;
    rewritten.columns = given
        .iter()
        .chain(pairs.iter().map(|(k, _)| k))
        .map(|c| ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote('"', c))]))
        .collect();
    rewritten.source = Some(Box::new(with_literals(source, entries, &literals)?));
    Ok(Some(StaticPartition {
        statement: Statement::Statement(Box::new(Sql::Insert(rewritten))),
        pairs,
        overwrite: insert.overwrite,
    }))
}

/// The planned rewritten statement with its target replaced by the table's provider carrying
/// the static partition, when it overwrites.
///
/// # Errors
/// When the target is not a Paimon table.
pub(crate) fn retarget(plan: LogicalPlan, rewrite: &StaticPartition) -> Result<LogicalPlan> {
    if !rewrite.overwrite {
        return Ok(plan);
    }
    let LogicalPlan::Dml(dml) = plan else {
        return Err(DataFusionError::Internal(
            "INSERT ... PARTITION did not plan as an INSERT".into(),
        ));
    };
    let provider = source_as_provider(&dml.target)?;
    let retargeted: Arc<dyn datafusion::datasource::TableProvider> = if let Some(paimon) =
        provider.downcast_ref::<PaimonTableProvider>()
    {
        Arc::new(paimon.with_static_partition(rewrite.pairs.clone()))
    } else if let Some(format) = provider.downcast_ref::<crate::format_table::FormatTableProvider>()
    {
        Arc::new(format.with_static_partition(rewrite.pairs.clone()))
    } else {
        return Err(DataFusionError::Plan(format!(
            "INSERT OVERWRITE ... PARTITION: {} is not a Paimon table",
            dml.table_name
        )));
    };
    let target = provider_as_source(retargeted);
    let WriteOp::Insert(op) = dml.op else {
        return Err(DataFusionError::Internal(
            "INSERT ... PARTITION did not plan as an INSERT".into(),
        ));
    };
    Ok(LogicalPlan::Dml(DmlStatement::new(
        dml.table_name,
        target,
        WriteOp::Insert(op),
        dml.input,
    )))
}

/// `column = literal`: the column, the value as the partition spec takes it, and the literal
/// as SQL text.
fn static_entry(e: &Expr) -> Result<(String, String, String)> {
    let refuse = || {
        DataFusionError::Plan(format!(
            "PARTITION ({e}): each entry must be `column = literal` (a dynamic partition column is \
             given by the query: leave it out of PARTITION)"
        ))
    };
    let Expr::BinaryOp {
        left,
        op: BinaryOperator::Eq,
        right,
    } = e
    else {
        return Err(refuse());
    };
    let Expr::Identifier(column) = left.as_ref() else {
        return Err(refuse());
    };
    let column = match column.quote_style {
        Some(_) => column.value.clone(),
        None => column.value.to_lowercase(),
    };
    let value = match right.as_ref() {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
            Value::Number(n, _) => n.to_string(),
            Value::Boolean(b) => b.to_string(),
            _ => return Err(refuse()),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => format!("-{n}"),
                _ => return Err(refuse()),
            },
            _ => return Err(refuse()),
        },
        _ => return Err(refuse()),
    };
    Ok((column, value, right.to_string()))
}

/// A column of the INSERT's column list as DataFusion names it.
fn column_name(name: &ObjectName, normalize: bool) -> Result<String> {
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(i)] => Ok(if normalize && i.quote_style.is_none() {
            i.value.to_lowercase()
        } else {
            i.value.clone()
        }),
        _ => Err(DataFusionError::Plan(format!(
            "INSERT column list: '{name}' is not a column name"
        ))),
    }
}

/// `source` with the static values after its columns: `VALUES` rows get them appended
/// (DataFusion types an INSERT's `VALUES` by the target columns), any other query becomes
/// `SELECT *, literals... FROM (source) AS paimon_static_partition_source`.
fn with_literals(
    source: &datafusion::sql::sqlparser::ast::Query,
    entries: &[Expr],
    literals: &[String],
) -> Result<datafusion::sql::sqlparser::ast::Query> {
    if let SetExpr::Values(values) = source.body.as_ref() {
        let mut query = source.clone();
        let mut values = values.clone();
        for row in &mut values.rows {
            for e in entries {
                if let Expr::BinaryOp { right, .. } = e {
                    row.content.push(right.as_ref().clone());
                }
            }
        }
        query.body = Box::new(SetExpr::Values(values));
        return Ok(query);
    }
    let template = format!(
        "SELECT *, {} FROM (SELECT 1) AS paimon_static_partition_source",
        literals.join(", ")
    );
    let mut parsed = DFParser::parse_sql_with_dialect(&template, &GenericDialect {})?;
    let internal = || DataFusionError::Internal("static partition template".into());
    let Some(Statement::Statement(s)) = parsed.pop_front() else {
        return Err(internal());
    };
    let Sql::Query(mut query) = *s else {
        return Err(internal());
    };
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(internal());
    };
    let Some(TableFactor::Derived { subquery, .. }) =
        select.from.first_mut().map(|t| &mut t.relation)
    else {
        return Err(internal());
    };
    **subquery = source.clone();
    Ok(*query)
}
