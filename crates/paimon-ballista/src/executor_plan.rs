//! What an executor agrees to run ([`check_executor_plan`]). Ballista's codecs decode any
//! DataFusion plan a scheduler sends, file scans and file sinks included, so a client able to
//! plan `CREATE EXTERNAL TABLE ... LOCATION '/etc/..'` or `COPY ... TO` could read or write
//! the executors' files. An executor here runs a task's plan only when
//!
//! - every leaf is a Paimon scan of a table under the executor's warehouse, a shuffle read
//!   (Ballista's), or rows in memory (`VALUES`, empty and placeholder rows, the split rows of
//!   a [`PaimonSplitReadExec`], `generate_series`);
//! - no node writes through a sink (`DataSinkExec`: `COPY`, `INSERT`);
//!
//! and every node in between (projection, filter, aggregate, join, sort, repartition, ...)
//! computes over its inputs in memory. The check runs on the decoded plan before the task
//! is created, so a refused task opens no file.

use std::sync::Arc;

use ballista_core::execution_plans::{
    RangeShuffleReaderExec, ShuffleReaderExec, UnresolvedShuffleExec,
};
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::memory::LazyMemoryExec;
use datafusion::physical_plan::placeholder_row::PlaceholderRowExec;
use datafusion::physical_plan::work_table::WorkTableExec;
use datafusion::physical_plan::ExecutionPlan;
use paimon_datafusion::{PaimonScanExec, PaimonSplitReadExec, ScanNode};

/// Checks that the executor whose warehouse is `warehouse` may run `plan` (see the module
/// docs).
///
/// # Errors
/// [`DataFusionError::Plan`] naming the first node refused: a file scan (with its files), a
/// sink, an unknown leaf, or a Paimon scan of a table outside the warehouse.
pub fn check_executor_plan(plan: &Arc<dyn ExecutionPlan>, warehouse: &str) -> Result<()> {
    let mut refusal = None;
    plan.apply(|p| {
        refusal = refusal_of(p.as_ref(), warehouse);
        Ok(match refusal {
            Some(_) => TreeNodeRecursion::Stop,
            None => TreeNodeRecursion::Continue,
        })
    })?;
    match refusal {
        Some(why) => Err(DataFusionError::Plan(format!(
            "executor refuses the task's plan: {why}"
        ))),
        None => Ok(()),
    }
}

/// Why `p` alone is refused, if it is.
fn refusal_of(p: &dyn ExecutionPlan, warehouse: &str) -> Option<String> {
    if let Some(scan) = p.downcast_ref::<PaimonScanExec>() {
        return table_refusal(scan.node(), warehouse);
    }
    if let Some(read) = p.downcast_ref::<PaimonSplitReadExec>() {
        return table_refusal(read.scan().node(), warehouse);
    }
    if p.downcast_ref::<DataSinkExec>().is_some() {
        return Some(format!(
            "{} writes through a sink; executors only read Paimon tables",
            p.name()
        ));
    }
    if !p.children().is_empty() {
        return None;
    }
    if let Some(source) = p.downcast_ref::<DataSourceExec>() {
        let source = source.data_source();
        if source.downcast_ref::<MemorySourceConfig>().is_some() {
            return None;
        }
        if let Some(files) = source.downcast_ref::<FileScanConfig>() {
            let names: Vec<String> = files
                .file_groups
                .iter()
                .flat_map(|g| g.files().iter())
                .take(3)
                .map(|f| f.object_meta.location.to_string())
                .collect();
            return Some(format!(
                "a file scan ({}) of {names:?}; executors only read Paimon tables",
                p.name()
            ));
        }
        return Some(format!(
            "a data source that is not memory ({}); executors only read Paimon tables",
            p.name()
        ));
    }
    let allowed = p.downcast_ref::<ShuffleReaderExec>().is_some()
        || p.downcast_ref::<RangeShuffleReaderExec>().is_some()
        || p.downcast_ref::<UnresolvedShuffleExec>().is_some()
        || p.downcast_ref::<EmptyExec>().is_some()
        || p.downcast_ref::<PlaceholderRowExec>().is_some()
        || p.downcast_ref::<LazyMemoryExec>().is_some()
        || p.downcast_ref::<WorkTableExec>().is_some();
    (!allowed).then(|| {
        format!(
            "a leaf {} that is neither a Paimon scan, a shuffle read nor rows in memory",
            p.name()
        )
    })
}

/// Why the scan of `node` is refused: a table outside the warehouse, or a branch that is not
/// a plain name ([`ScanNode::check_in_warehouse`]).
fn table_refusal(node: &ScanNode, warehouse: &str) -> Option<String> {
    node.check_in_warehouse(warehouse)
        .err()
        .map(|e| format!("a Paimon scan outside the executor's warehouse {warehouse}: {e}"))
}
