//! The data files of one partition and bucket, rolled at `target-file-size` (Java
//! `RollingFileWriterImpl` over `RowDataFileWriter`).
//!
//! Java checks the size every 1,000 records (`CHECK_ROLLING_RECORD_CNT`) and closes the file
//! once it holds at least the target; batches are cut at the same record counts here, so a file
//! rolls after the same number of rows as in Java for the same data size estimate.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use paimon_io::FileIORef;
use paimon_spec::data_file::{DataFileMeta, FILE_SOURCE_APPEND};
use paimon_spec::stats::{empty_serialized_row, SimpleStats};
use paimon_spec::types::DataField;
use parquet::file::properties::WriterProperties;

use crate::error::{Error, Result};
use crate::parquet_file::ParquetFile;
use crate::paths::DataFilePathFactory;
use crate::stats::{parquet_field_stats, StatsMode};

/// Records between two size checks (Java `RollingFileWriter.CHECK_ROLLING_RECORD_CNT`).
pub const CHECK_ROLLING_RECORD_CNT: u64 = 1000;

/// What every file of a table is written with.
#[derive(Debug)]
pub struct FileContext {
    /// Table location, for errors.
    pub table: String,
    /// Storage.
    pub file_io: FileIORef,
    /// Physical row of the files.
    pub fields: Vec<DataField>,
    /// The Arrow schema batches are written with.
    pub arrow_schema: SchemaRef,
    /// Parquet properties.
    pub props: WriterProperties,
    /// Stats mode of each field.
    pub stats_modes: Vec<StatsMode>,
    /// `metadata.stats-dense-store`.
    pub stats_dense: bool,
    /// `target-file-size`.
    pub target_file_size: u64,
    /// Schema id written into each `DataFileMeta`.
    pub schema_id: i64,
}

/// Shared file context.
pub type FileContextRef = Arc<FileContext>;

/// Writes the data files of one bucket of one partition.
#[derive(Debug)]
pub struct RollingWriter {
    ctx: FileContextRef,
    paths: DataFilePathFactory,
    current: Option<ParquetFile>,
    /// Next sequence number (Java `LongCounter seqNumCounter`).
    next_sequence: i64,
    current_min_sequence: i64,
    done: Vec<DataFileMeta>,
}

impl RollingWriter {
    /// A writer whose first row gets sequence number `restored_max_sequence + 1` (Java
    /// `AppendOnlyWriter`: `new LongCounter(maxSequenceNumber + 1)`).
    pub fn new(
        ctx: FileContextRef,
        paths: DataFilePathFactory,
        restored_max_sequence: i64,
    ) -> Self {
        let next = restored_max_sequence.saturating_add(1);
        RollingWriter {
            ctx,
            paths,
            current: None,
            next_sequence: next,
            current_min_sequence: next,
            done: Vec::new(),
        }
    }

    /// Appends `batch` (already in the file schema), rolling files as they fill.
    ///
    /// # Errors
    /// Storage and encoder failures; the file being written is then abandoned.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            if self.current.is_none() {
                self.open()?;
            }
            let Some(file) = self.current.as_mut() else {
                return Err(Error::Internal("no open file after opening one".into()));
            };
            let to_check = CHECK_ROLLING_RECORD_CNT - file.rows() % CHECK_ROLLING_RECORD_CNT;
            let take = (batch.num_rows() - offset).min(to_check as usize);
            if let Err(e) = file.write(&self.ctx.table, &batch.slice(offset, take)) {
                self.abort_current();
                return Err(e);
            }
            self.next_sequence = self.next_sequence.saturating_add(take as i64);
            offset += take;
            if file.rows() % CHECK_ROLLING_RECORD_CNT == 0
                && file.data_size() >= self.ctx.target_file_size
            {
                self.close_current()?;
            }
        }
        Ok(())
    }

    /// Closes the open file and returns every file written since the last call.
    ///
    /// # Errors
    /// Storage and encoder failures while closing.
    pub fn prepare_commit(&mut self) -> Result<Vec<DataFileMeta>> {
        self.close_current()?;
        Ok(std::mem::take(&mut self.done))
    }

    /// The largest sequence number handed out so far.
    pub fn max_sequence_number(&self) -> i64 {
        self.next_sequence - 1
    }

    /// Abandons the open file and deletes the closed ones not yet handed out.
    pub fn abort(&mut self) {
        self.abort_current();
        for f in self.done.drain(..) {
            let _ = self.ctx.file_io.delete(&self.paths.path_of(&f.file_name));
        }
    }

    fn open(&mut self) -> Result<()> {
        let path = self.paths.new_path();
        let out = self.ctx.file_io.create(&path).map_err(|source| Error::Io {
            table: self.ctx.table.clone(),
            path: path.clone(),
            source,
        })?;
        let file = ParquetFile::try_new(
            &self.ctx.table,
            &path,
            out,
            self.ctx.arrow_schema.clone(),
            self.ctx.props.clone(),
        )?;
        self.current = Some(file);
        self.current_min_sequence = self.next_sequence;
        Ok(())
    }

    fn abort_current(&mut self) {
        if let Some(f) = self.current.take() {
            f.abort();
        }
    }

    fn close_current(&mut self) -> Result<()> {
        let Some(file) = self.current.take() else {
            return Ok(());
        };
        let path = file.path().to_string();
        let finished = file.finish(&self.ctx.table)?;
        let stats =
            parquet_field_stats(&finished.metadata, &self.ctx.fields, &self.ctx.stats_modes);
        let (value_stats, value_stats_cols) =
            SimpleStats::from_col_stats(&self.ctx.fields, &stats, self.ctx.stats_dense).map_err(
                |source| {
                    let _ = self.ctx.file_io.delete(&path);
                    Error::Encode {
                        table: self.ctx.table.clone(),
                        source,
                    }
                },
            )?;
        let rows = i64::try_from(finished.rows).unwrap_or(i64::MAX);
        self.done.push(DataFileMeta {
            file_name: paimon_io::file_name(&path).to_string(),
            file_size: i64::try_from(finished.size).unwrap_or(i64::MAX),
            row_count: rows,
            min_key: empty_serialized_row(),
            max_key: empty_serialized_row(),
            key_stats: SimpleStats::empty(),
            value_stats,
            min_sequence_number: self.current_min_sequence,
            max_sequence_number: self.current_min_sequence + rows - 1,
            schema_id: self.ctx.schema_id,
            level: 0,
            extra_files: Vec::new(),
            creation_time: Some(local_now_millis()),
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: Some(FILE_SOURCE_APPEND),
            value_stats_cols,
            external_path: None,
            first_row_id: None,
            write_cols: None,
            write_cols_sequences: None,
        });
        Ok(())
    }
}

/// Java `Timestamp.fromLocalDateTime(LocalDateTime.now())`: wall-clock millis of the local
/// zone, as `DataFileMeta.creationTime` holds them.
fn local_now_millis() -> i64 {
    chrono::Local::now()
        .naive_local()
        .and_utc()
        .timestamp_millis()
}
