//! Reading manifests in parallel and reconciling their entries (Java `FileStoreScan`,
//! `FileEntry.mergeEntries`, `IndexFileHandler`).

use std::collections::HashMap;
use std::sync::Arc;

use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::data_file::DeletionFile;
use paimon_spec::predicate::Predicate;
use paimon_spec::types::{DataField, DataType};
use rayon::prelude::*;

use super::bucket::BucketSelector;
use super::memory::{self, PlanMemory};
use super::partition_path::bucket_path;
use super::prune::{may_match, ColumnStats};
use super::BucketFiles;
use crate::error::{Error, Result};
use crate::manifest::{
    DecodeOptions, FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta,
    DELETION_VECTORS_INDEX,
};
use crate::snapshot::Snapshot;
use crate::table::Table;

/// Deletion files keyed by (serialized partition, bucket, data file name).
pub type DeletionIndex = HashMap<(Vec<u8>, i32, String), DeletionFile>;

/// Decodes serialized partition rows with the table's partition types.
#[derive(Debug, Clone)]
pub struct PartitionDecoder {
    fields: Vec<DataField>,
    types: Vec<DataType>,
}

impl PartitionDecoder {
    /// A decoder for `fields` (the partition columns in key order).
    pub fn new(fields: Vec<DataField>) -> Self {
        let types = fields
            .iter()
            .map(|f| f.data_type.with_nullable(true))
            .collect();
        PartitionDecoder { fields, types }
    }

    /// The partition columns.
    pub fn fields(&self) -> &[DataField] {
        &self.fields
    }

    /// Decodes `[arity][row]` bytes into typed values.
    ///
    /// # Errors
    /// A format error when the row is malformed or has another arity.
    pub fn decode(&self, bytes: &[u8]) -> paimon_spec::Result<Vec<Datum>> {
        let row = BinaryRow::from_serialized(bytes)?;
        row.to_datums(&self.types)
    }

    /// Whether a partition may match `pred` (columns other than partition keys are unknown).
    pub fn may_match(&self, pred: &Predicate, values: &[Datum]) -> bool {
        let lookup = |c: &str| {
            self.fields
                .iter()
                .position(|f| f.name == c)
                .and_then(|i| values.get(i))
                .map(ColumnStats::exact)
        };
        may_match(pred, 1, &lookup)
    }
}

/// Reads the manifests of one table with the scan's filters.
#[derive(Debug)]
pub(crate) struct ManifestReader {
    table: Table,
    pub(super) manifest_dir: String,
    pub(super) partitions: PartitionDecoder,
    filter: Option<Predicate>,
    skip_level0: bool,
    /// Whether batch reads keep the postpone bucket (its compaction lists its files).
    keep_postpone: bool,
    buckets: Option<BucketSelector>,
    pub(super) decode: DecodeOptions,
    /// Where what is read and decoded is reserved.
    pub(super) memory: Arc<PlanMemory>,
}

impl ManifestReader {
    pub fn new(table: &Table, filter: Option<Predicate>, memory: Arc<PlanMemory>) -> Result<Self> {
        let schema = table.schema();
        let opts = table.options();
        let default_function = opts
            .raw
            .get("bucket-function.type")
            .is_none_or(|f| f.eq_ignore_ascii_case("default"));
        let buckets = match (&filter, opts.bucket > 0 && default_function) {
            (Some(f), true) => {
                let keys = schema.bucket_keys();
                let types: Option<Vec<DataType>> = keys
                    .iter()
                    .map(|k| schema.field(k).map(|f| f.data_type.clone()))
                    .collect();
                types.and_then(|t| BucketSelector::try_new(f, &keys, &t))
            }
            _ => None,
        };
        Ok(ManifestReader {
            buckets,
            decode: DecodeOptions::default(),
            manifest_dir: table.layout().manifest_dir(),
            partitions: PartitionDecoder::new(table.schema().partition_fields()),
            skip_level0: table.is_primary_key_table() && table.options().batch_scan_skip_level0(),
            keep_postpone: false,
            table: table.clone(),
            filter,
            memory,
        })
    }

    pub(super) fn read(&self, name: &str) -> Result<(String, bytes::Bytes)> {
        let path = paimon_io::join(&self.manifest_dir, name);
        let bytes = self.table.file_io().read(&path).map_err(Error::io)?;
        Ok((path, bytes))
    }

    /// Reads every entry of the manifests in list `name`, in list order. In batch mode, entries
    /// of postpone buckets (< 0) and, where Java skips them, level-0 files are dropped. The
    /// entries returned are reserved ([`memory::entries_heap`]).
    pub fn read_list_entries(&self, name: &str, batch: bool) -> Result<Vec<ManifestEntry>> {
        let mut out = Vec::new();
        self.read_list_entries_into(name, batch, &mut out)?;
        Ok(out)
    }

    /// The entries of list `name` (not in batch mode) reconciled by [`merge_entries`]; they
    /// are reserved as [`ManifestReader::read_list_entries`]'s.
    pub fn read_merged_list(&self, name: &str) -> Result<Vec<ManifestEntry>> {
        let entries = self.read_list_entries(name, false)?;
        let read = memory::entries_heap(&entries);
        let merged = merge_entries(entries)?;
        self.memory.shrink(read);
        self.memory.grow(memory::entries_heap(&merged), || {
            format!("reconciling the entries of manifest list {name}")
        })?;
        Ok(merged)
    }

    /// Reserves `bytes` for `what` of the file `path`.
    pub(super) fn reserve(&self, bytes: usize, what: &str, path: &str) -> Result<()> {
        self.memory.grow(bytes, || format!("{what} {path}"))
    }

    /// Keeps the files of postpone buckets (< 0), which a batch scan skips.
    pub fn keep_postpone(&mut self) {
        self.keep_postpone = true;
    }

    /// Keeps level-0 files that a batch scan of this table would skip.
    pub fn keep_level0(&mut self) {
        self.skip_level0 = false;
    }

    /// Whether batch reads leave level-0 files out (primary-key tables with deletion vectors
    /// or first-row, unless [`ManifestReader::keep_level0`]).
    pub fn skips_level0(&self) -> bool {
        self.skip_level0
    }

    /// Decodes value stats as empty (nothing copied) from now on.
    pub fn drop_value_stats(&mut self) {
        self.decode.keep_value_stats = false;
    }

    /// [`ManifestReader::read_list_entries`] appending to `out`; each manifest's entries are
    /// freed as soon as they are moved.
    pub fn read_list_entries_into(
        &self,
        name: &str,
        batch: bool,
        out: &mut Vec<ManifestEntry>,
    ) -> Result<()> {
        let (metas, metas_bytes) = self.read_list(name, batch)?;
        let per_manifest: Vec<Vec<ManifestEntry>> = metas
            .par_iter()
            .map(|m| self.read_manifest(m, batch))
            .collect::<Result<_>>()?;
        drop(metas);
        self.memory.shrink(metas_bytes);
        let read: usize = per_manifest.iter().map(memory::entries_heap).sum();
        let before = memory::entries_heap(out);
        out.reserve(per_manifest.iter().map(Vec::len).sum());
        for m in per_manifest {
            out.extend(m);
        }
        self.memory.shrink(read + before);
        self.memory.grow(memory::entries_heap(out), || {
            format!("the entries of manifest list {name}")
        })?;
        Ok(())
    }

    /// The manifests of list `name` that may hold files of the scan, and the bytes reserved
    /// for them (the list's bytes are reserved only while they are decoded).
    pub(super) fn read_list(
        &self,
        name: &str,
        batch: bool,
    ) -> Result<(Vec<ManifestFileMeta>, usize)> {
        let (path, bytes) = self.read(name)?;
        let list_bytes = bytes.len();
        self.reserve(list_bytes, "reading the manifest list", &path)?;
        let metas = ManifestFileMeta::decode_list(&path, bytes)?;
        let metas: Vec<ManifestFileMeta> = metas
            .into_iter()
            .filter(|m| self.manifest_may_match(m, batch))
            .collect();
        let metas_bytes = memory::metas_heap(&metas);
        self.memory.shrink(list_bytes);
        self.reserve(metas_bytes, "decoding the manifest list", &path)?;
        Ok((metas, metas_bytes))
    }

    /// The entries of one manifest that pass the scan's filters (see
    /// [`ManifestReader::read_list_entries`]), with the ADD/DELETE pairs it cancels itself
    /// dropped.
    fn read_manifest(&self, m: &ManifestFileMeta, batch: bool) -> Result<Vec<ManifestEntry>> {
        let file_bytes = usize::try_from(m.file_size).unwrap_or(0);
        self.reserve(file_bytes, "reading the manifest", &m.file_name)?;
        let (path, bytes) = self.read(&m.file_name)?;
        let entries = ManifestEntry::decode_manifest_with(&path, bytes, self.decode);
        self.memory.shrink(file_bytes);
        let entries = entries?;
        self.reserve(
            memory::entries_heap(&entries),
            "decoding the manifest",
            &path,
        )?;
        let decoded = memory::entries_heap(&entries);
        let mut out = self.filter_entries(&path, entries, batch)?;
        cancel_local_pairs(&mut out);
        self.memory.shrink(decoded);
        self.reserve(
            memory::entries_heap(&out),
            "the entries of the manifest",
            &path,
        )?;
        Ok(out)
    }

    /// The entries (of the manifest `path`) that pass the scan's bucket, level and partition
    /// filters.
    pub(super) fn filter_entries(
        &self,
        path: &str,
        entries: Vec<ManifestEntry>,
        batch: bool,
    ) -> Result<Vec<ManifestEntry>> {
        let mut cache: HashMap<Vec<u8>, bool> = HashMap::new();
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            if batch
                && ((e.bucket < 0 && !self.keep_postpone)
                    || (self.skip_level0 && e.file.level == 0))
            {
                continue;
            }
            if let Some(sel) = &self.buckets {
                if !sel.may_contain(e.bucket, e.total_buckets) {
                    continue;
                }
            }
            if let Some(filter) = &self.filter {
                let keep = match cache.get(&e.partition) {
                    Some(k) => *k,
                    None => {
                        let values = self
                            .partitions
                            .decode(&e.partition)
                            .map_err(|err| Error::spec(path, err))?;
                        let k = self.partitions.may_match(filter, &values);
                        cache.insert(e.partition.clone(), k);
                        k
                    }
                };
                if !keep {
                    continue;
                }
            }
            out.push(e);
        }
        Ok(out)
    }

    pub(super) fn manifest_may_match(&self, m: &ManifestFileMeta, batch: bool) -> bool {
        if batch && !self.keep_postpone && m.max_bucket.is_some_and(|b| b < 0) {
            return false;
        }
        if batch && self.skip_level0 && m.max_level == Some(0) {
            return false;
        }
        let Some(filter) = &self.filter else {
            return true;
        };
        let n = self.partitions.fields().len();
        let (Ok(min), Ok(max)) = (m.partition_stats.min_row(), m.partition_stats.max_row()) else {
            return true;
        };
        if n == 0 || min.arity() != n || max.arity() != n {
            return true;
        }
        let rows = m.num_added_files + m.num_deleted_files;
        let lookup = |c: &str| -> Option<ColumnStats> {
            let i = self.partitions.fields().iter().position(|f| f.name == c)?;
            let ty = self.partitions.types[i].clone();
            let get = |r: &BinaryRow<'_>| r.get(i, &ty).ok().filter(|d| !d.is_null());
            Some(ColumnStats {
                min: get(&min),
                max: get(&max),
                null_count: m
                    .partition_stats
                    .null_counts
                    .as_ref()
                    .and_then(|v| v.get(i).copied().flatten()),
            })
        };
        may_match(filter, rows, &lookup)
    }

    /// Deletion files from the snapshot's index manifest, keyed by
    /// (partition, bucket, data file name); reserved ([`memory::deletion_index_heap`]).
    pub fn deletion_files(&self, snapshot: &Snapshot) -> Result<DeletionIndex> {
        let mut out = HashMap::new();
        let Some(name) = &snapshot.index_manifest else {
            return Ok(out);
        };
        let (path, bytes) = self.read(name)?;
        let opts = self.table.options();
        for e in IndexManifestEntry::decode_index_manifest(&path, bytes)? {
            if e.kind != FileKind::Add || e.index_file.index_type != DELETION_VECTORS_INDEX {
                continue;
            }
            let index_path = match &e.index_file.external_path {
                Some(p) => p.clone(),
                None if opts.index_file_in_data_file_dir => {
                    let values = self
                        .partitions
                        .decode(&e.partition)
                        .map_err(|err| Error::spec(&path, err))?;
                    paimon_io::join(
                        &self.bucket_path(&values, e.bucket, &path)?,
                        &e.index_file.file_name,
                    )
                }
                None => self.table.layout().index_path(&e.index_file.file_name),
            };
            for dv in e.index_file.dv_ranges.iter().flatten() {
                out.insert(
                    (e.partition.clone(), e.bucket, dv.data_file_name.clone()),
                    DeletionFile {
                        path: index_path.clone(),
                        offset: i64::from(dv.offset),
                        length: i64::from(dv.length),
                        cardinality: dv.cardinality,
                    },
                );
            }
        }
        self.reserve(
            memory::deletion_index_heap(&out),
            "the deletion files of the index manifest",
            &path,
        )?;
        Ok(out)
    }

    /// Java `FileStorePathFactory.bucketPath`.
    pub fn bucket_path(&self, partition: &[Datum], bucket: i32, context: &str) -> Result<String> {
        bucket_path(&self.table, partition, bucket).ok_or_else(|| {
            Error::unsupported(format!(
                "partition directory name for values {partition:?} (in {context})"
            ))
        })
    }

    /// Groups live entries by partition then bucket, in first-appearance order, attaching
    /// deletion files when `dvs` is given.
    pub fn group(
        &self,
        entries: Vec<ManifestEntry>,
        dvs: Option<&DeletionIndex>,
    ) -> Result<Vec<BucketFiles>> {
        let mut index: HashMap<(Vec<u8>, i32), usize> = HashMap::new();
        let mut partitions: HashMap<Vec<u8>, Arc<Vec<Datum>>> = HashMap::new();
        let mut part_order: Vec<Vec<u8>> = Vec::new();
        let mut by_part: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
        let mut out: Vec<BucketFiles> = Vec::new();
        for e in entries {
            let key = (e.partition.clone(), e.bucket);
            let i = match index.get(&key) {
                Some(i) => *i,
                None => {
                    let values = match partitions.get(&e.partition) {
                        Some(v) => v.clone(),
                        None => {
                            let v = Arc::new(
                                self.partitions
                                    .decode(&e.partition)
                                    .map_err(|err| Error::spec(&self.manifest_dir, err))?,
                            );
                            partitions.insert(e.partition.clone(), v.clone());
                            part_order.push(e.partition.clone());
                            v
                        }
                    };
                    let bucket_path = self.bucket_path(&values, e.bucket, &self.manifest_dir)?;
                    out.push(BucketFiles {
                        partition: e.partition.clone(),
                        partition_values: (*values).clone(),
                        bucket: e.bucket,
                        total_buckets: e.total_buckets,
                        bucket_path,
                        files: Vec::new(),
                        deletion_files: dvs.map(|_| Vec::new()),
                    });
                    let i = out.len() - 1;
                    index.insert(key, i);
                    by_part.entry(e.partition.clone()).or_default().push(i);
                    i
                }
            };
            let b = &mut out[i];
            if let (Some(dvs), Some(list)) = (dvs, b.deletion_files.as_mut()) {
                list.push(
                    dvs.get(&(e.partition.clone(), e.bucket, e.file.file_name.clone()))
                        .cloned(),
                );
            }
            b.files.push(*e.file);
        }
        // Java groups by partition first, then bucket (LinkedHashMaps in insertion order).
        let mut slots: Vec<Option<BucketFiles>> = out.into_iter().map(Some).collect();
        let mut ordered = Vec::with_capacity(slots.len());
        for p in part_order {
            for i in by_part.remove(&p).unwrap_or_default() {
                if let Some(b) = slots.get_mut(i).and_then(Option::take) {
                    ordered.push(b);
                }
            }
        }
        Ok(ordered)
    }
}

/// Drops each ADD that a later DELETE of the same file in the same manifest cancels, with that
/// DELETE, so that reconciliation runs while the manifests stream in (in parallel) and only
/// live files and unmatched DELETEs reach [`merge_entries`]. For every input on which Java's
/// `mergeEntries` succeeds the merged result is the same: the ADD left the map empty for the
/// file and the DELETE emptied it again, and no other file moves. (A file added twice, which
/// Java rejects, is only reported when the two ADDs survive this step.)
fn cancel_local_pairs(entries: &mut Vec<ManifestEntry>) {
    if !entries.iter().any(|e| e.kind == FileKind::Delete) {
        return;
    }
    let mut drop = vec![false; entries.len()];
    {
        let mut adds: HashMap<_, usize> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            match e.kind {
                FileKind::Add => {
                    adds.insert(e.identifier(), i);
                }
                FileKind::Delete => {
                    if let Some(a) = adds.remove(&e.identifier()) {
                        if let Some(d) = drop.get_mut(a) {
                            *d = true;
                        }
                        if let Some(d) = drop.get_mut(i) {
                            *d = true;
                        }
                    }
                }
            }
        }
    }
    let mut i = 0;
    entries.retain(|_| {
        let keep = !drop.get(i).copied().unwrap_or(false);
        i += 1;
        keep
    });
}

/// Java `FileEntry.mergeEntries`: applies ADD/DELETE entries in order and returns the live
/// ADD entries in the order Java's `LinkedHashMap` would hold them.
///
/// # Errors
/// [`Error::Corrupt`] when a file is added twice without a delete in between.
pub fn merge_entries(mut entries: Vec<ManifestEntry>) -> Result<Vec<ManifestEntry>> {
    // The surviving entry of each identifier, by position; Java's LinkedHashMap order is the
    // order of those positions, so the live ADDs are kept in place (no second copy).
    let mut keep = vec![false; entries.len()];
    {
        let mut map: HashMap<_, usize> = HashMap::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let id = e.identifier();
            match e.kind {
                FileKind::Add => {
                    if map.insert(id, i).is_some() {
                        return Err(Error::corrupt(
                            e.file.file_name.clone(),
                            "manifest entries add the same file twice",
                        ));
                    }
                }
                FileKind::Delete => {
                    if map.remove(&id).is_none() {
                        map.insert(id, i);
                    }
                }
            }
        }
        for i in map.into_values() {
            if let Some(k) = keep.get_mut(i) {
                *k = true;
            }
        }
    }
    let mut i = 0;
    entries.retain(|e| {
        let k = keep.get(i).copied().unwrap_or(false) && e.kind == FileKind::Add;
        i += 1;
        k
    });
    entries.shrink_to_fit();
    Ok(entries)
}

/// A reconciliation error of the manifests of `snapshot` (read from the file `snapshot_path`):
/// a file added twice means one of its manifests or manifest lists is damaged, so the error
/// names the snapshot file and its lists.
pub(super) fn snapshot_merge_error(e: Error, snapshot: &Snapshot, snapshot_path: &str) -> Error {
    match e {
        Error::Corrupt { path, reason } => Error::corrupt(
            snapshot_path,
            format!(
                "the manifests of manifest lists {} and {} disagree on data file {path}: {reason}",
                snapshot.base_manifest_list, snapshot.delta_manifest_list
            ),
        ),
        other => other,
    }
}
