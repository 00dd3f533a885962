//! DataFusion's FFI: `Table` and `Catalog` hand paimon-datafusion's providers to the
//! `datafusion` Python package (`__datafusion_table_provider__`,
//! `__datafusion_catalog_provider__`), which then plans and runs queries over them with filter,
//! projection and limit pushdown, our scan running inside this module.
//!
//! The FFI structs are `repr(C)` only within one major version of `datafusion-ffi`: a consumer
//! of another major reads them with another layout and crashes the process. So every capsule is
//! handed out only after the installed `datafusion` package's major is checked against the
//! `datafusion-ffi` this module was built with.

use std::ffi::CStr;
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};

use datafusion::catalog::{CatalogProvider, TableProvider};
use datafusion_ffi::catalog_provider::FFI_CatalogProvider;
use datafusion_ffi::proto::logical_extension_codec::FFI_LogicalExtensionCodec;
use datafusion_ffi::table_provider::FFI_TableProvider;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use tokio::runtime::{Handle, Runtime};

use crate::errors::{invalid, InternalError, UnsupportedError};

const TABLE_CAPSULE: &CStr = c"datafusion_table_provider";
const CATALOG_CAPSULE: &CStr = c"datafusion_catalog_provider";
const CODEC_CAPSULE: &CStr = c"datafusion_logical_extension_codec";
const CODEC_METHOD: &str = "__datafusion_logical_extension_codec__";

/// The Python package whose FFI consumes our capsules, and the attribute naming its version.
const CONSUMER_MODULE: &str = "datafusion";
const CONSUMER_VERSION_ATTR: &str = "__version__";

/// The tokio runtime our providers plan and stream on; DataFusion's Python package calls into
/// them from its own threads, so they carry this runtime's handle.
static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

fn runtime_handle() -> PyResult<Handle> {
    let rt = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .thread_name("paimon-datafusion")
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    });
    match rt {
        Ok(rt) => Ok(rt.handle().clone()),
        Err(e) => Err(InternalError::new_err(format!(
            "cannot start the tokio runtime of the DataFusion providers: {e}"
        ))),
    }
}

/// The major version of `datafusion-ffi` this module was built with.
fn ffi_major() -> u64 {
    datafusion_ffi::version()
}

/// Refuses to go on unless the installed `datafusion` package has our FFI major.
fn check_consumer_version(py: Python<'_>) -> PyResult<()> {
    let ours = ffi_major();
    let wanted = format!("install datafusion>={ours},<{}", ours + 1);
    let module = py.import(CONSUMER_MODULE).map_err(|e| {
        UnsupportedError::new_err(format!(
            "cannot check the datafusion Python package's version ({e}); paimon_rs exchanges \
             tables through datafusion-ffi {ours}: {wanted}"
        ))
    })?;
    let version: String = module.getattr(CONSUMER_VERSION_ATTR)?.extract()?;
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.trim().parse::<u64>().ok());
    if major == Some(ours) {
        return Ok(());
    }
    Err(UnsupportedError::new_err(format!(
        "the installed datafusion Python package is {version}, but paimon_rs exchanges tables \
         through datafusion-ffi {ours} and another major version has another FFI layout: \
         {wanted}"
    )))
}

/// The logical extension codec of the session asking for a provider: `session` is a
/// DataFusion `SessionContext` (`__datafusion_logical_extension_codec__`) or that codec's
/// capsule itself, as `datafusion` passes either.
fn session_codec(session: &Bound<'_, PyAny>) -> PyResult<FFI_LogicalExtensionCodec> {
    let obj = if session.hasattr(CODEC_METHOD)? {
        session.call_method0(CODEC_METHOD)?
    } else {
        session.clone()
    };
    let capsule = obj.cast::<PyCapsule>().map_err(|_| {
        invalid(format!(
            "session: expected a datafusion SessionContext or a \
             datafusion_logical_extension_codec capsule, got {}",
            obj.get_type()
        ))
    })?;
    let ptr: NonNull<FFI_LogicalExtensionCodec> =
        capsule.pointer_checked(Some(CODEC_CAPSULE))?.cast();
    // SAFETY: the capsule's name (checked by `pointer_checked`) says it holds an
    // FFI_LogicalExtensionCodec, of our layout since the consumer's major was checked; it
    // lives as long as the capsule, which `obj` keeps alive during the clone.
    let codec = unsafe { ptr.as_ref() };
    Ok(codec.clone())
}

/// `provider` as a `datafusion_table_provider` capsule for `session`.
pub fn table_capsule<'py>(
    py: Python<'py>,
    provider: Arc<dyn TableProvider>,
    session: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyCapsule>> {
    check_consumer_version(py)?;
    let codec = session_codec(session)?;
    let ffi = FFI_TableProvider::new_with_ffi_codec(provider, true, Some(runtime_handle()?), codec);
    PyCapsule::new_with_value(py, ffi, TABLE_CAPSULE)
}

/// `provider` as a `datafusion_catalog_provider` capsule for `session`.
pub fn catalog_capsule<'py>(
    py: Python<'py>,
    provider: Arc<dyn CatalogProvider>,
    session: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyCapsule>> {
    check_consumer_version(py)?;
    let codec = session_codec(session)?;
    let ffi = FFI_CatalogProvider::new_with_ffi_codec(provider, Some(runtime_handle()?), codec);
    PyCapsule::new_with_value(py, ffi, CATALOG_CAPSULE)
}
