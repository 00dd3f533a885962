//! Planning within the caller's [`MemoryPool`] (paimon-cpp `ScanContextBuilder::WithMemoryPool`):
//! what a plan holds while it is made, and the [`Plan`](super::Plan) it returns, is reserved
//! from the pool through one [`MemoryReservation`] per `plan()` call. A refusal is
//! [`Error::ResourcesExhausted`]; the reservation is dropped with the half-made plan, so the
//! pool is left as the call found it.
//!
//! The sizes are estimates of the heap the values own (capacities, not lengths, since that is
//! what the allocator hands out), [`file_heap`] being the one that grows with the table.

use std::mem::size_of;
use std::sync::Arc;

use paimon_memory::{MemoryPool, MemoryReservation, UnboundedMemoryPool};
use paimon_spec::data_file::{DataFileMeta, DeletionFile};
use paimon_spec::stats::{null_counts_heap, row_bytes_heap, SimpleStats};
use paimon_split::DataSplit;

use super::files::DeletionIndex;
use super::BucketFiles;
use crate::error::{Error, Result};
use crate::manifest::{ManifestEntry, ManifestFileMeta};

/// The reservation of one planning call, with the table it plans (for the error).
#[derive(Debug)]
pub(crate) struct PlanMemory {
    reservation: MemoryReservation,
    table: String,
}

impl PlanMemory {
    /// An empty reservation on `pool` (an unbounded one when `None`) for planning `table`.
    pub fn new(pool: Option<&Arc<dyn MemoryPool>>, table: &str) -> Arc<Self> {
        let pool = match pool {
            Some(p) => p.clone(),
            None => Arc::new(UnboundedMemoryPool::new()) as Arc<dyn MemoryPool>,
        };
        Arc::new(PlanMemory {
            reservation: MemoryReservation::new(pool),
            table: table.to_string(),
        })
    }

    /// Reserves `bytes` more for `what` (as in "the manifest m-1.avro").
    ///
    /// # Errors
    /// [`Error::ResourcesExhausted`] naming the table and `what`.
    pub fn grow(&self, bytes: usize, what: impl FnOnce() -> String) -> Result<()> {
        self.reservation
            .try_grow(bytes)
            .map_err(|e| self.exhausted(e, bytes, what()))
    }

    /// Gives back `bytes`.
    pub fn shrink(&self, bytes: usize) {
        self.reservation.shrink(bytes);
    }

    /// Holds exactly `bytes` from now on (the plan made, its own size).
    ///
    /// # Errors
    /// As [`PlanMemory::grow`].
    pub fn resize(&self, bytes: usize, what: impl FnOnce() -> String) -> Result<()> {
        let now = self.reservation.size();
        self.reservation
            .try_resize(bytes)
            .map_err(|e| self.exhausted(e, bytes.saturating_sub(now), what()))
    }

    /// Bytes the pool can still grant (`None`: a pool without a limit).
    pub fn free(&self) -> Option<usize> {
        let pool = self.reservation.pool();
        pool.limit().map(|l| l.saturating_sub(pool.reserved()))
    }

    /// Bytes reserved.
    pub fn size(&self) -> usize {
        self.reservation.size()
    }

    fn exhausted(&self, e: paimon_memory::Error, bytes: usize, what: String) -> Error {
        let limit = match e {
            paimon_memory::Error::ResourcesExhausted { limit, .. } => limit,
            _ => self.reservation.pool().limit().unwrap_or(usize::MAX),
        };
        Error::ResourcesExhausted {
            requested: bytes,
            limit,
            what: format!("planning {}: {what}", self.table),
        }
    }
}

/// Heap of a `Vec<T>` holding no heap of its own per element.
fn vec_heap<T>(v: &Vec<T>) -> usize {
    v.capacity() * size_of::<T>()
}

fn strings_heap(v: &Vec<String>) -> usize {
    vec_heap(v) + v.iter().map(String::capacity).sum::<usize>()
}

fn stats_heap(s: &SimpleStats) -> usize {
    row_bytes_heap(&s.min_values)
        + row_bytes_heap(&s.max_values)
        + s.null_counts.as_ref().map_or(0, null_counts_heap)
}

/// Heap owned by a data file's metadata, besides its own `size_of` (names, keys, stats, lists).
pub(crate) fn file_heap(f: &DataFileMeta) -> usize {
    f.file_name.capacity()
        + row_bytes_heap(&f.min_key)
        + row_bytes_heap(&f.max_key)
        + stats_heap(&f.key_stats)
        + stats_heap(&f.value_stats)
        + strings_heap(&f.extra_files)
        + f.embedded_index.as_ref().map_or(0, Vec::capacity)
        + f.value_stats_cols.as_ref().map_or(0, strings_heap)
        + f.external_path.as_ref().map_or(0, String::capacity)
        + f.write_cols.as_ref().map_or(0, strings_heap)
        + f.write_cols_sequences.as_ref().map_or(0, vec_heap)
}

/// Heap of data files held in a vector (inline parts by its capacity).
pub(crate) fn files_heap(files: &Vec<DataFileMeta>) -> usize {
    vec_heap(files) + files.iter().map(file_heap).sum::<usize>()
}

/// Heap of a decoded manifest entry held in a vector: its slot, its boxed file and partition.
pub(crate) fn entry_heap(e: &ManifestEntry) -> usize {
    size_of::<ManifestEntry>()
        + size_of::<DataFileMeta>()
        + e.partition.capacity()
        + file_heap(&e.file)
}

/// Heap of decoded entries held in a vector.
pub(crate) fn entries_heap(entries: &Vec<ManifestEntry>) -> usize {
    (entries.capacity() - entries.len()) * size_of::<ManifestEntry>()
        + entries.iter().map(entry_heap).sum::<usize>()
}

/// Heap of the decoded manifest list `metas`.
pub(crate) fn metas_heap(metas: &Vec<ManifestFileMeta>) -> usize {
    vec_heap(metas)
        + metas
            .iter()
            .map(|m| m.file_name.capacity() + stats_heap(&m.partition_stats))
            .sum::<usize>()
}

fn deletion_files_heap(d: &Option<Vec<Option<DeletionFile>>>) -> usize {
    d.as_ref().map_or(0, |v| {
        vec_heap(v) + v.iter().flatten().map(|f| f.path.capacity()).sum::<usize>()
    })
}

/// Heap of a planned split (besides its own `size_of`).
pub(crate) fn split_heap(s: &DataSplit) -> usize {
    s.partition.capacity()
        + s.bucket_path.capacity()
        + files_heap(&s.before_files)
        + files_heap(&s.data_files)
        + deletion_files_heap(&s.before_deletion_files)
        + deletion_files_heap(&s.data_deletion_files)
}

/// Heap of a plan's splits.
pub(crate) fn splits_heap(splits: &Vec<DataSplit>) -> usize {
    vec_heap(splits) + splits.iter().map(split_heap).sum::<usize>()
}

/// Heap of the files of one (partition, bucket) ready for split generation, and its slot.
pub(super) fn bucket_heap(b: &BucketFiles) -> usize {
    bucket_heap_with_files(b, b.files.iter().map(file_heap).sum())
}

/// [`bucket_heap`] given the heap its files own ([`file_heap`] of each), so that the files
/// are not walked again.
pub(super) fn bucket_heap_with_files(b: &BucketFiles, files_heap: usize) -> usize {
    size_of::<BucketFiles>()
        + b.partition.capacity()
        + vec_heap(&b.partition_values)
        + b.bucket_path.capacity()
        + vec_heap(&b.files)
        + files_heap
        + deletion_files_heap(&b.deletion_files)
}

/// Heap of grouped files.
pub(super) fn buckets_heap(buckets: &[BucketFiles]) -> usize {
    buckets.iter().map(bucket_heap).sum()
}

/// Heap of a snapshot's deletion-file index (keys and values; the table's slots at about
/// twice their number, as a hash map keeps them).
pub(super) fn deletion_index_heap(index: &DeletionIndex) -> usize {
    let slot = size_of::<((Vec<u8>, i32, String), DeletionFile)>() + 1;
    index.capacity() * slot
        + index
            .iter()
            .map(|((p, _, name), f)| p.capacity() + name.capacity() + f.path.capacity())
            .sum::<usize>()
}
