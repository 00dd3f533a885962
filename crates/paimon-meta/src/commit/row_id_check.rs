//! The conflict check a version-14 commit message asks for with its check-from snapshot
//! ([`CommitMessage::check_from_snapshot`]): the snapshot a row-id (data-evolution) writer, a
//! row-id delete or an overwrite based its files on.
//!
//! Java 2.x's committer takes one such snapshot per commit (`rowIdCheckConflict`,
//! `DataEvolutionConflictDetection.checkForRowIdFromSnapshot`); pypaimon 2.1's takes the
//! smallest of its messages' (`_row_id_check_from_messages`) and runs the same check. Done here
//! the same way:
//!
//! - the check-from snapshot must still exist (else the check cannot run: a conflict) and not
//!   be newer than the latest snapshot (an invalid message);
//! - an overwrite that deletes files is refused when any snapshot after the check-from one
//!   changed a partition it writes (pypaimon `check_overwrite_from_snapshot`);
//! - on a data-evolution table, every non-COMPACT snapshot after the check-from one is read:
//!   a file it added or deleted whose row ids start below the check-from snapshot's `nextRowId`
//!   and overlap the rows this commit writes, in a column this commit writes, is a conflict
//!   (Java `RowIdColumnConflictChecker`: this commit's row-id ranges are merged where they
//!   overlap, with the union of their columns, and compared by field id).

use std::collections::{BTreeSet, HashMap, HashSet};

use paimon_split::commit::CommitMessage;

use super::manifests::ManifestWriter;
use super::{CommitKind, TableCommit};
use crate::error::{Error, Result};
use crate::manifest::{FileKind, ManifestEntry};
use crate::snapshot::Snapshot;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::schema::TableSchemaRef;

/// The check-from snapshot of a commit: the smallest of its messages' (pypaimon
/// `_row_id_check_from_messages`). A negative one is refused, and so is a message carrying
/// row-id files without one when another message has one (its files would go unchecked).
pub(super) fn check_from(messages: &[CommitMessage]) -> std::result::Result<Option<i64>, String> {
    let mut from: Option<i64> = None;
    for m in messages {
        if let Some(s) = m.check_from_snapshot {
            if s < 0 {
                return Err(format!(
                    "commit message for bucket {} has a negative check-from snapshot {s}",
                    m.bucket
                ));
            }
            from = Some(from.map_or(s, |f| f.min(s)));
        }
    }
    if let Some(s) = from {
        let unchecked = messages.iter().find(|m| {
            m.check_from_snapshot.is_none()
                && m.data_increment
                    .new_files
                    .iter()
                    .chain(&m.data_increment.deleted_files)
                    .any(|f| f.first_row_id.is_some())
        });
        if let Some(m) = unchecked {
            return Err(format!(
                "commit message for bucket {} carries row-id files without a check-from \
                 snapshot, while another message asks for check-from snapshot {s}",
                m.bucket
            ));
        }
    }
    Ok(from)
}

/// A merged row-id range this commit writes and the field ids written in it.
struct WriteRange {
    from: i64,
    to: i64,
    fields: BTreeSet<i32>,
}

/// Names of the system columns a `_WRITE_COLS` list may hold besides table fields.
fn is_system_column(name: &str) -> bool {
    matches!(name, "_ROW_ID" | "_SEQUENCE_NUMBER" | "_VALUE_KIND") || name.starts_with("_KEY_")
}

/// The last row id of a file with a first row id (`None` for an empty or overflowing range).
fn last_row_id(first: i64, f: &DataFileMeta) -> Option<i64> {
    first.checked_add(f.row_count)?.checked_sub(1)
}

impl TableCommit {
    /// Runs the check of a commit whose messages carry the check-from snapshot `from` (see the
    /// module docs) against the snapshots after it, up to `latest`.
    pub(super) fn check_from_snapshot(
        &self,
        from: i64,
        kind: CommitKind,
        latest: Option<&Snapshot>,
        table_files: &[ManifestEntry],
        w: &ManifestWriter,
    ) -> Result<()> {
        let latest_id = latest.map_or(0, |s| s.id);
        if from > latest_id {
            return Err(self.invalid(format!(
                "check-from snapshot {from} is newer than the latest snapshot {latest_id}"
            )));
        }
        let sm = self.table.snapshot_manager();
        let snapshot = |id: i64| match sm.snapshot(id) {
            Err(Error::SnapshotNotFound { .. } | Error::SnapshotExpired { .. }) => Err(self
                .conflict(format!(
                    "snapshot {id} is gone (expired), so the conflict check from check-from \
                     snapshot {from} cannot run"
                ))),
            other => other,
        };
        let base = snapshot(from)?;
        if from == latest_id {
            return Ok(());
        }
        let partitions: HashSet<&[u8]> = table_files.iter().map(|e| &e.partition[..]).collect();
        let changes_after = |id: i64| -> Result<(Snapshot, Vec<ManifestEntry>)> {
            let s = snapshot(id)?;
            let mut out = Vec::new();
            for m in self.read_list(w, &s.delta_manifest_list)? {
                out.extend(
                    w.read_manifest(&m.file_name)?
                        .into_iter()
                        .filter(|e| partitions.contains(&e.partition[..])),
                );
            }
            Ok((s, out))
        };
        if kind == CommitKind::Overwrite && table_files.iter().any(|e| e.kind == FileKind::Delete) {
            for id in from + 1..=latest_id {
                if let Some(e) = changes_after(id)?.1.first() {
                    return Err(self.conflict(format!(
                        "the partitions being overwritten changed after check-from snapshot \
                         {from}: snapshot {id} changed file {}",
                        e.file.file_name
                    )));
                }
            }
        }
        if !self.table.options().data_evolution_enabled {
            return Ok(());
        }
        let mut schemas = HashMap::new();
        let ranges = self.write_ranges(table_files, &mut schemas)?;
        if ranges.is_empty() {
            return Ok(());
        }
        let next_row_id = base.next_row_id.ok_or_else(|| {
            self.invalid(format!(
                "check-from snapshot {from} has no nextRowId, so its row ids cannot be checked"
            ))
        })?;
        for id in from + 1..=latest_id {
            let (s, changes) = changes_after(id)?;
            if s.commit_kind == CommitKind::Compact.name() {
                continue;
            }
            for e in changes {
                let Some(first) = e.file.first_row_id else {
                    continue;
                };
                if first >= next_row_id {
                    continue;
                }
                let Some(last) = last_row_id(first, &e.file) else {
                    continue;
                };
                let fields = self.fields_written(&e.file, &mut schemas)?;
                let hit = ranges
                    .iter()
                    .find(|r| r.from <= last && first <= r.to && !r.fields.is_disjoint(&fields));
                if let Some(r) = hit {
                    return Err(self.conflict(format!(
                        "row-id conflict after check-from snapshot {from}: snapshot {id} \
                         changed file {} (row ids {first}..={last}), which overlaps rows \
                         {}..={} and columns this commit writes",
                        e.file.file_name, r.from, r.to
                    )));
                }
            }
        }
        Ok(())
    }

    /// This commit's row-id ranges, merged where they overlap, with their field ids.
    fn write_ranges(
        &self,
        table_files: &[ManifestEntry],
        schemas: &mut HashMap<i64, TableSchemaRef>,
    ) -> Result<Vec<WriteRange>> {
        let mut ranges = Vec::new();
        for e in table_files {
            let Some(first) = e.file.first_row_id else {
                continue;
            };
            let Some(last) = last_row_id(first, &e.file) else {
                continue;
            };
            let fields = self.fields_written(&e.file, schemas)?;
            ranges.push(WriteRange {
                from: first,
                to: last,
                fields,
            });
        }
        ranges.sort_by_key(|r| (r.from, r.to));
        let mut merged: Vec<WriteRange> = Vec::new();
        for r in ranges {
            match merged.last_mut() {
                Some(m) if r.from <= m.to => {
                    m.to = m.to.max(r.to);
                    m.fields.extend(r.fields);
                }
                _ => merged.push(r),
            }
        }
        Ok(merged)
    }

    /// The field ids a file writes: its `_WRITE_COLS` resolved in its schema, or every field of
    /// its schema when it has none.
    fn fields_written(
        &self,
        f: &DataFileMeta,
        schemas: &mut HashMap<i64, TableSchemaRef>,
    ) -> Result<BTreeSet<i32>> {
        let schema = match schemas.get(&f.schema_id) {
            Some(s) => s.clone(),
            None => {
                let s = self.table.schema_manager().schema(f.schema_id)?;
                schemas.insert(f.schema_id, s.clone());
                s
            }
        };
        let Some(cols) = &f.write_cols else {
            return Ok(schema
                .fields
                .iter()
                .filter(|d| !is_system_column(&d.name))
                .map(|d| d.id)
                .collect());
        };
        let mut out = BTreeSet::new();
        for c in cols.iter().filter(|c| !is_system_column(c)) {
            let field = schema.fields.iter().find(|d| &d.name == c).ok_or_else(|| {
                self.invalid(format!(
                    "file {} writes column {c}, which schema {} does not have",
                    f.file_name, f.schema_id
                ))
            })?;
            out.insert(field.id);
        }
        Ok(out)
    }
}
