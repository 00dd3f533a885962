//! Scan options shared by `plan`, `files` and `read`.

use std::sync::Arc;

use anyhow::{anyhow, bail, Result};
use clap::Args;
use paimon_io::{file_io_for, FileIORef};
use paimon_memory::{GreedyMemoryPool, MemoryPool};
use paimon_meta::scan::IncrementalScanMode;
use paimon_meta::{ScanBuilder, ScanChoice, Table};
use paimon_spec::predicate::Predicate;
use paimon_spec::schema::TableSchemaRef;

use crate::filter::parse_filter;

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

/// A table opened with its scan, the schema rows are read with, and the filter.
#[derive(Debug)]
pub struct OpenedScan {
    /// The table (on the chosen branch).
    pub table: Table,
    /// The scan builder, with snapshot selection and filter applied.
    pub scan: ScanBuilder,
    /// Schema of the snapshot read (Java switches to it for time travel).
    pub schema: TableSchemaRef,
    /// The parsed filter.
    pub filter: Option<Predicate>,
    /// Projected column names.
    pub select: Option<Vec<String>>,
    /// The storage.
    pub io: FileIORef,
    /// The table location.
    pub path: String,
    /// The pool of `--memory-limit`, which the scan plans within.
    pub pool: Option<Arc<dyn MemoryPool>>,
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
        let (io, mut t) = open_table(table)?;
        // A catalog's table is where the catalog says; a path is as given.
        let path = match crate::catalog_cmd::catalog()? {
            Some(_) => t.path().to_string(),
            None => table_location(table),
        };
        if let Some(b) = &self.branch {
            t = t.with_branch(b).map_err(|e| anyhow!("{e}"))?;
        }
        let mut scan = t.scan();
        let pool = self
            .memory_limit
            .map(|n| Arc::new(GreedyMemoryPool::new(n)) as Arc<dyn MemoryPool>);
        if let Some(p) = &pool {
            scan = scan.with_memory_pool(Arc::clone(p));
        }
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
        let choice = ScanChoice {
            snapshot: self.snapshot,
            tag: self.tag.clone(),
            timestamp_ms: self.timestamp_ms,
            incremental,
            incremental_mode,
            changes_since: self.changes_since,
        };
        scan = choice.apply(scan).map_err(|e| anyhow!("{e}"))?;
        let schema = scan.rows_schema().map_err(|e| anyhow!("{e}"))?;
        let filter = match &self.filter {
            Some(f) => Some(parse_filter(f, &schema)?),
            None => None,
        };
        if let Some(p) = &filter {
            scan = scan.with_filter(p.clone());
        }
        let select = self.select.as_ref().map(|s| {
            s.split(',')
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
        });
        if let Some(cols) = &select {
            for c in cols {
                if schema.field(c).is_none() && c != "_ROW_ID" && c != "_SEQUENCE_NUMBER" {
                    bail!("--select: unknown column '{c}' in {path}");
                }
            }
        }
        Ok(OpenedScan {
            table: t,
            scan,
            schema,
            filter,
            select,
            io,
            path,
            pool,
        })
    }
}
