//! Rollback of a branch as Java 1.4.2's `Table.rollbackTo` does on a filesystem table
//! (`RollbackHelper.cleanLargerThan`, `createSnapshotFileIfNeeded`): the `LATEST` hint is set
//! to the retained snapshot first, then every later snapshot, long-lived changelog and tag file
//! is removed; a rollback to a tag whose snapshot has expired writes that snapshot back and
//! points `EARLIEST` at it. Like Java 1.4.2, it removes metadata only: the data and manifest
//! files of the removed snapshots stay until orphan-file cleanup takes them.

use paimon_spec::layout;

use super::delete;
use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use crate::table::Table;
use crate::tag_write::invalid;

/// What a rollback removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RollbackReport {
    /// The snapshot the branch now ends at.
    pub snapshot_id: i64,
    /// Removed snapshot ids, descending.
    pub snapshots: Vec<i64>,
    /// Removed long-lived changelog ids, descending.
    pub changelogs: Vec<i64>,
    /// Removed tag names.
    pub tags: Vec<String>,
    /// Whether the retained snapshot's file was written back from its tag.
    pub restored_from_tag: bool,
}

impl Table {
    /// Rolls this branch back to snapshot `id` (Java `rollbackTo(long)`): when the snapshot
    /// has expired but a tag keeps it, rolls back to that tag.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when neither the snapshot nor a tag of it exists; storage
    /// errors.
    pub fn rollback_to_snapshot(&self, id: i64) -> Result<RollbackReport> {
        let snapshots = self.snapshot_manager();
        match snapshots.snapshot(id) {
            Ok(s) => return self.clean_larger_than(&s),
            Err(Error::SnapshotNotFound { .. } | Error::SnapshotExpired { .. }) => {}
            Err(e) => return Err(e),
        }
        if let Some((_, names)) = self.tag_manager().tags_by_snapshot()?.remove(&id) {
            if let Some(name) = names.first() {
                return self.rollback_to_tag(name);
            }
        }
        Err(invalid(
            self.path(),
            format!("Rollback snapshot '{id}' doesn't exist."),
        ))
    }

    /// Rolls this branch back to tag `name` (Java `rollbackTo(String)`).
    ///
    /// # Errors
    /// [`Error::TagNotFound`] when the tag does not exist; storage errors.
    pub fn rollback_to_tag(&self, name: &str) -> Result<RollbackReport> {
        crate::tag_write::check_tag_name(self.path(), name)?;
        let snapshot = self.tag_manager().tag(name)?;
        let mut report = self.clean_larger_than(&snapshot)?;
        let snapshots = self.snapshot_manager();
        let path = snapshots.snapshot_path(snapshot.id);
        if !self.file_io().exists(&path).map_err(Error::io)? {
            self.file_io()
                .overwrite(&path, snapshot.to_json().as_bytes())
                .map_err(Error::io)?;
            self.file_io()
                .overwrite(
                    &snapshots.layout().earliest_hint(),
                    snapshot.id.to_string().as_bytes(),
                )
                .map_err(Error::io)?;
            report.restored_from_tag = true;
        }
        Ok(report)
    }

    /// Java `RollbackHelper.cleanLargerThan`.
    fn clean_larger_than(&self, retained: &Snapshot) -> Result<RollbackReport> {
        let io = self.file_io();
        let snapshots = self.snapshot_manager();
        let branch = snapshots.layout().clone();
        let mut report = RollbackReport {
            snapshot_id: retained.id,
            ..RollbackReport::default()
        };
        // Snapshots: the hint first, so a reader never sees a LATEST that is gone.
        let ids = snapshots.snapshot_ids()?;
        if let (Some(&earliest), Some(latest)) = (ids.first(), snapshots.latest_id()?) {
            io.overwrite(&branch.latest_hint(), retained.id.to_string().as_bytes())
                .map_err(Error::io)?;
            let from = earliest.max(retained.id + 1);
            for id in (from..=latest).rev() {
                if io.delete(&snapshots.snapshot_path(id)).map_err(Error::io)? {
                    report.snapshots.push(id);
                }
            }
        }
        // Long-lived changelogs.
        let changelog_ids = crate::snapshot::list_ids(
            self.file_io(),
            &branch.changelog_dir(),
            layout::CHANGELOG_PREFIX,
        )?;
        let doomed: Vec<i64> = changelog_ids
            .iter()
            .rev()
            .copied()
            .filter(|id| *id > retained.id)
            .collect();
        if !doomed.is_empty() {
            let hint = branch.changelog_latest_hint();
            if changelog_ids.first().is_some_and(|e| *e <= retained.id) {
                io.overwrite(&hint, retained.id.to_string().as_bytes())
                    .map_err(Error::io)?;
            } else {
                delete(self, &hint)?;
            }
            for id in doomed {
                delete(self, &branch.changelog_path(id))?;
                report.changelogs.push(id);
            }
        }
        // Tags of later snapshots.
        let tags = self.tag_manager();
        for (id, (_, names)) in tags.tags_by_snapshot()?.into_iter().rev() {
            if id <= retained.id {
                break;
            }
            for name in names {
                tags.delete(&name)?;
                report.tags.push(name);
            }
        }
        Ok(report)
    }
}
