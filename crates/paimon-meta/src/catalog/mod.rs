//! Catalogs: where a table is found by `database.table`, and how a table opened through one
//! commits (Java `Catalog`).
//!
//! * [`Catalog`]: the interface (databases, tables, and the [`SnapshotCommit`] a table it
//!   opens publishes with).
//! * [`FileSystemCatalog`]: a warehouse directory, `<warehouse>/<db>.db/<table>` (Java
//!   `FileSystemCatalog`); its tables publish `snapshot-N` themselves.
//! * `RestCatalog` (feature `rest`): Paimon's REST catalog API 1.0 as Java 1.4.2's
//!   `RESTCatalog` speaks it; its tables commit through the server.
//! * `JdbcCatalog` (feature `jdbc`): Java 1.4.2's `JdbcCatalog` tables on PostgreSQL; its
//!   tables commit under Java's JDBC lock when `lock.enabled`.
//! * `HiveCatalog` (feature `hive`): Java 1.4.2's `HiveCatalog` registrations in a Hive
//!   Metastore (Thrift); its tables commit under the metastore's lock when `lock.enabled`.
//! * [`open_catalog`]: one of them from Java's catalog option names (`metastore`,
//!   `warehouse`, `uri`, `token.provider`, `token`, `header.*`, FileIO options).

mod filesystem;
#[cfg(feature = "hive")]
pub mod hive;
mod identifier;
#[cfg(feature = "jdbc")]
pub mod jdbc;
mod options;
#[cfg(feature = "rest")]
pub mod rest;
mod snapshot_commit;

use std::collections::BTreeMap;
use std::fmt::Debug;

use paimon_spec::schema::TableSchema;

pub use filesystem::FileSystemCatalog;
pub use identifier::Identifier;
pub use options::{file_io_options, keys, open_catalog, CatalogOptions, Metastore};
pub use snapshot_commit::{Published, RenamingSnapshotCommit, SnapshotCommit};

use crate::commit::SchemaChange;
use crate::error::Result;
use crate::table::Table;

/// A database as a catalog describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Database {
    /// Its name.
    pub name: String,
    /// Its options (the catalog's `location` among them when it has one).
    pub options: BTreeMap<String, String>,
    /// Where its tables are stored, when the catalog says.
    pub location: Option<String>,
}

/// Databases and tables by name (Java `Catalog`). A [`Table`] it returns carries the
/// [`SnapshotCommit`] its commits publish with, so writers, compaction and expiry go through
/// the catalog without knowing which one it is.
///
/// Names of missing or existing objects give
/// [`crate::Error::CatalogObjectNotFound`] and [`crate::Error::CatalogObjectExists`];
/// transport and server failures [`crate::Error::Catalog`].
pub trait Catalog: Debug + Send + Sync {
    /// Where the catalog is (a warehouse path or a URI), for messages.
    fn location(&self) -> &str;

    /// Database names, sorted.
    ///
    /// # Errors
    /// Storage or server errors.
    fn list_databases(&self) -> Result<Vec<String>>;

    /// One database.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] when it does not exist.
    fn get_database(&self, name: &str) -> Result<Database>;

    /// Creates a database with `options`.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectExists`] unless `ignore_if_exists`.
    fn create_database(
        &self,
        name: &str,
        ignore_if_exists: bool,
        options: &BTreeMap<String, String>,
    ) -> Result<()>;

    /// Drops a database; with `cascade` its tables too, else it must be empty.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] unless `ignore_if_not_exists`; a database
    /// with tables without `cascade`.
    fn drop_database(&self, name: &str, ignore_if_not_exists: bool, cascade: bool) -> Result<()>;

    /// Table names of a database, sorted.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] when the database does not exist.
    fn list_tables(&self, database: &str) -> Result<Vec<String>>;

    /// Opens a table; `object` may name a branch as `t$branch_<name>`.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] when it does not exist.
    fn get_table(&self, id: &Identifier) -> Result<Table>;

    /// Creates a table from `schema` (its id, field ids and time are assigned here).
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectExists`] unless `ignore_if_exists`; the database missing.
    fn create_table(
        &self,
        id: &Identifier,
        schema: TableSchema,
        ignore_if_exists: bool,
    ) -> Result<()>;

    /// Drops a table and its files.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] unless `ignore_if_not_exists`.
    fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()>;

    /// Renames a table.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] unless `ignore_if_not_exists`;
    /// [`crate::Error::CatalogObjectExists`] when `to` exists.
    fn rename_table(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()>;

    /// Alters a table's schema.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] unless `ignore_if_not_exists`; a change the
    /// table refuses.
    fn alter_table(
        &self,
        id: &Identifier,
        changes: &[SchemaChange],
        ignore_if_not_exists: bool,
    ) -> Result<()>;
}
