//! The write planner: the [`WriteContext`] a write worker needs, read from the latest snapshot
//! once, so the worker (paimon-write's `TableWrite::from_context`) never opens the table's
//! schema, snapshot, manifest or index files.

use paimon_spec::options::{ChangelogProducer, MergeEngine};
use paimon_split::WriteContext;

use crate::error::Result;
use crate::table::Table;

impl Table {
    /// Whether a write to this table is followed by a lookup compaction of the buckets it
    /// wrote, as Java's writers compact before they commit: primary-key tables whose batch
    /// readers skip level 0 (deletion vectors, first-row) and tables whose `lookup`
    /// changelog that compaction writes; a `write-only` table leaves it to a dedicated
    /// compactor, and a postpone-bucket table's writes wait for the postpone compaction (Java's
    /// `PostponeBucketWriter` compacts nothing).
    pub fn compacts_after_write(&self) -> bool {
        let opts = self.options();
        self.is_primary_key_table()
            && !opts.write_only
            && opts.bucket != paimon_spec::layout::POSTPONE_BUCKET
            && (opts.deletion_vectors_enabled
                || opts.merge_engine == MergeEngine::FirstRow
                || opts.changelog_producer == ChangelogProducer::Lookup)
    }

    /// What a write worker needs to write rows into this table, planned from the latest
    /// snapshot (read once): the latest schema, and for a primary-key table each bucket's
    /// largest committed sequence number (so the rows written win over those committed) and
    /// the committed hash index files of a dynamic-bucket table, unless `overwrite` says the
    /// rows replace the table's (Java then starts from nothing). `compact_after` is
    /// [`Table::compacts_after_write`]; `commit_user` is recorded for the workers.
    ///
    /// # Errors
    /// Reading the latest snapshot, its manifests or its index manifest fails.
    pub fn write_context(
        &self,
        overwrite: bool,
        commit_user: Option<&str>,
    ) -> Result<WriteContext> {
        let snapshot = self.snapshot_manager().latest()?;
        let (mut restored, mut hash_index) = (Vec::new(), Vec::new());
        if let Some(s) = snapshot
            .as_ref()
            .filter(|_| self.is_primary_key_table() && !overwrite)
        {
            restored = self.max_sequence_numbers_of(s)?;
            hash_index = self.hash_index_files_of(s)?;
        }
        Ok(WriteContext {
            table_path: self.path().to_string(),
            schema: self.schema().as_ref().clone(),
            snapshot_id: snapshot.map(|s| s.id),
            overwrite,
            compact_after: self.compacts_after_write(),
            commit_user: commit_user.map(str::to_string),
            restored_sequence_numbers: restored,
            hash_index_files: hash_index,
        })
    }
}
