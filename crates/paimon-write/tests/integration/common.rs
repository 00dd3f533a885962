//! Shared helpers.

use std::path::PathBuf;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared/testdata` next to the repository.
pub fn testdata() -> PathBuf {
    repo().join("../shared/testdata")
}
