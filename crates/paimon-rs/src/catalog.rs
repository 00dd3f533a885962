//! [`Catalog`]: where tables are found by `db.table`: a filesystem warehouse
//! (`<warehouse>/<db>.db/<table>`, as Java's `FileSystemCatalog` lays it out) or, from
//! Java's catalog options ([`Catalog::open`]), a REST catalog server whose tables commit
//! through the server.

use std::collections::BTreeMap;
use std::sync::Arc;

use paimon_io::FileIORef;
use paimon_meta::catalog::{self as meta_catalog, Identifier};

use crate::error::{Error, Result};
use crate::table::{trim, Table};

pub use paimon_meta::catalog::Database;

/// A catalog of tables. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Catalog {
    inner: Arc<dyn meta_catalog::Catalog>,
    /// The filesystem catalog, when this is one (paths of tables not yet created).
    fs: Option<paimon_meta::Catalog>,
}

impl Catalog {
    /// The filesystem catalog at `warehouse` (a local path or an object-store URL), with the
    /// storage its scheme names.
    ///
    /// # Errors
    /// An unsupported scheme (a backend this build leaves out).
    pub fn filesystem(warehouse: &str) -> Result<Catalog> {
        let warehouse = trim(warehouse);
        Ok(Catalog::new(paimon_io::file_io_for(warehouse)?, warehouse))
    }

    /// The filesystem catalog at `warehouse` on `io`.
    pub fn new(io: FileIORef, warehouse: &str) -> Catalog {
        let fs = paimon_meta::Catalog::new(io, warehouse);
        Catalog {
            inner: Arc::new(fs.clone()),
            fs: Some(fs),
        }
    }

    /// The catalog Java's catalog options describe: `metastore` = `filesystem` (default,
    /// with `warehouse`), `rest` (with `uri`, `token.provider` = `bear`, `token`,
    /// `warehouse`, `header.*`) or `jdbc` (feature `jdbc`: `uri` =
    /// `jdbc:postgresql://host:port/db`, `jdbc.user`, `jdbc.password`, `warehouse`,
    /// `catalog-key`, `lock.enabled`) or `hive` (feature `hive`: `uri` =
    /// `thrift://host:port`, `warehouse`, `lock.enabled`); other keys are storage (FileIO)
    /// options.
    ///
    /// # Errors
    /// Missing or invalid options; the REST server unreachable or refusing the token.
    pub fn open<K, V>(options: impl IntoIterator<Item = (K, V)>) -> Result<Catalog>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let options: BTreeMap<String, String> = options
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let opts = meta_catalog::CatalogOptions::from_map(options)?;
        match opts.metastore {
            meta_catalog::Metastore::FileSystem => {
                let warehouse = trim(opts.require(meta_catalog::keys::WAREHOUSE)?);
                let storage = meta_catalog::file_io_options(&opts.options);
                let io = paimon_io::file_io_with_options(warehouse, &storage)?;
                Ok(Catalog::new(io, warehouse))
            }
            _ => Ok(Catalog {
                inner: meta_catalog::open_catalog(&opts.options)?,
                fs: None,
            }),
        }
    }

    /// The catalog interface (paimon-meta).
    pub fn catalog(&self) -> &Arc<dyn meta_catalog::Catalog> {
        &self.inner
    }

    /// The table `identifier`: `db.table` (`db.table$branch_<name>` for a branch).
    ///
    /// # Errors
    /// An identifier without a database; no such table.
    pub fn table(&self, identifier: &str) -> Result<Table> {
        let id = parse(identifier)?;
        Ok(Table::from_meta(self.inner.get_table(&id)?))
    }

    /// Database names, sorted.
    ///
    /// # Errors
    /// Storage or server errors.
    pub fn list_databases(&self) -> Result<Vec<String>> {
        Ok(self.inner.list_databases()?)
    }

    /// One database.
    ///
    /// # Errors
    /// No such database; storage or server errors.
    pub fn database(&self, name: &str) -> Result<Database> {
        Ok(self.inner.get_database(name)?)
    }

    /// The tables of `database`, sorted.
    ///
    /// # Errors
    /// No such database; storage errors.
    pub fn list_tables(&self, database: &str) -> Result<Vec<String>> {
        Ok(self.inner.list_tables(database)?)
    }

    /// Creates a database.
    ///
    /// # Errors
    /// It exists (unless `ignore_if_exists`); storage or server errors.
    pub fn create_database(
        &self,
        name: &str,
        ignore_if_exists: bool,
        options: &BTreeMap<String, String>,
    ) -> Result<()> {
        Ok(self
            .inner
            .create_database(name, ignore_if_exists, options)?)
    }

    /// Drops a database (with `cascade`, its tables too).
    ///
    /// # Errors
    /// No such database (unless `ignore_if_not_exists`); tables left without `cascade`.
    pub fn drop_database(
        &self,
        name: &str,
        ignore_if_not_exists: bool,
        cascade: bool,
    ) -> Result<()> {
        Ok(self
            .inner
            .drop_database(name, ignore_if_not_exists, cascade)?)
    }

    /// Creates the table `identifier` with `schema` (ids and time assigned on creation).
    ///
    /// # Errors
    /// It exists (unless `ignore_if_exists`); no such database; an invalid schema.
    pub fn create_table(
        &self,
        identifier: &str,
        schema: paimon_spec::schema::TableSchema,
        ignore_if_exists: bool,
    ) -> Result<()> {
        let id = parse(identifier)?;
        Ok(self.inner.create_table(&id, schema, ignore_if_exists)?)
    }

    /// Drops the table `identifier` and its files.
    ///
    /// # Errors
    /// No such table (unless `ignore_if_not_exists`).
    pub fn drop_table(&self, identifier: &str, ignore_if_not_exists: bool) -> Result<()> {
        let id = parse(identifier)?;
        Ok(self.inner.drop_table(&id, ignore_if_not_exists)?)
    }

    /// Renames the table `from` to `to` (both `db.table`).
    ///
    /// # Errors
    /// No such table (unless `ignore_if_not_exists`); `to` exists; a catalog that cannot
    /// rename (the filesystem one).
    pub fn rename_table(&self, from: &str, to: &str, ignore_if_not_exists: bool) -> Result<()> {
        Ok(self
            .inner
            .rename_table(&parse(from)?, &parse(to)?, ignore_if_not_exists)?)
    }

    /// The location of `database.table` in a filesystem catalog (whether or not it exists);
    /// `None` for a catalog that decides locations itself (REST).
    pub fn table_path(&self, database: &str, table: &str) -> Option<String> {
        self.fs.as_ref().map(|fs| fs.table_path(database, table))
    }

    /// The filesystem catalog (paimon-meta), when this is one.
    pub fn meta(&self) -> Option<&paimon_meta::Catalog> {
        self.fs.as_ref()
    }
}

fn parse(identifier: &str) -> Result<Identifier> {
    Identifier::parse(identifier).map_err(|_| {
        Error::invalid(
            "table identifier",
            format!("'{identifier}' is not of the form db.table"),
        )
    })
}
