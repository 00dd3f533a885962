//! [`PaimonCatalogProvider`]: a filesystem warehouse, or any paimon-meta catalog (REST, JDBC,
//! Hive: [`PaimonCatalogProvider::with_catalog`]), as a DataFusion catalog. In a warehouse,
//! databases are the `<db>.db` directories, tables the directories in them holding a `schema`
//! directory (Java `FileSystemCatalog`); in another catalog, what it lists, each table opened
//! through it, so that its commits go through the catalog (the REST server's commit, the JDBC
//! or Hive lock) and its scans carry the catalog's query auth. Table names take Java's
//! suffixes ([`TableName`]).
//!
//! Names from SQL are checked before they become paths ([`PaimonCatalogProvider::table_dir`]):
//! a database or table name (quoted identifiers can hold anything) must be one plain name,
//! as must a branch or tag, and the table directory must lie under the warehouse
//! ([`TableRoots::check_in_table`]). Java's `Identifier` splits an object name at `$` into
//! table, `branch_<name>` and system table, and leaves the rest to its file system; here a
//! `/`, `\`, NUL, an empty name, `.` or `..` is refused, naming the identifier.
//!
//! Views and external tables a session creates (`CREATE VIEW`, `CREATE EXTERNAL TABLE`) live
//! in the catalog's memory for its lifetime, beside the warehouse's tables; `CREATE TABLE`,
//! `CREATE DATABASE` and their `DROP`s change the warehouse, or call the catalog
//! (`crate::ddl`, run by [`crate::sql::run`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, SchemaProvider};
use datafusion::datasource::TableProvider;
use datafusion::error::{DataFusionError, Result};
use paimon_io::{file_io_for, FileIORef};
use paimon_meta::catalog::{Catalog as MetaCatalog, Identifier};
use paimon_meta::{Catalog, Table};
use paimon_spec::layout::{check_file_name, TableRoots};

use crate::error::df_err;
use crate::scan_spec::TableName;
use crate::system::{system_table, system_table_of};
use crate::table::{off_runtime, PaimonTableProvider};

/// A catalog of databases: a warehouse directory (any FileIO scheme), or any paimon-meta
/// [`MetaCatalog`] (REST, JDBC, Hive, ...) whose tables are opened by `db.table` and carry
/// the catalog's commit (REST commit, the JDBC or Hive lock) and query auth.
#[derive(Debug, Clone)]
pub struct PaimonCatalogProvider {
    /// The warehouse directory, or the catalog's location (a URI) for messages.
    warehouse: String,
    /// The filesystem catalog, when this is a warehouse directory.
    fs: Option<Catalog>,
    /// The catalog every database and table is found through.
    catalog: Arc<dyn MetaCatalog>,
    session_tables: SessionTables,
}

/// Per database, the tables the session created.
type SessionTables = Arc<RwLock<HashMap<String, BTreeMap<String, Arc<dyn TableProvider>>>>>;

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
        let fs = Catalog::new(io, warehouse);
        PaimonCatalogProvider {
            warehouse: warehouse.trim_end_matches('/').to_string(),
            catalog: Arc::new(fs.clone()),
            fs: Some(fs),
            session_tables: SessionTables::default(),
        }
    }

    /// The databases and tables of `catalog` (any implementation: REST, JDBC, Hive, or a
    /// filesystem one opened from options). Its tables commit as the catalog decides (the
    /// REST server's commit, the JDBC or Hive lock under `lock.enabled`) and plan with its
    /// query auth; `CREATE`/`DROP` go through it.
    pub fn with_catalog(catalog: Arc<dyn MetaCatalog>) -> Self {
        PaimonCatalogProvider {
            warehouse: catalog.location().trim_end_matches('/').to_string(),
            fs: None,
            catalog,
            session_tables: SessionTables::default(),
        }
    }

    /// The same catalog without the tables and views this one's session registered.
    pub fn fresh(&self) -> Self {
        PaimonCatalogProvider {
            session_tables: SessionTables::default(),
            ..self.clone()
        }
    }

    /// The warehouse directory (a catalog's location for one made [`Self::with_catalog`]).
    pub fn warehouse(&self) -> &str {
        &self.warehouse
    }

    /// The warehouse's storage; `None` for a catalog that is not a warehouse directory.
    pub fn file_io(&self) -> Option<&FileIORef> {
        self.fs.as_ref().map(Catalog::file_io)
    }

    /// The control plane's catalog of the warehouse; `None` for a catalog that is not a
    /// warehouse directory.
    pub fn meta(&self) -> Option<&Catalog> {
        self.fs.as_ref()
    }

    /// The catalog databases and tables are found through.
    pub fn catalog(&self) -> &Arc<dyn MetaCatalog> {
        &self.catalog
    }

    /// The provider of `db.name` (with its suffixes), `None` when there is no such table.
    ///
    /// # Errors
    /// When the name is malformed or the table cannot be read.
    pub fn table_provider(&self, db: &str, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        if let Some(t) = self.session_table(db, name) {
            return Ok(Some(t));
        }
        if self.fs.is_none() {
            return self.catalog_table_provider(db, name);
        }
        let (path, parsed) = self.table_dir(db, name)?;
        let Some(io) = self.file_io() else {
            return Ok(None);
        };
        let schema_dir = paimon_io::join(&path, paimon_spec::layout::SCHEMA_DIR);
        if !io.exists(&schema_dir).map_err(|e| df_err(&path, e))? {
            return Ok(None);
        }
        if let Some(format) = self.format_table(io, &path, &parsed)? {
            return Ok(Some(format));
        }
        match parsed.system.as_deref() {
            None | Some("audit_log" | "row_tracking") => Ok(Some(Arc::new(
                PaimonTableProvider::open_io(Arc::clone(io), &path, parsed.spec)?,
            ))),
            Some(system) => system_table(&path, parsed.spec.branch.as_deref(), system)?
                .map(Some)
                .ok_or_else(|| df_err(&path, format!("no system table '{system}'"))),
        }
    }

    /// The provider of the format table at `path` (`type = format-table`), `None` when the
    /// table there is a Paimon table.
    ///
    /// # Errors
    /// An unreadable schema; a system table, branch or time travel of a format table (it has
    /// no snapshots).
    fn format_table(
        &self,
        io: &FileIORef,
        path: &str,
        parsed: &TableName,
    ) -> Result<Option<Arc<dyn TableProvider>>> {
        let Some(table) =
            paimon_rs::FormatTable::open(Arc::clone(io), path).map_err(|e| df_err(path, e))?
        else {
            return Ok(None);
        };
        if parsed.system.is_some() || parsed.spec != crate::ScanSpec::default() {
            return Err(DataFusionError::Plan(format!(
                "{path} is a format table (type = format-table): it has no system tables, \
                 branches, snapshots, tags or changes to read"
            )));
        }
        Ok(Some(Arc::new(
            crate::format_table::FormatTableProvider::new(table),
        )))
    }

    /// [`Self::table_provider`] of a catalog that is not a warehouse directory: the table
    /// opened through the catalog, then its branch, time travel or system table.
    fn catalog_table_provider(
        &self,
        db: &str,
        name: &str,
    ) -> Result<Option<Arc<dyn TableProvider>>> {
        let Some((table, parsed)) = self.open_table(db, name)? else {
            return Ok(None);
        };
        let label = format!("{db}.{name}");
        match parsed.system.as_deref() {
            None | Some("audit_log" | "row_tracking") => Ok(Some(Arc::new(
                PaimonTableProvider::from_table(table, parsed.spec)?,
            ))),
            Some(system) => {
                if table.query_auth().is_some() {
                    return Err(DataFusionError::Plan(format!(
                        "{label}: the table is under query auth (query-auth.enabled): its \
                         system table '{system}' would show files, statistics or rows the \
                         catalog's row filters and column masks do not cover, so it is refused"
                    )));
                }
                let table = match parsed.spec.branch.as_deref() {
                    Some(b) => table.with_branch(b).map_err(|e| df_err(&label, e))?,
                    None => table,
                };
                system_table_of(&table, &label, system)?
                    .map(Some)
                    .ok_or_else(|| df_err(&label, format!("no system table '{system}'")))
            }
        }
    }

    /// The table `db.name` opened through the catalog (its branch not yet selected) and its
    /// name's parts; `None` when the catalog has no such table. Only for a catalog that is not
    /// a warehouse directory.
    ///
    /// # Errors
    /// A malformed name; the catalog failing.
    pub(crate) fn open_table(&self, db: &str, name: &str) -> Result<Option<(Table, TableName)>> {
        let parsed = self.checked_name(db, name)?;
        let id = Identifier::new(db, parsed.table.clone());
        match self.catalog.get_table(&id) {
            Ok(t) => Ok(Some((t, parsed))),
            Err(paimon_meta::Error::CatalogObjectNotFound { .. }) => Ok(None),
            Err(e) => Err(df_err(&format!("{db}.{name}"), e)),
        }
    }

    /// `name` (in database `db`) split into its parts, every name in it one plain name.
    ///
    /// # Errors
    /// As [`Self::table_dir`].
    pub(crate) fn checked_name(&self, db: &str, name: &str) -> Result<TableName> {
        check_file_name("database name", db)
            .and_then(|()| match name.is_empty() {
                true => check_file_name("table name", name),
                false => Ok(()),
            })
            .map_err(|e| refused(db, Some(name), e))?;
        let parsed = TableName::parse(name)?;
        check_file_name("table name", &parsed.table)
            .and_then(|()| parsed.spec.check_names())
            .map_err(|e| refused(db, Some(name), e))?;
        Ok(parsed)
    }
}

impl PaimonCatalogProvider {
    /// The directory of database `db`, its name checked.
    ///
    /// # Errors
    /// [`DataFusionError::Plan`] naming the database when it is not one plain name.
    pub fn database_dir(&self, db: &str) -> Result<String> {
        check_file_name("database name", db).map_err(|e| refused(db, None, e))?;
        let path = self.fs()?.database_path(db);
        self.check_below("database directory", &path)
            .map_err(|e| refused(db, None, e))?;
        Ok(path)
    }

    /// The directory of table `name` (with its suffixes) in database `db`, and the name split
    /// into its parts, every name in it checked and the directory under the warehouse.
    ///
    /// # Errors
    /// [`DataFusionError::Plan`] naming the identifier when a name is not one plain name
    /// ([`check_file_name`]: empty, `.`, `..`, or holding `/`, `\` or NUL) or the directory
    /// would not lie under the warehouse; a malformed name ([`TableName::parse`]); a catalog
    /// that is not a warehouse directory.
    pub fn table_dir(&self, db: &str, name: &str) -> Result<(String, TableName)> {
        let parsed = self.checked_name(db, name)?;
        let path = self.fs()?.table_path(db, &parsed.table);
        self.check_below("table directory", &path)
            .map_err(|e| refused(db, Some(name), e))?;
        Ok((path, parsed))
    }

    /// Checks that `path`, made by joining names to the warehouse, lies strictly below it
    /// ([`TableRoots::check_in_table`]). A warehouse spelled with `..` (`paimon sql ../wh`)
    /// is the user's own choice, which the rule cannot compare with; then the part below it
    /// is checked, which must not climb either.
    fn check_below(&self, field: &str, path: &str) -> paimon_spec::Result<()> {
        if !self.warehouse.split('/').any(|s| s == "..") {
            return TableRoots::new(&self.warehouse).check_in_table(field, path);
        }
        let below = path
            .strip_prefix(self.warehouse.as_str())
            .unwrap_or(path)
            .trim_start_matches('/');
        TableRoots::new(".").check_in_table(field, &format!("./{below}"))
    }

    /// The filesystem catalog.
    ///
    /// # Errors
    /// [`DataFusionError::Plan`] for a catalog that is not a warehouse directory.
    fn fs(&self) -> Result<&Catalog> {
        self.fs.as_ref().ok_or_else(|| {
            DataFusionError::Plan(format!(
                "catalog {}: not a warehouse directory (its tables have no paths here)",
                self.warehouse
            ))
        })
    }

    /// Whether database `db` exists (`default` always does).
    fn database_exists(&self, db: &str) -> bool {
        if db == "default" || !self.session_table_names(db).is_empty() {
            return true;
        }
        match &self.fs {
            Some(fs) => self
                .database_dir(db)
                .is_ok_and(|path| matches!(fs.file_io().exists(&path), Ok(true))),
            None => self.catalog.get_database(db).is_ok(),
        }
    }

    /// Whether `db.name` is a table of the catalog (not a session's).
    fn catalog_table_exists(&self, db: &str, name: &str) -> bool {
        match &self.fs {
            Some(fs) => {
                let Ok((path, _)) = self.table_dir(db, name) else {
                    return false;
                };
                let schema_dir = paimon_io::join(&path, paimon_spec::layout::SCHEMA_DIR);
                matches!(fs.file_io().exists(&schema_dir), Ok(true))
            }
            None => matches!(self.open_table(db, name), Ok(Some(_))),
        }
    }

    fn session_table(&self, db: &str, name: &str) -> Option<Arc<dyn TableProvider>> {
        let tables = self.session_tables.read().ok()?;
        tables.get(db)?.get(name).cloned()
    }

    fn session_table_names(&self, db: &str) -> Vec<String> {
        self.session_tables
            .read()
            .ok()
            .and_then(|t| t.get(db).map(|m| m.keys().cloned().collect()))
            .unwrap_or_default()
    }
}

impl CatalogProvider for PaimonCatalogProvider {
    fn schema_names(&self) -> Vec<String> {
        let mut names = self.catalog.list_databases().unwrap_or_default();
        if let Ok(t) = self.session_tables.read() {
            names.extend(t.keys().filter(|k| !k.is_empty()).cloned());
        }
        names.sort();
        names.dedup();
        names
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        // `default` always exists, so unqualified names and session tables have a home. A
        // name that is not allowed gets a provider without looking at storage: its tables
        // are refused with an error naming it.
        let exists = check_file_name("database name", name).is_err() || self.database_exists(name);
        exists.then(|| {
            Arc::new(PaimonSchemaProvider {
                catalog: self.clone(),
                database: name.to_string(),
            }) as Arc<dyn SchemaProvider>
        })
    }
}

/// The refusal of the identifier `db.name` (`db` alone for a database) for `why`.
fn refused(db: &str, name: Option<&str>, why: paimon_spec::Error) -> DataFusionError {
    let id = match name {
        Some(n) => format!("{db:?}.{n:?}"),
        None => format!("{db:?}"),
    };
    DataFusionError::Plan(format!("identifier {id}: {why}"))
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
        let mut names = match check_file_name("database name", &self.database) {
            Ok(()) => self
                .catalog
                .catalog
                .list_tables(&self.database)
                .unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        names.extend(self.catalog.session_table_names(&self.database));
        names
    }

    fn register_table(
        &self,
        name: String,
        table: Arc<dyn TableProvider>,
    ) -> Result<Option<Arc<dyn TableProvider>>> {
        if self.table_exist(&name) {
            return Err(DataFusionError::Plan(format!(
                "table '{}.{name}' exists already",
                self.database
            )));
        }
        let mut tables = self
            .catalog
            .session_tables
            .write()
            .map_err(|_| DataFusionError::Internal("session tables lock poisoned".into()))?;
        Ok(tables
            .entry(self.database.clone())
            .or_default()
            .insert(name, table))
    }

    fn deregister_table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let mut tables = self
            .catalog
            .session_tables
            .write()
            .map_err(|_| DataFusionError::Internal("session tables lock poisoned".into()))?;
        Ok(tables.get_mut(&self.database).and_then(|m| m.remove(name)))
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        let this = self.clone();
        let name = name.to_string();
        off_runtime(move || this.catalog.table_provider(&this.database, &name)).await
    }

    fn table_exist(&self, name: &str) -> bool {
        self.catalog.session_table(&self.database, name).is_some()
            || self.catalog.catalog_table_exists(&self.database, name)
    }
}
