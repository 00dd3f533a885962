//! What every batch writer (the CLI, Python, Ray) asks of the control plane around a
//! `TableWrite`: the sequence numbers a primary-key writer continues from, partition specs
//! given as text, and an overwrite decided the way Java's batch `INSERT OVERWRITE` decides it.

use std::collections::BTreeMap;

use paimon_spec::predicate::typed_literal;
use paimon_spec::stats::serialize_datums;

use paimon_spec::index_file::HASH_INDEX;

use super::{PartitionSpec, TableCommit};
use crate::error::{Error, Result};
use crate::manifest::{FileKind, IndexManifestEntry};
use crate::snapshot::Snapshot;
use crate::table::Table;

/// Java `BatchWriteBuilder.COMMIT_IDENTIFIER`: the identifier of a one-shot batch commit.
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

impl Table {
    /// The largest committed sequence number of every bucket of the latest snapshot, keyed as
    /// paimon-write's `TableWrite::with_restored_max_sequence_number` takes them (serialized
    /// partition row, bucket, sequence number). Empty for a table without snapshots.
    ///
    /// # Errors
    /// Reading the snapshot or its manifests fails.
    pub fn max_sequence_numbers(&self) -> Result<Vec<(Vec<u8>, i32, i64)>> {
        match self.snapshot_manager().latest()? {
            Some(snapshot) => self.max_sequence_numbers_of(&snapshot),
            None => Ok(Vec::new()),
        }
    }

    /// [`Table::max_sequence_numbers`] of `snapshot`.
    ///
    /// # Errors
    /// Reading the snapshot's manifests fails.
    pub(crate) fn max_sequence_numbers_of(
        &self,
        snapshot: &Snapshot,
    ) -> Result<Vec<(Vec<u8>, i32, i64)>> {
        let types = self.partition_types();
        let mut max: BTreeMap<(Vec<u8>, i32), i64> = BTreeMap::new();
        for f in self.live_files(Some(self.scan().with_snapshot(snapshot.id)))? {
            let partition =
                serialize_datums(&f.partition, &types).map_err(|e| Error::spec(self.path(), e))?;
            let seq = max.entry((partition, f.bucket)).or_insert(i64::MIN);
            *seq = (*seq).max(f.file.max_sequence_number);
        }
        Ok(max.into_iter().map(|((p, b), s)| (p, b, s)).collect())
    }

    /// The hash index files of the latest snapshot (dynamic-bucket tables), keyed as
    /// paimon-write's `TableWrite::with_hash_index` takes them (serialized partition row,
    /// bucket, file). Empty for a table without snapshots or hash indexes.
    ///
    /// # Errors
    /// Reading the snapshot or its index manifest fails.
    pub fn hash_index_files(
        &self,
    ) -> Result<Vec<(Vec<u8>, i32, paimon_spec::index_file::IndexFileMeta)>> {
        match self.snapshot_manager().latest()? {
            Some(snapshot) => self.hash_index_files_of(&snapshot),
            None => Ok(Vec::new()),
        }
    }

    /// [`Table::hash_index_files`] of `snapshot`.
    ///
    /// # Errors
    /// Reading the snapshot's index manifest fails.
    pub(crate) fn hash_index_files_of(
        &self,
        snapshot: &Snapshot,
    ) -> Result<Vec<(Vec<u8>, i32, paimon_spec::index_file::IndexFileMeta)>> {
        let Some(name) = &snapshot.index_manifest else {
            return Ok(Vec::new());
        };
        let path = self.layout().manifest_path(name);
        let bytes = self.file_io().read(&path).map_err(Error::io)?;
        Ok(IndexManifestEntry::decode_index_manifest(&path, bytes)?
            .into_iter()
            .filter(|e| e.kind == FileKind::Add && e.index_file.index_type == HASH_INDEX)
            .map(|e| (e.partition, e.bucket, e.index_file))
            .collect())
    }

    /// A partition spec from `(column, value)` text pairs, each value parsed as its partition
    /// column's type (`2024-01-01` for a DATE, `7` for an INT, text as is for a STRING).
    ///
    /// # Errors
    /// [`Error::InvalidCommit`] for an empty spec, a column that is not a partition column, or
    /// a value that is not of the column's type.
    pub fn partition_spec(&self, pairs: &[(String, String)]) -> Result<PartitionSpec> {
        let invalid = |reason: String| Error::InvalidCommit {
            table: self.path().to_string(),
            reason,
        };
        let schema = self.schema();
        if pairs.is_empty() {
            return Err(invalid("the partition spec is empty".into()));
        }
        pairs
            .iter()
            .map(|(k, v)| {
                let k = k.trim();
                if !schema.partition_keys.iter().any(|p| p == k) {
                    return Err(invalid(format!("{k} is not a partition column")));
                }
                let field = schema
                    .field(k)
                    .ok_or_else(|| invalid(format!("no column {k}")))?;
                let value = typed_literal(v.trim(), &field.data_type).ok_or_else(|| {
                    invalid(format!("partition {k}: '{v}' is not a {}", field.data_type))
                })?;
                Ok((k.to_string(), value))
            })
            .collect()
    }
}

impl TableCommit {
    /// Overwrites as Java's batch write with `withOverwrite` does: with `partition`, the
    /// partitions matching it; without one, on a partitioned table with
    /// `dynamic-partition-overwrite` (the default), exactly the partitions `messages` write
    /// to; otherwise the whole table.
    ///
    /// # Errors
    /// As [`TableCommit::overwrite`].
    pub fn overwrite_as_configured(
        &self,
        identifier: i64,
        partition: Option<PartitionSpec>,
        messages: &[super::CommitMessage],
    ) -> Result<Vec<i64>> {
        let dynamic = partition.is_none()
            && !self.table.schema().partition_keys.is_empty()
            && self.table.options().dynamic_partition_overwrite;
        if dynamic {
            self.overwrite_dynamic(identifier, messages)
        } else {
            self.overwrite(identifier, partition, messages)
        }
    }
}
