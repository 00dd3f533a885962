//! `paimon_rs.Catalog`: a warehouse of Paimon tables (`<warehouse>/<db>.db/<table>`) as a
//! DataFusion catalog for the `datafusion` Python package, where it answers
//! `catalog.<db>.<table>` (with the branch and system-table suffixes paimon-datafusion parses).

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::catalog::CatalogProvider;
use paimon_datafusion::PaimonCatalogProvider;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use paimon_data::arrow_schema::from_arrow_field;
use paimon_spec::schema::{TableSchema, CURRENT_VERSION};
use paimon_spec::types::DataField;

use crate::arrow_import::schema_of;
use crate::convert::{file_io, location_arg, options_arg, table_location};
use crate::datafusion_export;
use crate::errors::{invalid, py as pyr, NotFoundError};
use crate::reader::guard;
use crate::table::Table;

/// A Paimon warehouse (a directory of `<db>.db` databases) as a DataFusion catalog:
/// `SessionContext.register_catalog_provider("paimon", Catalog("/wh"))`, then
/// `SELECT ... FROM paimon.db.t`.
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct Catalog {
    warehouse: String,
    options: BTreeMap<String, String>,
    catalog: paimon_meta::Catalog,
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
        let catalog = paimon_meta::Catalog::new(Arc::clone(&io), &warehouse);
        let provider = PaimonCatalogProvider::with_io(io, &warehouse);
        Ok(Catalog {
            warehouse,
            options,
            catalog,
            provider: Arc::new(provider),
        })
    }

    /// The warehouse's location.
    #[getter]
    fn warehouse(&self) -> &str {
        &self.warehouse
    }

    /// Creates the table `identifier` (`"db.table"`, at `<warehouse>/db.db/table`) with the
    /// columns of `schema` (a `pyarrow.Schema` or anything with `__arrow_c_schema__`; a
    /// non-nullable field becomes NOT NULL, primary keys always are) and returns it. `options`
    /// are table options (`bucket`, `file.format`, `merge-engine`, ...). `schema-0` is written
    /// as Java's `SchemaManager.createTable` writes it; Java's schema checks apply (keys are
    /// fields, the primary key holds the partition keys, a bucketed append table has a
    /// `bucket-key`, ...) and raise `InvalidArgumentError`. With `if_not_exists` an existing
    /// table is returned unchanged.
    #[pyo3(signature = (identifier, schema, primary_keys=None, partition_keys=None,
                        options=None, comment=None, if_not_exists=false))]
    #[allow(clippy::too_many_arguments)]
    fn create_table(
        &self,
        py: Python<'_>,
        identifier: &str,
        schema: &Bound<'_, PyAny>,
        primary_keys: Option<Vec<String>>,
        partition_keys: Option<Vec<String>>,
        options: Option<BTreeMap<String, String>>,
        comment: Option<String>,
        if_not_exists: bool,
    ) -> PyResult<Table> {
        let (db, name) = identifier
            .split_once('.')
            .filter(|(d, t)| !d.is_empty() && !t.is_empty() && !t.contains('.'))
            .ok_or_else(|| invalid(format!("identifier {identifier:?}: expected \"db.table\"")))?;
        let arrow = schema_of(schema, "schema")?;
        let fields = arrow
            .fields()
            .iter()
            .map(|f| pyr(from_arrow_field(f)).map(|ty| DataField::new(-1, f.name(), ty)))
            .collect::<PyResult<Vec<_>>>()?;
        let schema = TableSchema {
            version: CURRENT_VERSION,
            id: 0,
            fields,
            highest_field_id: -1,
            partition_keys: partition_keys.unwrap_or_default(),
            primary_keys: primary_keys.unwrap_or_default(),
            options: options.unwrap_or_default(),
            comment,
            time_millis: 0,
        };
        let table =
            guard(
                || pyr(py.detach(|| self.catalog.create_table(db, name, schema, if_not_exists))),
            )?;
        Ok(Table {
            table,
            options: self.options.clone(),
        })
    }

    /// Opens the table `identifier` (`"db.table"`, `"db.table$branch_b"`); raises
    /// `NotFoundError` when there is none.
    fn get_table(&self, py: Python<'_>, identifier: &str) -> PyResult<Table> {
        let (db, name) = identifier
            .split_once('.')
            .ok_or_else(|| invalid(format!("identifier {identifier:?}: expected \"db.table\"")))?;
        let table = guard(|| pyr(py.detach(|| self.catalog.get_table(db, name))))?;
        Ok(Table {
            table,
            options: self.options.clone(),
        })
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
