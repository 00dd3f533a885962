//! `paimon create-global-index TABLE --column C --type btree|bitmap [--option k=v]`: builds a
//! global index over the rows not yet indexed and commits it
//! ([`paimon_rs::global_index::CreateGlobalIndex`]); `paimon drop-global-index TABLE --column C
//! --type T` removes it from the index manifest
//! ([`paimon_rs::global_index::DropGlobalIndex`]).

use anyhow::{anyhow, Context, Result};
use clap::Args;

use crate::emit;
use crate::scan_args::table_location;
use crate::write_cmd::open;

/// `paimon create-global-index TABLE`.
#[derive(Debug, Args)]
pub struct CreateGlobalIndexArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// The column indexed.
    #[arg(long)]
    pub column: String,
    /// `btree` or `bitmap`.
    #[arg(long = "type")]
    pub index_type: String,
    /// A build option over the table's (`sorted-index.records-per-file=N`,
    /// `btree-index.block-size=64kb`, `bitmap-index.dictionary-block-size=16kb`); repeatable.
    #[arg(long = "option")]
    pub options: Vec<String>,
}

pub fn create_global_index(a: CreateGlobalIndexArgs) -> Result<()> {
    let path = table_location(&a.table);
    create_in(&path, &a).with_context(|| format!("create-global-index {path}"))
}

fn create_in(path: &str, a: &CreateGlobalIndexArgs) -> Result<()> {
    let table = paimon_rs::Table::from_meta(open(path)?);
    let mut build = table.create_global_index(&a.column, &a.index_type);
    for kv in &a.options {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| anyhow!("--option {kv:?}: expected key=value"))?;
        build = build.with_option(k.trim(), v.trim());
    }
    let report = build.run().map_err(|e| anyhow!("{e}"))?;
    if report.snapshots.is_empty() {
        emit(format_args!(
            "every row is indexed already: nothing committed"
        ));
    } else {
        emit(format_args!(
            "{} {} index file(s) over {} rows of column {} in snapshot(s) {:?}, row ranges {:?}",
            report.files, a.index_type, report.rows, a.column, report.snapshots, report.row_ranges
        ));
    }
    Ok(())
}

/// `paimon drop-global-index TABLE`.
#[derive(Debug, Args)]
pub struct DropGlobalIndexArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// The column whose index is dropped.
    #[arg(long)]
    pub column: String,
    /// The index type (`btree`, `bitmap`, or any type the index manifest names).
    #[arg(long = "type")]
    pub index_type: String,
}

pub fn drop_global_index(a: DropGlobalIndexArgs) -> Result<()> {
    let path = table_location(&a.table);
    let table = paimon_rs::Table::from_meta(open(&path)?);
    let report = table
        .drop_global_index(&a.column, &a.index_type)
        .run()
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("drop-global-index {path}"))?;
    if report.snapshots.is_empty() {
        emit(format_args!(
            "no {} index on column {}: nothing committed",
            a.index_type, a.column
        ));
    } else {
        emit(format_args!(
            "{} {} index file(s) of column {} dropped in snapshot(s) {:?}",
            report.files, a.index_type, a.column, report.snapshots
        ));
    }
    Ok(())
}
