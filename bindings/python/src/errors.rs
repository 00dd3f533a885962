//! The Python exception hierarchy and the mapping of every crate's error enum onto it.
//!
//! ```text
//! PaimonError
//!  ├── NotFoundError         a table, snapshot, tag, branch or file that does not exist
//!  ├── CorruptError          bytes or metadata that do not follow the format (names the file)
//!  ├── UnsupportedError      a format feature or split kind paimon-rs does not read
//!  ├── InvalidArgumentError  a bad argument: unknown column, malformed filter, bad option
//!  ├── StorageError          the storage failed (I/O error, object-store error)
//!  ├── CommitConflictError   a commit Java's conflict checks refuse (nothing was committed)
//!  ├── AlreadyExistsError    a database or table a catalog has already
//!  ├── AuthorizationError    a catalog refusing the caller's credentials (401 / 403)
//!  ├── CatalogError          a catalog server unreachable, failing or answering nonsense
//!  └── InternalError         a bug in paimon-rs
//! ```

use paimon_meta::CatalogFailure;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::{create_exception, PyErr};

create_exception!(
    paimon_rs,
    PaimonError,
    PyException,
    "Base class of every error paimon_rs raises; the message names the file involved."
);
create_exception!(
    paimon_rs,
    NotFoundError,
    PaimonError,
    "A table, snapshot, tag, branch, schema or file that does not exist."
);
create_exception!(
    paimon_rs,
    CorruptError,
    PaimonError,
    "Bytes or metadata that do not follow the Paimon format (names the file and what is wrong)."
);
create_exception!(
    paimon_rs,
    UnsupportedError,
    PaimonError,
    "A format feature, split kind or storage scheme this build of paimon-rs does not handle."
);
create_exception!(
    paimon_rs,
    InvalidArgumentError,
    PaimonError,
    "A bad argument: unknown column, malformed filter, conflicting options, bad option value."
);
create_exception!(
    paimon_rs,
    StorageError,
    PaimonError,
    "The storage failed (an I/O or object-store error other than a missing file)."
);
create_exception!(
    paimon_rs,
    CommitConflictError,
    PaimonError,
    "A commit that conflicts with what others committed (files it deletes are gone, key ranges \
     overlap, bucket count changed) or that ran out of retries; nothing was committed."
);
create_exception!(
    paimon_rs,
    AlreadyExistsError,
    PaimonError,
    "A database or table that exists already in the catalog (nothing was created)."
);
create_exception!(
    paimon_rs,
    AuthorizationError,
    PaimonError,
    "The catalog refused the caller's credentials (HTTP 401 or 403); names the catalog URI and \
     the object."
);
create_exception!(
    paimon_rs,
    CatalogError,
    PaimonError,
    "A catalog server that cannot be reached, fails (5xx after retries), refuses a request or \
     answers with what is not its API's JSON; names the catalog URI."
);
create_exception!(
    paimon_rs,
    InternalError,
    PaimonError,
    "A bug in paimon-rs (please report it with the message)."
);

/// Registers the exception classes on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PaimonError", py.get_type::<PaimonError>())?;
    m.add("NotFoundError", py.get_type::<NotFoundError>())?;
    m.add("CorruptError", py.get_type::<CorruptError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add(
        "InvalidArgumentError",
        py.get_type::<InvalidArgumentError>(),
    )?;
    m.add("StorageError", py.get_type::<StorageError>())?;
    m.add("CommitConflictError", py.get_type::<CommitConflictError>())?;
    m.add("AlreadyExistsError", py.get_type::<AlreadyExistsError>())?;
    m.add("AuthorizationError", py.get_type::<AuthorizationError>())?;
    m.add("CatalogError", py.get_type::<CatalogError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    Ok(())
}

/// An [`InvalidArgumentError`] with `msg`.
pub fn invalid(msg: impl Into<String>) -> PyErr {
    InvalidArgumentError::new_err(msg.into())
}

/// Converts a library error into the matching Python exception, keeping its message.
pub trait ToPyErr {
    /// The Python exception.
    fn to_py(&self) -> PyErr;
}

impl ToPyErr for paimon_io::Error {
    fn to_py(&self) -> PyErr {
        use paimon_io::Error as E;
        let msg = self.to_string();
        match self {
            E::NotFound { .. } => NotFoundError::new_err(msg),
            E::InvalidRange { .. } => CorruptError::new_err(msg),
            E::UnsupportedScheme { .. } => UnsupportedError::new_err(msg),
            E::Config { .. } => InvalidArgumentError::new_err(msg),
            e if e.is_not_found() => NotFoundError::new_err(msg),
            _ => StorageError::new_err(msg),
        }
    }
}

impl ToPyErr for paimon_spec::Error {
    fn to_py(&self) -> PyErr {
        use paimon_spec::Error as E;
        let msg = self.to_string();
        match self {
            E::Corrupt { .. } => CorruptError::new_err(msg),
            E::Unsupported { .. } => UnsupportedError::new_err(msg),
            E::InvalidFilter { .. } | E::InvalidOption { .. } | E::Encode { .. } => {
                InvalidArgumentError::new_err(msg)
            }
            E::Internal(_) => InternalError::new_err(msg),
            _ => PaimonError::new_err(msg),
        }
    }
}

impl ToPyErr for paimon_split::Error {
    fn to_py(&self) -> PyErr {
        use paimon_split::Error as E;
        let msg = self.to_string();
        match self {
            E::Corrupt { .. } | E::Spec { .. } => CorruptError::new_err(msg),
            E::VersionMismatch { .. } | E::Unsupported { .. } => UnsupportedError::new_err(msg),
            E::Encode { .. } => InvalidArgumentError::new_err(msg),
            _ => PaimonError::new_err(msg),
        }
    }
}

impl ToPyErr for paimon_meta::Error {
    fn to_py(&self) -> PyErr {
        use paimon_meta::Error as E;
        let msg = self.to_string();
        match self {
            E::NotFound { .. }
            | E::SnapshotNotFound { .. }
            | E::SnapshotExpired { .. }
            | E::TagNotFound { .. }
            | E::CatalogObjectNotFound { .. } => NotFoundError::new_err(msg),
            E::CatalogObjectExists { .. } => AlreadyExistsError::new_err(msg),
            E::Catalog { failure, .. } => match failure {
                CatalogFailure::NotAuthorized => AuthorizationError::new_err(msg),
                CatalogFailure::Conflict => CommitConflictError::new_err(msg),
                CatalogFailure::InvalidOptions => InvalidArgumentError::new_err(msg),
                CatalogFailure::Unreachable
                | CatalogFailure::Refused
                | CatalogFailure::ServerError
                | CatalogFailure::NotImplemented
                | CatalogFailure::MalformedResponse => CatalogError::new_err(msg),
            },
            // A table whose options ask for what paimon-rs does not do (a format table).
            E::Spec {
                source: paimon_spec::Error::Unsupported { .. },
                ..
            } => UnsupportedError::new_err(msg),
            E::Corrupt { .. } | E::Spec { .. } => CorruptError::new_err(msg),
            E::Unsupported { .. } => UnsupportedError::new_err(msg),
            E::InvalidScan { .. } | E::InvalidCommit { .. } | E::InvalidArgument { .. } => {
                InvalidArgumentError::new_err(msg)
            }
            E::CommitConflict { .. } => CommitConflictError::new_err(msg),
            E::Io(e) => with_message(e.to_py(), msg),
            E::Internal(_) => InternalError::new_err(msg),
            _ => PaimonError::new_err(msg),
        }
    }
}

impl ToPyErr for paimon_data::Error {
    fn to_py(&self) -> PyErr {
        use paimon_data::Error as E;
        let msg = self.to_string();
        match self {
            E::NotFound { .. } => NotFoundError::new_err(msg),
            E::Unsupported { .. }
            | E::Spec {
                source: paimon_spec::Error::Unsupported { .. },
                ..
            } => UnsupportedError::new_err(msg),
            E::Io { source, .. } => with_message(source.to_py(), msg),
            E::Internal(_) => InternalError::new_err(msg),
            // A storage failure inside a decoder (Parquet reads through FileIO by byte ranges)
            // is still a storage failure, not a corrupt file.
            _ if io_cause(self).is_some() => match io_cause(self) {
                Some(io) => with_message(io.to_py(), msg),
                None => CorruptError::new_err(msg),
            },
            // Every other variant (Corrupt, InvalidPath, Cast, RowCountMismatch, Arrow, Parquet,
            // ORC, Spec, Merge, ...) is a file whose bytes do not hold what its metadata says.
            _ => CorruptError::new_err(msg),
        }
    }
}

impl ToPyErr for paimon_write::Error {
    fn to_py(&self) -> PyErr {
        use paimon_write::Error as E;
        let msg = self.to_string();
        match self {
            E::SchemaMismatch { .. }
            | E::NullValue { .. }
            | E::InvalidPartition { .. }
            | E::InvalidOption { .. } => InvalidArgumentError::new_err(msg),
            E::Unsupported { .. } => UnsupportedError::new_err(msg),
            E::Io { source, .. } => with_message(source.to_py(), msg),
            _ => match io_cause(self) {
                Some(io) => with_message(io.to_py(), msg),
                None => PaimonError::new_err(msg),
            },
        }
    }
}

impl ToPyErr for paimon_rs::Error {
    /// The class of the plane's error it wraps (a commit conflict stays
    /// `CommitConflictError`); the facade's own argument errors are `InvalidArgumentError`.
    fn to_py(&self) -> PyErr {
        use paimon_rs::Error as E;
        match self {
            E::Spec(e) => e.to_py(),
            E::Split(e) => e.to_py(),
            E::Io(e) => e.to_py(),
            E::Meta(e) => e.to_py(),
            E::Data(e) => e.to_py(),
            E::Write(e) => e.to_py(),
            E::Filter { .. } | E::InvalidArgument { .. } | E::ContextForOtherTable { .. } => {
                InvalidArgumentError::new_err(self.chain())
            }
            E::CompactAfterWrite { source, .. } => with_message(source.to_py(), self.chain()),
            _ => PaimonError::new_err(self.chain()),
        }
    }
}

impl ToPyErr for datafusion::error::DataFusionError {
    /// The class of the paimon error paimon-datafusion wrapped, if any (its message is the
    /// outer one, naming the table), else `PaimonError`.
    fn to_py(&self) -> PyErr {
        let msg = self.to_string();
        let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(e) = cur {
            let inner = if let Some(x) = e.downcast_ref::<paimon_meta::Error>() {
                Some(x.to_py())
            } else if let Some(x) = e.downcast_ref::<paimon_data::Error>() {
                Some(x.to_py())
            } else if let Some(x) = e.downcast_ref::<paimon_io::Error>() {
                Some(x.to_py())
            } else if let Some(x) = e.downcast_ref::<paimon_spec::Error>() {
                Some(x.to_py())
            } else {
                e.downcast_ref::<paimon_split::Error>().map(ToPyErr::to_py)
            };
            if let Some(inner) = inner {
                return with_message(inner, msg);
            }
            cur = e.source();
        }
        PaimonError::new_err(msg)
    }
}

/// The first `paimon_io::Error` among `e`'s sources.
fn io_cause<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a paimon_io::Error> {
    let mut cur = e.source();
    while let Some(c) = cur {
        if let Some(io) = c.downcast_ref::<paimon_io::Error>() {
            return Some(io);
        }
        // `std::io::Error::other(e)` hides `e` from `source()`; `get_ref` reaches it.
        if let Some(io) = c
            .downcast_ref::<std::io::Error>()
            .and_then(|x| x.get_ref())
            .and_then(|x| x.downcast_ref::<paimon_io::Error>())
        {
            return Some(io);
        }
        cur = c.source();
    }
    None
}

/// `e`'s class with the outer (more specific) message.
fn with_message(e: PyErr, msg: String) -> PyErr {
    Python::attach(|py| {
        let ty = e.get_type(py);
        PyErr::from_type(ty, msg)
    })
}

/// `r` with its error converted by [`ToPyErr`].
pub fn py<T, E: ToPyErr>(r: Result<T, E>) -> PyResult<T> {
    r.map_err(|e| e.to_py())
}
