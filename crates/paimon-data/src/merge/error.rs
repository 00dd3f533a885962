//! Errors of merge-on-read.
//!
//! Kept local to the merge module so it does not depend on the reader's error type; the reader
//! converts a [`MergeError`] into its own error (its [`MergeError::Input`] variant carries the
//! reader's own error back unchanged, recoverable with `downcast`).

/// Errors raised while merging sorted runs of a primary-key table.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// A run yielded an error; the source is the run's own error.
    #[error("reading a sorted run failed: {0}")]
    Input(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A batch that does not have the layout the merge was configured with.
    #[error("invalid merge input: {reason}")]
    InvalidInput {
        /// What is wrong with the batch.
        reason: String,
    },
    /// A table option (or combination of options) the merge engine rejects, as Java does.
    #[error("invalid merge configuration: {reason}")]
    InvalidOption {
        /// Why the configuration is rejected.
        reason: String,
    },
    /// A merge engine, aggregate function or type this implementation does not handle.
    #[error("unsupported: {feature}")]
    Unsupported {
        /// The feature.
        feature: String,
    },
    /// The merge function rejected the data, where Java throws (e.g. a delete record reaching a
    /// partial-update table without `ignore-delete`, or an integer sum overflowing).
    #[error("merge function failed: {reason}")]
    MergeFunction {
        /// Java's reason, reworded.
        reason: String,
    },
    /// An Arrow kernel failed while assembling output.
    #[error("Arrow error while merging: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// Result of merge operations.
pub type Result<T, E = MergeError> = std::result::Result<T, E>;

pub(crate) fn invalid_input(reason: impl Into<String>) -> MergeError {
    MergeError::InvalidInput {
        reason: reason.into(),
    }
}

pub(crate) fn invalid_option(reason: impl Into<String>) -> MergeError {
    MergeError::InvalidOption {
        reason: reason.into(),
    }
}

pub(crate) fn merge_failed(reason: impl Into<String>) -> MergeError {
    MergeError::MergeFunction {
        reason: reason.into(),
    }
}

pub(crate) fn unsupported(feature: impl Into<String>) -> MergeError {
    MergeError::Unsupported {
        feature: feature.into(),
    }
}
