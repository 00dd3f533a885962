//! Incremental scans: what changed between two snapshots (Java `incremental-between`).
//!
//! Two ways to answer, as Java has them:
//!
//! * **delta** (Java `IncrementalDeltaStartingScanner`): the delta files (or, with a changelog
//!   producer, the changelog files) of every snapshot in `(start, end]`, concatenated;
//! * **diff** (Java `IncrementalDiffStartingScanner`, what two *tags* give): per bucket, the
//!   files only in the end snapshot against the files only in the start snapshot. The reader
//!   merges each side and returns the rows that differ, so snapshots expired between the two
//!   ends do not matter.
//!
//! ```text
//!  start (tag t3)          end (tag t6)            diff split of bucket 0
//!  bucket-0: f1 f2 f3      bucket-0: f1 f4 f5      before_files: f2 f3
//!                                                  data_files:   f4 f5
//! ```
//!
//! [`ScanBuilder::with_incremental_between`] resolves `A,B` as Java does: two tags give a diff
//! (or, with `incremental-between-tag-to-snapshot`, the delta between the tags' snapshots);
//! otherwise both must be snapshot ids and `incremental-between-scan-mode` picks delta,
//! changelog or diff (`auto`: changelog when the table has a changelog producer).

use std::collections::HashMap;

use paimon_spec::options::ChangelogProducer;
use paimon_split::DataSplit;

use super::{BucketFiles, Plan, ScanBuilder, SnapshotSelection};
use crate::error::{Error, Result};
use crate::manifest::ManifestEntry;
use crate::snapshot::Snapshot;

use super::files::ManifestReader;

/// How an incremental scan between two snapshot ids reads (Java
/// `incremental-between-scan-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncrementalScanMode {
    /// Changelog files when the table has a changelog producer, else delta files.
    Auto,
    /// Delta files of APPEND snapshots.
    Delta,
    /// Changelog files of every snapshot but OVERWRITE ones.
    Changelog,
    /// The diff of the two snapshots.
    Diff,
}

impl std::str::FromStr for IncrementalScanMode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(IncrementalScanMode::Auto),
            "delta" => Ok(IncrementalScanMode::Delta),
            "changelog" => Ok(IncrementalScanMode::Changelog),
            "diff" => Ok(IncrementalScanMode::Diff),
            other => Err(Error::unsupported(format!(
                "incremental-between-scan-mode '{other}'"
            ))),
        }
    }
}

/// Which files of each snapshot a delta scan reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DeltaMode {
    Auto,
    Delta,
    Changelog,
}

/// What an incremental scan reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Incremental {
    /// The delta or changelog files of snapshots `(start, end]`.
    Delta {
        start: i64,
        end: i64,
        mode: DeltaMode,
    },
    /// Java `incremental-between`, resolved when planning; `mode` overrides the table's
    /// `incremental-between-scan-mode`.
    Between {
        start: String,
        end: String,
        mode: Option<IncrementalScanMode>,
    },
    /// The diff of two snapshots.
    Diff {
        start: SnapshotSelection,
        end: SnapshotSelection,
    },
    /// The follow-up plan of one snapshot in a streaming read ([`super::changes`]).
    FollowUp(i64),
    /// Every follow-up plan after a snapshot, concatenated ([`super::changes`]).
    ChangesSince(i64),
}

/// An `incremental-between` request after looking at the table.
enum Resolved {
    Delta {
        start: i64,
        end: i64,
        mode: DeltaMode,
    },
    Diff {
        end_id: i64,
        start_selection: SnapshotSelection,
        end_selection: SnapshotSelection,
    },
    /// Nothing to read; the end snapshot when there is one.
    Empty(Option<i64>),
}

impl ScanBuilder {
    /// Plans what changed between `start` and `end` as Java's `incremental-between` does: two
    /// tag names give the diff of the tagged snapshots; two snapshot ids give the delta (or
    /// changelog, or diff, per the table's `incremental-between-scan-mode`) of `(start, end]`.
    pub fn with_incremental_between(
        mut self,
        start: impl Into<String>,
        end: impl Into<String>,
    ) -> Self {
        self.incremental = Some(Incremental::Between {
            start: start.into(),
            end: end.into(),
            mode: None,
        });
        self
    }

    /// Sets the scan mode of an incremental scan between snapshot ids
    /// ([`ScanBuilder::with_incremental_between`]), overriding the table's
    /// `incremental-between-scan-mode` (Java's dynamic option of that name).
    pub fn with_incremental_scan_mode(mut self, scan_mode: IncrementalScanMode) -> Self {
        if let Some(Incremental::Between { mode, .. }) = &mut self.incremental {
            *mode = Some(scan_mode);
        }
        self
    }

    /// Plans the diff of snapshots `start` and `end`: per bucket, the files only in `end` as
    /// data files and the files only in `start` as before files, which the reader diffs.
    pub fn with_incremental_diff(
        mut self,
        start: SnapshotSelection,
        end: SnapshotSelection,
    ) -> Self {
        self.incremental = Some(Incremental::Diff { start, end });
        self
    }

    /// Plans the changes of snapshots `(start, end]` as `mode` says.
    pub fn with_incremental_mode(self, start: i64, end: i64, mode: IncrementalScanMode) -> Self {
        match mode {
            IncrementalScanMode::Diff => {
                self.with_incremental_diff(SnapshotSelection::Id(start), SnapshotSelection::Id(end))
            }
            IncrementalScanMode::Auto => self.with_delta(start, end, DeltaMode::Auto),
            IncrementalScanMode::Delta => self.with_delta(start, end, DeltaMode::Delta),
            IncrementalScanMode::Changelog => self.with_delta(start, end, DeltaMode::Changelog),
        }
    }

    pub(super) fn with_delta(mut self, start: i64, end: i64, mode: DeltaMode) -> Self {
        self.incremental = Some(Incremental::Delta { start, end, mode });
        self
    }

    /// Incremental plans that are not one pass over manifests: `None` for the others.
    pub(super) fn plan_incremental(&self) -> Result<Option<Plan>> {
        let resolved = match &self.incremental {
            Some(Incremental::Between { start, end, mode }) => {
                self.resolve_between(start, end, *mode)?
            }
            Some(Incremental::Diff { start, end }) => {
                self.resolve_diff(start.clone(), end.clone())?
            }
            Some(Incremental::ChangesSince(n)) => return self.plan_changes_since(*n).map(Some),
            _ => return Ok(None),
        };
        match resolved {
            Resolved::Empty(snapshot_id) => Ok(Some(Plan::new(snapshot_id, Vec::new(), None))),
            Resolved::Delta { start, end, mode } => self
                .clone()
                .with_delta(start, end, mode)
                .plan_within()
                .map(Some),
            Resolved::Diff {
                end_id,
                start_selection,
                end_selection,
            } => self
                .plan_diff(end_id, start_selection, end_selection)
                .map(Some),
        }
    }

    /// The scan with `incremental-between` resolved, for callers that list files.
    pub(super) fn resolved_for_files(&self) -> Result<Option<ScanBuilder>> {
        let (start, end, mode) = match &self.incremental {
            Some(Incremental::Between { start, end, mode }) => (start, end, mode),
            Some(Incremental::ChangesSince(_)) => {
                return Err(Error::unsupported(
                    "listing the files of a changes scan (plan it instead)",
                ))
            }
            _ => return Ok(Some(self.clone())),
        };
        match self.resolve_between(start, end, *mode)? {
            Resolved::Empty(_) => Ok(None),
            Resolved::Delta { start, end, mode } => {
                Ok(Some(self.clone().with_delta(start, end, mode)))
            }
            Resolved::Diff { .. } => Err(Error::unsupported(
                "listing the files of an incremental diff (plan it instead)",
            )),
        }
    }

    /// Java `AbstractDataTableScan.createIncrementalStartingScanner` for `incremental-between`.
    fn resolve_between(
        &self,
        start: &str,
        end: &str,
        mode: Option<IncrementalScanMode>,
    ) -> Result<Resolved> {
        let mode = match mode {
            Some(m) => m,
            None => match self
                .table
                .options()
                .raw
                .get("incremental-between-scan-mode")
            {
                Some(m) => m.parse()?,
                None => IncrementalScanMode::Auto,
            },
        };
        let tags = self.table.tag_manager();
        let names = tags.tag_names()?;
        let is_tag = |t: &str| names.iter().any(|n| n == t);
        let raw = &self.table.options().raw;
        if is_tag(start) && is_tag(end) {
            let (s, e) = (tags.tag(start)?, tags.tag(end)?);
            let to_snapshot = raw
                .get("incremental-between-tag-to-snapshot")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
            if to_snapshot {
                if s.id == e.id {
                    return Ok(Resolved::Empty(Some(e.id)));
                }
                if mode == IncrementalScanMode::Diff {
                    // Java's toSnapshotScanMode has no diff mode.
                    return Err(Error::unsupported(
                        "incremental-between-tag-to-snapshot with scan mode diff",
                    ));
                }
                return self.delta_or_diff(s.id, e.id, mode);
            }
            if e.id < s.id {
                return Err(Error::unsupported(format!(
                    "incremental-between: tag end {end} with snapshot id {} should be >= tag \
                     start {start} with snapshot id {}",
                    e.id, s.id
                )));
            }
            if s.id == e.id {
                return Ok(Resolved::Empty(Some(e.id)));
            }
            return self.diff_of(
                s,
                e,
                SnapshotSelection::Tag(start.to_string()),
                SnapshotSelection::Tag(end.to_string()),
            );
        }
        let (Ok(a), Ok(b)) = (start.trim().parse::<i64>(), end.trim().parse::<i64>()) else {
            return Err(Error::unsupported(format!(
                "incremental-between: '{start}' and '{end}' are neither two tags nor two \
                 snapshot ids"
            )));
        };
        if b < a {
            return Err(Error::unsupported(format!(
                "incremental-between: ending snapshot id {b} should be >= starting snapshot id {a}"
            )));
        }
        if self.table.snapshot_manager().earliest_id()?.is_none() || a == b {
            return Ok(Resolved::Empty((a == b).then_some(b)));
        }
        self.delta_or_diff(a, b, mode)
    }

    fn delta_or_diff(&self, start: i64, end: i64, mode: IncrementalScanMode) -> Result<Resolved> {
        let mode = match mode {
            IncrementalScanMode::Diff => {
                return self.resolve_diff(SnapshotSelection::Id(start), SnapshotSelection::Id(end))
            }
            IncrementalScanMode::Auto => DeltaMode::Auto,
            IncrementalScanMode::Delta => DeltaMode::Delta,
            IncrementalScanMode::Changelog => DeltaMode::Changelog,
        };
        Ok(Resolved::Delta { start, end, mode })
    }

    fn resolve_diff(&self, start: SnapshotSelection, end: SnapshotSelection) -> Result<Resolved> {
        let at = |sel: &SnapshotSelection| -> Result<Snapshot> {
            let mut scan = self.clone();
            scan.selection = sel.clone();
            scan.snapshot()?.ok_or_else(|| Error::SnapshotNotFound {
                id: -1,
                path: self.table.snapshot_manager().dir().to_string(),
            })
        };
        let (s, e) = (at(&start)?, at(&end)?);
        self.diff_of(s, e, start, end)
    }

    fn diff_of(
        &self,
        start: Snapshot,
        end: Snapshot,
        start_selection: SnapshotSelection,
        end_selection: SnapshotSelection,
    ) -> Result<Resolved> {
        // Java `TimeTravelUtil.checkRescaleBucketForIncrementalDiffQuery`.
        if start.schema_id != end.schema_id {
            let buckets = |id| -> Result<String> {
                let schema = self.table.schema_manager().schema(id)?;
                Ok(schema
                    .options
                    .get("bucket")
                    .cloned()
                    .unwrap_or_else(|| "-1".into()))
            };
            let (a, b) = (buckets(start.schema_id)?, buckets(end.schema_id)?);
            if a.trim() != b.trim() {
                return Err(Error::unsupported(format!(
                    "incremental diff of snapshots {} and {}: the bucket number changed ({a}, \
                     {b})",
                    start.id, end.id
                )));
            }
        }
        Ok(Resolved::Diff {
            end_id: end.id,
            start_selection,
            end_selection,
        })
    }

    /// Java `SnapshotReaderImpl.readIncrementalDiff`: per (partition, bucket), the live files
    /// of `end` and of `start` with the files both hold removed from both sides.
    fn plan_diff(
        &self,
        end_id: i64,
        start_selection: SnapshotSelection,
        end_selection: SnapshotSelection,
    ) -> Result<Plan> {
        let side = |selection: SnapshotSelection| -> Result<Vec<BucketFiles>> {
            let mut scan = self.clone();
            scan.incremental = None;
            scan.selection = selection;
            Ok(scan
                .collect(&scan.memory())?
                .map(|(_, b, _)| b)
                .unwrap_or_default())
        };
        let before = side(start_selection)?;
        let after = side(end_selection)?;
        let pk = self.table.is_primary_key_table();
        let mut before_by_bucket: HashMap<(Vec<u8>, i32), BucketFiles> = HashMap::new();
        let mut before_order = Vec::new();
        for b in before {
            before_order.push((b.partition.clone(), b.bucket));
            before_by_bucket.insert((b.partition.clone(), b.bucket), b);
        }
        let mut splits = Vec::new();
        for mut a in after {
            let b = before_by_bucket.remove(&(a.partition.clone(), a.bucket));
            splits.push(diff_split(end_id, &mut a, b, pk));
        }
        for key in before_order {
            if let Some(b) = before_by_bucket.remove(&key) {
                let mut empty = BucketFiles {
                    files: Vec::new(),
                    deletion_files: b.deletion_files.as_ref().map(|_| Vec::new()),
                    partition: b.partition.clone(),
                    partition_values: b.partition_values.clone(),
                    bucket: b.bucket,
                    total_buckets: b.total_buckets,
                    bucket_path: b.bucket_path.clone(),
                };
                splits.push(diff_split(end_id, &mut empty, Some(b), pk));
            }
        }
        Ok(Plan::new(Some(end_id), splits, None))
    }

    /// Java `IncrementalDeltaStartingScanner`: the delta or changelog entries of snapshots
    /// `(start, end]` and the end snapshot.
    pub(super) fn delta_entries(
        &self,
        reader: &ManifestReader,
        start: i64,
        end: i64,
        mode: DeltaMode,
    ) -> Result<(Snapshot, Vec<ManifestEntry>)> {
        if start > end {
            return Err(Error::unsupported(format!(
                "incremental scan with start {start} after end {end}"
            )));
        }
        // Each snapshot of (start, end] on its own, files concatenated, never merged across
        // snapshots. Changelog files of every snapshot but OVERWRITE ones; or the delta of
        // APPEND snapshots only (compactions and overwrites add nothing new).
        let changelog = match mode {
            DeltaMode::Auto => self.table.options().changelog_producer != ChangelogProducer::None,
            DeltaMode::Delta => false,
            DeltaMode::Changelog => true,
        };
        let sm = self.table.snapshot_manager();
        let end_snapshot = sm.snapshot(end)?;
        let mut entries = Vec::new();
        for id in (start + 1)..=end {
            let s = if id == end {
                end_snapshot.clone()
            } else {
                sm.snapshot(id)?
            };
            let list = if changelog {
                s.changelog_manifest_list
                    .as_deref()
                    .filter(|_| s.commit_kind != "OVERWRITE")
            } else {
                Some(s.delta_manifest_list.as_str()).filter(|_| s.commit_kind == "APPEND")
            };
            if let Some(list) = list {
                entries.extend(reader.read_merged_list(list)?);
            }
        }
        // Java reads `incremental-between` with its batch scan, whose level filter leaves
        // level-0 files out where batch reads skip them (deletion vectors, first-row): the
        // delta of an APPEND snapshot and the `input` producer's changelog files among them.
        if reader.skips_level0() {
            entries.retain(|e| e.file.level != 0);
        }
        Ok((end_snapshot, entries))
    }
}

/// The diff split of one bucket: `after`'s files as data files, `before`'s as before files,
/// minus the files both hold (Java compares whole manifest entries).
fn diff_split(
    snapshot_id: i64,
    after: &mut BucketFiles,
    before: Option<BucketFiles>,
    pk: bool,
) -> DataSplit {
    let mut after_files = std::mem::take(&mut after.files);
    let mut after_dvs = after.deletion_files.take();
    let (mut before_files, mut before_dvs, same_total_buckets) = match before {
        Some(mut b) => (
            std::mem::take(&mut b.files),
            b.deletion_files.take(),
            b.total_buckets == after.total_buckets,
        ),
        None => (Vec::new(), after_dvs.as_ref().map(|_| Vec::new()), true),
    };
    // Java: beforeEntries.removeIf(dataEntries::remove), the first equal after entry each.
    let mut keep_before = vec![true; before_files.len()];
    let mut keep_after = vec![true; after_files.len()];
    for (f, kb) in before_files.iter().zip(keep_before.iter_mut()) {
        let twin = after_files
            .iter()
            .zip(keep_after.iter_mut())
            .find(|(g, ka)| **ka && same_total_buckets && *g == f);
        if let Some((_, ka)) = twin {
            *ka = false;
            *kb = false;
        }
    }
    retain_with(&mut before_files, before_dvs.as_mut(), &keep_before);
    retain_with(&mut after_files, after_dvs.as_mut(), &keep_after);
    DataSplit {
        snapshot_id,
        partition: after.partition.clone(),
        bucket: after.bucket,
        bucket_path: after.bucket_path.clone(),
        total_buckets: Some(after.total_buckets),
        before_files,
        before_deletion_files: before_dvs,
        data_files: after_files,
        data_deletion_files: after_dvs,
        is_streaming: false,
        // Java reads an append table's incremental split as raw files (the after files only)
        // and a primary-key table's by merging both sides.
        raw_convertible: !pk,
    }
}

/// Keeps the items (and their deletion files) whose `keep` flag is set.
fn retain_with<T, U>(items: &mut Vec<T>, parallel: Option<&mut Vec<U>>, keep: &[bool]) {
    let mut flags = keep.iter();
    items.retain(|_| flags.next().copied().unwrap_or(true));
    if let Some(p) = parallel {
        let mut flags = keep.iter();
        p.retain(|_| flags.next().copied().unwrap_or(true));
    }
}
