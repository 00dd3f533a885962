//! Committing writers' [`CommitMessage`]s into snapshots (Java `FileStoreCommitImpl`,
//! `RenamingSnapshotCommit`).
//!
//! One commit attempt writes the delta manifests of the changes, a base manifest list (the
//! previous base and delta lists merged as Java's `ManifestFileMerger` does), a delta list,
//! a changelog list and an index manifest when needed, then publishes `snapshot-N` with
//! `publish_if_absent`, so of several committers racing for `N` exactly one wins. A loser
//! deletes what it wrote, re-reads the latest snapshot, re-checks conflicts and tries `N + 1`,
//! up to `commit.max-retries` with Java's backoff. A publish that fails has an unknown outcome:
//! its files are kept and the commit retries. Before any attempt the snapshots of the same
//! `commitUser` are consulted (Java `filterCommitted`): an identifier already committed is not
//! applied again; and every attempt first looks at the snapshots that appeared since the last
//! look, where one of this user, identifier and kind is this commit, landed (see
//! `docs/commit-protocol.md`, "Committing once").

mod alter;
mod batch;
mod conflict;
mod create;
mod index_combine;
mod manifests;
mod metastore_partitions;
mod row_id_check;
mod schema_options;
mod touched;
mod validate;
mod vector_base;
mod write_context;

pub use alter::{ColumnPosition, SchemaChange};
pub use batch::BATCH_COMMIT_IDENTIFIER;
pub use create::create_table_at;
#[cfg(feature = "rest")]
pub(crate) use create::normalized;
pub use validate::{
    check_data_file, check_data_files, check_index_file, check_index_files, check_message_paths,
};

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::data_file::{DataFileMeta, FILE_SOURCE_COMPACT};
use paimon_spec::types::DataType;
use paimon_split::commit::CommitMessage;

use crate::catalog::Published;
use crate::error::{Error, Result};
use crate::manifest::encode::ManifestWriteOptions;
use crate::manifest::{FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta};
use crate::scan::merge_entries;
use crate::snapshot::Snapshot;
use crate::table::Table;
use manifests::ManifestWriter;

/// Java `Snapshot.CommitKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitKind {
    /// New files written.
    Append,
    /// Files rewritten by a compaction.
    Compact,
    /// Live files of some partitions replaced.
    Overwrite,
}

impl CommitKind {
    fn name(self) -> &'static str {
        match self {
            CommitKind::Append => "APPEND",
            CommitKind::Compact => "COMPACT",
            CommitKind::Overwrite => "OVERWRITE",
        }
    }
}

/// How one commit attempt ended.
#[derive(Debug)]
enum Attempt {
    /// The snapshot with this id is the commit's: published by this attempt, or found among
    /// the snapshots since the last look.
    Committed(i64),
    /// Another committer took the id first; this attempt's files were deleted.
    Lost,
    /// Publishing failed and the outcome is unknown; this attempt's files are kept.
    Unknown(Error),
}

/// A partition spec: partition column names and values; a subset of the columns selects every
/// partition with those values (Java's static partition spec).
pub type PartitionSpec = Vec<(String, Datum)>;

/// Which live files an overwrite replaces.
#[derive(Debug, Clone, PartialEq)]
enum OverwriteScope {
    /// Every partition matching one of the specs (an empty spec matches all).
    Static(Vec<PartitionSpec>),
    /// The partitions the new files land in (`dynamic-partition-overwrite`).
    Dynamic,
}

/// Commits for one `commitUser` (Java `TableCommitImpl`); create with [`Table::new_commit`].
#[derive(Debug, Clone)]
pub struct TableCommit {
    table: Table,
    user: String,
    /// Whether Java's partition expiry may follow a commit (not the expiry's own commits).
    partition_expiry: bool,
    /// The snapshot the messages' deletion vectors were read from, when the caller named one
    /// ([`TableCommit::with_vectors_from`]); the inner `None` is an empty table.
    vectors_from: Option<Option<i64>>,
}

impl Table {
    /// A committer writing snapshots as `commit_user`.
    pub fn new_commit(&self, commit_user: &str) -> TableCommit {
        TableCommit {
            table: self.clone(),
            user: commit_user.to_string(),
            partition_expiry: true,
            vectors_from: None,
        }
    }
}

/// The changes of one snapshot.
#[derive(Debug, Default, Clone)]
struct Changes {
    table_files: Vec<ManifestEntry>,
    changelog: Vec<ManifestEntry>,
    new_index: Vec<IndexManifestEntry>,
    deleted_index: Vec<IndexManifestEntry>,
    /// The messages' check-from snapshot ([`row_id_check`]), checked at every attempt.
    check_from: Option<i64>,
}

impl Changes {
    /// Whether the changes delete a data file or add or retire deletion vectors.
    fn removes_rows(&self) -> bool {
        let dv = |e: &IndexManifestEntry| {
            e.index_file.index_type == paimon_spec::index_file::DELETION_VECTORS_INDEX
        };
        self.table_files.iter().any(|e| e.kind == FileKind::Delete)
            || self.new_index.iter().any(dv)
            || self.deleted_index.iter().any(dv)
    }

    fn is_empty(&self) -> bool {
        self.table_files.is_empty()
            && self.changelog.is_empty()
            && self.new_index.is_empty()
            && self.deleted_index.is_empty()
    }
}

impl TableCommit {
    /// Deletes the files `messages` added, for messages that will not be committed (a task
    /// of the same job failed): see [`crate::maintenance::abort_messages`]. Returns how many
    /// files were removed.
    ///
    /// # Errors
    /// Storage errors; a partition the table cannot name a directory for.
    pub fn abort(&self, messages: &[CommitMessage]) -> Result<usize> {
        crate::maintenance::abort_messages(&self.table, messages)
    }

    /// Commits `messages` as `identifier`: an APPEND snapshot for the files written (an
    /// OVERWRITE one when they delete files or change deletion vectors), then a COMPACT
    /// snapshot for compactions, as Java does. Returns the ids of the snapshots made
    /// (or found: made for this user and identifier by an attempt whose publish reported an
    /// error, or by a committer racing with the same user and identifier), empty when there
    /// was nothing to commit or `identifier` was already committed by this user.
    ///
    /// # Errors
    /// [`Error::CommitConflict`] when the changes conflict with the table (a file to delete is
    /// gone, a file to add is already live, key ranges overlap, total buckets changed) or the
    /// retries are used up; [`Error::InvalidCommit`] for a malformed message (a negative or
    /// overflowing row count); storage errors. Nothing is committed then, and the manifests
    /// written are deleted, except after a publish error in the last attempt: its outcome is
    /// unknown, so its files are kept and the error is [`Error::CommitOutcomeUnknown`] (never
    /// abort its messages then).
    pub fn commit(&self, identifier: i64, messages: &[CommitMessage]) -> Result<Vec<i64>> {
        // Read before the check, so that a snapshot of ours landing after the check is
        // found by the attempts (they look at every snapshot after `base`).
        let base = self.table.snapshot_manager().latest_id()?;
        if self.already_committed(identifier)? {
            if self.table.partition_modification().is_some() {
                let (append, compact) = self.collect(messages)?;
                self.add_metastore_partitions(&[&append, &compact], &[])?;
            }
            return Ok(Vec::new());
        }
        let (append, compact) = self.collect(messages)?;
        let mut ids = Vec::new();
        if !append.is_empty() {
            // Java `FileStoreCommitImpl`: written changes that delete files or change deletion
            // vectors (a row-level DELETE / UPDATE of an append table) are an OVERWRITE.
            let kind = if append.removes_rows() {
                CommitKind::Overwrite
            } else {
                CommitKind::Append
            };
            ids.push(self.try_commit(identifier, kind, &append, None, base)?);
        }
        if !compact.is_empty() {
            ids.push(self.try_commit(identifier, CommitKind::Compact, &compact, None, base)?);
        }
        // Java's commit callbacks run before its maintenance (`TableCommitImpl`).
        self.add_metastore_partitions(&[&append, &compact], &ids)?;
        if !ids.is_empty() {
            self.expire_after_commit(identifier);
        }
        Ok(ids)
    }

    /// Java's maintenance after a commit (`TableCommitImpl`), skipped on `write-only` tables:
    /// partition expiry when Java's committer would run it
    /// ([`crate::maintenance::PartitionExpireConfig::after_commit`]), then snapshot expiry
    /// with the table's `snapshot.num-retained.*`, `snapshot.time-retained` and
    /// `snapshot.expire.limit` ([`crate::maintenance::ExpireConfig::from_options`]).
    /// The commit has landed by then, so nothing here may fail it: options an expiry cannot
    /// honour, or a storage error while expiring, leave the rest for the next expiry.
    fn expire_after_commit(&self, identifier: i64) {
        use crate::maintenance::PartitionExpireConfig;
        let options = self.table.options();
        if options.write_only {
            return;
        }
        if self.partition_expiry && PartitionExpireConfig::after_commit(options, identifier) {
            if let Ok(Some(config)) = PartitionExpireConfig::from_options(options) {
                let now = chrono::Local::now().naive_local();
                let _ = self.table.expire_partitions(
                    &config,
                    now,
                    &fresh_commit_user("partition-expire"),
                );
            }
        }
        if let Ok(config) = crate::maintenance::ExpireConfig::from_options(options) {
            let _ = self.table.expire_snapshots(&config);
        }
    }

    /// Replaces the live files of the partitions matching `partition` (every partition when
    /// `None`) with the files of `messages` in one OVERWRITE snapshot (Java `overwrite` with a
    /// static partition).
    ///
    /// # Errors
    /// As [`TableCommit::commit`]; [`Error::InvalidCommit`] when a new file lies outside the
    /// overwritten partitions or the spec names a column that is not a partition column.
    pub fn overwrite(
        &self,
        identifier: i64,
        partition: Option<PartitionSpec>,
        messages: &[CommitMessage],
    ) -> Result<Vec<i64>> {
        let scope = OverwriteScope::Static(vec![partition.unwrap_or_default()]);
        self.overwrite_scope(identifier, scope, messages)
    }

    /// Replaces the live files of exactly the partitions `messages` write to (Java dynamic
    /// partition overwrite). Messages without new files commit nothing, as in Java.
    ///
    /// # Errors
    /// As [`TableCommit::commit`].
    pub fn overwrite_dynamic(
        &self,
        identifier: i64,
        messages: &[CommitMessage],
    ) -> Result<Vec<i64>> {
        self.overwrite_scope(identifier, OverwriteScope::Dynamic, messages)
    }

    /// Deletes every live file (Java `truncateTable`).
    ///
    /// # Errors
    /// As [`TableCommit::commit`].
    pub fn truncate(&self, identifier: i64) -> Result<Vec<i64>> {
        self.overwrite_scope(identifier, OverwriteScope::Static(vec![Vec::new()]), &[])
    }

    /// Deletes the live files of the partitions matching any of `partitions` (Java
    /// `dropPartitions`). A table whose catalog keeps its partitions (the Hive metastore's
    /// under `metastore.partitioned-table`) has them removed there first, as Java's
    /// `HiveCatalog.dropPartitions` does; a spec naming every partition key names one there.
    ///
    /// # Errors
    /// As [`TableCommit::overwrite`]; `InvalidCommit` for an empty list; the catalog's errors
    /// (nothing dropped then).
    pub fn drop_partitions(
        &self,
        identifier: i64,
        partitions: Vec<PartitionSpec>,
    ) -> Result<Vec<i64>> {
        if partitions.is_empty() || partitions.iter().any(Vec::is_empty) {
            return Err(self.invalid("drop partitions needs at least one non-empty partition spec"));
        }
        if let Some(modification) = self.table.partition_modification() {
            let mut named = Vec::new();
            for spec in &partitions {
                if let Some(values) = self.full_partition(spec)? {
                    named.push(self.table.partition_values_text(&values)?);
                }
            }
            if !named.is_empty() {
                modification.drop_partitions(&named)?;
            }
        }
        self.overwrite_scope(identifier, OverwriteScope::Static(partitions), &[])
    }

    /// The values of `spec` in partition-key order when it names every partition key once,
    /// else `None` (a spec of some keys matches several partitions).
    fn full_partition(&self, spec: &PartitionSpec) -> Result<Option<Vec<Datum>>> {
        let keys = &self.table.schema().partition_keys;
        if spec.len() != keys.len() {
            return Ok(None);
        }
        let mut values = Vec::with_capacity(keys.len());
        for k in keys {
            match spec.iter().find(|(name, _)| name == k) {
                Some((_, v)) => values.push(v.clone()),
                None => return Ok(None),
            }
        }
        Ok(Some(values))
    }

    fn overwrite_scope(
        &self,
        identifier: i64,
        scope: OverwriteScope,
        messages: &[CommitMessage],
    ) -> Result<Vec<i64>> {
        let base = self.table.snapshot_manager().latest_id()?;
        if self.already_committed(identifier)? {
            if self.table.partition_modification().is_some() {
                let (append, _) = self.collect(messages)?;
                self.add_metastore_partitions(&[&append], &[])?;
            }
            return Ok(Vec::new());
        }
        let (append, compact) = self.collect(messages)?;
        if !compact.is_empty() {
            return Err(self.invalid("an overwrite cannot carry compaction results"));
        }
        if scope == OverwriteScope::Dynamic && append.table_files.is_empty() {
            // Java: a dynamic overwrite with nothing written deletes nothing and commits no
            // snapshot.
            return Ok(Vec::new());
        }
        let id = self.try_commit(
            identifier,
            CommitKind::Overwrite,
            &append,
            Some(&scope),
            base,
        )?;
        self.add_metastore_partitions(&[&append], &[id])?;
        self.expire_after_commit(identifier);
        Ok(vec![id])
    }

    /// This committer for messages that rewrite buckets' deletion vectors read from snapshot
    /// `base` (`None`: the table had no snapshot). On a table with buckets, every attempt then
    /// fails with [`Error::CommitConflict`] when a bucket whose vectors the commit adds or
    /// retires has other deletion-vector index files than at `base` (another commit added,
    /// replaced or retired them: publishing would drop its marks), or when `base` has expired.
    pub fn with_vectors_from(mut self, base: Option<i64>) -> Self {
        self.vectors_from = Some(base);
        self
    }

    /// The live index entries of snapshot `id` (none for `None`); an expired snapshot is a
    /// conflict (its vectors cannot be compared any more).
    fn index_of(&self, id: Option<i64>) -> Result<Vec<IndexManifestEntry>> {
        let Some(id) = id else {
            return Ok(Vec::new());
        };
        let snapshot = match self.table.snapshot_manager().snapshot(id) {
            Ok(s) => s,
            Err(Error::SnapshotNotFound { .. } | Error::SnapshotExpired { .. }) => {
                return Err(self.conflict(format!(
                    "snapshot {id}, the one the deletion vectors were read from, has expired"
                )))
            }
            Err(e) => return Err(e),
        };
        match &snapshot.index_manifest {
            Some(name) => {
                let path = self.table.layout().manifest_path(name);
                let bytes = self.table.file_io().read(&path).map_err(Error::io)?;
                IndexManifestEntry::decode_index_manifest(&path, bytes)
            }
            None => Ok(Vec::new()),
        }
    }

    fn invalid(&self, reason: impl Into<String>) -> Error {
        Error::InvalidCommit {
            table: self.table.path().to_string(),
            reason: reason.into(),
        }
    }

    fn conflict(&self, reason: impl Into<String>) -> Error {
        Error::CommitConflict {
            table: self.table.path().to_string(),
            reason: reason.into(),
        }
    }

    /// Java `filterCommitted`: whether the newest snapshot of this user already carries
    /// `identifier` or a later one.
    fn already_committed(&self, identifier: i64) -> Result<bool> {
        let sm = self.table.snapshot_manager();
        let (Some(earliest), Some(latest)) = (sm.earliest_id()?, sm.latest_id()?) else {
            return Ok(false);
        };
        for id in (earliest..=latest).rev() {
            let s = match sm.snapshot(id) {
                Ok(s) => s,
                // Expired while we scan: older snapshots are gone too.
                Err(Error::SnapshotNotFound { .. } | Error::SnapshotExpired { .. }) => break,
                Err(e) => return Err(e),
            };
            if s.commit_user == self.user {
                return Ok(s.commit_identifier >= identifier);
            }
        }
        Ok(false)
    }

    /// Java `collectChanges`: the entries of the written files and of the compactions.
    fn collect(&self, messages: &[CommitMessage]) -> Result<(Changes, Changes)> {
        let table_buckets = self.table.options().bucket;
        check_message_paths(&self.table.roots(), messages)
            .map_err(|e| self.invalid(e.to_string()))?;
        let check_from = row_id_check::check_from(messages).map_err(|r| self.invalid(r))?;
        let mut append = Changes {
            check_from,
            ..Changes::default()
        };
        let mut compact = Changes {
            check_from,
            ..Changes::default()
        };
        for m in messages {
            if m.partition.len() < 4 {
                return Err(self.invalid(format!(
                    "commit message for bucket {} has a partition of {} bytes (not a serialized \
                     row)",
                    m.bucket,
                    m.partition.len()
                )));
            }
            let total = m.total_buckets.unwrap_or(table_buckets);
            if table_buckets > 0 && !(0..total).contains(&m.bucket) {
                return Err(self.invalid(format!(
                    "commit message for bucket {} of a table with {total} buckets",
                    m.bucket
                )));
            }
            let entry = |kind, f: &DataFileMeta| ManifestEntry {
                kind,
                partition: m.partition.clone(),
                bucket: m.bucket,
                total_buckets: total,
                file: Box::new(f.clone()),
            };
            let index = |kind, f: &paimon_spec::index_file::IndexFileMeta| IndexManifestEntry {
                kind,
                partition: m.partition.clone(),
                bucket: m.bucket,
                index_file: f.clone(),
            };
            let d = &m.data_increment;
            append
                .table_files
                .extend(d.new_files.iter().map(|f| entry(FileKind::Add, f)));
            append
                .table_files
                .extend(d.deleted_files.iter().map(|f| entry(FileKind::Delete, f)));
            append
                .changelog
                .extend(d.changelog_files.iter().map(|f| entry(FileKind::Add, f)));
            append
                .new_index
                .extend(d.new_index_files.iter().map(|f| index(FileKind::Add, f)));
            append.deleted_index.extend(
                d.deleted_index_files
                    .iter()
                    .map(|f| index(FileKind::Delete, f)),
            );
            let c = &m.compact_increment;
            compact
                .table_files
                .extend(c.compact_before.iter().map(|f| entry(FileKind::Delete, f)));
            compact
                .table_files
                .extend(c.compact_after.iter().map(|f| entry(FileKind::Add, f)));
            compact
                .changelog
                .extend(c.changelog_files.iter().map(|f| entry(FileKind::Add, f)));
            compact
                .new_index
                .extend(c.new_index_files.iter().map(|f| index(FileKind::Add, f)));
            compact.deleted_index.extend(
                c.deleted_index_files
                    .iter()
                    .map(|f| index(FileKind::Delete, f)),
            );
        }
        let files = append.table_files.iter().chain(&append.changelog);
        let files = files.chain(&compact.table_files).chain(&compact.changelog);
        if let Some(e) = files.into_iter().find(|e| e.file.row_count < 0) {
            return Err(self.invalid(format!(
                "file {} (bucket {}) has a negative row count {}",
                e.file.file_name, e.bucket, e.file.row_count
            )));
        }
        // A bucket keeps one hash index file, so a second one for it would silently replace
        // the first and forget its keys: two writers assigned dynamic buckets independently.
        let mut hashed = std::collections::HashSet::new();
        for e in append.new_index.iter().chain(&compact.new_index) {
            if e.index_file.index_type == paimon_spec::index_file::HASH_INDEX
                && !hashed.insert((&e.partition, e.bucket))
            {
                return Err(self.invalid(format!(
                    "two hash index files for bucket {} of one partition: a dynamic-bucket \
                     table takes the messages of one writer per commit",
                    e.bucket
                )));
            }
        }
        Ok((append, compact))
    }

    /// Commits one snapshot, retrying lost races and publishes of unknown outcome (Java
    /// `tryCommit`). `base` is the latest snapshot id before this commit checked whether
    /// `identifier` was already committed: every attempt first looks at the snapshots after
    /// the ones already looked at, and a snapshot of this user, identifier and kind among
    /// them is this commit, landed (by an earlier attempt whose publish reported an error, or
    /// by a committer racing with the same user and identifier).
    fn try_commit(
        &self,
        identifier: i64,
        kind: CommitKind,
        changes: &Changes,
        overwrite: Option<&OverwriteScope>,
        base: Option<i64>,
    ) -> Result<i64> {
        let opts = self.table.options();
        let retries = opts.commit_max_retries.max(0) as u32;
        let started = SystemTime::now();
        let mut checked = base;
        let mut unknown = None;
        for attempt in 0..=retries {
            match self.try_commit_once(identifier, kind, changes, overwrite, &mut checked)? {
                Attempt::Committed(id) => return Ok(id),
                Attempt::Lost => unknown = None,
                Attempt::Unknown(e) => unknown = Some(e),
            }
            let elapsed = started.elapsed().unwrap_or_default().as_millis() as u64;
            if opts.commit_timeout_millis.is_some_and(|t| elapsed > t) {
                break;
            }
            std::thread::sleep(backoff(
                attempt,
                opts.commit_min_retry_wait_millis,
                opts.commit_max_retry_wait_millis,
            ));
        }
        // The last publish may have landed after all.
        if let Some(latest) = self.table.snapshot_manager().latest_id()? {
            if let Some(id) = self.find_landed(identifier, kind, &mut checked, latest)? {
                return Ok(id);
            }
        }
        if let Some(e) = unknown {
            // Its files are kept: the snapshot may still appear (a PUT in flight).
            return Err(Error::CommitOutcomeUnknown {
                table: self.table.path().to_string(),
                source: Box::new(e),
            });
        }
        Err(self.conflict(format!(
            "commit {identifier} of user {} lost the race for the next snapshot {} times",
            self.user,
            retries + 1
        )))
    }

    /// The snapshot of this user, `identifier` and `kind` among those after `checked` up to
    /// `latest` (Java `tryCommitOnce`'s check of the snapshots since the last attempt);
    /// `checked` becomes `latest`. Snapshots expired meanwhile are skipped.
    fn find_landed(
        &self,
        identifier: i64,
        kind: CommitKind,
        checked: &mut Option<i64>,
        latest: i64,
    ) -> Result<Option<i64>> {
        let sm = self.table.snapshot_manager();
        let from = match *checked {
            Some(c) => c.saturating_add(1),
            None => sm.earliest_id()?.unwrap_or(latest),
        };
        for id in from..=latest {
            let s = match sm.snapshot(id) {
                Ok(s) => s,
                Err(Error::SnapshotNotFound { .. } | Error::SnapshotExpired { .. }) => continue,
                Err(e) => return Err(e),
            };
            if s.commit_user == self.user
                && s.commit_identifier == identifier
                && s.commit_kind == kind.name()
            {
                *checked = Some(latest);
                return Ok(Some(id));
            }
        }
        *checked = Some(latest);
        Ok(None)
    }

    /// One attempt, based on the latest snapshot: [`Attempt::Committed`] when this commit is
    /// among the snapshots since `checked` or `snapshot-(latest + 1)` was published now.
    fn try_commit_once(
        &self,
        identifier: i64,
        kind: CommitKind,
        changes: &Changes,
        overwrite: Option<&OverwriteScope>,
        checked: &mut Option<i64>,
    ) -> Result<Attempt> {
        let table = &self.table;
        let opts = table.options();
        let sm = table.snapshot_manager();
        let latest = sm.latest()?;
        // Snapshot ids only grow: a look that finds an older latest snapshot than an earlier look
        // (or none, from a listing that raced a delete) must not make this commit an id the
        // table already used, which would replace history or read as a table of one commit.
        let seen = latest.as_ref().map(|s| s.id);
        if seen < *checked {
            return Err(self.conflict(format!(
                "the latest snapshot went back from {} to {} while committing; not publishing \
                 over ids the table has used",
                checked.unwrap_or_default(),
                seen.map_or_else(|| "none".to_string(), |id| id.to_string())
            )));
        }
        if let Some(l) = &latest {
            if let Some(id) = self.find_landed(identifier, kind, checked, l.id)? {
                return Ok(Attempt::Committed(id));
            }
        }
        let schema = table
            .schema_manager()
            .latest()?
            .ok_or_else(|| Error::NotFound {
                path: sm.layout().schema_dir(),
            })?;
        let partition_fields = schema.partition_fields();
        let partition_types: Vec<DataType> = partition_fields
            .iter()
            .map(|f| f.data_type.clone())
            .collect();
        let key_types: Vec<DataType> = if schema.primary_keys.is_empty() {
            Vec::new()
        } else {
            schema
                .trimmed_primary_key_fields()
                .iter()
                .map(|f| f.data_type.clone())
                .collect()
        };
        let format =
            ManifestWriteOptions::try_new(&opts.manifest_format, &opts.manifest_compression)?;
        let mut w = ManifestWriter::new(
            table.file_io().clone(),
            table.layout().clone(),
            format,
            partition_fields,
            schema.id,
            opts.manifest_target_file_size,
        );
        let result = (|| {
            let (prev_base, prev_delta) = match &latest {
                Some(s) => (
                    self.read_list(&w, &s.base_manifest_list)?,
                    self.read_list(&w, &s.delta_manifest_list)?,
                ),
                None => (Vec::new(), Vec::new()),
            };
            let mut table_files = changes.table_files.clone();
            let mut deleted_index = changes.deleted_index.clone();
            // Every change is checked against the live files (a file added twice makes
            // every later read fail); an overwrite needs all of them, other commits only
            // those of the partitions they change.
            // (Without a snapshot the lists are empty and nothing is read.)
            let needs_live = overwrite.is_some() || !table_files.is_empty();
            let prev_index = match latest.as_ref().and_then(|s| s.index_manifest.clone()) {
                Some(name) => {
                    let path = table.layout().manifest_path(&name);
                    let bytes = table.file_io().read(&path).map_err(Error::io)?;
                    IndexManifestEntry::decode_index_manifest(&path, bytes)?
                }
                None => Vec::new(),
            };
            if needs_live {
                let touched = overwrite
                    .is_none()
                    .then(|| touched::Touched::of(&table_files, &partition_types));
                let mut all = Vec::new();
                for m in prev_base.iter().chain(&prev_delta) {
                    if touched
                        .as_ref()
                        .is_some_and(|t| !t.may_be_in(m, &partition_types))
                    {
                        continue;
                    }
                    all.extend(w.read_manifest(&m.file_name)?);
                }
                let live = merge_entries(all)?;
                if let Some(scope) = overwrite {
                    let matches = self.partition_matcher(scope, &partition_types, &table_files)?;
                    for e in table_files.iter().filter(|e| e.kind == FileKind::Add) {
                        if !matches(&e.partition)? {
                            return Err(self.invalid(format!(
                                "file {} lies outside the partitions being overwritten",
                                e.file.file_name
                            )));
                        }
                    }
                    let mut deletes = Vec::new();
                    for e in &live {
                        if matches(&e.partition)? {
                            let mut d = e.clone();
                            d.kind = FileKind::Delete;
                            deletes.push(d);
                        }
                    }
                    for e in &prev_index {
                        if matches(&e.partition)? {
                            let mut d = e.clone();
                            d.kind = FileKind::Delete;
                            deleted_index.push(d);
                        }
                    }
                    deletes.append(&mut table_files);
                    table_files = deletes;
                }
                conflict::check(&live, &table_files, &key_types, overwrite.is_some())
                    .map_err(|r| self.conflict(r))?;
            }
            if let Some(from) = changes.check_from {
                self.check_from_snapshot(from, kind, latest.as_ref(), &table_files, &w)?;
            }
            // Row tracking: new files get consecutive first row ids (Java
            // `assignRowTrackingMeta`); not a compaction's files, nor files holding their rows'
            // ids themselves, whose rows have ids already.
            let mut next_row_id = latest.as_ref().and_then(|s| s.next_row_id).unwrap_or(0);
            // Row tracking: a new file's rows get the snapshot's id as their sequence number
            // (Java `assignSnapshotId`: a file whose sequence numbers start at 0 is new; 2.x
            // also ends at the snapshot a file whose sequence numbers end at 0).
            if opts.row_tracking_enabled {
                let snapshot_id = latest.as_ref().map_or(1, |s| s.id + 1);
                for e in table_files.iter_mut().filter(|e| e.kind == FileKind::Add) {
                    if e.file.min_sequence_number == 0 {
                        e.file.min_sequence_number = snapshot_id;
                        e.file.max_sequence_number = snapshot_id;
                    } else if e.file.max_sequence_number == 0 {
                        e.file.max_sequence_number = snapshot_id;
                    }
                }
            }
            if opts.row_tracking_enabled && kind != CommitKind::Compact {
                for e in table_files.iter_mut().filter(|e| e.kind == FileKind::Add) {
                    let holds_ids = e.file.file_source == Some(FILE_SOURCE_COMPACT)
                        || e.file.stores_column("_ROW_ID");
                    if e.file.first_row_id.is_none() && !holds_ids {
                        e.file.first_row_id = Some(next_row_id);
                        next_row_id =
                            next_row_id.checked_add(e.file.row_count).ok_or_else(|| {
                                self.invalid(format!(
                                    "the row count {} of file {} takes the next row id past {}",
                                    e.file.row_count,
                                    e.file.file_name,
                                    i64::MAX
                                ))
                            })?;
                    }
                }
            }
            let delta_metas = w.write_manifests(&table_files)?;
            let mut base_input = prev_base;
            base_input.extend(prev_delta);
            let base = w.merge(
                base_input,
                opts.manifest_merge_min_count.max(1) as usize,
                opts.manifest_full_compaction_threshold_size,
            )?;
            let (base_list, base_size) = w.write_list(&base)?;
            let (delta_list, delta_size) = w.write_list(&delta_metas)?;
            let (changelog_list, changelog_size) = if changes.changelog.is_empty() {
                (None, None)
            } else {
                let metas = w.write_manifests(&changes.changelog)?;
                let (n, s) = w.write_list(&metas)?;
                (Some(n), Some(s))
            };
            let unaware_bucket = opts.bucket == -1 && schema.primary_keys.is_empty();
            if let (Some(from), false) = (self.vectors_from, unaware_bucket) {
                let changed: Vec<&IndexManifestEntry> = changes
                    .new_index
                    .iter()
                    .chain(&changes.deleted_index)
                    .collect();
                if !changed.is_empty() {
                    let base = self.index_of(from)?;
                    vector_base::check(&base, &prev_index, &changed)
                        .map_err(|r| self.conflict(r))?;
                }
            }
            // A bucket's vectors are rewritten whole: a change retiring an index file that is
            // no longer live was made against an older state of the bucket, and would lose
            // the marks of the commit that retired it.
            if let Some(gone) = changes.deleted_index.iter().find(|d| {
                !prev_index
                    .iter()
                    .any(|p| p.index_file.file_name == d.index_file.file_name)
            }) {
                return Err(self.conflict(format!(
                    "index file {} (bucket {}) was already replaced by another commit",
                    gone.index_file.file_name, gone.bucket
                )));
            }
            let index_manifest = if changes.new_index.is_empty() && deleted_index.is_empty() {
                latest.as_ref().and_then(|s| s.index_manifest.clone())
            } else {
                let mut index_changes = deleted_index;
                index_changes.extend(changes.new_index.iter().cloned());
                let entries = index_combine::combine(&prev_index, &index_changes, unaware_bucket)
                    .map_err(|r| self.invalid(r))?;
                Some(w.write_index_manifest(&entries)?)
            };
            let rows = |k: FileKind| {
                self.sum_rows(table_files.iter().filter(|e| e.kind == k), "table files")
            };
            let delta_records = rows(FileKind::Add)?
                .checked_sub(rows(FileKind::Delete)?)
                .ok_or_else(|| self.invalid("the row counts of the commit overflow"))?;
            let total_record_count = latest
                .as_ref()
                .and_then(|s| s.total_record_count)
                .unwrap_or(0)
                .checked_add(delta_records)
                .ok_or_else(|| {
                    self.invalid(format!(
                        "the row count {delta_records} of the commit overflows the table's total"
                    ))
                })?;
            let changelog_record_count = if changes.changelog.is_empty() {
                None
            } else {
                Some(self.sum_rows(changes.changelog.iter(), "changelog files")?)
            };
            let id = latest.as_ref().map_or(1, |s| s.id + 1);
            let snapshot = Snapshot {
                version: 3,
                id,
                schema_id: schema.id,
                base_manifest_list: base_list,
                base_manifest_list_size: Some(base_size),
                delta_manifest_list: delta_list,
                delta_manifest_list_size: Some(delta_size),
                changelog_manifest_list: changelog_list,
                changelog_manifest_list_size: changelog_size,
                index_manifest,
                commit_user: self.user.clone(),
                commit_identifier: identifier,
                commit_kind: kind.name().to_string(),
                time_millis: now_millis(),
                total_record_count: Some(total_record_count),
                delta_record_count: Some(delta_records),
                changelog_record_count,
                watermark: latest.as_ref().and_then(|s| s.watermark),
                statistics: latest.as_ref().and_then(|s| s.statistics.clone()),
                properties: None,
                next_row_id: opts.row_tracking_enabled.then_some(next_row_id),
                extra: Default::default(),
            };
            Ok(match table.snapshot_commit().publish(table, &snapshot)? {
                Published::Committed => Attempt::Committed(id),
                Published::Lost => Attempt::Lost,
                Published::Unknown(e) => Attempt::Unknown(e),
            })
        })();
        match result {
            Ok(Attempt::Committed(id)) => Ok(Attempt::Committed(id)),
            Ok(Attempt::Lost) => {
                // `snapshot-id` was taken before this attempt's publish: its files are
                // referenced by no snapshot.
                w.clean_up();
                Ok(Attempt::Lost)
            }
            // The snapshot may have landed and then references these files: keep them (an
            // orphan cleanup removes them if it did not).
            Ok(unknown @ Attempt::Unknown(_)) => Ok(unknown),
            Err(e) => {
                w.clean_up();
                Err(e)
            }
        }
    }

    /// The sum of the row counts of `entries` (`what` names them in the error), which
    /// [`TableCommit::collect`] checked are not negative.
    fn sum_rows<'a>(
        &self,
        mut entries: impl Iterator<Item = &'a ManifestEntry>,
        what: &str,
    ) -> Result<i64> {
        entries.try_fold(0i64, |sum, e| {
            sum.checked_add(e.file.row_count).ok_or_else(|| {
                self.invalid(format!(
                    "the row counts of the {what} overflow (file {} has row count {})",
                    e.file.file_name, e.file.row_count
                ))
            })
        })
    }

    fn read_list(&self, w: &ManifestWriter, name: &str) -> Result<Vec<ManifestFileMeta>> {
        let path = self.table.layout().manifest_path(name);
        let bytes = w.io.read(&path).map_err(Error::io)?;
        ManifestFileMeta::decode_list(&path, bytes)
    }

    /// A predicate over serialized partitions for an overwrite scope.
    fn partition_matcher<'a>(
        &'a self,
        scope: &'a OverwriteScope,
        types: &'a [DataType],
        changes: &[ManifestEntry],
    ) -> Result<impl Fn(&[u8]) -> Result<bool> + 'a> {
        let fields = self.table.schema().partition_fields();
        let specs: Vec<Vec<(usize, Datum)>> = match scope {
            OverwriteScope::Dynamic => Vec::new(),
            OverwriteScope::Static(specs) => specs
                .iter()
                .map(|spec| {
                    spec.iter()
                        .map(|(k, v)| {
                            fields
                                .iter()
                                .position(|f| &f.name == k)
                                .map(|i| (i, v.clone()))
                                .ok_or_else(|| {
                                    self.invalid(format!("{k:?} is not a partition column"))
                                })
                        })
                        .collect::<Result<Vec<_>>>()
                })
                .collect::<Result<_>>()?,
        };
        let dynamic: std::collections::HashSet<Vec<u8>> = changes
            .iter()
            .filter(|e| e.kind == FileKind::Add)
            .map(|e| e.partition.clone())
            .collect();
        let path = self.table.path().to_string();
        Ok(move |partition: &[u8]| -> Result<bool> {
            if matches!(scope, OverwriteScope::Dynamic) {
                return Ok(dynamic.contains(partition));
            }
            let values = BinaryRow::from_serialized(partition)
                .and_then(|r| r.to_datums(types))
                .map_err(|e| Error::spec(&path, e))?;
            Ok(specs.iter().any(|spec| {
                spec.iter()
                    .all(|(i, v)| values.get(*i).is_some_and(|x| x == v))
            }))
        })
    }
}

/// A commit user no snapshot has yet: `<prefix>-<process id>-<nanoseconds>`.
pub fn fresh_commit_user(prefix: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{prefix}-{}-{nanos}", std::process::id())
}

impl TableCommit {
    /// This committer without the partition expiry that follows commits (for the expiry's
    /// own drops).
    pub(crate) fn without_partition_expiry(mut self) -> Self {
        self.partition_expiry = false;
        self
    }
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A random number from the process's hash seed, the time and a counter (no RNG dependency).
fn random_u64() -> u64 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// A random (version 4) UUID string, as Java's `UUID.randomUUID().toString()`.
pub(crate) fn random_uuid() -> String {
    let (a, b) = (random_u64(), random_u64());
    let b = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000;
    let a = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xFFFF,
        a & 0xFFFF,
        b >> 48,
        b & 0xFFFF_FFFF_FFFF
    )
}

/// Java `commitRetryWait`: exponential from the minimum wait, capped, with up to 20% jitter.
fn backoff(attempt: u32, min_ms: u64, max_ms: u64) -> Duration {
    let base = min_ms.saturating_mul(1u64 << attempt.min(20)).min(max_ms);
    let jitter = random_u64() % (base / 5 + 1);
    Duration::from_millis(base + jitter)
}

#[cfg(test)]
mod row_id_check_tests;
#[cfg(test)]
mod safety_tests;
#[cfg(test)]
mod tests;
