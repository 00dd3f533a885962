//! One Parquet data file being written (Java `ParquetWriterFactory` / `ParquetBulkWriter`).
//!
//! The Parquet schema is the one Java writes for the same row type: each column carries its
//! Paimon field id (nested ROW fields too), strings are `BINARY (STRING)`, TINYINT/SMALLINT are
//! `INT32 (INT(8|16))`, decimals are `INT32`/`INT64`/`FIXED_LEN_BYTE_ARRAY` by precision,
//! timestamps up to precision 6 `INT64 TIMESTAMP(MILLIS|MICROS)` (adjusted to UTC for the local
//! zone variant), precision 7..9 `INT96`, nested ones too (module `parquet_int96`). Chunk
//! statistics are kept
//! whole (no truncation) because the file's value stats are read back from them, as Java does.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, SchemaRef};
use paimon_data::arrow_schema::to_arrow_type;
use paimon_io::FileWriter;
use paimon_spec::types::{DataField, DataType, TypeKind};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnWriter, ArrowRowGroupWriterFactory};
use parquet::arrow::{ArrowWriter, PARQUET_FIELD_ID_META_KEY};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;

use crate::data_file::{close_stream, FinishedFile};
use crate::error::{Error, Result};
use crate::parquet_columns::ColumnGroups;
use crate::parquet_int96::{has_int96, Int96Layout};
use crate::sink::Sink;
use crate::stats::{parquet_field_stats, StatsMode};

/// The Arrow schema batches of `fields` are handed to every file format in: Paimon types as the
/// readers map them, each field (nested ROW fields too) tagged with its field id under the
/// Parquet field-id key.
pub fn batch_arrow_schema(fields: &[DataField]) -> SchemaRef {
    Arc::new(Schema::new(
        fields.iter().map(arrow_field_with_id).collect::<Vec<_>>(),
    ))
}

/// The Arrow schema a Parquet file of `fields` is written with ([`batch_arrow_schema`]).
///
/// # Errors
/// [`Error::Unsupported`] for a type without a Java-compatible Parquet layout here (VARIANT,
/// BLOB, VECTOR).
pub fn parquet_arrow_schema(table: &str, fields: &[DataField]) -> Result<SchemaRef> {
    for f in fields {
        check_writable(table, &f.name, &f.data_type)?;
    }
    Ok(batch_arrow_schema(fields))
}

fn arrow_field_with_id(f: &DataField) -> Field {
    let data_type = match &f.data_type.kind {
        TypeKind::Row(children) => ArrowType::Struct(Fields::from(
            children.iter().map(arrow_field_with_id).collect::<Vec<_>>(),
        )),
        _ => to_arrow_type(&f.data_type),
    };
    Field::new(&f.name, data_type, f.data_type.nullable).with_metadata(HashMap::from([(
        PARQUET_FIELD_ID_META_KEY.to_string(),
        f.id.to_string(),
    )]))
}

fn check_writable(table: &str, name: &str, ty: &DataType) -> Result<()> {
    let unsupported = |what: &str| {
        Err(Error::Unsupported {
            feature: format!(
                "table {table}: writing column {name} of type {ty} to Parquet ({what})"
            ),
        })
    };
    match &ty.kind {
        TypeKind::Variant | TypeKind::Blob | TypeKind::Vector { .. } => {
            unsupported("no Java-compatible Parquet layout written yet")
        }
        TypeKind::Array(e) | TypeKind::Multiset(e) => check_writable(table, name, e),
        TypeKind::Map { key, value } => {
            check_writable(table, name, key)?;
            check_writable(table, name, value)
        }
        TypeKind::Row(children) => children
            .iter()
            .try_for_each(|c| check_writable(table, &c.name, &c.data_type)),
        _ => Ok(()),
    }
}

/// Parquet writer properties for `file.compression` / `file.compression.zstd-level`.
///
/// # Errors
/// [`Error::InvalidOption`] for a codec Parquet does not have or a bad level.
pub fn writer_properties(compression: &str, zstd_level: i32) -> Result<WriterProperties> {
    let invalid = |reason: &str| Error::InvalidOption {
        key: "file.compression".into(),
        value: compression.to_string(),
        reason: reason.to_string(),
    };
    let codec =
        match compression {
            "zstd" => Compression::ZSTD(ZstdLevel::try_new(zstd_level).map_err(|_| {
                Error::InvalidOption {
                    key: "file.compression.zstd-level".into(),
                    value: zstd_level.to_string(),
                    reason: "not a zstd level".into(),
                }
            })?),
            "snappy" => Compression::SNAPPY,
            "lz4" => Compression::LZ4_RAW,
            "gzip" => Compression::GZIP(GzipLevel::default()),
            "brotli" => Compression::BROTLI(BrotliLevel::default()),
            "none" | "uncompressed" => Compression::UNCOMPRESSED,
            "lzo" => return Err(invalid("LZO is not available to the Parquet writer")),
            _ => return Err(invalid("unknown codec")),
        };
    Ok(WriterProperties::builder()
        .set_compression(codec)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_statistics_truncate_length(None)
        .build())
}

/// How the Parquet files of a table are encoded: the writer properties, and the threads that
/// encode the columns of a row group side by side with the writing thread (none: the writing
/// thread encodes them all).
#[derive(Debug, Clone)]
pub struct ParquetFormat {
    /// Writer properties (codec, statistics).
    pub props: WriterProperties,
    /// Threads encoding columns besides the writing thread.
    pub pool: Option<Arc<rayon::ThreadPool>>,
}

impl ParquetFormat {
    /// Encoding on the writing thread.
    pub fn new(props: WriterProperties) -> Self {
        ParquetFormat { props, pool: None }
    }

    /// Columns encoded by `threads` threads, the writing thread and `threads - 1` more (1: on
    /// the writing thread alone). The bytes written do not depend on it.
    ///
    /// # Errors
    /// [`Error::Internal`] when the threads cannot be started.
    pub fn with_threads(self, threads: usize) -> Result<Self> {
        Ok(self.with_pool(encoding_pool(threads)?))
    }

    /// Columns encoded by the writing thread and the threads of `pool` (see [`encoding_pool`]).
    pub fn with_pool(mut self, pool: Option<Arc<rayon::ThreadPool>>) -> Self {
        self.pool = pool;
        self
    }
}

/// The threads a writer on `threads` threads needs besides the writing thread: `threads - 1`
/// of them (`None` for 0 or 1).
///
/// # Errors
/// [`Error::Internal`] when the threads cannot be started.
pub fn encoding_pool(threads: usize) -> Result<Option<Arc<rayon::ThreadPool>>> {
    Ok(match threads {
        0 | 1 => None,
        n => Some(Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n - 1)
                .thread_name(|i| format!("paimon-write-{i}"))
                .build()
                .map_err(|e| Error::Internal(format!("starting {n} write threads: {e}")))?,
        )),
    })
}

/// Rows handed to the encoding threads at a time: each hand-over wakes them and waits for the
/// slowest, so it should carry a few milliseconds of work.
const DISPATCH_ROWS: usize = 64 * 1024;

/// A Parquet file open for writing. Batches are encoded column by column into the open row
/// group (by the format's threads when it has them), which is written out at the row count
/// limit of the properties, as the parquet crate's `ArrowWriter` does.
pub struct ParquetFile {
    path: String,
    writer: SerializedFileWriter<Sink>,
    /// The Arrow column writers of each row group (of the columns not written as INT96).
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// With INT96 columns: their buffers, and which leaves the Arrow writers encode.
    int96: Option<Int96Layout>,
    /// The open row group's column writers, once a batch was encoded into it.
    open: Option<Vec<ArrowColumnWriter>>,
    /// Rows of the open row group, encoded or pending.
    group_rows: usize,
    /// Batches of the open row group not encoded yet: with encoding threads, batches are
    /// handed to them [`DISPATCH_ROWS`] rows at a time.
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    max_rows: Option<usize>,
    groups: ColumnGroups,
    out: Sink,
    rows: u64,
}

impl std::fmt::Debug for ParquetFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetFile")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .field("groups", &self.groups)
            .finish_non_exhaustive()
    }
}

impl ParquetFile {
    /// Starts a file at `path` on `out`.
    ///
    /// # Errors
    /// [`Error::Parquet`] when the encoder rejects the schema.
    pub fn try_new(
        table: &str,
        path: &str,
        out: Box<dyn FileWriter>,
        schema: SchemaRef,
        format: &ParquetFormat,
    ) -> Result<Self> {
        let pq = |source| Error::Parquet {
            table: table.to_string(),
            path: path.to_string(),
            source,
        };
        let out = Sink::new(out);
        let max_rows = format.props.max_row_group_row_count();
        let (writer, factory, int96) = if has_int96(&schema) {
            // Java's layout with INT96 columns: the file is set up from the Parquet schema,
            // without an Arrow schema in the footer (Java writes none either). The Arrow
            // column writers of the other columns come from a factory of their schema alone,
            // set up on a writer that writes nowhere.
            let props = Arc::new(format.props.clone());
            let (layout, root, arrow, others) = Int96Layout::new(&schema).map_err(pq)?;
            let shadow =
                SerializedFileWriter::new(std::io::sink(), others.root_schema_ptr(), props.clone())
                    .map_err(pq)?;
            let factory = ArrowRowGroupWriterFactory::new(&shadow, arrow);
            let writer = SerializedFileWriter::new(out.clone(), root, props).map_err(pq)?;
            (writer, factory, Some(layout))
        } else {
            // The arrow writer sets the file up (Parquet schema, the Arrow schema in the
            // footer's metadata); the row groups are then encoded here, column by column.
            let (writer, factory) =
                ArrowWriter::try_new(out.clone(), schema.clone(), Some(format.props.clone()))
                    .and_then(ArrowWriter::into_serialized_writer)
                    .map_err(pq)?;
            (writer, factory, None)
        };
        Ok(ParquetFile {
            path: path.to_string(),
            writer,
            factory,
            schema,
            int96,
            open: None,
            group_rows: 0,
            pending: Vec::new(),
            pending_rows: 0,
            max_rows,
            groups: ColumnGroups::new(format.pool.clone()),
            out,
            rows: 0,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Bytes written plus bytes buffered for the open row group (Java
    /// `ParquetWriter.getDataSize`), what rolling compares to `target-file-size`. Rows not
    /// handed to the encoding threads yet (at most 64K rows) count at the average
    /// encoded size of the file's rows so far (the file's first write is encoded at once).
    pub fn data_size(&self) -> u64 {
        let open: usize = self.open.as_ref().map_or(0, |columns| {
            columns
                .iter()
                .map(ArrowColumnWriter::get_estimated_total_bytes)
                .sum()
        });
        let int96 = self.int96.as_ref().map_or(0, Int96Layout::buffered);
        let encoded = (self.writer.bytes_written() + open + int96) as u64;
        if self.pending_rows == 0 {
            return encoded;
        }
        let pending = self.pending_rows as u64;
        let encoded_rows = self.rows.saturating_sub(pending);
        let per_row = encoded.checked_div(encoded_rows).unwrap_or(0);
        encoded.saturating_add(per_row.saturating_mul(pending))
    }

    /// Appends a batch.
    ///
    /// # Errors
    /// [`Error::Parquet`] when encoding or the storage fails.
    pub fn write(&mut self, table: &str, batch: &RecordBatch) -> Result<()> {
        let mut rest = batch.clone();
        while rest.num_rows() > 0 {
            let buffered = self.group_rows;
            let room = self
                .max_rows
                .map_or(usize::MAX, |max| max.saturating_sub(buffered).max(1));
            let n = rest.num_rows().min(room);
            let head = rest.slice(0, n);
            rest = rest.slice(n, rest.num_rows() - n);
            self.group_rows += n;
            self.pending_rows += n;
            self.pending.push(head);
            // The file's first rows are encoded at once: their size is the average the
            // pending rows are estimated at (`data_size`).
            let first = self.rows == 0 && self.pending_rows == n;
            if first || !self.groups.is_parallel() || self.pending_rows >= DISPATCH_ROWS {
                self.encode_pending()
                    .map_err(|source| self.error(table, source))?;
            }
            if self.max_rows.is_some_and(|max| buffered + n >= max) {
                self.flush_row_group()
                    .map_err(|source| self.error(table, source))?;
            }
        }
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    fn error(&self, table: &str, source: ParquetError) -> Error {
        Error::Parquet {
            table: table.to_string(),
            path: self.path.clone(),
            source,
        }
    }

    /// Encodes the pending batches into the open row group (opening one first).
    fn encode_pending(&mut self) -> std::result::Result<(), ParquetError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let columns = match &mut self.open {
            Some(columns) => columns,
            open => open.insert(
                self.factory
                    .create_column_writers(self.writer.flushed_row_groups().len())?,
            ),
        };
        let mut leaves = Vec::with_capacity(self.pending.len());
        for batch in self.pending.drain(..) {
            let one = match &mut self.int96 {
                Some(layout) => layout.split(&batch)?,
                None => {
                    let mut one = Vec::with_capacity(columns.len());
                    let fields = self.schema.fields().iter().zip(batch.columns());
                    for (field, column) in fields {
                        one.extend(compute_leaves(field, column)?);
                    }
                    one
                }
            };
            if one.len() != columns.len() {
                return Err(ParquetError::General(format!(
                    "{} leaf columns for {} column writers",
                    one.len(),
                    columns.len()
                )));
            }
            leaves.push(one);
        }
        self.pending_rows = 0;
        self.groups.write(columns, &leaves)
    }

    /// Closes the open row group's columns and appends them to the file, in schema order.
    fn flush_row_group(&mut self) -> std::result::Result<(), ParquetError> {
        self.encode_pending()?;
        self.group_rows = 0;
        let Some(columns) = self.open.take() else {
            return Ok(());
        };
        let chunks = self.groups.close(columns)?;
        let mut group = self.writer.next_row_group()?;
        match &mut self.int96 {
            None => {
                for chunk in chunks {
                    chunk.append_to_row_group(&mut group)?;
                }
            }
            Some(layout) => layout.write_row_group(chunks, &mut group)?,
        }
        group.close()?;
        Ok(())
    }

    /// Writes the footer and closes the file; the statistics of `fields` (the file's row) are
    /// read back from the footer with each field's mode.
    ///
    /// # Errors
    /// [`Error::Parquet`] or [`Error::Io`] when the storage fails; the file is then removed
    /// where possible and must be treated as not written.
    pub fn finish(
        mut self,
        table: &str,
        fields: &[DataField],
        modes: &[StatsMode],
    ) -> Result<FinishedFile> {
        let path = self.path.clone();
        let pq = |source| Error::Parquet {
            table: table.to_string(),
            path: path.clone(),
            source,
        };
        let metadata = match self.flush_row_group().and_then(|()| self.writer.finish()) {
            Ok(m) => m,
            Err(e) => {
                self.abort();
                return Err(pq(e));
            }
        };
        let out = self
            .out
            .take()
            .ok_or_else(|| Error::Internal(format!("stream of {path} already taken")))?;
        let size = close_stream(out, table, &path)?;
        Ok(FinishedFile {
            size,
            rows: self.rows,
            stats: parquet_field_stats(&metadata, fields, modes),
        })
    }

    /// Abandons the file; what was written is removed where the storage allows.
    pub fn abort(self) {
        if let Some(out) = self.out.take() {
            let _ = out.abort();
        }
    }
}
