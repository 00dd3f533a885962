//! Stand-in for `paimon_split::commit::CommitMessage` (same field names and meaning) until
//! the codec branch is merged; then this module becomes a re-export of it.

use paimon_spec::data_file::DataFileMeta;

/// Files a writer added by writing (Java `DataIncrement`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct DataIncrement {
    /// New data files.
    pub new_files: Vec<DataFileMeta>,
}

/// The files one writer changed in one partition and bucket (Java `CommitMessageImpl`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommitMessage {
    /// The partition, serialized as `[arity: i32 BE][BinaryRow bytes]`.
    pub partition: Vec<u8>,
    /// Bucket id; -1 for bucket-unaware append tables.
    pub bucket: i32,
    /// The table's `bucket` option when the files were written.
    pub total_buckets: Option<i32>,
    /// Files written.
    pub data_increment: DataIncrement,
}

impl CommitMessage {
    /// A message with an empty increment.
    pub fn new(partition: Vec<u8>, bucket: i32) -> Self {
        CommitMessage {
            partition,
            bucket,
            total_buckets: None,
            data_increment: DataIncrement::default(),
        }
    }

    /// Sets the total bucket count.
    pub fn with_total_buckets(mut self, total_buckets: Option<i32>) -> Self {
        self.total_buckets = total_buckets;
        self
    }

    /// Sets the data increment.
    pub fn with_data_increment(mut self, increment: DataIncrement) -> Self {
        self.data_increment = increment;
        self
    }
}
