//! [`Catalog`]: a filesystem warehouse (`<warehouse>/<db>.db/<table>`), as Java's
//! `FileSystemCatalog` lays it out.

use paimon_io::FileIORef;

use crate::error::{Error, Result};
use crate::table::{trim, Table};

/// A warehouse of tables.
#[derive(Debug, Clone)]
pub struct Catalog {
    inner: paimon_meta::Catalog,
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
        Catalog {
            inner: paimon_meta::Catalog::new(io, warehouse),
        }
    }

    /// The table `identifier`: `db.table` (`db.table$branch_<name>` for a branch).
    ///
    /// # Errors
    /// An identifier without a database; no such table.
    pub fn table(&self, identifier: &str) -> Result<Table> {
        let (db, name) = identifier
            .split_once('.')
            .filter(|(d, t)| !d.is_empty() && !t.is_empty())
            .ok_or_else(|| {
                Error::invalid(
                    "table identifier",
                    format!("'{identifier}' is not of the form db.table"),
                )
            })?;
        Ok(Table::from_meta(self.inner.get_table(db, name)?))
    }

    /// Database names, sorted.
    ///
    /// # Errors
    /// Storage errors.
    pub fn list_databases(&self) -> Result<Vec<String>> {
        Ok(self.inner.list_databases()?)
    }

    /// The tables of `database`.
    ///
    /// # Errors
    /// No such database; storage errors.
    pub fn list_tables(&self, database: &str) -> Result<Vec<String>> {
        Ok(self.inner.list_tables(database)?)
    }

    /// The location of `database.table` (whether or not it exists).
    pub fn table_path(&self, database: &str, table: &str) -> String {
        self.inner.table_path(database, table)
    }

    /// The control-plane catalog (paimon-meta).
    pub fn meta(&self) -> &paimon_meta::Catalog {
        &self.inner
    }
}
