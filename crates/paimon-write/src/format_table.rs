//! Rows into the data files of a format table (Java `FormatTableFileWriter`): the files of each
//! partition written (`k=v/`, or `v/` with `format-table.partition-path-only-value`) hold the
//! table's columns but the partition columns (Java reads a format table's files with the row
//! type without them), in the table's `file.format`: Parquet, ORC (the data files' encoders),
//! CSV or JSON lines ([`crate::text_file`]). Each partition's files are named as Java's
//! per-partition `DataFilePathFactory` names them (`data-<uuid>-<n>.<format>`, one UUID per
//! partition and write, `n` from 0) and rolled at `target-file-size` as Java's
//! `FormatTableRollingFileWriter` rolls them (the size checked every 1,000 rows). Each file is
//! written under the directory's `_temporary/`; the commit (the facade's `format_table`)
//! renames it into place, so a write that fails leaves no file a reader lists.

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
use crate::data_file::{DataFile, FileFormat};
use crate::error::{Error, Result};
use crate::parquet_file::batch_arrow_schema;
use crate::rolling::{rows_to_write, CHECK_ROLLING_RECORD_CNT};
use crate::stats::StatsMode;
use crate::text_file::{TextFormat, TextKind};

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
    /// The codec (Java `CoreOptions.formatTableFileCompression`) and its zstd level.
    pub compression: (String, i32),
    /// `target-file-size` in bytes: a file is rolled once it holds this much (checked every
    /// 1,000 rows).
    pub target_file_size: u64,
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

/// The file being written in one partition directory, and those it rolled before.
struct Partition {
    dir_path: String,
    values: Vec<Option<String>>,
    uuid: String,
    next: u64,
    open: Option<(DataFile, String, String)>,
    done: Vec<PendingFormatFile>,
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
    format: FileFormat,
    partitions: BTreeMap<String, Partition>,
}

impl std::fmt::Debug for FormatTableWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FormatTableWriter")
            .field("table", &self.layout.table_path)
            .field("partitions", &self.partitions.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl FormatTableWriter {
    /// A writer of `layout`'s table on `io`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for text format tables, for column types a format is not
    /// written with here and for compressed CSV or JSON; [`Error::InvalidOption`] for an
    /// unknown codec.
    pub fn new(io: FileIORef, layout: FormatTableLayout) -> Result<Self> {
        let table = layout.table_path.as_str();
        let file_fields: Vec<DataField> = layout
            .fields
            .iter()
            .filter(|f| !layout.partition_keys.contains(&f.name))
            .cloned()
            .collect();
        let (codec, level) = (&layout.compression.0, layout.compression.1);
        let text = |kind: TextKind| -> Result<(FileFormat, SchemaRef)> {
            let format = TextFormat::try_new(table, kind, &file_fields, codec)?;
            Ok((FileFormat::Text(format), batch_arrow_schema(&file_fields)))
        };
        let (format, file_schema) = match &layout.format {
            FormatTableFormat::Parquet | FormatTableFormat::Orc => FileFormat::try_new(
                table,
                layout.format.name(),
                codec,
                level,
                layout.target_file_size,
                &file_fields,
            )?,
            FormatTableFormat::Csv(csv) => text(TextKind::Csv(csv.clone()))?,
            FormatTableFormat::Json => text(TextKind::Json)?,
            FormatTableFormat::Text => {
                return Err(Error::Unsupported {
                    feature: format!(
                        "writing text format tables (table {table}); Parquet, ORC, CSV and \
                         JSON ones are written"
                    ),
                })
            }
        };
        Ok(FormatTableWriter {
            io,
            input: batch_arrow_schema(&layout.fields),
            file_schema,
            file_fields,
            names: DataFileNames::new(format!(".{}", layout.format.name())),
            format,
            partitions: BTreeMap::new(),
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
            self.partition(&dir, values);
            self.write_rolling(&dir, &part)?;
        }
        Ok(())
    }

    /// Writes `part` into the partition `dir`'s files, closing a file once a size check
    /// (every 1,000 rows of it) finds it at `target-file-size`.
    fn write_rolling(&mut self, dir: &str, part: &RecordBatch) -> Result<()> {
        let table = self.layout.table_path.clone();
        let target = self.layout.target_file_size;
        let mut offset = 0;
        while offset < part.num_rows() {
            let file = self.open_file(dir)?;
            let size = file.estimated_length();
            let take = rows_to_write(file.rows(), size, target, part.num_rows() - offset);
            file.write(&table, &part.slice(offset, take))?;
            offset += take;
            if file.rows() % CHECK_ROLLING_RECORD_CNT == 0 && file.estimated_length() >= target {
                self.close_file(dir)?;
            }
        }
        Ok(())
    }

    /// Closes every file; the returned files are then ready to be committed.
    ///
    /// # Errors
    /// Encoder and storage errors (every file written is then removed where possible).
    pub fn finish(mut self) -> Result<Vec<PendingFormatFile>> {
        let dirs: Vec<String> = self.partitions.keys().cloned().collect();
        for dir in &dirs {
            if let Err(e) = self.close_file(dir) {
                self.abort();
                return Err(e);
            }
        }
        let partitions = std::mem::take(&mut self.partitions);
        Ok(partitions.into_values().flat_map(|p| p.done).collect())
    }

    /// Abandons every file, and the `_temporary` directories they leave empty.
    pub fn abort(mut self) {
        for (_, p) in std::mem::take(&mut self.partitions) {
            if let Some((file, _, _)) = p.open {
                file.abort();
            }
            for f in &p.done {
                let _ = self.io.delete(&f.temp);
            }
            let _ = self
                .io
                .delete_empty_dir(&join(&p.dir_path, FORMAT_TABLE_TEMP_DIR));
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

    /// Registers the partition `dir` (its directory named, a UUID of its own) if new.
    fn partition(&mut self, dir: &str, values: Vec<Option<String>>) {
        if self.partitions.contains_key(dir) {
            return;
        }
        let table = self.layout.table_path.as_str();
        let dir_path = if dir.is_empty() {
            table.to_string()
        } else {
            join(table, dir)
        };
        // Java names each partition's files by a path factory of its own: one UUID, 0, 1, ...
        self.partitions.insert(
            dir.to_string(),
            Partition {
                dir_path,
                values,
                uuid: uuid::Uuid::new_v4().to_string(),
                next: 0,
                open: None,
                done: Vec::new(),
            },
        );
    }

    /// The open file of the partition `dir`, a new one when none is open.
    fn open_file(&mut self, dir: &str) -> Result<&mut DataFile> {
        let table = self.layout.table_path.as_str();
        let p = self
            .partitions
            .get_mut(dir)
            .ok_or_else(|| Error::Internal(format!("no partition {dir}")))?;
        if p.open.is_none() {
            let target = join(&p.dir_path, &self.names.data_file(&p.uuid, p.next));
            let temp = join(
                &join(&p.dir_path, FORMAT_TABLE_TEMP_DIR),
                &format!(".tmp.{}", uuid::Uuid::new_v4()),
            );
            let out = self.io.create(&temp).map_err(|source| Error::Io {
                table: table.to_string(),
                path: temp.clone(),
                source,
            })?;
            let file = DataFile::open(
                &self.format,
                table,
                &temp,
                out,
                Arc::clone(&self.file_schema),
            )?;
            p.next += 1;
            p.open = Some((file, temp, target));
        }
        match p.open.as_mut() {
            Some((file, _, _)) => Ok(file),
            None => Err(Error::Internal(format!("no open file in {dir}"))),
        }
    }

    /// Finishes the open file of the partition `dir`, if any.
    fn close_file(&mut self, dir: &str) -> Result<()> {
        let table = self.layout.table_path.clone();
        let modes = vec![StatsMode::None; self.file_fields.len()];
        let Some(p) = self.partitions.get_mut(dir) else {
            return Ok(());
        };
        let Some((file, temp, target)) = p.open.take() else {
            return Ok(());
        };
        let finished = file.finish(&table, &self.file_fields, &modes)?;
        p.done.push(PendingFormatFile {
            temp,
            target,
            partition: p.values.clone(),
            rows: finished.rows,
        });
        Ok(())
    }
}
