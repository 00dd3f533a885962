//! Errors of the writers.
//!
//! Every variant raised while writing a table names the table; those tied to a file name it.
//! When a write fails, nothing it wrote is referenced by a commit message: files of the failed
//! call are deleted where the storage allows, otherwise left as unreferenced orphans.

/// Errors raised while turning batches into data files and commit messages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A batch whose columns do not match the table's row type.
    #[error("table {table}: batch does not match the table schema: {reason}")]
    SchemaMismatch {
        /// The table location.
        table: String,
        /// Which column differs and how.
        reason: String,
    },
    /// A null in a column the table declares NOT NULL (primary keys always are).
    #[error("table {table}: null value in non-nullable column {column}")]
    NullValue {
        /// The table location.
        table: String,
        /// The column.
        column: String,
    },
    /// A partition value Java cannot turn into a directory name.
    #[error("table {table}: invalid partition value for {column}: {reason}")]
    InvalidPartition {
        /// The table location.
        table: String,
        /// The partition column.
        column: String,
        /// Why the value is rejected.
        reason: String,
    },
    /// A table option with a value the writer cannot use.
    #[error("invalid option {key}={value}: {reason}")]
    InvalidOption {
        /// Option key.
        key: String,
        /// The raw value.
        value: String,
        /// Why it is invalid.
        reason: String,
    },
    /// A table shape or type the writers do not handle yet.
    #[error("unsupported: {feature}")]
    Unsupported {
        /// The feature, with the table it was met in.
        feature: String,
    },
    /// Storage failed while writing `path`.
    #[error("table {table}: writing {path} failed: {source}")]
    Io {
        /// The table location.
        table: String,
        /// The file being written.
        path: String,
        /// The storage error.
        #[source]
        source: paimon_io::Error,
    },
    /// The Parquet encoder failed on `path`.
    #[error("table {table}: encoding Parquet file {path} failed: {source}")]
    Parquet {
        /// The table location.
        table: String,
        /// The file being written.
        path: String,
        /// The encoder error.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// The Avro encoder failed on `path`.
    #[error("table {table}: encoding Avro file {path} failed: {reason}")]
    Avro {
        /// The table location.
        table: String,
        /// The file being written.
        path: String,
        /// The encoder's message.
        reason: String,
    },
    /// The ORC encoder failed on `path`.
    #[error("table {table}: encoding ORC file {path} failed: {reason}")]
    Orc {
        /// The table location.
        table: String,
        /// The file being written.
        path: String,
        /// The encoder's message.
        reason: String,
    },
    /// A CSV or JSON file of a format table could not be written.
    #[error("table {table}: encoding text file {path} failed: {reason}")]
    Text {
        /// The table location.
        table: String,
        /// The file being written.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// A format record could not be encoded (a value that does not fit its type).
    #[error("table {table}: {source}")]
    Encode {
        /// The table location.
        table: String,
        /// The encoder error.
        #[source]
        source: paimon_spec::Error,
    },
    /// Reading the input files of a compaction failed.
    #[error("table {table}: reading compaction input: {source}")]
    Read {
        /// The table location.
        table: String,
        /// The reader's error (it names the file); boxed, it is large.
        #[source]
        source: Box<paimon_data::Error>,
    },
    /// The table's merge engine rejected the buffered records where Java's merge function
    /// throws (a retraction partial-update cannot take, an aggregate overflowing), or its
    /// options.
    #[error("table {table}: merging buffered records: {source}")]
    Merge {
        /// The table location.
        table: String,
        /// The merge's error.
        #[source]
        source: paimon_data::merge::MergeError,
    },
    /// Options or schema rejected by `paimon-spec` when the writer was built.
    #[error(transparent)]
    Spec(#[from] paimon_spec::Error),
    /// A bug: an invariant the writer keeps did not hold.
    #[error("internal error (a bug in paimon-write): {0}")]
    Internal(String),
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
