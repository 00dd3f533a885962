//! The `DataSplit` value (Java `org.apache.paimon.table.source.DataSplit`).

use paimon_spec::binary::BinaryRow;
use paimon_spec::data_file::{DataFileMeta, DeletionFile};

/// One unit of read work: files of one partition and bucket, planned from one snapshot.
///
/// Every field round-trips through the Java wire format; see `docs/split-protocol.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataSplit {
    /// Snapshot the split was planned from (0 when none).
    pub snapshot_id: i64,
    /// The partition row, serialized as `[arity: i32 BE][row bytes]`.
    pub partition: Vec<u8>,
    /// Bucket id (-2 = postpone).
    pub bucket: i32,
    /// Full bucket directory path, as Java's `Path.toString()`.
    pub bucket_path: String,
    /// Total buckets of the table when the files were written (v6+; `None` before).
    pub total_buckets: Option<i32>,
    /// "Before" files of incremental splits (only versions <= 8 may carry any).
    pub before_files: Vec<DataFileMeta>,
    /// Deletion files of `before_files`.
    pub before_deletion_files: Option<Vec<Option<DeletionFile>>>,
    /// The files to read.
    pub data_files: Vec<DataFileMeta>,
    /// One optional deletion file per data file, or `None` when the split carries none.
    pub data_deletion_files: Option<Vec<Option<DeletionFile>>>,
    /// Planned by a streaming (delta) scan: primary-key rows are read without merging.
    pub is_streaming: bool,
    /// Files can be read independently with only deletion vectors applied.
    pub raw_convertible: bool,
}

/// Shared split handle.
pub type DataSplitRef = std::sync::Arc<DataSplit>;

impl DataSplit {
    /// The partition row.
    ///
    /// # Errors
    /// [`paimon_spec::Error::Corrupt`] when the stored partition bytes are malformed.
    pub fn partition_row(&self) -> paimon_spec::Result<BinaryRow<'_>> {
        BinaryRow::from_serialized(&self.partition)
    }

    /// The deletion file of data file `i`, if any.
    pub fn deletion_file(&self, i: usize) -> Option<&DeletionFile> {
        self.data_deletion_files
            .as_ref()
            .and_then(|v| v.get(i))
            .and_then(Option::as_ref)
    }

    /// Total rows of the data files (before merging and deletions).
    pub fn row_count(&self) -> i64 {
        self.data_files
            .iter()
            .fold(0i64, |acc, f| acc.saturating_add(f.row_count))
    }

    /// Where data file `i` lives: its external path, else `bucket_path/file_name`.
    pub fn data_file_path(&self, i: usize) -> Option<String> {
        let f = self.data_files.get(i)?;
        Some(match &f.external_path {
            Some(p) => p.clone(),
            None => format!("{}/{}", self.bucket_path.trim_end_matches('/'), f.file_name),
        })
    }
}
