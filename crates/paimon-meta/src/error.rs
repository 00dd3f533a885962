//! Errors of the control plane.

/// Errors raised while reading table metadata and planning scans.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or table that does not exist.
    #[error("not found: {path}")]
    NotFound {
        /// The missing path.
        path: String,
    },
    /// A metadata file whose bytes or JSON do not follow the format.
    #[error("corrupt file {path}: {reason}")]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A table feature this planner does not handle.
    #[error("unsupported: {feature}")]
    Unsupported {
        /// The feature.
        feature: String,
    },
    /// A commit that cannot be applied on the table as it now is (Java `ConflictDetection`), or
    /// that kept losing the race for the next snapshot id.
    #[error("commit conflict on table {table}: {reason}")]
    CommitConflict {
        /// The table root.
        table: String,
        /// What conflicts, naming the file.
        reason: String,
    },
    /// A commit whose last attempt to publish its snapshot failed in a way that leaves its
    /// outcome unknown (a timed-out write or request that may have landed). Its files are kept,
    /// since a landed snapshot references them; committing the same messages again with the
    /// same user and identifier finds the snapshot if it landed and commits once otherwise.
    #[error(
        "commit to table {table} may or may not have landed (its files are kept; commit it \
         again with the same user and identifier to find out): {source}"
    )]
    CommitOutcomeUnknown {
        /// The table root.
        table: String,
        /// The failed publish.
        source: Box<Error>,
    },
    /// A commit whose snapshots landed, after which the catalog's bookkeeping failed (Java's
    /// commit callbacks: the partitions the Hive metastore keeps under
    /// `metastore.partitioned-table`). The commit stands and references its files: never
    /// abort them; committing the same messages again with the same user and identifier makes
    /// no snapshot and retries the bookkeeping.
    #[error(
        "commit to table {table} landed (snapshots {snapshots:?}; its files are kept), but \
         then: {source} (commit it again with the same user and identifier to retry this)"
    )]
    CommitCallbackFailed {
        /// The table root.
        table: String,
        /// The snapshots the commit made (empty when it had landed before).
        snapshots: Vec<i64>,
        /// The catalog's error.
        source: Box<Error>,
    },
    /// A commit message or schema the committer refuses (bad bucket, invalid schema...).
    #[error("invalid commit on table {table}: {reason}")]
    InvalidCommit {
        /// The table root.
        table: String,
        /// What is wrong.
        reason: String,
    },
    /// A snapshot that existed but has been expired.
    #[error("snapshot {id} has expired (earliest is {earliest})")]
    SnapshotExpired {
        /// The requested snapshot.
        id: i64,
        /// The earliest snapshot still present.
        earliest: i64,
    },
    /// A snapshot that does not exist (or a table with no snapshot at all).
    #[error("snapshot {id} not found: {path}")]
    SnapshotNotFound {
        /// The requested snapshot id (-1 when looking for latest/earliest).
        id: i64,
        /// The missing snapshot file (the snapshot directory when looking for latest/earliest).
        path: String,
    },
    /// A tag that does not exist.
    #[error("tag '{name}' not found in {path}")]
    TagNotFound {
        /// Tag name.
        name: String,
        /// The tag directory.
        path: String,
    },
    /// A request the table refuses as it now is (Java's `IllegalArgumentException`s of tags,
    /// branches and rollback): a tag or branch that exists already or does not exist, a
    /// name that cannot be one.
    #[error("invalid request on table {table}: {reason}")]
    InvalidArgument {
        /// The table root.
        table: String,
        /// What is wrong.
        reason: String,
    },
    /// A storage failure.
    #[error(transparent)]
    Io(#[from] paimon_io::Error),
    /// A format-model failure (schema, options, binary rows), with the file it came from.
    #[error("in {path}: {source}")]
    Spec {
        /// The file being decoded.
        path: String,
        /// The format error.
        #[source]
        source: paimon_spec::Error,
    },
    /// The caller's memory pool refused what planning needed (see `ScanBuilder::with_memory_pool`);
    /// no plan was returned and the pool holds what it held before the call.
    #[error("memory limit of {limit} bytes reached while {what}: {requested} more bytes needed")]
    ResourcesExhausted {
        /// Bytes asked for when the pool refused.
        requested: usize,
        /// The pool's limit.
        limit: usize,
        /// The table and what was being planned.
        what: String,
    },
    /// Scan arguments that contradict each other (two snapshot selections, a mode without
    /// an incremental range).
    #[error("invalid scan: {reason}")]
    InvalidScan {
        /// What is wrong.
        reason: String,
    },
    /// A database or table the catalog does not have (Java `DatabaseNotExistException`,
    /// `TableNotExistException`).
    #[error("{kind} {name} does not exist{}", in_catalog(catalog))]
    CatalogObjectNotFound {
        /// `database` or `table`.
        kind: &'static str,
        /// `db` or `db.table`.
        name: String,
        /// The catalog (its warehouse or URI).
        catalog: String,
    },
    /// A database or table that exists already (Java `...AlreadyExistException`).
    #[error("{kind} {name} already exists{}", in_catalog(catalog))]
    CatalogObjectExists {
        /// `database` or `table`.
        kind: &'static str,
        /// `db` or `db.table`.
        name: String,
        /// The catalog (its warehouse or URI).
        catalog: String,
    },
    /// A catalog call that failed (see [`CatalogFailure`]); nothing was changed unless the
    /// failure says the outcome is unknown.
    #[error("catalog {uri}: {failure} {what}: {reason}")]
    Catalog {
        /// The catalog's address (REST `uri`).
        uri: String,
        /// What kind of failure.
        failure: CatalogFailure,
        /// The call and the object it was about (`GET /v1/.../tables/t`, `table db.t`).
        what: String,
        /// The server's message or the transport's error.
        reason: String,
    },
    /// A bug in paimon-rs.
    #[error("internal error (a bug in paimon-rs): {0}")]
    Internal(String),
}

fn in_catalog(catalog: &str) -> String {
    if catalog.is_empty() {
        String::new()
    } else {
        format!(" in catalog {catalog}")
    }
}

/// The kind of an [`Error::Catalog`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogFailure {
    /// The server could not be reached (refused connection, DNS, timeout): nothing was sent
    /// or the answer was lost.
    Unreachable,
    /// 401 or 403: the caller's credentials do not allow the call.
    NotAuthorized,
    /// 409: the object changed meanwhile (or exists already).
    Conflict,
    /// Another 4xx: the server refused the request as malformed or unsupported.
    Refused,
    /// 5xx after the retries an idempotent call gets.
    ServerError,
    /// 501: the server does not implement the call (Java `NotImplementedException`); not
    /// retried.
    NotImplemented,
    /// A response that is not the JSON the API defines.
    MalformedResponse,
    /// Options that do not configure a catalog (unknown `metastore`, missing `uri`...).
    InvalidOptions,
}

impl std::fmt::Display for CatalogFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CatalogFailure::Unreachable => "unreachable on",
            CatalogFailure::NotAuthorized => "authorization failed for",
            CatalogFailure::Conflict => "conflict on",
            CatalogFailure::Refused => "refused",
            CatalogFailure::ServerError => "server error on",
            CatalogFailure::NotImplemented => "not implemented by the server for",
            CatalogFailure::MalformedResponse => "malformed response to",
            CatalogFailure::InvalidOptions => "invalid options for",
        })
    }
}

/// Result with [`Error`] as default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether a commit that failed with this error may reference its files (its outcome is
    /// unknown, or it landed and only what followed failed): they must be kept, never aborted.
    pub fn keeps_commit_files(&self) -> bool {
        matches!(
            self,
            Error::CommitOutcomeUnknown { .. } | Error::CommitCallbackFailed { .. }
        )
    }

    /// [`Error::CatalogObjectNotFound`]: the `kind` (`database`, `table`) `name` is not in
    /// `catalog`.
    pub(crate) fn not_found_in(catalog: &str, kind: &'static str, name: impl Into<String>) -> Self {
        Error::CatalogObjectNotFound {
            kind,
            name: name.into(),
            catalog: catalog.to_string(),
        }
    }

    /// [`Error::CatalogObjectExists`]: the `kind` `name` is already in `catalog`.
    pub(crate) fn exists_in(catalog: &str, kind: &'static str, name: impl Into<String>) -> Self {
        Error::CatalogObjectExists {
            kind,
            name: name.into(),
            catalog: catalog.to_string(),
        }
    }

    /// A drop of database `name` (at `path`) that still holds `tables` tables, without
    /// cascade.
    pub(crate) fn database_not_empty(path: String, name: &str, tables: usize) -> Self {
        Error::InvalidCommit {
            table: path,
            reason: format!("database {name} is not empty ({tables} tables); drop it with cascade"),
        }
    }

    /// Builds [`Error::Corrupt`].
    pub fn corrupt(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// Builds [`Error::Unsupported`].
    pub fn unsupported(feature: impl Into<String>) -> Self {
        Error::Unsupported {
            feature: feature.into(),
        }
    }

    /// Wraps a format error with the file it came from.
    pub fn spec(path: impl Into<String>, source: paimon_spec::Error) -> Self {
        Error::Spec {
            path: path.into(),
            source,
        }
    }

    /// Maps a storage error, turning `NotFound` into [`Error::NotFound`].
    pub fn io(e: paimon_io::Error) -> Self {
        match e {
            paimon_io::Error::NotFound { path } => Error::NotFound { path },
            e => Error::Io(e),
        }
    }

    /// Builds [`Error::Catalog`].
    pub fn catalog(
        uri: impl Into<String>,
        failure: CatalogFailure,
        what: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Error::Catalog {
            uri: uri.into(),
            failure,
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// Whether this is [`Error::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }
}
