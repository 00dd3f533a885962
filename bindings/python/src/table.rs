//! `paimon_rs.Table`: a table's metadata (schema, keys, options, snapshots, tags, branches,
//! schemas) and the entry to scans.

use std::collections::BTreeMap;
use std::sync::Arc;

use paimon_data::arrow_schema::to_arrow_schema;
use paimon_datafusion::{PaimonTableProvider, ScanSpec};
use paimon_meta::{ScanChoice, Snapshot};
use paimon_rs::table_writer::{compact_written, compacts_after_write};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyList};

use crate::arrow_export::Schema;
use crate::convert::{
    arg, file_io, json_to_py, location_arg, options_arg, table_location, threads_arg,
};
use crate::datafusion_export;
use crate::errors::py as pyr;
use crate::reader::guard;
use crate::scan::{Scan, ScanArgs};
use crate::write::{TableCommit, TableWrite};

/// A Paimon table opened at its path (`/wh/db.db/t`, `file://...`, `s3://bucket/wh/db.db/t`).
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct Table {
    pub(crate) table: paimon_meta::Table,
    pub(crate) options: BTreeMap<String, String>,
}

#[pymethods]
impl Table {
    /// `Table(path, options=None)` is `Table.open(path, options)`.
    #[new]
    #[pyo3(signature = (path, options=None))]
    fn new(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        options: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Table> {
        Table::open(py, path, options)
    }

    /// Opens the table at `path`; `options` are FileIO options (e.g. `s3.endpoint`,
    /// `s3.access-key`, `s3.secret-key`, `s3.region`, `s3.path.style.access`), keys not given
    /// falling back to the environment. Raises `NotFoundError` when there is no table.
    #[staticmethod]
    #[pyo3(signature = (path, options=None))]
    fn open(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        options: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Table> {
        let path = location_arg(path, "path")?;
        let path = path.as_str();
        let options = options_arg(options.as_ref())?;
        let path = table_location(path);
        let io = file_io(&path, &options)?;
        let table = guard(|| pyr(py.detach(|| paimon_meta::Table::open(io, &path))))?;
        Ok(Table { table, options })
    }

    /// The table's location.
    #[getter]
    fn path(&self) -> &str {
        self.table.path()
    }

    /// The latest schema as Arrow (`pyarrow.schema(t.schema)`).
    #[getter]
    fn schema(&self) -> Schema {
        Schema {
            schema: Arc::new(to_arrow_schema(&self.table.schema().fields)),
        }
    }

    /// Primary key columns (empty for an append table).
    #[getter]
    fn primary_keys(&self) -> Vec<String> {
        self.table.schema().primary_keys.clone()
    }

    /// Partition columns.
    #[getter]
    fn partition_keys(&self) -> Vec<String> {
        self.table.schema().partition_keys.clone()
    }

    /// The table options of the latest schema.
    #[getter]
    fn options(&self) -> BTreeMap<String, String> {
        self.table.schema().options.clone()
    }

    /// The storage (FileIO) options the table's files are read and written with: what a
    /// worker needs with the table's path and split bytes. For a table opened through a
    /// catalog, the catalog's storage options, never its own credentials (`token`, ...);
    /// under a REST catalog's `data-token.enabled`, the server's current data token over
    /// them (fetched again first when it expires within the hour).
    #[getter]
    fn storage_options(&self, py: Python<'_>) -> PyResult<BTreeMap<String, String>> {
        let io = Arc::clone(self.table.file_io());
        let current = guard(|| pyr(py.detach(move || io.storage_options().transpose())))?;
        Ok(current.unwrap_or_else(|| self.options.clone()))
    }

    /// Every snapshot still present, oldest first: dicts with `id`, `schema_id`,
    /// `commit_kind`, `time_millis`, `total_record_count`, `delta_record_count`, `watermark`,
    /// `commit_user`.
    fn snapshots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let snaps = guard(|| pyr(py.detach(|| self.table.snapshots())))?;
        let list = PyList::empty(py);
        for s in &snaps {
            list.append(snapshot_dict(py, s, None)?)?;
        }
        Ok(list)
    }

    /// The tags, by name: dicts with `name` and the tagged snapshot's fields (see
    /// `snapshots`).
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let tm = self.table.tag_manager();
        let tags = guard(|| {
            pyr(py.detach(|| {
                tm.tag_names()?
                    .into_iter()
                    .map(|n| tm.tag(&n).map(|s| (n, s)))
                    .collect::<paimon_meta::Result<Vec<_>>>()
            }))
        })?;
        let list = PyList::empty(py);
        for (name, s) in &tags {
            list.append(snapshot_dict(py, s, Some(name))?)?;
        }
        Ok(list)
    }

    /// The branch names (without `main`).
    fn branches(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let io = Arc::clone(self.table.file_io());
        let dir = paimon_spec::layout::TableLayout::new(self.table.path()).branch_dir();
        guard(|| {
            py.detach(|| {
                let entries = match io.list(&dir) {
                    Ok(e) => e,
                    Err(e) if e.is_not_found() => return Ok(Vec::new()),
                    Err(e) => return pyr(Err(e)),
                };
                Ok(entries
                    .iter()
                    .filter(|e| e.is_dir)
                    .filter_map(|e| {
                        e.name()
                            .strip_prefix(paimon_spec::layout::BRANCH_PREFIX)
                            .map(str::to_string)
                    })
                    .collect())
            })
        })
    }

    /// Every schema version, oldest first, as the schema JSON Paimon writes (dicts).
    fn schemas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let sm = self.table.schema_manager();
        let schemas = guard(|| {
            pyr(py.detach(|| {
                sm.schema_ids()?
                    .into_iter()
                    .map(|id| sm.schema(id))
                    .collect::<paimon_meta::Result<Vec<_>>>()
            }))
        })?;
        let list = PyList::empty(py);
        for s in &schemas {
            list.append(json_to_py(py, &s.to_json())?)?;
        }
        Ok(list)
    }

    /// A scan; every argument is checked (columns, filter, snapshot choice) before data is
    /// read. `select`: columns in order; `filter`: SQL (`a > 5 AND dt = DATE '2024-01-01'`);
    /// `limit`: stop after that many rows; one of `snapshot` (id), `tag`, `timestamp_ms`,
    /// `incremental` (`"A,B"` or `(A, B)`: snapshot ids or tag names) with `incremental_mode`
    /// (`auto`, `delta`, `changelog`, `diff`), or `changes_since` (snapshot id N: what
    /// changed after it); `branch`; `with_kind` adds a leading `_ROW_KIND` column.
    #[pyo3(signature = (select=None, filter=None, limit=None, snapshot=None, tag=None,
                        timestamp_ms=None, incremental=None, incremental_mode=None,
                        changes_since=None, branch=None, with_kind=None))]
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &self,
        py: Python<'_>,
        select: Option<Bound<'_, PyAny>>,
        filter: Option<Bound<'_, PyAny>>,
        limit: Option<Bound<'_, PyAny>>,
        snapshot: Option<Bound<'_, PyAny>>,
        tag: Option<Bound<'_, PyAny>>,
        timestamp_ms: Option<Bound<'_, PyAny>>,
        incremental: Option<Bound<'_, PyAny>>,
        incremental_mode: Option<Bound<'_, PyAny>>,
        changes_since: Option<Bound<'_, PyAny>>,
        branch: Option<Bound<'_, PyAny>>,
        with_kind: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Scan> {
        let incremental = match incremental.as_ref().filter(|v| !v.is_none()) {
            None => None,
            Some(v) => Some(crate::scan::incremental_arg(v)?),
        };
        let args = ScanArgs {
            select: arg(select.as_ref(), "select", "a list of column names")?,
            filter: arg(filter.as_ref(), "filter", "SQL filter text (a str)")?,
            limit: arg(limit.as_ref(), "limit", "a non-negative int")?,
            choice: ScanChoice {
                snapshot: arg(snapshot.as_ref(), "snapshot", "a snapshot id (an int)")?,
                tag: arg(tag.as_ref(), "tag", "a tag name (a str)")?,
                timestamp_ms: arg(
                    timestamp_ms.as_ref(),
                    "timestamp_ms",
                    "milliseconds (an int)",
                )?,
                incremental,
                incremental_mode: crate::scan::incremental_mode_arg(incremental_mode.as_ref())?,
                changes_since: arg(
                    changes_since.as_ref(),
                    "changes_since",
                    "a snapshot id (an int)",
                )?,
            },
            branch: arg(branch.as_ref(), "branch", "a branch name (a str)")?,
            with_kind: arg(with_kind.as_ref(), "with_kind", "a bool")?.unwrap_or(false),
        };
        Scan::new(py, &self.table, &self.options, args)
    }

    /// A writer of Arrow data into this table's files (see `TableWrite`); nothing is
    /// committed until its messages are. `row_kind_column`: a column of the data holding each
    /// row's kind (`+I`, `-U`, `+U`, `-D`; primary-key tables), not written. `threads`:
    /// threads encoding the columns of Parquet files (None: all cores; 1 for a worker that
    /// runs one writer per core); the encoding is the same whatever the count (with more
    /// than one, where a file rolls at `target-file-size` is estimated).
    #[pyo3(signature = (row_kind_column=None, threads=None))]
    fn new_write(
        &self,
        py: Python<'_>,
        row_kind_column: Option<String>,
        threads: Option<Bound<'_, PyAny>>,
    ) -> PyResult<TableWrite> {
        let threads = threads_arg(threads.as_ref())?;
        TableWrite::open(py, &self.table, row_kind_column, false, false, threads)
    }

    /// The write context of this table (bytes) a driver hands its write workers: the latest
    /// schema, and from the latest snapshot (read once) each bucket's committed sequence
    /// numbers and a dynamic-bucket table's hash index, unless `overwrite` says the rows
    /// replace the table's. A worker writes with `TableWrite.from_context(bytes)` without
    /// opening the table; the driver commits the messages (`overwrite` through
    /// `TableCommit.overwrite`). Also what `paimon_rs.run_compact_task` takes.
    /// `compact_after` (default: as `write_arrow` decides) says the driver compacts the
    /// buckets written after committing (primary-key tables with deletion vectors, first-row
    /// or the `lookup` changelog producer that are not `write-only`: their rows reach batch
    /// reads only so); with `False` the workers refuse such tables, as `new_write` does.
    #[pyo3(signature = (overwrite=false, commit_user=None, compact_after=None))]
    fn write_context<'py>(
        &self,
        py: Python<'py>,
        overwrite: bool,
        commit_user: Option<String>,
        compact_after: Option<bool>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = guard(|| {
            py.detach(|| {
                let mut ctx = pyr(self.table.write_context(overwrite, commit_user.as_deref()))?;
                if let Some(c) = compact_after {
                    ctx.compact_after = c;
                }
                pyr(paimon_split::encode_write_context(&ctx))
            })
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// A committer of commit messages into this table as `user` (default: a new user per
    /// call, so its identifiers start fresh); see `TableCommit`.
    #[pyo3(signature = (user=None))]
    fn new_commit(&self, user: Option<String>) -> TableCommit {
        TableCommit::new(self.table.clone(), user)
    }

    /// Writes `data` (what `TableWrite.write` takes) and commits it in one snapshot; returns
    /// the ids of the snapshots made. `overwrite`: replace instead of append (with
    /// `partition`, a dict of partition values, those partitions; else what
    /// `TableCommit.overwrite` says). On any error nothing is committed and the files written
    /// are deleted. On primary-key tables with deletion vectors, first-row or the `lookup`
    /// changelog producer that are not `write-only`, the buckets written are then compacted
    /// by lookup in a COMPACT snapshot, as Java's writers and `paimon write` do (their rows
    /// reach batch reads, and the changelog is written, only so); should that compaction
    /// fail, its error is raised and the write stays committed.
    #[pyo3(signature = (data, overwrite=false, partition=None, row_kind_column=None, threads=None))]
    fn write_arrow(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        overwrite: bool,
        partition: Option<Bound<'_, PyDict>>,
        row_kind_column: Option<String>,
        threads: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Vec<i64>> {
        let threads = threads_arg(threads.as_ref())?;
        if partition.is_some() && !overwrite {
            return Err(crate::errors::invalid(
                "partition= only applies with overwrite=True",
            ));
        }
        let spec = crate::write::partition_spec(&self.table, partition.as_ref())?;
        let compact_after = compacts_after_write(&self.table);
        let writer = TableWrite::open(
            py,
            &self.table,
            row_kind_column,
            overwrite,
            compact_after,
            threads,
        )?;
        let messages = writer.write_data(py, data).and_then(|_| writer.prepare(py));
        let messages = match messages {
            Ok(m) => m,
            Err(e) => {
                writer.abort_writer();
                return Err(e);
            }
        };
        let commit = TableCommit::new(self.table.clone(), None);
        let mut ids = commit.commit_messages(py, &messages, None, overwrite.then_some(spec))?;
        if compact_after && !ids.is_empty() {
            let user = format!("{}-compact", commit.user_name());
            let outcome =
                guard(|| py.detach(|| pyr(compact_written(&self.table, &messages, &user))))?;
            ids.extend(outcome.snapshots);
        }
        Ok(ids)
    }

    /// Compacts the table as `paimon compact` does (Java 1.4's pickers: bin packing for
    /// unaware-bucket append tables, `BucketedAppendCompactManager` for fixed buckets,
    /// universal compaction for primary-key tables; `full=True` rewrites every bucket into
    /// as few files as the target size allows) and commits one COMPACT snapshot. Returns the
    /// ids of the snapshots made (empty when nothing needed compacting). `partition`: a dict
    /// of partition values. Raises `CommitConflictError` when a concurrent commit removed an
    /// input; nothing is committed then.
    /// The tasks `compact` would run, as bytes, for workers elsewhere (`paimon_rs.ray.compact`
    /// runs them on a Ray cluster): plans only, commits nothing. Each worker calls
    /// `run_compact_task`, and one `new_commit().commit(messages)` commits every message as
    /// one COMPACT snapshot, with the same conflict checks as `compact`.
    #[pyo3(signature = (full=false, partition=None))]
    fn compact_tasks<'py>(
        &self,
        py: Python<'py>,
        full: bool,
        partition: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let tasks = crate::maintenance::compact_tasks(py, &self.table, full, partition.as_ref())?;
        Ok(tasks.iter().map(|t| PyBytes::new(py, t)).collect())
    }

    /// Runs one task of `compact_tasks` and returns its commit message (bytes of the
    /// commit-message `version`, default the one Java 1.4 reads); nothing is committed, and
    /// the files a failed task wrote are deleted. Raises `CorruptError` for bytes that are no
    /// compaction task.
    #[pyo3(signature = (task, version=None))]
    fn run_compact_task<'py>(
        &self,
        py: Python<'py>,
        task: &[u8],
        version: Option<i32>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let version = version.unwrap_or(crate::write::DEFAULT_MESSAGE_VERSION);
        let message = crate::maintenance::run_compact_task(
            py,
            self.table.file_io().clone(),
            self.table.path(),
            self.table.schema(),
            task,
            version,
        )?;
        Ok(PyBytes::new(py, &message))
    }

    #[pyo3(signature = (full=false, partition=None, threads=None))]
    fn compact(
        &self,
        py: Python<'_>,
        full: bool,
        partition: Option<Bound<'_, PyDict>>,
        threads: Option<usize>,
    ) -> PyResult<Vec<i64>> {
        crate::maintenance::compact(py, &self.table, full, partition.as_ref(), threads)
    }

    /// Tags `snapshot` (the latest when `None`) as `name`, as Java's `createTag`
    /// (`time_retained` such as `"1 d"` writes `tagTimeRetained`); returns the snapshot id.
    #[pyo3(signature = (name, snapshot=None, time_retained=None))]
    fn create_tag(
        &self,
        py: Python<'_>,
        name: &str,
        snapshot: Option<i64>,
        time_retained: Option<String>,
    ) -> PyResult<i64> {
        crate::versions::create_tag(py, &self.table, name, snapshot, time_retained.as_deref())
    }

    /// Tags the first snapshot committed at or after `timestamp` (epoch millis); returns its
    /// id.
    fn create_tag_from_timestamp(
        &self,
        py: Python<'_>,
        name: &str,
        timestamp: i64,
    ) -> PyResult<i64> {
        crate::versions::create_tag_from_timestamp(py, &self.table, name, timestamp)
    }

    /// Deletes tag `name` with the files only it kept alive; returns those files.
    fn delete_tag(&self, py: Python<'_>, name: &str) -> PyResult<Vec<String>> {
        crate::versions::delete_tag(py, &self.table, name)
    }

    /// Renames tag `old` to `new`.
    fn rename_tag(&self, py: Python<'_>, old: &str, new: &str) -> PyResult<()> {
        crate::versions::run(py, &self.table, |t| t.rename_tag(old, new))
    }

    /// Creates branch `name`: empty, or from `tag` or `snapshot`.
    #[pyo3(signature = (name, tag=None, snapshot=None))]
    fn create_branch(
        &self,
        py: Python<'_>,
        name: &str,
        tag: Option<String>,
        snapshot: Option<i64>,
    ) -> PyResult<()> {
        crate::versions::create_branch(py, &self.table, name, tag, snapshot)
    }

    /// Deletes branch `name`.
    fn delete_branch(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        crate::versions::run(py, &self.table, |t| t.delete_branch(name))
    }

    /// Makes branch `name`'s snapshots, schemas and tags this branch's (Java `fastForward`).
    fn fast_forward(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        crate::versions::run(py, &self.table, |t| t.fast_forward(name))
    }

    /// Rolls back to a snapshot id (int) or a tag (str), as Java's `rollbackTo`; returns
    /// `{"snapshot_id", "snapshots": [removed], "tags": [removed], "changelogs": [removed]}`.
    fn rollback_to<'py>(
        &self,
        py: Python<'py>,
        target: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        crate::versions::rollback_to(py, &self.table, target)
    }

    /// Iterates `(snapshot_id, RecordBatchReader)` over the changes of each new snapshot, as
    /// Java's streaming read: after snapshot `since`, or from where `consumer_id` stopped
    /// (saved in `consumer/consumer-<id>` once the caller asks for the next item), or after
    /// the latest snapshot. With `poll_interval` seconds it waits for new snapshots instead of
    /// stopping when it has caught up.
    #[pyo3(signature = (consumer_id=None, poll_interval=None, since=None, select=None, filter=None, with_kind=None))]
    #[allow(clippy::too_many_arguments)]
    fn stream(
        &self,
        py: Python<'_>,
        consumer_id: Option<String>,
        poll_interval: Option<f64>,
        since: Option<i64>,
        select: Option<Bound<'_, PyAny>>,
        filter: Option<Bound<'_, PyAny>>,
        with_kind: Option<Bound<'_, PyAny>>,
    ) -> PyResult<crate::versions::ChangeStream> {
        let scan = self.scan(
            py, select, filter, None, None, None, None, None, None, None, None, with_kind,
        )?;
        crate::versions::ChangeStream::new(py, &self.table, scan, consumer_id, since, poll_interval)
    }

    /// The next snapshot streaming consumer `consumer_id` reads (`None` for a new one).
    fn consumer(&self, py: Python<'_>, consumer_id: &str) -> PyResult<Option<i64>> {
        crate::versions::run(py, &self.table, |t| t.consumer(consumer_id))
    }

    /// Saves that `consumer_id` reads `next_snapshot` next (`consumer/consumer-<id>`, as
    /// Java's `ConsumerManager`); expiry keeps snapshots from it on.
    fn reset_consumer(
        &self,
        py: Python<'_>,
        consumer_id: &str,
        next_snapshot: i64,
    ) -> PyResult<()> {
        crate::versions::run(py, &self.table, |t| {
            t.reset_consumer(consumer_id, next_snapshot)
        })
    }

    /// Removes consumer `consumer_id`; `False` when it did not exist.
    fn delete_consumer(&self, py: Python<'_>, consumer_id: &str) -> PyResult<bool> {
        crate::versions::run(py, &self.table, |t| t.delete_consumer(consumer_id))
    }

    /// Expires old snapshots as Java's `ExpireSnapshotsImpl` does, with the table's
    /// `snapshot.*` options unless given here (`older_than` as `"1 h"`, `"30 min"`); tags keep
    /// their files. Returns `{"expired": [ids], "earliest": id, "files": [paths deleted]}`;
    /// with `dry_run=True` nothing is deleted and the dict says what would be.
    #[pyo3(signature = (retain_max=None, retain_min=None, older_than=None, max_deletes=None, dry_run=false))]
    fn expire_snapshots<'py>(
        &self,
        py: Python<'py>,
        retain_max: Option<i64>,
        retain_min: Option<i64>,
        older_than: Option<String>,
        max_deletes: Option<i64>,
        dry_run: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        crate::maintenance::expire_snapshots(
            py,
            &self.table,
            retain_max,
            retain_min,
            older_than.as_deref(),
            max_deletes,
            dry_run,
        )
    }

    /// Drops the partitions older than `expiration_time` (`"7 d"`; default the table's
    /// `partition.expiration-time`) as Java's `PartitionExpire` does, with the table's
    /// `partition.*` options unless given here (`strategy` `"values-time"` or
    /// `"update-time"`). Returns `{"partitions": [{column: value}], "snapshots": [ids]}`;
    /// with `dry_run=True` nothing is dropped and the dict says what would be.
    #[pyo3(signature = (expiration_time=None, strategy=None, timestamp_formatter=None, timestamp_pattern=None, max_expires=None, dry_run=false))]
    #[allow(clippy::too_many_arguments)]
    fn expire_partitions<'py>(
        &self,
        py: Python<'py>,
        expiration_time: Option<String>,
        strategy: Option<String>,
        timestamp_formatter: Option<String>,
        timestamp_pattern: Option<String>,
        max_expires: Option<usize>,
        dry_run: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        crate::maintenance::expire_partitions(
            py,
            &self.table,
            expiration_time.as_deref(),
            strategy,
            timestamp_formatter,
            timestamp_pattern,
            max_expires,
            dry_run,
        )
    }

    /// Deletes files under the table that no snapshot, tag or branch references and that are
    /// older than `older_than` (default one day, as Java); returns their paths (with
    /// `dry_run=True`, the paths that would go).
    #[pyo3(signature = (older_than="1 d", dry_run=false))]
    fn remove_orphan_files(
        &self,
        py: Python<'_>,
        older_than: &str,
        dry_run: bool,
    ) -> PyResult<Vec<String>> {
        crate::maintenance::remove_orphan_files(py, &self.table, older_than, dry_run)
    }

    /// Builds a global index (`"btree"` or `"bitmap"`) over `column` of a row-tracked table
    /// for the rows no such index covers yet, and commits it, as `paimon create-global-index`
    /// does; `options`: build options (`sorted-index.records-per-file`...). Returns `{"files":
    /// n, "rows": n, "row_ranges": [(start, end)], "snapshots": [ids]}`.
    #[pyo3(signature = (column, index_type, options=None))]
    fn create_global_index<'py>(
        &self,
        py: Python<'py>,
        column: &str,
        index_type: &str,
        options: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut build =
            paimon_rs::Table::from_meta(self.table.clone()).create_global_index(column, index_type);
        for (k, v) in options.unwrap_or_default() {
            build = build.with_option(k, v);
        }
        let r = pyr(py.detach(|| build.run()))?;
        let out = PyDict::new(py);
        out.set_item("files", r.files)?;
        out.set_item("rows", r.rows)?;
        out.set_item("row_ranges", r.row_ranges)?;
        out.set_item("snapshots", r.snapshots)?;
        Ok(out)
    }

    /// Drops the global index of `index_type` over `column` in one commit, as `paimon
    /// drop-global-index` does. Returns `{"files": n, "snapshots": [ids]}` (no snapshot when
    /// the table held no such index).
    fn drop_global_index<'py>(
        &self,
        py: Python<'py>,
        column: &str,
        index_type: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let drop =
            paimon_rs::Table::from_meta(self.table.clone()).drop_global_index(column, index_type);
        let r = pyr(py.detach(|| drop.run()))?;
        let out = PyDict::new(py);
        out.set_item("files", r.files)?;
        out.set_item("snapshots", r.snapshots)?;
        Ok(out)
    }

    /// The table at its latest snapshot as a DataFusion table provider, for the `datafusion`
    /// Python package (`SessionContext.register_table(name, table)` calls this with its
    /// session); filters, projections and limits are pushed into our scan. Raises
    /// `UnsupportedError` when the installed `datafusion` has another major version than the
    /// DataFusion FFI this module was built with.
    fn __datafusion_table_provider__<'py>(
        &self,
        py: Python<'py>,
        session: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let io = Arc::clone(self.table.file_io());
        let path = self.table.path();
        let provider = guard(|| {
            pyr(py.detach(|| PaimonTableProvider::open_io(io, path, ScanSpec::default())))
        })?;
        datafusion_export::table_capsule(py, Arc::new(provider), &session)
    }

    fn __repr__(&self) -> String {
        format!("paimon_rs.Table({:?})", self.table.path())
    }
}

fn snapshot_dict<'py>(
    py: Python<'py>,
    s: &Snapshot,
    tag: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    if let Some(t) = tag {
        d.set_item("name", t)?;
    }
    d.set_item("id", s.id)?;
    d.set_item("schema_id", s.schema_id)?;
    d.set_item("commit_kind", &s.commit_kind)?;
    d.set_item("time_millis", s.time_millis)?;
    d.set_item("total_record_count", s.total_record_count)?;
    d.set_item("delta_record_count", s.delta_record_count)?;
    d.set_item("watermark", s.watermark)?;
    d.set_item("commit_user", &s.commit_user)?;
    Ok(d)
}
