//! Row filters and column masks ([`crate::policy`]) in Flight SQL: a caller under a policy on
//! a table reads it only through scan tickets whose every split is a query-auth split (Java
//! `QueryAuthSplit`) carrying the caller's rules, which the reader applies wherever the
//! ticket is read.
//!
//! - [`restrict`]: a scan-shaped query's scan node gets the caller's rules into its splits.
//! - [`check_ticket`]: a scan ticket sent back must carry exactly the caller's current rules
//!   in every split (a ticket with them stripped or changed is refused).
//! - [`refuse_unshaped`]: any other query that scans a table under the caller's policy (a
//!   join, an aggregate, a system table of it) is refused: it would be computed on the
//!   server from rows the rules never saw (or from statistics).

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::LogicalPlan;
use paimon_datafusion::sql::CATALOG;
use paimon_datafusion::{ScanNode, TableName};
use paimon_rs::io::FileIORef;
use paimon_rs::meta::table::Table;
use paimon_rs::split::frame::QueryAuth;
use paimon_rs::split::{decode_any, encode_frame, Split, CURRENT_VERSION};

use super::caller::Caller;
use super::query::DENIED;
use crate::policy::Policies;

/// The rules of `caller` on the table of `node` (`database.table`), typed against the
/// table's latest schema; `None` without a policy.
fn rules(
    policies: &Policies,
    caller: &Caller,
    io: &FileIORef,
    node: &ScanNode,
    database: &str,
    table: &str,
) -> Result<Option<QueryAuth>> {
    let Some(user) = caller.name() else {
        return Ok(None);
    };
    if policies.policy(user, database, table).is_none() {
        return Ok(None);
    }
    let t = Table::open(io.clone(), &node.table_path)
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    policies
        .auth(user, database, table, t.schema())
        .map_err(|e| DataFusionError::Execution(e.to_string()))
}

/// `node` (a scan of `database.table` planned for `caller`) with every split inside a
/// query-auth split carrying `caller`'s rules; unchanged without a policy.
///
/// # Errors
/// A policy that does not fit the table; a split that does not decode or encode.
pub(crate) fn restrict(
    policies: &Policies,
    caller: &Caller,
    io: &FileIORef,
    mut node: ScanNode,
    database: &str,
    table: &str,
) -> Result<ScanNode> {
    let Some(auth) = rules(policies, caller, io, &node, database, table)? else {
        return Ok(node);
    };
    for group in &mut node.partitions {
        for frame in group.iter_mut() {
            let split = decode_any(frame).map_err(split_error)?.split;
            let wrapped = Split::QueryAuth {
                split: Box::new(split),
                auth: Some(auth.clone()),
            };
            *frame = encode_frame(&wrapped, CURRENT_VERSION).map_err(split_error)?;
        }
    }
    Ok(node)
}

/// Checks that every split of a scan ticket's `node` carries exactly `caller`'s rules on
/// `database.table` when the caller has a policy on it.
///
/// # Errors
/// A permission refusal ([`DENIED`]) naming the table when a split does not.
pub(crate) fn check_ticket(
    policies: &Policies,
    caller: &Caller,
    io: &FileIORef,
    node: &ScanNode,
    database: &str,
    table: &str,
) -> Result<()> {
    let Some(auth) = rules(policies, caller, io, node, database, table)? else {
        return Ok(());
    };
    for frame in node.partitions.iter().flatten() {
        let split = decode_any(frame).map_err(split_error)?.split;
        let carries = matches!(&split, Split::QueryAuth { auth: Some(a), .. } if *a == auth);
        if !carries {
            return Err(DataFusionError::Plan(format!(
                "{DENIED} {database}.{table} is read under row filters and column masks: a \
                 scan ticket of it must carry them in every split (plan the query again)"
            )));
        }
    }
    Ok(())
}

/// Refuses a query that is not scan-shaped when it scans a table under `caller`'s policy.
///
/// # Errors
/// A permission refusal ([`DENIED`]) naming the table.
pub(crate) fn refuse_unshaped(
    policies: &Policies,
    caller: &Caller,
    plan: &LogicalPlan,
) -> Result<()> {
    let Some(user) = caller.name() else {
        return Ok(());
    };
    let mut refusal = None;
    plan.apply_with_subqueries(|node| {
        if let LogicalPlan::TableScan(scan) = node {
            let name = &scan.table_name;
            let db = name.schema().unwrap_or("default");
            let table = TableName::parse(name.table())
                .map(|t| t.table)
                .unwrap_or_else(|_| name.table().to_string());
            if name.catalog().unwrap_or(CATALOG) == CATALOG
                && policies.policy(user, db, &table).is_some()
            {
                refusal = Some(DataFusionError::Plan(format!(
                    "{DENIED} {db}.{table} is read under row filters and column masks: only \
                     scans of it (columns, a filter, a limit; no system table) are served"
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

/// Whether `plan` scans a system table (`t$files`, `t$audit_log`, ...) of a table under
/// `caller`'s policy: such a scan-shaped query is refused as well.
pub(crate) fn scans_restricted_system_table(
    policies: &Policies,
    caller: &Caller,
    plan: &LogicalPlan,
) -> bool {
    let Some(user) = caller.name() else {
        return false;
    };
    let mut found = false;
    let _ = plan.apply_with_subqueries(|node| {
        if let LogicalPlan::TableScan(scan) = node {
            let name = &scan.table_name;
            let db = name.schema().unwrap_or("default");
            match TableName::parse(name.table()) {
                Ok(t) if t.system.is_none() => {}
                Ok(t) => found |= policies.policy(user, db, &t.table).is_some(),
                // A name that does not parse is not read; refuse rather than guess.
                Err(_) => found = true,
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
    found
}

fn split_error(e: paimon_rs::split::Error) -> DataFusionError {
    DataFusionError::Execution(format!("a split of the scan: {e}"))
}
