//! Tags of a branch as Java 1.4.2's `AbstractFileStoreTable` and `TagManager` make, rename and
//! delete them; deleting the last tag of an expired snapshot removes the files only it kept
//! alive (Java `TagManager.deleteTag` / `doClean` with `TagDeletion`).

use std::collections::BTreeSet;

use super::expire::{live_data_files, metadata_names, unused_metadata};
use super::{delete, Files};
use crate::error::{Error, Result};
use crate::schema_manager::Tag;
use crate::snapshot::Snapshot;
use crate::table::Table;
use crate::tag_write::{check_tag_name, invalid, now_local_date_time};

/// `tag.default-time-retained`: the retention of tags created without one.
const TAG_DEFAULT_TIME_RETAINED: &str = "tag.default-time-retained";

/// What deleting a tag removed besides the tag file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagDeleteReport {
    /// Data files (and their extra files) only the tag kept alive.
    pub data_files: Vec<String>,
    /// Manifests, manifest lists, index manifests, index and statistics files only it used.
    pub metadata_files: Vec<String>,
}

impl Table {
    /// Tags snapshot `snapshot_id` (the latest when `None`) as `name`, as Java's
    /// `Table.createTag(name[, snapshotId][, timeRetained])`: the tag file is the snapshot's JSON,
    /// with `tagCreateTime`/`tagTimeRetained` when `time_retained_ms` (or the table's
    /// `tag.default-time-retained`) is set. Returns the tagged snapshot.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a blank or path-like name or a tag that exists;
    /// [`Error::SnapshotNotFound`]/[`Error::SnapshotExpired`] for a snapshot that is not there;
    /// storage errors.
    pub fn create_tag(
        &self,
        name: &str,
        snapshot_id: Option<i64>,
        time_retained_ms: Option<u64>,
    ) -> Result<Snapshot> {
        check_tag_name(self.path(), name)?;
        let snapshot = match snapshot_id {
            Some(id) => self.snapshot_manager().snapshot(id)?,
            None => self
                .snapshot_manager()
                .latest()?
                .ok_or_else(|| Error::SnapshotNotFound {
                    id: -1,
                    path: self.snapshot_manager().dir().to_string(),
                })?,
        };
        self.write_new_tag(name, &snapshot, time_retained_ms)?;
        Ok(snapshot)
    }

    /// Tags the first snapshot committed at or after `time_millis` (Java's
    /// `create_tag_from_timestamp` procedure), looking at tags when every such snapshot has
    /// expired. Returns the tagged snapshot.
    ///
    /// # Errors
    /// As [`Table::create_tag`]; [`Error::SnapshotNotFound`] when no snapshot or tag is that
    /// recent.
    pub fn create_tag_from_timestamp(
        &self,
        name: &str,
        time_millis: i64,
        time_retained_ms: Option<u64>,
    ) -> Result<Snapshot> {
        check_tag_name(self.path(), name)?;
        let snapshots = self.snapshot_manager();
        let mut found = None;
        for id in snapshots.snapshot_ids()? {
            let s = snapshots.snapshot(id)?;
            if s.time_millis >= time_millis {
                found = Some(s);
                break;
            }
        }
        if found.is_none() {
            found = self
                .tag_manager()
                .tags_by_snapshot()?
                .into_values()
                .map(|(s, _)| s)
                .find(|s| s.time_millis >= time_millis);
        }
        let snapshot = found.ok_or_else(|| Error::SnapshotNotFound {
            id: -1,
            path: format!(
                "{} (no snapshot or tag committed at or after {time_millis})",
                snapshots.dir()
            ),
        })?;
        self.write_new_tag(name, &snapshot, time_retained_ms)?;
        Ok(snapshot)
    }

    fn write_new_tag(
        &self,
        name: &str,
        snapshot: &Snapshot,
        time_retained_ms: Option<u64>,
    ) -> Result<()> {
        let tags = self.tag_manager();
        if tags.exists(name)? {
            return Err(invalid(
                self.path(),
                format!("Tag '{name}' already exists."),
            ));
        }
        let retained = match time_retained_ms {
            Some(ms) => Some(ms),
            None => match self.options().raw.get(TAG_DEFAULT_TIME_RETAINED) {
                Some(v) => Some(paimon_spec::options::parse_duration_millis(v).ok_or_else(
                    || {
                        super::invalid_option(
                            TAG_DEFAULT_TIME_RETAINED,
                            v,
                            "expected a duration such as '1 h'",
                        )
                    },
                )?),
                None => None,
            },
        };
        let tag = Tag {
            snapshot: snapshot.clone(),
            create_time: retained.map(|_| now_local_date_time()),
            time_retained: retained.map(|ms| {
                let nanos = u32::try_from(ms % 1000).unwrap_or(0) * 1_000_000;
                (i64::try_from(ms / 1000).unwrap_or(i64::MAX), nanos)
            }),
        };
        tags.write(name, &tag)
    }

    /// Renames tag `from` to `to` (Java `Table.renameTag`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `from` is missing or `to` exists; storage errors.
    pub fn rename_tag(&self, from: &str, to: &str) -> Result<()> {
        self.tag_manager().rename(self.path(), from, to)
    }

    /// Every tag of this branch, by name.
    ///
    /// # Errors
    /// Storage errors; `Corrupt` for a malformed tag file.
    pub fn tags(&self) -> Result<Vec<(String, Tag)>> {
        let tags = self.tag_manager();
        let mut names = tags.tag_names()?;
        names.sort();
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            match tags.tag_info(&name) {
                Ok(t) => out.push((name, t)),
                Err(Error::TagNotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// Deletes tag `name` as Java's `Table.deleteTag`: when its snapshot has expired and no other
    /// tag keeps it, the data and metadata files that only this tag kept alive are removed
    /// too (those of its neighbours, the previous tag and the earliest snapshot or next tag,
    /// stay). A missing tag is not an error (Java only logs it): the report is then empty.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a blank name; storage errors; corrupt metadata.
    pub fn delete_tag(&self, name: &str) -> Result<TagDeleteReport> {
        check_tag_name(self.path(), name)?;
        let tags = self.tag_manager();
        let tagged = match tags.tag(name) {
            Ok(s) => s,
            Err(Error::TagNotFound { .. }) => return Ok(TagDeleteReport::default()),
            Err(e) => return Err(e),
        };
        let snapshots = self.snapshot_manager();
        if snapshots
            .file_io()
            .exists(&snapshots.snapshot_path(tagged.id))
            .map_err(Error::io)?
        {
            tags.delete(name)?;
            return Ok(TagDeleteReport::default());
        }
        // Tags are found by their files: read them all before this one goes.
        let all = tags.tags_by_snapshot()?;
        tags.delete(name)?;
        if all
            .get(&tagged.id)
            .is_some_and(|(_, names)| names.len() > 1)
        {
            return Ok(TagDeleteReport::default());
        }
        let ids: Vec<i64> = all.keys().copied().collect();
        let mut skipped: Vec<Snapshot> = Vec::new();
        if let Some(left) = ids.iter().rev().find(|id| **id < tagged.id) {
            skipped.extend(all.get(left).map(|(s, _)| s.clone()));
        }
        let right_tag = ids
            .iter()
            .find(|id| **id > tagged.id)
            .and_then(|id| all.get(id).map(|(s, _)| s.clone()));
        let earliest = snapshots.earliest()?;
        let right = match (earliest, right_tag) {
            (Some(e), Some(t)) => Some(if e.id < t.id { e } else { t }),
            (e, t) => e.or(t),
        };
        skipped.extend(right);
        self.clean_tagged_files(&tagged, &skipped)
    }

    /// Java `TagManager.doClean`: removes the data files live in `tagged` that none of
    /// `skipped` holds, the bucket directories that leaves empty, then the metadata files of
    /// `tagged` that none of `skipped` uses.
    fn clean_tagged_files(
        &self,
        tagged: &Snapshot,
        skipped: &[Snapshot],
    ) -> Result<TagDeleteReport> {
        let files = Files::new(self);
        let mut report = TagDeleteReport::default();
        let mut kept = std::collections::HashSet::new();
        for s in skipped {
            kept.extend(live_data_files(&files, s)?.into_keys());
        }
        let mut bucket_dirs = BTreeSet::new();
        let mut live: Vec<(String, Vec<String>)> =
            live_data_files(&files, tagged)?.into_iter().collect();
        live.sort();
        for (path, extras) in live {
            if kept.contains(&path) {
                continue;
            }
            if let Some((dir, _)) = path.rsplit_once('/') {
                bucket_dirs.insert(dir.to_string());
            }
            report.data_files.push(path);
            report.data_files.extend(extras);
        }
        let skipped_refs: Vec<&Snapshot> = skipped.iter().collect();
        let mut skip = metadata_names(&files, &skipped_refs)?;
        unused_metadata(&files, tagged, &mut skip, &mut report.metadata_files)?;
        for path in &report.data_files {
            delete(self, path)?;
        }
        self.delete_empty_dirs(&bucket_dirs)?;
        for path in &report.metadata_files {
            delete(self, path)?;
        }
        Ok(report)
    }
}
