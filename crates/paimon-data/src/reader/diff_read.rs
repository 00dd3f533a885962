//! Incremental diff of one primary-key bucket (Java `IncrementalDiffSplitRead`): the rows that
//! differ between the files only in the start snapshot (the split's `before_files`) and the
//! files only in the end snapshot (its `data_files`).
//!
//! Each side is merged on its own with the table's merge engine, dropping `-U`/`-D` results as
//! Java's `DropDeleteReader` does, and the two key-sorted streams are then walked together:
//!
//! ```text
//!  before (merged)      after (merged)        emitted
//!  key  v  seq          key  v  seq
//!  1    a  3            1    a  3             -           same value and kind
//!  2    b  4            2    B  9             2 B (+U)    changed: the after row, its kind
//!  3    c  5                                  -           only before: nothing (Java emits -D
//!                       4    d  8             4 d (+I)      only when forced to keep deletes)
//! ```
//!
//! A key on both sides is emitted only when its after record sorts after its before record
//! (user `sequence.field`, then sequence number): Java merges the two sides like two sorted runs
//! and takes the second record of the pair as the after one only if it came from the after side.
//! To know each merged record's sequence number, a copy of `_SEQUENCE_NUMBER` rides along as one
//! more value column through the merge.
//!
//! Values are compared on every table column, before projection, as Java compares the merged
//! value rows.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{Array, ArrayRef, Int64Array, Int8Array, RecordBatch};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef, SortOptions};
use paimon_spec::options::{CoreOptions, MergeEngine};
use paimon_spec::types::DataType;

use super::file::{FileOutput, SEQUENCE_NUMBER, VALUE_KIND};
use super::merge_read::{self, chain_files};
use super::{SplitContext, Task};
use crate::error::{Error, Result};
use crate::format::BatchIter;
use crate::merge::{
    interval_partition, level_field, merge_sorted_runs, AggFunction, AggSpec, MergeEngineSpec,
    MergeError, MergeOptions, RowKindColumn, RunLayout, SortedRun,
};

/// The copy of `_SEQUENCE_NUMBER` merged as a value column.
const DIFF_SEQ: &str = "_DIFF_SEQUENCE_NUMBER";
/// Merged batches pending output may keep alive before it is flushed.
const MAX_PINNED_BATCHES: usize = 16;

/// One task: the diff of the split's before and data files.
pub(super) fn tasks(ctx: &Arc<SplitContext>, core: &CoreOptions) -> Result<Vec<Task>> {
    let setup = Arc::new(SideSetup::try_new(ctx, core)?);
    let before = Arc::new(side_context(ctx));
    let after = ctx.clone();
    Ok(vec![Box::new(move || {
        let b = setup.merged(&before)?;
        let a = setup.merged(&after)?;
        Ok(Box::new(DiffIter::try_new(b, a, &setup, after.batch_size)?) as BatchIter)
    }) as Task])
}

/// The split's context with its before files as the files to read.
fn side_context(ctx: &SplitContext) -> SplitContext {
    let mut split = ctx.split.clone();
    split.data_files = std::mem::take(&mut split.before_files);
    split.data_deletion_files = split.before_deletion_files.take();
    SplitContext {
        io: ctx.io.clone(),
        table_path: ctx.table_path.clone(),
        table: ctx.table.clone(),
        split,
        bucket_dir: ctx.bucket_dir.clone(),
        roots: ctx.roots.clone(),
        batch_size: ctx.batch_size,
        constants: ctx.constants.clone(),
        sizer: ctx.sizer.clone(),
        options: ctx.options.clone(),
        schemas: ctx.schemas.clone(),
        schema_dir: ctx.schema_dir.clone(),
        stage: ctx.stage.clone(),
    }
}

/// How either side is read and merged, and where the merged columns are.
#[derive(Debug)]
struct SideSetup {
    out: FileOutput,
    /// `out.schema()` plus [`DIFF_SEQ`].
    schema: SchemaRef,
    layout: RunLayout,
    engine: MergeEngineSpec,
    key_types: Vec<DataType>,
    bucket: String,
    /// Merged output: the table's columns (value order), then [`DIFF_SEQ`], then `_ROW_KIND`.
    table_columns: Vec<usize>,
    key_columns: Vec<usize>,
    sequence_field_columns: Vec<usize>,
    sequence_descending: bool,
    seq_column: usize,
    kind_column: usize,
    /// Arrow fields of the table's columns.
    table_fields: Vec<Field>,
    /// Arrow types of the merged value columns.
    value_types: Vec<ArrowType>,
    /// Records carry their file's level: a lookup merge.
    levels: bool,
}

impl SideSetup {
    fn try_new(ctx: &SplitContext, core: &CoreOptions) -> Result<Self> {
        let merr = |e| Error::Merge {
            bucket: ctx.bucket_dir.clone(),
            source: e,
        };
        let pk = ctx.table.trimmed_primary_keys();
        let key_types = merge_read::key_types(ctx);
        let out = ctx.file_output(&merge_read::merge_input_fields(ctx), true);
        let file_schema = out.schema();
        let mut schema_fields: Vec<Field> = file_schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        // A lookup merge's `_LEVEL` comes with each file's batches, before the copy.
        let levels = core.lookup_merge();
        if levels {
            schema_fields.push(level_field());
        }
        schema_fields.push(Field::new(DIFF_SEQ, ArrowType::Int64, false));
        let schema = Arc::new(Schema::new(schema_fields));
        let layout = RunLayout::from_schema(
            &schema,
            &pk,
            &core.sequence_fields,
            core.sequence_field_descending,
        )
        .map_err(merr)?;
        let value_fields = layout.value_fields(&schema).map_err(merr)?;
        let engine = engine_with_sequence_column(core, &pk, &value_fields).map_err(merr)?;
        let position = |name: &str| {
            value_fields
                .iter()
                .position(|f| f.name() == name)
                .ok_or_else(|| {
                    Error::Internal(format!(
                        "merged diff columns lack {name} ({value_fields:?})"
                    ))
                })
        };
        let table_columns = ctx
            .table
            .fields
            .iter()
            .map(|f| position(&f.name))
            .collect::<Result<Vec<_>>>()?;
        let key_columns = pk.iter().map(|k| position(k)).collect::<Result<Vec<_>>>()?;
        let sequence_field_columns = core
            .sequence_fields
            .iter()
            .map(|s| position(s))
            .collect::<Result<Vec<_>>>()?;
        let table_fields = table_columns
            .iter()
            .map(|&c| value_fields[c].as_ref().clone())
            .collect();
        Ok(SideSetup {
            out,
            schema,
            layout,
            engine,
            key_types,
            bucket: ctx.bucket_dir.clone(),
            table_columns,
            key_columns,
            sequence_field_columns,
            sequence_descending: core.sequence_field_descending,
            seq_column: position(DIFF_SEQ)?,
            kind_column: value_fields.len(),
            table_fields,
            value_types: value_fields.iter().map(|f| f.data_type().clone()).collect(),
            levels,
        })
    }

    fn merge_err(&self, e: MergeError) -> Error {
        Error::Merge {
            bucket: self.bucket.clone(),
            source: e,
        }
    }

    /// The merged records of `ctx`'s data files, sections one after another (so in key order).
    fn merged(self: &Arc<Self>, ctx: &Arc<SplitContext>) -> Result<BatchIter> {
        let sections = interval_partition(&ctx.split.data_files, &self.key_types)
            .map_err(|e| self.merge_err(e))?;
        let setup = self.clone();
        let ctx = ctx.clone();
        Ok(Box::new(sections.into_iter().flat_map(
            move |runs| match setup.merge_section(&ctx, runs) {
                Ok(it) => it,
                Err(e) => Box::new(std::iter::once(Err(e))) as BatchIter,
            },
        )))
    }

    fn merge_section(
        self: &Arc<Self>,
        ctx: &Arc<SplitContext>,
        runs: Vec<Vec<usize>>,
    ) -> Result<BatchIter> {
        let out = self.out.clone().shared_by(runs.len());
        let sorted: Vec<SortedRun<Error>> = runs
            .into_iter()
            .map(|files| {
                let schema = self.schema.clone();
                Box::new(
                    chain_files(ctx.clone(), files, out.clone(), self.levels)
                        .map(move |b| b.and_then(|b| with_sequence_copy(&schema, &b))),
                ) as SortedRun<Error>
            })
            .collect();
        let options = MergeOptions::default()
            .with_batch_size(ctx.batch_size)
            .with_row_kind(Some(RowKindColumn::Int8));
        let reader = merge_sorted_runs(
            sorted,
            &self.schema,
            self.layout.clone(),
            &self.engine,
            options,
        )
        .map_err(|e| self.merge_err(e))?;
        let setup = self.clone();
        Ok(Box::new(
            reader.map(move |r| r.map_err(|e| setup.merge_err(e))),
        ))
    }
}

/// The table's merge engine over `value_fields`, whose last column is [`DIFF_SEQ`]: that column
/// must come out as the sequence number of the record Java's merge function keeps (the chosen
/// record for deduplicate and first-row, whose rows are taken whole; the latest record's for
/// partial-update and aggregation, which take it as a last value).
fn engine_with_sequence_column(
    core: &CoreOptions,
    pk: &[String],
    value_fields: &arrow_schema::Fields,
) -> std::result::Result<MergeEngineSpec, MergeError> {
    let n = value_fields.len();
    let table_values: arrow_schema::Fields = value_fields.iter().take(n - 1).cloned().collect();
    Ok(match core.merge_engine {
        MergeEngine::Deduplicate | MergeEngine::FirstRow => {
            MergeEngineSpec::try_new(core, pk, value_fields)?
        }
        _ => match MergeEngineSpec::try_new(core, pk, &table_values)? {
            MergeEngineSpec::Aggregation(mut spec) => {
                spec.fields.push(AggSpec {
                    ignore_retract: true,
                    ..AggSpec::new(AggFunction::LastValue)
                });
                MergeEngineSpec::Aggregation(spec)
            }
            MergeEngineSpec::PartialUpdate(mut spec) => {
                spec.aggregates.push(None);
                MergeEngineSpec::PartialUpdate(spec)
            }
            other => other,
        },
    })
}

/// `batch` (of the file output schema) with [`DIFF_SEQ`] appended as a copy of
/// `_SEQUENCE_NUMBER`.
fn with_sequence_copy(schema: &SchemaRef, batch: &RecordBatch) -> Result<RecordBatch> {
    let seq = batch
        .column_by_name(SEQUENCE_NUMBER)
        .cloned()
        .ok_or_else(|| {
            Error::Internal(format!(
                "a primary-key file batch without {SEQUENCE_NUMBER}"
            ))
        })?;
    let mut cols = batch.columns().to_vec();
    cols.push(seq);
    RecordBatch::try_new(schema.clone(), cols).map_err(|e| Error::arrow("<diff input batch>", e))
}

/// The position in one side's merged stream.
struct Cursor {
    slot: usize,
    keys: Rows,
    values: Rows,
    sequence_fields: Option<Rows>,
    seqs: Int64Array,
    kinds: Int8Array,
    pos: usize,
}

struct Side {
    batches: BatchIter,
    cur: Option<Cursor>,
}

/// Encoders of the compared columns.
struct Codecs {
    key: RowConverter,
    value: RowConverter,
    sequence_fields: Option<RowConverter>,
}

/// Walks the merged before and after streams and emits the after rows that changed.
struct DiffIter {
    /// 0 = before, 1 = after.
    sides: [Side; 2],
    store: Vec<RecordBatch>,
    /// (store slot, row, row kind) of the rows to emit.
    pending: Vec<(usize, usize, i8)>,
    codecs: Codecs,
    setup: Arc<SideSetup>,
    out_schema: SchemaRef,
    batch_size: usize,
    done: bool,
}

impl DiffIter {
    fn try_new(
        before: BatchIter,
        after: BatchIter,
        setup: &Arc<SideSetup>,
        batch_size: usize,
    ) -> Result<Self> {
        let arrow = |e| Error::arrow(setup.bucket.clone(), e);
        let sort_fields = |cols: &[usize], options: SortOptions| -> Vec<SortField> {
            cols.iter()
                .filter_map(|&c| setup.value_types.get(c))
                .map(|t| SortField::new_with_options(t.clone(), options))
                .collect()
        };
        // The same order the merge sorted each side by: keys ascending, nulls first; user
        // sequence fields in their configured direction, nulls first.
        let key = RowConverter::new(sort_fields(
            &setup.key_columns,
            SortOptions::new(false, true),
        ))
        .map_err(arrow)?;
        let value = RowConverter::new(sort_fields(
            &setup.table_columns,
            SortOptions::new(false, true),
        ))
        .map_err(arrow)?;
        let sequence_fields = if setup.sequence_field_columns.is_empty() {
            None
        } else {
            Some(
                RowConverter::new(sort_fields(
                    &setup.sequence_field_columns,
                    SortOptions::new(setup.sequence_descending, true),
                ))
                .map_err(arrow)?,
            )
        };
        let mut out_fields = setup.table_fields.clone();
        out_fields.push(Field::new(VALUE_KIND, ArrowType::Int8, false));
        Ok(DiffIter {
            sides: [
                Side {
                    batches: before,
                    cur: None,
                },
                Side {
                    batches: after,
                    cur: None,
                },
            ],
            store: Vec::new(),
            pending: Vec::new(),
            codecs: Codecs {
                key,
                value,
                sequence_fields,
            },
            setup: setup.clone(),
            out_schema: Arc::new(Schema::new(out_fields)),
            batch_size: batch_size.max(1),
            done: false,
        })
    }

    /// Makes side `i`'s cursor point at a row; `false` when the side is exhausted.
    fn fill(&mut self, i: usize) -> Result<bool> {
        loop {
            if let Some(c) = &self.sides[i].cur {
                if c.pos < c.seqs.len() {
                    return Ok(true);
                }
            }
            self.sides[i].cur = None;
            let Some(batch) = self.sides[i].batches.next().transpose()? else {
                return Ok(false);
            };
            if batch.num_rows() == 0 {
                continue;
            }
            let cursor = self.load(batch)?;
            self.sides[i].cur = Some(cursor);
            if self.pending.is_empty() {
                self.compact();
            }
        }
    }

    fn load(&mut self, batch: RecordBatch) -> Result<Cursor> {
        let s = &self.setup;
        let arrow = |e| Error::arrow(s.bucket.clone(), e);
        let cols = |idx: &[usize]| -> Vec<ArrayRef> {
            idx.iter().map(|&c| batch.column(c).clone()).collect()
        };
        let keys = self
            .codecs
            .key
            .convert_columns(&cols(&s.key_columns))
            .map_err(arrow)?;
        let values = self
            .codecs
            .value
            .convert_columns(&cols(&s.table_columns))
            .map_err(arrow)?;
        let sequence_fields = match &self.codecs.sequence_fields {
            Some(c) => Some(
                c.convert_columns(&cols(&s.sequence_field_columns))
                    .map_err(arrow)?,
            ),
            None => None,
        };
        let column = |c: usize, what: &str| {
            batch.columns().get(c).cloned().ok_or_else(|| {
                Error::Internal(format!("merged diff batch has no {what} column {c}"))
            })
        };
        let seqs = column(s.seq_column, DIFF_SEQ)?
            .as_primitive_opt::<Int64Type>()
            .cloned()
            .ok_or_else(|| Error::Internal(format!("{DIFF_SEQ} is not BIGINT")))?;
        let kinds = column(s.kind_column, "_ROW_KIND")?
            .as_primitive_opt::<Int8Type>()
            .cloned()
            .ok_or_else(|| Error::Internal("merged _ROW_KIND is not Int8".into()))?;
        self.store.push(batch);
        Ok(Cursor {
            slot: self.store.len() - 1,
            keys,
            values,
            sequence_fields,
            seqs,
            kinds,
            pos: 0,
        })
    }

    /// Drops stored batches that neither pending output nor a cursor refers to.
    fn compact(&mut self) {
        let live: Vec<usize> = self
            .sides
            .iter()
            .filter_map(|s| s.cur.as_ref().map(|c| c.slot))
            .collect();
        if live.len() == self.store.len() {
            return;
        }
        let old = std::mem::take(&mut self.store);
        for side in &mut self.sides {
            if let Some(c) = &mut side.cur {
                self.store.push(old[c.slot].clone());
                c.slot = self.store.len() - 1;
            }
        }
    }

    fn cursor(&self, i: usize) -> Result<&Cursor> {
        self.sides[i]
            .cur
            .as_ref()
            .ok_or_else(|| Error::Internal("diff cursor read past its side".into()))
    }

    /// Whether the before record sorts no later than the after record of the same key.
    fn before_first(&self) -> Result<bool> {
        let (b, a) = (self.cursor(0)?, self.cursor(1)?);
        let by_sequence_fields = match (&b.sequence_fields, &a.sequence_fields) {
            (Some(bs), Some(as_)) => bs.row(b.pos).cmp(&as_.row(a.pos)),
            _ => Ordering::Equal,
        };
        Ok(by_sequence_fields
            .then(b.seqs.value(b.pos).cmp(&a.seqs.value(a.pos)))
            .is_le())
    }

    /// Emits the after row when it differs from the before row in value or kind.
    fn diff_pair(&mut self) -> Result<()> {
        let (b, a) = (self.cursor(0)?, self.cursor(1)?);
        let same = b.values.row(b.pos) == a.values.row(a.pos)
            && is_add(b.kinds.value(b.pos)) == is_add(a.kinds.value(a.pos));
        if !same && self.before_first()? {
            self.emit_after()?;
        }
        Ok(())
    }

    /// Emits the after side's current row when it is an addition (Java keeps retractions only
    /// when forced to keep deletes).
    fn emit_after(&mut self) -> Result<()> {
        let a = self.cursor(1)?;
        let kind = a.kinds.value(a.pos);
        if is_add(kind) {
            self.pending.push((a.slot, a.pos, kind));
        }
        Ok(())
    }

    fn advance(&mut self, i: usize) {
        if let Some(c) = &mut self.sides[i].cur {
            c.pos += 1;
        }
    }

    /// Moves on by one key; `false` when both sides are exhausted.
    fn step(&mut self) -> Result<bool> {
        let has_before = self.fill(0)?;
        let has_after = self.fill(1)?;
        match (has_before, has_after) {
            (false, false) => return Ok(false),
            // Only in before: a key the end snapshot no longer holds.
            (true, false) => self.advance(0),
            (false, true) => {
                self.emit_after()?;
                self.advance(1);
            }
            (true, true) => {
                let (b, a) = (self.cursor(0)?, self.cursor(1)?);
                match b.keys.row(b.pos).cmp(&a.keys.row(a.pos)) {
                    Ordering::Less => self.advance(0),
                    Ordering::Greater => {
                        self.emit_after()?;
                        self.advance(1);
                    }
                    Ordering::Equal => {
                        self.diff_pair()?;
                        self.advance(0);
                        self.advance(1);
                    }
                }
            }
        }
        Ok(true)
    }

    /// The pending rows as one batch of the table's columns and `_VALUE_KIND`.
    fn flush(&mut self) -> Result<RecordBatch> {
        let indices: Vec<(usize, usize)> = self.pending.iter().map(|(s, r, _)| (*s, *r)).collect();
        let kinds = Int8Array::from_iter_values(self.pending.iter().map(|(_, _, k)| *k));
        let mut cols = Vec::with_capacity(self.setup.table_columns.len() + 1);
        for &c in &self.setup.table_columns {
            let arrays: Vec<&dyn Array> = self.store.iter().map(|b| b.column(c).as_ref()).collect();
            cols.push(
                arrow_select::interleave::interleave(&arrays, &indices)
                    .map_err(|e| Error::arrow(self.setup.bucket.clone(), e))?,
            );
        }
        cols.push(Arc::new(kinds) as ArrayRef);
        self.pending.clear();
        self.compact();
        RecordBatch::try_new(self.out_schema.clone(), cols)
            .map_err(|e| Error::arrow(self.setup.bucket.clone(), e))
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        // Pending rows pin their batches: flush early when long unchanged stretches between
        // them would otherwise pin many.
        while self.pending.len() < self.batch_size
            && (self.pending.is_empty() || self.store.len() <= MAX_PINNED_BATCHES)
        {
            if !self.step()? {
                break;
            }
        }
        if self.pending.is_empty() {
            return Ok(None);
        }
        self.flush().map(Some)
    }
}

fn is_add(kind: i8) -> bool {
    // RowKind bytes: 0 +I, 1 -U, 2 +U, 3 -D.
    kind == 0 || kind == 2
}

impl Iterator for DiffIter {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
