//! A client's SQL: planned in a session of the caller's, checked against its grants, and
//! split into scan tickets when it is scan-shaped.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::logical_expr::LogicalPlan;
#[allow(deprecated)]
use datafusion::physical_plan::coalesce_batches::CoalesceBatchesExec;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::coop::CooperativeExec;
use datafusion::physical_plan::limit::{GlobalLimitExec, LocalLimitExec};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};
use paimon_datafusion::sql::{self, Grants, SqlPolicy, CATALOG};
use paimon_datafusion::{PaimonCatalogProvider, PaimonScanExec, ScanNode, TableName};

use super::caller::Caller;

/// A session over `catalog`'s warehouse for `caller`: no local files, no DDL, writes only
/// when `write` (an update) and the caller has a write grant, and `paimon_incremental(..)`
/// (which names its table in a string) only for callers who read every table without row
/// filters or column masks; in `runtime` (a memory pool of the query's own) when given.
pub(crate) fn session(
    catalog: &PaimonCatalogProvider,
    caller: &Caller,
    target_partitions: usize,
    write: bool,
    runtime: Option<Arc<RuntimeEnv>>,
) -> SessionContext {
    let fresh = catalog.fresh();
    let config = SessionConfig::new().with_target_partitions(target_partitions.max(1));
    let ctx = sql::session_with_runtime(fresh, config, runtime.unwrap_or_default());
    let mut policy = SqlPolicy::restricted(Grants {
        write: write && caller.writes_anywhere(),
        ..Grants::READ
    });
    if !caller.reads_catalog() || caller.restricted() {
        policy
            .table_functions
            .retain(|f| !f.eq_ignore_ascii_case("paimon_incremental"));
    }
    sql::set_policy(&ctx, policy);
    ctx
}

/// Plans `sql` in `ctx` and checks that `caller` may read every table it scans.
///
/// # Errors
/// Bad SQL, statements the session's policy refuses, and [`DataFusionError::Plan`] starting
/// with [`DENIED`] for a table the caller may not read.
pub(crate) async fn plan(ctx: &SessionContext, caller: &Caller, text: &str) -> Result<DataFrame> {
    let df = sql::query(ctx, text).await?;
    check_reads(df.logical_plan(), caller)?;
    Ok(df)
}

/// Plans the update `text` in `ctx` (a session made with `write`): it must write (`INSERT`),
/// into tables `caller` may write, reading only tables it may read.
///
/// # Errors
/// As [`plan`]; a statement that writes nothing; a table the caller may not write.
pub(crate) async fn plan_update(
    ctx: &SessionContext,
    caller: &Caller,
    text: &str,
) -> Result<DataFrame> {
    let df = plan(ctx, caller, text).await?;
    let mut targets = Vec::new();
    df.logical_plan().apply_with_subqueries(|node| {
        if let LogicalPlan::Dml(dml) = node {
            targets.push(dml.table_name.clone());
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    if targets.is_empty() {
        return Err(DataFusionError::Plan(
            "an update must write (INSERT INTO / INSERT OVERWRITE); run queries as queries".into(),
        ));
    }
    for name in targets {
        let db = name.schema().unwrap_or("default");
        let table = TableName::parse(name.table())
            .map(|t| t.table)
            .unwrap_or_else(|_| name.table().to_string());
        if name.catalog().unwrap_or(CATALOG) != CATALOG || !caller.may_write(db, &table) {
            return Err(DataFusionError::Plan(format!(
                "{DENIED} writing {name} needs the write grant on it"
            )));
        }
    }
    Ok(df)
}

/// The start of the message of a refusal for want of a grant.
pub(crate) const DENIED: &str = "permission denied:";

/// Checks every table scan of `plan` (subqueries included) against `caller`'s grants.
fn check_reads(plan: &LogicalPlan, caller: &Caller) -> Result<()> {
    let mut refusal = None;
    plan.apply_with_subqueries(|node| {
        if let LogicalPlan::TableScan(scan) = node {
            let name = &scan.table_name;
            let catalog = name.catalog().unwrap_or(CATALOG);
            let db = name.schema().unwrap_or("default");
            let allowed = match (catalog == CATALOG, db) {
                (false, _) => false,
                (true, "information_schema") => caller.reads_catalog(),
                (true, _) => {
                    let table = TableName::parse(name.table())
                        .map(|t| t.table)
                        .unwrap_or_else(|_| name.table().to_string());
                    caller.may_read(db, &table)
                }
            };
            if !allowed {
                refusal = Some(DataFusionError::Plan(format!(
                    "{DENIED} reading {name} needs the read grant on it"
                )));
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    match refusal {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The scan of a scan-shaped physical plan: one Paimon scan under nothing but batch and
/// partition coalescing (and a limit the scan applies itself in its single partition), whose
/// rows are the query's rows as they are.
pub(crate) fn scan_shaped(plan: &Arc<dyn ExecutionPlan>, schema: &SchemaRef) -> Option<ScanNode> {
    let mut node = plan;
    let mut limit = None;
    loop {
        let any = node.as_ref();
        if let Some(l) = any.downcast_ref::<GlobalLimitExec>() {
            if limit.is_some() || l.skip() != 0 {
                return None;
            }
            limit = Some(l.fetch()?);
            node = l.input();
        } else if let Some(l) = any.downcast_ref::<LocalLimitExec>() {
            if limit.is_some_and(|n| n != l.fetch()) {
                return None;
            }
            limit = Some(l.fetch());
            node = l.input();
        } else if let Some(c) = any.downcast_ref::<CooperativeExec>() {
            node = c.input();
        } else if let Some(c) = any.downcast_ref::<CoalescePartitionsExec>() {
            if c.fetch().is_some() {
                return None;
            }
            node = c.input();
        } else if let Some(c) = coalesce_batches(any) {
            if c.fetch().is_some() {
                return None;
            }
            node = c.input();
        } else {
            break;
        }
    }
    let scan = node.downcast_ref::<PaimonScanExec>()?;
    let same_columns = scan.schema().fields().len() == schema.fields().len()
        && scan
            .schema()
            .fields()
            .iter()
            .zip(schema.fields())
            .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type());
    if !same_columns {
        return None;
    }
    let scan_node = scan.node();
    if let Some(n) = limit {
        // The scan's limit holds per partition: exact only with one partition.
        if scan_node.partitions.len() > 1 || scan_node.limit != Some(n) {
            return None;
        }
    }
    Some(scan_node.clone())
}

/// `plan` as DataFusion's (deprecated, still planned) batch coalescing node.
#[allow(deprecated)]
fn coalesce_batches(plan: &dyn ExecutionPlan) -> Option<&CoalesceBatchesExec> {
    plan.downcast_ref::<CoalesceBatchesExec>()
}
