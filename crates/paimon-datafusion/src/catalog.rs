//! [`PaimonCatalogProvider`]: a filesystem warehouse as a DataFusion catalog. Databases are
//! the `<db>.db` directories, tables the directories in them holding a `schema` directory
//! (Java `FileSystemCatalog`). Table names take Java's suffixes ([`TableName`]).

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, SchemaProvider};
use datafusion::datasource::TableProvider;
use datafusion::error::Result;
use paimon_io::{file_io_for, FileIORef};
use paimon_meta::Catalog;

use crate::error::df_err;
use crate::scan_spec::TableName;
use crate::system::system_table;
use crate::table::{off_runtime, PaimonTableProvider};

/// A warehouse directory (any FileIO scheme) as a catalog of databases.
#[derive(Debug, Clone)]
pub struct PaimonCatalogProvider {
    warehouse: String,
    catalog: Catalog,
}

impl PaimonCatalogProvider {
    /// The catalog of `warehouse`.
    ///
    /// # Errors
    /// When no storage serves the warehouse's scheme.
    pub fn new(warehouse: &str) -> Result<Self> {
        let warehouse = warehouse.trim_end_matches('/').to_string();
        let io = file_io_for(&warehouse).map_err(|e| df_err(&warehouse, e))?;
        Ok(Self::with_io(io, &warehouse))
    }

    /// The catalog of `warehouse` on storage `io`.
    pub fn with_io(io: FileIORef, warehouse: &str) -> Self {
        PaimonCatalogProvider {
            warehouse: warehouse.trim_end_matches('/').to_string(),
            catalog: Catalog::new(io, warehouse),
        }
    }

    /// The warehouse directory.
    pub fn warehouse(&self) -> &str {
        &self.warehouse
    }

    /// The provider of `db.name` (with its suffixes), `None` when there is no such table.
    ///
    /// # Errors
    /// When the name is malformed or the table cannot be read.
    pub fn table_provider(&self, db: &str, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let parsed = TableName::parse(name)?;
        let path = self.catalog.table_path(db, &parsed.table);
        let io = self.catalog.file_io();
        let schema_dir = paimon_io::join(&path, paimon_spec::layout::SCHEMA_DIR);
        if !io.exists(&schema_dir).map_err(|e| df_err(&path, e))? {
            return Ok(None);
        }
        match parsed.system.as_deref() {
            None | Some("audit_log") => Ok(Some(Arc::new(PaimonTableProvider::open_io(
                Arc::clone(io),
                &path,
                parsed.spec,
            )?))),
            Some(system) => system_table(&path, parsed.spec.branch.as_deref(), system)?
                .map(Some)
                .ok_or_else(|| df_err(&path, format!("no system table '{system}'"))),
        }
    }
}

impl CatalogProvider for PaimonCatalogProvider {
    fn schema_names(&self) -> Vec<String> {
        self.catalog.list_databases().unwrap_or_default()
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        let path = self.catalog.database_path(name);
        matches!(self.catalog.file_io().exists(&path), Ok(true)).then(|| {
            Arc::new(PaimonSchemaProvider {
                catalog: self.clone(),
                database: name.to_string(),
            }) as Arc<dyn SchemaProvider>
        })
    }
}

/// One database of a [`PaimonCatalogProvider`].
#[derive(Debug, Clone)]
pub struct PaimonSchemaProvider {
    catalog: PaimonCatalogProvider,
    database: String,
}

#[async_trait]
impl SchemaProvider for PaimonSchemaProvider {
    fn table_names(&self) -> Vec<String> {
        self.catalog
            .catalog
            .list_tables(&self.database)
            .unwrap_or_default()
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let this = self.clone();
        let name = name.to_string();
        off_runtime(move || this.catalog.table_provider(&this.database, &name)).await
    }

    fn table_exist(&self, name: &str) -> bool {
        let Ok(parsed) = TableName::parse(name) else {
            return false;
        };
        let path = self
            .catalog
            .catalog
            .table_path(&self.database, &parsed.table);
        let schema_dir = paimon_io::join(&path, paimon_spec::layout::SCHEMA_DIR);
        matches!(self.catalog.catalog.file_io().exists(&schema_dir), Ok(true))
    }
}
