//! `Table.compact`, `Table.expire_snapshots` and `Table.remove_orphan_files`: the maintenance
//! of `paimon compact / expire-snapshots / remove-orphan-files`, through the same library calls
//! (paimon-rs's `compact_table` runs the planner's tasks and commits; expiry, partition expiry
//! and cleanup are paimon-rs's builders). The GIL is released while they run.

use std::time::Duration;

use paimon_rs::compaction::compact_table;
use paimon_spec::options::parse_duration_millis;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{invalid, py as pyr};

/// A duration argument (`"1 h"`, `"30 min"`, `"0 s"`).
fn duration(what: &str, text: &str) -> PyResult<Duration> {
    parse_duration_millis(text)
        .map(Duration::from_millis)
        .ok_or_else(|| {
            invalid(format!(
                "{what}: '{text}' is not a duration such as '1 h', '30 min' or '500 ms'"
            ))
        })
}

/// The compaction planner of `table`: `full`, and only `partition` (a dict of partition
/// values) when given.
fn planner(
    table: &paimon_meta::Table,
    full: bool,
    partition: Option<&Bound<'_, PyDict>>,
) -> PyResult<paimon_meta::maintenance::CompactPlanner> {
    let mut planner = table.compact_planner().with_full(full);
    if let Some(spec) = crate::write::partition_spec(table, partition)? {
        planner = planner.with_partition(spec);
    }
    Ok(planner)
}

/// Compacts `table` as `paimon compact` does; the ids of the snapshots made (none when nothing
/// needed compacting).
pub fn compact(
    py: Python<'_>,
    table: &paimon_meta::Table,
    full: bool,
    partition: Option<&Bound<'_, PyDict>>,
    threads: Option<usize>,
) -> PyResult<Vec<i64>> {
    let planner = planner(table, full, partition)?;
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    let user = paimon_meta::commit::fresh_commit_user("paimon-rs-python-compact");
    let outcome = pyr(py.detach(|| compact_table(table, &planner, &user, threads)))?;
    Ok(outcome.snapshots)
}

/// The compaction tasks `compact` would run, as bytes (paimon-split's `encode_compact_task`),
/// without running or committing anything.
pub fn compact_tasks(
    py: Python<'_>,
    table: &paimon_meta::Table,
    full: bool,
    partition: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Vec<u8>>> {
    let planner = planner(table, full, partition)?;
    py.detach(|| {
        let plan = pyr(planner.plan())?;
        plan.tasks
            .iter()
            .map(|t| pyr(paimon_split::encode_compact_task(t)))
            .collect()
    })
}

/// Runs one task of [`compact_tasks`] (in any process) and returns its commit message as
/// Java `CommitMessageSerializer` bytes of `version`; nothing is committed. On failure the
/// files the task wrote are deleted.
pub fn run_compact_task(
    py: Python<'_>,
    io: paimon_io::FileIORef,
    root: &str,
    schema: &paimon_spec::schema::TableSchema,
    task: &[u8],
    version: i32,
) -> PyResult<Vec<u8>> {
    py.detach(|| {
        let task = pyr(paimon_split::decode_compact_task(task))?;
        let worker = pyr(paimon_write::TableCompact::try_new(io, root, schema))?;
        let message = pyr(worker.run(&task))?;
        pyr(paimon_split::commit::encode_commit_message(
            &message, version,
        ))
    })
}

/// Expires snapshots as `paimon expire-snapshots` does; the ids expired (or, with `dry_run`,
/// that would be) and the files deleted.
#[allow(clippy::too_many_arguments)]
pub fn expire_snapshots<'py>(
    py: Python<'py>,
    table: &paimon_meta::Table,
    retain_max: Option<i64>,
    retain_min: Option<i64>,
    older_than: Option<&str>,
    max_deletes: Option<i64>,
    dry_run: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let mut expire = paimon_rs::Table::from_meta(table.clone())
        .expire_snapshots()
        .with_dry_run(dry_run);
    if let Some(n) = retain_max {
        expire = expire.with_retain_max(n);
    }
    if let Some(n) = retain_min {
        expire = expire.with_retain_min(n);
    }
    if let Some(text) = older_than {
        expire = expire.with_older_than(duration("older_than", text)?);
    }
    if let Some(n) = max_deletes {
        expire = expire.with_max_deletes(n);
    }
    let r = pyr(py.detach(|| expire.run()))?;
    let out = PyDict::new(py);
    out.set_item("expired", r.expired)?;
    out.set_item("earliest", r.earliest)?;
    let files: Vec<String> = r
        .data_files
        .into_iter()
        .chain(r.metadata_files)
        .chain(r.snapshot_files)
        .collect();
    out.set_item("files", files)?;
    Ok(out)
}

/// Removes orphan files as `paimon remove-orphan-files` does; the files removed (or, with
/// `dry_run`, that would be).
pub fn remove_orphan_files(
    py: Python<'_>,
    table: &paimon_meta::Table,
    older_than: &str,
    dry_run: bool,
) -> PyResult<Vec<String>> {
    let cleanup = paimon_rs::Table::from_meta(table.clone())
        .remove_orphan_files()
        .with_older_than(duration("older_than", older_than)?)
        .with_dry_run(dry_run);
    let r = pyr(py.detach(|| cleanup.run()))?;
    Ok(r.files)
}

/// Expires partitions as `paimon expire-partitions` does; the partitions expired (or, with
/// `dry_run`, that would be) and the snapshots made.
#[allow(clippy::too_many_arguments)]
pub fn expire_partitions<'py>(
    py: Python<'py>,
    table: &paimon_meta::Table,
    expiration_time: Option<&str>,
    strategy: Option<String>,
    timestamp_formatter: Option<String>,
    timestamp_pattern: Option<String>,
    max_expires: Option<usize>,
    dry_run: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let mut expire = paimon_rs::Table::from_meta(table.clone())
        .expire_partitions()
        .with_dry_run(dry_run);
    if let Some(t) = expiration_time {
        expire = expire.with_expiration_time(duration("expiration_time", t)?);
    }
    if let Some(s) = strategy {
        expire = expire.with_strategy(pyr(paimon_rs::maintenance::partition_expire_strategy(&s))?);
    }
    if let Some(f) = timestamp_formatter {
        expire = expire.with_timestamp_formatter(f);
    }
    if let Some(p) = timestamp_pattern {
        expire = expire.with_timestamp_pattern(p);
    }
    if let Some(n) = max_expires {
        expire = expire.with_max_expires(n);
    }
    // A commit conflict reaches Python as `CommitConflictError` (the error's own class).
    let r = pyr(py.detach(|| expire.run()))?;
    let out = PyDict::new(py);
    out.set_item("partitions", r.partitions)?;
    out.set_item("snapshots", r.snapshots)?;
    Ok(out)
}

/// `paimon_rs.run_compact_task(context, task, table)`: runs one task of `Table.compact_tasks`
/// in a worker with the table's schema from a write context (`Table.write_context()` bytes), so
/// the worker opens no metadata of the table; returns the commit message bytes of `version`
/// (default: the one Java 1.4 reads). `table` is the table the worker compacts (its path or a
/// `Table`): a context naming another table is refused, as in `TableWrite.from_context`.
/// `options` configure the storage (a `Table`'s own when not given). Raises `CorruptError`
/// for bytes that are no write context or compaction task, `InvalidArgumentError` for a
/// context of another table.
#[pyfunction]
#[pyo3(name = "run_compact_task", signature = (context, task, table, version=None, options=None))]
pub fn run_compact_task_with_context<'py>(
    py: Python<'py>,
    context: &[u8],
    task: &[u8],
    table: &Bound<'_, PyAny>,
    version: Option<i32>,
    options: Option<Bound<'_, PyAny>>,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let version = version.unwrap_or(crate::write::DEFAULT_MESSAGE_VERSION);
    let (path, table_options) = crate::convert::expected_table_arg(table, "table")?;
    let options = match options {
        Some(o) => crate::convert::options_arg(Some(&o))?,
        None => table_options,
    };
    let ctx = pyr(paimon_rs::write_context::write_context_for(context, &path))?;
    let io = crate::convert::file_io(&ctx.table_path, &options)?;
    let message = crate::reader::guard(|| {
        run_compact_task(py, io, &ctx.table_path, &ctx.schema, task, version)
    })?;
    Ok(pyo3::types::PyBytes::new(py, &message))
}
