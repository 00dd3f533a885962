//! Paimon's system tables (`t$snapshots`, `t$files`, ...) as DataFusion tables: the rows and
//! column types of Java Paimon's `org.apache.paimon.table.system.*Table` classes, read once
//! into a [`MemTable`].
//!
//! Timestamps are Java's `TIMESTAMP(3)` (no zone): wall-clock time in this machine's time
//! zone, as Java computes it with `ZoneId.systemDefault()`. `audit_log` is not built here; it
//! is a scan of the table with row kinds.

mod columns;
mod files;
mod java_text;
mod manifests;
mod metadata;

use std::sync::Arc;

use arrow::record_batch::RecordBatch;
use datafusion::catalog::TableProvider;
use datafusion::datasource::MemTable;
use datafusion::error::Result;
use paimon_meta::Table;
use paimon_spec::types::DataField;

use crate::error::df_err;

pub use columns::{epoch_millis_of_local, local_millis};

/// The system table names after `$`, as Java spells them.
pub const SYSTEM_TABLES: &[&str] = &[
    "snapshots",
    "schemas",
    "options",
    "tags",
    "branches",
    "files",
    "manifests",
    "partitions",
    "buckets",
    "audit_log",
];

/// The system table `name` (the part after `$`, lower-case, e.g. `"snapshots"`) of the table
/// at `table_path` on `branch` (main when `None`); `None` when `name` is not a system table
/// built here (`audit_log` is read through the table's scan).
///
/// # Errors
/// When the table cannot be opened or its metadata cannot be read; the message names the
/// table path.
pub fn system_table(
    table_path: &str,
    branch: Option<&str>,
    name: &str,
) -> Result<Option<Arc<dyn TableProvider>>> {
    let Some((_, batch)) = system_batch(table_path, branch, name)? else {
        return Ok(None);
    };
    let table = MemTable::try_new(batch.schema(), vec![vec![batch]])?;
    Ok(Some(Arc::new(table)))
}

/// The rows of system table `name` as one batch, with the Paimon type of each column (Java's
/// `TABLE_TYPE`); `None` as in [`system_table`].
///
/// # Errors
/// As [`system_table`].
pub fn system_batch(
    table_path: &str,
    branch: Option<&str>,
    name: &str,
) -> Result<Option<(Vec<DataField>, RecordBatch)>> {
    if builder(name).is_none() {
        return Ok(None);
    }
    let table = open(table_path, branch)?;
    system_batch_of(&table, table_path, name)
}

/// The system table `name` of `table` as it was opened (e.g. through a catalog, on its
/// branch); `label` names it in errors. `None` as in [`system_table`].
///
/// # Errors
/// When the table's metadata cannot be read.
pub fn system_table_of(
    table: &Table,
    label: &str,
    name: &str,
) -> Result<Option<Arc<dyn TableProvider>>> {
    let Some((_, batch)) = system_batch_of(table, label, name)? else {
        return Ok(None);
    };
    let table = MemTable::try_new(batch.schema(), vec![vec![batch]])?;
    Ok(Some(Arc::new(table)))
}

/// [`system_batch`] of an opened `table` (`label` names it in errors).
///
/// # Errors
/// As [`system_table_of`].
pub fn system_batch_of(
    table: &Table,
    label: &str,
    name: &str,
) -> Result<Option<(Vec<DataField>, RecordBatch)>> {
    let Some(build) = builder(name) else {
        return Ok(None);
    };
    let cols = build(table).map_err(|e| df_err(&format!("{label}${name}"), e))?;
    cols.finish().map(Some)
}

/// What builds system table `name`'s columns; `None` when it is not built here.
fn builder(name: &str) -> Option<fn(&Table) -> paimon_meta::Result<columns::Columns>> {
    let build: fn(&Table) -> paimon_meta::Result<columns::Columns> = match name {
        "snapshots" => metadata::snapshots,
        "schemas" => metadata::schemas,
        "options" => metadata::options,
        "tags" => metadata::tags,
        "branches" => metadata::branches,
        "files" => files::files,
        "manifests" => manifests::manifests,
        "partitions" => manifests::partitions,
        "buckets" => manifests::buckets,
        _ => return None,
    };
    Some(build)
}

fn open(table_path: &str, branch: Option<&str>) -> Result<Table> {
    let io = paimon_io::file_io_for(table_path).map_err(|e| df_err(table_path, e))?;
    let table = match branch {
        Some(b) => Table::open_branch(io, table_path, b),
        None => Table::open(io, table_path),
    };
    table.map_err(|e| df_err(table_path, e))
}
