//! The filesystem catalog (Java `FileSystemCatalog`): databases are `<warehouse>/<db>.db`
//! directories, tables their subdirectories holding a `schema` directory; tables commit by
//! publishing `snapshot-N` themselves.

use std::collections::BTreeMap;

use paimon_io::FileIORef;
use paimon_spec::layout;
use paimon_spec::schema::TableSchema;

use super::{Catalog, Database, Identifier};
use crate::commit::{create_table_at, SchemaChange};
use crate::error::{Error, Result};
use crate::table::{Table, DB_SUFFIX, MAIN_BRANCH};

/// A catalog over a warehouse directory: `<warehouse>/<db>.db/<table>` (Java
/// `FileSystemCatalog`).
#[derive(Debug, Clone)]
pub struct FileSystemCatalog {
    file_io: FileIORef,
    warehouse: String,
}

impl FileSystemCatalog {
    /// A catalog over `warehouse`.
    pub fn new(file_io: FileIORef, warehouse: &str) -> Self {
        FileSystemCatalog {
            file_io,
            warehouse: warehouse.trim_end_matches('/').to_string(),
        }
    }

    /// Storage.
    pub fn file_io(&self) -> &FileIORef {
        &self.file_io
    }

    /// Database names (directories ending in `.db`), sorted.
    ///
    /// # Errors
    /// Storage errors.
    pub fn list_databases(&self) -> Result<Vec<String>> {
        Ok(self
            .file_io
            .list(&self.warehouse)
            .map_err(Error::io)?
            .iter()
            .filter(|e| e.is_dir)
            .filter_map(|e| e.name().strip_suffix(DB_SUFFIX).map(str::to_string))
            .collect())
    }

    /// Table names of a database: subdirectories holding a `schema` directory.
    ///
    /// # Errors
    /// [`Error::NotFound`] when the database does not exist.
    pub fn list_tables(&self, database: &str) -> Result<Vec<String>> {
        let db = self.database_path(database);
        let mut out = Vec::new();
        for e in self.file_io.list(&db).map_err(Error::io)? {
            if e.is_dir
                && self
                    .file_io
                    .exists(&paimon_io::join(&e.path, layout::SCHEMA_DIR))
                    .map_err(Error::io)?
            {
                out.push(e.name().to_string());
            }
        }
        Ok(out)
    }

    /// Path of a database directory.
    /// A database (and table) name is one plain directory name: the catalog never creates or
    /// deletes outside its warehouse.
    fn check_names(&self, database: &str, table: Option<&str>) -> Result<()> {
        check_names(&self.warehouse, database, table)
    }

    pub fn database_path(&self, database: &str) -> String {
        paimon_io::join(&self.warehouse, &format!("{database}{DB_SUFFIX}"))
    }

    /// Path of a table directory.
    pub fn table_path(&self, database: &str, table: &str) -> String {
        paimon_io::join(&self.database_path(database), table)
    }

    /// Loads `database.table`; `table$branch_<name>` selects a branch as Java does.
    ///
    /// # Errors
    /// [`Error::NotFound`] when the table does not exist.
    pub fn get_table(&self, database: &str, table: &str) -> Result<Table> {
        let (name, branch) = match table.split_once("$branch_") {
            Some((n, b)) => (n, b),
            None => (table, MAIN_BRANCH),
        };
        Table::open_branch(
            self.file_io.clone(),
            &self.table_path(database, name),
            branch,
        )
    }
}

impl FileSystemCatalog {
    fn not_found(&self, kind: &'static str, name: String) -> Error {
        Error::not_found_in(&self.warehouse, kind, name)
    }

    fn database_exists(&self, database: &str) -> Result<bool> {
        self.file_io
            .exists(&self.database_path(database))
            .map_err(Error::io)
    }

    fn table_exists(&self, id: &Identifier) -> Result<bool> {
        let path = self.table_path(&id.database, id.table_name());
        self.file_io
            .exists(&paimon_io::join(&path, layout::SCHEMA_DIR))
            .map_err(Error::io)
    }
}

impl Catalog for FileSystemCatalog {
    fn location(&self) -> &str {
        &self.warehouse
    }

    fn list_databases(&self) -> Result<Vec<String>> {
        let mut dbs = FileSystemCatalog::list_databases(self)?;
        dbs.sort();
        Ok(dbs)
    }

    fn get_database(&self, name: &str) -> Result<Database> {
        if !self.database_exists(name)? {
            return Err(self.not_found("database", name.to_string()));
        }
        Ok(Database {
            name: name.to_string(),
            options: BTreeMap::new(),
            location: Some(self.database_path(name)),
        })
    }

    fn create_database(
        &self,
        name: &str,
        ignore_if_exists: bool,
        options: &BTreeMap<String, String>,
    ) -> Result<()> {
        self.check_names(name, None)?;
        if !options.is_empty() {
            return Err(Error::unsupported(
                "database options in a filesystem catalog (Java keeps none either)",
            ));
        }
        if self.database_exists(name)? {
            return if ignore_if_exists {
                Ok(())
            } else {
                Err(Error::exists_in(&self.warehouse, "database", name))
            };
        }
        self.file_io
            .mkdirs(&self.database_path(name))
            .map_err(Error::io)
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
        let tables = FileSystemCatalog::list_tables(self, name)?;
        if !cascade && !tables.is_empty() {
            return Err(Error::database_not_empty(
                self.database_path(name),
                name,
                tables.len(),
            ));
        }
        self.file_io
            .delete_dir(&self.database_path(name))
            .map(|_| ())
            .map_err(Error::io)
    }

    fn list_tables(&self, database: &str) -> Result<Vec<String>> {
        if !self.database_exists(database)? {
            return Err(self.not_found("database", database.to_string()));
        }
        let mut tables = FileSystemCatalog::list_tables(self, database)?;
        tables.sort();
        Ok(tables)
    }

    fn get_table(&self, id: &Identifier) -> Result<Table> {
        FileSystemCatalog::get_table(self, &id.database, &id.object)
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
        if self.table_exists(id)? {
            return if ignore_if_exists {
                Ok(())
            } else {
                Err(Error::exists_in(&self.warehouse, "table", id.to_string()))
            };
        }
        let path = self.table_path(&id.database, &id.object);
        create_table_at(self.file_io.clone(), &path, schema, ignore_if_exists).map(|_| ())
    }

    fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        self.check_names(&id.database, Some(id.table_name()))?;
        if !self.table_exists(id)? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", id.full_table_name()))
            };
        }
        self.file_io
            .delete_dir(&self.table_path(&id.database, id.table_name()))
            .map(|_| ())
            .map_err(Error::io)
    }

    fn rename_table(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        if !self.table_exists(from)? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", from.full_table_name()))
            };
        }
        let _ = to;
        Err(Error::unsupported(
            "rename-table in a filesystem catalog (the storage layer has no directory rename)",
        ))
    }

    fn alter_table(
        &self,
        id: &Identifier,
        changes: &[SchemaChange],
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        if !self.table_exists(id)? {
            return if ignore_if_not_exists {
                Ok(())
            } else {
                Err(self.not_found("table", id.full_table_name()))
            };
        }
        FileSystemCatalog::get_table(self, &id.database, &id.object)?
            .alter(changes)
            .map(|_| ())
    }
}

/// Checks that `database` (as its `<database>.db` directory) and `table` are plain directory
/// names, so no catalog call climbs out of the warehouse; errors name `catalog`. Every catalog
/// whose tables live in warehouse directories (filesystem, JDBC) checks names here.
pub(super) fn check_names(catalog: &str, database: &str, table: Option<&str>) -> Result<()> {
    layout::check_file_name("database", &format!("{database}{DB_SUFFIX}"))
        .map_err(|e| Error::spec(catalog, e))?;
    if let Some(table) = table {
        layout::check_file_name("table", table).map_err(|e| Error::spec(catalog, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn catalog(dir: &std::path::Path) -> FileSystemCatalog {
        FileSystemCatalog::new(
            Arc::new(paimon_io::LocalFileIO::new()),
            dir.to_str().unwrap(),
        )
    }

    fn schema() -> TableSchema {
        TableSchema::from_json_str(
            r#"{"version":3,"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],
                "highestFieldId":0,"partitionKeys":[],"primaryKeys":[],"options":{},
                "timeMillis":0}"#,
        )
        .unwrap()
    }

    /// A database or table name that climbs out of the warehouse is refused before anything is
    /// dropped: the table and database beside the warehouse survive.
    #[test]
    fn drops_never_leave_the_warehouse() {
        let dir = tempfile::tempdir().unwrap();
        let beside = catalog(dir.path());
        let beside: &dyn Catalog = &beside;
        beside
            .create_database("outside", false, &BTreeMap::new())
            .unwrap();
        beside
            .create_table(&Identifier::new("outside", "t"), schema(), false)
            .unwrap();
        let wh = dir.path().join("wh");
        std::fs::create_dir_all(&wh).unwrap();
        let c = catalog(&wh);
        let c: &dyn Catalog = &c;
        let hostile = Identifier::new("../outside", "t");
        assert!(c.drop_table(&hostile, false).is_err());
        assert!(c
            .drop_table(&Identifier::new("outside", "../t"), true)
            .is_err());
        assert!(c.drop_database("../outside", false, true).is_err());
        assert!(dir.path().join("outside.db/t/schema/schema-0").exists());
    }

    /// Databases and tables created, listed, refused twice, altered and dropped through the
    /// trait, on a fresh warehouse.
    #[test]
    fn databases_and_tables_through_the_trait() {
        let dir = tempfile::tempdir().unwrap();
        let c: &dyn Catalog = &catalog(dir.path());
        assert_eq!(c.list_databases().unwrap(), Vec::<String>::new());
        c.create_database("db", false, &BTreeMap::new()).unwrap();
        let e = c
            .create_database("db", false, &BTreeMap::new())
            .unwrap_err();
        assert!(matches!(e, Error::CatalogObjectExists { .. }), "{e}");
        c.create_database("db", true, &BTreeMap::new()).unwrap();
        assert_eq!(c.list_databases().unwrap(), vec!["db".to_string()]);

        let id = Identifier::parse("db.t").unwrap();
        c.create_table(&id, schema(), false).unwrap();
        let e = c.create_table(&id, schema(), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("table db.t already exists in catalog {}", c.location())
        );
        let missing = Identifier::parse("nodb.t").unwrap();
        let e = c.create_table(&missing, schema(), false).unwrap_err();
        assert!(
            e.to_string().starts_with("database nodb does not exist"),
            "{e}"
        );
        assert_eq!(c.list_tables("db").unwrap(), vec!["t".to_string()]);

        let change = SchemaChange::SetOption {
            key: "snapshot.num-retained.max".into(),
            value: "17".into(),
        };
        c.alter_table(&id, &[change], false).unwrap();
        let t = c.get_table(&id).unwrap();
        assert_eq!(t.schema().id, 1);
        assert_eq!(t.schema().options["snapshot.num-retained.max"], "17");
        // Below the default `snapshot.num-retained.min` (10): Java would not open the table.
        let too_few = SchemaChange::SetOption {
            key: "snapshot.num-retained.max".into(),
            value: "7".into(),
        };
        let e = c
            .alter_table(&id, &[too_few], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("snapshot.num-retained.max = 7 is below"), "{e}");
        assert_eq!(c.get_table(&id).unwrap().schema().id, 1);

        let e = c.drop_database("db", false, false).unwrap_err();
        assert!(e.to_string().contains("not empty"), "{e}");
        c.drop_table(&id, false).unwrap();
        let e = c.drop_table(&id, false).unwrap_err();
        assert!(
            matches!(e, Error::CatalogObjectNotFound { kind: "table", .. }),
            "{e}"
        );
        c.drop_database("db", false, false).unwrap();
        assert_eq!(c.list_databases().unwrap(), Vec::<String>::new());
    }
}
