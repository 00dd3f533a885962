//! One Parquet data file being written (Java `ParquetWriterFactory` / `ParquetBulkWriter`).
//!
//! The Parquet schema is the one Java writes for the same row type: each column carries its
//! Paimon field id (nested ROW fields too), strings are `BINARY (STRING)`, TINYINT/SMALLINT are
//! `INT32 (INT(8|16))`, decimals are `INT32`/`INT64`/`FIXED_LEN_BYTE_ARRAY` by precision,
//! timestamps up to precision 6 `INT64 TIMESTAMP(MILLIS|MICROS)` (adjusted to UTC for the local
//! zone variant). Chunk statistics are kept whole (no truncation) because the file's value
//! stats are read back from them, as Java does.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, SchemaRef};
use paimon_data::arrow_schema::to_arrow_type;
use paimon_io::FileWriter;
use paimon_spec::types::{DataField, DataType, TypeKind};
use parquet::arrow::{ArrowWriter, PARQUET_FIELD_ID_META_KEY};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use crate::data_file::{close_stream, FinishedFile};
use crate::error::{Error, Result};
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
/// [`Error::Unsupported`] for a type whose Parquet form the writer cannot produce as Java
/// does yet (TIMESTAMP(7..9), which Java writes as INT96).
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
        TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision }
            if *precision > 6 =>
        {
            unsupported("Java stores precision 7..9 as INT96")
        }
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

/// A Parquet file open for writing.
#[derive(Debug)]
pub struct ParquetFile {
    path: String,
    writer: ArrowWriter<Sink>,
    out: Sink,
    rows: u64,
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
        props: WriterProperties,
    ) -> Result<Self> {
        let out = Sink::new(out);
        let writer = ArrowWriter::try_new(out.clone(), schema, Some(props)).map_err(|source| {
            Error::Parquet {
                table: table.to_string(),
                path: path.to_string(),
                source,
            }
        })?;
        Ok(ParquetFile {
            path: path.to_string(),
            writer,
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
    /// `ParquetWriter.getDataSize`), what rolling compares to `target-file-size`.
    pub fn data_size(&self) -> u64 {
        (self.writer.bytes_written() + self.writer.in_progress_size()) as u64
    }

    /// Appends a batch.
    ///
    /// # Errors
    /// [`Error::Parquet`] when encoding or the storage fails.
    pub fn write(&mut self, table: &str, batch: &RecordBatch) -> Result<()> {
        self.writer.write(batch).map_err(|source| Error::Parquet {
            table: table.to_string(),
            path: self.path.clone(),
            source,
        })?;
        self.rows += batch.num_rows() as u64;
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
        let metadata = match self.writer.finish() {
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
