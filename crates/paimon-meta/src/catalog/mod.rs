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
mod partition_modification;
#[cfg(feature = "rest")]
pub mod rest;
mod snapshot_commit;

use std::collections::BTreeMap;
use std::fmt::Debug;

use paimon_spec::schema::TableSchema;

pub use filesystem::FileSystemCatalog;
pub use identifier::Identifier;
pub use options::{file_io_options, keys, open_catalog, CatalogOptions, Metastore};
pub use partition_modification::{PartitionModification, PartitionValues};
pub use snapshot_commit::{Published, RenamingSnapshotCommit, SnapshotCommit};

pub use crate::branch::BranchStart;
use crate::commit::SchemaChange;
use crate::error::{Error, Result};
use crate::schema_manager::Tag;
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

/// A partition of a table's latest snapshot and its statistics (Java `Partition`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// Each partition column's value as text (Java `generatePartValues`).
    pub spec: BTreeMap<String, String>,
    /// Rows of its files.
    pub record_count: i64,
    /// Bytes of its files.
    pub file_size_in_bytes: i64,
    /// Its files.
    pub file_count: i64,
    /// The newest creation time of its files, epoch millis (0 when none is recorded).
    pub last_file_creation_time: i64,
    /// Its bucket count (Java `totalBuckets`).
    pub total_buckets: i32,
    /// Whether it was marked done (a filesystem catalog keeps no such mark: `false`).
    pub done: bool,
}

impl Partition {
    /// The partitions of `table`'s latest snapshot (Java `listPartitionEntries`), sorted by
    /// their specs.
    ///
    /// # Errors
    /// Storage errors; corrupt manifests.
    pub fn of_table(table: &Table) -> Result<Vec<Partition>> {
        let mut out: Vec<Partition> = table
            .partition_entries()?
            .into_iter()
            .map(|e| Partition {
                spec: e.spec(table),
                record_count: e.record_count,
                file_size_in_bytes: e.file_size_in_bytes,
                file_count: e.file_count,
                last_file_creation_time: e.last_file_creation_time.unwrap_or(0),
                total_buckets: e.total_buckets,
                done: false,
            })
            .collect();
        out.sort_by(|a, b| a.spec.cmp(&b.spec));
        Ok(out)
    }
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

    /// Sets `updates` and removes `removals` among a database's options (Java
    /// `alterDatabase`). Catalogs that keep no database options (the filesystem catalog, as
    /// Java's) refuse it, which is the default.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] where database options are not kept;
    /// [`crate::Error::CatalogObjectNotFound`] when the database does not exist.
    fn alter_database(
        &self,
        name: &str,
        removals: &[String],
        updates: &BTreeMap<String, String>,
    ) -> Result<()> {
        let _ = (removals, updates);
        Err(crate::Error::unsupported(format!(
            "altering database {name}: the catalog at {} keeps no database options",
            self.location()
        )))
    }

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

    /// The partitions of a table's latest snapshot with their statistics (Java
    /// `listPartitions`), sorted by their specs.
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] when the table does not exist.
    fn list_partitions(&self, id: &Identifier) -> Result<Vec<Partition>> {
        Partition::of_table(&self.get_table(id)?)
    }

    /// A table's tag names, sorted (Java `listTags`).
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] when the table does not exist.
    fn list_tags(&self, id: &Identifier) -> Result<Vec<String>> {
        Ok(self
            .get_table(id)?
            .tags()?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    /// One tag of a table (Java `getTag`).
    ///
    /// # Errors
    /// [`crate::Error::TagNotFound`] when it does not exist.
    fn get_tag(&self, id: &Identifier, name: &str) -> Result<Tag> {
        self.get_table(id)?.tag_manager().tag_info(name)
    }

    /// Tags snapshot `snapshot_id` (the latest when `None`) as `name`, kept `time_retained_ms`
    /// when given (Java `createTag`).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a bad name or a tag that exists;
    /// [`crate::Error::SnapshotNotFound`] for a missing snapshot.
    fn create_tag(
        &self,
        id: &Identifier,
        name: &str,
        snapshot_id: Option<i64>,
        time_retained_ms: Option<u64>,
    ) -> Result<()> {
        self.get_table(id)?
            .create_tag(name, snapshot_id, time_retained_ms)
            .map(|_| ())
    }

    /// Deletes a tag and the files only it kept (Java `deleteTag`).
    ///
    /// # Errors
    /// [`crate::Error::TagNotFound`] when it does not exist.
    fn delete_tag(&self, id: &Identifier, name: &str) -> Result<()> {
        let table = self.get_table(id)?;
        if !table.tag_manager().exists(name)? {
            return Err(Error::TagNotFound {
                name: name.to_string(),
                path: table.tag_manager().layout().tag_dir(),
            });
        }
        table.delete_tag(name).map(|_| ())
    }

    /// A table's branches besides `main`, sorted (Java `listBranches`).
    ///
    /// # Errors
    /// [`crate::Error::CatalogObjectNotFound`] when the table does not exist.
    fn list_branches(&self, id: &Identifier) -> Result<Vec<String>> {
        self.get_table(id)?.branches()
    }

    /// Creates branch `name` of a table from `start` (Java `createBranch`).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a bad name or a branch that exists;
    /// [`crate::Error::TagNotFound`] for a missing tag.
    fn create_branch(&self, id: &Identifier, name: &str, start: &BranchStart) -> Result<()> {
        self.get_table(id)?.create_branch(name, start)
    }

    /// Drops branch `name` of a table (Java `dropBranch`).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] when it does not exist.
    fn drop_branch(&self, id: &Identifier, name: &str) -> Result<()> {
        self.get_table(id)?.delete_branch(name)
    }

    /// Renames branch `from` of a table to `to` (Java `renameBranch`).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for `main`, a bad new name, a missing branch or a new
    /// name that exists.
    fn rename_branch(&self, id: &Identifier, from: &str, to: &str) -> Result<()> {
        self.get_table(id)?.rename_branch(from, to)
    }

    /// Makes branch `name`'s history the table's (Java `fastForward`).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a missing branch or one without snapshots.
    fn fast_forward(&self, id: &Identifier, name: &str) -> Result<()> {
        self.get_table(id)?.fast_forward(name)
    }
}
