//! Writing rows: [`WriteBuilder`] (write + commit + the lookup compaction Java's writers run,
//! in one call) and [`BatchWrite`] (a worker's writer that only prepares commit messages).

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use paimon_meta::commit::{PartitionSpec, BATCH_COMMIT_IDENTIFIER};
use paimon_split::commit::CommitMessage;
use paimon_write::TableWrite;

use crate::compaction::CompactReport;
use crate::error::{Error, Result};
use crate::table::available_cores;
use crate::table_writer::{compact_written, compacts_after_write, open_writer};

/// What [`WriteBuilder::with_overwrite`] replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overwrite {
    /// As Java's batch write with `withOverwrite()`: on a partitioned table with
    /// `dynamic-partition-overwrite` (the default) the partitions written, else the whole
    /// table.
    AsConfigured,
    /// The partitions matching these `column = value` pairs (a prefix of the partition
    /// columns).
    Partition(Vec<(String, String)>),
}

/// What a write did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Rows written.
    pub rows: usize,
    /// Data files written.
    pub files: usize,
    /// Snapshots the write committed (none when there was nothing to commit).
    pub snapshots: Vec<i64>,
    /// The lookup compaction that followed, on tables Java's writers compact
    /// ([`crate::table_writer::compacts_after_write`]).
    pub compaction: Option<CompactReport>,
}

impl WriteReport {
    /// Every snapshot made: the write's, then the compaction's.
    pub fn all_snapshots(&self) -> Vec<i64> {
        let mut ids = self.snapshots.clone();
        if let Some(c) = &self.compaction {
            ids.extend(&c.snapshots);
        }
        ids
    }
}

/// `table.write()`: how to write; end with [`WriteBuilder::batches`] (or
/// [`WriteBuilder::begin`] to feed batches one by one).
#[derive(Debug, Clone)]
pub struct WriteBuilder {
    table: paimon_meta::Table,
    overwrite: Option<Overwrite>,
    row_kind_column: Option<String>,
    threads: Option<usize>,
    commit_user: Option<String>,
}

impl WriteBuilder {
    pub(crate) fn new(table: paimon_meta::Table) -> Self {
        WriteBuilder {
            table,
            overwrite: None,
            row_kind_column: None,
            threads: None,
            commit_user: None,
        }
    }

    /// Replaces data instead of appending.
    pub fn with_overwrite(mut self, what: Overwrite) -> Self {
        self.overwrite = Some(what);
        self
    }

    /// A column holding each row's kind (`+I`, `-U`, `+U`, `-D`); not a table column.
    pub fn with_row_kind_column(mut self, name: impl Into<String>) -> Self {
        self.row_kind_column = Some(name.into());
        self
    }

    /// Threads encoding the columns of Parquet files (default: the available cores).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// The commit user (default: a fresh one per write).
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = Some(user.into());
        self
    }

    /// Opens the writer: batches go in with [`PendingWrite::write`], and
    /// [`PendingWrite::commit`] commits them. Everything the commit needs (the overwrite's
    /// partition) is checked before a file is written.
    ///
    /// # Errors
    /// A partition that does not name the partition columns; a table the writers cannot
    /// write; metadata read errors.
    pub fn begin(self) -> Result<PendingWrite> {
        let spec = match &self.overwrite {
            Some(Overwrite::Partition(pairs)) => Some(self.table.partition_spec(pairs)?),
            _ => None,
        };
        let compact_after = compacts_after_write(&self.table);
        let threads = self.threads.unwrap_or_else(available_cores);
        let writer = open_writer(
            &self.table,
            self.overwrite.is_some(),
            compact_after,
            threads,
        )?;
        // A key written into an overwritten partition may be held by another one, which the
        // overwrite does not touch: the table would hold it twice. Only a whole-table
        // overwrite (`dynamic-partition-overwrite = false`) starts from an empty index.
        let partial = match &self.overwrite {
            Some(Overwrite::Partition(_)) => true,
            Some(Overwrite::AsConfigured) => self.table.options().dynamic_partition_overwrite,
            None => false,
        };
        if partial && writer.is_cross_partition() {
            return Err(paimon_write::Error::Unsupported {
                feature: format!(
                    "table {}: overwriting partitions of a cross-partition upsert table (their \
                     keys may be held by other partitions; overwrite the whole table with \
                     dynamic-partition-overwrite = false)",
                    self.table.path()
                ),
            }
            .into());
        }
        let user = self
            .commit_user
            .unwrap_or_else(|| paimon_meta::commit::fresh_commit_user("paimon-rs-write"));
        let writer = writer.with_commit_user(&user)?;
        Ok(PendingWrite {
            table: self.table,
            writer,
            overwrite: self.overwrite.is_some(),
            spec,
            compact_after,
            row_kind_column: self.row_kind_column,
            user,
            rows: 0,
        })
    }

    /// Writes `batches` (columns matched by name and cast to the table's types), commits them
    /// in one snapshot and, on tables Java's writers compact, runs the lookup compaction of
    /// the buckets written. On a write error nothing is committed and the files written are
    /// deleted.
    ///
    /// # Errors
    /// A batch that does not fit the table; storage and commit errors;
    /// [`Error::CompactAfterWrite`] when the write committed but its compaction failed.
    pub fn batches(self, batches: impl IntoIterator<Item = RecordBatch>) -> Result<WriteReport> {
        let mut w = self.begin()?;
        for b in batches {
            if let Err(e) = w.write(&b) {
                w.abort();
                return Err(e);
            }
        }
        w.commit()
    }
}

/// A write in progress ([`WriteBuilder::begin`]): feed batches, then commit or abort.
#[derive(Debug)]
pub struct PendingWrite {
    table: paimon_meta::Table,
    writer: TableWrite,
    overwrite: bool,
    spec: Option<PartitionSpec>,
    compact_after: bool,
    row_kind_column: Option<String>,
    user: String,
    rows: usize,
}

impl PendingWrite {
    /// The Arrow schema of the table's columns (batches may hold them in any order and
    /// castable types).
    pub fn input_schema(&self) -> &SchemaRef {
        self.writer.input_schema()
    }

    /// Writes one batch.
    ///
    /// # Errors
    /// A batch that does not fit the table (nothing of it is written); storage and encoder
    /// errors (then [`PendingWrite::abort`]).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.writer
            .write_conformed(batch, self.row_kind_column.as_deref())?;
        self.rows += batch.num_rows();
        Ok(())
    }

    /// Deletes the files written; nothing is committed.
    pub fn abort(mut self) {
        self.writer.abort();
    }

    /// Commits what was written (then the lookup compaction, where Java's writers compact).
    /// When preparing or committing fails the files written are deleted.
    ///
    /// # Errors
    /// Storage and commit errors; [`Error::CompactAfterWrite`] when the write committed but
    /// its compaction failed.
    pub fn commit(mut self) -> Result<WriteReport> {
        let messages = match self.writer.prepare_commit() {
            Ok(m) => m,
            Err(e) => {
                self.writer.abort();
                return Err(e.into());
            }
        };
        let files = messages
            .iter()
            .map(|m| m.data_increment.new_files.len())
            .sum();
        let commit = self.table.new_commit(&self.user);
        let ids = match self.overwrite {
            true => {
                commit.overwrite_as_configured(BATCH_COMMIT_IDENTIFIER, self.spec.take(), &messages)
            }
            false => commit.commit(BATCH_COMMIT_IDENTIFIER, &messages),
        };
        let ids = match ids {
            Ok(ids) => ids,
            Err(e) => {
                // A snapshot that may have landed references the files: keep them.
                if !e.keeps_commit_files() {
                    let _ = commit.abort(&messages);
                }
                return Err(e.into());
            }
        };
        let mut report = WriteReport {
            rows: self.rows,
            files,
            snapshots: ids,
            compaction: None,
        };
        if self.compact_after && !report.snapshots.is_empty() {
            let user = format!("{}-compact", self.user);
            match compact_written(&self.table, &messages, &user) {
                Ok(c) => report.compaction = Some(c),
                Err(e) => {
                    return Err(Error::CompactAfterWrite {
                        snapshots: report.snapshots,
                        source: Box::new(e),
                    })
                }
            }
        }
        Ok(report)
    }
}

/// A worker's writer ([`crate::Table::new_write`]): writes batches into data files and
/// prepares commit messages; commits nothing. A primary-key table's writer continues the
/// committed sequence numbers and hash index, so its rows win over those committed.
#[derive(Debug)]
pub struct BatchWrite {
    writer: TableWrite,
}

impl BatchWrite {
    pub(crate) fn open(table: &paimon_meta::Table) -> Result<BatchWrite> {
        Ok(BatchWrite {
            writer: open_writer(table, false, false, available_cores())?,
        })
    }

    /// The Arrow schema batches must have.
    pub fn input_schema(&self) -> &SchemaRef {
        self.writer.input_schema()
    }

    /// Writes one batch (columns matched by name and cast to the table's types).
    ///
    /// # Errors
    /// A batch that does not fit the table (nothing of it is written); storage and encoder
    /// errors (then [`BatchWrite::abort`]).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<&mut Self> {
        self.writer.write_conformed(batch, None)?;
        Ok(self)
    }

    /// Flushes every file and returns the commit messages (one per partition and bucket
    /// written), for [`crate::TableCommit::commit`] here or elsewhere
    /// (`paimon_split::commit::encode_commit_message` turns them into Java's bytes).
    ///
    /// # Errors
    /// Storage and encoder errors.
    pub fn prepare_commit(&mut self) -> Result<Vec<CommitMessage>> {
        Ok(self.writer.prepare_commit()?)
    }

    /// Deletes every file written; nothing is committed.
    pub fn abort(&mut self) {
        self.writer.abort();
    }

    /// The data plane's writer, for what the facade does not wrap (row kinds per row).
    pub fn inner(&mut self) -> &mut TableWrite {
        &mut self.writer
    }
}
