//! `paimon_rs._paimon_rs`: the Rust half of the `paimon_rs` Python package.
//!
//! A thin layer over the library crates: `paimon-meta` plans (`table`, `scan`), splits
//! travel as Java's bytes (`split`), `paimon-data` reads them into Arrow handed to Python
//! zero-copy through the Arrow C stream interface (`reader`, `arrow_export`); tables and
//! warehouses go to the `datafusion` Python package through DataFusion's FFI (`catalog`,
//! `datafusion_export`). Writes go the other way (`write`): Arrow from Python (`arrow_import`)
//! into `paimon-write`'s data files, whose commit-message bytes `paimon-meta` commits. The GIL
//! is released while Rust plans, reads or writes. Errors map onto one exception hierarchy
//! (`errors`).
//! The pure-Python half (`python/paimon_rs`) adds the pyarrow/pandas conveniences and Ray.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod allocator;
mod arrow_export;
mod arrow_import;
mod async_reader;
mod catalog;
mod convert;
mod datafusion_export;
mod errors;
mod maintenance;
mod reader;
mod scan;
mod split;
mod table;
mod versions;
mod write;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _paimon_rs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    allocator::configure();
    errors::register(m)?;
    m.add_class::<table::Table>()?;
    m.add_class::<catalog::Catalog>()?;
    m.add_class::<scan::Scan>()?;
    m.add_class::<versions::ChangeStream>()?;
    m.add_class::<scan::Plan>()?;
    m.add_class::<split::Split>()?;
    m.add_class::<reader::SplitReader>()?;
    m.add_class::<reader::RecordBatchReader>()?;
    m.add_class::<async_reader::AsyncRecordBatchReader>()?;
    m.add_class::<async_reader::RecordBatch>()?;
    m.add_class::<arrow_export::Schema>()?;
    m.add_class::<write::TableWrite>()?;
    m.add_class::<write::TableCommit>()?;
    m.add_function(wrap_pyfunction!(
        maintenance::run_compact_task_with_context,
        m
    )?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
