//! Scan options shared by `plan`, `files` and `read`.

use std::sync::Arc;

use anyhow::{anyhow, Result};
use clap::Args;
use paimon_io::{file_io_for, FileIORef};
use paimon_meta::scan::IncrementalScanMode;
use paimon_meta::{ScanChoice, Table};

use crate::filter::scan_error;

/// Which snapshot to read and how to narrow it.
#[derive(Debug, Clone, Args, Default)]
pub struct ScanArgs {
    /// Read this snapshot id.
    #[arg(long, conflicts_with_all = ["tag", "timestamp_ms", "incremental"])]
    pub snapshot: Option<i64>,
    /// Read the snapshot of this tag.
    #[arg(long, conflicts_with_all = ["timestamp_ms", "incremental"])]
    pub tag: Option<String>,
    /// Read the latest snapshot committed at or before this time (epoch millis).
    #[arg(long = "timestamp-ms", conflicts_with = "incremental")]
    pub timestamp_ms: Option<i64>,
    /// Read what changed between A and B: `A,B`. Two snapshot ids read the delta (or
    /// changelog) files of snapshots (A, B]; two tag names read the diff of the tagged
    /// snapshots (the rows that differ), as Java's `incremental-between` does.
    #[arg(long)]
    pub incremental: Option<String>,
    /// How `--incremental` reads two snapshot ids: `auto` (changelog files when the table has
    /// a changelog producer, else delta files), `delta`, `changelog`, or `diff` (the rows that
    /// differ between the two snapshots). Java's `incremental-between-scan-mode`; default: the
    /// table's option, else `auto`.
    #[arg(long = "incremental-mode", requires = "incremental")]
    pub incremental_mode: Option<String>,
    /// Read what changed after snapshot N, snapshot by snapshot, as Java's streaming read
    /// restored at N+1: the delta files of each APPEND snapshot (or each snapshot's changelog
    /// files when the table has a changelog producer), rows with their kinds (`--with-kind`).
    /// The plan's snapshot id is the latest snapshot looked at: pass it as the next N.
    #[arg(
        long = "changes-since",
        conflicts_with_all = ["snapshot", "tag", "timestamp_ms", "incremental"]
    )]
    pub changes_since: Option<i64>,
    /// Read this branch.
    #[arg(long)]
    pub branch: Option<String>,
    /// Only these columns, in this order: `c1,c2`.
    #[arg(long)]
    pub select: Option<String>,
    /// SQL predicate, e.g. `"a > 5 AND dt = DATE '2024-01-01'"`.
    #[arg(long)]
    pub filter: Option<String>,
    /// Add a leading `_ROW_KIND` column (`+I`, `-U`, `+U`, `-D`).
    #[arg(long = "with-kind")]
    pub with_kind: bool,
    /// Bound on the memory planning holds (and reading, for `read`: one pool for both), e.g.
    /// `256MiB`, `512MB` or `1048576` (powers of 1024). Planning beyond it fails with one
    /// error line; a read waits for room, or fails when the plan holds the whole pool.
    #[arg(long = "memory-limit", value_parser = crate::read_cmd::parse_memory_budget)]
    pub memory_limit: Option<usize>,
}

/// A table opened with its scan (the facade's [`paimon_rs::TableScan`], opened), the schema
/// rows are read with, and the filter.
#[derive(Debug)]
pub struct OpenedScan {
    /// The table (on the chosen branch).
    pub table: Table,
    /// The facade's scan the arguments describe (its reader reads the splits).
    pub table_scan: paimon_rs::TableScan,
    /// The scan opened: snapshot selection and filter applied, the schema of the snapshot
    /// read (Java switches to it for time travel), the typed filter and the pool of
    /// `--memory-limit`, which the scan plans within.
    pub opened: paimon_rs::scan::OpenedScan,
    /// Projected column names.
    pub select: Option<Vec<String>>,
    /// The storage.
    pub io: FileIORef,
    /// The table location.
    pub path: String,
}

/// The facade's opened scan's fields (`scan`, `schema`, `filter`, `pool`) read as the
/// command's own.
impl std::ops::Deref for OpenedScan {
    type Target = paimon_rs::scan::OpenedScan;

    fn deref(&self) -> &Self::Target {
        &self.opened
    }
}

/// Strips a trailing slash so paths compare and join predictably.
pub fn table_location(table: &str) -> String {
    let t = table.trim_end_matches('/');
    if t.is_empty() {
        "/".into()
    } else {
        t.to_string()
    }
}

/// Opens `table`: `db.table` through the command line's catalog when one is given
/// (`--catalog-option`), else a path or URL.
///
/// # Errors
/// The catalog's errors; no table there.
pub fn open_table(table: &str) -> Result<(FileIORef, Table)> {
    if let Some(c) = crate::catalog_cmd::catalog_for(table)? {
        let t = c
            .table(table)
            .map_err(|e| anyhow!("{}", e.chain()))?
            .meta()
            .clone();
        return Ok((Arc::clone(t.file_io()), t));
    }
    let path = table_location(table);
    let io = file_io_for(&path).map_err(|e| anyhow!("{path}: {e}"))?;
    let t = Table::open(Arc::clone(&io), &path).map_err(|e| anyhow!("{e}"))?;
    Ok((io, t))
}

impl ScanArgs {
    /// Opens `table` and builds the scan.
    ///
    /// # Errors
    /// When the table cannot be opened, the selection is malformed or the filter does not parse.
    pub fn open(&self, table: &str) -> Result<OpenedScan> {
        let (io, t) = open_table(table)?;
        // A catalog's table is where the catalog says; a path is as given.
        let path = match crate::catalog_cmd::catalog()? {
            Some(_) => t.path().to_string(),
            None => table_location(table),
        };
        let select = self.select.as_ref().map(|s| {
            s.split(',')
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
        });
        let table_scan = self.table_scan(paimon_rs::Table::from_meta(t), select.clone())?;
        let opened = table_scan.open().map_err(scan_error)?;
        // The table on the chosen branch, as the facade opened it.
        let t = opened.scan.table().clone();
        Ok(OpenedScan {
            table: t,
            table_scan,
            opened,
            select,
            io,
            path,
        })
    }

    /// The facade's scan of `table` these arguments describe (snapshot selection, branch,
    /// projection `select`, filter, row kinds, memory limit).
    ///
    /// # Errors
    /// A malformed `--incremental` or `--incremental-mode`.
    pub fn table_scan(
        &self,
        table: paimon_rs::Table,
        select: Option<Vec<String>>,
    ) -> Result<paimon_rs::TableScan> {
        let mut scan = table.scan().with_choice(self.choice()?);
        if let Some(b) = &self.branch {
            scan = scan.with_branch(b.clone());
        }
        if let Some(cols) = select {
            scan = scan.with_projection(cols);
        }
        if let Some(f) = &self.filter {
            scan = scan.with_filter(f).map_err(scan_error)?;
        }
        if let Some(n) = self.memory_limit {
            scan = scan.with_memory_limit(n);
        }
        Ok(scan.with_row_kind(self.with_kind))
    }

    /// The snapshot selection of these arguments.
    ///
    /// # Errors
    /// A malformed `--incremental` or `--incremental-mode`.
    pub fn choice(&self) -> Result<ScanChoice> {
        let incremental = match &self.incremental {
            Some(inc) => Some(
                inc.split_once(',')
                    .map(|(a, b)| (a.trim().to_string(), b.trim().to_string()))
                    .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                    .ok_or_else(|| {
                        anyhow!(
                            "--incremental takes two snapshot ids or two tags: A,B (got '{inc}')"
                        )
                    })?,
            ),
            None => None,
        };
        let incremental_mode = match &self.incremental_mode {
            Some(m) => Some(
                m.parse::<IncrementalScanMode>()
                    .map_err(|e| anyhow!("--incremental-mode: {e}"))?,
            ),
            None => None,
        };
        Ok(ScanChoice {
            snapshot: self.snapshot,
            tag: self.tag.clone(),
            timestamp_ms: self.timestamp_ms,
            incremental,
            incremental_mode,
            changes_since: self.changes_since,
        })
    }
}
