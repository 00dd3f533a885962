//! Errors of the data plane.
//!
//! Every variant that can be tied to a file names it: a reader that fails on one file of a
//! split says which one.

/// Errors raised while reading a split.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file the split or the table needs does not exist.
    #[error("not found: {path}")]
    NotFound {
        /// The missing path.
        path: String,
    },
    /// Bytes that do not follow the format.
    #[error("corrupt file {path}: {reason}")]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A path in a split that the path policy rejects: a bucket directory or index file outside
    /// the table directory, a `..` segment, a data-file name that is not a single name.
    #[error("invalid path {path}: {reason}")]
    InvalidPath {
        /// The offending path (or file name) as the split gave it.
        path: String,
        /// Why it is rejected.
        reason: String,
    },
    /// A feature this reader does not handle yet; `feature` names it and the file.
    #[error("unsupported: {feature}")]
    Unsupported {
        /// The feature, with the file or split it was met in.
        feature: String,
    },
    /// A value that Java's cast rejects (Java throws, e.g. `CAST('x' AS INT)`).
    #[error("cannot cast a value read from {path}: {reason}")]
    Cast {
        /// The data file the value came from.
        path: String,
        /// The value and the target type.
        reason: String,
    },
    /// A timestamp the file holds (Java writes years 0001..9999) that Arrow's nanosecond unit,
    /// which Paimon TIMESTAMP(7..9) maps to, cannot represent (1677-09-21..2262-04-11). It is
    /// reported rather than returned wrapped.
    #[error(
        "timestamp {value} of column {column} is outside the range Arrow nanosecond timestamps \
         can hold (1677-09-21..2262-04-11), in {path}"
    )]
    TimestampOutOfRange {
        /// The data file.
        path: String,
        /// The column (dotted path for nested fields).
        column: String,
        /// The value as an ISO local date-time.
        value: String,
    },
    /// A MAP entry with a null key. Paimon allows one when the key type is nullable (Java
    /// returns the entry), but the Arrow Map type that Paimon MAP maps to requires non-null
    /// keys, so no valid batch can hold the value; it is reported rather than dropped or
    /// turned into a null map.
    #[error(
        "column {column} of {path} holds a MAP entry with a null key, which an Arrow map cannot \
         hold (Arrow map keys are non-null)"
    )]
    NullMapKey {
        /// The data file.
        path: String,
        /// The top-level column holding the map.
        column: String,
    },
    /// A data file holding another number of rows than its metadata (the split's
    /// `DataFileMeta.row_count`) claims. Deletion vectors and row ranges address rows by
    /// position, so reading on would return other rows than the table holds.
    #[error("data file {path} holds {found} rows but its metadata says {expected}")]
    RowCountMismatch {
        /// The data file.
        path: String,
        /// The row count the split's file metadata claims.
        expected: i64,
        /// The rows the file holds (from its footer or block headers, or as decoded).
        found: u64,
    },
    /// A storage error.
    #[error("I/O error reading {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The storage error.
        #[source]
        source: paimon_io::Error,
    },
    /// An Arrow error while decoding or assembling batches.
    #[error("Arrow error reading {path}: {source}")]
    Arrow {
        /// The file.
        path: String,
        /// The Arrow error.
        #[source]
        source: arrow_schema::ArrowError,
    },
    /// A Parquet decoding error.
    #[error("Parquet error reading {path}: {source}")]
    Parquet {
        /// The file.
        path: String,
        /// The Parquet error.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// An ORC decoding error.
    #[error("ORC error reading {path}: {source}")]
    Orc {
        /// The file.
        path: String,
        /// The ORC error.
        #[source]
        source: orc_rust::error::OrcError,
    },
    /// A format-model error (schema JSON, binary rows).
    #[error("error in {path}: {source}")]
    Spec {
        /// The file (schema file, split, data file) being interpreted.
        path: String,
        /// The model error.
        #[source]
        source: paimon_spec::Error,
    },
    /// Merge-on-read failed for the split of bucket directory `bucket`.
    #[error("merge-on-read error in {bucket}: {source}")]
    Merge {
        /// The split's bucket directory.
        bucket: String,
        /// The merge error.
        #[source]
        source: crate::merge::MergeError,
    },
    /// A bug in paimon-rs: an invariant the reader relies on does not hold.
    #[error("internal error (a bug in paimon-rs): {0}")]
    Internal(String),
    /// The read's memory pool is held whole by other consumers (see
    /// `ReadOptions::memory_pool`).
    #[error("memory limit of {limit} bytes reached while {what}: {requested} more bytes needed")]
    ResourcesExhausted {
        /// Bytes asked for when the pool refused.
        requested: usize,
        /// The pool's limit.
        limit: usize,
        /// The table and what was being read.
        what: String,
    },
}

/// Result with [`Error`] as default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A [`Error::Corrupt`] for `path`.
    pub fn corrupt(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// A [`Error::Unsupported`].
    pub fn unsupported(feature: impl Into<String>) -> Self {
        Error::Unsupported {
            feature: feature.into(),
        }
    }

    /// Maps a storage error on `path`, keeping "not found" distinct.
    pub fn io(path: impl Into<String>, source: paimon_io::Error) -> Self {
        let path = path.into();
        if source.is_not_found() {
            Error::NotFound { path }
        } else {
            Error::Io { path, source }
        }
    }

    /// Wraps an Arrow error raised while handling `path`.
    pub fn arrow(path: impl Into<String>, source: arrow_schema::ArrowError) -> Self {
        Error::Arrow {
            path: path.into(),
            source,
        }
    }

    /// Wraps a model error raised while interpreting `path`.
    pub fn spec(path: impl Into<String>, source: paimon_spec::Error) -> Self {
        Error::Spec {
            path: path.into(),
            source,
        }
    }
}
