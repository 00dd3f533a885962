//! The write buffer of a primary-key bucket (Java `SortBufferWriteBuffer` in `MergeTreeWriter`):
//! records are kept as they come, each with its sequence number and row kind; a flush sorts
//! them by key (then sequence number), folds the records of each key with the merge engine and
//! yields one level-0 batch in the physical layout of primary-key files.
//!
//! ```text
//! buffered (id, v)  seq kind        flushed  _KEY_id _SEQUENCE_NUMBER _VALUE_KIND id v
//! (2, b)            5   +I                   1       7                +U          1  A
//! (1, a)            6   +I   ──dedup──▶      2       8                -D          2  b
//! (1, A)            7   +U
//! (2, b)            8   -D
//! ```

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_schema::SchemaRef;
use paimon_spec::binary::RowKind;

use crate::error::{Error, Result};

/// How the records of one key are folded within a flush.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushMerge {
    /// The latest record wins, retractions included (Java `DeduplicateMergeFunction`);
    /// with `ignore_delete`, retractions are dropped first.
    Deduplicate {
        /// `ignore-delete`.
        ignore_delete: bool,
    },
    /// The first record wins (Java `FirstRowMergeFunction`); retractions are refused unless
    /// `ignore_delete`.
    FirstRow {
        /// `ignore-delete`.
        ignore_delete: bool,
    },
}

/// Buffered records of one bucket.
#[derive(Debug, Default)]
pub struct KvBuffer {
    batches: Vec<RecordBatch>,
    sequences: Vec<i64>,
    kinds: Vec<i8>,
    bytes: usize,
}

impl KvBuffer {
    /// Buffers `batch` (the table's row) with one kind per row; rows get the sequence numbers
    /// `first_sequence..`.
    pub fn push(&mut self, batch: RecordBatch, kinds: &[RowKind], first_sequence: i64) {
        self.bytes += batch.get_array_memory_size();
        self.sequences
            .extend((0..batch.num_rows() as i64).map(|i| first_sequence + i));
        self.kinds.extend(kinds.iter().map(|k| *k as u8 as i8));
        self.batches.push(batch);
    }

    /// Memory the buffered batches hold.
    pub fn memory(&self) -> usize {
        self.bytes
    }

    /// Whether nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.batches.is_empty()
    }

    /// Sorts and merges the buffer into one batch of `kv_schema` (`_KEY_*` from `key_indices`
    /// of the row, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, the row), emptying the buffer; `None`
    /// when nothing is left.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a retraction that first-row cannot take.
    pub fn flush(
        &mut self,
        table: &str,
        key_indices: &[usize],
        merge: FlushMerge,
        kv_schema: &SchemaRef,
    ) -> Result<Option<RecordBatch>> {
        if self.batches.is_empty() {
            return Ok(None);
        }
        let internal = |e: arrow_schema::ArrowError| Error::Internal(format!("flush: {e}"));
        let batches = std::mem::take(&mut self.batches);
        let sequences = std::mem::take(&mut self.sequences);
        let kinds = std::mem::take(&mut self.kinds);
        self.bytes = 0;
        let schema = batches[0].schema();
        let all = arrow_select::concat::concat_batches(&schema, &batches).map_err(internal)?;
        let key_cols: Vec<ArrayRef> = key_indices.iter().map(|i| all.column(*i).clone()).collect();
        let converter = RowConverter::new(
            key_cols
                .iter()
                .map(|c| SortField::new(c.data_type().clone()))
                .collect(),
        )
        .map_err(internal)?;
        let rows = converter.convert_columns(&key_cols).map_err(internal)?;
        let mut order: Vec<u32> = (0..all.num_rows() as u32).collect();
        // Stable: records of one key stay in sequence order.
        order.sort_by(|a, b| rows.row(*a as usize).cmp(&rows.row(*b as usize)));
        let retract = |i: usize| matches!(kinds[i], 1 | 3);
        let mut picked: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len()
                && rows.row(order[end] as usize) == rows.row(order[start] as usize)
            {
                end += 1;
            }
            let group = &order[start..end];
            let choice = match merge {
                FlushMerge::Deduplicate { ignore_delete } => group
                    .iter()
                    .rev()
                    .find(|i| !(ignore_delete && retract(**i as usize)))
                    .copied(),
                FlushMerge::FirstRow { ignore_delete } => {
                    if !ignore_delete && group.iter().any(|i| retract(*i as usize)) {
                        return Err(Error::Unsupported {
                            feature: format!(
                                "table {table}: the first-row merge engine takes no -U/-D records \
                                 unless ignore-delete is set"
                            ),
                        });
                    }
                    group.iter().find(|i| !retract(**i as usize)).copied()
                }
            };
            picked.extend(choice);
            start = end;
        }
        if picked.is_empty() {
            return Ok(None);
        }
        let idx = UInt32Array::from(picked.clone());
        let values = arrow_select::take::take_record_batch(&all, &idx).map_err(internal)?;
        let mut columns: Vec<ArrayRef> = key_indices
            .iter()
            .map(|i| values.column(*i).clone())
            .collect();
        columns.push(Arc::new(Int64Array::from_iter_values(
            picked.iter().map(|i| sequences[*i as usize]),
        )));
        columns.push(Arc::new(Int8Array::from_iter_values(
            picked.iter().map(|i| kinds[*i as usize]),
        )));
        columns.extend(values.columns().iter().cloned());
        RecordBatch::try_new(kv_schema.clone(), columns)
            .map(Some)
            .map_err(internal)
    }
}
