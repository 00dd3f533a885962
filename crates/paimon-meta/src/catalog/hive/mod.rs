//! The Hive Metastore catalog (Java `HiveCatalog`, Paimon 1.4.2): databases and tables are
//! registered in a Hive Metastore over Thrift exactly as Java registers them (see the
//! `registration` module); a table's files live at the location the metastore holds for it
//! (`<warehouse>/<db>.db/<table>` for the tables this catalog creates). Under `lock.enabled`
//! (Java's default: only on an object store) schema changes and snapshot publishes hold the
//! metastore's table lock, as Java's `HiveCatalogLock` takes it. A partitioned table with the
//! table option `metastore.partitioned-table` is registered with its partition keys, and its
//! commits and partition expiry keep its partitions in the metastore (module `partitions`).
//!
//! Options (Java's names): `uri` (`thrift://host:port`, several comma-separated), `warehouse`,
//! `lock.enabled`, `lock-acquire-timeout`, `lock-check-max-sleep`, and the FileIO options.
//!
//! The Thrift client is a small hand-written binary-protocol client (modules `thrift`, `client`)
//! for the calls the catalog makes; every reply is decoded with bounds.

mod client;
#[doc(hidden)]
pub mod fuzzing;
mod lock;
mod partitions;
mod registration;
mod thrift;

use std::collections::BTreeMap;
use std::sync::Arc;

use paimon_io::FileIORef;
use paimon_spec::layout;
use paimon_spec::schema::TableSchema;

use self::client::{string_field, string_list, string_map_field, Client, Thrown};
use self::lock::HiveLock;
pub use self::lock::HiveSnapshotCommit;
use self::partitions::HivePartitions;
use self::registration::{
    columns, columns_value, partition_keys, table_parameters, write_database, HmsTable,
};
use self::thrift::{ttype, Value};
use super::options::{file_io_options, keys, lock_enabled, CatalogOptions};
use super::{Catalog, Database, FileSystemCatalog, Identifier};
use crate::commit::{create_table_at, SchemaChange};
use crate::error::{CatalogFailure, Error, Result};
use crate::table::{Table, MAIN_BRANCH};

/// A catalog whose names live in a Hive Metastore, shared with Java's `HiveCatalog`.
#[derive(Debug)]
pub struct HiveCatalog {
    client: Arc<Client>,
    files: FileSystemCatalog,
    warehouse: String,
    /// `Some` under `lock.enabled`.
    lock: Option<HiveLock>,
}

/// What the metastore holds for a table: its location and whether it is a Paimon table.
#[derive(Debug)]
struct HmsTableInfo {
    location: Option<String>,
    paimon: bool,
    external: bool,
    raw: Value,
}

impl HiveCatalog {
    /// A catalog on the metastore at `uri` over `warehouse` (nothing is sent yet).
    ///
    /// # Errors
    /// Missing `uri` or `warehouse`, a URI that is not `thrift://host:port`, invalid lock
    /// options ([`Error::Catalog`] naming the URI).
    pub fn open(opts: &CatalogOptions) -> Result<Self> {
        let uri = opts.require(keys::URI)?;
        let warehouse = opts.require(keys::WAREHOUSE)?.trim_end_matches('/');
        let client = Arc::new(Client::new(uri)?);
        let io: FileIORef =
            paimon_io::file_io_with_options(warehouse, &file_io_options(&opts.options))
                .map_err(Error::io)?;
        let lock = if lock_enabled(opts, warehouse, uri)? {
            Some(HiveLock::new(client.clone(), opts)?)
        } else {
            None
        };
        Ok(HiveCatalog {
            client,
            files: FileSystemCatalog::new(io, warehouse),
            warehouse: warehouse.to_string(),
            lock,
        })
    }

    fn not_found(&self, kind: &'static str, name: String) -> Error {
        Error::not_found_in(self.client.uri(), kind, name)
    }

    fn exists_error(&self, kind: &'static str, name: String) -> Error {
        Error::exists_in(self.client.uri(), kind, name)
    }

    fn refused(&self, what: String, reason: String) -> Error {
        Error::catalog(self.client.uri(), CatalogFailure::Refused, what, reason)
    }

    fn malformed(&self, what: String, reason: &str) -> Error {
        Error::catalog(
            self.client.uri(),
            CatalogFailure::MalformedResponse,
            what,
            reason.to_string(),
        )
    }

    fn check_names(&self, database: &str, table: Option<&str>) -> Result<()> {
        super::filesystem::check_names(self.client.uri(), database, table)
    }

    /// The metastore's database, or `None` when it does not exist.
    fn hms_database(&self, name: &str) -> Result<Option<Value>> {
        match self
            .client
            .call("get_database", true, |w| w.string_field(1, name))?
        {
            Ok(Some(v)) => Ok(Some(v)),
            Ok(None) => Err(self.malformed(format!("database {name}"), "no database in the reply")),
            Err(Thrown::NoSuchObject(_)) => Ok(None),
            Err(t) => Err(self.refused(format!("database {name}"), format!("{t:?}"))),
        }
    }

    /// The metastore's table, or `None` when it does not exist.
    fn hms_table(&self, database: &str, table: &str) -> Result<Option<HmsTableInfo>> {
        hms_table(&self.client, database, table)
    }

    /// A table's location as the metastore holds it (else where this catalog puts it),
    /// checked as a root: an absolute path or URI with no `..` segment, since it arrives
    /// as bytes from the metastore.
    fn table_location(&self, id: &Identifier, info: &HmsTableInfo) -> Result<String> {
        let loc = match &info.location {
            Some(l) => normalize_location(l),
            None => self.files.table_path(&id.database, id.table_name()),
        };
        layout::check_external_root("location", &loc)
            .map_err(|e| Error::spec(self.client.uri(), e))?;
        Ok(loc)
    }

    /// Where a new table `table` of the database `db` goes: `<database location>/<table>`
    /// (Java's `getTableLocation` for a table not yet registered).
    fn new_table_location(&self, db: &Value, database: &str, table: &str) -> Result<String> {
        let loc = match string_field(db, 3) {
            Some(l) => format!("{}/{table}", normalize_location(&l)),
            None => self.files.table_path(database, table),
        };
        layout::check_external_root("location", &loc)
            .map_err(|e| Error::spec(self.client.uri(), e))?;
        Ok(loc)
    }

    fn with_lock<T>(&self, id: &Identifier, f: impl FnOnce() -> Result<T>) -> Result<T> {
        match &self.lock {
            Some(lock) => lock.run_with_lock(&id.database, id.table_name(), f),
            None => f(),
        }
    }

    fn open_table(&self, id: &Identifier, location: &str) -> Result<Table> {
        let table = Table::open_branch(
            self.files.file_io().clone(),
            location,
            id.branch().unwrap_or(MAIN_BRANCH),
        )?;
        let table = match &self.lock {
            Some(lock) => table.with_snapshot_commit(Arc::new(HiveSnapshotCommit {
                lock: lock.clone(),
                database: id.database.clone(),
                table: id.table_name().to_string(),
            })),
            None => table,
        };
        // Used only under `metastore.partitioned-table` (see `Table::partition_modification`).
        Ok(
            table.with_partition_modification(Arc::new(HivePartitions::new(
                self.client.clone(),
                &id.database,
                id.table_name(),
            ))),
        )
    }

    fn owner() -> String {
        std::env::var("USER")
            .or_else(|_| std::env::var("LOGNAME"))
            .unwrap_or_else(|_| "paimon".to_string())
    }
}

/// The metastore's table `database.table` (`get_table_req`), or `None` when it does not
/// exist.
fn hms_table(client: &Client, database: &str, table: &str) -> Result<Option<HmsTableInfo>> {
    let what = || format!("table {database}.{table}");
    let malformed = |reason: &str| {
        Error::catalog(
            client.uri(),
            CatalogFailure::MalformedResponse,
            what(),
            reason.to_string(),
        )
    };
    let reply = client.call("get_table_req", true, |w| {
        w.field(ttype::STRUCT, 1);
        w.string_field(1, database);
        w.string_field(2, table);
        w.string_field(4, registration::DEFAULT_CATALOG);
        w.stop();
    })?;
    let result = match reply {
        Ok(Some(v)) => v,
        Ok(None) => return Err(malformed("no result")),
        Err(Thrown::NoSuchObject(_)) => return Ok(None),
        Err(t) => {
            return Err(Error::catalog(
                client.uri(),
                CatalogFailure::Refused,
                what(),
                format!("{t:?}"),
            ))
        }
    };
    let raw = match result.field(1) {
        Some(t @ Value::Struct(_)) => t.clone(),
        _ => return Err(malformed("GetTableResult without a table")),
    };
    let sd = raw.field(7);
    let format = |id| sd.and_then(|sd| string_field(sd, id));
    let paimon = format(3).as_deref() == Some(registration::INPUT_FORMAT)
        && format(4).as_deref() == Some(registration::OUTPUT_FORMAT);
    let external = string_field(&raw, 12).as_deref() == Some("EXTERNAL_TABLE");
    Ok(Some(HmsTableInfo {
        location: format(2),
        paimon,
        external,
        raw,
    }))
}

/// A location as the metastore stores it, as storage takes it: a local `file:/x` or
/// `file:///x` is `/x`; no trailing `/`.
fn normalize_location(loc: &str) -> String {
    let loc = loc.trim_end_matches('/');
    let local = loc
        .strip_prefix("file://")
        .filter(|r| r.starts_with('/'))
        .or_else(|| loc.strip_prefix("file:").filter(|r| !r.starts_with("//")));
    local.unwrap_or(loc).to_string()
}

fn now_secs() -> i32 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    i32::try_from(secs).unwrap_or(i32::MAX)
}

impl Catalog for HiveCatalog {
    fn location(&self) -> &str {
        self.client.uri()
    }

    fn list_databases(&self) -> Result<Vec<String>> {
        let reply = self.client.call("get_all_databases", true, |_| {})?;
        let mut dbs = match reply {
            Ok(v) => string_list(v)
                .ok_or_else(|| self.malformed("databases".into(), "not a list of names"))?,
            Err(t) => return Err(self.refused("databases".into(), format!("{t:?}"))),
        };
        dbs.sort();
        Ok(dbs)
    }

    fn get_database(&self, name: &str) -> Result<Database> {
        let db = self
            .hms_database(name)?
            .ok_or_else(|| self.not_found("database", name.to_string()))?;
        // As Java's getDatabaseImpl: the parameters, with `comment`, `owner` and `location`.
        let mut options: BTreeMap<String, String> = string_map_field(&db, 4).into_iter().collect();
        if let Some(d) = string_field(&db, 2) {
            options.insert("comment".into(), d);
        }
        if let Some(o) = string_field(&db, 6) {
            options.insert("owner".into(), o);
        }
        let location = string_field(&db, 3);
        if let Some(l) = &location {
            options.insert("location".into(), l.clone());
        }
        Ok(Database {
            name: name.to_string(),
            options,
            location,
        })
    }

    fn create_database(
        &self,
        name: &str,
        ignore_if_exists: bool,
        options: &BTreeMap<String, String>,
    ) -> Result<()> {
        self.check_names(name, None)?;
        if self.hms_database(name)?.is_some() {
            return if ignore_if_exists {
                Ok(())
            } else {
                Err(self.exists_error("database", name.to_string()))
            };
        }
        let location = options
            .get("location")
            .cloned()
            .unwrap_or_else(|| self.files.database_path(name));
        let reply = self.client.call("create_database", false, |w| {
            write_database(w, 1, name, &location, options)
        })?;
        match reply {
            Ok(_) => Ok(()),
            Err(Thrown::AlreadyExists(_)) if ignore_if_exists => Ok(()),
            Err(Thrown::AlreadyExists(_)) => Err(self.exists_error("database", name.to_string())),
            Err(t) => Err(self.refused(format!("database {name}"), format!("{t:?}"))),
        }
    }

    fn drop_database(&self, name: &str, ignore_if_not_exists: bool, cascade: bool) -> Result<()> {
        self.check_names(name, None)?;
        if self.hms_database(name)?.is_none() {
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
        // As Java's dropDatabaseImpl: each table dropped through the catalog first, then the
        // database with its data (`deleteData = true, cascade = true`).
        for t in &tables {
            Catalog::drop_table(self, &Identifier::new(name, t.clone()), true)?;
        }
        let reply = self.client.call("drop_database", false, |w| {
            w.string_field(1, name);
            w.bool_field(2, true);
            w.bool_field(3, true);
        })?;
        match reply {
            Ok(_) => Ok(()),
            Err(Thrown::NoSuchObject(_)) if ignore_if_not_exists => Ok(()),
            Err(Thrown::NoSuchObject(_)) => Err(self.not_found("database", name.to_string())),
            Err(t) => Err(self.refused(format!("database {name}"), format!("{t:?}"))),
        }
    }

    fn list_tables(&self, database: &str) -> Result<Vec<String>> {
        if self.hms_database(database)?.is_none() {
            return Err(self.not_found("database", database.to_string()));
        }
        let reply = self
            .client
            .call("get_all_tables", true, |w| w.string_field(1, database))?;
        let mut tables = match reply {
            Ok(v) => string_list(v)
                .ok_or_else(|| self.malformed(format!("tables of {database}"), "not a list"))?,
            Err(t) => return Err(self.refused(format!("tables of {database}"), format!("{t:?}"))),
        };
        tables.sort();
        Ok(tables)
    }

    fn get_table(&self, id: &Identifier) -> Result<Table> {
        self.check_names(&id.database, Some(id.table_name()))?;
        let info = self
            .hms_table(&id.database, id.table_name())?
            .ok_or_else(|| self.not_found("table", id.full_table_name()))?;
        if !info.paimon {
            return Err(Error::unsupported(format!(
                "table {} is not a Paimon table in the Hive Metastore (its input format is not {})",
                id.full_table_name(),
                registration::INPUT_FORMAT
            )));
        }
        let location = self.table_location(id, &info)?;
        self.open_table(id, &location)
    }

    fn create_table(
        &self,
        id: &Identifier,
        schema: TableSchema,
        ignore_if_exists: bool,
    ) -> Result<()> {
        self.check_names(&id.database, Some(&id.object))?;
        let db = self
            .hms_database(&id.database)?
            .ok_or_else(|| self.not_found("database", id.database.clone()))?;
        if self.hms_table(&id.database, &id.object)?.is_some() {
            return if ignore_if_exists {
                Ok(())
            } else {
                Err(self.exists_error("table", id.to_string()))
            };
        }
        let location = self.new_table_location(&db, &id.database, &id.object)?;
        let table = self.with_lock(id, || {
            create_table_at(self.files.file_io().clone(), &location, schema, false)
        })?;
        let schema = table.schema();
        let cols = columns(schema)
            .and_then(|c| Ok((c, partition_keys(schema)?)))
            .map_err(|field| {
                Error::unsupported(format!(
                    "field {field} of {id}: its type has no Hive form (Java refuses it too)"
                ))
            });
        let registered = cols.and_then(|(columns, partition_keys)| {
            let owner = Self::owner();
            let hms = HmsTable {
                database: &id.database,
                table: &id.object,
                owner: &owner,
                now_secs: now_secs(),
                location: &location,
                columns,
                partition_keys,
                parameters: table_parameters(schema),
            };
            match self
                .client
                .call("create_table", false, |w| hms.write(w, 1))?
            {
                Ok(_) => Ok(()),
                Err(Thrown::AlreadyExists(_)) => Err(self.exists_error("table", id.to_string())),
                Err(Thrown::NoSuchObject(_)) => {
                    Err(self.not_found("database", id.database.clone()))
                }
                Err(t) => Err(self.refused(format!("table {id}"), format!("{t:?}"))),
            }
        });
        if let Err(e) = registered {
            // Not registered: the files would be an orphan (Java deletes them too).
            let _ = self.files.file_io().delete_dir(&location);
            return Err(e);
        }
        Ok(())
    }

    fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        self.check_names(&id.database, Some(id.table_name()))?;
        let (db, name) = (&id.database, id.table_name());
        let Some(info) = self.hms_table(db, name)? else {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", id.full_table_name()))
            };
        };
        let location = self.table_location(id, &info).ok();
        let reply = self.client.call("drop_table", false, |w| {
            w.string_field(1, db);
            w.string_field(2, name);
            w.bool_field(3, !info.external);
        })?;
        match reply {
            Ok(_) => {}
            Err(Thrown::NoSuchObject(_)) if ignore_if_not_exists => return Ok(()),
            Err(Thrown::NoSuchObject(_)) => {
                return Err(self.not_found("table", id.full_table_name()))
            }
            Err(t) => return Err(self.refused(format!("table {id}"), format!("{t:?}"))),
        }
        // As Java: a managed table's directory goes too (the metastore may have removed it).
        if let (false, Some(location)) = (info.external, location) {
            if self.files.file_io().exists(&location).unwrap_or(false) {
                self.files
                    .file_io()
                    .delete_dir(&location)
                    .map_err(Error::io)?;
            }
        }
        Ok(())
    }

    fn rename_table(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        self.check_names(&from.database, Some(from.table_name()))?;
        self.check_names(&to.database, Some(to.table_name()))?;
        let Some(info) = self.hms_table(&from.database, from.table_name())? else {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", from.full_table_name()))
            };
        };
        if self.hms_table(&to.database, to.table_name())?.is_some() {
            return Err(self.exists_error("table", to.full_table_name()));
        }
        let from_path = self.table_location(from, &info)?;
        // As Java's renameHiveTable: the metastore's table with the new names.
        let mut table = info.raw.clone();
        table.set_field(1, Value::Bytes(to.table_name().as_bytes().to_vec()));
        table.set_field(2, Value::Bytes(to.database.as_bytes().to_vec()));
        self.alter(&from.database, from.table_name(), &table)?;
        if info.external {
            return Ok(());
        }
        // Then the directory, unless the metastore moved it (it does for a managed table
        // under its database's location); the location follows.
        let to_path = match self.hms_database(&to.database)? {
            Some(db) => self.new_table_location(&db, &to.database, to.table_name())?,
            None => return Err(self.not_found("database", to.database.clone())),
        };
        let schema_dir = paimon_io::join(&from_path, layout::SCHEMA_DIR);
        if from_path != to_path && self.files.file_io().exists(&schema_dir).unwrap_or(false) {
            self.files
                .file_io()
                .rename_dir(&from_path, &to_path)
                .map_err(Error::io)?;
            if let Some(sd) = table.field_mut(7) {
                sd.set_field(2, Value::Bytes(to_path.as_bytes().to_vec()));
            }
            self.alter(&to.database, to.table_name(), &table)?;
        }
        Ok(())
    }

    fn alter_table(
        &self,
        id: &Identifier,
        changes: &[SchemaChange],
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        let Some(info) = self.hms_table(&id.database, id.table_name())? else {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", id.full_table_name()))
            };
        };
        let table = self.get_table(id)?;
        let schema = self.with_lock(id, || table.alter(changes))?;
        if id.branch().is_some() {
            return Ok(());
        }
        // As Java's alterTableToHms: the parameters (options set; removed ones dropped) and
        // the columns follow the new schema.
        let removed: Vec<&str> = changes
            .iter()
            .filter_map(|c| match c {
                SchemaChange::RemoveOption { key } => Some(key.as_str()),
                _ => None,
            })
            .collect();
        let mut raw = info.raw.clone();
        let mut params: BTreeMap<String, String> = string_map_field(&raw, 9).into_iter().collect();
        params.extend(table_parameters(&schema));
        for k in removed {
            params.remove(k);
        }
        raw.set_field(
            9,
            Value::Map(
                ttype::STRING,
                ttype::STRING,
                params
                    .into_iter()
                    .map(|(k, v)| (Value::Bytes(k.into_bytes()), Value::Bytes(v.into_bytes())))
                    .collect(),
            ),
        );
        // As Java's updateHmsTable: the columns, and the partition keys when registered
        // partitioned.
        let unsupported =
            |field| Error::unsupported(format!("field {field} of {id}: its type has no Hive form"));
        let cols = columns(&schema).map_err(unsupported)?;
        let keys = partition_keys(&schema).map_err(unsupported)?;
        if let Some(sd) = raw.field_mut(7) {
            sd.set_field(1, columns_value(cols));
        }
        raw.set_field(8, columns_value(keys));
        self.alter(&id.database, id.table_name(), &raw)
    }
}

impl HiveCatalog {
    /// `alter_table(database, table, new)`.
    fn alter(&self, database: &str, table: &str, new: &Value) -> Result<()> {
        match self.client.call("alter_table", false, |w| {
            w.string_field(1, database);
            w.string_field(2, table);
            w.value_field(3, new);
        })? {
            Ok(_) => Ok(()),
            Err(t) => Err(self.refused(format!("table {database}.{table}"), format!("{t:?}"))),
        }
    }

    /// The warehouse directory.
    pub fn warehouse(&self) -> &str {
        &self.warehouse
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metastore_locations_as_storage_paths() {
        assert_eq!(normalize_location("file:/w/db.db/t"), "/w/db.db/t");
        assert_eq!(normalize_location("file:///w/db.db/t/"), "/w/db.db/t");
        assert_eq!(normalize_location("s3://b/w/t"), "s3://b/w/t");
        assert_eq!(normalize_location("/w/t"), "/w/t");
    }
}

/// Against a real metastore (`PAIMON_HIVE_TEST_URI`, set by `scripts/test-hive.sh`; skipped
/// without it): a database and a table registered, listed, opened at the registered location,
/// renamed (the directory follows) and dropped, through the catalog alone.
#[cfg(test)]
mod metastore_tests {
    use super::*;

    fn schema() -> TableSchema {
        TableSchema::from_json_str(
            r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT NOT NULL"},
                {"id":1,"name":"v","type":"STRING","description":"the value"}],
                "highestFieldId":1,"partitionKeys":[],"primaryKeys":["id"],
                "options":{"bucket":"1"},"timeMillis":0}"#,
        )
        .unwrap()
    }

    #[test]
    fn register_rename_drop_on_a_real_metastore() {
        let Ok(uri) = std::env::var("PAIMON_HIVE_TEST_URI") else {
            eprintln!("skipped: PAIMON_HIVE_TEST_URI is not set (scripts/test-hive.sh sets it)");
            return;
        };
        let wh = tempfile::tempdir().unwrap();
        let w = wh.path().to_str().unwrap();
        let opts = CatalogOptions::from_map(
            [
                ("metastore", "hive"),
                ("uri", uri.as_str()),
                ("warehouse", w),
                ("lock.enabled", "false"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        )
        .unwrap();
        let c = HiveCatalog::open(&opts).unwrap();
        let c: &dyn Catalog = &c;
        let db = format!("meta_{}", std::process::id());
        c.create_database(&db, false, &BTreeMap::new()).unwrap();
        assert!(c.list_databases().unwrap().contains(&db));
        let d = c.get_database(&db).unwrap();
        assert!(
            d.location
                .as_deref()
                .unwrap()
                .ends_with(&format!("{w}/{db}.db")),
            "{d:?}"
        );
        let id = Identifier::new(db.clone(), "t");
        c.create_table(&id, schema(), false).unwrap();
        let e = c.create_table(&id, schema(), false).unwrap_err();
        assert!(matches!(e, Error::CatalogObjectExists { .. }), "{e}");
        assert_eq!(c.list_tables(&db).unwrap(), vec!["t".to_string()]);
        let t = c.get_table(&id).unwrap();
        assert_eq!(t.path(), format!("{w}/{db}.db/t"));
        assert_eq!(t.schema().primary_keys, vec!["id".to_string()]);

        let to = Identifier::new(db.clone(), "t2");
        c.rename_table(&id, &to, false).unwrap();
        assert_eq!(c.list_tables(&db).unwrap(), vec!["t2".to_string()]);
        assert_eq!(c.get_table(&to).unwrap().path(), format!("{w}/{db}.db/t2"));
        assert!(!wh.path().join(format!("{db}.db/t")).exists());
        let e = c.get_table(&id).unwrap_err();
        assert!(
            matches!(e, Error::CatalogObjectNotFound { kind: "table", .. }),
            "{e}"
        );

        let change = SchemaChange::SetOption {
            key: "snapshot.num-retained.max".into(),
            value: "17".into(),
        };
        c.alter_table(&to, &[change], false).unwrap();
        assert_eq!(
            c.get_table(&to).unwrap().schema().options["snapshot.num-retained.max"],
            "17"
        );

        let e = c.drop_database(&db, false, false).unwrap_err();
        assert!(e.to_string().contains("not empty"), "{e}");
        c.drop_table(&to, false).unwrap();
        assert_eq!(c.list_tables(&db).unwrap(), Vec::<String>::new());
        assert!(!wh.path().join(format!("{db}.db/t2")).exists());
        c.drop_database(&db, false, false).unwrap();
        assert!(!c.list_databases().unwrap().contains(&db));
    }
}
