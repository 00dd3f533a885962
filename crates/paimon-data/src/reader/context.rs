//! [`SplitContext`]: what the tasks reading one split share (its files' directory, partition
//! constants, schemas, deletion vectors and batch sizing).

use std::sync::Arc;

use arrow_array::ArrayRef;
use paimon_io::FileIORef;
use paimon_spec::layout::TableRoots;
use paimon_spec::schema::TableSchemaRef;
use paimon_spec::types::{DataField, DataType};
use paimon_split::DataSplit;

use super::budget::{estimate_row_bytes, BatchBudget, BatchSizer};
use super::file::{FileOutput, FileTask};
use super::paths;
use super::schemas::SchemaCache;
use super::{ReadOptions, SplitReader};
use crate::datum::datum_to_array;
use crate::deletion_vector::DeletionVector;
use crate::error::{Error, Result};
use crate::format::RowRanges;

/// What the tasks of one split share.
#[derive(Debug)]
pub(crate) struct SplitContext {
    pub io: FileIORef,
    pub table_path: String,
    pub table: TableSchemaRef,
    pub split: DataSplit,
    pub bucket_dir: String,
    /// Where the split's files may lie ([`paths::roots`]).
    pub roots: TableRoots,
    pub batch_size: usize,
    pub constants: Vec<(i32, ArrayRef)>,
    /// Batch sizes under [`ReadOptions::memory_pool`], when set.
    pub sizer: Option<Arc<BatchSizer>>,
    pub(super) options: Arc<ReadOptions>,
    pub(super) schemas: Arc<SchemaCache>,
    pub(super) schema_dir: String,
    /// Under [`SplitReader::read_async`]: where opened files are registered.
    pub(super) stage: Option<Arc<super::staged::StagedIO>>,
}

impl SplitContext {
    /// With a memory budget, `budget` gives the read's sizer and the fields read, whose rows
    /// set the split's batch size.
    pub(super) fn new(
        reader: &SplitReader,
        table_path: &str,
        split: &DataSplit,
        table: TableSchemaRef,
        schema_dir: String,
        budget: Option<(Arc<BatchSizer>, &[DataField])>,
    ) -> Result<Self> {
        let partition_fields = table.partition_fields();
        let mut constants = Vec::new();
        if !partition_fields.is_empty() {
            let row = split
                .partition_row()
                .map_err(|e| Error::spec(&split.bucket_path, e))?;
            let types: Vec<DataType> = partition_fields
                .iter()
                .map(|f| f.data_type.clone())
                .collect();
            if row.arity() == types.len() {
                let values = row
                    .to_datums(&types)
                    .map_err(|e| Error::spec(&split.bucket_path, e))?;
                for (f, v) in partition_fields.iter().zip(values) {
                    constants.push((f.id, datum_to_array(&v, &f.data_type)?));
                }
            }
        }
        let roots = paths::roots(table_path, &table, &reader.options)?;
        let bucket_dir = paths::bucket_dir(table_path, &split.bucket_path, &table)?;
        let mut batch_size = reader.options.batch_size.max(1);
        if let Some((sizer, read)) = &budget {
            let ids: Vec<i32> = read.iter().map(|f| f.id).collect();
            let widest = split
                .data_files
                .iter()
                .chain(&split.before_files)
                .map(|m| estimate_row_bytes(read, m.file_size, m.row_count))
                .max()
                .unwrap_or(1);
            batch_size = sizer.rows(&ids, widest, 1, batch_size);
        }
        Ok(SplitContext {
            io: reader.io.clone(),
            table_path: table_path.to_string(),
            table,
            split: split.clone(),
            bucket_dir,
            roots,
            batch_size,
            constants,
            sizer: budget.map(|(s, _)| s),
            options: reader.options.clone(),
            schemas: reader.schemas.clone(),
            schema_dir,
            stage: reader.stage.clone(),
        })
    }

    /// The schema a data file was written with.
    pub(crate) fn file_schema(&self, schema_id: i64) -> Result<TableSchemaRef> {
        if schema_id == self.table.id {
            return Ok(self.table.clone());
        }
        self.schemas
            .get(self.io.as_ref(), &self.schema_dir, schema_id)
    }

    /// The path of the split's file `meta` (a data file or a before-file).
    pub(crate) fn file_path(&self, meta: &paimon_spec::data_file::DataFileMeta) -> Result<String> {
        let external = meta
            .external_path
            .as_deref()
            .map(|p| self.options.rewrite_path(p));
        paths::data_file(
            self.io.as_ref(),
            &self.table_path,
            &self.roots,
            &self.bucket_dir,
            &meta.file_name,
            external.as_deref(),
        )
    }

    /// The FileTask of data file `i`, with its deletion vector resolved.
    pub(crate) fn file_task(&self, i: usize) -> Result<FileTask> {
        let meta = self
            .split
            .data_files
            .get(i)
            .ok_or_else(|| Error::Internal(format!("data file index {i} out of range")))?
            .clone();
        let path = self.file_path(&meta)?;
        let schema = self.file_schema(meta.schema_id)?;
        let file_fields = match &meta.write_cols {
            Some(cols) => schema.project(cols),
            None => schema.fields.clone(),
        };
        // The vector is refused when it deletes a row past the file's row count (the two
        // disagree: reading either way could return deleted rows).
        let rows = self.deletion_vector(i)?.map(|dv| {
            let total = u64::try_from(meta.row_count).unwrap_or(0);
            RowRanges::excluding(total, dv.iter())
        });
        Ok(FileTask {
            path,
            meta,
            file_fields,
            rows,
        })
    }

    /// The deletion vector of data file `i`, if the split carries one: only its entry is read,
    /// and it must delete rows below the file's row count.
    pub(crate) fn deletion_vector(&self, i: usize) -> Result<Option<DeletionVector>> {
        let Some(df) = self.split.deletion_file(i) else {
            return Ok(None);
        };
        let file = self.split.data_files.get(i);
        let rows = file
            .map(|m| u64::try_from(m.row_count).unwrap_or(0))
            .unwrap_or(0);
        let path = paths::index_file(
            self.io.as_ref(),
            &self.table_path,
            &self.roots,
            &self.bucket_dir,
            &self.options.rewrite_path(&df.path),
        )?;
        DeletionVector::read_in_file(self.io.as_ref(), &path, df.offset, df.length, rows)
            .map(Some)
            .map_err(|e| match e {
                // Name the data file the vector belongs to as well as the index file.
                Error::Corrupt { path, reason } => Error::Corrupt {
                    path,
                    reason: format!(
                        "{reason} (the vector of data file {})",
                        file.map_or("?", |m| m.file_name.as_str())
                    ),
                },
                e => e,
            })
    }

    /// How files of this split are read into `fields`.
    pub(crate) fn file_output(&self, fields: &[DataField], with_value_kind: bool) -> FileOutput {
        FileOutput {
            fields: fields.to_vec(),
            constants: self.constants.clone(),
            kv_file: !self.table.primary_keys.is_empty(),
            with_value_kind,
            batch_size: self.batch_size,
            prune: None,
            late: self.options.late_materialization,
            budget: self
                .sizer
                .clone()
                .map(|sizer| BatchBudget { sizer, parts: 1 }),
            coalesce_gap: self.options.coalesce_gap,
            stage: self.stage.clone(),
        }
    }
}
