//! Reading the live files of one snapshot block by block. The manifests are opened in rounds
//! (a few MB, or a few dozen small files per thread, at a time); within a round their Avro
//! blocks are decoded in parallel a window at a time (so the decoding parallelizes both when
//! one big manifest holds most entries, as after manifest compaction, and when a thousand
//! one-block manifests do, as streaming writers leave them), and each window's entries are
//! routed, in file order, into their buckets ([`super::live`]) before the next window is
//! decoded. At any time the plan's files exist once, plus one window of decoded entries, plus
//! one round of manifest bytes; all of it is reserved in the scan's memory pool
//! ([`super::memory`]).

use std::collections::HashMap;
use std::mem::size_of;

use paimon_spec::binary::Datum;
use paimon_spec::data_file::DataFileMeta;
use rayon::prelude::*;

use super::files::{snapshot_merge_error, DeletionIndex, ManifestReader};
use super::live;
use super::memory;
use super::BucketFiles;
use crate::error::{Error, Result};
use crate::manifest::{ManifestBlocks, ManifestEntry, ManifestFileMeta};
use crate::snapshot::Snapshot;

/// One decoded block's entries with the bytes reserved for them, or `None` when the block
/// decoder rejected it.
type Decoded = Option<(Vec<ManifestEntry>, usize)>;

/// A manifest of the round and one of its blocks (`None`: the whole file).
type Job = (usize, Option<usize>);

/// Manifest bytes (as the lists record them) opened at once: a round holds the manifests
/// until its last block is decoded, so this bounds the bytes held next to the plan's files
/// (a manifest bigger than this is a round of its own).
const ROUND_BYTES: u64 = 8 << 20;

/// Manifests per thread opened at once: each holds its parsed Avro header besides its bytes,
/// so many small manifests are bounded by count as well.
const ROUND_FILES_PER_THREAD: usize = 32;

/// Entries per thread a window of small blocks gathers before it is decoded: a window of two
/// one-block manifests per thread spends more on waking the threads and waiting for the
/// slower one than on decoding. Two blocks of a compacted Java manifest (269 entries each)
/// already reach it, so such manifests keep windows of two blocks per thread.
const WINDOW_ENTRIES_PER_THREAD: usize = 512;

/// Splits the manifests, in order, into rounds opened together: up to [`ROUND_BYTES`] and
/// [`ROUND_FILES_PER_THREAD`] manifests per thread each.
fn rounds<'a>(all: &'a [&'a ManifestFileMeta], threads: usize) -> Vec<&'a [&'a ManifestFileMeta]> {
    let max_files = ROUND_FILES_PER_THREAD * threads;
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (i, m) in all.iter().enumerate() {
        let size = u64::try_from(m.file_size).unwrap_or(0);
        if i > start && (bytes.saturating_add(size) > ROUND_BYTES || i - start >= max_files) {
            out.extend(all.get(start..i));
            start = i;
            bytes = 0;
        }
        bytes = bytes.saturating_add(size);
    }
    if start < all.len() {
        out.extend(all.get(start..));
    }
    out
}

/// Splits `jobs` into windows decoded together: at least two jobs per thread (so that one
/// big manifest's blocks spread over the threads), more while they hold fewer than
/// [`WINDOW_ENTRIES_PER_THREAD`] entries per thread.
fn windows<'a>(manifests: &[&ManifestBlocks], jobs: &'a [Job], threads: usize) -> Vec<&'a [Job]> {
    let min_jobs = 2 * threads;
    let min_entries = WINDOW_ENTRIES_PER_THREAD * threads;
    let mut out = Vec::new();
    let (mut start, mut entries) = (0, 0usize);
    for (i, &(m, block)) in jobs.iter().enumerate() {
        let n = match (block, manifests.get(m)) {
            (Some(b), Some(blocks)) => blocks.block_entries(b),
            _ => min_entries,
        };
        entries = entries.saturating_add(n);
        if i + 1 - start >= min_jobs && entries >= min_entries {
            out.extend(jobs.get(start..=i));
            start = i + 1;
            entries = 0;
        }
    }
    if start < jobs.len() {
        out.extend(jobs.get(start..));
    }
    out
}

impl ManifestReader {
    /// The live files of `snapshot` (read from `snapshot_path`) in batch mode, grouped by
    /// partition then bucket in Java's order, each file passed through `keep` (which may edit
    /// it) once reconciled, with deletion files attached when `dvs` is given.
    ///
    /// See the module documentation for how the manifests are decoded.
    ///
    /// # Errors
    /// Storage and decoding errors naming the file; [`Error::Corrupt`] naming `snapshot_path`
    /// when the manifests add a file twice; [`Error::ResourcesExhausted`] when the memory pool
    /// refuses. The buckets returned are reserved ([`memory::buckets_heap`]).
    pub fn read_live_buckets(
        &self,
        snapshot: &Snapshot,
        snapshot_path: &str,
        keep: &mut dyn FnMut(&mut DataFileMeta) -> Result<bool>,
        dvs: Option<&DeletionIndex>,
    ) -> Result<Vec<BucketFiles>> {
        let mem = &self.memory;
        let mut lists: Vec<Vec<ManifestFileMeta>> = Vec::with_capacity(2);
        // Bytes reserved for the manifest lists' entries, held until every manifest is read.
        let mut metas_held = 0;
        for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list] {
            let (metas, metas_bytes) = self.read_list(list, true)?;
            metas_held += metas_bytes;
            lists.push(metas);
        }
        let all: Vec<&ManifestFileMeta> = lists.iter().flatten().collect();
        let all_bytes = all.capacity() * std::mem::size_of::<&ManifestFileMeta>();
        mem.grow(all_bytes, || {
            format!("listing the manifests of {snapshot_path}")
        })?;
        let threads = rayon::current_num_threads().max(1);
        let mut acc = live::BucketAccumulator::default();
        // Bytes reserved for the accumulated buckets.
        let mut acc_held = 0;
        for round in rounds(&all, threads) {
            let opened: Vec<(ManifestBlocks, usize)> = round
                .par_iter()
                .map(|m| self.open_manifest(m))
                .collect::<Result<_>>()?;
            let held = opened.iter().map(|(_, n)| n).sum::<usize>()
                + opened.capacity() * std::mem::size_of::<(ManifestBlocks, usize)>();
            mem.grow(
                opened.capacity() * std::mem::size_of::<(ManifestBlocks, usize)>(),
                || format!("opening the manifests of {snapshot_path}"),
            )?;
            let manifests: Vec<&ManifestBlocks> = opened.iter().map(|(m, _)| m).collect();
            let done =
                self.decode_round(&manifests, threads, &mut acc, &mut acc_held, snapshot_path);
            drop(manifests);
            drop(opened);
            mem.shrink(held);
            done?;
        }
        drop(all);
        drop(lists);
        mem.shrink(metas_held + all_bytes);
        let merged = acc
            .merge()
            .map_err(|e| snapshot_merge_error(e, snapshot, snapshot_path))?;
        let mut kept = Vec::with_capacity(merged.len());
        let mut live_bytes = 0;
        for mut b in merged {
            let files_heap = b.retain_files(keep)?;
            live_bytes += b.heap(files_heap);
            kept.push((b, files_heap));
        }
        // Reconciling and filtering only drop files and slack: hold what is left.
        mem.shrink(acc_held.saturating_sub(live_bytes));
        mem.grow(live_bytes.saturating_sub(acc_held), || {
            format!("reconciling the live files of {snapshot_path}")
        })?;
        let mut partitions: HashMap<Vec<u8>, Vec<Datum>> = HashMap::new();
        let mut out = Vec::with_capacity(kept.len());
        let mut out_bytes = 0;
        for (b, files_heap) in live::order(kept) {
            let values = match partitions.get(&b.partition) {
                Some(v) => v.clone(),
                None => {
                    let v = self
                        .partitions
                        .decode(&b.partition)
                        .map_err(|err| Error::spec(&self.manifest_dir, err))?;
                    partitions.insert(b.partition.clone(), v.clone());
                    v
                }
            };
            let bucket_path = self.bucket_path(&values, b.bucket, &self.manifest_dir)?;
            let deletion_files = dvs.map(|dvs| {
                b.files
                    .iter()
                    .map(|f| {
                        dvs.get(&(b.partition.clone(), b.bucket, f.file_name.clone()))
                            .cloned()
                    })
                    .collect()
            });
            let total_buckets = b.total_buckets();
            let bucket = BucketFiles {
                partition: b.partition,
                partition_values: values,
                bucket: b.bucket,
                total_buckets,
                bucket_path,
                files: b.files,
                deletion_files,
            };
            out_bytes += memory::bucket_heap_with_files(&bucket, files_heap);
            out.push(bucket);
        }
        mem.shrink(live_bytes);
        mem.grow(out_bytes, || {
            format!("grouping the live files of {snapshot_path}")
        })?;
        Ok(out)
    }

    /// Decodes the manifests of one round (see [`rounds`]) a window of blocks at a time and
    /// routes their entries, in file order, into `acc`, whose reserved bytes `acc_held` follows.
    fn decode_round(
        &self,
        manifests: &[&ManifestBlocks],
        threads: usize,
        acc: &mut live::BucketAccumulator,
        acc_held: &mut usize,
        snapshot_path: &str,
    ) -> Result<()> {
        let mem = &self.memory;
        // Jobs in file order: each Avro block, or a whole manifest the block decoder cannot walk.
        let jobs: Vec<Job> = manifests
            .iter()
            .enumerate()
            .flat_map(|(m, blocks)| match blocks.block_count() {
                0 => vec![(m, None)],
                n => (0..n).map(|b| (m, Some(b))).collect(),
            })
            .collect();
        let jobs_bytes = jobs.capacity() * std::mem::size_of::<Job>();
        mem.grow(jobs_bytes, || {
            format!("indexing the manifests of {snapshot_path}")
        })?;
        let done = self.decode_jobs(manifests, &jobs, threads, acc, acc_held, snapshot_path);
        drop(jobs);
        mem.shrink(jobs_bytes);
        done
    }

    fn decode_jobs(
        &self,
        manifests: &[&ManifestBlocks],
        jobs: &[Job],
        threads: usize,
        acc: &mut live::BucketAccumulator,
        acc_held: &mut usize,
        snapshot_path: &str,
    ) -> Result<()> {
        let mem = &self.memory;
        let mut decoded_whole = vec![false; manifests.len()];
        for chunk in windows(manifests, jobs, threads) {
            let decode = |&(m, block): &Job| -> Result<Decoded> {
                let Some(blocks) = manifests.get(m) else {
                    return Ok(Some((Vec::new(), 0)));
                };
                let entries = match block {
                    Some(b) => blocks.decode_block(b, self.decode)?,
                    None => Some(blocks.decode_all(self.decode)?),
                };
                let Some(entries) = entries else {
                    return Ok(None);
                };
                Ok(Some(self.reserved_entries(blocks.path(), entries)?))
            };
            // Job i of the window runs on thread i mod n: each thread's allocator arena then
            // holds the same share of the files from plan to plan (with work stealing the
            // shares drift, and each arena keeps its own high-water mark).
            let per_thread: Vec<Vec<(usize, Result<Decoded>)>> = rayon::broadcast(|ctx| {
                chunk
                    .iter()
                    .enumerate()
                    .skip(ctx.index())
                    .step_by(ctx.num_threads().max(1))
                    .map(|(i, job)| (i, decode(job)))
                    .collect()
            });
            let mut slots: Vec<Option<Result<Decoded>>> = chunk.iter().map(|_| None).collect();
            for (i, r) in per_thread.into_iter().flatten() {
                if let Some(slot) = slots.get_mut(i) {
                    *slot = Some(r);
                }
            }
            let decoded: Vec<Decoded> = slots
                .into_iter()
                .map(|r| {
                    r.unwrap_or_else(|| {
                        Err(Error::Internal(
                            "a manifest block of the window was given to no thread".into(),
                        ))
                    })
                })
                .collect::<Result<_>>()?;
            for (&(m, block), entries) in chunk.iter().zip(decoded) {
                if decoded_whole.get(m).copied().unwrap_or(true) {
                    continue;
                }
                let (entries, window_bytes) = match (entries, manifests.get(m)) {
                    (Some(e), _) => e,
                    (None, Some(blocks)) => {
                        // The block decoder gave up: take this block and the rest of the file
                        // from the generic decoder.
                        if let Some(d) = decoded_whole.get_mut(m) {
                            *d = true;
                        }
                        let skip = block.map_or(0, |b| blocks.first_entry(b));
                        let all = blocks.decode_all(self.decode)?;
                        let rest: Vec<ManifestEntry> = all.into_iter().skip(skip).collect();
                        self.reserved_entries(blocks.path(), rest)?
                    }
                    (None, None) => (Vec::new(), 0),
                };
                for e in entries {
                    acc.push(e);
                }
                mem.grow(acc.heap().saturating_sub(*acc_held), || {
                    format!("collecting the live files of {snapshot_path}")
                })?;
                *acc_held = (*acc_held).max(acc.heap());
                mem.shrink(window_bytes);
            }
        }
        Ok(())
    }

    /// Opens manifest `m` for block decoding, reserving its bytes (before reading them, from
    /// the size the list records) and its block index; returns it with the bytes reserved.
    fn open_manifest(&self, m: &ManifestFileMeta) -> Result<(ManifestBlocks, usize)> {
        let recorded = usize::try_from(m.file_size).unwrap_or(0);
        self.reserve(recorded, "reading the manifest", &m.file_name)?;
        let (path, bytes) = self.read(&m.file_name)?;
        // The blocks may inflate to no more than the pool has free now.
        let blocks = ManifestEntry::blocks_within(path, bytes, self.memory.free());
        let held = blocks.heap();
        self.memory.shrink(recorded);
        self.reserve(held, "opening the manifest", blocks.path())?;
        Ok((blocks, held))
    }

    /// The entries decoded from the manifest `path` that pass the scan's filters, reserved,
    /// with the bytes reserved.
    fn reserved_entries(
        &self,
        path: &str,
        entries: Vec<ManifestEntry>,
    ) -> Result<(Vec<ManifestEntry>, usize)> {
        let decoded = memory::entries_heap(&entries);
        // The entries' own heap, without the vector's unused slots.
        let own = decoded - (entries.capacity() - entries.len()) * size_of::<ManifestEntry>();
        let n = entries.len();
        self.reserve(decoded, "decoding the manifest", path)?;
        let kept = self.filter_entries(path, entries, true);
        self.memory.shrink(decoded);
        let kept = kept?;
        // Filtering moves entries without changing them: when it kept all of them, their heap
        // is the one measured above.
        let kept_bytes = if kept.len() == n {
            own + (kept.capacity() - kept.len()) * size_of::<ManifestEntry>()
        } else {
            memory::entries_heap(&kept)
        };
        self.reserve(kept_bytes, "the entries of the manifest", path)?;
        Ok((kept, kept_bytes))
    }
}
