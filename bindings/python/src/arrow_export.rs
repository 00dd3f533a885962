//! The Arrow PyCapsule interface: `__arrow_c_schema__`, `__arrow_c_array__` and
//! `__arrow_c_stream__` hand Arrow C structs to any consumer (pyarrow, polars, duckdb,
//! datafusion) without copying data.
//!
//! A capsule owns its struct; a consumer moves it out (setting its `release` to null), and the
//! capsule's destructor releases a struct nobody took, as the interface specifies.

use arrow::array::{Array, StructArray};
use arrow::datatypes::SchemaRef;
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow::ffi_stream::FFI_ArrowArrayStream;
use arrow::record_batch::{RecordBatch, RecordBatchReader as ArrowReader};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::errors::InternalError;

const SCHEMA_CAPSULE: &std::ffi::CStr = c"arrow_schema";
const STREAM_CAPSULE: &std::ffi::CStr = c"arrow_array_stream";
const ARRAY_CAPSULE: &std::ffi::CStr = c"arrow_array";

/// An Arrow schema. Pass it to `pyarrow.schema(...)` (or any consumer of the Arrow PyCapsule
/// interface) to get that library's schema object.
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct Schema {
    pub(crate) schema: SchemaRef,
}

#[pymethods]
impl Schema {
    /// The schema as an `arrow_schema` PyCapsule (Arrow PyCapsule interface).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_schema__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        schema_capsule(py, &self.schema)
    }

    /// The column names, in order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    fn __len__(&self) -> usize {
        self.schema.fields().len()
    }

    fn __repr__(&self) -> String {
        let cols: Vec<String> = self
            .schema
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect();
        format!("paimon_rs.Schema({})", cols.join(", "))
    }
}

/// `schema` as an `arrow_schema` capsule.
pub fn schema_capsule<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| InternalError::new_err(format!("cannot export the Arrow schema: {e}")))?;
    PyCapsule::new_with_value(py, ffi, SCHEMA_CAPSULE)
}

/// `batch` as the `(arrow_schema, arrow_array)` capsule pair of `__arrow_c_array__`: a struct
/// array of its columns.
pub fn batch_capsules<'py>(
    py: Python<'py>,
    batch: &RecordBatch,
) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
    let data = StructArray::from(batch.clone()).into_data();
    let schema = FFI_ArrowSchema::try_from(data.data_type())
        .map_err(|e| InternalError::new_err(format!("cannot export the Arrow schema: {e}")))?;
    let array = FFI_ArrowArray::new(&data);
    Ok((
        PyCapsule::new_with_value(py, schema, SCHEMA_CAPSULE)?,
        PyCapsule::new_with_value(py, array, ARRAY_CAPSULE)?,
    ))
}

/// `reader` as an `arrow_array_stream` capsule; batches are pulled by the consumer.
pub fn stream_capsule<'py>(
    py: Python<'py>,
    reader: Box<dyn ArrowReader + Send>,
) -> PyResult<Bound<'py, PyCapsule>> {
    PyCapsule::new_with_value(py, FFI_ArrowArrayStream::new(reader), STREAM_CAPSULE)
}
