//! Reading the live files of one snapshot block by block: the Avro blocks of its manifests are
//! decoded in parallel a window at a time (so the decoding parallelizes even when one big
//! manifest holds most entries, as after manifest compaction), and each window's entries are
//! routed, in file order, into their buckets ([`super::live`]) before the next window is
//! decoded. At any time the plan's files exist once, plus one window of decoded entries.

use std::collections::HashMap;

use paimon_spec::binary::Datum;
use paimon_spec::data_file::DataFileMeta;
use rayon::prelude::*;

use super::files::{snapshot_merge_error, DeletionIndex, ManifestReader};
use super::live;
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
    /// when the manifests add a file twice.
    pub fn read_live_buckets(
        &self,
        snapshot: &Snapshot,
        snapshot_path: &str,
        keep: &mut dyn FnMut(&mut DataFileMeta) -> Result<bool>,
        dvs: Option<&DeletionIndex>,
    ) -> Result<Vec<BucketFiles>> {
        let mut manifests: Vec<ManifestBlocks> = Vec::new();
        for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list] {
            let (path, bytes) = self.read(list)?;
            let metas: Vec<ManifestFileMeta> = ManifestFileMeta::decode_list(&path, bytes)?
                .into_iter()
                .filter(|m| self.manifest_may_match(m, true))
                .collect();
            let opened: Vec<ManifestBlocks> = metas
                .par_iter()
                .map(|m| {
                    let (path, bytes) = self.read(&m.file_name)?;
                    Ok(ManifestEntry::blocks(path, bytes))
                })
                .collect::<Result<_>>()?;
            manifests.extend(opened);
        }
        // Jobs in file order: each Avro block, or a whole manifest the block decoder cannot walk.
        let jobs: Vec<(usize, Option<usize>)> = manifests
            .iter()
            .enumerate()
            .flat_map(|(m, blocks)| match blocks.block_count() {
                0 => vec![(m, None)],
                n => (0..n).map(|b| (m, Some(b))).collect(),
            })
            .collect();
        // Enough blocks per window to keep every thread busy, few enough that the window's
        // decoded entries stay small next to the files themselves (and in cache: 2 blocks per
        // thread planned the 100,000-file table in 0.88-0.92x the time of 4, medians of 9 runs).
        let window = rayon::current_num_threads().max(1) * 2;
        let mut acc = live::BucketAccumulator::default();
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
                entries
                    .map(|e| self.filter_entries(blocks.path(), e, true))
                    .transpose()
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
                        self.filter_entries(blocks.path(), rest, true)?
                    }
                    (None, None) => Vec::new(),
                };
                for e in entries {
                    acc.push(e);
                }
            }
        }
        let merged = acc
            .merge()
            .map_err(|e| snapshot_merge_error(e, snapshot, snapshot_path))?;
        let mut kept = Vec::with_capacity(merged.len());
        for mut b in merged {
            b.retain_files(keep)?;
            kept.push(b);
        }
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
        Ok(out)
    }
}
