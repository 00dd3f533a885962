//! Reading one data file as output rows (Java `DataFileRecordReader` with `FormatReaderMapping`).
//!
//! Order of application, as in Java: decode the file's own columns (deleted rows skipped) →
//! partition values → id mapping and casts ([`SchemaMapper`]) → row-tracking columns.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use paimon_io::FileIORef;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::predicate::Predicate;
use paimon_spec::types::DataField;

use crate::arrow_schema::{to_arrow_field, to_arrow_type};
use crate::datum::repeat;
use crate::error::{Error, Result};
use crate::format::{
    decode_filtered, prune_orc, prune_parquet, BatchIter, DecodeRequest, FileFormat, FilePredicate,
    LateMaterialization, RangedFile, RowRanges,
};
use crate::schema_mapper::{ColumnSource, SchemaMapper};

use super::budget::{estimate_row_bytes, BatchBudget};
use super::paths::data_file_size;

/// Field id of the `_ROW_ID` system column (Java `SpecialFields.ROW_ID`).
pub const ROW_ID_FIELD_ID: i32 = i32::MAX - 5;
/// Field id of `_SEQUENCE_NUMBER` (Java `SpecialFields.SEQUENCE_NUMBER`).
pub const SEQUENCE_NUMBER_FIELD_ID: i32 = i32::MAX - 1;
/// Field id of `_VALUE_KIND` (Java `SpecialFields.VALUE_KIND`).
pub const VALUE_KIND_FIELD_ID: i32 = i32::MAX - 2;
/// Name of the row-id system column.
pub const ROW_ID: &str = "_ROW_ID";
/// Name of the sequence-number system column.
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
/// Name of the value-kind column of primary-key files.
pub const VALUE_KIND: &str = "_VALUE_KIND";

/// One data file to read.
#[derive(Debug, Clone)]
pub(crate) struct FileTask {
    /// Resolved location.
    pub path: String,
    /// Its metadata from the split.
    pub meta: DataFileMeta,
    /// The file's fields (its schema, projected by `_WRITE_COLS`).
    pub file_fields: Vec<DataField>,
    /// Rows to keep (deletion vector applied); `None` = all.
    pub rows: Option<RowRanges>,
}

/// What every file of a split is read as.
#[derive(Debug, Clone)]
pub(crate) struct FileOutput {
    /// Output fields (table fields and system fields).
    pub fields: Vec<DataField>,
    /// Constant columns by field id (the partition values, one-element arrays).
    pub constants: Vec<(i32, ArrayRef)>,
    /// The file is a primary-key file whose `_SEQUENCE_NUMBER` is physical.
    pub kv_file: bool,
    /// Also emit `_VALUE_KIND` (Int8) last, for merge-on-read.
    pub with_value_kind: bool,
    /// Rows per batch.
    pub batch_size: usize,
    /// The read's predicate, to skip rows the file's statistics rule out before decoding
    /// (Parquet row groups and pages, ORC stripes) and, in Parquet files, to decode the
    /// other columns only for rows it keeps (late materialization, not with `_ROW_ID` or
    /// `_SEQUENCE_NUMBER` in the output). Only for files whose rows are output one for one:
    /// before a merge, a row failing the predicate may still supersede an older one that
    /// passes.
    pub prune: Option<Predicate>,
    /// When `prune` is pushed into the Parquet decoder ([`ReadOptions::late_materialization`]).
    ///
    /// [`ReadOptions::late_materialization`]: super::ReadOptions::late_materialization
    pub late: LateMaterialization,
    /// Under a memory budget: batches are cut to the budget's share, and their sizes measured.
    pub budget: Option<BatchBudget>,
    /// Planned byte ranges of a file at most this far apart are fetched as one
    /// ([`ReadOptions::coalesce_gap`]).
    ///
    /// [`ReadOptions::coalesce_gap`]: super::ReadOptions::coalesce_gap
    pub coalesce_gap: u64,
    /// Under [`super::SplitReader::read_async`]: where the files opened are registered, so
    /// that their planned ranges are fetched ahead of each batch.
    pub stage: Option<Arc<super::staged::StagedIO>>,
}

impl FileOutput {
    /// The Arrow schema of batches produced by [`read_file`].
    pub(crate) fn schema(&self) -> SchemaRef {
        let mut fields: Vec<Field> = self.fields.iter().map(to_arrow_field).collect();
        if self.with_value_kind {
            fields.push(Field::new(VALUE_KIND, arrow_schema::DataType::Int8, false));
        }
        Arc::new(Schema::new(fields))
    }

    /// This output where `parts` batches of it are held at once (the sorted runs of a merge),
    /// each cut to that share of a batch's bytes under a memory budget.
    pub(crate) fn shared_by(mut self, parts: usize) -> Self {
        if let Some(b) = &mut self.budget {
            b.parts = parts.max(1);
        }
        self
    }

    /// Rows per batch of the file `meta`: [`FileOutput::batch_size`], cut to the budget's share.
    fn batch_rows(&self, meta: &DataFileMeta) -> usize {
        match &self.budget {
            None => self.batch_size,
            Some(b) => b.sizer.rows(
                &self.column_ids(),
                estimate_row_bytes(&self.fields, meta.file_size, meta.row_count),
                b.parts,
                self.batch_size,
            ),
        }
    }

    /// The field ids of the batches, with `_VALUE_KIND`'s: whose measured row widths apply.
    fn column_ids(&self) -> Vec<i32> {
        let kind = self.with_value_kind.then_some(VALUE_KIND_FIELD_ID);
        self.fields.iter().map(|f| f.id).chain(kind).collect()
    }
}

/// Reads `task` as batches of `out.schema()`.
///
/// # Errors
/// I/O and format errors naming the file.
pub(crate) fn read_file(io: &FileIORef, task: &FileTask, out: &FileOutput) -> Result<BatchIter> {
    // From the path, so that an unknown extension is reported with the file's location.
    let format = FileFormat::from_file_name(&task.path)?;
    let mapped_fields: Vec<DataField> = out
        .fields
        .iter()
        .filter(|f| {
            f.id != ROW_ID_FIELD_ID
                && f.id != SEQUENCE_NUMBER_FIELD_ID
                && !out.constants.iter().any(|(id, _)| *id == f.id)
        })
        .cloned()
        .collect();
    let mapper = SchemaMapper::new(&mapped_fields, &task.file_fields);
    let mut columns = mapper.file_columns();
    let wants_seq = out.fields.iter().any(|f| f.id == SEQUENCE_NUMBER_FIELD_ID);
    // An append file may hold the row-tracking columns itself (Java writes them when it
    // compacts a row-tracked table, and so do we): a value there wins over the one the
    // file's metadata gives (Java `ColumnarRowIterator.assignRowTracking`). Decoders skip
    // the names a file lacks.
    if wants_seq {
        columns.push(SEQUENCE_NUMBER.to_string());
    }
    if !out.kv_file && out.fields.iter().any(|f| f.id == ROW_ID_FIELD_ID) {
        columns.push(ROW_ID.to_string());
    }
    if out.with_value_kind {
        columns.push(VALUE_KIND.to_string());
    }
    if task.meta.row_count < 0 {
        return Err(Error::corrupt(
            &task.path,
            format!(
                "the split's file metadata claims a negative row count {}",
                task.meta.row_count
            ),
        ));
    }
    let total = u64::try_from(task.meta.row_count).unwrap_or(0);
    let rows = task.rows.clone().unwrap_or_else(|| RowRanges::all(total));
    // A deletion vector or row range keeping nothing needs no read; a file the metadata calls
    // empty is still read, to check that it is.
    if task.rows.is_some() && rows.selected() == 0 {
        return Ok(Box::new(std::iter::empty()));
    }
    // A regular file with bytes, from its status, before anything is opened.
    let len = data_file_size(io.as_ref(), &task.path)?;
    // Parquet and ORC files are read by ranges (footer, then what is decoded); others whole.
    let data = if matches!(format, FileFormat::Parquet | FileFormat::Orc) {
        let file = RangedFile::open(io.clone(), &task.path, len, out.coalesce_gap);
        if let Some(stage) = &out.stage {
            stage.register(&file);
        }
        file
    } else {
        let bytes = io.read(&task.path).map_err(|e| Error::io(&task.path, e))?;
        RangedFile::memory(&task.path, bytes)
    };
    let rows = match (&out.prune, format) {
        (Some(p), FileFormat::Parquet) => {
            prune_parquet(&data, &FilePredicate::new(p, mapper.sources()), rows).0
        }
        (Some(p), FileFormat::Orc) => {
            prune_orc(&data, &FilePredicate::new(p, mapper.sources()), rows).0
        }
        _ => rows,
    };
    // Late materialization drops rows inside the decoder, so positions no longer follow
    // `rows`: not when a column is derived from them.
    let positional = out
        .fields
        .iter()
        .any(|f| f.id == ROW_ID_FIELD_ID || f.id == SEQUENCE_NUMBER_FIELD_ID);
    let row_filter = match (&out.prune, format) {
        (Some(p), FileFormat::Parquet) if !positional => {
            Some(FilePredicate::for_row_filter(p, mapper.sources()))
        }
        _ => None,
    };
    let types = mapper
        .sources()
        .iter()
        .filter_map(|(_, src)| match src {
            ColumnSource::File { name, file_type } => {
                Some((name.clone(), to_arrow_type(file_type)))
            }
            ColumnSource::Absent => None,
        })
        .collect();
    let req = DecodeRequest {
        columns,
        types,
        rows: (!rows.is_all()).then(|| rows.clone()),
        batch_size: out.batch_rows(&task.meta),
        expected_rows: Some(task.meta.row_count),
    };
    let pushed = row_filter.as_ref().map(|f| (f, out.late));
    let batches = decode_filtered(format, &task.path, data, &req, pushed)?;
    let schema = out.schema();
    let state = FileState {
        mapper,
        schema,
        out: out.clone(),
        path: task.path.clone(),
        meta: task.meta.clone(),
        positions: rows,
        range_idx: 0,
        range_off: 0,
        repeated: vec![None; out.constants.len()],
    };
    let measure = out.budget.as_ref().map(|b| (b.clone(), out.column_ids()));
    Ok(Box::new(MappedBatches {
        inner: batches,
        state,
        measure,
    }))
}

struct FileState {
    mapper: SchemaMapper,
    schema: SchemaRef,
    out: FileOutput,
    path: String,
    meta: DataFileMeta,
    positions: RowRanges,
    range_idx: usize,
    range_off: u64,
    /// The last batch's column of each constant (as `out.constants`): batches of the same
    /// length share it instead of each building its own copy of the same values.
    repeated: Vec<Option<ArrayRef>>,
}

impl FileState {
    /// The file positions of the next `n` kept rows.
    fn next_positions(&mut self, n: usize) -> Vec<i64> {
        let mut out = Vec::with_capacity(n);
        let ranges = self.positions.ranges();
        while out.len() < n && self.range_idx < ranges.len() {
            let r = &ranges[self.range_idx];
            let pos = r.start + self.range_off;
            if pos >= r.end {
                self.range_idx += 1;
                self.range_off = 0;
                continue;
            }
            out.push(i64::try_from(pos).unwrap_or(i64::MAX));
            self.range_off += 1;
        }
        out
    }

    fn map(&mut self, batch: &RecordBatch) -> Result<RecordBatch> {
        let n = batch.num_rows();
        let mapped = self.mapper.map_columns(batch, &self.path)?;
        let need_positions = self.out.fields.iter().any(|f| f.id == ROW_ID_FIELD_ID);
        let positions = if need_positions {
            self.next_positions(n)
        } else {
            Vec::new()
        };
        let mut cols = Vec::with_capacity(self.schema.fields().len());
        let mut mapped = mapped.into_iter();
        for f in &self.out.fields {
            let constant = self.out.constants.iter().position(|(id, _)| *id == f.id);
            let col = if let Some(i) = constant {
                repeat_shared(&mut self.repeated[i], &self.out.constants[i].1, n)?
            } else if f.id == ROW_ID_FIELD_ID {
                let first = self.meta.first_row_id;
                let stored = self.stored_longs(batch, ROW_ID)?;
                Arc::new(
                    positions
                        .iter()
                        .enumerate()
                        .map(|(i, p)| {
                            stored
                                .filter(|c| c.is_valid(i))
                                .map(|c| c.value(i))
                                .or_else(|| first.map(|fr| fr + p))
                        })
                        .collect::<Int64Array>(),
                ) as ArrayRef
            } else if f.id == SEQUENCE_NUMBER_FIELD_ID {
                match batch.column_by_name(SEQUENCE_NUMBER) {
                    Some(c) if self.out.kv_file => c.clone(),
                    _ => {
                        let stored = self.stored_longs(batch, SEQUENCE_NUMBER)?;
                        let max = self.meta.max_sequence_number;
                        Arc::new(
                            (0..n)
                                .map(|i| {
                                    stored.filter(|c| c.is_valid(i)).map_or(max, |c| c.value(i))
                                })
                                .collect::<Int64Array>(),
                        ) as ArrayRef
                    }
                }
            } else {
                mapped
                    .next()
                    .ok_or_else(|| Error::Internal("mapper column count".into()))?
            };
            cols.push(col);
        }
        if self.out.with_value_kind {
            let kind = batch.column_by_name(VALUE_KIND).ok_or_else(|| {
                Error::corrupt(&self.path, "primary-key file without _VALUE_KIND")
            })?;
            let kind = arrow_cast::cast(kind, &arrow_schema::DataType::Int8)
                .map_err(|e| Error::arrow(&self.path, e))?;
            cols.push(kind);
        }
        // With no column at all (a data-evolution file read only to count its rows) the batch
        // still carries its row count.
        let options = RecordBatchOptions::new().with_row_count(Some(n));
        RecordBatch::try_new_with_options(self.schema.clone(), cols, &options)
            .map_err(|e| Error::arrow(&self.path, e))
    }

    /// The file's own BIGINT column `name` in `batch`, when the file holds one.
    fn stored_longs<'b>(
        &self,
        batch: &'b RecordBatch,
        name: &str,
    ) -> Result<Option<&'b Int64Array>> {
        let Some(column) = batch.column_by_name(name) else {
            return Ok(None);
        };
        column
            .as_primitive_opt::<Int64Type>()
            .map(Some)
            .ok_or_else(|| {
                Error::corrupt(
                    &self.path,
                    format!("column {name} is {}, not BIGINT", column.data_type()),
                )
            })
    }
}

/// `value` repeated `n` times: the column in `last` when it has `n` rows, else a new one
/// kept there.
fn repeat_shared(last: &mut Option<ArrayRef>, value: &ArrayRef, n: usize) -> Result<ArrayRef> {
    if let Some(col) = last.as_ref().filter(|c| c.len() == n) {
        return Ok(col.clone());
    }
    let col = repeat(value, n)?;
    *last = Some(col.clone());
    Ok(col)
}

struct MappedBatches {
    inner: BatchIter,
    state: FileState,
    /// Where the widths of the batches are recorded, under a memory budget.
    measure: Option<(BatchBudget, Vec<i32>)>,
}

impl Iterator for MappedBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.inner.next()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let mapped = self.state.map(&batch);
        if let (Ok(b), Some((budget, ids))) = (&mapped, &self.measure) {
            budget.sizer.observe(ids, b);
        }
        Some(mapped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::{Array, Int32Array};

    #[test]
    fn batches_of_one_length_share_a_constant_column() {
        let value: ArrayRef = Arc::new(Int32Array::from(vec![7]));
        let mut last = None;
        let a = repeat_shared(&mut last, &value, 4).unwrap();
        let b = repeat_shared(&mut last, &value, 4).unwrap();
        assert_eq!(a.as_primitive::<Int32Type>().values(), &[7, 7, 7, 7]);
        assert_eq!(
            a.to_data().buffers()[0].as_ptr(),
            b.to_data().buffers()[0].as_ptr()
        );
        // A shorter last batch gets its own column, and the next full one a new one again.
        let c = repeat_shared(&mut last, &value, 2).unwrap();
        assert_eq!(c.as_primitive::<Int32Type>().values(), &[7, 7]);
        let d = repeat_shared(&mut last, &value, 4).unwrap();
        assert_eq!(d.len(), 4);
        assert_eq!(d.null_count(), 0);
    }
}
