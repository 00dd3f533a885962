//! Java's Hive catalog lock (`HiveCatalogLock`): an `EXCLUSIVE` table-level metastore lock
//! on `database.table` (`lock`), polled with `check_lock` while `WAITING` (the pause doubling
//! from 50 ms up to `lock-check-max-sleep`) until `lock-acquire-timeout`, released with
//! `unlock`. Under `lock.enabled`, Java and paimon-rs publish a table's snapshots only while
//! holding it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::client::{Client, Thrown};
use super::thrift::{ttype, Value};
use crate::catalog::options::{duration_option, CatalogOptions};
use crate::catalog::{Published, RenamingSnapshotCommit, SnapshotCommit};
use crate::error::{CatalogFailure, Error, Result};
use crate::snapshot::Snapshot;
use crate::table::Table;

/// `LockState`.
const ACQUIRED: i32 = 1;
const WAITING: i32 = 2;
/// `LockType.EXCLUSIVE`, `LockLevel.TABLE`.
const EXCLUSIVE: i32 = 3;
const TABLE_LEVEL: i32 = 2;

/// The metastore lock with Java's timings.
#[derive(Debug, Clone)]
pub(super) struct HiveLock {
    client: Arc<Client>,
    /// `lock-check-max-sleep` (Java default 8 s).
    check_max_sleep: Duration,
    /// `lock-acquire-timeout` (Java default 8 min).
    acquire_timeout: Duration,
}

impl HiveLock {
    /// The lock of `client`'s metastore with the timings of `opts`.
    ///
    /// # Errors
    /// A timing option that is not a duration.
    pub(super) fn new(client: Arc<Client>, opts: &CatalogOptions) -> Result<Self> {
        Ok(HiveLock {
            client,
            check_max_sleep: duration_option(opts, "lock-check-max-sleep", Duration::from_secs(8))?,
            acquire_timeout: duration_option(
                opts,
                "lock-acquire-timeout",
                Duration::from_secs(8 * 60),
            )?,
        })
    }

    /// Runs `f` holding the lock of `database.table`; released after `f`, even when it fails.
    pub(super) fn run_with_lock<T>(
        &self,
        database: &str,
        table: &str,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let id = self.acquire(database, table)?;
        let out = f();
        // A release that fails leaves the lock to the metastore's timeout; what `f` did
        // stands either way.
        let _ = self.unlock(id);
        out
    }

    fn failed(&self, what: String, reason: String) -> Error {
        Error::catalog(self.client.uri(), CatalogFailure::Conflict, what, reason)
    }

    fn response(
        &self,
        what: &str,
        reply: std::result::Result<Option<Value>, Thrown>,
    ) -> Result<(i64, i32)> {
        let v = match reply {
            Ok(Some(v)) => v,
            Ok(None) => {
                return Err(Error::catalog(
                    self.client.uri(),
                    CatalogFailure::MalformedResponse,
                    what.to_string(),
                    "no LockResponse",
                ))
            }
            Err(t) => {
                return Err(Error::catalog(
                    self.client.uri(),
                    CatalogFailure::Refused,
                    what.to_string(),
                    format!("{t:?}"),
                ))
            }
        };
        match (v.field(1), v.field(2)) {
            (Some(Value::I64(id)), Some(Value::I32(state))) => Ok((*id, *state)),
            _ => Err(Error::catalog(
                self.client.uri(),
                CatalogFailure::MalformedResponse,
                what.to_string(),
                "LockResponse without lockid and state",
            )),
        }
    }

    fn acquire(&self, database: &str, table: &str) -> Result<i64> {
        let what = format!("lock {database}.{table}");
        let user = std::env::var("USER").unwrap_or_else(|_| "paimon".to_string());
        let host = std::fs::read_to_string("/etc/hostname")
            .map(|h| h.trim().to_string())
            .ok()
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".to_string());
        let reply = self.client.call("lock", false, |w| {
            w.field(ttype::STRUCT, 1);
            w.list_header(1, ttype::STRUCT, 1);
            w.i32_field(1, EXCLUSIVE);
            w.i32_field(2, TABLE_LEVEL);
            w.string_field(3, database);
            w.string_field(4, table);
            w.stop();
            w.string_field(3, &user);
            w.string_field(4, &host);
            w.stop();
        })?;
        let (id, mut state) = self.response(&what, reply)?;
        let start = Instant::now();
        let mut sleep = Duration::from_millis(50);
        while state == WAITING {
            sleep = (sleep * 2).min(self.check_max_sleep);
            std::thread::sleep(sleep);
            let reply = self.client.call("check_lock", true, |w| {
                w.field(ttype::STRUCT, 1);
                w.i64_field(1, id);
                w.stop();
            })?;
            state = self.response(&what, reply)?.1;
            if start.elapsed() > self.acquire_timeout {
                break;
            }
        }
        if state != ACQUIRED {
            if state == WAITING {
                let _ = self.unlock(id);
            }
            return Err(self.failed(
                what,
                format!(
                    "not acquired within {:?} (lock state {state})",
                    start.elapsed()
                ),
            ));
        }
        Ok(id)
    }

    fn unlock(&self, id: i64) -> Result<()> {
        self.client
            .call("unlock", false, |w| {
                w.field(ttype::STRUCT, 1);
                w.i64_field(1, id);
                w.stop();
            })?
            .map(|_| ())
            .map_err(|t| self.failed(format!("unlock {id}"), format!("{t:?}")))
    }
}

/// A Hive-catalog table's publish under `lock.enabled`: the filesystem's publish
/// ([`RenamingSnapshotCommit`]) while holding the table's metastore lock, refusing an id that
/// exists (Java's `RenamingSnapshotCommit` with the catalog's `Lock`).
#[derive(Debug, Clone)]
pub struct HiveSnapshotCommit {
    pub(super) lock: HiveLock,
    pub(super) database: String,
    pub(super) table: String,
}

impl SnapshotCommit for HiveSnapshotCommit {
    fn publish(&self, table: &Table, snapshot: &Snapshot) -> Result<Published> {
        self.lock.run_with_lock(&self.database, &self.table, || {
            let path = table.snapshot_manager().snapshot_path(snapshot.id);
            match table.file_io().exists(&path) {
                Ok(true) => Ok(Published::Lost),
                Ok(false) => RenamingSnapshotCommit.publish(table, snapshot),
                Err(e) => Ok(Published::Unknown(Error::io(e))),
            }
        })
    }
}
