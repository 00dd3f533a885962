//! Errors of the split and commit-message protocol.

/// Errors decoding or encoding split bytes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes do not follow the format; `offset` is where decoding stopped.
    #[error("corrupt split at byte {offset}: {reason}")]
    Corrupt {
        /// Byte offset into the input.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// A split version this implementation does not read or write.
    #[error("unsupported DataSplit version {found} (supported: {supported})")]
    VersionMismatch {
        /// The version found or asked for.
        found: i32,
        /// What is supported.
        supported: String,
    },
    /// A commit-message or manifest-committable version this implementation does not read or
    /// write.
    #[error("unsupported {what} version {found} (supported: {supported})")]
    UnsupportedVersion {
        /// The serializer (`CommitMessage`, `ManifestCommittable`).
        what: &'static str,
        /// The version found or asked for.
        found: i32,
        /// What is supported.
        supported: String,
    },
    /// A split type or feature that has no typed decoding here.
    #[error("unsupported: {feature}")]
    Unsupported {
        /// What is unsupported.
        feature: String,
    },
    /// A value that cannot be encoded at the requested version.
    #[error("cannot encode split: {reason}")]
    Encode {
        /// Why.
        reason: String,
    },
    /// Error from the format model (a malformed row inside the split).
    #[error("corrupt split at byte {offset}: {source}")]
    Spec {
        /// Byte offset of the enclosing structure.
        offset: usize,
        /// The underlying error.
        #[source]
        source: paimon_spec::Error,
    },
}

impl Error {
    /// The same error with its byte offset moved by `base` (for bytes decoded from a slice
    /// that starts at `base` of the input).
    pub(crate) fn shifted(self, base: usize) -> Self {
        match self {
            Error::Corrupt { offset, reason } => Error::Corrupt {
                offset: offset + base,
                reason,
            },
            Error::Spec { offset, source } => Error::Spec {
                offset: offset + base,
                source,
            },
            other => other,
        }
    }
}

/// Result with [`Error`] as default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
