//! [`Table`]: one Paimon table and every operation on it, each a builder that ends in one
//! call (`scan()...to_arrow()`, `write()...batches()`, `compact()...run()`, ...).

use std::sync::Arc;

use paimon_io::FileIORef;
use paimon_spec::schema::TableSchemaRef;
use paimon_split::commit::CommitMessage;

use crate::compaction::CompactBuilder;
use crate::error::Result;
use crate::maintenance::{ExpirePartitions, ExpireSnapshots, RemoveOrphanFiles};
use crate::scan::TableScan;
use crate::writing::{BatchWrite, WriteBuilder};

/// A Paimon table (on one branch). Cheap to clone.
#[derive(Debug, Clone)]
pub struct Table {
    inner: paimon_meta::Table,
}

impl Table {
    /// Opens the table at `path` on `io`.
    ///
    /// # Errors
    /// No table there (no schema); unreadable or malformed metadata.
    pub fn open(io: FileIORef, path: &str) -> Result<Table> {
        Ok(Table {
            inner: paimon_meta::Table::open(io, trim(path))?,
        })
    }

    /// Opens the table at `location` (a local path or an object-store URL such as
    /// `s3://bucket/wh/db.db/t`, with the storage its scheme names).
    ///
    /// # Errors
    /// An unsupported scheme (a backend this build leaves out); as [`Table::open`].
    pub fn open_path(location: &str) -> Result<Table> {
        let path = trim(location);
        Table::open(paimon_io::file_io_for(path)?, path)
    }

    /// The table of a control-plane handle.
    pub fn from_meta(inner: paimon_meta::Table) -> Table {
        Table { inner }
    }

    /// The control-plane handle (paimon-meta), for what the facade does not wrap.
    pub fn meta(&self) -> &paimon_meta::Table {
        &self.inner
    }

    /// The same table on `branch`.
    ///
    /// # Errors
    /// No such branch.
    pub fn with_branch(&self, branch: &str) -> Result<Table> {
        Ok(Table {
            inner: self.inner.with_branch(branch)?,
        })
    }

    /// The table's location.
    pub fn path(&self) -> &str {
        self.inner.path()
    }

    /// The storage.
    pub fn file_io(&self) -> &FileIORef {
        self.inner.file_io()
    }

    /// The current schema.
    pub fn schema(&self) -> &TableSchemaRef {
        self.inner.schema()
    }

    /// The Arrow schema rows are written with and read as (all columns).
    pub fn arrow_schema(&self) -> arrow_schema::SchemaRef {
        Arc::new(paimon_data::arrow_schema::to_arrow_schema(
            &self.inner.schema().fields,
        ))
    }

    /// Whether the table has a primary key.
    pub fn is_primary_key_table(&self) -> bool {
        self.inner.is_primary_key_table()
    }

    /// The latest snapshot's id (`None` before the first commit).
    ///
    /// # Errors
    /// Unreadable snapshot metadata.
    pub fn latest_snapshot_id(&self) -> Result<Option<i64>> {
        Ok(self.inner.snapshot_manager().latest_id()?)
    }

    /// A scan of the latest snapshot of every row and column; narrow it with its `with_*`
    /// calls, then `plan()`, `to_arrow()` or `to_stream()`.
    pub fn scan(&self) -> TableScan {
        TableScan::new(self.inner.clone())
    }

    /// A write of rows that commits them (and compacts after, where Java's writers do) in
    /// one call: `table.write().batches(batches)?`.
    pub fn write(&self) -> WriteBuilder {
        WriteBuilder::new(self.inner.clone())
    }

    /// A writer that only prepares commit messages (a worker's side of a distributed write);
    /// commit them with [`Table::new_commit`].
    ///
    /// # Errors
    /// A table the writers cannot write; metadata read errors.
    pub fn new_write(&self) -> Result<BatchWrite> {
        BatchWrite::open(&self.inner)
    }

    /// A committer of commit messages as `commit_user` (a user commits each identifier at
    /// most once).
    pub fn new_commit(&self, commit_user: &str) -> TableCommit {
        TableCommit {
            inner: self.inner.new_commit(commit_user),
            table: self.inner.clone(),
        }
    }

    /// A compaction: `table.compact().with_full(true).run()?`.
    pub fn compact(&self) -> CompactBuilder {
        CompactBuilder::new(self.clone())
    }

    /// Snapshot expiry: `table.expire_snapshots().with_retain_max(5).run()?`.
    pub fn expire_snapshots(&self) -> ExpireSnapshots {
        ExpireSnapshots::new(self.inner.clone())
    }

    /// Partition expiry: `table.expire_partitions().with_expiration_time(d).run()?`.
    pub fn expire_partitions(&self) -> ExpirePartitions {
        ExpirePartitions::new(self.inner.clone())
    }

    /// Orphan-file cleanup: `table.remove_orphan_files().with_dry_run(true).run()?`.
    pub fn remove_orphan_files(&self) -> RemoveOrphanFiles {
        RemoveOrphanFiles::new(self.inner.clone())
    }
}

/// Commits commit messages (from [`Table::new_write`], a worker, or compaction tasks) for one
/// commit user.
#[derive(Debug, Clone)]
pub struct TableCommit {
    inner: paimon_meta::commit::TableCommit,
    table: paimon_meta::Table,
}

impl TableCommit {
    /// Commits `messages` as `identifier`: an APPEND snapshot for the files written, then a
    /// COMPACT snapshot for compactions, as Java does. Returns the ids of the snapshots made,
    /// empty when there was nothing to commit or this user already committed `identifier`.
    ///
    /// # Errors
    /// A commit conflict ([`crate::Error::is_commit_conflict`]); a malformed message; storage
    /// errors. Nothing is committed then.
    pub fn commit(&self, identifier: i64, messages: &[CommitMessage]) -> Result<Vec<i64>> {
        Ok(self.inner.commit(identifier, messages)?)
    }

    /// Replaces data with `messages`' files as Java's batch write with `withOverwrite`: with
    /// `partition` (`column = value` pairs) the partitions matching it; without one the
    /// partitions written (`dynamic-partition-overwrite`, the default) or the whole table.
    ///
    /// # Errors
    /// As [`TableCommit::commit`]; a partition that does not name the partition columns.
    pub fn overwrite(
        &self,
        identifier: i64,
        partition: Option<&[(String, String)]>,
        messages: &[CommitMessage],
    ) -> Result<Vec<i64>> {
        let spec = match partition {
            Some(pairs) => Some(self.table.partition_spec(pairs)?),
            None => None,
        };
        Ok(self
            .inner
            .overwrite_as_configured(identifier, spec, messages)?)
    }

    /// Deletes the files `messages` added, for messages that will not be committed; returns
    /// how many files were removed.
    ///
    /// # Errors
    /// Storage errors.
    pub fn abort(&self, messages: &[CommitMessage]) -> Result<usize> {
        Ok(self.inner.abort(messages)?)
    }
}

/// `path` without a trailing slash (`/` stays).
pub(crate) fn trim(path: &str) -> &str {
    match path.trim_end_matches('/') {
        "" if path.starts_with('/') => "/",
        t => t,
    }
}

/// The cores available to the process (at least 1).
pub(crate) fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
