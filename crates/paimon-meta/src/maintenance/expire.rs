//! Snapshot expiry (Java `ExpireSnapshotsImpl`, `SnapshotDeletion`, `FileDeletionBase`,
//! `ExpireConfig`).
//!
//! Deletion order is Java's, so a run stopped half way leaves a readable table: first the data
//! files the expired snapshots deleted (never one a later snapshot or a tag still holds), then
//! their changelog files, then manifests, manifest lists, index and statistics files no
//! retained snapshot or tag names, then the snapshot files, and last the `EARLIEST` hint.
//!
//! Streaming consumers (`consumer/consumer-<id>`, [`crate::consumer`]) keep every snapshot
//! from the smallest next snapshot among them on, unless `consumer.changelog-only`.

use std::collections::{BTreeSet, HashMap, HashSet};

use paimon_spec::layout;
use paimon_spec::options::{parse_duration_millis, CoreOptions};

use super::{delete, invalid_option as invalid, now_millis, Files};
use crate::error::{Error, Result};
use crate::manifest::FileKind;
use crate::snapshot::Snapshot;
use crate::table::Table;

const RETAIN_MIN: &str = "snapshot.num-retained.min";
const RETAIN_MAX: &str = "snapshot.num-retained.max";
const TIME_RETAINED: &str = "snapshot.time-retained";
const EXPIRE_LIMIT: &str = "snapshot.expire.limit";
const CONSUMER_CHANGELOG_ONLY: &str = "consumer.changelog-only";
const CONSUMER_EXPIRATION_TIME: &str = "consumer.expiration-time";
const CHANGELOG_RETAIN_MIN: &str = "changelog.num-retained.min";
const CHANGELOG_RETAIN_MAX: &str = "changelog.num-retained.max";
const CHANGELOG_TIME_RETAINED: &str = "changelog.time-retained";

/// Which snapshots an expiry may remove (Java `ExpireConfig`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpireConfig {
    retain_min: i64,
    retain_max: i64,
    time_retained_ms: i64,
    max_deletes: i64,
    /// `consumer.changelog-only`: consumers protect only changelogs, not snapshots.
    consumer_changelog_only: bool,
    /// `consumer.expiration-time`: consumers whose file is older are removed first.
    consumer_expiration_ms: Option<i64>,
    dry_run: bool,
}

impl Default for ExpireConfig {
    /// Java's defaults: keep at least 10, at most all, everything younger than one hour, and
    /// remove at most 10 snapshots per run.
    fn default() -> Self {
        ExpireConfig {
            retain_min: 10,
            retain_max: i64::from(i32::MAX),
            time_retained_ms: 3_600_000,
            max_deletes: 10,
            consumer_changelog_only: false,
            consumer_expiration_ms: None,
            dry_run: false,
        }
    }
}

impl ExpireConfig {
    /// The table options' `snapshot.num-retained.min`/`.max`, `snapshot.time-retained` and
    /// `snapshot.expire.limit`, Java's defaults for those absent.
    ///
    /// # Errors
    /// `Spec` (invalid option) for a value that does not parse, and `Unsupported` when the
    /// changelog is retained longer than snapshots (Java's decoupled changelog, which keeps
    /// `changelog-N` files this expiry does not write).
    pub fn from_options(options: &CoreOptions) -> Result<Self> {
        let d = ExpireConfig::default();
        let raw = &options.raw;
        let int = |key: &str, default: i64| -> Result<i64> {
            match raw.get(key) {
                None => Ok(default),
                Some(v) => v
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| invalid(key, v, "expected an integer")),
            }
        };
        let duration = |key: &str, default: i64| -> Result<i64> {
            match raw.get(key) {
                None => Ok(default),
                Some(v) => parse_duration_millis(v)
                    .and_then(|ms| i64::try_from(ms).ok())
                    .ok_or_else(|| invalid(key, v, "expected a duration such as '1 h'")),
            }
        };
        let config = ExpireConfig {
            retain_min: int(RETAIN_MIN, d.retain_min)?,
            retain_max: int(RETAIN_MAX, d.retain_max)?,
            time_retained_ms: duration(TIME_RETAINED, d.time_retained_ms)?,
            max_deletes: int(EXPIRE_LIMIT, d.max_deletes)?,
            consumer_changelog_only: match raw.get(CONSUMER_CHANGELOG_ONLY) {
                None => false,
                Some(v) => v
                    .trim()
                    .parse::<bool>()
                    .map_err(|_| invalid(CONSUMER_CHANGELOG_ONLY, v, "expected true or false"))?,
            },
            consumer_expiration_ms: match raw.get(CONSUMER_EXPIRATION_TIME) {
                None => None,
                Some(_) => Some(duration(CONSUMER_EXPIRATION_TIME, 0)?),
            },
            dry_run: false,
        };
        let decoupled = int(CHANGELOG_RETAIN_MIN, config.retain_min)? > config.retain_min
            || int(CHANGELOG_RETAIN_MAX, config.retain_max)? > config.retain_max
            || duration(CHANGELOG_TIME_RETAINED, config.time_retained_ms)?
                > config.time_retained_ms;
        if decoupled {
            return Err(Error::unsupported(
                "expiring snapshots while the changelog is retained longer (changelog.* options)",
            ));
        }
        Ok(config)
    }

    /// `snapshot.num-retained.min`: the newest this many snapshots are always kept.
    pub fn with_retain_min(mut self, n: i64) -> Self {
        self.retain_min = n;
        self
    }

    /// `snapshot.num-retained.max`: snapshots beyond the newest this many are removed even if
    /// young.
    pub fn with_retain_max(mut self, n: i64) -> Self {
        self.retain_max = n;
        self
    }

    /// `snapshot.time-retained`: snapshots committed less than this long ago are kept.
    pub fn with_time_retained_ms(mut self, ms: i64) -> Self {
        self.time_retained_ms = ms;
        self
    }

    /// `snapshot.expire.limit`: at most this many snapshots are removed per run.
    pub fn with_max_deletes(mut self, n: i64) -> Self {
        self.max_deletes = n;
        self
    }

    /// Removes the consumers whose file is older than `ms` before expiring (the table's
    /// `consumer.expiration-time`); `None` keeps every consumer.
    pub fn with_consumer_expiration_ms(mut self, ms: Option<i64>) -> Self {
        self.consumer_expiration_ms = ms;
        self
    }

    /// Computes what would go without deleting or writing anything.
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }
}

/// What an expiry removed (or, in a dry run, would remove).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpireReport {
    /// Ids of the expired snapshots, ascending.
    pub expired: Vec<i64>,
    /// The earliest snapshot afterwards (what `EARLIEST` names), `None` for an empty table.
    pub earliest: Option<i64>,
    /// Data and changelog files (and their extra files), in deletion order.
    pub data_files: Vec<String>,
    /// Manifests, manifest lists, index manifests, index and statistics files.
    pub metadata_files: Vec<String>,
    /// Snapshot files.
    pub snapshot_files: Vec<String>,
}

impl Table {
    /// Expires old snapshots of this branch as Java's `ExpireSnapshotsImpl.expire` does, with
    /// `config` deciding which go (see [`ExpireConfig::from_options`] for the table's own).
    ///
    /// # Errors
    /// Storage errors and corrupt metadata; `InvalidCommit` when `retain_max < retain_min` or
    /// either is below 1 (Java's precondition).
    pub fn expire_snapshots(&self, config: &ExpireConfig) -> Result<ExpireReport> {
        if config.retain_max < config.retain_min || config.retain_min < 1 {
            return Err(Error::InvalidCommit {
                table: self.path().to_string(),
                reason: format!(
                    "snapshot.num-retained.min ({}) must be at least 1 and at most \
                     snapshot.num-retained.max ({})",
                    config.retain_min, config.retain_max
                ),
            });
        }
        let snapshots = self.snapshot_manager();
        let (Some(latest), Some(earliest)) = (snapshots.latest_id()?, snapshots.earliest_id()?)
        else {
            return Ok(ExpireReport::default());
        };
        let older_than = now_millis().saturating_sub(config.time_retained_ms);
        let min = latest
            .saturating_sub(config.retain_max)
            .saturating_add(1)
            .max(earliest);
        let mut max_exclusive = latest - config.retain_min + 1;
        // Consumers not heard from within `consumer.expiration-time` go first (Java's
        // `ConsumerManager.expire`, run by the committer before expiring snapshots).
        if let (Some(ms), false) = (config.consumer_expiration_ms, config.dry_run) {
            self.consumer_manager()
                .expire(now_millis().saturating_sub(ms))?;
        }
        // A consumer still reads from its next snapshot on.
        if !config.consumer_changelog_only {
            if let Some(next) = self.consumer_manager().min_next_snapshot()? {
                max_exclusive = max_exclusive.min(next);
            }
        }
        max_exclusive = max_exclusive.min(earliest.saturating_add(config.max_deletes));
        for id in min..max_exclusive {
            if let Some(s) = self.try_snapshot(id)? {
                if older_than <= s.time_millis {
                    return self.expire_until(earliest, id, config.dry_run);
                }
            }
        }
        self.expire_until(earliest, max_exclusive, config.dry_run)
    }

    /// Snapshot `id`, or `None` when it is gone (a concurrent expiry may remove snapshots while
    /// this one runs, as Java's `tryGetSnapshot` allows for).
    fn try_snapshot(&self, id: i64) -> Result<Option<Snapshot>> {
        match self.snapshot_manager().snapshot(id) {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(Error::SnapshotExpired { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Java `ExpireSnapshotsImpl.expireUntil`: removes snapshots `[earliest, end)`.
    fn expire_until(&self, earliest: i64, end: i64, dry_run: bool) -> Result<ExpireReport> {
        let hint = self.snapshot_manager().layout().earliest_hint();
        let mut report = ExpireReport {
            earliest: Some(earliest),
            ..ExpireReport::default()
        };
        if end <= earliest {
            // Nothing expires; the hint still saves the next reader a listing.
            let missing = !self.file_io().exists(&hint).map_err(Error::io)?;
            if missing && !dry_run {
                self.file_io()
                    .overwrite(&hint, earliest.to_string().as_bytes())
                    .map_err(Error::io)?;
            }
            return Ok(report);
        }
        let mut begin = earliest;
        for id in (earliest..end).rev() {
            if self.try_snapshot(id)?.is_none() {
                begin = id + 1;
                break;
            }
        }
        let files = Files::new(self);
        let tags = self.tagged_snapshots()?;
        let mut tag_files: HashMap<i64, HashMap<String, Vec<String>>> = HashMap::new();
        let mut bucket_dirs = BTreeSet::new();

        // Files deleted by snapshot `id` were live in `id - 1`, so `(begin, end]` covers
        // every snapshot whose removal makes files unreachable.
        for id in begin + 1..=end {
            let Some(s) = self.try_snapshot(id)? else {
                continue;
            };
            let context = self.snapshot_manager().snapshot_path(id);
            let mut doomed: Vec<(String, Vec<String>)> = Vec::new();
            let mut index: HashMap<String, usize> = HashMap::new();
            // A manifest another expiry removed meanwhile: its files are that expiry's to
            // delete (Java skips manifests it cannot read here too).
            let entries = match files.list_entries(&s.delta_manifest_list) {
                Ok(e) => e,
                Err(e) if e.is_not_found() => continue,
                Err(e) => return Err(e),
            };
            for e in entries {
                let (path, extras) = files.data_paths(&e, &context)?;
                match e.kind {
                    FileKind::Add => {
                        if let Some(i) = index.remove(&path) {
                            doomed[i].0.clear();
                        }
                    }
                    FileKind::Delete => {
                        index.insert(path.clone(), doomed.len());
                        doomed.push((path, extras));
                    }
                }
            }
            let kept = match previous_tag(&tags, id) {
                Some(tag) => Some(&*match tag_files.entry(tag.id) {
                    std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(live_data_files(&files, tag)?)
                    }
                }),
                None => None,
            };
            for (path, extras) in doomed {
                if path.is_empty() || kept.is_some_and(|k| k.contains_key(&path)) {
                    continue;
                }
                if let Some((dir, _)) = path.rsplit_once('/') {
                    bucket_dirs.insert(dir.to_string());
                }
                report.data_files.push(path);
                report.data_files.extend(extras);
            }
        }
        for id in begin..end {
            let Some(s) = self.try_snapshot(id)? else {
                continue;
            };
            let Some(list) = &s.changelog_manifest_list else {
                continue;
            };
            let context = self.snapshot_manager().snapshot_path(id);
            let entries = match files.list_entries(list) {
                Ok(e) => e,
                Err(e) if e.is_not_found() => continue,
                Err(e) => return Err(e),
            };
            for e in entries {
                if e.kind == FileKind::Add {
                    let (path, extras) = files.data_paths(&e, &context)?;
                    report.data_files.push(path);
                    report.data_files.extend(extras);
                }
            }
        }

        let mut skipping: Vec<&Snapshot> = tags
            .iter()
            .filter(|t| t.id >= begin && t.id < end)
            .collect();
        let end_snapshot = self.try_snapshot(end)?;
        skipping.extend(end_snapshot.as_ref());
        let mut skip = metadata_names(&files, &skipping)?;
        for id in begin..end {
            let Some(s) = self.try_snapshot(id)? else {
                continue;
            };
            unused_metadata(&files, &s, &mut skip, &mut report.metadata_files)?;
        }
        for id in begin..end {
            report.expired.push(id);
            report
                .snapshot_files
                .push(self.snapshot_manager().snapshot_path(id));
        }
        report.earliest = Some(end);
        if dry_run {
            return Ok(report);
        }

        for path in &report.data_files {
            delete(self, path)?;
        }
        self.delete_empty_dirs(&bucket_dirs)?;
        for path in report.metadata_files.iter().chain(&report.snapshot_files) {
            delete(self, path)?;
        }
        self.file_io()
            .overwrite(&hint, end.to_string().as_bytes())
            .map_err(Error::io)?;
        Ok(report)
    }

    /// Tag snapshots sorted by id (Java `TagManager.taggedSnapshots`).
    pub(super) fn tagged_snapshots(&self) -> Result<Vec<Snapshot>> {
        let tags = self.tag_manager();
        let mut out = Vec::new();
        for name in tags.tag_names()? {
            out.push(tags.tag(&name)?);
        }
        out.sort_by_key(|s| s.id);
        out.dedup_by_key(|s| s.id);
        Ok(out)
    }

    /// Removes bucket directories emptied by the expiry and then their emptied partition
    /// directories (Java `FileDeletionBase.cleanEmptyDirectories`), never above the data root.
    pub(super) fn delete_empty_dirs(&self, bucket_dirs: &BTreeSet<String>) -> Result<()> {
        let root = self
            .layout()
            .data_root(self.options().data_file_path_directory.as_deref());
        let levels = self.schema().partition_fields().len();
        let mut parents = BTreeSet::new();
        for dir in bucket_dirs {
            let bucket = dir.rsplit_once('/').map_or(dir.as_str(), |(_, b)| b);
            if !dir.starts_with(&root) || layout::parse_bucket_dir_name(bucket).is_none() {
                continue;
            }
            if self.delete_if_empty(dir)? {
                let mut d = dir.as_str();
                for _ in 0..levels {
                    match d.rsplit_once('/') {
                        Some((p, _)) if p.len() > root.trim_end_matches('/').len() => {
                            parents.insert(p.to_string());
                            d = p;
                        }
                        _ => break,
                    }
                }
            }
        }
        // Deepest first, so a partition emptied by its sub-partitions' removal goes too.
        let mut parents: Vec<String> = parents.into_iter().collect();
        parents.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count()));
        for p in parents {
            self.delete_if_empty(&p)?;
        }
        Ok(())
    }

    /// Removes `dir` if it is empty, in one step ([`paimon_io::FileIO::delete_empty_dir`]): a
    /// listing followed by a recursive delete would take a file a writer creates in between.
    fn delete_if_empty(&self, dir: &str) -> Result<bool> {
        self.file_io().delete_empty_dir(dir).map_err(Error::io)
    }
}

/// The newest tag older than `id` (Java `TagManager.findPreviousTag`): a file deleted at `id`
/// that some older tag holds is held by this one too, since it stayed live in between.
fn previous_tag(tags: &[Snapshot], id: i64) -> Option<&Snapshot> {
    tags.iter().rev().find(|t| t.id < id)
}

/// Paths of the data files live in `snapshot` (its base and delta lists merged), each with
/// its extra files (Java `FileDeletionBase.readMergedDataFiles`).
pub(super) fn live_data_files(
    files: &Files,
    snapshot: &Snapshot,
) -> Result<HashMap<String, Vec<String>>> {
    let mut live = HashMap::new();
    let context = format!("tag of snapshot {}", snapshot.id);
    for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list] {
        for e in files.list_entries(list)? {
            let (path, extras) = files.data_paths(&e, &context)?;
            match e.kind {
                FileKind::Add => live.insert(path, extras),
                FileKind::Delete => live.remove(&path),
            };
        }
    }
    Ok(live)
}

/// Names of every metadata file the snapshots use (Java `SnapshotDeletion.manifestSkippingSet`).
pub(super) fn metadata_names(files: &Files, snapshots: &[&Snapshot]) -> Result<HashSet<String>> {
    let mut names = HashSet::new();
    for s in snapshots {
        let lists = [
            Some(&s.base_manifest_list),
            Some(&s.delta_manifest_list),
            s.changelog_manifest_list.as_ref(),
        ];
        for list in lists.into_iter().flatten() {
            names.insert(list.clone());
            for m in files.list(list)? {
                // A manifest's sidecars (`_EXTRA_FILES`, Java after 2.0, paimon-rust 0.4) live
                // and die with it.
                names.extend(m.extra_files.into_iter().flatten());
                names.insert(m.file_name);
            }
        }
        if let Some(index) = &s.index_manifest {
            names.insert(index.clone());
            for e in files.index_manifest(index)? {
                names.insert(e.index_file.file_name);
            }
        }
        if let Some(stats) = &s.statistics {
            names.insert(stats.clone());
        }
    }
    Ok(names)
}

/// Metadata files of an expired snapshot not in `skip` (Java `SnapshotDeletion
/// .cleanUnusedManifests`); each one found is added to `skip` so it is listed once.
pub(super) fn unused_metadata(
    files: &Files,
    s: &Snapshot,
    skip: &mut HashSet<String>,
    out: &mut Vec<String>,
) -> Result<()> {
    let lists = [
        Some(&s.base_manifest_list),
        Some(&s.delta_manifest_list),
        s.changelog_manifest_list.as_ref(),
    ];
    for list in lists.into_iter().flatten() {
        for m in files.list(list)? {
            if skip.insert(m.file_name.clone()) {
                out.push(files.manifest_path(&m.file_name));
            }
            for extra in m.extra_files.iter().flatten() {
                if skip.insert(extra.clone()) {
                    out.push(files.manifest_path(extra));
                }
            }
        }
        if skip.insert(list.clone()) {
            out.push(files.manifest_path(list));
        }
    }
    if let Some(index) = &s.index_manifest {
        if !skip.contains(index) {
            let context = files.manifest_path(index);
            for e in files.index_manifest(index)? {
                if skip.insert(e.index_file.file_name.clone()) {
                    out.push(files.index_path(&e, &context)?);
                }
            }
            skip.insert(index.clone());
            out.push(context);
        }
    }
    if let Some(stats) = &s.statistics {
        if skip.insert(stats.clone()) {
            out.push(files.table.layout().statistics_path(stats));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn options(pairs: &[(&str, &str)]) -> CoreOptions {
        let raw: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        CoreOptions::try_new(&raw).unwrap()
    }

    /// Java `CoreOptions` defaults: min 10, max Integer.MAX_VALUE, 1 h, limit 10.
    #[test]
    fn defaults_and_overrides_are_javas() {
        let d = ExpireConfig::from_options(&options(&[])).unwrap();
        assert_eq!(
            (
                d.retain_min,
                d.retain_max,
                d.time_retained_ms,
                d.max_deletes
            ),
            (10, 2_147_483_647, 3_600_000, 10)
        );
        let c = ExpireConfig::from_options(&options(&[
            (RETAIN_MIN, "2"),
            (RETAIN_MAX, "5"),
            (TIME_RETAINED, "30 min"),
            (EXPIRE_LIMIT, "3"),
        ]))
        .unwrap();
        assert_eq!(
            (
                c.retain_min,
                c.retain_max,
                c.time_retained_ms,
                c.max_deletes
            ),
            (2, 5, 1_800_000, 3)
        );
    }

    #[test]
    fn bad_values_and_a_decoupled_changelog_are_refused() {
        let e = ExpireConfig::from_options(&options(&[(RETAIN_MIN, "many")])).unwrap_err();
        assert!(e.to_string().contains(RETAIN_MIN), "{e}");
        let e =
            ExpireConfig::from_options(&options(&[(TIME_RETAINED, "1 fortnight")])).unwrap_err();
        assert!(e.to_string().contains(TIME_RETAINED), "{e}");
        let e = ExpireConfig::from_options(&options(&[(CHANGELOG_RETAIN_MIN, "100")])).unwrap_err();
        assert!(matches!(e, Error::Unsupported { .. }), "{e}");
        // Retained no longer than snapshots: not decoupled.
        ExpireConfig::from_options(&options(&[(CHANGELOG_RETAIN_MAX, "100")])).unwrap();
    }

    /// Expiry removing an emptied bucket directory while a writer keeps creating files in it
    /// (and removing its own): no file the writer created disappears under it.
    #[test]
    fn removing_an_empty_dir_never_takes_a_writers_file() {
        use paimon_io::FileIO;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use std::sync::Arc;
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/warehouse/append.db/unaware"
        );
        let table = Table::open(Arc::new(paimon_io::LocalFileIO::new()), fixture).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("p=1/bucket-0");
        let dir = dir.to_str().unwrap();
        let (stop, written, lost, removed) = (
            AtomicBool::new(false),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        std::thread::scope(|s| {
            s.spawn(|| {
                let io = paimon_io::LocalFileIO::new();
                let mut i = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    let f = format!("{dir}/data-w-{i}.parquet");
                    i += 1;
                    if io.write_new(&f, b"rows").is_ok() {
                        written.fetch_add(1, Ordering::SeqCst);
                        if std::fs::metadata(&f).is_err() {
                            lost.fetch_add(1, Ordering::SeqCst);
                        } else {
                            std::fs::remove_file(&f).unwrap();
                        }
                    }
                }
            });
            let started = std::time::Instant::now();
            while started.elapsed() < std::time::Duration::from_millis(1500)
                && lost.load(Ordering::SeqCst) == 0
            {
                if let Ok(true) = table.delete_if_empty(dir) {
                    removed.fetch_add(1, Ordering::SeqCst);
                }
            }
            stop.store(true, Ordering::SeqCst);
        });
        let (written, lost, removed) = (
            written.into_inner(),
            lost.into_inner(),
            removed.into_inner(),
        );
        assert!(
            written > 0 && removed > 0,
            "{written} written, {removed} removed"
        );
        assert_eq!(lost, 0, "{lost} of {written} files written vanished");
    }
}
