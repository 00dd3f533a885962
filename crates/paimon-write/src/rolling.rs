//! The data files of one partition and bucket, rolled at `target-file-size` (Java
//! `RollingFileWriterImpl` over `RowDataFileWriter`).
//!
//! Java checks the size every 1,000 records (`CHECK_ROLLING_RECORD_CNT`) and closes the file
//! once it holds at least the target; a file here rolls at the same record counts, so after
//! the same number of rows as in Java for the same data size estimate. Batches are cut at
//! those counts only as the file nears the target (see `rows_to_write`).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use paimon_io::FileIORef;
use paimon_spec::binary::Datum;
use paimon_spec::data_file::{DataFileMeta, FILE_SOURCE_APPEND};
use paimon_spec::stats::{empty_row_bytes, serialize_datums, SimpleStats};
use paimon_spec::types::DataField;

use crate::arrow_datum::datum_at;
use crate::data_file::{DataFile, FileFormat};
use crate::error::{Error, Result};
use crate::paths::DataFilePathFactory;
use crate::stats::StatsMode;

/// Records between two size checks (Java `RollingFileWriter.CHECK_ROLLING_RECORD_CNT`).
pub const CHECK_ROLLING_RECORD_CNT: u64 = 1000;

/// How many of `remaining` rows to hand a file of `rows` rows and `size` bytes at once: up to
/// its next size check, or further while the file at its average row size stays below half
/// the room left to `target`, so that a size check it skips could not have rolled it even
/// with rows twice its average (the encoders take whole batches much faster than slices of
/// 1,000 rows).
pub(crate) fn rows_to_write(rows: u64, size: u64, target: u64, remaining: usize) -> usize {
    let to_check = CHECK_ROLLING_RECORD_CNT - rows % CHECK_ROLLING_RECORD_CNT;
    let mut take = to_check;
    if rows > 0 && size < target {
        let per_row = size.div_ceil(rows).max(1);
        let safe = (target - size) / per_row / 2;
        if safe >= remaining as u64 {
            return remaining;
        }
        if safe > to_check {
            take =
                to_check + (safe - to_check) / CHECK_ROLLING_RECORD_CNT * CHECK_ROLLING_RECORD_CNT;
        }
    }
    usize::try_from(take).map_or(remaining, |t| t.min(remaining))
}

/// What every file of a table is written with.
#[derive(Debug, Clone)]
pub struct FileContext {
    /// Table location, for errors.
    pub table: String,
    /// Storage.
    pub file_io: FileIORef,
    /// Physical row of the files.
    pub fields: Vec<DataField>,
    /// The Arrow schema batches are written with.
    pub arrow_schema: SchemaRef,
    /// The table's `file.format`, as its files are encoded.
    pub format: FileFormat,
    /// Stats mode of each field.
    pub stats_modes: Vec<StatsMode>,
    /// `metadata.stats-dense-store`.
    pub stats_dense: bool,
    /// `target-file-size`.
    pub target_file_size: u64,
    /// Schema id written into each `DataFileMeta`.
    pub schema_id: i64,
    /// Append rows, or primary-key records with this many leading key columns.
    pub kind: FileKind,
}

/// The row layout of the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// The table's rows; sequence numbers are counted per row (Java `RowDataFileWriter`).
    Append,
    /// `_KEY_*` (this many), `_SEQUENCE_NUMBER`, `_VALUE_KIND`, values; sequence numbers, keys
    /// and deletes are taken from the records (Java `KeyValueDataFileWriter`).
    KeyValue {
        /// Number of key columns.
        keys: usize,
    },
    /// The table's rows, then `_ROW_ID` and `_SEQUENCE_NUMBER` as they were read: a
    /// compaction of a row-tracked table (Java's compactors write with
    /// `SpecialFields.rowTypeWithRowTracking`). A file whose row ids run on without a gap
    /// gets the first as `_FIRST_ROW_ID`; any other lists every column in `_WRITE_COLS`.
    RowTracked,
}

/// The row ids a row-tracked file has seen: its first, the next one expected, and whether
/// every row so far had the one expected.
#[derive(Debug, Default)]
struct RowIdTracker {
    first: Option<i64>,
    next: i64,
    consecutive: bool,
}

impl RowIdTracker {
    fn track(&mut self, table: &str, ids: &ArrayRef) -> Result<()> {
        let ids = ids
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| Error::SchemaMismatch {
                table: table.to_string(),
                reason: format!("_ROW_ID is {}, not BIGINT", ids.data_type()),
            })?;
        for (i, id) in ids.iter().enumerate() {
            let Some(id) = id else {
                return Err(Error::SchemaMismatch {
                    table: table.to_string(),
                    reason: format!("row {i} of a row-tracked batch has no _ROW_ID"),
                });
            };
            match self.first {
                None => {
                    self.first = Some(id);
                    self.consecutive = true;
                }
                Some(_) => self.consecutive &= id == self.next,
            }
            self.next = id.saturating_add(1);
        }
        Ok(())
    }

    /// The file's `_FIRST_ROW_ID`: its first row id when none is missing after it.
    fn first_row_id(&self) -> Option<i64> {
        self.first.filter(|_| self.consecutive)
    }
}

/// What a primary-key file has seen of its records.
#[derive(Debug, Default)]
struct KeyTracker {
    min_key: Option<Vec<Datum>>,
    max_key: Option<Vec<Datum>>,
    min_seq: i64,
    max_seq: i64,
    deletes: i64,
}

/// Shared file context.
pub type FileContextRef = Arc<FileContext>;

/// Writes the data files of one bucket of one partition.
#[derive(Debug)]
pub struct RollingWriter {
    ctx: FileContextRef,
    paths: DataFilePathFactory,
    current: Option<DataFile>,
    /// Next sequence number (Java `LongCounter seqNumCounter`).
    next_sequence: i64,
    current_min_sequence: i64,
    keys: KeyTracker,
    row_ids: RowIdTracker,
    done: Vec<DataFileMeta>,
    /// LSM level of the files written (0 for new data).
    level: i32,
    /// `_FILE_SOURCE` of the files written.
    file_source: i8,
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
            keys: KeyTracker::default(),
            row_ids: RowIdTracker::default(),
            done: Vec::new(),
            level: 0,
            file_source: FILE_SOURCE_APPEND,
        }
    }

    /// Files go to this LSM level (a compaction's output level); default 0.
    pub fn with_level(mut self, level: i32) -> Self {
        self.level = level;
        self
    }

    /// Files are marked with this `_FILE_SOURCE` (Java `FileSource`: `FILE_SOURCE_COMPACT`
    /// for compaction results); default `FILE_SOURCE_APPEND`.
    pub fn with_file_source(mut self, file_source: i8) -> Self {
        self.file_source = file_source;
        self
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
            let take = rows_to_write(
                file.rows(),
                file.data_size(),
                self.ctx.target_file_size,
                batch.num_rows() - offset,
            );
            let slice = batch.slice(offset, take);
            if let Err(e) = file.write(&self.ctx.table, &slice) {
                self.abort_current();
                return Err(e);
            }
            match self.ctx.kind {
                FileKind::KeyValue { keys } => {
                    track_records(&mut self.keys, &self.ctx.fields[..keys], &slice, keys)?;
                }
                FileKind::RowTracked => {
                    let at = slice.num_columns().checked_sub(2).ok_or_else(|| {
                        Error::Internal("a row-tracked batch without _ROW_ID".into())
                    })?;
                    self.row_ids.track(&self.ctx.table, slice.column(at))?;
                }
                FileKind::Append => {}
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

    /// Closes the open file, if any (the end of a primary-key flush).
    ///
    /// # Errors
    /// Storage and encoder failures while closing.
    pub fn end_file(&mut self) -> Result<()> {
        self.close_current()
    }

    /// The largest sequence number handed out so far.
    pub fn max_sequence_number(&self) -> i64 {
        self.next_sequence - 1
    }

    /// Abandons the open file and deletes the closed ones not yet handed out.
    pub fn abort(&mut self) {
        self.abort_current();
        for f in self.done.drain(..) {
            let path = match &f.external_path {
                Some(p) => p.clone(),
                None => self.paths.path_of(&f.file_name),
            };
            let _ = self.ctx.file_io.delete(&path);
        }
    }

    fn open(&mut self) -> Result<()> {
        let path = self.paths.new_path();
        let out = self.ctx.file_io.create(&path).map_err(|source| Error::Io {
            table: self.ctx.table.clone(),
            path: path.clone(),
            source,
        })?;
        let file = DataFile::open(
            &self.ctx.format,
            &self.ctx.table,
            &path,
            out,
            self.ctx.arrow_schema.clone(),
        )?;
        self.current = Some(file);
        self.current_min_sequence = self.next_sequence;
        self.row_ids = RowIdTracker::default();
        self.keys = KeyTracker {
            min_seq: i64::MAX,
            max_seq: i64::MIN,
            ..KeyTracker::default()
        };
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
        let finished = file.finish(&self.ctx.table, &self.ctx.fields, &self.ctx.stats_modes)?;
        let table = self.ctx.table.clone();
        let file_io = self.ctx.file_io.clone();
        let encode = |source| {
            let _ = file_io.delete(&path);
            Error::Encode {
                table: table.clone(),
                source,
            }
        };
        let stats = finished.stats;
        let rows = i64::try_from(finished.rows).unwrap_or(i64::MAX);
        let mut meta = DataFileMeta {
            file_name: paimon_io::file_name(&path).to_string(),
            file_size: i64::try_from(finished.size).unwrap_or(i64::MAX),
            row_count: rows,
            min_key: empty_row_bytes(),
            max_key: empty_row_bytes(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::empty(),
            min_sequence_number: self.current_min_sequence,
            max_sequence_number: self.current_min_sequence + rows - 1,
            schema_id: self.ctx.schema_id,
            level: self.level,
            extra_files: Vec::new(),
            creation_time: Some(local_now_millis()),
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: Some(self.file_source),
            value_stats_cols: None,
            external_path: self.paths.is_external().then(|| path.clone()),
            first_row_id: None,
            write_cols: None,
            write_cols_sequences: None,
        };
        match self.ctx.kind {
            FileKind::Append => {
                let (value_stats, cols) =
                    SimpleStats::from_col_stats(&self.ctx.fields, &stats, self.ctx.stats_dense)
                        .map_err(encode)?;
                meta.value_stats = value_stats;
                meta.value_stats_cols = cols;
            }
            FileKind::RowTracked => {
                // Row ids that run on are told by `_FIRST_ROW_ID`, and the file is described
                // as the table's (no `_WRITE_COLS`, the stats of the table's columns), which
                // every reader takes (paimon-rust 0.4 refuses `_WRITE_COLS` naming `_ROW_ID`).
                // Otherwise, as Java's compaction writes it: `_WRITE_COLS` names every column,
                // with stats for each, and readers take the ids from the file.
                meta.first_row_id = self.row_ids.first_row_id();
                let described = if meta.first_row_id.is_some() {
                    self.ctx.fields.len().saturating_sub(2)
                } else {
                    meta.write_cols =
                        Some(self.ctx.fields.iter().map(|f| f.name.clone()).collect());
                    self.ctx.fields.len()
                };
                let (value_stats, cols) = SimpleStats::from_col_stats(
                    &self.ctx.fields[..described],
                    &stats[..described.min(stats.len())],
                    self.ctx.stats_dense,
                )
                .map_err(encode)?;
                meta.value_stats = value_stats;
                meta.value_stats_cols = cols;
            }
            FileKind::KeyValue { keys } => {
                let key_fields = &self.ctx.fields[..keys];
                let value_fields = &self.ctx.fields[keys + 2..];
                // Java keeps all key stats (`toBinaryAllMode`) and the value stats as configured.
                let (key_stats, _) = SimpleStats::from_col_stats(key_fields, &stats[..keys], false)
                    .map_err(encode)?;
                let (value_stats, cols) = SimpleStats::from_col_stats(
                    value_fields,
                    &stats[keys + 2..],
                    self.ctx.stats_dense,
                )
                .map_err(encode)?;
                let key_types: Vec<_> = key_fields.iter().map(|f| f.data_type.clone()).collect();
                let serialize = |k: &Option<Vec<Datum>>| {
                    serialize_datums(k.as_deref().unwrap_or_default(), &key_types)
                };
                meta.min_key = serialize(&self.keys.min_key).map_err(encode)?.into();
                meta.max_key = serialize(&self.keys.max_key).map_err(encode)?.into();
                meta.key_stats = key_stats;
                meta.value_stats = value_stats;
                meta.value_stats_cols = cols;
                meta.min_sequence_number = self.keys.min_seq;
                meta.max_sequence_number = self.keys.max_seq;
                meta.delete_row_count = Some(self.keys.deletes);
            }
        }
        self.done.push(meta);
        Ok(())
    }
}

/// Records the keys, sequence numbers and retractions of a slice of primary-key records
/// (sorted by key, so the first row of a file is its min key and the last its max key).
fn track_records(
    t: &mut KeyTracker,
    key_fields: &[DataField],
    slice: &RecordBatch,
    keys: usize,
) -> Result<()> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, Int8Type};
    if slice.num_rows() == 0 {
        return Ok(());
    }
    let key_at = |row: usize| -> Result<Vec<Datum>> {
        key_fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                datum_at(slice.column(i), row, &f.data_type)
                    .ok_or_else(|| Error::Internal(format!("key column {} not a key type", f.name)))
            })
            .collect()
    };
    if t.min_key.is_none() {
        t.min_key = Some(key_at(0)?);
    }
    t.max_key = Some(key_at(slice.num_rows() - 1)?);
    let seq = slice
        .column(keys)
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| Error::Internal("_SEQUENCE_NUMBER is not Int64".into()))?;
    for v in seq.values() {
        t.min_seq = t.min_seq.min(*v);
        t.max_seq = t.max_seq.max(*v);
    }
    let kinds = slice
        .column(keys + 1)
        .as_primitive_opt::<Int8Type>()
        .ok_or_else(|| Error::Internal("_VALUE_KIND is not Int8".into()))?;
    // -U and -D are retractions (Java `RowKind.isRetract`).
    t.deletes += kinds.values().iter().filter(|k| matches!(k, 1 | 3)).count() as i64;
    Ok(())
}

/// Java `Timestamp.fromLocalDateTime(LocalDateTime.now())`: wall-clock millis of the local
/// zone, as `DataFileMeta.creationTime` holds them.
fn local_now_millis() -> i64 {
    chrono::Local::now()
        .naive_local()
        .and_utc()
        .timestamp_millis()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array};

    use super::{rows_to_write, RowIdTracker};

    fn ids(v: &[Option<i64>]) -> ArrayRef {
        Arc::new(v.iter().copied().collect::<Int64Array>())
    }

    #[test]
    fn a_file_has_a_first_row_id_only_while_its_row_ids_run_on() {
        let mut t = RowIdTracker::default();
        assert_eq!(t.first_row_id(), None);
        t.track("t", &ids(&[Some(2), Some(3)])).unwrap();
        t.track("t", &ids(&[Some(4)])).unwrap();
        assert_eq!(t.first_row_id(), Some(2));
        // A gap (the rows a deletion vector dropped): no first row id.
        t.track("t", &ids(&[Some(6)])).unwrap();
        assert_eq!(t.first_row_id(), None);
        // A row without an id is refused, never written as one.
        let err = RowIdTracker::default()
            .track("t", &ids(&[Some(0), None]))
            .unwrap_err();
        assert!(err.to_string().contains("row 1"), "{err}");
    }

    #[test]
    fn whole_batches_far_from_the_target_then_the_size_checks() {
        // A new file: up to the first check.
        assert_eq!(rows_to_write(0, 0, 1 << 20, 8192), 1000);
        assert_eq!(rows_to_write(0, 0, 1 << 20, 300), 300);
        // 1 byte a row, a megabyte to go: the whole batch.
        assert_eq!(rows_to_write(1000, 1000, 1 << 20, 8192), 8192);
        // 19,000 bytes to go at 1 byte a row: half of them (9,500 rows), cut at the check
        // of row 10,000 (9,250 from row 1,500: to row 10,000 again).
        assert_eq!(rows_to_write(1000, 1000, 20_000, 50_000), 9000);
        assert_eq!(rows_to_write(1500, 1500, 20_000, 50_000), 8500);
        // Near or past the target: to the next check only.
        assert_eq!(rows_to_write(9000, 18_000, 20_000, 50_000), 1000);
        assert_eq!(rows_to_write(2500, 5000, 4000, 8192), 500);
    }
}
