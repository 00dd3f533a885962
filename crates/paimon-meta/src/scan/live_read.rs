//! Reading the live files of one snapshot block by block: the Avro blocks of its manifests are
//! decoded in parallel a window at a time (so the decoding parallelizes even when one big
//! manifest holds most entries, as after manifest compaction), and each window's entries are
//! routed, in file order, into their buckets ([`super::live`]) before the next window is
//! decoded. At any time the plan's files exist once, plus one window of decoded entries, plus
//! the manifests' bytes until the last window is decoded; all of it is reserved in the scan's
//! memory pool ([`super::memory`]).

use std::collections::HashMap;

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

/// One decoded block's entries, or `None` when the block decoder rejected it.
type Decoded = Option<Vec<ManifestEntry>>;

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
        let mut manifests: Vec<ManifestBlocks> = Vec::new();
        // Bytes reserved for the manifests held (their bytes and block indexes).
        let mut held = 0;
        for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list] {
            let (metas, metas_bytes) = self.read_list(list, true)?;
            let opened: Vec<(ManifestBlocks, usize)> = metas
                .par_iter()
                .map(|m| self.open_manifest(m))
                .collect::<Result<_>>()?;
            drop(metas);
            mem.shrink(metas_bytes);
            held += opened.iter().map(|(_, n)| n).sum::<usize>();
            manifests.extend(opened.into_iter().map(|(m, _)| m));
        }
        let held = held + manifests.capacity() * std::mem::size_of::<ManifestBlocks>();
        mem.grow(
            manifests.capacity() * std::mem::size_of::<ManifestBlocks>(),
            || format!("opening the manifests of {snapshot_path}"),
        )?;
        // Jobs in file order: each Avro block, or a whole manifest the block decoder cannot walk.
        let jobs: Vec<(usize, Option<usize>)> = manifests
            .iter()
            .enumerate()
            .flat_map(|(m, blocks)| match blocks.block_count() {
                0 => vec![(m, None)],
                n => (0..n).map(|b| (m, Some(b))).collect(),
            })
            .collect();
        let jobs_bytes = jobs.capacity() * std::mem::size_of::<(usize, Option<usize>)>();
        mem.grow(jobs_bytes, || {
            format!("indexing the manifests of {snapshot_path}")
        })?;
        // Enough blocks per window to keep every thread busy, few enough that the window's
        // decoded entries stay small next to the files themselves (and in cache: 2 blocks per
        // thread planned the 100,000-file table in 0.88-0.92x the time of 4, medians of 9 runs).
        let window = rayon::current_num_threads().max(1) * 2;
        let mut acc = live::BucketAccumulator::default();
        // Bytes reserved for the accumulated buckets.
        let mut acc_held = 0;
        let mut decoded_whole = vec![false; manifests.len()];
        for chunk in jobs.chunks(window) {
            let decode = |&(m, block): &(usize, Option<usize>)| -> Result<Decoded> {
                let Some(blocks) = manifests.get(m) else {
                    return Ok(Some(Vec::new()));
                };
                let entries = match block {
                    Some(b) => blocks.decode_block(b, self.decode)?,
                    None => Some(blocks.decode_all(self.decode)?),
                };
                let Some(entries) = entries else {
                    return Ok(None);
                };
                let kept = self.reserved_entries(blocks.path(), entries)?;
                Ok(Some(kept))
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
                let entries = match (entries, manifests.get(m)) {
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
                    (None, None) => Vec::new(),
                };
                let window_bytes = memory::entries_heap(&entries);
                for e in entries {
                    acc.push(e);
                }
                mem.grow(acc.heap().saturating_sub(acc_held), || {
                    format!("collecting the live files of {snapshot_path}")
                })?;
                acc_held = acc_held.max(acc.heap());
                mem.shrink(window_bytes);
            }
        }
        drop(manifests);
        mem.shrink(held + jobs_bytes);
        let merged = acc
            .merge()
            .map_err(|e| snapshot_merge_error(e, snapshot, snapshot_path))?;
        let mut kept = Vec::with_capacity(merged.len());
        for mut b in merged {
            b.retain_files(keep)?;
            kept.push(b);
        }
        // Reconciling and filtering only drop files and slack: hold what is left.
        let live_bytes: usize = kept.iter().map(live::LiveBucket::heap).sum();
        mem.shrink(acc_held.saturating_sub(live_bytes));
        mem.grow(live_bytes.saturating_sub(acc_held), || {
            format!("reconciling the live files of {snapshot_path}")
        })?;
        let mut partitions: HashMap<Vec<u8>, Vec<Datum>> = HashMap::new();
        let mut out = Vec::with_capacity(kept.len());
        for b in live::order(kept) {
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
            out.push(BucketFiles {
                partition: b.partition,
                partition_values: values,
                bucket: b.bucket,
                total_buckets,
                bucket_path,
                files: b.files,
                deletion_files,
            });
        }
        mem.shrink(live_bytes);
        mem.grow(memory::buckets_heap(&out), || {
            format!("grouping the live files of {snapshot_path}")
        })?;
        Ok(out)
    }

    /// Opens manifest `m` for block decoding, reserving its bytes (before reading them, from
    /// the size the list records) and its block index; returns it with the bytes reserved.
    fn open_manifest(&self, m: &ManifestFileMeta) -> Result<(ManifestBlocks, usize)> {
        let recorded = usize::try_from(m.file_size).unwrap_or(0);
        self.reserve(recorded, "reading the manifest", &m.file_name)?;
        let (path, bytes) = self.read(&m.file_name)?;
        let blocks = ManifestEntry::blocks(path, bytes);
        let held = blocks.heap();
        self.memory.shrink(recorded);
        self.reserve(held, "opening the manifest", blocks.path())?;
        Ok((blocks, held))
    }

    /// The entries decoded from the manifest `path` that pass the scan's filters, reserved.
    fn reserved_entries(
        &self,
        path: &str,
        entries: Vec<ManifestEntry>,
    ) -> Result<Vec<ManifestEntry>> {
        let decoded = memory::entries_heap(&entries);
        self.reserve(decoded, "decoding the manifest", path)?;
        let kept = self.filter_entries(path, entries, true);
        self.memory.shrink(decoded);
        let kept = kept?;
        self.reserve(
            memory::entries_heap(&kept),
            "the entries of the manifest",
            path,
        )?;
        Ok(kept)
    }
}
