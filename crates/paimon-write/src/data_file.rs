//! The data file formats the writers produce (the table's `file.format`), behind the one
//! interface [`crate::rolling`] needs: open, write slices, size so far, finish with statistics.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use paimon_io::FileWriter;
use paimon_spec::stats::ColStats;
use paimon_spec::types::DataField;
use parquet::schema::types::ColumnPath;

use crate::avro_file::{AvroFile, AvroFormat};
use crate::error::{Error, Result};
use crate::orc_file::{OrcFile, OrcFormat};
use crate::parquet_file::{
    batch_arrow_schema, parquet_arrow_schema, writer_properties, ParquetFile, ParquetFormat,
};
use crate::stats::StatsMode;
use crate::text_file::{TextFile, TextFormat};

/// A finished data file.
#[derive(Debug)]
pub struct FinishedFile {
    /// Size in bytes.
    pub size: u64,
    /// Rows written.
    pub rows: u64,
    /// Statistics of each field of the file's row, converted by its stats mode.
    pub stats: Vec<ColStats>,
}

/// Closes a finished file's storage stream; its size in bytes.
///
/// # Errors
/// [`Error::Io`] naming `path` when the storage fails.
pub(crate) fn close_stream(out: Box<dyn FileWriter>, table: &str, path: &str) -> Result<u64> {
    out.close().map_err(|source| Error::Io {
        table: table.to_string(),
        path: path.to_string(),
        source,
    })
}

/// How the files of one table are encoded.
#[derive(Debug, Clone)]
pub enum FileFormat {
    /// Parquet with these properties and encoding threads.
    Parquet(Box<ParquetFormat>),
    /// Avro object container files.
    Avro(AvroFormat),
    /// ORC files.
    Orc(OrcFormat),
    /// CSV or JSON-lines files (format tables only).
    Text(TextFormat),
}

impl FileFormat {
    /// The format for `file.format` / `file.compression` of files of `fields`, and the Arrow
    /// schema their batches are written with (Paimon types as the readers map them, each
    /// field tagged with its id).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a format or a column type the writers cannot produce as
    /// Java does; [`Error::InvalidOption`] for a codec the format does not have.
    pub fn try_new(
        table: &str,
        format: &str,
        compression: &str,
        zstd_level: i32,
        target_file_size: u64,
        fields: &[DataField],
    ) -> Result<(Self, SchemaRef)> {
        // Batches have one layout whatever the format (conforming, buffering and compaction
        // build them alike); the Avro encoder converts them as its schema needs.
        match format.to_ascii_lowercase().as_str() {
            "parquet" => {
                let schema = parquet_arrow_schema(table, fields)?;
                Ok((
                    FileFormat::Parquet(Box::new(ParquetFormat::new(writer_properties(
                        compression,
                        zstd_level,
                    )?))),
                    schema,
                ))
            }
            "avro" => {
                let avro = AvroFormat::try_new(table, fields, compression)?;
                let schema = batch_arrow_schema(fields);
                let avro = avro.for_batches(&schema);
                Ok((FileFormat::Avro(avro), schema))
            }
            "orc" => {
                let schema = batch_arrow_schema(fields);
                let orc =
                    OrcFormat::try_new(table, fields, compression, zstd_level, target_file_size)?;
                Ok((FileFormat::Orc(orc), schema))
            }
            other => Err(Error::Unsupported {
                feature: format!("table {table}: writing {other} data files"),
            }),
        }
    }
}

impl FileFormat {
    /// The format with `columns` known to hold a distinct value in every row of a file (the
    /// key and sequence number of a primary-key file): Parquet then writes them without a
    /// dictionary, which for distinct values only costs (a dictionary page holding every value
    /// plus the indices, built and then given up at its size limit). Other formats are
    /// unchanged.
    pub fn with_distinct_columns(self, columns: &[String]) -> Self {
        match self {
            FileFormat::Parquet(p) if !columns.is_empty() => {
                let props = columns.iter().fold(p.props.clone().into_builder(), |b, c| {
                    b.set_column_dictionary_enabled(ColumnPath::from(c.as_str()), false)
                });
                FileFormat::Parquet(Box::new(ParquetFormat {
                    props: props.build(),
                    pool: p.pool,
                }))
            }
            other => other,
        }
    }
}

/// One data file open for writing.
#[derive(Debug)]
pub enum DataFile {
    /// A Parquet file.
    Parquet(ParquetFile),
    /// An Avro file.
    Avro(AvroFile),
    /// An ORC file.
    Orc(OrcFile),
    /// A CSV or JSON-lines file.
    Text(TextFile),
}

impl DataFile {
    /// Starts a file at `path` on `out`, its batches of `schema`.
    ///
    /// # Errors
    /// The encoder's errors on the schema or the first bytes.
    pub fn open(
        format: &FileFormat,
        table: &str,
        path: &str,
        out: Box<dyn FileWriter>,
        schema: SchemaRef,
    ) -> Result<Self> {
        Ok(match format {
            FileFormat::Parquet(format) => {
                DataFile::Parquet(ParquetFile::try_new(table, path, out, schema, format)?)
            }
            FileFormat::Avro(avro) => DataFile::Avro(AvroFile::try_new(table, path, out, avro)?),
            FileFormat::Orc(orc) => DataFile::Orc(OrcFile::try_new(table, path, out, orc)?),
            FileFormat::Text(text) => DataFile::Text(TextFile::new(path, out, text)),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        match self {
            DataFile::Parquet(f) => f.path(),
            DataFile::Avro(f) => f.path(),
            DataFile::Orc(f) => f.path(),
            DataFile::Text(f) => f.path(),
        }
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        match self {
            DataFile::Parquet(f) => f.rows(),
            DataFile::Avro(f) => f.rows(),
            DataFile::Orc(f) => f.rows(),
            DataFile::Text(f) => f.rows(),
        }
    }

    /// What rolling compares to `target-file-size`.
    pub fn data_size(&self) -> u64 {
        match self {
            DataFile::Parquet(f) => f.data_size(),
            DataFile::Avro(f) => f.data_size(),
            DataFile::Orc(f) => f.data_size(),
            DataFile::Text(f) => f.data_size(),
        }
    }

    /// What a format table's rolling compares to `target-file-size` (Java's
    /// `FormatWriter.reachTargetSize`): ORC counts a fifth of its open stripe as Java's
    /// `OrcBulkWriter` does, the others [`DataFile::data_size`].
    pub fn estimated_length(&self) -> u64 {
        match self {
            DataFile::Orc(f) => f.estimated_length(),
            other => other.data_size(),
        }
    }

    /// Appends a batch.
    ///
    /// # Errors
    /// Encoder and storage errors.
    pub fn write(&mut self, table: &str, batch: &RecordBatch) -> Result<()> {
        match self {
            DataFile::Parquet(f) => f.write(table, batch),
            DataFile::Avro(f) => f.write(table, batch),
            DataFile::Orc(f) => f.write(table, batch),
            DataFile::Text(f) => f.write(table, batch),
        }
    }

    /// Finishes and closes the file, with the statistics of `fields` by `modes`.
    ///
    /// # Errors
    /// Encoder and storage errors; the file must then be treated as not written.
    pub fn finish(
        self,
        table: &str,
        fields: &[DataField],
        modes: &[StatsMode],
    ) -> Result<FinishedFile> {
        match self {
            DataFile::Parquet(f) => f.finish(table, fields, modes),
            DataFile::Avro(f) => f.finish(table, fields, modes),
            DataFile::Orc(f) => f.finish(table, fields, modes),
            DataFile::Text(f) => f.finish(table),
        }
    }

    /// Abandons the file.
    pub fn abort(self) {
        match self {
            DataFile::Parquet(f) => f.abort(),
            DataFile::Avro(f) => f.abort(),
            DataFile::Orc(f) => f.abort(),
            DataFile::Text(f) => f.abort(),
        }
    }
}
