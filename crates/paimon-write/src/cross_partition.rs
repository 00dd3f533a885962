//! Cross-partition upsert: the key index of a dynamic-bucket primary-key table whose primary
//! key does not hold every partition column (Java `GlobalIndexAssigner`, `BucketAssigner` of
//! `crosspartition`, `ExistingProcessor`).
//!
//! ```text
//! bootstrap: (partition, bucket, keys) of the latest snapshot ──▶ key ─▶ (partition id, bucket)
//! each row:  key known in its own partition ──▶ that bucket
//!            key known in another partition ──▶ deduplicate:   -D in the old (partition, bucket),
//!                                                              then a new bucket in the new one
//!                                               partial-update / aggregation: the row, with the
//!                                                              old partition's values, goes there
//!                                               first-row:     dropped (the old row stays)
//!            new key ──▶ the lowest bucket of its partition holding fewer than
//!                        `dynamic-bucket.target-row-num` keys, else the lowest unused bucket
//! ```
//!
//! The index lives in memory, compactly: a key is its `arrow-row` encoding (the bytes of its
//! key columns, nothing else) mapped to a partition id and a bucket; partitions are interned.
//! It does not spill (Java keeps it in RocksDB): see [`CrossPartitionIndex::memory_bytes`].
//! No hash index files are written for such a table, as Java writes none.

use std::collections::{BTreeMap, HashMap};

use arrow_array::{ArrayRef, RecordBatch};
use arrow_row::{RowConverter, SortField};
use paimon_spec::options::MergeEngine;

use crate::error::{Error, Result};

/// What happens to a row whose key the index holds in another partition (Java
/// `ExistingProcessor.create`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Existing {
    /// `deduplicate`: the old row is deleted, the new one goes to its own partition.
    DeleteOld,
    /// `partial-update`, `aggregation`: the row is merged into the old partition's row.
    UseOld,
    /// `first-row`: the row is dropped.
    SkipNew,
}

impl Existing {
    pub(crate) fn of(engine: &MergeEngine) -> Self {
        match engine {
            MergeEngine::Deduplicate => Existing::DeleteOld,
            MergeEngine::FirstRow => Existing::SkipNew,
            _ => Existing::UseOld,
        }
    }
}

/// Where one input row goes: its partition id, bucket, whether it is a retraction of the old
/// row (`-D`), and whether its partition columns take that partition's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Routed {
    pub(crate) row: u32,
    pub(crate) partition: u32,
    pub(crate) bucket: i32,
    pub(crate) retract: bool,
    pub(crate) set_partition: bool,
}

/// The key index of one writer.
#[derive(Debug)]
pub(crate) struct CrossPartitionIndex {
    table: String,
    target_row_num: i64,
    existing: Existing,
    /// The trimmed primary-key columns in the row.
    key_cols: Vec<usize>,
    key_types: Vec<arrow_schema::DataType>,
    converter: RowConverter,
    keys: HashMap<Box<[u8]>, (u32, i32)>,
    key_bytes: usize,
    partitions: Vec<Vec<u8>>,
    partition_ids: HashMap<Vec<u8>, u32>,
    /// Keys per bucket of each partition id (Java `BucketAssigner.stats`).
    counts: HashMap<u32, BTreeMap<i32, i64>>,
    /// Whether the bootstrap has ended; rows are refused before.
    ready: bool,
}

impl CrossPartitionIndex {
    pub(crate) fn try_new(
        table: &str,
        target_row_num: i64,
        existing: Existing,
        key_cols: Vec<(usize, arrow_schema::DataType)>,
    ) -> Result<Self> {
        let converter = RowConverter::new(
            key_cols
                .iter()
                .map(|(_, t)| SortField::new(t.clone()))
                .collect(),
        )
        .map_err(|e| Error::Unsupported {
            feature: format!("table {table}: primary-key types of a cross-partition index: {e}"),
        })?;
        Ok(CrossPartitionIndex {
            table: table.to_string(),
            target_row_num,
            existing,
            key_types: key_cols.iter().map(|(_, t)| t.clone()).collect(),
            key_cols: key_cols.into_iter().map(|(i, _)| i).collect(),
            converter,
            keys: HashMap::new(),
            key_bytes: 0,
            partitions: Vec::new(),
            partition_ids: HashMap::new(),
            counts: HashMap::new(),
            ready: false,
        })
    }

    /// The serialized partition of an id.
    pub(crate) fn partition(&self, id: u32) -> &[u8] {
        self.partitions
            .get(id as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    fn partition_id(&mut self, partition: &[u8]) -> u32 {
        if let Some(id) = self.partition_ids.get(partition) {
            return *id;
        }
        let id = self.partitions.len() as u32;
        self.partitions.push(partition.to_vec());
        self.partition_ids.insert(partition.to_vec(), id);
        id
    }

    fn encode(&self, columns: &[ArrayRef]) -> Result<arrow_row::Rows> {
        self.converter
            .convert_columns(columns)
            .map_err(|e| Error::Internal(format!("encoding primary keys: {e}")))
    }

    /// Adds the committed keys of one (partition, bucket): `keys` holds the trimmed
    /// primary-key columns in key order, as read from the latest snapshot (Java
    /// `GlobalIndexAssigner.bootstrapKey`).
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] for key columns of other types or number;
    /// [`Error::Unsupported`] for a key the table holds in two partitions (Java refuses the
    /// bulk load then too: two writers wrote the table at once).
    pub(crate) fn bootstrap(
        &mut self,
        partition: &[u8],
        bucket: i32,
        keys: &[ArrayRef],
    ) -> Result<()> {
        let fields = &self.key_types;
        if keys.len() != fields.len() || keys.iter().zip(fields).any(|(c, t)| c.data_type() != t) {
            return Err(Error::SchemaMismatch {
                table: self.table.clone(),
                reason: format!(
                    "bootstrap keys of types {:?}, the primary key has {fields:?}",
                    keys.iter().map(|c| c.data_type()).collect::<Vec<_>>()
                ),
            });
        }
        let id = self.partition_id(partition);
        let rows = self.encode(keys)?;
        let counts = self.counts.entry(id).or_default();
        for row in rows.iter() {
            let key: Box<[u8]> = row.as_ref().into();
            let len = allocation(key.len());
            if let Some((old, _)) = self.keys.insert(key, (id, bucket)) {
                if old != id {
                    return Err(Error::Unsupported {
                        feature: format!(
                            "table {}: a primary key held in two partitions of the latest \
                             snapshot (two writers wrote this cross-partition table at once; \
                             Java refuses it too)",
                            self.table
                        ),
                    });
                }
            } else {
                self.key_bytes += len;
            }
            *counts.entry(bucket).or_default() += 1;
        }
        Ok(())
    }

    /// Ends the bootstrap: rows may be routed from now on.
    pub(crate) fn finish_bootstrap(&mut self) {
        self.ready = true;
    }

    /// The keys held.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// An estimate of the index's heap bytes: the map's slots (key pointer, partition id,
    /// bucket, control byte) for its capacity at the map's 7/8 load, and each key's own
    /// allocation (its bytes with the allocator's 8-byte header, in 16-byte steps, at least
    /// 32).
    pub(crate) fn memory_bytes(&self) -> usize {
        let slot = std::mem::size_of::<(Box<[u8]>, (u32, i32))>() + 1;
        self.keys.capacity() * 8 / 7 * slot
            + self.key_bytes
            + self
                .partitions
                .iter()
                .map(|p| 2 * p.len() + 48)
                .sum::<usize>()
    }

    /// Java `BucketAssigner.assignBucket` with one assigner: the lowest bucket of the
    /// partition below the target, else the lowest bucket id not in use.
    fn assign_bucket(&mut self, partition: u32) -> i32 {
        let counts = self.counts.entry(partition).or_default();
        if let Some((b, n)) = counts.iter_mut().find(|(_, n)| **n < self.target_row_num) {
            *n += 1;
            return *b;
        }
        let b = (0..).find(|b| !counts.contains_key(b)).unwrap_or(0);
        counts.insert(b, 1);
        b
    }

    /// Routes every row of `batch` (Java `GlobalIndexAssigner.processInput`), in row order;
    /// `partitions` is each row's serialized partition.
    ///
    /// # Errors
    /// [`Error::Unsupported`] before the bootstrap has ended.
    pub(crate) fn route(
        &mut self,
        batch: &RecordBatch,
        partitions: &[&[u8]],
    ) -> Result<Vec<Routed>> {
        if !self.ready {
            return Err(Error::Unsupported {
                feature: format!(
                    "table {}: a cross-partition upsert table's writer needs its key index \
                     bootstrapped from the table first (paimon-rs's open_writer does it; a \
                     writer built from a write context alone cannot)",
                    self.table
                ),
            });
        }
        let columns: Vec<ArrayRef> = self
            .key_cols
            .iter()
            .map(|i| batch.column(*i).clone())
            .collect();
        let rows = self.encode(&columns)?;
        let mut out = Vec::with_capacity(batch.num_rows());
        for (row, (key, partition)) in rows.iter().zip(partitions).enumerate() {
            let row = row as u32;
            let id = self.partition_id(partition);
            let to = |partition, bucket, retract, set_partition| Routed {
                row,
                partition,
                bucket,
                retract,
                set_partition,
            };
            match self.keys.get(key.as_ref()).copied() {
                Some((old, bucket)) if old == id => out.push(to(id, bucket, false, false)),
                Some((old, bucket)) => match self.existing {
                    Existing::DeleteOld => {
                        out.push(to(old, bucket, true, true));
                        if let Some(n) = self.counts.get_mut(&old).and_then(|c| c.get_mut(&bucket))
                        {
                            *n -= 1;
                        }
                        let new = self.assign_bucket(id);
                        self.keys.insert(key.as_ref().into(), (id, new));
                        out.push(to(id, new, false, false));
                    }
                    Existing::UseOld => out.push(to(old, bucket, false, true)),
                    Existing::SkipNew => {}
                },
                None => {
                    let new = self.assign_bucket(id);
                    self.key_bytes += allocation(key.as_ref().len());
                    self.keys.insert(key.as_ref().into(), (id, new));
                    out.push(to(id, new, false, false));
                }
            }
        }
        Ok(out)
    }
}

/// The bytes an allocation of `len` bytes takes (glibc-like: an 8-byte header, 16-byte steps,
/// at least 32).
fn allocation(len: usize) -> usize {
    (len + 8).div_ceil(16).max(2) * 16
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};

    use super::*;

    fn index(existing: Existing, target: i64) -> CrossPartitionIndex {
        CrossPartitionIndex::try_new("t", target, existing, vec![(0, DataType::Int64)]).unwrap()
    }

    fn keys(ids: &[i64]) -> RecordBatch {
        RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)])),
            vec![Arc::new(Int64Array::from(ids.to_vec()))],
        )
        .unwrap()
    }

    /// (row, partition, bucket, retract, set_partition) of each routed row.
    fn routed(r: Vec<Routed>) -> Vec<(u32, u32, i32, bool, bool)> {
        r.into_iter()
            .map(|r| (r.row, r.partition, r.bucket, r.retract, r.set_partition))
            .collect()
    }

    /// Deduplicate: a key met in another partition is retracted there and assigned anew; the
    /// bucket it left has room again (Java `BucketAssigner.decrement`).
    #[test]
    fn deduplicate_retracts_the_old_partition() {
        let mut ix = index(Existing::DeleteOld, 2);
        ix.bootstrap(b"pa", 0, &[keys(&[1, 2]).column(0).clone()])
            .unwrap();
        ix.bootstrap(b"pa", 1, &[keys(&[3]).column(0).clone()])
            .unwrap();
        ix.finish_bootstrap();
        let (a, b) = (b"pa".as_slice(), b"pb".as_slice());
        // 1 stays in a (bucket 0); 2 moves to b; 4 is new in a: bucket 0 has room again.
        let got = ix.route(&keys(&[1, 2, 4]), &[a, b, a]).unwrap();
        assert_eq!(
            routed(got),
            vec![
                (0, 0, 0, false, false),
                (1, 0, 0, true, true),
                (1, 1, 0, false, false),
                (2, 0, 0, false, false),
            ]
        );
        assert_eq!(ix.partition(1), b"pb");
        assert_eq!(ix.len(), 4);
    }

    #[test]
    fn partial_update_routes_to_the_old_partition_and_first_row_drops() {
        let mut ix = index(Existing::UseOld, 10);
        ix.bootstrap(b"pa", 3, &[keys(&[1]).column(0).clone()])
            .unwrap();
        ix.finish_bootstrap();
        let got = ix.route(&keys(&[1, 2]), &[b"pb", b"pb"]).unwrap();
        assert_eq!(
            routed(got),
            vec![(0, 0, 3, false, true), (1, 1, 0, false, false)]
        );

        let mut ix = index(Existing::SkipNew, 10);
        ix.bootstrap(b"pa", 3, &[keys(&[1]).column(0).clone()])
            .unwrap();
        ix.finish_bootstrap();
        let got = ix.route(&keys(&[1, 1, 2]), &[b"pb", b"pa", b"pb"]).unwrap();
        assert_eq!(
            routed(got),
            vec![(1, 0, 3, false, false), (2, 1, 0, false, false)]
        );
    }

    #[test]
    fn a_key_in_two_partitions_of_the_snapshot_is_refused() {
        let mut ix = index(Existing::DeleteOld, 10);
        ix.bootstrap(b"pa", 0, &[keys(&[1]).column(0).clone()])
            .unwrap();
        let err = ix
            .bootstrap(b"pb", 0, &[keys(&[1]).column(0).clone()])
            .unwrap_err();
        assert!(err.to_string().contains("two partitions"), "{err}");
    }

    #[test]
    fn rows_before_the_bootstrap_ends_are_refused() {
        let mut ix = index(Existing::DeleteOld, 10);
        let err = ix.route(&keys(&[1]), &[b"pa"]).unwrap_err();
        assert!(err.to_string().contains("bootstrapped"), "{err}");
    }

    /// The index's size for 200,000 BIGINT keys (printed; measured 2026-12-07): bounded by
    /// 80 bytes a key.
    #[test]
    fn index_bytes_per_key() {
        let mut ix = index(Existing::DeleteOld, 2_000_000);
        let ids: Vec<i64> = (0..200_000).collect();
        ix.bootstrap(b"pa", 0, &[keys(&ids).column(0).clone()])
            .unwrap();
        let per_key = ix.memory_bytes() as f64 / ix.len() as f64;
        println!("cross-partition index: {per_key:.1} bytes per BIGINT key");
        assert!(per_key < 80.0, "{per_key}");
    }
}
