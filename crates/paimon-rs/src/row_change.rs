//! Row-level `DELETE` and `UPDATE` of an append table (Java's Spark
//! `DeleteFromPaimonTableCommand` / `UpdatePaimonTableCommand` on a table without primary key),
//! in ONE commit of the latest snapshot's files:
//!
//! ```text
//! each live file ──read as stored──▶ rows not yet deleted ──change()──▶ touched rows (+ new rows)
//!   deletion-vectors.enabled:  touched positions marked in the bucket's vectors, which are
//!                              written as one new index file retiring the bucket's old ones;
//!                              new rows appended as new files
//!   otherwise (copy-on-write): a file holding a touched row is deleted, its other rows and the
//!                              new rows written as new files
//! ```
//!
//! The committer makes the snapshot an OVERWRITE, as Java's does for written changes that
//! delete files or change deletion vectors (an APPEND when the statement only adds rows). A
//! statement that touches and adds no row commits nothing.
//! Data-evolution and row-tracking tables are refused: their rewritten rows would lose their
//! row ids.

use std::collections::HashMap;

use arrow_array::{Array, BooleanArray, RecordBatch};
use paimon_data::SplitReader;
use paimon_meta::commit::{fresh_commit_user, BATCH_COMMIT_IDENTIFIER};
use paimon_meta::scan::LiveFile;
use paimon_spec::stats::serialize_datums;
use paimon_split::commit::CommitMessage;
use paimon_split::DataSplit;
use paimon_write::dv_index::BucketVectors;
use paimon_write::TableWrite;

use crate::error::{Error, Result};
use crate::table::available_cores;
use crate::table_writer::open_writer;

/// A serialized partition and a bucket.
type BucketKey = (Vec<u8>, i32);

/// What a statement does to one batch of a file's rows (those not deleted yet).
#[derive(Debug)]
pub struct Touched {
    /// Per row: whether the statement deletes or updates it (NULL: it does not).
    pub rows: BooleanArray,
    /// The new values of touched rows (an update's; the table's columns), at most one per
    /// touched row; `None` for a delete.
    pub new_rows: Option<RecordBatch>,
}

/// Decides the [`Touched`] rows of each batch; an `Err` names what went wrong and stops the
/// statement (nothing is committed).
pub type RowChange<'a> = dyn FnMut(&RecordBatch) -> std::result::Result<Touched, String> + 'a;

/// What [`change_append_rows`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowChangeReport {
    /// Rows deleted or updated, and rows added.
    pub rows: u64,
    /// Data files deleted (copy-on-write).
    pub files_deleted: usize,
    /// The snapshot committed; empty when nothing was touched.
    pub snapshots: Vec<i64>,
}

/// Deletes or updates the rows of append table `table` that `change` touches (module docs),
/// and writes the rows `added` (a `MERGE INTO`'s inserts) in the same commit.
///
/// # Errors
/// A primary-key, data-evolution or row-tracking table; a copy-on-write table whose files
/// carry deletion vectors; `change`'s errors; read, write and commit errors. Nothing is
/// committed then and the files written are deleted.
pub fn change_append_rows(
    table: &paimon_meta::Table,
    change: &mut RowChange<'_>,
    added: &[RecordBatch],
) -> Result<RowChangeReport> {
    let path = table.path();
    let refuse = |why: &str| Error::invalid("row-level change", format!("{path}: {why}"));
    let opts = table.options();
    if table.is_primary_key_table() {
        return Err(refuse("the table has a primary key"));
    }
    if opts.data_evolution_enabled || opts.row_tracking_enabled {
        return Err(refuse(
            "data-evolution and row-tracking tables are not supported (the rewritten rows would lose their row ids)",
        ));
    }
    let snapshot = table.snapshot_manager().latest()?;
    if snapshot.is_none() && added.iter().all(|b| b.num_rows() == 0) {
        return Ok(RowChangeReport::default());
    }
    let dv_mode = opts.deletion_vectors_enabled;
    let (live, index) = match &snapshot {
        Some(snapshot) => (
            table.live_files(Some(table.scan().with_snapshot(snapshot.id)))?,
            if dv_mode {
                table.deletion_vector_index(snapshot)?
            } else {
                HashMap::new()
            },
        ),
        None => (Vec::new(), HashMap::new()),
    };
    let types = table.partition_types();
    let mut buckets: Vec<(BucketKey, Vec<LiveFile>)> = Vec::new();
    for f in live {
        if !dv_mode && f.deletion_file.is_some() {
            return Err(refuse(&format!(
                "data file {} has a deletion vector but deletion-vectors.enabled is not set",
                f.file.file_name
            )));
        }
        let partition = serialize_datums(&f.partition, &types)?;
        let key = (partition, f.bucket);
        match buckets.iter_mut().find(|(k, _)| *k == key) {
            Some((_, files)) => files.push(f),
            None => buckets.push((key, vec![f])),
        }
    }
    let mut scan = crate::Table::from_meta(table.clone()).scan();
    if let Some(snapshot) = &snapshot {
        scan = scan.with_snapshot(snapshot.id);
    }
    let reader = scan.split_reader()?;
    let mut writer = open_writer(table, false, false, available_cores())?;
    let mut state = State {
        table,
        dv_mode,
        reader: &reader,
        writer: &mut writer,
        change,
        messages: Vec::new(),
        report: RowChangeReport::default(),
    };
    let run = (|| {
        for ((partition, bucket), files) in &buckets {
            let no_index = Vec::new();
            let index_files = index
                .get(&(partition.clone(), *bucket))
                .unwrap_or(&no_index);
            state.bucket(partition, *bucket, files, index_files)?;
        }
        for b in added.iter().filter(|b| b.num_rows() > 0) {
            state.writer.write_conformed(b, None)?;
            state.report.rows += b.num_rows() as u64;
        }
        let written = state.writer.prepare_commit()?;
        state.messages.extend(written);
        Ok::<(), Error>(())
    })();
    let State {
        messages,
        mut report,
        ..
    } = state;
    // The vectors were read from `snapshot`: a commit that changed a bucket's vectors since
    // then makes ours a conflict, never a silent replacement of its marks.
    let commit = table
        .new_commit(&fresh_commit_user("paimon-rs-row-change"))
        .with_vectors_from(snapshot.as_ref().map(|s| s.id));
    if let Err(e) = run {
        writer.abort();
        let _ = commit.abort(&messages);
        return Err(e);
    }
    if report.rows == 0 {
        let _ = commit.abort(&messages);
        return Ok(report);
    }
    match commit.commit(BATCH_COMMIT_IDENTIFIER, &messages) {
        Ok(ids) => report.snapshots = ids,
        Err(e) => {
            // A snapshot that may have landed references the files: keep them.
            if !e.keeps_commit_files() {
                let _ = commit.abort(&messages);
            }
            return Err(e.into());
        }
    }
    Ok(report)
}

/// One statement's progress.
struct State<'a, 'c> {
    table: &'a paimon_meta::Table,
    dv_mode: bool,
    reader: &'a SplitReader,
    writer: &'a mut TableWrite,
    change: &'a mut RowChange<'c>,
    /// Messages deleting files or replacing index files (written files come last).
    messages: Vec<CommitMessage>,
    report: RowChangeReport,
}

impl State<'_, '_> {
    /// The files of one bucket, with the bucket's deletion-vector index files.
    fn bucket(
        &mut self,
        partition: &[u8],
        bucket: i32,
        files: &[LiveFile],
        index_files: &[paimon_meta::manifest::IndexFileMeta],
    ) -> Result<()> {
        let path = self.table.path();
        let rows_of = |name: &str| {
            files
                .iter()
                .find(|f| f.file.file_name == name)
                .map(|f| u64::try_from(f.file.row_count).unwrap_or(0))
        };
        let mut vectors = if self.dv_mode {
            BucketVectors::restore(
                self.table.file_io(),
                &self.table.roots(),
                path,
                index_files,
                &rows_of,
            )?
        } else {
            BucketVectors::default()
        };
        let mut message = CommitMessage::new(partition.to_vec(), bucket);
        message.total_buckets = files.first().map(|f| f.total_buckets);
        for f in files {
            let marked = self.file(f, partition, bucket, vectors.of(&f.file.file_name))?;
            if self.dv_mode {
                for pos in marked {
                    vectors.delete(&f.file.file_name, pos);
                }
            } else if !marked.is_empty() {
                message.data_increment.deleted_files.push(f.file.clone());
                self.report.files_deleted += 1;
            }
        }
        if vectors.is_modified() {
            let bitmap64 = self.table.options().deletion_vectors_bitmap64;
            if let Some(meta) = vectors.write(self.table.file_io(), path, path, bitmap64)? {
                message.data_increment.new_index_files.push(meta);
            }
            message.data_increment.deleted_index_files = index_files.to_vec();
        }
        if !message.data_increment.is_empty() {
            self.messages.push(message);
        }
        Ok(())
    }

    /// Reads one file and hands its rows to the change: the positions it touched. An update's
    /// new rows, and (copy-on-write) the untouched rows of a touched file, go to the writer.
    fn file(
        &mut self,
        f: &LiveFile,
        partition: &[u8],
        bucket: i32,
        deleted: Option<&paimon_data::deletion_vector::DeletionVector>,
    ) -> Result<Vec<u64>> {
        let path = self.table.path();
        let split = DataSplit {
            snapshot_id: 0,
            partition: partition.to_vec(),
            bucket,
            bucket_path: f.bucket_path.clone(),
            total_buckets: Some(f.total_buckets),
            before_files: Vec::new(),
            before_deletion_files: None,
            data_files: vec![f.file.clone()],
            data_deletion_files: None,
            is_streaming: false,
            raw_convertible: true,
        };
        let mut touched: Vec<u64> = Vec::new();
        let mut kept: Vec<RecordBatch> = Vec::new();
        let mut pos: u64 = 0;
        for batch in self.reader.read(path, &split)? {
            let batch = batch?;
            let n = batch.num_rows();
            let start = pos;
            pos += n as u64;
            let positions: Vec<u64> = (start..pos)
                .filter(|p| !deleted.is_some_and(|d| d.is_deleted(*p)))
                .collect();
            let rows = if positions.len() == n {
                batch
            } else {
                let live: BooleanArray = (start..pos)
                    .map(|p| Some(!deleted.is_some_and(|d| d.is_deleted(p))))
                    .collect();
                arrow_select::filter::filter_record_batch(&batch, &live)
                    .map_err(|e| Error::invalid("row-level change", format!("{path}: {e}")))?
            };
            let t = (self.change)(&rows).map_err(|why| {
                Error::invalid(
                    "row-level change",
                    format!("{path}, file {}: {why}", f.file.file_name),
                )
            })?;
            if t.rows.len() != rows.num_rows() {
                return Err(Error::invalid(
                    "row-level change",
                    format!(
                        "{path}: the change answered {} rows for a batch of {}",
                        t.rows.len(),
                        rows.num_rows()
                    ),
                ));
            }
            let hit: Vec<usize> = (0..t.rows.len())
                .filter(|i| t.rows.is_valid(*i) && t.rows.value(*i))
                .collect();
            if let Some(new) = &t.new_rows {
                if new.num_rows() > hit.len() {
                    return Err(Error::invalid(
                        "row-level change",
                        format!(
                            "{path}: the change gave {} new rows for {} touched rows",
                            new.num_rows(),
                            hit.len()
                        ),
                    ));
                }
                if new.num_rows() > 0 {
                    self.writer.write_conformed(new, None)?;
                }
            }
            touched.extend(hit.iter().map(|i| positions[*i]));
            self.report.rows += hit.len() as u64;
            if !self.dv_mode {
                let keep: BooleanArray = (0..t.rows.len())
                    .map(|i| Some(!(t.rows.is_valid(i) && t.rows.value(i))))
                    .collect();
                let k = arrow_select::filter::filter_record_batch(&rows, &keep)
                    .map_err(|e| Error::invalid("row-level change", format!("{path}: {e}")))?;
                if k.num_rows() > 0 {
                    kept.push(k);
                }
            }
        }
        if !touched.is_empty() {
            for k in &kept {
                self.writer.write_conformed(k, None)?;
            }
        }
        Ok(touched)
    }
}
