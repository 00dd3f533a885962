//! The JDBC catalog on PostgreSQL (Java `JdbcCatalog`, Paimon 1.4.2): table names live in
//! `paimon_tables`, database properties in `paimon_database_properties` (both keyed by
//! `catalog-key`, default `jdbc`), table files in the warehouse as the filesystem catalog lays
//! them out (`<warehouse>/<db>.db/<table>`). Under `lock.enabled` (Java's default: only on an
//! object store) schema changes and snapshot publishes hold Java's lock row in
//! `paimon_distributed_locks`, so Java and paimon-rs can commit to one table.
//!
//! Options (Java's names): `uri` (`jdbc:postgresql://host:port/db`), `jdbc.user`,
//! `jdbc.password`, `warehouse`, `catalog-key`, `lock.enabled`, `lock-acquire-timeout`,
//! `lock-check-max-sleep`, `lock-key-max-length`, and the FileIO options.

mod connection;
mod lock;
mod sql;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use paimon_io::FileIORef;
use paimon_spec::layout;
use paimon_spec::schema::TableSchema;

use self::connection::{is_conflict, Connection, ConnectionSpec};
use self::lock::JdbcLock;
pub use self::lock::JdbcSnapshotCommit;
use super::options::{duration_option, file_io_options, keys, lock_enabled, CatalogOptions};
use super::{Catalog, Database, FileSystemCatalog, Identifier};
use crate::commit::{create_table_at, SchemaChange};
use crate::error::{CatalogFailure, Error, Result};
use crate::table::{Table, MAIN_BRANCH};

/// The property Java writes for a database created without tables.
const EXISTS_PROPERTY: &str = "exists";
/// The database property holding its location.
const LOCATION_PROPERTY: &str = "location";

/// A catalog whose names live in a PostgreSQL database, shared with Java's `JdbcCatalog`.
#[derive(Debug)]
pub struct JdbcCatalog {
    connection: Arc<Connection>,
    catalog_key: String,
    files: FileSystemCatalog,
    /// `Some` under `lock.enabled`.
    lock: Option<JdbcLock>,
}

impl JdbcCatalog {
    /// Connects to the catalog database of `options` and creates Java's tables where missing.
    ///
    /// # Errors
    /// Missing `uri` or `warehouse`, a protocol other than `postgresql`, an unreachable
    /// server or refused credentials ([`Error::Catalog`] naming the URI, never the password).
    pub fn open(opts: &CatalogOptions) -> Result<Self> {
        let uri = opts.require(keys::URI)?;
        let warehouse = opts.require(keys::WAREHOUSE)?.trim_end_matches('/');
        let spec = ConnectionSpec::parse(uri, opts.get("jdbc.user"), opts.get("jdbc.password"))?;
        let connection = Arc::new(Connection::new(spec));
        let io: FileIORef =
            paimon_io::file_io_with_options(warehouse, &file_io_options(&opts.options))
                .map_err(Error::io)?;
        let lock_enabled = lock_enabled(opts, warehouse, connection.uri())?;
        let catalog_key = opts.get("catalog-key").unwrap_or("jdbc").to_string();
        let lock = if lock_enabled {
            Some(JdbcLock {
                connection: connection.clone(),
                catalog_key: catalog_key.clone(),
                check_max_sleep: duration_option(
                    opts,
                    "lock-check-max-sleep",
                    Duration::from_secs(8),
                )?,
                acquire_timeout: duration_option(
                    opts,
                    "lock-acquire-timeout",
                    Duration::from_secs(8 * 60),
                )?,
            })
        } else {
            None
        };
        let catalog = JdbcCatalog {
            connection,
            catalog_key,
            files: FileSystemCatalog::new(io, warehouse),
            lock,
        };
        catalog.initialize(opts)?;
        Ok(catalog)
    }

    /// Creates Java's catalog tables where missing (the lock table under `lock.enabled`).
    fn initialize(&self, opts: &CatalogOptions) -> Result<()> {
        for ddl in [
            sql::CREATE_TABLES,
            sql::CREATE_DATABASE_PROPERTIES,
            sql::CREATE_TABLE_PROPERTIES,
        ] {
            self.create_if_missing(ddl)?;
        }
        if self.lock.is_some() {
            let max: u32 = match opts.get("lock-key-max-length") {
                None => 255,
                Some(v) => v.trim().parse().map_err(|_| {
                    Error::catalog(
                        self.connection.uri(),
                        CatalogFailure::InvalidOptions,
                        "option lock-key-max-length",
                        format!("{v:?} is not a length"),
                    )
                })?,
            };
            self.create_if_missing(&sql::create_locks(max))?;
        }
        Ok(())
    }

    /// `CREATE TABLE IF NOT EXISTS` can still collide with a concurrent creator (Java or
    /// another process) on PostgreSQL's catalog: the table then exists, which is all we want.
    fn create_if_missing(&self, ddl: &str) -> Result<()> {
        match self.connection.execute(ddl, &[]) {
            Ok(_) => Ok(()),
            Err(e) if is_conflict(&e) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The `catalog-key` this catalog's rows carry.
    pub fn catalog_key(&self) -> &str {
        &self.catalog_key
    }

    fn not_found(&self, kind: &'static str, name: String) -> Error {
        Error::not_found_in(self.connection.uri(), kind, name)
    }

    fn exists_error(&self, kind: &'static str, name: String) -> Error {
        Error::exists_in(self.connection.uri(), kind, name)
    }

    fn check_names(&self, database: &str, table: Option<&str>) -> Result<()> {
        super::filesystem::check_names(self.connection.uri(), database, table)
    }

    fn database_exists(&self, name: &str) -> Result<bool> {
        let key = &self.catalog_key;
        Ok(!self
            .connection
            .strings(sql::GET_TABLE_DATABASE, &[key, &name])?
            .is_empty()
            || !self
                .connection
                .strings(sql::GET_PROPERTY_DATABASE, &[key, &name])?
                .is_empty())
    }

    fn table_exists(&self, database: &str, table: &str) -> Result<bool> {
        Ok(!self
            .connection
            .strings(sql::GET_TABLE, &[&self.catalog_key, &database, &table])?
            .is_empty())
    }

    fn with_lock<T>(&self, id: &Identifier, f: impl FnOnce() -> Result<T>) -> Result<T> {
        match &self.lock {
            Some(lock) => lock.run_with_lock(&id.database, &id.object, f),
            None => f(),
        }
    }
}

impl Catalog for JdbcCatalog {
    fn location(&self) -> &str {
        self.connection.uri()
    }

    fn list_databases(&self) -> Result<Vec<String>> {
        let key = &self.catalog_key;
        let mut dbs = self.connection.strings(sql::LIST_TABLE_DATABASES, &[key])?;
        dbs.extend(
            self.connection
                .strings(sql::LIST_PROPERTY_DATABASES, &[key])?,
        );
        dbs.sort();
        dbs.dedup();
        Ok(dbs)
    }

    fn get_database(&self, name: &str) -> Result<Database> {
        if !self.database_exists(name)? {
            return Err(self.not_found("database", name.to_string()));
        }
        let rows = self.connection.run(sql::GET_DATABASE_PROPERTIES, |c| {
            c.query(sql::GET_DATABASE_PROPERTIES, &[&self.catalog_key, &name])?
                .iter()
                .map(|r| {
                    Ok((
                        r.try_get::<_, Option<String>>(0)?,
                        r.try_get::<_, Option<String>>(1)?,
                    ))
                })
                .collect::<std::result::Result<Vec<_>, postgres::Error>>()
        })?;
        let mut options: BTreeMap<String, String> = rows
            .into_iter()
            .filter_map(|(k, v)| Some((k?, v.unwrap_or_default())))
            .collect();
        options.remove(EXISTS_PROPERTY);
        let location = options
            .get(LOCATION_PROPERTY)
            .cloned()
            .unwrap_or_else(|| self.files.database_path(name));
        Ok(Database {
            name: name.to_string(),
            options,
            location: Some(location),
        })
    }

    fn create_database(
        &self,
        name: &str,
        ignore_if_exists: bool,
        options: &BTreeMap<String, String>,
    ) -> Result<()> {
        self.check_names(name, None)?;
        if self.database_exists(name)? {
            return if ignore_if_exists {
                Ok(())
            } else {
                Err(self.exists_error("database", name.to_string()))
            };
        }
        // As Java's createDatabaseImpl: `exists = true`, the location, then the options.
        let mut props = BTreeMap::new();
        props.insert(EXISTS_PROPERTY.to_string(), "true".to_string());
        props.insert(
            LOCATION_PROPERTY.to_string(),
            self.files.database_path(name),
        );
        props.extend(options.iter().map(|(k, v)| (k.clone(), v.clone())));
        let key = &self.catalog_key;
        let inserted = self.connection.run(sql::INSERT_DATABASE_PROPERTY, |c| {
            let mut tx = c.transaction()?;
            for (k, v) in &props {
                tx.execute(sql::INSERT_DATABASE_PROPERTY, &[key, &name, k, v])?;
            }
            tx.commit()
        });
        match inserted {
            Err(e) if is_conflict(&e) && ignore_if_exists => Ok(()),
            Err(e) if is_conflict(&e) => Err(self.exists_error("database", name.to_string())),
            other => other,
        }
    }

    fn drop_database(&self, name: &str, ignore_if_not_exists: bool, cascade: bool) -> Result<()> {
        self.check_names(name, None)?;
        if !self.database_exists(name)? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("database", name.to_string()))
            };
        }
        let tables = Catalog::list_tables(self, name)?;
        if !cascade && !tables.is_empty() {
            return Err(Error::database_not_empty(
                self.files.database_path(name),
                name,
                tables.len(),
            ));
        }
        let key = &self.catalog_key;
        self.connection.run(sql::DELETE_DATABASE_TABLES, |c| {
            let mut tx = c.transaction()?;
            tx.execute(sql::DELETE_DATABASE_TABLES, &[key, &name])?;
            tx.execute(sql::DELETE_DATABASE_PROPERTIES, &[key, &name])?;
            tx.execute(sql::DELETE_DATABASE_TABLE_PROPERTIES, &[key, &name])?;
            tx.commit()
        })?;
        // Java leaves the files of a dropped database; we delete the directories of the
        // tables the catalog listed (as drop-table does), and nothing else.
        for t in tables {
            if layout::check_file_name("table", &t).is_ok() {
                let _ = self
                    .files
                    .file_io()
                    .delete_dir(&self.files.table_path(name, &t));
            }
        }
        Ok(())
    }

    fn list_tables(&self, database: &str) -> Result<Vec<String>> {
        if !self.database_exists(database)? {
            return Err(self.not_found("database", database.to_string()));
        }
        let mut tables = self
            .connection
            .strings(sql::LIST_TABLES, &[&self.catalog_key, &database])?;
        tables.sort();
        Ok(tables)
    }

    fn get_table(&self, id: &Identifier) -> Result<Table> {
        self.check_names(&id.database, Some(id.table_name()))?;
        if !self.table_exists(&id.database, id.table_name())? {
            return Err(self.not_found("table", id.full_table_name()));
        }
        let table = Table::open_branch(
            self.files.file_io().clone(),
            &self.files.table_path(&id.database, id.table_name()),
            id.branch().unwrap_or(MAIN_BRANCH),
        )?;
        Ok(match &self.lock {
            Some(lock) => table.with_snapshot_commit(Arc::new(JdbcSnapshotCommit {
                lock: lock.clone(),
                database: id.database.clone(),
                object: id.object.clone(),
            })),
            None => table,
        })
    }

    fn create_table(
        &self,
        id: &Identifier,
        schema: TableSchema,
        ignore_if_exists: bool,
    ) -> Result<()> {
        self.check_names(&id.database, Some(&id.object))?;
        if !self.database_exists(&id.database)? {
            return Err(self.not_found("database", id.database.clone()));
        }
        if self.table_exists(&id.database, &id.object)? {
            return if ignore_if_exists {
                Ok(())
            } else {
                Err(self.exists_error("table", id.to_string()))
            };
        }
        let path = self.files.table_path(&id.database, &id.object);
        self.with_lock(id, || {
            create_table_at(self.files.file_io().clone(), &path, schema, false).map(|_| ())
        })?;
        match self.connection.execute(
            sql::INSERT_TABLE,
            &[&self.catalog_key, &id.database, &id.object],
        ) {
            Ok(_) => Ok(()),
            // Registered by another meanwhile: its files are the ones in place.
            Err(e) if is_conflict(&e) && ignore_if_exists => Ok(()),
            Err(e) if is_conflict(&e) => Err(self.exists_error("table", id.to_string())),
            Err(e) => {
                // Not registered: the files would be an orphan (Java deletes them too).
                let _ = self.files.file_io().delete_dir(&path);
                Err(e)
            }
        }
    }

    fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        self.check_names(&id.database, Some(id.table_name()))?;
        let key = &self.catalog_key;
        let (db, name) = (&id.database, id.table_name());
        let deleted = self.connection.run(sql::DROP_TABLE, |c| {
            let mut tx = c.transaction()?;
            let n = tx.execute(sql::DROP_TABLE, &[key, db, &name])?;
            tx.execute(sql::DROP_TABLE_PROPERTIES, &[key, db, &name])?;
            tx.commit()?;
            Ok(n)
        })?;
        if deleted == 0 {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", id.full_table_name()))
            };
        }
        self.files
            .file_io()
            .delete_dir(&self.files.table_path(db, name))
            .map(|_| ())
            .map_err(Error::io)
    }

    fn rename_table(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        self.check_names(&from.database, Some(from.table_name()))?;
        self.check_names(&to.database, Some(to.table_name()))?;
        if !self.table_exists(&from.database, from.table_name())? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", from.full_table_name()))
            };
        }
        if self.table_exists(&to.database, to.table_name())? {
            return Err(self.exists_error("table", to.full_table_name()));
        }
        let from_path = self.files.table_path(&from.database, from.table_name());
        let to_path = self.files.table_path(&to.database, to.table_name());
        let key = &self.catalog_key;
        let (fd, ft, td, tt) = (
            &from.database,
            from.table_name(),
            &to.database,
            to.table_name(),
        );
        // The row moves first (one transaction with its properties), then the directory; a
        // directory that cannot move puts the row back.
        let n = self.connection.run(sql::RENAME_TABLE, |c| {
            let mut tx = c.transaction()?;
            let n = tx.execute(sql::RENAME_TABLE, &[td, &tt, key, fd, &ft])?;
            tx.execute(sql::RENAME_TABLE_PROPERTIES, &[td, &tt, key, fd, &ft])?;
            tx.commit()?;
            Ok(n)
        });
        let n = match n {
            Err(e) if is_conflict(&e) => {
                return Err(self.exists_error("table", to.full_table_name()))
            }
            other => other?,
        };
        if n == 0 {
            return Err(self.not_found("table", from.full_table_name()));
        }
        if let Err(e) = self.files.file_io().rename_dir(&from_path, &to_path) {
            let _ = self.connection.run(sql::RENAME_TABLE, |c| {
                let mut tx = c.transaction()?;
                tx.execute(sql::RENAME_TABLE, &[fd, &ft, key, td, &tt])?;
                tx.execute(sql::RENAME_TABLE_PROPERTIES, &[fd, &ft, key, td, &tt])?;
                tx.commit()
            });
            return Err(Error::io(e));
        }
        Ok(())
    }

    fn alter_table(
        &self,
        id: &Identifier,
        changes: &[SchemaChange],
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        if !self.table_exists(&id.database, id.table_name())? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", id.full_table_name()))
            };
        }
        let table = self.get_table(id)?;
        self.with_lock(id, || table.alter(changes).map(|_| ()))
    }
}
