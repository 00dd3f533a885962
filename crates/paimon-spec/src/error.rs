//! Errors of the format model.

/// Errors raised while parsing or encoding Paimon format data.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bytes or text that do not follow the format; `reason` says what is wrong.
    #[error("corrupt {what}: {reason}")]
    Corrupt {
        /// What was being decoded (e.g. "BinaryRow", "schema JSON").
        what: String,
        /// What is wrong, with an offset where one applies.
        reason: String,
    },
    /// A format feature this implementation does not handle.
    #[error("unsupported: {feature}")]
    Unsupported {
        /// The feature.
        feature: String,
    },
    /// A table option whose value cannot be parsed.
    #[error("invalid value {value:?} for option '{key}': {reason}")]
    InvalidOption {
        /// Option key.
        key: String,
        /// The raw value.
        value: String,
        /// Why it is invalid.
        reason: String,
    },
    /// A value that cannot be encoded (e.g. a string too long for Java's `writeUTF`).
    #[error("cannot encode {what}: {reason}")]
    Encode {
        /// What was being encoded.
        what: String,
        /// Why it failed.
        reason: String,
    },
    /// SQL filter text that does not parse, names an unknown column or has an ill-typed
    /// literal (`predicate::sql`, feature `sql`).
    #[error("filter {filter:?}: {reason}")]
    InvalidFilter {
        /// The filter text.
        filter: String,
        /// What is wrong.
        reason: String,
    },
    /// A path from bytes or options that would leave the table's directory and its configured
    /// external roots ([`crate::layout::TableRoots`]), or a file name that is not one plain name.
    #[error("{field} {path:?} is not allowed: {reason}")]
    PathNotAllowed {
        /// Where the path came from (a field of a message, split or task, or an option key).
        field: String,
        /// The path as given.
        path: String,
        /// Why it is refused.
        reason: String,
    },
    /// A bug in paimon-rs.
    #[error("internal error (a bug in paimon-rs): {0}")]
    Internal(String),
}

/// Result with [`Error`] as default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds a [`Error::Corrupt`].
    pub fn corrupt(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// Builds a [`Error::Unsupported`].
    pub fn unsupported(feature: impl Into<String>) -> Self {
        Error::Unsupported {
            feature: feature.into(),
        }
    }
}
