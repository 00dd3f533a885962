//! Rows into the data files of a format table (Java `FormatTableFileWrite`): one Parquet file
//! per partition written, in the partition's directory (`k=v/`, or `v/` with
//! `format-table.partition-path-only-value`), holding the table's columns but the partition
//! columns (Java reads a format table's files with the row type without them). Each file is
//! written under the directory's `_temporary/` and named as Java names data files
//! (`data-<uuid>-0.parquet`); the commit (the facade's `format_table`) renames it into place,
//! so a write that fails leaves no file a reader lists.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, UInt32Array};
use arrow_schema::SchemaRef;
use paimon_data::datum::datum_at;
use paimon_data::format_table::FormatTableFormat;
use paimon_io::FileIORef;
use paimon_spec::layout::{
    format_partition_dir, join, partition_value_text, DataFileNames, FORMAT_TABLE_TEMP_DIR,
};
use paimon_spec::types::DataField;

use crate::conform::conform_batch;
use crate::error::{Error, Result};
use crate::parquet_file::{
    batch_arrow_schema, parquet_arrow_schema, writer_properties, ParquetFile, ParquetFormat,
};
use crate::stats::StatsMode;

/// How a format table's files are laid out and encoded.
#[derive(Debug, Clone)]
pub struct FormatTableLayout {
    /// The table directory.
    pub table_path: String,
    /// The table's columns.
    pub fields: Vec<DataField>,
    /// The partition columns, outermost first.
    pub partition_keys: Vec<String>,
    /// `format-table.partition-path-only-value`.
    pub only_value: bool,
    /// `partition.default-name`: the directory of a null or blank partition value.
    pub default_name: String,
    /// `partition.legacy-name`: how partition values are printed (see
    /// [`partition_value_text`]).
    pub legacy_name: bool,
    /// `file.format`.
    pub format: FormatTableFormat,
    /// The Parquet codec (`file.compression`) and its zstd level.
    pub compression: (String, i32),
}

/// A file written under `_temporary/` that the commit renames to `target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingFormatFile {
    /// Where it was written.
    pub temp: String,
    /// Where the commit puts it.
    pub target: String,
    /// The partition's values (as the directory names them; `None` for the default name).
    pub partition: Vec<Option<String>>,
    /// Rows it holds.
    pub rows: u64,
}

struct OpenFile {
    file: ParquetFile,
    temp: String,
    target: String,
    partition: Vec<Option<String>>,
}

/// Writes rows into new files of a format table; nothing is visible until the files it
/// returns are committed.
pub struct FormatTableWriter {
    io: FileIORef,
    layout: FormatTableLayout,
    input: SchemaRef,
    file_schema: SchemaRef,
    file_fields: Vec<DataField>,
    names: DataFileNames,
    parquet: ParquetFormat,
    open: BTreeMap<String, OpenFile>,
}

impl std::fmt::Debug for FormatTableWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FormatTableWriter")
            .field("table", &self.layout.table_path)
            .field("open", &self.open.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl FormatTableWriter {
    /// A writer of `layout`'s table on `io`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for formats other than Parquet and for column types Parquet
    /// files are not written with here; [`Error::InvalidOption`] for an unknown codec.
    pub fn new(io: FileIORef, layout: FormatTableLayout) -> Result<Self> {
        let table = layout.table_path.as_str();
        if layout.format != FormatTableFormat::Parquet {
            return Err(Error::Unsupported {
                feature: format!(
                    "writing {} format tables (table {table}); Parquet ones are written",
                    layout.format.name()
                ),
            });
        }
        let file_fields: Vec<DataField> = layout
            .fields
            .iter()
            .filter(|f| !layout.partition_keys.contains(&f.name))
            .cloned()
            .collect();
        let file_schema = parquet_arrow_schema(table, &file_fields)?;
        let props = writer_properties(&layout.compression.0, layout.compression.1)?;
        Ok(FormatTableWriter {
            io,
            input: batch_arrow_schema(&layout.fields),
            file_schema,
            file_fields,
            names: DataFileNames::new(format!(".{}", layout.format.name())),
            parquet: ParquetFormat::new(props),
            open: BTreeMap::new(),
            layout,
        })
    }

    /// The Arrow schema of the rows [`FormatTableWriter::write`] takes (every column of the
    /// table, partition columns included).
    pub fn input_schema(&self) -> &SchemaRef {
        &self.input
    }

    /// Writes `batch` (columns by name, cast to the table's types) into the files of the
    /// partitions its rows belong to.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] for columns that do not match the table, [`Error::NullValue`]
    /// for a null in a NOT NULL column, [`Error::InvalidPartition`] for a partition value that
    /// has no directory name, encoder and storage errors.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let table = self.layout.table_path.clone();
        let (batch, _) = conform_batch(&table, batch, &self.input, None)?;
        for (f, column) in self.layout.fields.iter().zip(batch.columns()) {
            if !f.data_type.nullable && column.null_count() > 0 {
                return Err(Error::NullValue {
                    table,
                    column: f.name.clone(),
                });
            }
        }
        let mut rows_of: BTreeMap<String, (Vec<Option<String>>, Vec<u32>)> = BTreeMap::new();
        for row in 0..batch.num_rows() {
            let values = self.partition_of(&batch, row)?;
            let dir = self.partition_dir(&values)?;
            let index = u32::try_from(row).map_err(|_| Error::Internal("batch too long".into()))?;
            rows_of
                .entry(dir)
                .or_insert_with(|| (values, Vec::new()))
                .1
                .push(index);
        }
        let data_columns: Vec<ArrayRef> = self
            .layout
            .fields
            .iter()
            .zip(batch.columns())
            .filter(|(f, _)| !self.layout.partition_keys.contains(&f.name))
            .map(|(_, c)| Arc::clone(c))
            .collect();
        let data = RecordBatch::try_new(Arc::clone(&self.file_schema), data_columns)
            .map_err(|e| Error::Internal(format!("table {table}: {e}")))?;
        for (dir, (values, rows)) in rows_of {
            let part = if rows.len() == data.num_rows() {
                data.clone()
            } else {
                arrow_select::take::take_record_batch(&data, &UInt32Array::from(rows))
                    .map_err(|e| Error::Internal(format!("table {table}: {e}")))?
            };
            let file = self.file_for(&dir, values)?;
            file.file.write(&table, &part)?;
        }
        Ok(())
    }

    /// Closes every file; the returned files are then ready to be committed.
    ///
    /// # Errors
    /// Encoder and storage errors (every file written is then removed where possible).
    pub fn finish(mut self) -> Result<Vec<PendingFormatFile>> {
        let table = self.layout.table_path.clone();
        let modes = vec![StatsMode::None; self.file_fields.len()];
        let mut done = Vec::new();
        let open = std::mem::take(&mut self.open);
        let mut failure = None;
        for (_, f) in open {
            if failure.is_some() {
                f.file.abort();
                continue;
            }
            let (temp, target, partition) = (f.temp, f.target, f.partition);
            match f.file.finish(&table, &self.file_fields, &modes) {
                Ok(finished) => done.push(PendingFormatFile {
                    temp,
                    target,
                    partition,
                    rows: finished.rows,
                }),
                Err(e) => failure = Some(e),
            }
        }
        if let Some(e) = failure {
            for f in &done {
                let _ = self.io.delete(&f.temp);
            }
            return Err(e);
        }
        Ok(done)
    }

    /// Abandons every file, and the `_temporary` directories they leave empty.
    pub fn abort(mut self) {
        for (_, f) in std::mem::take(&mut self.open) {
            f.file.abort();
            if let Some((dir, _)) = f.temp.rsplit_once('/') {
                let _ = self.io.delete_empty_dir(dir);
            }
        }
    }

    fn partition_of(&self, batch: &RecordBatch, row: usize) -> Result<Vec<Option<String>>> {
        let mut out = Vec::with_capacity(self.layout.partition_keys.len());
        for key in &self.layout.partition_keys {
            let invalid = |reason: &str| Error::InvalidPartition {
                table: self.layout.table_path.clone(),
                column: key.clone(),
                reason: reason.to_string(),
            };
            let (i, f) = self
                .layout
                .fields
                .iter()
                .enumerate()
                .find(|(_, f)| &f.name == key)
                .ok_or_else(|| invalid("not a column of the table"))?;
            let datum = datum_at(batch.column(i), row, &f.data_type)
                .ok_or_else(|| invalid("a value of this type cannot name a directory"))?;
            let text = partition_value_text(&datum, self.layout.legacy_name)
                .ok_or_else(|| invalid("a value of this type cannot name a directory"))?;
            // A null or blank value lies in the default partition, as Java names it.
            out.push(text.filter(|t| !t.trim().is_empty()));
        }
        Ok(out)
    }

    /// The partition's directory relative to the table, `k=v/...` (empty when unpartitioned).
    ///
    /// # Errors
    /// [`Error::InvalidPartition`] for a level that would not be one plain directory name
    /// (`.` or `..` by value only).
    fn partition_dir(&self, values: &[Option<String>]) -> Result<String> {
        let mut levels = Vec::with_capacity(values.len());
        for (k, v) in self.layout.partition_keys.iter().zip(values) {
            let v = v.as_deref().unwrap_or(&self.layout.default_name);
            let level = format_partition_dir(k, v, self.layout.only_value);
            paimon_spec::layout::check_file_name("partition directory", &level).map_err(|e| {
                Error::InvalidPartition {
                    table: self.layout.table_path.clone(),
                    column: k.clone(),
                    reason: e.to_string(),
                }
            })?;
            levels.push(level);
        }
        Ok(levels.join("/"))
    }

    fn file_for(&mut self, dir: &str, values: Vec<Option<String>>) -> Result<&mut OpenFile> {
        if !self.open.contains_key(dir) {
            let table = self.layout.table_path.as_str();
            let dir_path = if dir.is_empty() {
                table.to_string()
            } else {
                join(table, dir)
            };
            // Java names each partition's files by a writer of its own: a fresh UUID, from 0.
            let name = self.names.data_file(&uuid::Uuid::new_v4().to_string(), 0);
            let target = join(&dir_path, &name);
            let temp = join(
                &join(&dir_path, FORMAT_TABLE_TEMP_DIR),
                &format!(".tmp.{}", uuid::Uuid::new_v4()),
            );
            let out = self.io.create(&temp).map_err(|source| Error::Io {
                table: table.to_string(),
                path: temp.clone(),
                source,
            })?;
            let file = ParquetFile::try_new(
                table,
                &temp,
                out,
                Arc::clone(&self.file_schema),
                &self.parquet,
            )?;
            self.open.insert(
                dir.to_string(),
                OpenFile {
                    file,
                    temp,
                    target,
                    partition: values,
                },
            );
        }
        self.open
            .get_mut(dir)
            .ok_or_else(|| Error::Internal(format!("no open file for {dir}")))
    }
}
