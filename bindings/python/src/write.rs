//! `paimon_rs.TableWrite` and `paimon_rs.TableCommit`: the write path's two halves as Python
//! objects. A `TableWrite` (data plane, paimon-write) turns Arrow data into data files and
//! hands out commit messages as Java `CommitMessageSerializer` bytes; a `TableCommit` (control
//! plane, paimon-meta) commits such bytes, from any writer in any language, into a snapshot.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use paimon_meta::commit::{PartitionSpec, BATCH_COMMIT_IDENTIFIER};
use paimon_rs::table_writer::open_writer;
use paimon_split::commit::{decode_commit_message, encode_commit_message, CommitMessage};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::arrow_import::batches_of;
use crate::errors::{invalid, py as pyr, InternalError};
use crate::reader::guard;

/// The commit-message serializer version written and read when none is given: what Java
/// 1.4 reads and writes.
pub const DEFAULT_MESSAGE_VERSION: i32 = paimon_split::commit::DEFAULT_COMMIT_MESSAGE_VERSION;

/// Writes Arrow data into one table's data files; create with `Table.new_write()`.
///
/// `write` may be called any number of times; `prepare_commit` closes the open files and
/// returns the commit messages (bytes) of everything written since the last call, which a
/// `TableCommit` (here, in another process, or in Java) commits. Nothing is visible until then.
/// Use it as a context manager to `abort` on an exception.
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct TableWrite {
    path: String,
    kind_column: Option<String>,
    writer: Mutex<Option<paimon_write::TableWrite>>,
}

impl TableWrite {
    /// A writer for `table` (paimon-rs's `open_writer`): a primary-key table's writer
    /// continues each bucket's sequence numbers from the latest snapshot, so the rows written
    /// win over those committed, and a dynamic-bucket table's writer finds existing keys in the
    /// committed hash index, unless `overwrite` says the rows replace the table's. With
    /// `compact_after` the caller compacts the written buckets after committing. `threads`
    /// encode the columns of Parquet files.
    pub fn open(
        py: Python<'_>,
        table: &paimon_meta::Table,
        kind_column: Option<String>,
        overwrite: bool,
        compact_after: bool,
        threads: usize,
    ) -> PyResult<TableWrite> {
        let writer =
            guard(|| py.detach(|| pyr(open_writer(table, overwrite, compact_after, threads))))?;
        Ok(TableWrite {
            path: table.path().to_string(),
            kind_column,
            writer: Mutex::new(Some(writer)),
        })
    }

    /// A writer built from a planner's write context alone (paimon-write's
    /// `TableWrite::from_context`) for the table at `table`: a context naming another table
    /// is refused (the facade's `write_context_for`, as `paimon write --context`), so the
    /// bytes cannot point the writer elsewhere. No schema or snapshot file is read;
    /// `options` configure the storage of the table.
    pub fn from_context_bytes(
        py: Python<'_>,
        context: &[u8],
        table: &str,
        kind_column: Option<String>,
        threads: usize,
        options: &std::collections::BTreeMap<String, String>,
    ) -> PyResult<TableWrite> {
        let ctx = pyr(paimon_rs::write_context::write_context_for(context, table))?;
        let io = crate::convert::file_io(&ctx.table_path, options)?;
        let writer = guard(|| {
            py.detach(|| {
                pyr(paimon_write::TableWrite::from_context(io, &ctx)
                    .and_then(|w| w.with_threads(threads)))
            })
        })?;
        Ok(TableWrite {
            path: ctx.table_path,
            kind_column,
            writer: Mutex::new(Some(writer)),
        })
    }

    fn with_writer<T>(
        &self,
        f: impl FnOnce(&mut paimon_write::TableWrite) -> PyResult<T>,
    ) -> PyResult<T> {
        let mut guard = self
            .writer
            .lock()
            .map_err(|_| InternalError::new_err("a TableWrite was poisoned by a panic"))?;
        match guard.as_mut() {
            Some(w) => f(w),
            None => Err(invalid(format!(
                "TableWrite of {}: aborted, open a new one with Table.new_write()",
                self.path
            ))),
        }
    }

    /// Writes every batch of `data`; returns the rows written.
    pub fn write_data(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<u64> {
        let batches = batches_of(data, "data")?;
        let kind = self.kind_column.clone();
        guard(|| {
            py.detach(|| {
                self.with_writer(|w| {
                    let mut rows = 0u64;
                    for b in batches {
                        let b = b.map_err(|e| invalid(format!("data: {e}")))?;
                        rows += b.num_rows() as u64;
                        pyr(w.write_conformed(&b, kind.as_deref()))?;
                    }
                    Ok(rows)
                })
            })
        })
    }

    /// The messages of everything written since the last call.
    pub fn prepare(&self, py: Python<'_>) -> PyResult<Vec<CommitMessage>> {
        guard(|| py.detach(|| self.with_writer(|w| pyr(w.prepare_commit()))))
    }

    /// Drops what was written and not handed out; the writer cannot be used afterwards.
    pub fn abort_writer(&self) {
        if let Ok(mut g) = self.writer.lock() {
            if let Some(mut w) = g.take() {
                w.abort();
            }
        }
    }
}

#[pymethods]
impl TableWrite {
    /// A writer in a worker from the bytes of `Table.write_context()` made by the planner,
    /// for `table` (its path, a `str` or `os.PathLike`, or a `Table`): the schema, each
    /// bucket's committed sequence numbers (so the rows written win over those committed)
    /// and a dynamic-bucket table's hash index come from the bytes, so no metadata of the
    /// table is read here (no `Table.open`). `row_kind_column` and `threads` as in
    /// `Table.new_write`; `options` configure the storage (as `Table.open`'s; a `Table`'s
    /// own when not given). Raises `CorruptError` for bytes that are no write context and
    /// `InvalidArgumentError` for a context of another table than `table`.
    #[staticmethod]
    #[pyo3(signature = (context, table, row_kind_column=None, threads=None, options=None))]
    fn from_context(
        py: Python<'_>,
        context: &[u8],
        table: &Bound<'_, PyAny>,
        row_kind_column: Option<String>,
        threads: Option<Bound<'_, PyAny>>,
        options: Option<Bound<'_, PyAny>>,
    ) -> PyResult<TableWrite> {
        let threads = crate::convert::threads_arg(threads.as_ref())?;
        let (path, table_options) = crate::convert::expected_table_arg(table, "table")?;
        let options = match options {
            Some(o) => crate::convert::options_arg(Some(&o))?,
            None => table_options,
        };
        TableWrite::from_context_bytes(py, context, &path, row_kind_column, threads, &options)
    }

    /// Writes `data`: a pyarrow Table, RecordBatch or RecordBatchReader, anything with
    /// `__arrow_c_stream__` / `__arrow_c_array__`, or (with pyarrow installed) what
    /// `pyarrow.table()` takes, such as a pandas DataFrame. Columns are matched to the
    /// table's by name and cast to its types; the row-kind column given to `new_write`
    /// (`+I`, `-U`, `+U`, `-D`) is taken out. Returns the number of rows written. Raises
    /// `InvalidArgumentError` for a missing, unknown or uncastable column, a null in a NOT NULL
    /// or key column, or a partition value Java cannot name; nothing of that batch is written.
    fn write(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.write_data(py, data)
    }

    /// Closes the open files and returns one commit message per partition and bucket written
    /// since the last call, as Java `CommitMessageSerializer` bytes of `version` (default 14,
    /// what Java 2.1, pypaimon 2.1 and paimon-rust 0.4 read; 11 for Java 1.4).
    #[pyo3(signature = (version=None))]
    fn prepare_commit<'py>(
        &self,
        py: Python<'py>,
        version: Option<i32>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let version = version.unwrap_or(DEFAULT_MESSAGE_VERSION);
        let messages = self.prepare(py)?;
        messages
            .iter()
            .map(|m| {
                let bytes = pyr(encode_commit_message(m, version))?;
                Ok(PyBytes::new(py, &bytes))
            })
            .collect()
    }

    /// Drops everything written and not yet handed out by `prepare_commit` (its files are
    /// deleted, or left as unreferenced orphans where the storage cannot delete them).
    fn abort(&self) {
        self.abort_writer();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Aborts when the block raised; never swallows the exception.
    #[pyo3(signature = (exc_type=None, _exc=None, _tb=None))]
    fn __exit__(
        &self,
        exc_type: Option<Bound<'_, PyAny>>,
        _exc: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> bool {
        if exc_type.is_some_and(|t| !t.is_none()) {
            self.abort_writer();
        }
        false
    }

    fn __repr__(&self) -> String {
        format!("paimon_rs.TableWrite({:?})", self.path)
    }
}

/// Commits writers' messages into snapshots of one table as one commit user; create with
/// `Table.new_commit()`.
///
/// A commit either lands whole or not at all; a committer losing a race for the next
/// snapshot retries with Java's conflict checks. A user's `identifier` is committed at most
/// once, so retrying a commit after an error never applies it twice. Without an identifier a
/// `TableCommit` commits once (Java's `BatchTableCommit`).
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct TableCommit {
    table: paimon_meta::Table,
    user: String,
    used_batch_identifier: AtomicBool,
}

impl TableCommit {
    pub fn new(table: paimon_meta::Table, user: Option<String>) -> TableCommit {
        let user = user.unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!("paimon-rs-python-{}-{nanos:x}", std::process::id())
        });
        TableCommit {
            table,
            user,
            used_batch_identifier: AtomicBool::new(false),
        }
    }

    /// The commit user written into the snapshots.
    pub fn user_name(&self) -> &str {
        &self.user
    }

    fn identifier(&self, identifier: Option<i64>) -> PyResult<i64> {
        match identifier {
            Some(i) => Ok(i),
            None if self.used_batch_identifier.swap(true, Ordering::SeqCst) => Err(invalid(
                "this TableCommit has committed once without an identifier; open a new one with \
                 Table.new_commit(), or pass identifier= to every commit",
            )),
            None => Ok(BATCH_COMMIT_IDENTIFIER),
        }
    }

    /// Commits already decoded messages (`overwrite`: `Some(partition spec or None)`).
    pub fn commit_messages(
        &self,
        py: Python<'_>,
        messages: &[CommitMessage],
        identifier: Option<i64>,
        overwrite: Option<Option<PartitionSpec>>,
    ) -> PyResult<Vec<i64>> {
        let identifier = self.identifier(identifier)?;
        let commit = self.table.new_commit(&self.user);
        guard(|| {
            py.detach(|| {
                pyr(match overwrite {
                    None => commit.commit(identifier, messages),
                    Some(spec) => commit.overwrite_as_configured(identifier, spec, messages),
                })
            })
        })
    }
}

#[pymethods]
impl TableCommit {
    /// The commit user written into the snapshots.
    #[getter]
    fn user(&self) -> &str {
        &self.user
    }

    /// Commits `messages` (commit-message bytes from `TableWrite.prepare_commit`, Java or any
    /// other writer, of serializer `version`) as `identifier`. Returns the ids of the
    /// snapshots made: one APPEND snapshot (and a COMPACT one for compaction results), none
    /// when there was nothing to commit or the identifier was already committed by this user.
    /// Raises `PaimonError` subclasses: `CommitConflictError` when Java's conflict checks
    /// refuse it, `CorruptError` for bytes that are no commit message.
    #[pyo3(signature = (messages, identifier=None, version=None))]
    fn commit(
        &self,
        py: Python<'_>,
        messages: &Bound<'_, PyAny>,
        identifier: Option<i64>,
        version: Option<i32>,
    ) -> PyResult<Vec<i64>> {
        let messages = decode_messages(messages, version)?;
        self.commit_messages(py, &messages, identifier, None)
    }

    /// Commits `messages` as an OVERWRITE snapshot: with `partition` (a dict of partition
    /// column values, a prefix of the partition columns) the matching partitions are replaced;
    /// without it, on a partitioned table with `dynamic-partition-overwrite` (the default),
    /// the partitions written to; otherwise the whole table.
    #[pyo3(signature = (messages, partition=None, identifier=None, version=None))]
    fn overwrite(
        &self,
        py: Python<'_>,
        messages: &Bound<'_, PyAny>,
        partition: Option<Bound<'_, PyDict>>,
        identifier: Option<i64>,
        version: Option<i32>,
    ) -> PyResult<Vec<i64>> {
        let messages = decode_messages(messages, version)?;
        let spec = partition_spec(&self.table, partition.as_ref())?;
        self.commit_messages(py, &messages, identifier, Some(spec))
    }

    /// Deletes the files `messages` added (data, changelog, compaction outputs, new index
    /// files), for messages that will not be committed, e.g. those of finished tasks when
    /// another task of the job failed (Java `TableCommit.abort`). Never pass messages that
    /// were committed: their files are in a snapshot. Returns how many files were removed.
    #[pyo3(signature = (messages, version=None))]
    fn abort(
        &self,
        py: Python<'_>,
        messages: &Bound<'_, PyAny>,
        version: Option<i32>,
    ) -> PyResult<usize> {
        let messages = decode_messages(messages, version)?;
        let commit = self.table.new_commit(&self.user);
        guard(|| py.detach(|| pyr(commit.abort(&messages))))
    }

    fn __repr__(&self) -> String {
        format!(
            "paimon_rs.TableCommit({:?}, user={:?})",
            self.table.path(),
            self.user
        )
    }
}

/// Commit messages from a list of bytes-like objects.
fn decode_messages(
    messages: &Bound<'_, PyAny>,
    version: Option<i32>,
) -> PyResult<Vec<CommitMessage>> {
    let version = version.unwrap_or(DEFAULT_MESSAGE_VERSION);
    let list = messages
        .cast::<PyList>()
        .map(|l| l.iter().collect::<Vec<_>>())
        .or_else(|_| {
            messages
                .try_iter()
                .and_then(|it| it.collect::<PyResult<Vec<_>>>())
        })
        .map_err(|_| invalid("messages: expected a list of bytes"))?;
    list.iter()
        .enumerate()
        .map(|(i, m)| {
            let bytes: Vec<u8> = m.extract().map_err(|_| {
                invalid(format!(
                    "messages[{i}]: expected bytes, got {}",
                    m.get_type()
                ))
            })?;
            decode_commit_message(&bytes, version).map_err(|e| crate::errors::ToPyErr::to_py(&e))
        })
        .collect()
}

/// A partition dict as a spec typed by the table's partition columns (`None` for no dict).
pub fn partition_spec(
    table: &paimon_meta::Table,
    partition: Option<&Bound<'_, PyDict>>,
) -> PyResult<Option<PartitionSpec>> {
    let Some(d) = partition else {
        return Ok(None);
    };
    let mut pairs = Vec::new();
    for (k, v) in d.iter() {
        let k: String = k
            .extract()
            .map_err(|_| invalid("partition: keys must be column names"))?;
        let text = if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
            if b.is_true() { "true" } else { "false" }.to_string()
        } else if v.hasattr("isoformat")? {
            v.call_method0("isoformat")?.extract::<String>()?
        } else {
            v.str()?.extract::<String>()?
        };
        pairs.push((k, text));
    }
    pyr(table.partition_spec(&pairs)).map(Some)
}
