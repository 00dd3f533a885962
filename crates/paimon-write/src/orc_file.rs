//! One ORC data file being written, through orc-rust's Arrow writer.
//!
//! That writer encodes flat rows of primitive columns only, so this is the subset written here:
//! BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, CHAR/VARCHAR/STRING (as ORC `string`,
//! which Java reads into its CHAR/VARCHAR columns), BINARY/VARBINARY and DATE. DECIMAL, TIME,
//! timestamps (orc-rust 0.9 cannot encode instants just before 1970, e.g. -1 ms) and nested
//! columns are refused when the writer is built, so no file is started that could not be
//! finished. orc-rust writes no column
//! statistics, so they are collected row by row ([`crate::stats::StatsCollector`]), giving the
//! values Java's `OrcSimpleStatsExtractor` reads back from its own footers.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema, SchemaRef};
use orc_rust::compression::CompressionType;
use orc_rust::{ArrowWriter, ArrowWriterBuilder};
use paimon_io::FileWriter;
use paimon_spec::types::{DataField, TypeKind};

use crate::data_file::{close_stream, FinishedFile};
use crate::error::{Error, Result};
use crate::sink::Sink;
use crate::stats::{StatsCollector, StatsMode};

/// What every ORC file of one table is written with.
#[derive(Debug, Clone)]
pub struct OrcFormat {
    compression: Option<CompressionType>,
    /// The writer's Arrow schema (names and types only).
    schema: SchemaRef,
    fields: Vec<DataField>,
    stripe_size: usize,
}

impl OrcFormat {
    /// The format of files of `fields` whose batches have `arrow_schema`, for
    /// `file.compression`; stripes are closed at a quarter of `target_file_size` (1..64 MiB) so
    /// that rolling, which sees only the stripes written, overshoots the target by little.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a column type the writer cannot encode;
    /// [`Error::InvalidOption`] for a codec ORC does not have here.
    pub fn try_new(
        table: &str,
        fields: &[DataField],
        arrow_schema: &SchemaRef,
        compression: &str,
        target_file_size: u64,
    ) -> Result<Self> {
        for f in fields {
            let ok = matches!(
                f.data_type.kind,
                TypeKind::Boolean
                    | TypeKind::TinyInt
                    | TypeKind::SmallInt
                    | TypeKind::Int
                    | TypeKind::BigInt
                    | TypeKind::Float
                    | TypeKind::Double
                    | TypeKind::Char { .. }
                    | TypeKind::VarChar { .. }
                    | TypeKind::Binary { .. }
                    | TypeKind::VarBinary { .. }
                    | TypeKind::Date
                    | TypeKind::Timestamp { .. }
                    | TypeKind::LocalZonedTimestamp { .. }
            );
            if !ok {
                return Err(Error::Unsupported {
                    feature: format!(
                        "table {table}: writing column {} of type {} to ORC (the ORC writer \
                         encodes flat primitive columns without decimals or times)",
                        f.name, f.data_type
                    ),
                });
            }
        }
        let compression = match compression.to_ascii_lowercase().as_str() {
            "zstd" => Some(CompressionType::Zstd),
            "snappy" => Some(CompressionType::Snappy),
            "zlib" | "deflate" => Some(CompressionType::Zlib),
            "lz4" => Some(CompressionType::Lz4),
            "none" | "uncompressed" => None,
            _ => {
                return Err(Error::InvalidOption {
                    key: "file.compression".into(),
                    value: compression.to_string(),
                    reason: "not an ORC codec the writer has (zstd, snappy, zlib, lz4, none)"
                        .into(),
                })
            }
        };
        let plain: Vec<Field> = arrow_schema
            .fields()
            .iter()
            .map(|f| Field::new(f.name(), f.data_type().clone(), f.is_nullable()))
            .collect();
        let stripe_size = usize::try_from(target_file_size / 4)
            .unwrap_or(usize::MAX)
            .clamp(1 << 20, 64 << 20);
        Ok(OrcFormat {
            compression,
            schema: Arc::new(Schema::new(plain)),
            fields: fields.to_vec(),
            stripe_size,
        })
    }
}

/// What the encoder thread of an [`OrcFile`] is told.
enum Command {
    Write(RecordBatch),
    Close,
}

/// An ORC file open for writing. orc-rust's writer is not `Send` (its column encoders are
/// boxed without the bound), so it lives on a thread of its own for the file's lifetime and
/// gets the batches over a bounded channel; a [`crate::TableWrite`] stays `Send`. An encoder
/// error comes back from the next call.
pub struct OrcFile {
    path: String,
    commands: Option<std::sync::mpsc::SyncSender<Command>>,
    encoder: Option<std::thread::JoinHandle<std::result::Result<(), String>>>,
    out: Sink,
    schema: SchemaRef,
    stats: StatsCollector,
    rows: u64,
}

impl std::fmt::Debug for OrcFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrcFile")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl OrcFile {
    /// Starts a file at `path` on `out`.
    ///
    /// # Errors
    /// [`Error::Orc`] when the encoder thread cannot start.
    pub fn try_new(
        table: &str,
        path: &str,
        out: Box<dyn FileWriter>,
        format: &OrcFormat,
    ) -> Result<Self> {
        let out = Sink::new(out);
        let mut builder = ArrowWriterBuilder::new(out.clone(), format.schema.clone())
            .with_stripe_byte_size(format.stripe_size);
        if let Some(c) = format.compression {
            builder = builder.with_compression(c);
        }
        let (commands, inbox) = std::sync::mpsc::sync_channel::<Command>(2);
        let encoder = std::thread::Builder::new()
            .name("paimon-orc-writer".into())
            .spawn(move || {
                let mut writer: ArrowWriter<Sink> =
                    builder.try_build().map_err(|e| e.to_string())?;
                for command in inbox {
                    match command {
                        Command::Write(batch) => writer.write(&batch).map_err(|e| e.to_string())?,
                        Command::Close => return writer.close().map_err(|e| e.to_string()),
                    }
                }
                Err("the file was abandoned".to_string())
            });
        let encoder = match encoder {
            Ok(h) => h,
            Err(e) => {
                if let Some(o) = out.take() {
                    let _ = o.abort();
                }
                return Err(Error::Orc {
                    table: table.to_string(),
                    path: path.to_string(),
                    reason: format!("starting the encoder thread: {e}"),
                });
            }
        };
        Ok(OrcFile {
            path: path.to_string(),
            commands: Some(commands),
            encoder: Some(encoder),
            out,
            schema: format.schema.clone(),
            stats: StatsCollector::new(&format.fields),
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

    /// Bytes of the stripes written so far (the open stripe is not counted).
    pub fn data_size(&self) -> u64 {
        self.out.position()
    }

    /// Appends a batch (in the file's row).
    ///
    /// # Errors
    /// [`Error::Orc`] when encoding or the storage failed (this batch or an earlier one).
    pub fn write(&mut self, table: &str, batch: &RecordBatch) -> Result<()> {
        let plain = RecordBatch::try_new(self.schema.clone(), batch.columns().to_vec())
            .map_err(|e| Error::Internal(format!("ORC batch of {}: {e}", self.path)))?;
        let sent = self
            .commands
            .as_ref()
            .is_some_and(|c| c.send(Command::Write(plain)).is_ok());
        if !sent {
            return Err(self.encoder_error(table));
        }
        self.stats.collect(batch);
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    /// The encoder thread's error, once it has stopped.
    fn encoder_error(&mut self, table: &str) -> Error {
        self.commands = None;
        let reason = match self.encoder.take().map(|h| h.join()) {
            Some(Ok(Err(reason))) => reason,
            Some(Ok(Ok(()))) => "the encoder stopped early".to_string(),
            Some(Err(_)) => "the encoder thread panicked".to_string(),
            None => "the encoder already stopped".to_string(),
        };
        Error::Orc {
            table: table.to_string(),
            path: self.path.clone(),
            reason,
        }
    }

    /// Writes the last stripe and the footer and closes the file.
    ///
    /// # Errors
    /// [`Error::Orc`] or [`Error::Io`] when the storage fails; the file must then be treated as
    /// not written.
    pub fn finish(
        mut self,
        table: &str,
        _fields: &[DataField],
        modes: &[StatsMode],
    ) -> Result<FinishedFile> {
        let closed = self
            .commands
            .take()
            .is_some_and(|c| c.send(Command::Close).is_ok());
        let joined = self.encoder.take().map(|h| h.join());
        if !closed || !matches!(joined, Some(Ok(Ok(())))) {
            let reason = match joined {
                Some(Ok(Err(reason))) => reason,
                Some(Err(_)) => "the encoder thread panicked".to_string(),
                _ => "the encoder stopped early".to_string(),
            };
            if let Some(o) = self.out.take() {
                let _ = o.abort();
            }
            return Err(Error::Orc {
                table: table.to_string(),
                path: self.path.clone(),
                reason,
            });
        }
        let path = self.path.clone();
        let out = self
            .out
            .take()
            .ok_or_else(|| Error::Internal(format!("stream of {path} already taken")))?;
        let size = close_stream(out, table, &path)?;
        Ok(FinishedFile {
            size,
            rows: self.rows,
            stats: self.stats.finish(modes),
        })
    }

    /// Abandons the file.
    pub fn abort(mut self) {
        self.commands = None;
        if let Some(h) = self.encoder.take() {
            let _ = h.join();
        }
        if let Some(o) = self.out.take() {
            let _ = o.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn writers_stay_send() {
        fn send<T: Send>() {}
        send::<super::OrcFile>();
        send::<crate::TableWrite>();
        send::<crate::TableCompact>();
    }
}
