//! Lookup compaction of primary-key tables with deletion vectors, and of first-row tables
//! (Java `LookupMergeTreeCompactRewriter`, `LookupChangelogMergeFunctionWrapper`,
//! `FirstRowMergeFunctionWrapper`, `BucketedDvMaintainer`).
//!
//! A table with deletion vectors keeps one live copy of each key in levels 1 and up, and its
//! readers skip level 0. When level-0 files move up, each of their keys that still lives in a
//! level above the output level loses that copy. Java looks each key up in those levels; here
//! the levels are scanned once against the keys of the task's level-0 files:
//!
//! ```text
//! level-0 inputs ──keys──▶ K
//! each file above the output level, row by row (its vector applied):
//!     key in K ──▶ mark (file, position) deleted; keep the row as the key's older copy
//! merge of an input group: its runs + the older copies of its level-0 keys (as the oldest runs)
//! commit: the bucket's vectors (restored, minus the retired files', plus the new marks)
//!         as one new index file replacing the bucket's old ones
//! ```
//!
//! A first-row table has no vectors: a level-0 key found above is dropped from the merge's
//! output instead, since the row above is its first.
//!
//! Memory: the keys of the level-0 inputs and one row per key found above, which is what the
//! compaction writes anyway.

use std::collections::HashMap;

use arrow_array::{RecordBatch, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{SchemaRef, SortOptions};
use paimon_spec::data_file::DataFileMeta;
use paimon_split::{CompactLookup, DataSplit};

use crate::dv_index::BucketVectors;
use crate::error::{Error, Result};

/// Keys in the merge's order (arrow-row, ascending, nulls first), as comparable bytes.
pub(crate) struct KeyCodec {
    converter: RowConverter,
    key_indices: Vec<usize>,
}

impl KeyCodec {
    pub(crate) fn try_new(schema: &SchemaRef, key_indices: &[usize]) -> Result<Self> {
        let fields = key_indices
            .iter()
            .map(|i| {
                SortField::new_with_options(
                    schema.field(*i).data_type().clone(),
                    SortOptions::new(false, true),
                )
            })
            .collect();
        let converter = RowConverter::new(fields)
            .map_err(|e| Error::Internal(format!("lookup key codec: {e}")))?;
        Ok(KeyCodec {
            converter,
            key_indices: key_indices.to_vec(),
        })
    }

    /// The key of every row of `batch` (a merge-input batch).
    pub(crate) fn keys(&self, batch: &RecordBatch) -> Result<arrow_row::Rows> {
        let columns: Vec<_> = self
            .key_indices
            .iter()
            .map(|i| batch.column(*i).clone())
            .collect();
        self.converter
            .convert_columns(&columns)
            .map_err(|e| Error::Internal(format!("lookup keys: {e}")))
    }
}

/// What a key found above the output level does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// Deletion vectors: the copy above is marked deleted and joins the key's merge.
    Mark,
    /// First-row without vectors: the copy above stays the key's row, and the level-0
    /// records of the key are dropped (Java `FirstRowMergeFunctionWrapper`).
    DropNew,
    /// Other lookup tables without vectors (the `lookup` changelog producer, `force-lookup`):
    /// the shallowest copy above joins the key's merge and stays where it is (Java's
    /// `LookupChangelogMergeFunctionWrapper` inserting the looked-up record).
    Merge,
}

/// The older copies found above the output level, and the bucket's vectors.
pub(crate) struct LookupState {
    /// What a found key does.
    found: Found,
    /// Keys whose level-0 records are dropped ([`Found::DropNew`]).
    dropped: std::collections::HashSet<Vec<u8>>,
    /// The bucket's deletion vectors, with the new marks.
    pub vectors: BucketVectors,
    /// The old index files the new one replaces.
    pub index_files: Vec<paimon_spec::index_file::IndexFileMeta>,
    /// Per level above the output level (deepest last): the level, the older copies sorted
    /// by key, and for each row the input file (index into the task's split) whose key found
    /// it.
    older: Vec<(i32, RecordBatch, Vec<usize>)>,
}

/// Reads the records of file `i` of a split (as stored, no vector applied) as merge-input
/// batches, handing each to the visitor.
pub(crate) type ReadFile<'a> =
    dyn Fn(&DataSplit, usize, &mut dyn FnMut(RecordBatch) -> Result<()>) -> Result<()> + 'a;

impl LookupState {
    /// Scans `lookup.higher_levels` for the keys of the level-0 files of `split`, marking
    /// what it finds. `read` reads file `i` of a split.
    pub(crate) fn prepare(
        split: &DataSplit,
        lookup: &CompactLookup,
        found_mode: Found,
        mut vectors: BucketVectors,
        codec: &KeyCodec,
        read: &ReadFile<'_>,
    ) -> Result<Self> {
        let mut dropped = std::collections::HashSet::new();
        let mut owner: HashMap<Vec<u8>, usize> = HashMap::new();
        for (i, f) in split.data_files.iter().enumerate() {
            if f.level != 0 {
                continue;
            }
            read(split, i, &mut |batch| {
                for k in codec.keys(&batch)?.iter() {
                    owner.entry(k.as_ref().to_vec()).or_insert(i);
                }
                Ok(())
            })?;
        }
        let higher = &lookup.higher_levels;
        let mut levels: Vec<i32> = higher.data_files.iter().map(|f| f.level).collect();
        levels.sort_unstable();
        levels.dedup();
        let mut older = Vec::new();
        // [`Found::Merge`] takes a key's shallowest copy only, as Java's lookup stops there.
        let mut taken: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
        if !owner.is_empty() {
            for level in levels {
                let mut found: Vec<RecordBatch> = Vec::new();
                let mut owners: Vec<usize> = Vec::new();
                for (i, f) in higher.data_files.iter().enumerate() {
                    if f.level != level {
                        continue;
                    }
                    let mut pos: u64 = 0;
                    read(higher, i, &mut |batch| {
                        let keys = codec.keys(&batch)?;
                        let mut take: Vec<u32> = Vec::new();
                        for (row, k) in keys.iter().enumerate() {
                            let p = pos + row as u64;
                            if vectors.of(&f.file_name).is_some_and(|dv| dv.is_deleted(p)) {
                                continue;
                            }
                            if let Some(o) = owner.get(k.as_ref()) {
                                match found_mode {
                                    Found::DropNew => {
                                        dropped.insert(k.as_ref().to_vec());
                                        continue;
                                    }
                                    Found::Mark => vectors.delete(&f.file_name, p),
                                    Found::Merge => {
                                        if !taken.insert(k.as_ref().to_vec()) {
                                            continue;
                                        }
                                    }
                                }
                                take.push(row as u32);
                                owners.push(*o);
                            }
                        }
                        pos += batch.num_rows() as u64;
                        if !take.is_empty() {
                            found.push(take_rows(&batch, &take)?);
                        }
                        Ok(())
                    })?;
                }
                if !found.is_empty() {
                    let (batch, owners) = sort_by_key(&found, owners, codec)?;
                    older.push((level, batch, owners));
                }
            }
        }
        Ok(LookupState {
            found: found_mode,
            dropped,
            vectors,
            index_files: lookup.index_files.clone(),
            older,
        })
    }

    /// The older copies of the keys of the given input files, one sorted run per level.
    pub(crate) fn older_runs(&self, inputs: &[usize]) -> Result<Vec<RecordBatch>> {
        Ok(self
            .older_by_level(inputs)?
            .into_iter()
            .map(|(_, b)| b)
            .collect())
    }

    /// [`LookupState::older_runs`] with the level each run was found at.
    pub(crate) fn older_by_level(&self, inputs: &[usize]) -> Result<Vec<(i32, RecordBatch)>> {
        let mut runs = Vec::new();
        for (level, batch, owners) in &self.older {
            let rows: Vec<u32> = owners
                .iter()
                .enumerate()
                .filter(|(_, o)| inputs.contains(o))
                .map(|(r, _)| r as u32)
                .collect();
            if !rows.is_empty() {
                runs.push((*level, take_rows(batch, &rows)?));
            }
        }
        Ok(runs)
    }

    /// `merged` (merge output: the table's columns first) without the rows of keys found
    /// above in [`Found::DropNew`] mode.
    pub(crate) fn filter_merged(
        &self,
        merged: RecordBatch,
        codec: &KeyCodec,
    ) -> Result<RecordBatch> {
        if self.found != Found::DropNew || self.dropped.is_empty() {
            return Ok(merged);
        }
        let keys = codec.keys(&merged)?;
        let keep: Vec<u32> = (0..merged.num_rows())
            .filter(|r| !self.dropped.contains(keys.row(*r).as_ref()))
            .map(|r| r as u32)
            .collect();
        if keep.len() == merged.num_rows() {
            return Ok(merged);
        }
        take_rows(&merged, &keep)
    }

    /// Drops the vectors of the input files the compaction retired (those not carried over
    /// to `after` under the same name).
    pub(crate) fn retire(&mut self, before: &[DataFileMeta], after: &[DataFileMeta]) {
        for f in before {
            if !after.iter().any(|a| a.file_name == f.file_name) {
                self.vectors.remove(&f.file_name);
            }
        }
    }
}

fn take_rows(batch: &RecordBatch, rows: &[u32]) -> Result<RecordBatch> {
    let indices = UInt32Array::from(rows.to_vec());
    arrow_select::take::take_record_batch(batch, &indices)
        .map_err(|e| Error::Internal(format!("lookup rows: {e}")))
}

/// One batch of `found`'s rows in key order, with the owners in the same order.
fn sort_by_key(
    found: &[RecordBatch],
    owners: Vec<usize>,
    codec: &KeyCodec,
) -> Result<(RecordBatch, Vec<usize>)> {
    let Some(first) = found.first() else {
        return Err(Error::Internal("no lookup rows to sort".into()));
    };
    let all = arrow_select::concat::concat_batches(&first.schema(), found)
        .map_err(|e| Error::Internal(format!("lookup rows: {e}")))?;
    let keys = codec.keys(&all)?;
    let mut order: Vec<u32> = (0..all.num_rows() as u32).collect();
    order.sort_by(|a, b| keys.row(*a as usize).cmp(&keys.row(*b as usize)));
    let sorted = take_rows(&all, &order)?;
    let owners = order.iter().map(|r| owners[*r as usize]).collect();
    Ok((sorted, owners))
}
