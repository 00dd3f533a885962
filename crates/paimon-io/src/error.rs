//! Errors of the storage layer.

/// Errors raised by a [`crate::FileIO`]; every variant names the path involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file or directory does not exist.
    #[error("not found: {path}")]
    NotFound {
        /// The path that was looked up.
        path: String,
    },
    /// The underlying storage failed.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The path being accessed.
        path: String,
        /// The storage error.
        #[source]
        source: std::io::Error,
    },
    /// A file that must be new already exists.
    #[error("already exists: {path}")]
    AlreadyExists {
        /// The path that was taken.
        path: String,
    },
    /// The backend cannot perform this operation (e.g. writing to a read-only store).
    #[error("{operation} is not supported for {path}")]
    Unsupported {
        /// The path involved.
        path: String,
        /// The operation, e.g. `publish_if_absent`.
        operation: &'static str,
    },
    /// A byte range outside the file, or an inverted range.
    #[error("invalid range {start}..{end} of {path} (file size {size})")]
    InvalidRange {
        /// The file.
        path: String,
        /// Range start.
        start: u64,
        /// Range end (exclusive).
        end: u64,
        /// The file's size.
        size: u64,
    },
    /// A URL scheme without a backend in this build (object stores are behind cargo features:
    /// `s3`, `oss`, `gcs`, `azblob`, `hdfs-native`).
    #[error("unsupported storage scheme '{scheme}' in {path} (is its paimon-io feature enabled?)")]
    UnsupportedScheme {
        /// The scheme, e.g. `s3`.
        scheme: String,
        /// The full path.
        path: String,
    },
    /// The storage backend for a path cannot be configured (bad URL, missing region or
    /// endpoint, unreadable credentials file).
    #[error("invalid storage configuration for {path}: {reason}")]
    Config {
        /// The path whose backend was being set up.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// Result with [`Error`] as default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Maps a `std::io::Error` on `path`, turning `NotFound` into [`Error::NotFound`].
    pub fn from_io(path: impl Into<String>, source: std::io::Error) -> Self {
        let path = path.into();
        if source.kind() == std::io::ErrorKind::NotFound {
            Error::NotFound { path }
        } else if source.kind() == std::io::ErrorKind::AlreadyExists {
            Error::AlreadyExists { path }
        } else {
            Error::Io { path, source }
        }
    }

    /// Whether this error means the path does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }
}
