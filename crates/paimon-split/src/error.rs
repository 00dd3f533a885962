//! Errors of the split protocol.

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

/// Result with [`Error`] as default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
