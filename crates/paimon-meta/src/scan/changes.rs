//! Streaming-style reads: what changed since snapshot N, one snapshot at a time (Java
//! `DataTableStreamScan` after `restore(N + 1)`, with its `FollowUpScanner`).
//!
//! ```text
//!  snapshot   11 COMPACT   12 APPEND   13 APPEND   14 COMPACT   15 APPEND
//!  delta            -          plan        plan         -           plan
//!  (no changelog producer: Java's DeltaFollowUpScanner reads APPEND snapshots only)
//! ```
//!
//! Each [`ChangePlan`] holds the streaming splits of one snapshot: its delta files, or its
//! changelog files when the table has a changelog producer (`ChangelogFollowUpScanner`: every
//! snapshot that has a changelog, compactions included). Primary-key rows of those splits are
//! read without merging, so they carry their row kinds (`+I`, `-U`, `+U`, `-D`). Snapshots Java
//! skips, and snapshots whose changes are filtered away, yield no plan. After each plan,
//! [`ChangeScan::next_snapshot_id`] is the checkpoint to resume from with
//! [`ChangeScan::restore`].
//!
//! ```no_run
//! # use std::sync::Arc;
//! # let table = paimon_meta::Table::open(Arc::new(paimon_io::LocalFileIO::new()), "/t")?;
//! let mut changes = table.changes_since(11);
//! while let Some(plan) = changes.next_plan()? {
//!     println!("snapshot {}: {} splits", plan.snapshot_id, plan.splits.len());
//! }
//! let checkpoint = changes.next_snapshot_id(); // resume later with restore(checkpoint)
//! # Ok::<(), paimon_meta::Error>(())
//! ```

use paimon_spec::options::ChangelogProducer;
use paimon_split::DataSplit;

use super::files::ManifestReader;
use super::incremental::Incremental;
use super::{Plan, ScanBuilder};
use crate::error::{Error, Result};
use crate::manifest::ManifestEntry;
use crate::snapshot::Snapshot;
use crate::table::{branch_root, Table};

/// The changes of one snapshot in a streaming read.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangePlan {
    /// The snapshot whose changes these are.
    pub snapshot_id: i64,
    /// Its commit kind (`APPEND`, `COMPACT`, `OVERWRITE`, ...).
    pub commit_kind: String,
    /// Streaming splits (`is_streaming`): the snapshot's delta or changelog files.
    pub splits: Vec<DataSplit>,
}

/// Plans the changes of the snapshots after a given one, one snapshot at a time.
#[derive(Debug, Clone)]
pub struct ChangeScan {
    scan: ScanBuilder,
    next_snapshot_id: i64,
    /// The iterator has returned an error (and ends).
    failed: bool,
}

impl Table {
    /// The changes of every snapshot after `snapshot_id`, as Java's streaming read restored at
    /// `snapshot_id + 1` sees them; see [`ChangeScan`].
    pub fn changes_since(&self, snapshot_id: i64) -> ChangeScan {
        self.scan().change_scan(snapshot_id)
    }
}

impl ScanBuilder {
    /// A [`ChangeScan`] of the snapshots after `snapshot_id` with this scan's filter.
    pub fn change_scan(&self, snapshot_id: i64) -> ChangeScan {
        let mut scan = self.clone();
        scan.incremental = None;
        ChangeScan {
            scan,
            next_snapshot_id: snapshot_id.saturating_add(1),
            failed: false,
        }
    }

    /// Plans the changes of every snapshot after `snapshot_id`, concatenated in snapshot order
    /// ([`ChangeScan`] plans them one at a time). The plan's snapshot id is the latest snapshot
    /// looked at: pass it as the next `snapshot_id` to continue.
    pub fn with_changes_since(mut self, snapshot_id: i64) -> Self {
        self.incremental = Some(Incremental::ChangesSince(snapshot_id));
        self
    }

    pub(super) fn plan_changes_since(&self, snapshot_id: i64) -> Result<Plan> {
        let mut changes = self.change_scan(snapshot_id);
        let mut splits = Vec::new();
        while let Some(p) = changes.next_plan()? {
            splits.extend(p.splits);
        }
        let last = changes.next_snapshot_id - 1;
        Ok(Plan::new((last >= 1).then_some(last), splits, None))
    }

    /// Java's follow-up scan of snapshot `id`: whether it is read, and its entries.
    pub(super) fn follow_up_entries(
        &self,
        reader: &ManifestReader,
        id: i64,
    ) -> Result<(Snapshot, Vec<ManifestEntry>)> {
        let snapshot = self.table.snapshot_manager().snapshot(id)?;
        let Some(list) = follow_up_list(&self.table, &snapshot) else {
            return Ok((snapshot, Vec::new()));
        };
        let mut entries = reader.read_merged_list(list)?;
        // Java reads only real buckets of a postpone-bucket table with a changelog producer.
        let opts = self.table.options();
        if opts.bucket == -2 && opts.changelog_producer != ChangelogProducer::None {
            entries.retain(|e| e.bucket >= 0);
        }
        Ok((snapshot, entries))
    }
}

/// The manifest list Java's follow-up scanner reads of `snapshot`, if it reads the snapshot:
/// the changelog list with a changelog producer (`ChangelogFollowUpScanner`), else the delta
/// list of APPEND snapshots (`DeltaFollowUpScanner`).
fn follow_up_list<'a>(table: &Table, snapshot: &'a Snapshot) -> Option<&'a str> {
    if table.options().changelog_producer != ChangelogProducer::None {
        snapshot.changelog_manifest_list.as_deref()
    } else if snapshot.commit_kind == "APPEND" {
        Some(snapshot.delta_manifest_list.as_str())
    } else {
        None
    }
}

impl ChangeScan {
    /// The next snapshot to plan: the checkpoint to [`ChangeScan::restore`] from.
    pub fn next_snapshot_id(&self) -> i64 {
        self.next_snapshot_id
    }

    /// Continues from `next_snapshot_id` (a value [`ChangeScan::next_snapshot_id`] returned).
    pub fn restore(&mut self, next_snapshot_id: i64) {
        self.next_snapshot_id = next_snapshot_id;
        self.failed = false;
    }

    /// The changes of the next snapshot that has any, or `None` once every existing snapshot
    /// has been looked at (a later call sees snapshots committed meanwhile).
    ///
    /// # Errors
    /// [`Error::SnapshotExpired`] when the next snapshot has been expired (its changes are
    /// gone); [`Error::SnapshotNotFound`] when the next snapshot id lies beyond the latest
    /// snapshot + 1; [`Error::Unsupported`] for `streaming-read-overwrite`,
    /// `scan.bounded.watermark` and long-lived changelog files; planning errors otherwise.
    pub fn next_plan(&mut self) -> Result<Option<ChangePlan>> {
        self.check_options()?;
        let table = self.scan.table.clone();
        let sm = table.snapshot_manager();
        loop {
            let id = self.next_snapshot_id;
            let snapshot = match sm.snapshot(id) {
                Ok(s) => s,
                Err(Error::SnapshotNotFound { path, .. }) => {
                    let latest = sm.latest_id()?.unwrap_or(0);
                    if id > latest + 1 {
                        return Err(Error::SnapshotNotFound { id, path });
                    }
                    return Ok(None);
                }
                Err(e @ Error::SnapshotExpired { .. }) => {
                    let changelog = paimon_io::join(
                        &branch_root(table.path(), table.branch()),
                        &format!("changelog/changelog-{id}"),
                    );
                    if table.file_io().exists(&changelog).map_err(Error::io)? {
                        return Err(Error::unsupported(format!(
                            "reading the long-lived changelog of expired snapshot {id} \
                             ({changelog})"
                        )));
                    }
                    return Err(e);
                }
                Err(e) => return Err(e),
            };
            if follow_up_list(&table, &snapshot).is_none() {
                self.next_snapshot_id = id + 1;
                continue;
            }
            let mut scan = self.scan.clone();
            scan.incremental = Some(Incremental::FollowUp(id));
            let plan = scan.plan()?;
            self.next_snapshot_id = id + 1;
            if plan.splits.is_empty() {
                continue;
            }
            return Ok(Some(ChangePlan {
                snapshot_id: id,
                commit_kind: snapshot.commit_kind,
                splits: plan.splits,
            }));
        }
    }

    fn check_options(&self) -> Result<()> {
        let raw = &self.scan.table.options().raw;
        if raw
            .get("streaming-read-overwrite")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        {
            return Err(Error::unsupported(
                "streaming-read-overwrite (the changes of OVERWRITE snapshots)",
            ));
        }
        if raw.contains_key("scan.bounded.watermark") {
            return Err(Error::unsupported(
                "scan.bounded.watermark in a changes scan",
            ));
        }
        Ok(())
    }
}

impl Iterator for ChangeScan {
    type Item = Result<ChangePlan>;

    /// [`ChangeScan::next_plan`]; ends at the latest snapshot, or after an error.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_plan() {
            Ok(Some(p)) => Some(Ok(p)),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}
