//! Write contexts: what a write planner (control plane) hands a write worker (data plane), the
//! write-side counterpart of a [`DataSplit`](crate::DataSplit) (delta-kernel's `WriteState`).
//!
//! A worker given a context writes a table's rows without opening its schema, snapshot,
//! manifest or index-manifest files: the context carries the schema the rows are written in,
//! each bucket's largest committed sequence number (so new primary-key rows win over the
//! committed ones), the committed hash index files of a dynamic-bucket table (so existing keys
//! keep their bucket), and how the write is committed (overwrite, compaction after it).
//!
//! ```text
//! planner: latest snapshot ──Table::write_context──▶ WriteContext ──encode──▶ bytes
//! worker:  bytes ──decode──▶ WriteContext ──TableWrite::from_context──▶ rows ──▶ CommitMessage
//! ```

use paimon_spec::index_file::IndexFileMeta;
use paimon_spec::layout::{self, TableRoots};
use paimon_spec::options::CoreOptions;
use paimon_spec::schema::TableSchema;

/// The largest committed sequence number of one bucket: (serialized partition row, bucket,
/// sequence number), as paimon-write's `TableWrite::with_restored_max_sequence_numbers`
/// takes them.
pub type RestoredSequence = (Vec<u8>, i32, i64);

/// One committed hash index file of a dynamic-bucket table: (serialized partition row,
/// bucket, file), as paimon-write's `TableWrite::with_hash_index` takes them.
pub type HashIndexFile = (Vec<u8>, i32, IndexFileMeta);

/// Everything a write worker needs to write rows into a table, planned from one snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteContext {
    /// The table directory (the root every path of the write lies under, besides the
    /// schema's `data-file.external-paths`).
    pub table_path: String,
    /// The schema the rows are written in (the table's latest), options included.
    pub schema: TableSchema,
    /// The snapshot the context was planned from; `None` for a table without snapshots.
    pub snapshot_id: Option<i64>,
    /// The rows replace the table's (or partitions') instead of being added: the writer then
    /// starts from no committed sequence numbers and an empty hash index, as Java does, and
    /// the committer commits an OVERWRITE snapshot.
    pub overwrite: bool,
    /// The committer runs a lookup compaction of the buckets written right after committing
    /// them (primary-key tables with deletion vectors, first-row or the `lookup` changelog
    /// producer, not `write-only`), as Java's writers compact before they commit.
    pub compact_after: bool,
    /// The commit user the planner will commit the workers' messages as, when it chose one.
    pub commit_user: Option<String>,
    /// Each bucket's largest committed sequence number (empty for an overwrite).
    pub restored_sequence_numbers: Vec<RestoredSequence>,
    /// The committed hash index files of a dynamic-bucket table (empty for an overwrite and
    /// for other tables).
    pub hash_index_files: Vec<HashIndexFile>,
}

impl WriteContext {
    /// Checks the paths the context names against paimon-spec's path rule: the schema's
    /// `data-file.path-directory` is a relative directory and its `data-file.external-paths`
    /// are proper roots, each hash index file name is one plain name, and an index file's
    /// external path lies under the table or one of those roots.
    ///
    /// # Errors
    /// [`paimon_spec::Error::PathNotAllowed`] naming the field; [`paimon_spec::Error`] for
    /// malformed options.
    pub fn check_paths(&self) -> paimon_spec::Result<()> {
        let options = CoreOptions::try_new(&self.schema.options)?;
        if let Some(d) = &options.data_file_path_directory {
            layout::check_relative_dir("data-file.path-directory", d)?;
        }
        for r in &options.data_file_external_paths {
            layout::check_external_root("data-file.external-paths", r.trim())?;
        }
        let roots =
            TableRoots::new(&self.table_path).with_external(&options.data_file_external_paths);
        for (_, _, f) in &self.hash_index_files {
            layout::check_file_name("WriteContext.hashIndexFiles.fileName", &f.file_name)?;
            if let Some(p) = &f.external_path {
                roots.check("WriteContext.hashIndexFiles.externalPath", p)?;
            }
        }
        Ok(())
    }
}
