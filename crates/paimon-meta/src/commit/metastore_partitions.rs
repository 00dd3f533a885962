//! After a commit, the partitions it added files to are added to the table's catalog record
//! (Java `AddPartitionCommitCallback`, on tables whose catalog keeps partitions: see
//! [`crate::catalog::PartitionModification`]); a commit found already made (Java's
//! `filterCommitted` then calls the callback's `retry`) adds them again, the catalog skipping
//! those it has.

use std::collections::BTreeSet;

use paimon_spec::binary::BinaryRow;

use super::{Changes, TableCommit};
use crate::catalog::PartitionValues;
use crate::error::{Error, Result};
use crate::manifest::FileKind;

impl TableCommit {
    /// Adds the partitions of the files `changes` add to the catalog's record, when the table
    /// has one; `snapshots` are the commit's (for the error).
    ///
    /// # Errors
    /// [`Error::CommitCallbackFailed`] naming the snapshots that landed and the catalog's
    /// error: the commit stands, its files must be kept.
    pub(super) fn add_metastore_partitions(
        &self,
        changes: &[&Changes],
        snapshots: &[i64],
    ) -> Result<()> {
        let Some(modification) = self.table.partition_modification() else {
            return Ok(());
        };
        let fail = |e: Error| Error::CommitCallbackFailed {
            table: self.table.path().to_string(),
            snapshots: snapshots.to_vec(),
            source: Box::new(e),
        };
        let partitions = self.added_partitions(changes).map_err(fail)?;
        if partitions.is_empty() {
            return Ok(());
        }
        modification.create_partitions(&partitions).map_err(fail)
    }

    /// The partitions (as the catalog names them) of the ADD entries of `changes`, each once,
    /// in the order of their serialized rows.
    fn added_partitions(&self, changes: &[&Changes]) -> Result<Vec<PartitionValues>> {
        let rows: BTreeSet<&[u8]> = changes
            .iter()
            .flat_map(|c| c.table_files.iter())
            .filter(|e| e.kind == FileKind::Add)
            .map(|e| e.partition.as_slice())
            .collect();
        let types: Vec<_> = self
            .table
            .partition_types()
            .iter()
            .map(|t| t.with_nullable(true))
            .collect();
        rows.into_iter()
            .map(|bytes| {
                let values = BinaryRow::from_serialized(bytes)
                    .and_then(|row| row.to_datums(&types))
                    .map_err(|e| Error::spec(self.table.path(), e))?;
                self.table.partition_values_text(&values)
            })
            .collect()
    }
}
