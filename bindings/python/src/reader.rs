//! `paimon_rs.SplitReader` (the worker: table path + split bytes + read options -> Arrow) and
//! `paimon_rs.RecordBatchReader` (what a read returns: an Arrow C stream).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;
use arrow::record_batch::{RecordBatch, RecordBatchReader as ArrowReader};
use paimon_io::FileIORef;
use paimon_rs::SplitRead;
use paimon_spec::predicate::sql::parse_sql_filter;
use paimon_spec::schema::TableSchema;
use paimon_split::SplitReadOptions;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::arrow_export::{schema_capsule, stream_capsule, Schema};
use crate::async_reader::{batches as async_batches, AsyncRecordBatchReader};
use crate::convert::{arg, file_io, location_arg, options_arg, table_location, threads_arg};
use crate::errors::{invalid, py as pyr, InternalError, ToPyErr, UnsupportedError};
use crate::split::Split;

/// Batches as paimon-data yields them.
type Batches = Box<dyn Iterator<Item = paimon_data::Result<RecordBatch>> + Send>;

/// Runs `f`, turning a panic (a bug) into `InternalError` so none reaches Python.
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(InternalError::new_err(format!(
            "internal error (a bug in paimon-rs): {msg}"
        )))
    })
}

/// Checks `select` against `schema` (metadata columns `_ROW_ID` / `_SEQUENCE_NUMBER` allowed).
pub fn check_select(select: &[String], schema: &TableSchema, path: &str) -> PyResult<()> {
    for c in select {
        if schema.field(c).is_none() && c != "_ROW_ID" && c != "_SEQUENCE_NUMBER" {
            return Err(invalid(format!("select: unknown column '{c}' in {path}")));
        }
    }
    Ok(())
}

/// Parses `memory_budget`: bytes as an int, or a size such as `"64mb"` (powers of 1024).
pub fn memory_budget(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    let Some(v) = v else { return Ok(None) };
    if v.is_none() {
        return Ok(None);
    }
    let n = match v.extract::<u64>() {
        Ok(n) => Some(n),
        Err(_) => v
            .extract::<String>()
            .ok()
            .and_then(|s| paimon_spec::options::parse_memory_size(&s.to_ascii_lowercase())),
    };
    n.filter(|n| *n > 0)
        .and_then(|n| usize::try_from(n).ok())
        .map(Some)
        .ok_or_else(|| {
            invalid(format!(
                "memory_budget: {v} is not a size above zero (bytes, or e.g. \"64mb\")"
            ))
        })
}

/// Reads splits of one table into Arrow. Built once per worker from the table path and the
/// read options; `read` takes a `Split` or split bytes (or a list of them).
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct SplitReader {
    reader: paimon_data::SplitReader,
    io: FileIORef,
    path: String,
    branch: Option<String>,
}

#[pymethods]
impl SplitReader {
    /// `select`: columns in output order; `filter`: SQL predicate text (rows not matching are
    /// dropped); `threads`: decoding threads (None: all cores); `memory_budget`: bytes (or
    /// `"64mb"`) of decoded data kept in flight; `options`: FileIO options (`s3.endpoint`...);
    /// `schema_id`: read with that schema (a time-travel plan's); `branch`: the branch whose
    /// schemas describe the table; `with_kind`: add a leading `_ROW_KIND` column; `limit`:
    /// stop after that many rows; `path_rewrites`: `(from, to)` prefixes replaced in the
    /// splits' file paths (a table moved since it was planned); `read_options`: the read
    /// options bytes a planner sent (`Scan.read_options_bytes()`), instead of `select`,
    /// `filter`, `batch_size`, `schema_id`, `branch`, `with_kind` and `limit`.
    #[new]
    #[pyo3(signature = (table_path, select=None, filter=None, batch_size=None, threads=None,
                        memory_budget=None, options=None, *, schema_id=None, branch=None,
                        with_kind=None, limit=None, path_rewrites=None, read_options=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        table_path: &Bound<'_, PyAny>,
        select: Option<Bound<'_, PyAny>>,
        filter: Option<Bound<'_, PyAny>>,
        batch_size: Option<Bound<'_, PyAny>>,
        threads: Option<Bound<'_, PyAny>>,
        memory_budget: Option<Bound<'_, PyAny>>,
        options: Option<Bound<'_, PyAny>>,
        schema_id: Option<Bound<'_, PyAny>>,
        branch: Option<Bound<'_, PyAny>>,
        with_kind: Option<Bound<'_, PyAny>>,
        limit: Option<Bound<'_, PyAny>>,
        path_rewrites: Option<Bound<'_, PyAny>>,
        read_options: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let table_path = location_arg(table_path, "table_path")?;
        let threads = threads_arg(threads.as_ref())?;
        let path_rewrites: Option<Vec<(String, String)>> = arg(
            path_rewrites.as_ref(),
            "path_rewrites",
            "a list of (from, to) str pairs",
        )?;
        let budget = self::memory_budget(memory_budget.as_ref())?;
        let path = table_location(&table_path);
        let io = file_io(&path, &options_arg(options.as_ref())?)?;
        let read_options: Option<Vec<u8>> = arg(
            read_options.as_ref(),
            "read_options",
            "read options bytes (Scan.read_options_bytes())",
        )?;
        let read = match read_options {
            Some(bytes) => {
                let given = [
                    ("select", &select),
                    ("filter", &filter),
                    ("batch_size", &batch_size),
                    ("schema_id", &schema_id),
                    ("branch", &branch),
                    ("with_kind", &with_kind),
                    ("limit", &limit),
                ];
                if let Some((name, _)) = given.iter().find(|(_, v)| v.is_some()) {
                    return Err(invalid(format!(
                        "read_options: the bytes already say how to read; {name} cannot be \
                         given beside them"
                    )));
                }
                pyr(SplitRead::from_bytes(Arc::clone(&io), &path, &bytes))?
            }
            None => {
                let select: Option<Vec<String>> =
                    arg(select.as_ref(), "select", "a list of column names")?;
                let filter: Option<String> =
                    arg(filter.as_ref(), "filter", "SQL filter text (a str)")?;
                let limit: Option<u64> = arg(limit.as_ref(), "limit", "a non-negative int")?;
                let mut split_options = SplitReadOptions {
                    schema_id: arg(schema_id.as_ref(), "schema_id", "a schema id (an int)")?,
                    branch: arg(branch.as_ref(), "branch", "a branch name (a str)")?,
                    projection: None,
                    filter: None,
                    limit,
                    batch_size: Some(crate::convert::batch_size(batch_size.as_ref())?),
                    with_row_kind: arg(with_kind.as_ref(), "with_kind", "a bool")?.unwrap_or(false),
                };
                if select.is_some() || filter.is_some() {
                    // The schema read (the schema id's, on the branch) types the columns.
                    let probe = SplitRead::new(Arc::clone(&io), &path, split_options.clone());
                    let reader = probe.reader();
                    let p = path.clone();
                    let schema = guard(|| pyr(py.detach(|| reader.table_schema(&p))))?;
                    if let Some(cols) = &select {
                        check_select(cols, &schema, &path)?;
                    }
                    split_options.projection = select;
                    if let Some(f) = &filter {
                        split_options.filter = Some(pyr(parse_sql_filter(f, &schema))?);
                    }
                }
                SplitRead::new(Arc::clone(&io), &path, split_options)
            }
        };
        let mut b = read.reader_builder().with_parallelism(threads);
        if let Some(n) = budget {
            b = b.with_memory_budget(n);
        }
        for (from, to) in path_rewrites.unwrap_or_default() {
            b = b.with_path_rewrite(from, to);
        }
        let branch = read.options().branch.clone();
        Ok(SplitReader {
            reader: b.build(),
            io,
            path,
            branch,
        })
    }

    /// Reads a `Split`, split bytes, or a list of them (one stream, in order).
    fn read(&self, py: Python<'_>, split: &Bound<'_, PyAny>) -> PyResult<RecordBatchReader> {
        let splits = self.splits_arg(py, split)?;
        self.read_splits(py, splits)
    }

    /// Reads like `read`, for asyncio: `async for batch in reader.read_async(split)`. Storage
    /// is read through async calls and batches are decoded as the loop awaits them (GIL
    /// released); no thread is started. `threads` does not apply: one split at a time.
    fn read_async(
        &self,
        py: Python<'_>,
        split: &Bound<'_, PyAny>,
    ) -> PyResult<AsyncRecordBatchReader> {
        let splits = self.splits_arg(py, split)?;
        let schema = self.output_schema_of(py)?.schema;
        let limit = self.reader.options().limit;
        let batches = async_batches(self.reader.clone(), self.path.clone(), splits, limit);
        Ok(AsyncRecordBatchReader::new(schema, batches))
    }

    /// The Arrow schema of what `read` returns.
    #[getter]
    fn schema(&self, py: Python<'_>) -> PyResult<Schema> {
        self.output_schema_of(py)
    }
}

impl SplitReader {
    /// `split` (a `Split`, split bytes, or a list of them) as splits paimon-data reads.
    fn splits_arg(
        &self,
        py: Python<'_>,
        split: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<paimon_split::Split>> {
        let items: Vec<Bound<'_, PyAny>> = if split.is_instance_of::<pyo3::types::PyList>()
            || split.is_instance_of::<pyo3::types::PyTuple>()
        {
            split.try_iter()?.collect::<PyResult<_>>()?
        } else {
            vec![split.clone()]
        };
        let mut splits = Vec::with_capacity(items.len());
        for it in items {
            let s = match it.extract::<Split>() {
                Ok(s) => s.split,
                Err(_) => {
                    let bytes: Vec<u8> = it.extract().map_err(|_| {
                        invalid("read() takes a paimon_rs.Split, bytes, or a list of them")
                    })?;
                    pyr(paimon_split::decode_any(&bytes))?.split
                }
            };
            splits.push(s);
        }
        let (io, path, branch) = (Arc::clone(&self.io), self.path.clone(), self.branch.clone());
        guard(|| py.detach(|| readable(&io, &path, branch.as_deref(), splits)))
    }

    /// A reader over `reader` for the table at `path` (used by `Scan`).
    pub fn from_parts(
        reader: paimon_data::SplitReader,
        io: FileIORef,
        path: String,
        branch: Option<String>,
    ) -> Self {
        SplitReader {
            reader,
            io,
            path,
            branch,
        }
    }

    /// The Arrow schema `read` returns.
    pub fn output_schema_of(&self, py: Python<'_>) -> PyResult<Schema> {
        let r = self.reader.clone();
        let path = self.path.clone();
        let schema = guard(|| pyr(py.detach(move || r.output_schema(&path))))?;
        Ok(Schema { schema })
    }

    /// Starts reading `splits` (already in a form paimon-data reads).
    pub fn read_splits(
        &self,
        py: Python<'_>,
        splits: Vec<paimon_split::Split>,
    ) -> PyResult<RecordBatchReader> {
        let r = self.reader.clone();
        let path = self.path.clone();
        let batches = guard(|| pyr(py.detach(move || r.read_any_splits(&path, &splits))))?;
        let schema = batches.schema();
        Ok(RecordBatchReader::new(schema, Box::new(batches)))
    }
}

/// `splits` with Java's `IncrementalSplit`s turned into the `DataSplit`s paimon-data reads;
/// other kinds without one data split are `UnsupportedError`.
fn readable(
    io: &FileIORef,
    path: &str,
    branch: Option<&str>,
    splits: Vec<paimon_split::Split>,
) -> PyResult<Vec<paimon_split::Split>> {
    let mut table = None;
    let mut out = Vec::with_capacity(splits.len());
    for s in splits {
        let s = match s {
            paimon_split::Split::Incremental(inc) => {
                if table.is_none() {
                    let t = pyr(paimon_meta::Table::open(Arc::clone(io), path))?;
                    table = Some(match branch {
                        Some(b) => pyr(t.with_branch(b))?,
                        None => t,
                    });
                }
                let Some(t) = &table else {
                    return Err(InternalError::new_err("table not opened"));
                };
                paimon_split::Split::Data(pyr(paimon_meta::scan::incremental_as_data_split(
                    t, inc,
                ))?)
            }
            other => other,
        };
        if s.data_split().is_none() {
            return Err(UnsupportedError::new_err(format!(
                "a {} split holds no single DataSplit to read",
                s.kind_name()
            )));
        }
        out.push(s);
    }
    Ok(out)
}

/// Record batches from a read, consumed once: through `__arrow_c_stream__` (zero-copy into
/// pyarrow, polars, duckdb, ...), or `read_all()` / the Python-side `to_arrow()`.
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct RecordBatchReader {
    schema: SchemaRef,
    batches: Mutex<Option<Stream>>,
}

impl RecordBatchReader {
    fn new(schema: SchemaRef, batches: Batches) -> Self {
        RecordBatchReader {
            schema: Arc::clone(&schema),
            batches: Mutex::new(Some(Stream { schema, batches })),
        }
    }

    fn take(&self) -> PyResult<Stream> {
        self.batches
            .lock()
            .ok()
            .and_then(|mut g| g.take())
            .ok_or_else(|| invalid("this RecordBatchReader has already been consumed"))
    }
}

#[pymethods]
impl RecordBatchReader {
    /// The batches as an `arrow_array_stream` PyCapsule (Arrow PyCapsule interface). Errors
    /// while reading surface in the consumer with the paimon-rs message naming the file.
    /// `requested_schema` is not applied: the stream has the schema of `schema`.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        stream_capsule(py, Box::new(self.take()?))
    }

    /// The schema as an `arrow_schema` PyCapsule.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_schema__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        schema_capsule(py, &self.schema)
    }

    /// The Arrow schema of the batches.
    #[getter]
    fn schema(&self) -> Schema {
        Schema {
            schema: Arc::clone(&self.schema),
        }
    }

    /// Reads every batch now (GIL released), raising the typed paimon_rs error of the first
    /// failure; returns a reader over the batches in memory.
    pub fn read_all(&self, py: Python<'_>) -> PyResult<RecordBatchReader> {
        let stream = self.take()?;
        let schema = Arc::clone(&stream.schema);
        let batches = guard(|| {
            py.detach(move || {
                stream
                    .batches
                    .collect::<paimon_data::Result<Vec<_>>>()
                    .map_err(|e| e.to_py())
            })
        })?;
        Ok(RecordBatchReader::new(
            schema,
            Box::new(batches.into_iter().map(Ok)),
        ))
    }
}

/// The batches as an Arrow reader for the C stream.
struct Stream {
    schema: SchemaRef,
    batches: Batches,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("schema", &self.schema)
            .finish()
    }
}

impl Iterator for Stream {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        // The consumer calls this through a C function pointer: a panic must not unwind there.
        match catch_unwind(AssertUnwindSafe(|| self.batches.next())) {
            Ok(item) => item.map(|r| r.map_err(|e| ArrowError::ExternalError(Box::new(e)))),
            Err(_) => Some(Err(ArrowError::ExternalError(
                "internal error (a bug in paimon-rs): a panic while reading".into(),
            ))),
        }
    }
}

impl ArrowReader for Stream {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}
