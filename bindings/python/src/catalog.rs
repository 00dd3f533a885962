//! `paimon_rs.Catalog`: where tables are found by `"db.table"`: a filesystem warehouse
//! (`<warehouse>/<db>.db/<table>`, also a DataFusion catalog for the `datafusion` Python
//! package, where it answers `catalog.<db>.<table>` with the branch and system-table suffixes
//! paimon-datafusion parses) or, from Java's catalog options, a REST catalog server whose
//! tables commit through the server (the facade's `paimon_rs::Catalog::open`).

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::catalog::CatalogProvider;
use paimon_datafusion::PaimonCatalogProvider;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use paimon_data::arrow_schema::from_arrow_field;
use paimon_meta::catalog::{file_io_options, keys};
use paimon_spec::schema::{TableSchema, CURRENT_VERSION};
use paimon_spec::types::DataField;

use crate::arrow_import::schema_of;
use crate::convert::{file_io, location_arg, options_arg, table_location};
use crate::datafusion_export;
use crate::errors::{invalid, py as pyr, NotFoundError};
use crate::reader::guard;
use crate::table::Table;

/// A catalog of tables: a Paimon warehouse (a directory of `<db>.db` databases), or the
/// catalog Java's catalog options name (`metastore = rest`, ...). A warehouse is also a
/// DataFusion catalog: `SessionContext.register_catalog_provider("paimon", Catalog("/wh"))`,
/// then `SELECT ... FROM paimon.db.t`.
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct Catalog {
    /// The warehouse (a location, or the REST catalog's warehouse name).
    warehouse: String,
    /// FileIO options of the tables opened through this catalog.
    options: BTreeMap<String, String>,
    catalog: paimon_rs::Catalog,
    /// The catalog as a DataFusion catalog provider.
    provider: Arc<PaimonCatalogProvider>,
}

#[pymethods]
impl Catalog {
    /// `Catalog(warehouse)` opens the filesystem warehouse at `warehouse`; `options` are
    /// FileIO options, as for `Table.open`. Raises `NotFoundError` when there is no such
    /// directory.
    ///
    /// `Catalog(options={...})` (no warehouse, or options with a `metastore`) opens the
    /// catalog Java's catalog options describe: `metastore` (`filesystem` by default, or
    /// `rest` with `uri`, `token.provider` = `bear`, `token`, `warehouse`, `header.*`); the
    /// other keys are FileIO options. Raises `InvalidArgumentError` for options that name no
    /// catalog, `AuthorizationError` when the server refuses the token, `CatalogError` when
    /// it cannot be reached.
    #[new]
    #[pyo3(signature = (warehouse=None, options=None))]
    fn new(
        py: Python<'_>,
        warehouse: Option<Bound<'_, PyAny>>,
        options: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Catalog> {
        let mut options = options_arg(options.as_ref())?;
        let warehouse = match warehouse {
            Some(w) => Some(table_location(&location_arg(&w, "warehouse")?)),
            None => None,
        };
        match warehouse {
            Some(warehouse) if !options.contains_key(keys::METASTORE) => {
                Catalog::filesystem(py, warehouse, options)
            }
            warehouse => {
                if let Some(w) = warehouse {
                    options.insert(keys::WAREHOUSE.to_string(), w);
                }
                Catalog::open(py, options)
            }
        }
    }

    /// The warehouse's location (a REST catalog's warehouse name).
    #[getter]
    fn warehouse(&self) -> &str {
        &self.warehouse
    }

    /// Database names, sorted.
    fn list_databases(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        guard(|| pyr(py.detach(|| self.catalog.list_databases())))
    }

    /// The tables of `database`, sorted; raises `NotFoundError` when there is no such
    /// database.
    fn list_tables(&self, py: Python<'_>, database: &str) -> PyResult<Vec<String>> {
        guard(|| pyr(py.detach(|| self.catalog.list_tables(database))))
    }

    /// Creates the database `name` with `options` (its properties); raises
    /// `AlreadyExistsError` when it exists, unless `if_not_exists`.
    #[pyo3(signature = (name, if_not_exists=false, options=None))]
    fn create_database(
        &self,
        py: Python<'_>,
        name: &str,
        if_not_exists: bool,
        options: Option<BTreeMap<String, String>>,
    ) -> PyResult<()> {
        let options = options.unwrap_or_default();
        guard(|| pyr(py.detach(|| self.catalog.create_database(name, if_not_exists, &options))))
    }

    /// Drops the database `name` (with `cascade`, its tables too); raises `NotFoundError`
    /// when there is none, unless `if_exists`.
    #[pyo3(signature = (name, if_exists=false, cascade=false))]
    fn drop_database(
        &self,
        py: Python<'_>,
        name: &str,
        if_exists: bool,
        cascade: bool,
    ) -> PyResult<()> {
        guard(|| pyr(py.detach(|| self.catalog.drop_database(name, if_exists, cascade))))
    }

    /// Drops the table `identifier` (`"db.table"`) and its files; raises `NotFoundError`
    /// when there is none, unless `if_exists`.
    #[pyo3(signature = (identifier, if_exists=false))]
    fn drop_table(&self, py: Python<'_>, identifier: &str, if_exists: bool) -> PyResult<()> {
        guard(|| pyr(py.detach(|| self.catalog.drop_table(identifier, if_exists))))
    }

    /// Renames the table `source` to `target` (both `"db.table"`); raises `NotFoundError`
    /// when there is no `source` (unless `if_exists`), `AlreadyExistsError` when `target`
    /// exists, `UnsupportedError` in a filesystem warehouse (which cannot rename).
    #[pyo3(signature = (source, target, if_exists=false))]
    fn rename_table(
        &self,
        py: Python<'_>,
        source: &str,
        target: &str,
        if_exists: bool,
    ) -> PyResult<()> {
        guard(|| pyr(py.detach(|| self.catalog.rename_table(source, target, if_exists))))
    }

    /// Creates the table `identifier` (`"db.table"`) with the columns of `schema` (a
    /// `pyarrow.Schema` or anything with `__arrow_c_schema__`; a non-nullable field becomes
    /// NOT NULL, primary keys always are) and returns it. `options` are table options
    /// (`bucket`, `file.format`, `merge-engine`, ...). In a warehouse `schema-0` is written as
    /// Java's `SchemaManager.createTable` writes it; Java's schema checks apply (keys are
    /// fields, the primary key holds the partition keys, a bucketed append table has a
    /// `bucket-key`, ...) and raise `InvalidArgumentError`. With `if_not_exists` an existing
    /// table is returned unchanged, else it raises `AlreadyExistsError`.
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
        // Ids 0.. in column order, as Java's `Schema` builder numbers them (a REST server
        // takes the ids it is sent).
        let fields = (0..)
            .zip(arrow.fields().iter())
            .map(|(id, f)| pyr(from_arrow_field(f)).map(|ty| DataField::new(id, f.name(), ty)))
            .collect::<PyResult<Vec<_>>>()?;
        let highest_field_id = fields.iter().map(|f| f.id).max().unwrap_or(-1);
        let schema = TableSchema {
            version: CURRENT_VERSION,
            id: 0,
            fields,
            highest_field_id,
            partition_keys: partition_keys.unwrap_or_default(),
            primary_keys: primary_keys.unwrap_or_default(),
            options: options.unwrap_or_default(),
            comment,
            time_millis: 0,
        };
        let table = match self.catalog.meta() {
            Some(fs) => {
                guard(|| pyr(py.detach(|| fs.create_table(db, name, schema, if_not_exists))))?
            }
            None => guard(|| {
                pyr(py.detach(|| {
                    self.catalog
                        .create_table(identifier, schema, if_not_exists)
                        .and_then(|()| self.catalog.table(identifier))
                }))
            })?
            .meta()
            .clone(),
        };
        Ok(self.table(table))
    }

    /// Opens the table `identifier` (`"db.table"`, `"db.table$branch_b"`); raises
    /// `NotFoundError` when there is none. A table of a REST catalog commits through the
    /// server.
    fn get_table(&self, py: Python<'_>, identifier: &str) -> PyResult<Table> {
        let table = match self.catalog.meta() {
            Some(fs) => {
                let (db, name) = identifier.split_once('.').ok_or_else(|| {
                    invalid(format!("identifier {identifier:?}: expected \"db.table\""))
                })?;
                guard(|| pyr(py.detach(|| fs.get_table(db, name))))?
            }
            None => guard(|| pyr(py.detach(|| self.catalog.table(identifier))))?
                .meta()
                .clone(),
        };
        Ok(self.table(table))
    }

    /// The warehouse as a DataFusion catalog provider, for the `datafusion` Python package
    /// (`SessionContext.register_catalog_provider` calls this with its session's codec).
    /// Any catalog is one (REST, JDBC, Hive: its tables commit through it and are read under
    /// its query auth). Raises `UnsupportedError` when the installed `datafusion` has another
    /// major version than the DataFusion FFI this module was built with.
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

impl Catalog {
    /// The filesystem warehouse at `warehouse` on the storage `options` configure.
    fn filesystem(
        py: Python<'_>,
        warehouse: String,
        options: BTreeMap<String, String>,
    ) -> PyResult<Catalog> {
        let io = file_io(&warehouse, &options)?;
        let exists = guard(|| pyr(py.detach(|| io.exists(&warehouse))))?;
        if !exists {
            return Err(NotFoundError::new_err(format!(
                "{warehouse}: no such warehouse directory"
            )));
        }
        let catalog = paimon_rs::Catalog::new(Arc::clone(&io), &warehouse);
        let provider = PaimonCatalogProvider::with_io(io, &warehouse);
        Ok(Catalog {
            warehouse,
            options,
            catalog,
            provider: Arc::new(provider),
        })
    }

    /// The catalog Java's catalog `options` describe (the facade's `Catalog::open`).
    fn open(py: Python<'_>, options: BTreeMap<String, String>) -> PyResult<Catalog> {
        let catalog = guard(|| pyr(py.detach(|| paimon_rs::Catalog::open(options.clone()))))?;
        let warehouse = options
            .get(keys::WAREHOUSE)
            .map(|w| table_location(w))
            .unwrap_or_default();
        let provider = Arc::new(match catalog.meta() {
            Some(fs) => PaimonCatalogProvider::with_io(Arc::clone(fs.file_io()), &warehouse),
            // Tables commit through the catalog (REST commit, JDBC or Hive lock) and scans
            // carry its query auth.
            None => PaimonCatalogProvider::with_catalog(Arc::clone(catalog.catalog())),
        });
        Ok(Catalog {
            warehouse,
            options: file_io_options(&options),
            catalog,
            provider,
        })
    }

    /// `table` as a Python `Table` with this catalog's FileIO options.
    fn table(&self, table: paimon_meta::Table) -> Table {
        Table {
            table,
            options: self.options.clone(),
        }
    }
}
