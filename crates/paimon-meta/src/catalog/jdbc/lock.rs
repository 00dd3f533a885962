//! Java's JDBC catalog lock (`JdbcCatalogLock` with `PostgresqlDistributedLockDialect`): a row
//! `<catalog-key>.<database>.<table>` in `paimon_distributed_locks`, inserted to take the lock
//! (the primary key refuses a second holder) and deleted to release it; a row older than its
//! `expire_time_seconds` (`lock-acquire-timeout`) is cleared first. Under `lock.enabled`, Java
//! and paimon-rs publish a table's snapshots only while holding it, so the two never both
//! publish one snapshot id on storage without an atomic create.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::connection::Connection;
use super::sql;
use crate::catalog::{Published, RenamingSnapshotCommit, SnapshotCommit};
use crate::error::{CatalogFailure, Error, Result};
use crate::snapshot::Snapshot;
use crate::table::Table;

/// The lock of one catalog (`catalog-key`), with Java's timings.
#[derive(Debug, Clone)]
pub(super) struct JdbcLock {
    pub(super) connection: Arc<Connection>,
    pub(super) catalog_key: String,
    /// `lock-check-max-sleep` (Java default 8 s): the longest pause between tries.
    pub(super) check_max_sleep: Duration,
    /// `lock-acquire-timeout` (Java default 8 min): how long to try, and the lock's expiry.
    pub(super) acquire_timeout: Duration,
}

impl JdbcLock {
    /// The lock's row id, as Java's `String.format("%s.%s.%s", catalogKey, database, table)`.
    pub(super) fn lock_id(&self, database: &str, object: &str) -> String {
        format!("{}.{database}.{object}", self.catalog_key)
    }

    /// Runs `f` holding the lock of `database.object`; the lock is released after `f`, even
    /// when it fails.
    pub(super) fn run_with_lock<T>(
        &self,
        database: &str,
        object: &str,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let id = self.lock_id(database, object);
        self.acquire(&id)?;
        let out = f();
        // A release that fails leaves the row to expire after `lock-acquire-timeout`; what
        // `f` did (a published snapshot) stands either way.
        let _ = self.connection.execute(sql::RELEASE_LOCK, &[&id]);
        out
    }

    fn try_acquire(&self, id: &str) -> Result<bool> {
        self.connection
            .execute(sql::RELEASE_TIMED_OUT_LOCK, &[&id])?;
        let expire = i64::try_from(self.acquire_timeout.as_secs()).unwrap_or(i64::MAX);
        match self.connection.execute(sql::ACQUIRE_LOCK, &[&id, &expire]) {
            Ok(n) => Ok(n > 0),
            // Held by another (unique key).
            Err(Error::Catalog {
                failure: CatalogFailure::Conflict,
                ..
            }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn acquire(&self, id: &str) -> Result<()> {
        let start = Instant::now();
        let mut sleep = Duration::from_millis(50);
        loop {
            if self.try_acquire(id)? {
                return Ok(());
            }
            if start.elapsed() > self.acquire_timeout {
                return Err(Error::catalog(
                    self.connection.uri(),
                    CatalogFailure::Conflict,
                    format!("lock {id}"),
                    format!("not acquired within {:?}", self.acquire_timeout),
                ));
            }
            sleep = (sleep * 2).min(self.check_max_sleep);
            std::thread::sleep(sleep);
        }
    }
}

/// A JDBC-catalog table's publish under `lock.enabled`: the filesystem's publish
/// ([`RenamingSnapshotCommit`]) while holding the table's JDBC lock, refusing an id that
/// exists (Java's `RenamingSnapshotCommit` with the catalog's `Lock`).
#[derive(Debug, Clone)]
pub struct JdbcSnapshotCommit {
    pub(super) lock: JdbcLock,
    pub(super) database: String,
    pub(super) object: String,
}

impl SnapshotCommit for JdbcSnapshotCommit {
    fn publish(&self, table: &Table, snapshot: &Snapshot) -> Result<Published> {
        self.lock.run_with_lock(&self.database, &self.object, || {
            let path = table.snapshot_manager().snapshot_path(snapshot.id);
            match table.file_io().exists(&path) {
                Ok(true) => Ok(Published::Lost),
                Ok(false) => RenamingSnapshotCommit.publish(table, snapshot),
                Err(e) => Ok(Published::Unknown(Error::io(e))),
            }
        })
    }
}
