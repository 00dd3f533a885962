//! `paimon_rs.Catalog`: a warehouse of Paimon tables (`<warehouse>/<db>.db/<table>`) as a
//! DataFusion catalog for the `datafusion` Python package, where it answers
//! `catalog.<db>.<table>` (with the branch and system-table suffixes paimon-datafusion parses).

use std::sync::Arc;

use datafusion::catalog::CatalogProvider;
use paimon_datafusion::PaimonCatalogProvider;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::convert::{file_io, location_arg, options_arg, table_location};
use crate::datafusion_export;
use crate::errors::{py as pyr, NotFoundError};
use crate::reader::guard;

/// A Paimon warehouse (a directory of `<db>.db` databases) as a DataFusion catalog:
/// `SessionContext.register_catalog_provider("paimon", Catalog("/wh"))`, then
/// `SELECT ... FROM paimon.db.t`.
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct Catalog {
    warehouse: String,
    provider: Arc<PaimonCatalogProvider>,
}

#[pymethods]
impl Catalog {
    /// Opens the warehouse at `warehouse`; `options` are FileIO options, as for `Table.open`.
    /// Raises `NotFoundError` when there is no such directory.
    #[new]
    #[pyo3(signature = (warehouse, options=None))]
    fn new(
        py: Python<'_>,
        warehouse: &Bound<'_, PyAny>,
        options: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Catalog> {
        let options = options_arg(options.as_ref())?;
        let warehouse = location_arg(warehouse, "warehouse")?;
        let warehouse = table_location(&warehouse);
        let io = file_io(&warehouse, &options)?;
        let exists = guard(|| pyr(py.detach(|| io.exists(&warehouse))))?;
        if !exists {
            return Err(NotFoundError::new_err(format!(
                "{warehouse}: no such warehouse directory"
            )));
        }
        let provider = PaimonCatalogProvider::with_io(io, &warehouse);
        Ok(Catalog {
            warehouse,
            provider: Arc::new(provider),
        })
    }

    /// The warehouse's location.
    #[getter]
    fn warehouse(&self) -> &str {
        &self.warehouse
    }

    /// The warehouse as a DataFusion catalog provider, for the `datafusion` Python package
    /// (`SessionContext.register_catalog_provider` calls this with its session's codec).
    /// Raises `UnsupportedError` when the installed `datafusion` has another major version
    /// than the DataFusion FFI this module was built with.
    fn __datafusion_catalog_provider__<'py>(
        &self,
        py: Python<'py>,
        session: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let provider: Arc<dyn CatalogProvider> = Arc::clone(&self.provider) as _;
        datafusion_export::catalog_capsule(py, provider, &session)
    }

    fn __repr__(&self) -> String {
        format!("paimon_rs.Catalog({:?})", self.warehouse)
    }
}
