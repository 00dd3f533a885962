//! Merge-on-read for primary-key tables (Java `MergeFileSplitRead.createMergeReader`).
//!
//! The files of a split are first grouped with [`interval_partition`] into key-disjoint
//! *sections*, each made of *sorted runs*. For every section the reader opens one iterator of
//! batches per run (the files of a run, read one after another) and calls
//! [`merge_sorted_runs`], which k-way merges the runs and folds the records of each key with
//! the table's merge engine ([`MergeEngineSpec`]). Sections are then concatenated.
//!
//! ```text
//!  run 0 (level 1)                  run 1 (level 0)               merged (deduplicate)
//!  key seq kind  v                  key seq kind  v               v
//!  1   3   +I    a                  1   7   +U    A               A      key 1: seq 7 wins
//!  2   4   +I    b                  3   8   -D    -               b      key 2: single record
//!  3   5   +I    c       ──merge──▶ 4   9   +I    d        ──▶    d      key 3: -D wins, dropped
//!                                   4   10  +U    D               D?     key 4: two records in one
//!                                                                        run, seq 10 wins
//! ```
//! (the last output row is `D`; shown as `D?` only to mark the in-run duplicate.)
//!
//! # Input
//! Every batch of every run has the same schema, the physical layout of a primary-key data
//! file (`docs/paimon-format.md` §7.1): key columns, `_SEQUENCE_NUMBER` (Int64), `_VALUE_KIND`
//! (Int8: 0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`) and the value columns (the table's row, partition
//! columns included). [`RunLayout`] says which column is which; [`RunLayout::from_schema`]
//! finds them by name. Rows of a run are sorted by key then sequence number; a run may hold
//! several records of one key (level-0 files): they are merged with the other runs' records.
//!
//! # Order
//! Records are ordered as Java orders them: key ascending with nulls first (compared in the
//! arrow-row encoding), then the user `sequence.field` columns (ascending or descending, nulls
//! first), then `_SEQUENCE_NUMBER`, then retractions before additions, then run index.
//!
//! # Output
//! Batches of the value columns only (plus `_SEQUENCE_NUMBER` when
//! [`MergeOptions::sequence_number`] is set, then `_ROW_KIND` when [`MergeOptions::row_kind`]
//! is), at most [`MergeOptions::batch_size`] rows each. A key with a single record passes through
//! untouched (Java `ReducerMergeFunctionWrapper`); results of kind `-U`/`-D` are dropped unless
//! [`MergeOptions::keep_deletes`] (Java `DropDeleteReader`).
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray};
//! use paimon_data::merge::{merge_sorted_runs, MergeEngineSpec, MergeOptions, RunLayout};
//!
//! let batch = |keys: Vec<i32>, seqs: Vec<i64>, vals: Vec<&str>| {
//!     let cols: Vec<(&str, ArrayRef)> = vec![
//!         ("_KEY_id", Arc::new(Int32Array::from(keys.clone()))),
//!         ("_SEQUENCE_NUMBER", Arc::new(Int64Array::from(seqs))),
//!         ("_VALUE_KIND", Arc::new(Int8Array::from(vec![0i8; keys.len()]))),
//!         ("id", Arc::new(Int32Array::from(keys))),
//!         ("v", Arc::new(StringArray::from(vals))),
//!     ];
//!     RecordBatch::try_from_iter(cols).unwrap()
//! };
//! let old = batch(vec![1, 2], vec![1, 2], vec!["a", "b"]);
//! let new = batch(vec![2], vec![3], vec!["B"]);
//! let schema = old.schema();
//! let layout = RunLayout::from_schema(&schema, &["id".to_string()], &[], false).unwrap();
//! let runs: Vec<Box<dyn Iterator<Item = Result<RecordBatch, arrow_schema::ArrowError>> + Send>> =
//!     vec![Box::new(vec![Ok(old)].into_iter()), Box::new(vec![Ok(new)].into_iter())];
//! let engine = MergeEngineSpec::Deduplicate { ignore_delete: false };
//! let merged = merge_sorted_runs(runs, &schema, layout, &engine, MergeOptions::default()).unwrap();
//! let out: Vec<RecordBatch> = merged.collect::<Result<_, _>>().unwrap();
//! assert_eq!(out[0].num_rows(), 2); // (1, "a"), (2, "B")
//! ```

mod aggregate;
mod aggregate_collections;
mod aggregate_numeric;
mod cell;
mod cursor;
mod engine;
mod error;
mod interval;
mod java_hash;
mod output;
mod partial_update;
mod projection;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_engines;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

pub use aggregate::{AggFunction, AggSpec};
pub use engine::{AggregationSpec, MergeEngineSpec, PartialUpdateSpec, SequenceGroup};
pub use error::{MergeError, Result};
pub use interval::interval_partition;

use cursor::{BatchStore, BoxedRun, LoserTree, RowCodec, RunCursor};
use engine::{Entry, GroupMerge};
use output::OutputSink;

/// Name of the sequence-number column of primary-key data files.
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
/// Name of the row-kind column of primary-key data files.
pub const VALUE_KIND: &str = "_VALUE_KIND";
/// Prefix of the key columns of primary-key data files.
pub const KEY_PREFIX: &str = "_KEY_";
/// Name of the optional row-kind output column.
pub const ROW_KIND: &str = "_ROW_KIND";
/// Name of the optional input column with each record's level (Int32): when the batches carry
/// it, keys merge as Java's `LookupMergeFunction` merges them (see [`RunLayout::level_index`]).
pub const LEVEL: &str = "_LEVEL";

/// Where the parts of a primary-key record sit in the input batches (column indices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLayout {
    /// Key columns, in primary-key order.
    pub key_indices: Vec<usize>,
    /// The `_SEQUENCE_NUMBER` column (Int64).
    pub sequence_index: usize,
    /// The `_VALUE_KIND` column (Int8).
    pub value_kind_index: usize,
    /// The value columns, in output order.
    pub value_indices: Vec<usize>,
    /// The `sequence.field` columns, in option order (empty when unset).
    pub sequence_field_indices: Vec<usize>,
    /// `sequence.field.sort-order` is descending.
    pub sequence_descending: bool,
    /// The `_LEVEL` column (Int32), when the batches carry one. A key with several records
    /// then merges only its records of level 0 or below and the first of its records in the
    /// shallowest level above 0 (Java `LookupMergeFunction`, used on lookup tables:
    /// [`paimon_spec::options::CoreOptions::lookup_merge`]); the deeper copies are older results
    /// that copy already includes.
    pub level_index: Option<usize>,
}

impl RunLayout {
    /// Finds the columns by name: `_KEY_<pk>` for each primary key (or the value column `<pk>`
    /// when the file was written in thin mode), `_SEQUENCE_NUMBER`, `_VALUE_KIND`, `_LEVEL` if
    /// present; every other column is a value column. `sequence_fields` name value columns.
    ///
    /// # Errors
    /// [`MergeError::InvalidInput`] when a column is missing.
    pub fn from_schema(
        schema: &Schema,
        primary_keys: &[String],
        sequence_fields: &[String],
        sequence_descending: bool,
    ) -> Result<Self> {
        let find = |name: &str| schema.fields().iter().position(|f| f.name() == name);
        let require = |name: &str| {
            find(name)
                .ok_or_else(|| error::invalid_input(format!("the batches have no column {name}")))
        };
        let sequence_index = require(SEQUENCE_NUMBER)?;
        let value_kind_index = require(VALUE_KIND)?;
        let level_index = find(LEVEL);
        let value_indices: Vec<usize> = schema
            .fields()
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                *i != sequence_index
                    && *i != value_kind_index
                    && Some(*i) != level_index
                    && !f.name().starts_with(KEY_PREFIX)
            })
            .map(|(i, _)| i)
            .collect();
        let key_indices = primary_keys
            .iter()
            .map(|k| find(&format!("{KEY_PREFIX}{k}")).map_or_else(|| require(k), Ok))
            .collect::<Result<Vec<_>>>()?;
        let sequence_field_indices = sequence_fields
            .iter()
            .map(|s| require(s))
            .collect::<Result<Vec<_>>>()?;
        Ok(RunLayout {
            key_indices,
            sequence_index,
            value_kind_index,
            value_indices,
            sequence_field_indices,
            sequence_descending,
            level_index,
        })
    }

    /// The value fields of batches of `schema` under this layout.
    ///
    /// # Errors
    /// [`MergeError::InvalidInput`] when an index is out of range.
    pub fn value_fields(&self, schema: &Schema) -> Result<Fields> {
        self.value_indices
            .iter()
            .map(|&i| field_at(schema, i).cloned())
            .collect::<Result<Vec<Field>>>()
            .map(Fields::from)
    }
}

fn field_at(schema: &Schema, i: usize) -> Result<&Field> {
    schema.fields().get(i).map(|f| f.as_ref()).ok_or_else(|| {
        error::invalid_input(format!(
            "column {i} is out of range for {} columns",
            schema.fields().len()
        ))
    })
}

/// The [`LEVEL`] column of a lookup merge's input: each record's file level (Int32).
pub fn level_field() -> Field {
    Field::new(LEVEL, DataType::Int32, false)
}

/// `schema` with a trailing non-null Int32 [`LEVEL`] column.
pub fn with_level_field(schema: &Schema) -> SchemaRef {
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.push(level_field());
    Arc::new(Schema::new(fields))
}

/// `batch` with a trailing [`LEVEL`] column of `level` on every row: the records of a file
/// of that level, for a lookup merge ([`RunLayout::level_index`]).
///
/// # Errors
/// Only Arrow's own, which a well-formed batch does not raise.
pub fn with_level(
    batch: &RecordBatch,
    level: i32,
) -> std::result::Result<RecordBatch, arrow_schema::ArrowError> {
    let mut columns = batch.columns().to_vec();
    columns.push(Arc::new(arrow_array::Int32Array::from_value(
        level,
        batch.num_rows(),
    )));
    RecordBatch::try_new(with_level_field(&batch.schema()), columns)
}

/// How the `_ROW_KIND` output column is typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKindColumn {
    /// Int8 with the row-kind byte (0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`).
    Int8,
    /// Utf8 with Java's short string (`+I`, `-U`, `+U`, `-D`), as the audit-log table shows.
    ShortString,
}

/// Tunables of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOptions {
    /// Target rows per output batch. Default 8192: large enough to amortize the per-batch
    /// `interleave`, small enough to keep the pinned input batches few.
    pub batch_size: usize,
    /// Keep results of kind `-U`/`-D` (audit and changelog reads). Default false, as Java's
    /// `DropDeleteReader` drops them.
    pub keep_deletes: bool,
    /// Append a `_ROW_KIND` column. Default none.
    pub row_kind: Option<RowKindColumn>,
    /// Append a `_SEQUENCE_NUMBER` column (Int64, before `_ROW_KIND`) with the sequence
    /// number of each result as Java's merged `KeyValue` carries it: the picked record's
    /// (deduplicate, first-row, single records), the last record added (aggregation), the last
    /// one not ignored (partial-update). Default false.
    pub sequence_number: bool,
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            batch_size: 8192,
            keep_deletes: false,
            row_kind: None,
            sequence_number: false,
        }
    }
}

impl MergeOptions {
    /// Sets [`MergeOptions::batch_size`] (at least 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Sets [`MergeOptions::keep_deletes`].
    pub fn with_keep_deletes(mut self, keep: bool) -> Self {
        self.keep_deletes = keep;
        self
    }

    /// Sets [`MergeOptions::sequence_number`].
    pub fn with_sequence_number(mut self, sequence_number: bool) -> Self {
        self.sequence_number = sequence_number;
        self
    }

    /// Sets [`MergeOptions::row_kind`].
    pub fn with_row_kind(mut self, row_kind: Option<RowKindColumn>) -> Self {
        self.row_kind = row_kind;
        self
    }
}

/// A sorted run: batches of one run, in key order.
pub type SortedRun<E> = Box<dyn Iterator<Item = std::result::Result<RecordBatch, E>> + Send>;

/// Merges the sorted runs of one section into batches of merged value rows.
///
/// `schema` is the schema of every input batch; `engine` is usually
/// [`MergeEngineSpec::try_new`] over `layout.value_fields(schema)`.
///
/// # Errors
/// Configuration errors here ([`MergeError::InvalidOption`], [`MergeError::Unsupported`],
/// [`MergeError::InvalidInput`] for a layout that does not fit `schema`); data errors (a run's
/// own error as [`MergeError::Input`], malformed batches, merge-function failures) come out of
/// the iterator, after which it ends.
pub fn merge_sorted_runs<E>(
    runs: Vec<SortedRun<E>>,
    schema: &SchemaRef,
    layout: RunLayout,
    engine: &MergeEngineSpec,
    options: MergeOptions,
) -> Result<MergeReader>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let types = |idx: &[usize]| -> Result<Vec<DataType>> {
        idx.iter()
            .map(|&i| field_at(schema, i).map(|f| f.data_type().clone()))
            .collect()
    };
    let codec = RowCodec::try_new(
        &types(&layout.key_indices)?,
        &types(&layout.sequence_field_indices)?,
        layout.sequence_descending,
    )?;
    let value_fields = layout.value_fields(schema)?;
    let merger = engine.create(&value_fields)?;
    let mut out_fields: Vec<Field> = value_fields.iter().map(|f| f.as_ref().clone()).collect();
    if options.sequence_number {
        out_fields.push(Field::new(SEQUENCE_NUMBER, DataType::Int64, false));
    }
    match options.row_kind {
        None => {}
        Some(RowKindColumn::Int8) => out_fields.push(Field::new(ROW_KIND, DataType::Int8, false)),
        Some(RowKindColumn::ShortString) => {
            out_fields.push(Field::new(ROW_KIND, DataType::Utf8, false))
        }
    }
    let out_schema = Arc::new(Schema::new(out_fields));
    let runs: Vec<BoxedRun> = runs
        .into_iter()
        .map(|r| -> BoxedRun { Box::new(r.map(|b| b.map_err(|e| MergeError::Input(Box::new(e))))) })
        .collect();
    let batch_size = options.batch_size.max(1);
    Ok(MergeReader {
        state: State::Unopened(runs),
        layout,
        codec,
        store: BatchStore::default(),
        tree: LoserTree::default(),
        last_single: usize::MAX,
        merger,
        sink: OutputSink::new(
            value_fields.len(),
            options.keep_deletes,
            batch_size,
            options.sequence_number,
        ),
        schema: out_schema,
        row_kind: options.row_kind,
        batch_size,
        key: Vec::new(),
        group: Vec::new(),
        picked: Vec::new(),
    })
}

enum State {
    /// Runs are opened on the first `next`, so that I/O errors surface from the iterator.
    Unopened(Vec<BoxedRun>),
    Running,
    Done,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            State::Unopened(runs) => write!(f, "Unopened({} runs)", runs.len()),
            State::Running => f.write_str("Running"),
            State::Done => f.write_str("Done"),
        }
    }
}

/// The merged batches of one section; see the [module docs](self).
#[derive(Debug)]
pub struct MergeReader {
    state: State,
    layout: RunLayout,
    codec: RowCodec,
    store: BatchStore,
    tree: LoserTree,
    /// The cursor whose record was the last single-record key: when it wins again, the
    /// bulk path is tried.
    last_single: usize,
    merger: Box<dyn GroupMerge>,
    sink: OutputSink,
    schema: SchemaRef,
    row_kind: Option<RowKindColumn>,
    batch_size: usize,
    key: Vec<u8>,
    group: Vec<Entry>,
    /// The records of `group` a lookup merge folds.
    picked: Vec<Entry>,
}

impl MergeReader {
    /// Schema of the output batches: the value columns, plus `_ROW_KIND` when asked.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn open(&mut self, runs: Vec<BoxedRun>) -> Result<()> {
        let mut cursors = Vec::with_capacity(runs.len());
        for (i, run) in runs.into_iter().enumerate() {
            if let Some(c) = RunCursor::open(run, i, &self.layout, &self.codec, &mut self.store)? {
                cursors.push(c);
            }
        }
        self.last_single = if cursors.len() == 1 { 0 } else { usize::MAX };
        self.tree = LoserTree::new(cursors);
        Ok(())
    }

    /// Gathers the records of the smallest key and merges them; `false` when all runs are done.
    #[inline]
    fn merge_next_key(&mut self) -> Result<bool> {
        let Some(mut w) = self.tree.winner() else {
            return Ok(false);
        };
        if w == self.last_single && self.try_bulk(w) {
            return Ok(true);
        }
        let top = self.tree.cursor(w);
        let head = top.head();
        self.key.clear();
        self.key.extend_from_slice(top.key());
        self.group.clear();
        let first = w;
        loop {
            let top = self.tree.cursor_mut(w);
            self.group.push(Entry {
                slot: top.slot,
                row: top.pos as u32,
                kind: top.kind(),
                seq: top.seq(),
                level: top.level(),
            });
            top.advance(&self.layout, &self.codec, &mut self.store)?;
            self.tree.replay(w);
            match self.tree.winner() {
                Some(n) if self.tree.cursor(n).key_eq(head, &self.key) => w = n,
                _ => break,
            }
        }
        match self.group.as_slice() {
            [single] => {
                self.last_single = first;
                self.sink
                    .push_whole(single.slot, single.row, single.kind, single.seq)
            }
            group if self.layout.level_index.is_some() => {
                self.last_single = usize::MAX;
                lookup_pick(group, &mut self.picked);
                self.merger
                    .merge(&self.picked, &self.store, &mut self.sink)?
            }
            group => {
                self.last_single = usize::MAX;
                self.merger.merge(group, &self.store, &mut self.sink)?
            }
        }
        Ok(true)
    }

    /// Emits, as one range, the records of the winner `w`'s batch whose keys are below every
    /// other run's head (each a single-record key, passed through untouched); `false` when
    /// there are none.
    fn try_bulk(&mut self, w: usize) -> bool {
        let room = self.batch_size.saturating_sub(self.sink.len());
        let r = self.tree.runner_up(w);
        let (cur, other) = self.tree.pair_mut(w, r);
        let n = cur.bulk_len(other, room);
        if n == 0 {
            return false;
        }
        let pos = cur.pos;
        self.sink.push_range(
            cur.slot,
            pos,
            cur.kinds(pos, pos + n),
            cur.seqs(pos, pos + n),
        );
        cur.skip_to(pos + n);
        self.tree.replay(w);
        true
    }

    /// Drops stored batches no pending output refers to.
    fn compact(&mut self) {
        let live: Vec<u32> = self.tree.live_mut().map(|c| c.slot).collect();
        let renumbered = self.store.compact(&live);
        for (c, slot) in self.tree.live_mut().zip(renumbered) {
            c.slot = slot;
        }
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if let State::Unopened(_) = self.state {
            if let State::Unopened(runs) = std::mem::replace(&mut self.state, State::Running) {
                self.open(runs)?;
            }
        }
        while self.sink.len() < self.batch_size {
            if !self.merge_next_key()? {
                break;
            }
            if self.sink.len() == 0 && self.store.len() > 2 * self.tree.len() + 8 {
                self.compact();
            }
        }
        if self.sink.len() == 0 {
            return Ok(None);
        }
        let batch = self.sink.build(&self.store, &self.schema, self.row_kind)?;
        self.compact();
        Ok(Some(batch))
    }
}

/// Java `LookupMergeFunction.getResult`: of a key's records (in merge order), those of level 0
/// or below and the first one of the shallowest level above 0, in merge order, into `picked`.
fn lookup_pick(group: &[Entry], picked: &mut Vec<Entry>) {
    let high = group
        .iter()
        .enumerate()
        .filter(|(_, e)| e.level > 0)
        .min_by_key(|(i, e)| (e.level, *i))
        .map(|(i, _)| i);
    picked.clear();
    picked.extend(
        group
            .iter()
            .enumerate()
            .filter(|(i, e)| e.level <= 0 || Some(*i) == high)
            .map(|(_, e)| *e),
    );
}

impl Iterator for MergeReader {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if let State::Done = self.state {
            return None;
        }
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => {
                self.state = State::Done;
                None
            }
            Err(e) => {
                self.state = State::Done;
                Some(Err(e))
            }
        }
    }
}
