//! Compaction tasks: what a compaction planner (control plane) hands a compaction worker (data
//! plane), the write-side counterpart of a [`DataSplit`].
//!
//! A task names the files of one partition and bucket to rewrite, as a [`DataSplit`] (so the
//! worker reads them with the ordinary split reader, deletion vectors included), and how to
//! rewrite them. The worker answers with a [`crate::CommitMessage`] whose compact increment
//! lists the inputs it retired and the files it wrote (Java `CompactIncrement`); the committer
//! commits it as a COMPACT snapshot.
//!
//! ```text
//! planner: live files of a bucket ──pick──▶ CompactTask { split: inputs, rewrite, index files }
//! worker:  CompactTask ──read split, write files──▶ CommitMessage { compact_before, compact_after }
//! ```

use paimon_spec::index_file::IndexFileMeta;

use crate::split::DataSplit;

/// How a task's files are rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactRewrite {
    /// Append table: the rows of the files, in split order with their deletion vectors
    /// applied, into new level-0 files whose sequence numbers start at the first input's
    /// minimum sequence number (Java `BaseAppendFileStoreWrite.compactRewrite`).
    Append,
    /// Primary-key table: the files are merged into `output_level` (Java
    /// `MergeTreeCompactTask`). Key-disjoint sections of one sorted run keep their files
    /// when they are at least `min_file_size` bytes (the level is changed in the metadata
    /// only, unless a file holds retractions and the output is the last level); the rest are
    /// merged with the table's merge engine and written as new files.
    MergeTree {
        /// The level the results go to.
        output_level: i32,
        /// The table's last level (`num-levels - 1`).
        max_level: i32,
        /// Drop retractions from the results (the output is the last level).
        drop_delete: bool,
        /// Files of a lone sorted run at least this large are upgraded, not rewritten (Java
        /// `compactionFileSize`).
        min_file_size: i64,
    },
}

/// One unit of compaction work: the files of one partition and bucket and how to rewrite them.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactTask {
    /// The input files, with their partition, bucket, bucket directory, total buckets and
    /// deletion files, in the order they are rewritten.
    pub split: DataSplit,
    /// How the files are rewritten.
    pub rewrite: CompactRewrite,
    /// Deletion-vector index files whose every vector belongs to an input file: the
    /// compaction retires them (the rewrite applies the vectors).
    pub deleted_index_files: Vec<IndexFileMeta>,
    /// Lookup compaction (primary-key tables with deletion vectors, below full compaction):
    /// where the older copies of the merged keys live, and the bucket's vectors.
    pub lookup: Option<CompactLookup>,
}

/// What a lookup compaction (Java `LookupMergeTreeCompactRewriter` with deletion vectors)
/// needs beyond its inputs. Each key of a level-0 input that also lives in a level above the
/// output level loses that older copy: its row is marked in the file's deletion vector and,
/// where the input is merged rather than moved up a level, the copy joins the key's merge. The worker writes the bucket's vectors as one new index file, which replaces
/// `index_files`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactLookup {
    /// The bucket's live files in levels above the output level that the task does not
    /// rewrite, with their deletion files, in the split's layout.
    pub higher_levels: DataSplit,
    /// Every deletion-vector index file of the bucket (its current vectors).
    pub index_files: Vec<IndexFileMeta>,
}
