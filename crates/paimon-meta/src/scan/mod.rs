//! Scan planning: snapshot -> manifests -> live files -> splits (Java `SnapshotReaderImpl`,
//! `FileStoreScan`).
//!
//! ```text
//! snapshot ─┬─ base list ──┐
//!           └─ delta list ─┴─> manifests (parallel) ─> ADD/DELETE merge ─> prune
//!   index manifest ─> DV ranges ──────────────────────────────┐
//!                     group by (partition, bucket) ─> SplitGenerator ─> DataSplit*
//! ```

pub mod bucket;
mod changes;
mod choice;
mod fallback;
mod file_prune;
mod files;
mod global_index;
mod incremental;
pub(crate) mod live;
mod live_read;
mod memory;
pub mod partition_path;
pub mod prune;
mod read_schema;
pub mod split_gen;
mod stats;

use std::collections::HashMap;
use std::sync::Arc;

use paimon_memory::MemoryPool;
use paimon_spec::binary::Datum;
use paimon_spec::data_file::{DataFileMeta, DeletionFile};
use paimon_spec::options::MergeEngine;
use paimon_spec::predicate::Predicate;
use paimon_split::frame::{IndexedSplit, QueryAuth};
use paimon_split::{DataSplit, Split};

use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use crate::table::Table;
pub use changes::{ChangePlan, ChangeScan};
pub use choice::ScanChoice;
use file_prune::ValuePruning;
pub use files::{merge_entries, PartitionDecoder};
pub use incremental::IncrementalScanMode;
use incremental::{DeltaMode, Incremental};
use memory::PlanMemory;
pub use read_schema::incremental_as_data_split;
use split_gen::{KeyedFile, SplitGroup, SplitSizes};

/// Which snapshot a scan reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotSelection {
    /// The latest snapshot.
    Latest,
    /// A snapshot by id.
    Id(i64),
    /// The snapshot a tag points at.
    Tag(String),
    /// The latest snapshot committed at or before this time (epoch millis).
    TimestampMs(i64),
    /// The earliest snapshot whose watermark is at least this value.
    Watermark(i64),
}

/// The result of planning: the snapshot read and the splits.
///
/// A plan made with [`ScanBuilder::with_memory_pool`] holds its own size (an estimate of the
/// heap its splits own) reserved from the pool until it and all its clones are dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The snapshot planned (None for a table without snapshots).
    pub snapshot_id: Option<i64>,
    /// The splits, grouped by partition and bucket.
    pub splits: Vec<DataSplit>,
    /// For a table read with its `scan.fallback-branch` (Java `FallbackReadFileStoreTable`):
    /// per split, whether it was planned on the fallback branch (Java
    /// `FallbackDataSplit.isFallback`), which its reader must know to resolve the files'
    /// schemas on that branch. `None` when the plan has no fallback part (Java then plans
    /// plain `DataSplit`s).
    pub fallback: Option<Vec<bool>>,
    /// For a filtered scan of a row-tracked table whose BTree / bitmap global indexes narrowed
    /// the rows: per split, the inclusive row-id ranges `(from, to)` to read (Java
    /// `IndexedSplit.rowRanges`). `None` when no index restricted the plan.
    pub row_ranges: Option<Vec<Vec<(i64, i64)>>>,
    /// The caller's row filters and column masks, for a table under query auth whose catalog
    /// answered with rules (see [`crate::query_auth`]): every wire split carries them.
    pub auth: Option<QueryAuth>,
    /// What the plan holds of the scan's memory pool.
    memory: PlanReservation,
}

/// A plan's reservation, shared by its clones; never part of a plan's equality.
#[derive(Debug, Clone, Default)]
struct PlanReservation(Option<Arc<PlanMemory>>);

impl PartialEq for PlanReservation {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Plan {
    /// A plan of `splits` holding no memory yet.
    fn new(snapshot_id: Option<i64>, splits: Vec<DataSplit>, fallback: Option<Vec<bool>>) -> Self {
        Plan {
            snapshot_id,
            splits,
            fallback,
            row_ranges: None,
            auth: None,
            memory: PlanReservation::default(),
        }
    }

    /// Bytes the plan holds reserved from the scan's memory pool (0 before it is returned by
    /// [`ScanBuilder::plan`]).
    pub fn reserved_bytes(&self) -> usize {
        self.memory.0.as_ref().map_or(0, |m| m.size())
    }

    /// The splits as they travel to workers: Java `IndexedSplit`s when global indexes gave
    /// row ranges, `FallbackDataSplit`s when the plan has a fallback part, plain data splits
    /// otherwise; each inside a Java `QueryAuthSplit` when the plan has query-auth rules.
    pub fn wire_splits(&self) -> Vec<Split> {
        let splits = self.unrestricted_splits();
        match &self.auth {
            None => splits,
            Some(auth) => splits
                .into_iter()
                .map(|s| Split::QueryAuth {
                    split: Box::new(s),
                    auth: Some(auth.clone()),
                })
                .collect(),
        }
    }

    fn unrestricted_splits(&self) -> Vec<Split> {
        if let Some(ranges) = &self.row_ranges {
            return self
                .splits
                .iter()
                .zip(ranges)
                .map(|(s, r)| {
                    Split::Indexed(IndexedSplit {
                        split: s.clone(),
                        row_ranges: r.clone(),
                        scores: None,
                    })
                })
                .collect();
        }
        match &self.fallback {
            Some(flags) => self
                .splits
                .iter()
                .zip(flags.iter().chain(std::iter::repeat(&false)))
                .map(|(s, f)| Split::FallbackData {
                    split: s.clone(),
                    is_fallback: *f,
                })
                .collect(),
            None => self.splits.iter().cloned().map(Split::Data).collect(),
        }
    }
}

/// One live data file with where it lives (for `paimon files`).
#[derive(Debug, Clone, PartialEq)]
pub struct LiveFile {
    /// Partition values, typed by the table's partition columns.
    pub partition: Vec<Datum>,
    /// Bucket.
    pub bucket: i32,
    /// Total buckets recorded with the file.
    pub total_buckets: i32,
    /// The bucket directory.
    pub bucket_path: String,
    /// The file's metadata.
    pub file: DataFileMeta,
    /// Its deletion vector, if any.
    pub deletion_file: Option<DeletionFile>,
}

/// Builds a scan of a [`Table`]: `table.scan().with_snapshot(3).with_filter(p).plan()`.
#[derive(Debug, Clone)]
pub struct ScanBuilder {
    table: Table,
    selection: SnapshotSelection,
    filter: Option<Predicate>,
    incremental: Option<Incremental>,
    file_index_sidecars: bool,
    drop_stats: bool,
    all_levels: bool,
    postpone: bool,
    /// The caller's pool; `None` plans on an unbounded one.
    pool: Option<Arc<dyn MemoryPool>>,
    /// The reservation of the `plan()` call under way (set on its private copy of the scan).
    memory: Option<Arc<PlanMemory>>,
}

/// Files of one (partition, bucket), ready for split generation.
#[derive(Debug)]
struct BucketFiles {
    partition: Vec<u8>,
    partition_values: Vec<Datum>,
    bucket: i32,
    total_buckets: i32,
    bucket_path: String,
    files: Vec<DataFileMeta>,
    deletion_files: Option<Vec<Option<DeletionFile>>>,
}

impl ScanBuilder {
    /// The table scanned (on its branch).
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// A scan of the latest snapshot without filter.
    pub fn new(table: Table) -> Self {
        ScanBuilder {
            table,
            selection: SnapshotSelection::Latest,
            filter: None,
            incremental: None,
            file_index_sidecars: true,
            drop_stats: false,
            all_levels: false,
            postpone: false,
            pool: None,
            memory: None,
        }
    }

    /// Plans within `pool`: the manifest lists and manifests held, the decoded entries, the
    /// live files, split packing and the returned [`Plan`] (until it is dropped) are reserved
    /// from it (paimon-cpp `ScanContextBuilder::WithMemoryPool`). A refusal is
    /// [`Error::ResourcesExhausted`] and leaves the pool as the call found it. The pool may be
    /// shared by concurrent plans and reads.
    pub fn with_memory_pool(mut self, pool: Arc<dyn MemoryPool>) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Reads snapshot `id`.
    pub fn with_snapshot(mut self, id: i64) -> Self {
        self.selection = SnapshotSelection::Id(id);
        self
    }

    /// Reads the snapshot of tag `name`.
    pub fn with_tag(mut self, name: impl Into<String>) -> Self {
        self.selection = SnapshotSelection::Tag(name.into());
        self
    }

    /// Reads the latest snapshot at or before `millis`.
    pub fn with_timestamp_ms(mut self, millis: i64) -> Self {
        self.selection = SnapshotSelection::TimestampMs(millis);
        self
    }

    /// Reads the first snapshot whose watermark reaches `watermark`.
    pub fn with_watermark(mut self, watermark: i64) -> Self {
        self.selection = SnapshotSelection::Watermark(watermark);
        self
    }

    /// Sets the snapshot selection.
    pub fn with_selection(mut self, selection: SnapshotSelection) -> Self {
        self.selection = selection;
        self
    }

    /// Prunes with `filter`: partitions always; for append tables file value stats and file
    /// indexes (bloom filter, bitmap); for primary-key tables key stats on key columns only.
    pub fn with_filter(mut self, filter: Predicate) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Whether append-table file pruning also reads `<file>.index` sidecar file indexes
    /// (default true). Java plans with embedded indexes only and applies sidecars when reading,
    /// so `false` gives Java's filtered plan exactly, at the cost of splits its reader skips.
    pub fn with_file_index_sidecars(mut self, enabled: bool) -> Self {
        self.file_index_sidecars = enabled;
        self
    }

    /// Whether the planned files carry empty value stats (Java `ReadBuilder.dropStats`; default
    /// false). Filters still prune with the stats; only the plan's copies are dropped, which
    /// keeps the plan's memory proportional to the live files and not their columns.
    pub fn with_drop_stats(mut self, drop: bool) -> Self {
        self.drop_stats = drop;
        self
    }

    /// Whether a primary-key table's level-0 files are kept where Java's batch scan skips them
    /// (deletion vectors, first-row merge engine; default false): Java's
    /// `withLevelFilter(level -> true)`, which its `files` and `partitions` system tables use.
    /// Only for listing files: the plan's splits then overlap.
    pub fn with_all_levels(mut self, all: bool) -> Self {
        self.all_levels = all;
        self
    }

    /// Whether the files of a postpone-bucket table's postpone bucket (`bucket-postpone`) are
    /// kept where Java's batch scan skips them (default false): for the postpone compaction,
    /// which lists them. Only for listing files.
    pub fn with_postpone_bucket(mut self, keep: bool) -> Self {
        self.postpone = keep;
        self
    }

    /// Plans the changes of snapshots in `(start, end]` (delta files, or changelog files when
    /// the table has a changelog producer) instead of a snapshot.
    pub fn with_incremental(self, start: i64, end: i64) -> Self {
        self.with_delta(start, end, DeltaMode::Auto)
    }

    /// Resolves the selected snapshot.
    ///
    /// # Errors
    /// `SnapshotNotFound` / `SnapshotExpired` / `TagNotFound` when the selection has no match.
    pub fn snapshot(&self) -> Result<Option<Snapshot>> {
        let sm = self.table.snapshot_manager();
        match &self.selection {
            SnapshotSelection::Latest => sm.latest(),
            SnapshotSelection::Id(id) => sm.snapshot(*id).map(Some),
            SnapshotSelection::Tag(name) => self.table.tag_manager().tag(name).map(Some),
            SnapshotSelection::TimestampMs(t) => sm.earlier_or_equal_time_millis(*t),
            SnapshotSelection::Watermark(w) => sm.later_or_equal_watermark(*w),
        }
    }

    /// Plans the splits.
    ///
    /// # Errors
    /// Storage, decoding, and `Unsupported` errors, each naming the file or feature;
    /// [`Error::ResourcesExhausted`] when the memory pool refuses.
    pub fn plan(&self) -> Result<Plan> {
        let memory = PlanMemory::new(self.pool.as_ref(), self.table.path());
        let mut scan = self.clone();
        scan.memory = Some(memory.clone());
        let mut plan = scan.plan_within()?;
        if let Some(source) = self.table.query_auth() {
            plan.auth = source.auth(None)?;
        }
        let bytes =
            memory::splits_heap(&plan.splits) + plan.fallback.as_ref().map_or(0, Vec::capacity);
        memory.resize(bytes, || "the plan's splits".to_string())?;
        plan.memory = PlanReservation(Some(memory));
        Ok(plan)
    }

    /// The reservation of the planning call under way, or a fresh one on the scan's pool.
    fn memory(&self) -> Arc<PlanMemory> {
        self.memory
            .clone()
            .unwrap_or_else(|| PlanMemory::new(self.pool.as_ref(), self.table.path()))
    }

    /// [`ScanBuilder::plan`] with the reservation already set up.
    fn plan_within(&self) -> Result<Plan> {
        if let Some(plan) = self.plan_incremental()? {
            return Ok(plan);
        }
        // Expiration may delete a snapshot's manifests while we plan it: name that race instead
        // of reporting a bare missing file.
        let planned = self.snapshot().ok().flatten().map(|s| s.id);
        match self.plan_all() {
            Err(e) if e.is_not_found() => Err(self.expired_or(planned, e)),
            other => other,
        }
    }

    /// `SnapshotExpired` when snapshot `id` has been expired since planning started, else `e`.
    fn expired_or(&self, id: Option<i64>, e: Error) -> Error {
        let sm = self.table.snapshot_manager();
        match (id, sm.earliest_id()) {
            (Some(id), Ok(Some(earliest))) if earliest > id => {
                Error::SnapshotExpired { id, earliest }
            }
            _ => e,
        }
    }

    fn plan_branch(&self) -> Result<Plan> {
        let memory = self.memory();
        let Some((snapshot, buckets, streaming)) = self.collect(&memory)? else {
            return Ok(Plan::new(None, Vec::new(), None));
        };
        let table = &self.table;
        let opts = table.options();
        let schema = table.schema();
        let sizes = SplitSizes {
            target: i64::try_from(opts.split_target_size).unwrap_or(i64::MAX),
            open_file_cost: i64::try_from(opts.split_open_file_cost).unwrap_or(i64::MAX),
        };
        let pk = table.is_primary_key_table();
        let key_types: Vec<_> = schema
            .trimmed_primary_key_fields()
            .into_iter()
            .map(|f| f.data_type)
            .collect();
        let always_raw =
            opts.deletion_vectors_enabled || opts.merge_engine == MergeEngine::FirstRow;
        let count_blob_size = match opts.raw.get("blob.split-by-file-size") {
            Some(v) => v.eq_ignore_ascii_case("true"),
            None => !opts
                .raw
                .get("blob-as-descriptor")
                .is_some_and(|v| v.eq_ignore_ascii_case("true")),
        };
        // Global indexes narrow a filtered batch scan of a data-evolution table to the rows
        // they may match: files holding none of them are dropped before packing.
        let indexed = match &self.filter {
            Some(filter) if opts.data_evolution_enabled && !streaming => {
                match global_index::row_universe(buckets.iter().flat_map(|b| b.files.iter())) {
                    Some(universe) => {
                        global_index::indexed_rows(table, &snapshot, filter, &universe)?
                    }
                    None => None,
                }
            }
            _ => None,
        };
        let mut buckets = buckets;
        if let Some(rows) = &indexed {
            for b in &mut buckets {
                let keep: Vec<bool> = b
                    .files
                    .iter()
                    .map(|f| {
                        global_index::file_rows(f)
                            .is_some_and(|(a, z)| rows.range_cardinality(a..=z) > 0)
                    })
                    .collect();
                if let Some(d) = &mut b.deletion_files {
                    let mut k = keep.iter();
                    d.retain(|_| k.next().copied().unwrap_or(true));
                }
                let mut k = keep.iter();
                b.files.retain(|_| k.next().copied().unwrap_or(true));
            }
            buckets.retain(|b| !b.files.is_empty());
        }
        let mut splits: Vec<DataSplit> = Vec::new();
        for mut b in buckets {
            // The bucket's files move into its splits: reserve the splits, then give back the
            // bucket (its vector and names; the files' own heap moves along).
            let bucket_bytes = memory::bucket_heap(&b);
            let splits_before = splits.len();
            let capacity_before = splits.capacity();
            // Deletion files by data file name, taken before the files move into groups.
            let dvs = b.deletion_files.take();
            let has_dvs = dvs.is_some();
            let dv_of: HashMap<String, Option<DeletionFile>> = match dvs {
                Some(d) => b.files.iter().map(|f| f.file_name.clone()).zip(d).collect(),
                None => HashMap::new(),
            };
            let files = std::mem::take(&mut b.files);
            let groups: Vec<SplitGroup> = if streaming {
                if !pk && opts.bucket == -1 && !opts.data_evolution_enabled {
                    split_gen::append_batch(files, sizes)
                } else if opts.data_evolution_enabled {
                    split_gen::data_evolution_batch(files, sizes, count_blob_size)
                } else {
                    vec![SplitGroup {
                        files,
                        raw_convertible: true,
                    }]
                }
            } else if opts.data_evolution_enabled {
                split_gen::data_evolution_batch(files, sizes, count_blob_size)
            } else if pk {
                let keyed = files
                    .into_iter()
                    .map(|f| keyed_file(f, &key_types, &b.bucket_path))
                    .collect::<Result<Vec<_>>>()?;
                split_gen::merge_tree_batch(keyed, sizes, always_raw)
            } else {
                split_gen::append_batch(files, sizes)
            };
            for g in groups {
                let deletion_files = has_dvs.then(|| {
                    g.files
                        .iter()
                        .map(|f| dv_of.get(f.file_name.as_str()).cloned().flatten())
                        .collect()
                });
                splits.push(DataSplit {
                    snapshot_id: snapshot.id,
                    partition: b.partition.clone(),
                    bucket: b.bucket,
                    bucket_path: b.bucket_path.clone(),
                    total_buckets: Some(b.total_buckets),
                    before_files: Vec::new(),
                    before_deletion_files: None,
                    data_files: g.files,
                    data_deletion_files: deletion_files,
                    is_streaming: streaming,
                    raw_convertible: g.raw_convertible,
                });
            }
            let added = splits.get(splits_before..).unwrap_or_default();
            let split_bytes = added.iter().map(memory::split_heap).sum::<usize>()
                + (splits.capacity() - capacity_before) * std::mem::size_of::<DataSplit>();
            memory.grow(split_bytes, || {
                format!("packing the splits of bucket {}", b.bucket_path)
            })?;
            memory.shrink(bucket_bytes);
        }
        let mut plan = Plan::new(Some(snapshot.id), splits, None);
        if let Some(rows) = &indexed {
            plan.row_ranges = Some(
                plan.splits
                    .iter()
                    .map(|s| {
                        let mut spans: Vec<(u64, u64)> = s
                            .data_files
                            .iter()
                            .filter_map(global_index::file_rows)
                            .collect();
                        spans.sort_unstable();
                        let mut out: Vec<(i64, i64)> = Vec::new();
                        for (a, z) in spans {
                            for r in global_index::ranges_within(rows, a, z) {
                                match out.last_mut() {
                                    Some(last) if last.1 + 1 >= r.0 => last.1 = last.1.max(r.1),
                                    _ => out.push(r),
                                }
                            }
                        }
                        out
                    })
                    .collect(),
            );
        }
        Ok(plan)
    }

    /// The live files the plan would read, with partition, bucket and deletion file.
    ///
    /// # Errors
    /// As [`ScanBuilder::plan`].
    pub fn live_files(&self) -> Result<Vec<LiveFile>> {
        let Some(scan) = self.resolved_for_files()? else {
            return Ok(Vec::new());
        };
        let Some((_, buckets, _)) = scan.collect(&scan.memory())? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for b in buckets {
            for (i, f) in b.files.into_iter().enumerate() {
                out.push(LiveFile {
                    partition: b.partition_values.clone(),
                    bucket: b.bucket,
                    total_buckets: b.total_buckets,
                    bucket_path: b.bucket_path.clone(),
                    deletion_file: b
                        .deletion_files
                        .as_ref()
                        .and_then(|d| d.get(i).cloned().flatten()),
                    file: f,
                });
            }
        }
        Ok(out)
    }

    /// Resolves the snapshot and the live (or delta) files grouped by partition and bucket.
    ///
    /// The buckets returned are reserved in `memory` ([`memory::bucket_heap`] each).
    fn collect(
        &self,
        memory: &Arc<PlanMemory>,
    ) -> Result<Option<(Snapshot, Vec<BucketFiles>, bool)>> {
        let table = &self.table;
        let mut reader = files::ManifestReader::new(table, self.filter.clone(), memory.clone())?;
        if self.all_levels {
            reader.keep_level0();
        }
        if self.postpone {
            reader.keep_postpone();
        }
        // Value stats are only read to prune files with a filter.
        if self.drop_stats && self.filter.is_none() {
            reader.drop_value_stats();
        }
        let mut keep = self.file_filter();
        let (snapshot, entries, streaming) = match &self.incremental {
            Some(Incremental::Delta { start, end, mode }) => {
                let (snapshot, entries) = self.delta_entries(&reader, *start, *end, *mode)?;
                (snapshot, entries, true)
            }
            Some(Incremental::FollowUp(id)) => {
                let (snapshot, entries) = self.follow_up_entries(&reader, *id)?;
                (snapshot, entries, true)
            }
            Some(other) => {
                return Err(Error::Internal(format!(
                    "incremental scan {other:?} reached file collection unresolved"
                )))
            }
            None => {
                let Some(snapshot) = self.snapshot()? else {
                    return Ok(None);
                };
                let dvs = if table.options().deletion_vectors_enabled {
                    Some(reader.deletion_files(&snapshot)?)
                } else {
                    None
                };
                let dv_bytes = dvs.as_ref().map_or(0, memory::deletion_index_heap);
                let path = table.snapshot_manager().snapshot_path(snapshot.id);
                let buckets =
                    reader.read_live_buckets(&snapshot, &path, &mut keep, dvs.as_ref())?;
                drop(dvs);
                memory.shrink(dv_bytes);
                let buckets = self.prune_within(memory, buckets, ValuePruning::Snapshot)?;
                return Ok(Some((snapshot, buckets, false)));
            }
        };
        let entry_bytes = memory::entries_heap(&entries);
        let mut kept = Vec::with_capacity(entries.len());
        for mut e in entries {
            if keep(&mut e.file)? {
                kept.push(e);
            }
        }
        let buckets = reader.group(kept, None)?;
        memory.grow(memory::buckets_heap(&buckets), || {
            format!("grouping the files of snapshot {}", snapshot.id)
        })?;
        memory.shrink(entry_bytes);
        // Java 1.4 prunes by value stats in a streaming follow-up scan of changelog files
        // (`ScanMode.CHANGELOG`), never in `incremental-between` (its starting scanner reads the
        // files without the value filter; checked against the oracle on both changelog tables).
        let values = match &self.incremental {
            Some(Incremental::FollowUp(_)) => ValuePruning::Changelog,
            _ => ValuePruning::Never,
        };
        let buckets = self.prune_within(memory, buckets, values)?;
        Ok(Some((snapshot, buckets, streaming)))
    }

    /// Whether a live file stays in the plan: for append tables with a filter, its value stats
    /// may match (data-evolution tables excepted); with `drop_stats` its value stats are
    /// emptied on the way.
    fn file_filter(&self) -> impl FnMut(&mut DataFileMeta) -> Result<bool> + '_ {
        let table = &self.table;
        let stats_filter = self
            .filter
            .as_ref()
            .filter(|_| !table.is_primary_key_table() && !table.options().data_evolution_enabled);
        // Primary-key value stats prune after grouping by bucket; they are dropped there.
        let drop_stats =
            self.drop_stats && !(table.is_primary_key_table() && self.filter.is_some());
        move |f: &mut DataFileMeta| {
            if let Some(filter) = stats_filter {
                let file_schema = table.schema_manager().schema(f.schema_id)?;
                if !stats::file_may_match(filter, f, table.schema(), &file_schema) {
                    return Ok(false);
                }
            }
            if drop_stats {
                f.value_stats = paimon_spec::stats::SimpleStats::empty();
            }
            Ok(true)
        }
    }

    /// [`ScanBuilder::prune`] of buckets reserved in `memory`, which afterwards holds what
    /// remains of them.
    fn prune_within(
        &self,
        memory: &PlanMemory,
        buckets: Vec<BucketFiles>,
        values: ValuePruning,
    ) -> Result<Vec<BucketFiles>> {
        if self.filter.is_none() {
            return Ok(buckets);
        }
        let before = memory::buckets_heap(&buckets);
        let buckets = self.prune(buckets, values)?;
        memory.shrink(before);
        memory.grow(memory::buckets_heap(&buckets), || {
            "the files left by pruning".to_string()
        })?;
        Ok(buckets)
    }

    /// File-index, key-stats and (primary-key) value-stats pruning of grouped files when the
    /// scan has a filter; with `drop_stats`, primary-key files lose their value stats here.
    fn prune(&self, buckets: Vec<BucketFiles>, values: ValuePruning) -> Result<Vec<BucketFiles>> {
        let Some(filter) = &self.filter else {
            return Ok(buckets);
        };
        let mut buckets = file_prune::prune_buckets(
            &self.table,
            filter,
            self.file_index_sidecars,
            buckets,
            values,
        )?;
        if self.drop_stats && self.table.is_primary_key_table() {
            for f in buckets.iter_mut().flat_map(|b| b.files.iter_mut()) {
                f.value_stats = paimon_spec::stats::SimpleStats::empty();
            }
        }
        Ok(buckets)
    }
}

fn keyed_file(
    f: DataFileMeta,
    key_types: &[paimon_spec::types::DataType],
    where_: &str,
) -> Result<KeyedFile> {
    let decode = |bytes: &[u8]| -> Result<Vec<Datum>> {
        let row = paimon_spec::binary::BinaryRow::from_serialized(bytes)
            .map_err(|e| Error::spec(format!("{where_}/{}", f.file_name), e))?;
        if row.arity() != key_types.len() {
            return Err(Error::corrupt(
                format!("{where_}/{}", f.file_name),
                format!(
                    "key row has arity {} but the table has {} key fields",
                    row.arity(),
                    key_types.len()
                ),
            ));
        }
        let types: Vec<_> = key_types.iter().map(|t| t.with_nullable(true)).collect();
        row.to_datums(&types)
            .map_err(|e| Error::spec(format!("{where_}/{}", f.file_name), e))
    };
    Ok(KeyedFile {
        min_key: decode(&f.min_key)?,
        max_key: decode(&f.max_key)?,
        file: f,
    })
}
