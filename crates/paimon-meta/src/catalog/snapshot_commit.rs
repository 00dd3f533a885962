//! How a committer publishes the snapshot it built (Java `SnapshotCommit`): a filesystem
//! table writes `snapshot-N` with `publish_if_absent` ([`RenamingSnapshotCommit`], Java
//! `RenamingSnapshotCommit`); a table opened through a REST catalog hands the snapshot to the
//! server (Java `RESTSnapshotCommit`). Everything before the publish (manifests, conflict
//! checks, retries, exactly-once with the commit user and identifier) is the committer's and
//! is the same for both.

use std::fmt::Debug;

use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use crate::table::Table;

/// How one publish ended.
#[derive(Debug)]
pub enum Published {
    /// The snapshot is the table's snapshot `snapshot.id`.
    Committed,
    /// Snapshot `snapshot.id` was taken by another committer first; nothing was published.
    Lost,
    /// The outcome is unknown (the request or its answer was lost): the committer keeps its
    /// files and looks for its commit user and identifier among the snapshots before trying
    /// again.
    Unknown(Error),
}

/// Publishes a snapshot that a committer built (Java `SnapshotCommit`).
pub trait SnapshotCommit: Debug + Send + Sync {
    /// Publishes `snapshot` (whose id is the next one) on `table`.
    ///
    /// # Errors
    /// A definite failure that no retry can change (unsupported storage, refused
    /// authorization): nothing was published.
    fn publish(&self, table: &Table, snapshot: &Snapshot) -> Result<Published>;
}

/// The filesystem's publish: `snapshot-N` written if absent, then the `LATEST`/`EARLIEST`
/// hints (Java `RenamingSnapshotCommit`).
#[derive(Debug, Default, Clone, Copy)]
pub struct RenamingSnapshotCommit;

impl SnapshotCommit for RenamingSnapshotCommit {
    fn publish(&self, table: &Table, snapshot: &Snapshot) -> Result<Published> {
        let sm = table.snapshot_manager();
        let id = snapshot.id;
        let io = table.file_io();
        match io.publish_if_absent(&sm.snapshot_path(id), snapshot.to_json().as_bytes()) {
            Ok(true) => {
                // Hints are only hints: readers fall back to listing when they are stale.
                let _ = io.overwrite(&sm.layout().latest_hint(), id.to_string().as_bytes());
                if id == 1 {
                    let _ = io.overwrite(&sm.layout().earliest_hint(), b"1");
                }
                Ok(Published::Committed)
            }
            Ok(false) => Ok(Published::Lost),
            // Nothing was attempted.
            Err(e @ paimon_io::Error::Unsupported { .. }) => Err(Error::io(e)),
            Err(e) => Ok(Published::Unknown(Error::io(e))),
        }
    }
}
