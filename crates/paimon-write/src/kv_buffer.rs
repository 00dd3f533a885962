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
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{ArrowError, SchemaRef, SortOptions};
use paimon_data::merge::{
    merge_sorted_runs, MergeEngineSpec, MergeError, MergeOptions, RowKindColumn, RunLayout,
    SortedRun,
};
use paimon_spec::binary::RowKind;

use crate::error::{Error, Result};

type ArrowResult<T> = std::result::Result<T, ArrowError>;

/// The sequence number of a record not given one yet (Java `KeyValue.UNKNOWN_SEQUENCE`).
pub const UNKNOWN_SEQUENCE: i64 = -1;

/// How the records of one key are folded within a flush.
#[derive(Debug, Clone, PartialEq)]
pub enum FlushMerge {
    /// The latest record wins, retractions included (Java `DeduplicateMergeFunction`);
    /// with `ignore_delete`, retractions are dropped first.
    Deduplicate {
        /// `ignore-delete`.
        ignore_delete: bool,
    },
    /// Nothing is merged nor sorted: every record is written as it came, with the unknown
    /// sequence number -1 (Java's `PostponeBucketWriter` through its direct sink writer; the
    /// postpone compaction gives the records their sequence numbers, in file order).
    AsTheyCame,
    /// The first record wins (Java `FirstRowMergeFunction`); retractions are refused unless
    /// `ignore_delete`.
    FirstRow {
        /// `ignore-delete`.
        ignore_delete: bool,
    },
    /// Any engine through paimon-data's merge (partial-update, aggregation, and every engine
    /// with `sequence.field`): the records of a key are ordered by the sequence fields, then
    /// by arrival, and folded as the readers fold them.
    Engine(Box<EngineFlush>),
}

/// The merge of [`FlushMerge::Engine`], resolved against the primary-key file layout.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineFlush {
    /// The table's merge engine over the value columns.
    pub spec: MergeEngineSpec,
    /// Where keys, sequence number, kind and values sit in the file layout.
    pub layout: RunLayout,
    /// The `sequence.field` columns in the table row.
    pub sequence_fields: Vec<usize>,
    /// `sequence.field.sort-order = descending`.
    pub sequence_descending: bool,
}

/// What a flush yields: the merged level-0 records, and with [`KvBuffer::flush`]'s `raw` every
/// record as it came (the `input` changelog producer's changelog).
#[derive(Debug, Default)]
pub struct Flushed {
    /// One record per key, merged by the engine; `None` when nothing is left.
    pub merged: Option<RecordBatch>,
    /// Every buffered record in the flush's sort order (key, then the sequence fields, then
    /// arrival: Java `SortBufferWriteBuffer.forEach` hands each to its raw consumer before
    /// merging); `None` unless asked for or when no record is left.
    pub raw: Option<RecordBatch>,
}

/// Which records a flush hands out as they came (the `input` changelog producer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawRecords {
    /// None.
    Skip,
    /// Every record.
    All,
    /// Every record but retractions (`-U`, `-D`), which Java's writer drops before the buffer
    /// with `ignore-delete` (`RowKindFilter`).
    NoRetractions,
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
    /// of the row, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, the row), emptying the buffer; with
    /// `raw`, also the records as they came, in the same layout and sort order.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a retraction that first-row cannot take.
    pub fn flush(
        &mut self,
        table: &str,
        key_indices: &[usize],
        merge: &FlushMerge,
        kv_schema: &SchemaRef,
        raw: RawRecords,
    ) -> Result<Flushed> {
        if self.batches.is_empty() {
            return Ok(Flushed::default());
        }
        if let FlushMerge::Engine(engine) = merge {
            return self.flush_engine(table, key_indices, engine, kv_schema, raw);
        }
        let internal = |e: arrow_schema::ArrowError| Error::Internal(format!("flush: {e}"));
        let batches = std::mem::take(&mut self.batches);
        let sequences = std::mem::take(&mut self.sequences);
        let kinds = std::mem::take(&mut self.kinds);
        self.bytes = 0;
        let all = Records::new(batches);
        if *merge == FlushMerge::AsTheyCame {
            let rows: Vec<u32> = (0..all.num_rows() as u32).collect();
            let unknown = vec![UNKNOWN_SEQUENCE; rows.len()];
            let merged = key_value_rows(&all, &rows, key_indices, &unknown, &kinds, kv_schema)?;
            return Ok(Flushed {
                merged: Some(merged),
                raw: None,
            });
        }
        let fields = key_indices
            .iter()
            .map(|i| SortField::new(all.data_type(*i)))
            .collect();
        let rows = all.rows(fields, key_indices).map_err(internal)?;
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
            let choice = match *merge {
                FlushMerge::Deduplicate { ignore_delete } => group
                    .iter()
                    .rev()
                    .find(|i| !(ignore_delete && retract(**i as usize)))
                    .copied(),
                // Handled above.
                FlushMerge::Engine(_) | FlushMerge::AsTheyCame => None,
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
        let raw = raw_rows(
            &all,
            &order,
            key_indices,
            &sequences,
            &kinds,
            kv_schema,
            raw,
        )?;
        let merged = match picked.is_empty() {
            true => None,
            false => Some(key_value_rows(
                &all,
                &picked,
                key_indices,
                &sequences,
                &kinds,
                kv_schema,
            )?),
        };
        Ok(Flushed { merged, raw })
    }

    /// [`KvBuffer::flush`] through paimon-data's merge: the buffer sorted by key, then the
    /// sequence fields (nulls first, in their configured direction, as Java's comparators),
    /// then arrival is one sorted run of `kv_schema`; its merged records keep the sequence
    /// number Java's merge function gives them (Java `SortBufferWriteBuffer.forEach` with the
    /// table's `MergeFunction` behind `ReducerMergeFunctionWrapper`).
    fn flush_engine(
        &mut self,
        table: &str,
        key_indices: &[usize],
        engine: &EngineFlush,
        kv_schema: &SchemaRef,
        raw: RawRecords,
    ) -> Result<Flushed> {
        let internal = |e: arrow_schema::ArrowError| Error::Internal(format!("flush: {e}"));
        let merge_err = |source: MergeError| Error::Merge {
            table: table.to_string(),
            source,
        };
        let batches = std::mem::take(&mut self.batches);
        let sequences = std::mem::take(&mut self.sequences);
        let kinds = std::mem::take(&mut self.kinds);
        self.bytes = 0;
        let all = Records::new(batches);
        let mut sort_cols = Vec::new();
        let mut fields = Vec::new();
        for i in key_indices {
            sort_cols.push(*i);
            fields.push(SortField::new_with_options(
                all.data_type(*i),
                SortOptions::new(false, true),
            ));
        }
        for i in &engine.sequence_fields {
            sort_cols.push(*i);
            fields.push(SortField::new_with_options(
                all.data_type(*i),
                SortOptions::new(engine.sequence_descending, true),
            ));
        }
        let rows = all.rows(fields, &sort_cols).map_err(internal)?;
        let mut order: Vec<u32> = (0..all.num_rows() as u32).collect();
        // Stable: equal keys and sequence fields stay in arrival (sequence number) order.
        order.sort_by(|a, b| rows.row(*a as usize).cmp(&rows.row(*b as usize)));
        let run = key_value_rows(&all, &order, key_indices, &sequences, &kinds, kv_schema)?;
        let raw = match raw {
            RawRecords::All => Some(run.clone()),
            _ => raw_rows(
                &all,
                &order,
                key_indices,
                &sequences,
                &kinds,
                kv_schema,
                raw,
            )?,
        };
        let n = run.num_rows();
        let runs: Vec<SortedRun<arrow_schema::ArrowError>> =
            vec![Box::new(std::iter::once(Ok(run)))];
        let options = MergeOptions::default()
            .with_batch_size(n)
            .with_keep_deletes(true)
            .with_sequence_number(true)
            .with_row_kind(Some(RowKindColumn::Int8));
        let merged = merge_sorted_runs(
            runs,
            kv_schema,
            engine.layout.clone(),
            &engine.spec,
            options,
        )
        .map_err(merge_err)?;
        let mut out = Vec::new();
        for batch in merged {
            let batch = batch.map_err(merge_err)?;
            // values, _SEQUENCE_NUMBER, _ROW_KIND -> _KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND, values
            let v = batch.num_columns() - 2;
            let mut columns: Vec<ArrayRef> = key_indices
                .iter()
                .map(|i| batch.column(*i).clone())
                .collect();
            columns.push(batch.column(v).clone());
            columns.push(batch.column(v + 1).clone());
            columns.extend(batch.columns()[..v].iter().cloned());
            out.push(RecordBatch::try_new(kv_schema.clone(), columns).map_err(internal)?);
        }
        let merged = match out.iter().all(|b| b.num_rows() == 0) {
            true => None,
            false => Some(arrow_select::concat::concat_batches(kv_schema, &out).map_err(internal)?),
        };
        Ok(Flushed { merged, raw })
    }
}

/// The buffered batches as one run of records, numbered across the batches, without copying
/// them into one batch first: the sort keys are converted batch by batch into one set of rows,
/// and the chosen records are gathered from the batches directly.
struct Records {
    batches: Vec<RecordBatch>,
    /// The number of the first record of each batch.
    starts: Vec<usize>,
    rows: usize,
}

impl Records {
    fn new(batches: Vec<RecordBatch>) -> Self {
        let mut starts = Vec::with_capacity(batches.len());
        let mut rows = 0;
        for b in &batches {
            starts.push(rows);
            rows += b.num_rows();
        }
        Records {
            batches,
            starts,
            rows,
        }
    }

    fn num_rows(&self) -> usize {
        self.rows
    }

    fn data_type(&self, column: usize) -> arrow_schema::DataType {
        self.batches
            .first()
            .map_or(arrow_schema::DataType::Null, |b| {
                b.column(column).data_type().clone()
            })
    }

    /// The `columns` of every record as sortable rows of `fields`, in record order.
    fn rows(&self, fields: Vec<SortField>, columns: &[usize]) -> ArrowResult<Rows> {
        let converter = RowConverter::new(fields)?;
        let mut rows = converter.empty_rows(self.rows, 0);
        for b in &self.batches {
            let cols: Vec<ArrayRef> = columns.iter().map(|i| b.column(*i).clone()).collect();
            converter.append(&mut rows, &cols)?;
        }
        Ok(rows)
    }

    /// The records `rows` (numbers across the batches), in that order.
    fn take(&self, rows: &[u32]) -> ArrowResult<RecordBatch> {
        if let [one] = self.batches.as_slice() {
            let idx = UInt32Array::from(rows.to_vec());
            return arrow_select::take::take_record_batch(one, &idx);
        }
        let at: Vec<(usize, usize)> = rows
            .iter()
            .map(|r| {
                let r = *r as usize;
                let b = self.starts.partition_point(|s| *s <= r).saturating_sub(1);
                (b, r - self.starts.get(b).copied().unwrap_or(0))
            })
            .collect();
        let batches: Vec<&RecordBatch> = self.batches.iter().collect();
        arrow_select::interleave::interleave_record_batch(&batches, &at)
    }
}

/// The records `order` of the buffered `all` that `raw` hands out, as [`key_value_rows`];
/// `None` when that is none of them.
fn raw_rows(
    all: &Records,
    order: &[u32],
    key_indices: &[usize],
    sequences: &[i64],
    kinds: &[i8],
    kv_schema: &SchemaRef,
    raw: RawRecords,
) -> Result<Option<RecordBatch>> {
    let rows: Vec<u32> = match raw {
        RawRecords::Skip => return Ok(None),
        RawRecords::All => order.to_vec(),
        RawRecords::NoRetractions => order
            .iter()
            .filter(|i| !matches!(kinds[**i as usize], 1 | 3))
            .copied()
            .collect(),
    };
    if rows.is_empty() {
        return Ok(None);
    }
    key_value_rows(all, &rows, key_indices, sequences, kinds, kv_schema).map(Some)
}

/// Records `rows` of the buffered `all` (the table's row) as a batch of `kv_schema`: `_KEY_*` (the
/// `key_indices` columns), `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then the row.
fn key_value_rows(
    all: &Records,
    rows: &[u32],
    key_indices: &[usize],
    sequences: &[i64],
    kinds: &[i8],
    kv_schema: &SchemaRef,
) -> Result<RecordBatch> {
    let internal = |e: arrow_schema::ArrowError| Error::Internal(format!("flush: {e}"));
    let values = all.take(rows).map_err(internal)?;
    let mut columns: Vec<ArrayRef> = key_indices
        .iter()
        .map(|i| values.column(*i).clone())
        .collect();
    columns.push(Arc::new(Int64Array::from_iter_values(
        rows.iter().map(|i| sequences[*i as usize]),
    )));
    columns.push(Arc::new(Int8Array::from_iter_values(
        rows.iter().map(|i| kinds[*i as usize]),
    )));
    columns.extend(values.columns().iter().cloned());
    RecordBatch::try_new(kv_schema.clone(), columns).map_err(internal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Int32Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};

    fn row_schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, false),
            Field::new("v", DataType::Utf8, true),
        ]))
    }

    fn kv_schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("_KEY_id", DataType::Int32, false),
            Field::new("_SEQUENCE_NUMBER", DataType::Int64, false),
            Field::new("_VALUE_KIND", DataType::Int8, false),
            Field::new("id", DataType::Int32, false),
            Field::new("v", DataType::Utf8, true),
        ]))
    }

    /// (key, sequence, kind, value) of each record.
    fn records(b: &RecordBatch) -> Vec<(i32, i64, i8, Option<String>)> {
        let c = |i: usize| b.column(i).clone();
        let (k, s, kind, v) = (c(0), c(1), c(2), c(4));
        let k = k.as_any().downcast_ref::<Int32Array>().unwrap();
        let s = s.as_any().downcast_ref::<Int64Array>().unwrap();
        let kind = kind.as_any().downcast_ref::<Int8Array>().unwrap();
        let v = v.as_any().downcast_ref::<StringArray>().unwrap();
        (0..b.num_rows())
            .map(|r| {
                (
                    k.value(r),
                    s.value(r),
                    kind.value(r),
                    v.is_valid(r).then(|| v.value(r).to_string()),
                )
            })
            .collect()
    }

    fn buffered() -> KvBuffer {
        let batch = RecordBatch::try_new(
            row_schema(),
            vec![
                Arc::new(Int32Array::from(vec![2, 1, 1, 2, 3])),
                Arc::new(StringArray::from(vec![
                    Some("b"),
                    Some("a"),
                    Some("A"),
                    None,
                    Some("c"),
                ])),
            ],
        )
        .unwrap();
        let kinds = [
            RowKind::Insert,
            RowKind::Insert,
            RowKind::UpdateAfter,
            RowKind::Delete,
            RowKind::Insert,
        ];
        let mut buffer = KvBuffer::default();
        buffer.push(batch, &kinds, 10);
        buffer
    }

    fn s(v: &str) -> Option<String> {
        Some(v.to_string())
    }

    #[test]
    fn raw_records_are_every_record_in_key_then_arrival_order() {
        let all = vec![
            (1, 11, 0, s("a")),
            (1, 12, 2, s("A")),
            (2, 10, 0, s("b")),
            (2, 13, 3, None),
            (3, 14, 0, s("c")),
        ];
        // Java's writer drops retractions before its buffer under ignore-delete.
        let no_retractions: Vec<_> = all.iter().filter(|r| r.2 != 3).cloned().collect();
        for (raw, ignore_delete, want) in [
            (RawRecords::All, false, Some(all)),
            (RawRecords::NoRetractions, true, Some(no_retractions)),
            (RawRecords::Skip, false, None),
        ] {
            let merge = FlushMerge::Deduplicate { ignore_delete };
            let flushed = buffered()
                .flush("t", &[0], &merge, &kv_schema(), raw)
                .unwrap();
            assert_eq!(flushed.raw.as_ref().map(records), want, "{raw:?}");
            let merged = records(&flushed.merged.unwrap());
            let last = match ignore_delete {
                true => vec![(1, 12, 2, s("A")), (2, 10, 0, s("b")), (3, 14, 0, s("c"))],
                false => vec![(1, 12, 2, s("A")), (2, 13, 3, None), (3, 14, 0, s("c"))],
            };
            assert_eq!(merged, last, "{raw:?}");
        }
    }
}
