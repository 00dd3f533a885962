//! Compaction planning: which files of the latest snapshot to rewrite, as [`CompactTask`]s a
//! worker (paimon-write's `TableCompact`) runs and the committer commits as a COMPACT snapshot.
//!
//! | table | default | `with_full(true)` |
//! |---|---|---|
//! | append, `bucket = -1` | Java `AppendCompactCoordinator`: small files bin-packed per partition | every file of a partition |
//! | append, `bucket = N` | Java `BucketedAppendCompactManager.pickCompactBefore` per bucket | Java `FullCompactTask` per bucket |
//! | primary key, `bucket = N` | Java `UniversalCompaction` per bucket ([`universal`]); with deletion vectors, first-row, the `lookup` changelog or `force-lookup`, Java's `ForceUpLevel0Compaction` and a lookup task (below); refused where Java compacts by time | Java `pickFullCompaction`: every bucket not yet one run at the last level, merged into it |
//!
//! Deletion vectors are applied by the rewrite. Full compaction and append tables retire the
//! index files holding the vectors of their inputs, so such a task takes every live file those
//! index files cover. A minor compaction of a primary-key table with deletion vectors is a
//! lookup compaction ([`CompactLookup`]): the task also names the bucket's files above the
//! output level and its index files, and the worker marks the older copies of the keys it
//! merges in a new index file for the bucket. A first-row table's lookup task drops the
//! level-0 records of keys found above instead.

mod pick;
mod universal;

use std::collections::{BTreeSet, HashMap, HashSet};

use paimon_spec::binary::Datum;
use paimon_spec::data_file::DeletionFile;
use paimon_spec::stats::serialize_datums;
use paimon_split::{CompactLookup, CompactRewrite, CompactTask, DataSplit};

use crate::commit::PartitionSpec;
use crate::error::{Error, Result};
use crate::manifest::IndexFileMeta;
use crate::scan::LiveFile;
use crate::table::Table;
use pick::{FileInfo, PickOptions};

/// The compaction tasks of one snapshot.
#[derive(Debug, Clone, Default)]
pub struct CompactPlan {
    /// The snapshot planned from (`None` for a table without snapshots).
    pub snapshot_id: Option<i64>,
    /// One task per group of files to rewrite; tasks of one bucket never share a file.
    pub tasks: Vec<CompactTask>,
}

/// Plans the compaction of a table; create with [`Table::compact_planner`].
#[derive(Debug, Clone)]
pub struct CompactPlanner {
    table: Table,
    partition: Option<PartitionSpec>,
    buckets: Option<Vec<(Vec<u8>, i32)>>,
    full: bool,
}

impl Table {
    /// A compaction planner over the table's latest snapshot.
    pub fn compact_planner(&self) -> CompactPlanner {
        CompactPlanner {
            table: self.clone(),
            partition: None,
            buckets: None,
            full: false,
        }
    }
}

impl CompactPlanner {
    /// Only partitions matching `spec` (partition column names and values; a prefix of the
    /// columns selects every partition with those values).
    pub fn with_partition(mut self, spec: PartitionSpec) -> Self {
        self.partition = Some(spec);
        self
    }

    /// Only these buckets: (serialized partition row, bucket) pairs, as commit messages
    /// carry them (a writer compacting the buckets it wrote, as Java's writers do).
    pub fn with_buckets(mut self, buckets: Vec<(Vec<u8>, i32)>) -> Self {
        self.buckets = Some(buckets);
        self
    }

    /// Full compaction (see the module table). Default false.
    pub fn with_full(mut self, full: bool) -> Self {
        self.full = full;
        self
    }

    /// Plans the tasks.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for tables not compacted here (primary-key tables without
    /// `full` where Java compacts by clock, or with
    /// `lookup-compact = gentle`, first-row with deletion vectors; postpone buckets);
    /// [`Error::InvalidCommit`] for a partition spec naming a column that is not a partition
    /// column; metadata read errors.
    pub fn plan(&self) -> Result<CompactPlan> {
        let table = &self.table;
        let opts = table.options();
        let pk = table.is_primary_key_table();
        if opts.bucket == 0 || opts.bucket < -1 {
            return Err(Error::unsupported(format!(
                "compacting tables with bucket = {} (table {})",
                opts.bucket,
                table.path()
            )));
        }
        if pk && !self.full {
            if let Some(why) = minor_refusal(opts) {
                return Err(Error::unsupported(format!(
                    "minor compaction of primary-key tables {why}; use full compaction \
                     (table {})",
                    table.path()
                )));
            }
        }
        let first_row = opts.merge_engine == paimon_spec::options::MergeEngine::FirstRow;
        if pk && first_row && opts.deletion_vectors_enabled && !self.full {
            return Err(Error::unsupported(format!(
                "minor compaction of a first-row table with deletion vectors, which Java \
                 refuses too (table {})",
                table.path()
            )));
        }
        // Java compacts these by lookup (`LookupMergeTreeCompactRewriter`).
        let lookup = pk && opts.need_lookup() && !self.full;
        if lookup
            && opts
                .raw
                .get("lookup-compact")
                .is_some_and(|v| v.eq_ignore_ascii_case("gentle"))
        {
            // Java's gentle mode forces level 0 up only every n-th time a writer compacts: a
            // count a planner that keeps no state cannot follow.
            return Err(Error::unsupported(format!(
                "minor compaction with lookup-compact = gentle; use full compaction (table {})",
                table.path()
            )));
        }
        let Some(snapshot) = table.snapshot_manager().latest()? else {
            return Ok(CompactPlan::default());
        };
        // Every level: a batch scan of a deletion-vector or first-row table skips level 0.
        let live = table.live_files(Some(
            table
                .scan()
                .with_snapshot(snapshot.id)
                .with_all_levels(true),
        ))?;
        let types = table.partition_types();
        let matcher = self.partition_matcher()?;
        // Buckets in the order the manifests list them.
        let mut buckets: Vec<(BucketKey, Vec<LiveFile>)> = Vec::new();
        let mut at: HashMap<BucketKey, usize> = HashMap::new();
        for f in live {
            if !matcher(&f.partition) {
                continue;
            }
            let partition =
                serialize_datums(&f.partition, &types).map_err(|e| Error::spec(table.path(), e))?;
            let key = (partition, f.bucket);
            if self.buckets.as_ref().is_some_and(|b| !b.contains(&key)) {
                continue;
            }
            let i = *at.entry(key.clone()).or_insert_with(|| {
                buckets.push((key, Vec::new()));
                buckets.len() - 1
            });
            buckets[i].1.push(f);
        }
        let index = self.deletion_index(&snapshot)?;
        let pick_options = PickOptions {
            target_file_size: to_i64(opts.target_file_size(pk)),
            compaction_file_size: to_i64(opts.compaction_file_size(pk)),
            min_file_num: usize::try_from(opts.compaction_min_file_num.max(1)).unwrap_or(1),
            open_file_cost: to_i64(opts.split_open_file_cost),
            delete_ratio_threshold: opts.compaction_delete_ratio_threshold,
        };
        let max_level = opts.num_levels() - 1;
        let mut tasks = Vec::new();
        for ((partition, bucket), files) in buckets {
            let no_index = Vec::new();
            let indexes = index.get(&(partition.clone(), bucket)).unwrap_or(&no_index);
            let infos: Vec<FileInfo> = files
                .iter()
                .map(|f| FileInfo {
                    size: f.file.file_size,
                    rows: f.file.row_count,
                    min_seq: f.file.min_sequence_number,
                    max_seq: f.file.max_sequence_number,
                    creation_time: f.file.creation_time,
                    name: f.file.file_name.clone(),
                    level: f.file.level,
                    dv: f.deletion_file.as_ref().and_then(|d| {
                        indexes
                            .iter()
                            .position(|x| x.covers(&f.file.file_name))
                            .map(|i| (i, d.cardinality))
                    }),
                    first_row_id: f.file.first_row_id,
                })
                .collect();
            if pk && !self.full {
                let o = universal::UniversalOptions {
                    max_size_amp: i64::from(opts.compaction_max_size_amplification_percent),
                    size_ratio: i64::from(opts.compaction_size_ratio),
                    trigger: usize::try_from(opts.num_sorted_run_compaction_trigger.max(1))
                        .unwrap_or(1),
                    // Java's `ForceUpLevel0Compaction` wherever it looks up (the default
                    // radical `lookup-compact`).
                    force_up_level0: opts.compaction_force_up_level_0 || lookup,
                };
                if let Some(unit) = universal::pick(&infos, opts.num_levels(), &o) {
                    let lookup = lookup.then(|| {
                        let higher: Vec<usize> = (0..files.len())
                            .filter(|i| {
                                files[*i].file.level > unit.output_level && !unit.files.contains(i)
                            })
                            .collect();
                        CompactLookup {
                            higher_levels: split_of(
                                snapshot.id,
                                &partition,
                                bucket,
                                &files,
                                &higher,
                                pk,
                            ),
                            index_files: indexes.iter().map(|x| x.meta.clone()).collect(),
                        }
                    });
                    tasks.push(CompactTask {
                        split: split_of(snapshot.id, &partition, bucket, &files, &unit.files, pk),
                        rewrite: CompactRewrite::MergeTree {
                            output_level: unit.output_level,
                            max_level: unit.max_level,
                            // With deletion vectors nothing older is read: Java always drops.
                            drop_delete: unit.drop_delete
                                || (lookup.is_some() && opts.deletion_vectors_enabled),
                            min_file_size: to_i64(opts.compaction_file_size(true)),
                        },
                        deleted_index_files: Vec::new(),
                        lookup,
                    });
                }
                continue;
            }
            let groups = if pk {
                pick::merge_tree_full(&infos, max_level)
            } else if opts.bucket == -1 && self.full {
                pick::unaware_full(&infos)
            } else if opts.bucket == -1 {
                pick::unaware(&infos, &pick_options)
            } else if self.full {
                pick::bucketed_full(&infos, &pick_options, opts.deletion_vectors_enabled)
            } else {
                pick::bucketed(&infos, &pick_options)
            };
            // A row-tracked table's compacted files keep the row ids of their rows, and get a
            // first row id only where those run on.
            let groups = if !pk && opts.row_tracking_enabled {
                pick::row_id_runs(&infos, groups)
            } else {
                groups
            };
            for (group, retired) in close_over_index_files(groups, &infos, indexes) {
                let rewrite = if pk {
                    CompactRewrite::MergeTree {
                        output_level: max_level,
                        max_level,
                        drop_delete: true,
                        min_file_size: to_i64(opts.compaction_file_size(true)),
                    }
                } else {
                    CompactRewrite::Append
                };
                tasks.push(CompactTask {
                    split: split_of(snapshot.id, &partition, bucket, &files, &group, pk),
                    rewrite,
                    deleted_index_files: retired
                        .into_iter()
                        .map(|i| indexes[i].meta.clone())
                        .collect(),
                    lookup: None,
                });
            }
        }
        Ok(CompactPlan {
            snapshot_id: Some(snapshot.id),
            tasks,
        })
    }

    /// Whether typed partition values match the planner's spec.
    fn partition_matcher(&self) -> Result<impl Fn(&[Datum]) -> bool> {
        let fields = self.table.schema().partition_fields();
        let mut spec = Vec::new();
        for (k, v) in self.partition.iter().flatten() {
            let i =
                fields
                    .iter()
                    .position(|f| &f.name == k)
                    .ok_or_else(|| Error::InvalidCommit {
                        table: self.table.path().to_string(),
                        reason: format!("{k:?} is not a partition column"),
                    })?;
            spec.push((i, v.clone()));
        }
        Ok(move |values: &[Datum]| {
            spec.iter()
                .all(|(i, v)| values.get(*i).is_some_and(|x| x == v))
        })
    }

    /// The deletion-vector index files of the snapshot by (partition, bucket).
    fn deletion_index(
        &self,
        snapshot: &crate::snapshot::Snapshot,
    ) -> Result<HashMap<BucketKey, Vec<DvIndexFile>>> {
        if !self.table.options().deletion_vectors_enabled {
            return Ok(HashMap::new());
        }
        Ok(self
            .table
            .deletion_vector_index(snapshot)?
            .into_iter()
            .map(|(k, files)| (k, files.iter().map(DvIndexFile::new).collect()))
            .collect())
    }
}

/// A serialized partition and a bucket.
type BucketKey = (Vec<u8>, i32);

/// A deletion-vector index file and the data files it holds vectors of.
#[derive(Debug)]
struct DvIndexFile {
    meta: paimon_spec::index_file::IndexFileMeta,
    data_files: BTreeSet<String>,
}

impl DvIndexFile {
    fn new(f: &IndexFileMeta) -> Self {
        let meta = f.clone();
        DvIndexFile {
            data_files: meta
                .dv_ranges
                .iter()
                .flatten()
                .map(|d| d.data_file_name.clone())
                .collect(),
            meta,
        }
    }

    fn covers(&self, data_file: &str) -> bool {
        self.data_files.contains(data_file)
    }
}

/// Each group grown by every live file of the index files it touches (merging groups that
/// then share files), with the index files it retires.
fn close_over_index_files(
    groups: Vec<Vec<usize>>,
    files: &[FileInfo],
    indexes: &[DvIndexFile],
) -> Vec<(Vec<usize>, Vec<usize>)> {
    // Files of each index file, in the bucket's order.
    let mut of_index: Vec<Vec<usize>> = vec![Vec::new(); indexes.len()];
    for (i, f) in files.iter().enumerate() {
        if let Some((x, _)) = f.dv {
            of_index[x].push(i);
        }
    }
    let mut out: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for group in groups {
        let mut members = group;
        let mut retired: Vec<usize> = Vec::new();
        let mut k = 0;
        while k < members.len() {
            if let Some((x, _)) = files[members[k]].dv {
                if !retired.contains(&x) {
                    retired.push(x);
                    for f in &of_index[x] {
                        if !members.contains(f) {
                            members.push(*f);
                        }
                    }
                }
            }
            k += 1;
        }
        // A group sharing files or index files with an earlier one joins it.
        let mine: HashSet<usize> = members.iter().copied().collect();
        match out.iter_mut().find(|(m, r)| {
            m.iter().any(|f| mine.contains(f)) || r.iter().any(|x| retired.contains(x))
        }) {
            Some((m, r)) => {
                for f in members {
                    if !m.contains(&f) {
                        m.push(f);
                    }
                }
                for x in retired {
                    if !r.contains(&x) {
                        r.push(x);
                    }
                }
            }
            None => out.push((members, retired)),
        }
    }
    out
}

/// The split of a task: the group's files, in group order, with their deletion files.
fn split_of(
    snapshot_id: i64,
    partition: &[u8],
    bucket: i32,
    files: &[LiveFile],
    group: &[usize],
    pk: bool,
) -> DataSplit {
    let picked: Vec<&LiveFile> = group.iter().map(|i| &files[*i]).collect();
    let deletion: Vec<Option<DeletionFile>> =
        picked.iter().map(|f| f.deletion_file.clone()).collect();
    DataSplit {
        snapshot_id,
        partition: partition.to_vec(),
        bucket,
        bucket_path: picked
            .first()
            .map_or_else(String::new, |f| f.bucket_path.clone()),
        total_buckets: picked.first().map(|f| f.total_buckets),
        before_files: Vec::new(),
        before_deletion_files: None,
        data_files: picked.iter().map(|f| f.file.clone()).collect(),
        data_deletion_files: deletion.iter().any(Option::is_some).then_some(deletion),
        is_streaming: false,
        raw_convertible: !pk,
    }
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Why a primary-key table's minor compaction is not run here, if so: triggers that depend on
/// the compactor's clock and history.
fn minor_refusal(opts: &paimon_spec::options::CoreOptions) -> Option<&'static str> {
    let set = |k: &str| opts.raw.contains_key(k);
    if set("compaction.optimization-interval")
        || set("compaction.total-size-threshold")
        || set("compaction.incremental-size-threshold")
        || opts.raw.keys().any(|k| k.starts_with("compaction.offpeak"))
    {
        Some("with early full compaction or off-peak options")
    } else {
        None
    }
}
