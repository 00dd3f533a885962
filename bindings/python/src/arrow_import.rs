//! Arrow data from Python, through the Arrow PyCapsule interface: anything with
//! `__arrow_c_stream__` (a pyarrow Table or RecordBatchReader, polars, duckdb results) or
//! `__arrow_c_array__` (a pyarrow RecordBatch or struct array) is taken without copying; other
//! objects (a pandas DataFrame, a dict of lists) go through `pyarrow.table(...)` when pyarrow is
//! installed.
//!
//! The struct a capsule owns is moved out (its `release` set to null), so the capsule's
//! destructor no longer frees it and the Rust side owns the data.

use arrow::array::{Array, RecordBatch, StructArray};
use arrow::error::ArrowError;
use arrow::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

use crate::errors::invalid;

const SCHEMA_CAPSULE: &std::ffi::CStr = c"arrow_schema";
const ARRAY_CAPSULE: &std::ffi::CStr = c"arrow_array";
const STREAM_CAPSULE: &std::ffi::CStr = c"arrow_array_stream";

/// Batches pulled from a Python object's Arrow data.
pub type Batches = Box<dyn Iterator<Item = Result<RecordBatch, ArrowError>> + Send>;

/// The batches of `data` (see the module docs); `what` names the argument in errors.
///
/// # Errors
/// `InvalidArgumentError` when `data` is no Arrow data and pyarrow cannot make it one.
pub fn batches_of(data: &Bound<'_, PyAny>, what: &str) -> PyResult<Batches> {
    if data.hasattr("__arrow_c_stream__")? {
        return stream_of(&data.call_method0("__arrow_c_stream__")?, what);
    }
    if data.hasattr("__arrow_c_array__")? {
        let batch = batch_of(&data.call_method0("__arrow_c_array__")?, what)?;
        return Ok(Box::new(std::iter::once(Ok(batch))));
    }
    let converted = data
        .py()
        .import("pyarrow")
        .and_then(|pa| pa.call_method1("table", (data,)))
        .map_err(|e| {
            invalid(format!(
                "{what}: expected Arrow data (an object with __arrow_c_stream__ or \
                 __arrow_c_array__, e.g. a pyarrow Table or RecordBatch), got {} ({e})",
                data.get_type()
            ))
        })?;
    stream_of(&converted.call_method0("__arrow_c_stream__")?, what)
}

/// The struct a capsule named `name` holds (the name is checked, so the pointer's type is).
fn capsule_ptr<T>(
    capsule: &Bound<'_, PyAny>,
    name: &std::ffi::CStr,
    what: &str,
) -> PyResult<std::ptr::NonNull<T>> {
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        invalid(format!(
            "{what}: expected a {} capsule, got {}",
            name.to_string_lossy(),
            capsule.get_type()
        ))
    })?;
    Ok(capsule.pointer_checked(Some(name))?.cast::<T>())
}

/// The stream an `arrow_array_stream` capsule holds.
fn stream_of(capsule: &Bound<'_, PyAny>, what: &str) -> PyResult<Batches> {
    let ptr = capsule_ptr::<FFI_ArrowArrayStream>(capsule, STREAM_CAPSULE, what)?;
    // SAFETY: the name check says the capsule holds an FFI_ArrowArrayStream; `from_raw`
    // moves it out and leaves a released (empty) stream for the capsule's destructor.
    let reader = unsafe { ArrowArrayStreamReader::from_raw(ptr.as_ptr()) }
        .map_err(|e| invalid(format!("{what}: not a valid Arrow stream: {e}")))?;
    Ok(Box::new(reader))
}

/// The record batch an `(arrow_schema, arrow_array)` capsule pair holds (a struct array).
fn batch_of(pair: &Bound<'_, PyAny>, what: &str) -> PyResult<RecordBatch> {
    let bad = || {
        invalid(format!(
            "{what}: __arrow_c_array__ did not return two capsules"
        ))
    };
    let pair = pair.cast::<PyTuple>().map_err(|_| bad())?;
    if pair.len() != 2 {
        return Err(bad());
    }
    let schema_ptr = capsule_ptr::<FFI_ArrowSchema>(&pair.get_item(0)?, SCHEMA_CAPSULE, what)?;
    let array_ptr = capsule_ptr::<FFI_ArrowArray>(&pair.get_item(1)?, ARRAY_CAPSULE, what)?;
    // SAFETY: the names say what the capsules hold. The schema is only borrowed (the capsule
    // keeps owning it); the array is moved out, leaving a released one behind.
    let data = unsafe {
        let ffi_array = FFI_ArrowArray::from_raw(array_ptr.as_ptr());
        from_ffi(ffi_array, schema_ptr.as_ref())
    }
    .map_err(|e| invalid(format!("{what}: not a valid Arrow array: {e}")))?;
    if !matches!(data.data_type(), arrow::datatypes::DataType::Struct(_)) {
        return Err(invalid(format!(
            "{what}: expected a record batch (a struct array), got an array of {}",
            data.data_type()
        )));
    }
    let array = StructArray::from(data);
    if array.null_count() > 0 {
        return Err(invalid(format!(
            "{what}: a struct array with null rows is not a record batch"
        )));
    }
    Ok(RecordBatch::from(array))
}

/// The Arrow schema of an object with `__arrow_c_schema__` (a pyarrow Schema, Field or
/// DataType of struct type).
///
/// # Errors
/// `InvalidArgumentError` when `schema` has no Arrow schema.
pub fn schema_of(schema: &Bound<'_, PyAny>, what: &str) -> PyResult<arrow::datatypes::Schema> {
    if !schema.hasattr("__arrow_c_schema__")? {
        return Err(invalid(format!(
            "{what}: expected an Arrow schema (e.g. a pyarrow.Schema), got {}",
            schema.get_type()
        )));
    }
    let capsule = schema.call_method0("__arrow_c_schema__")?;
    let ptr = capsule_ptr::<FFI_ArrowSchema>(&capsule, SCHEMA_CAPSULE, what)?;
    // SAFETY: the name check says the capsule holds an FFI_ArrowSchema; it is only borrowed,
    // the capsule keeps owning (and later releases) it.
    let ffi = unsafe { ptr.as_ref() };
    arrow::datatypes::Schema::try_from(ffi)
        .map_err(|e| invalid(format!("{what}: not a valid Arrow schema: {e}")))
}
