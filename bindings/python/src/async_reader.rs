//! `SplitReader.read_async`: a read for asyncio callers. `async for batch in reader` pulls
//! batches from paimon-data's async stream (`SplitReader::read_async`): storage is read
//! through the `FileIO`'s async calls (an object store's requests run on its I/O runtime and
//! wake the event loop when done), and batches are decoded while the coroutine is polled, with
//! the GIL released; no thread is started for the read.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch as ArrowBatch;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use pyo3::exceptions::PyStopAsyncIteration;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::arrow_export::{batch_capsules, schema_capsule, Schema};
use crate::errors::ToPyErr;

type Batches = BoxStream<'static, paimon_data::Result<ArrowBatch>>;

/// The batches of `splits` read one after the other with paimon-data's async stream
/// (paimon-rs's [`paimon_rs::scan::split_stream`]), at most `limit` rows in all, ending after
/// an error; polled with the GIL released.
pub fn batches(
    reader: paimon_data::SplitReader,
    path: String,
    splits: Vec<paimon_split::Split>,
    limit: Option<usize>,
) -> Batches {
    Detached(paimon_rs::scan::split_stream(reader, path, splits, limit)).boxed()
}

/// A stream polled with the GIL released (decoding happens inside `poll_next`).
struct Detached(Batches);

impl Stream for Detached {
    type Item = paimon_data::Result<ArrowBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let waker = cx.waker().clone();
        let inner = &mut self.0;
        Python::attach(|py| {
            py.detach(|| {
                let mut cx = Context::from_waker(&waker);
                inner.poll_next_unpin(&mut cx)
            })
        })
    }
}

/// Record batches of a read for asyncio: `async for batch in reader` (each a
/// `paimon_rs.RecordBatch`, which `pyarrow.record_batch(batch)` takes zero-copy).
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
pub struct AsyncRecordBatchReader {
    schema: SchemaRef,
    batches: Arc<futures::lock::Mutex<Batches>>,
}

impl AsyncRecordBatchReader {
    pub fn new(schema: SchemaRef, batches: Batches) -> Self {
        AsyncRecordBatchReader {
            schema,
            batches: Arc::new(futures::lock::Mutex::new(batches)),
        }
    }
}

#[pymethods]
impl AsyncRecordBatchReader {
    fn __aiter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// An awaitable of the next batch; it raises `StopAsyncIteration` after the last one and
    /// the typed paimon_rs error of a failed read.
    fn __anext__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.call_method0("next_batch")
    }

    /// The next batch, or `StopAsyncIteration` after the last.
    async fn next_batch(&self) -> PyResult<RecordBatch> {
        let batches = Arc::clone(&self.batches);
        let next = async move { batches.lock().await.next().await }.await;
        match next {
            None => Err(PyStopAsyncIteration::new_err(())),
            Some(Ok(batch)) => Ok(RecordBatch { batch }),
            Some(Err(e)) => Err(e.to_py()),
        }
    }

    /// The Arrow schema of the batches.
    #[getter]
    fn schema(&self) -> Schema {
        Schema {
            schema: Arc::clone(&self.schema),
        }
    }
}

/// One record batch, handed to Arrow libraries through `__arrow_c_array__`
/// (`pyarrow.record_batch(batch)`, polars, ...) without copying.
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
pub struct RecordBatch {
    batch: ArrowBatch,
}

#[pymethods]
impl RecordBatch {
    /// The batch as a pair of `arrow_schema` and `arrow_array` PyCapsules (a struct array of
    /// the columns; Arrow PyCapsule interface). `requested_schema` is not applied.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        batch_capsules(py, &self.batch)
    }

    /// The batch's schema as an `arrow_schema` PyCapsule.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_schema__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        schema_capsule(py, &self.batch.schema())
    }

    /// Rows in the batch.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }
}
