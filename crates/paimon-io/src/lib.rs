//! # paimon-io: storage access for paimon-rs
//!
//! A small synchronous [`FileIO`] trait over storage (Java `org.apache.paimon.fs.FileIO`),
//! with [`LocalFileIO`] for the local filesystem (plain paths and `file://` URLs) and
//! [`CountingFileIO`], a wrapper that records every byte range read so tests can prove
//! pushdown.
//!
//! ```
//! use paimon_io::{FileIO, LocalFileIO};
//! let io = LocalFileIO::new();
//! let dir = std::env::temp_dir();
//! assert!(io.exists(dir.to_str().unwrap()).unwrap());
//! ```

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod counting;
pub mod error;
mod local;

use std::ops::Range;
use std::sync::Arc;

pub use counting::{CountingFileIO, ReadRecord};
pub use error::{Error, Result};
pub use local::LocalFileIO;

/// One entry of a directory listing (Java `FileStatus`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStatus {
    /// Full path of the entry, in the same form (plain or `file://`) as the listed directory.
    pub path: String,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// Whether the entry is a directory.
    pub is_dir: bool,
}

impl FileStatus {
    /// The last path segment.
    pub fn name(&self) -> &str {
        file_name(&self.path)
    }
}

/// Synchronous read access to a storage system (Java `FileIO`, read side).
///
/// Paths are strings: plain local paths, or URLs whose scheme selects the backend.
pub trait FileIO: Send + Sync + std::fmt::Debug {
    /// Reads the whole file.
    ///
    /// # Errors
    /// [`Error::NotFound`] when the file is absent, [`Error::Io`] on storage failures.
    fn read(&self, path: &str) -> Result<bytes::Bytes>;

    /// Reads the bytes in `range` of the file.
    ///
    /// # Errors
    /// [`Error::InvalidRange`] when the range exceeds the file; otherwise as [`FileIO::read`].
    fn read_range(&self, path: &str, range: Range<u64>) -> Result<bytes::Bytes>;

    /// The file's size in bytes.
    ///
    /// # Errors
    /// [`Error::NotFound`] when the file is absent.
    fn size(&self, path: &str) -> Result<u64>;

    /// Whether the file or directory exists.
    ///
    /// # Errors
    /// [`Error::Io`] when existence cannot be determined.
    fn exists(&self, path: &str) -> Result<bool>;

    /// The entries of a directory, sorted by path. A missing directory is [`Error::NotFound`].
    ///
    /// # Errors
    /// [`Error::NotFound`] when the directory is absent.
    fn list(&self, dir: &str) -> Result<Vec<FileStatus>>;
}

/// Shared handle to a [`FileIO`].
pub type FileIORef = Arc<dyn FileIO>;

/// The [`FileIO`] for `path`, chosen by its scheme (local for plain paths and `file://`).
///
/// # Errors
/// [`Error::UnsupportedScheme`] for object-store URLs in a build without that backend.
pub fn file_io_for(path: &str) -> Result<FileIORef> {
    match scheme_of(path) {
        None | Some("file") => Ok(Arc::new(LocalFileIO::new())),
        Some(s) => Err(Error::UnsupportedScheme {
            scheme: s.to_string(),
            path: path.to_string(),
        }),
    }
}

/// The URL scheme of `path` (`s3` in `s3://b/k`), if any.
pub fn scheme_of(path: &str) -> Option<&str> {
    let idx = path.find("://")?;
    let s = &path[..idx];
    (!s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.'))
    .then_some(s)
}

/// Joins a directory and a relative name with exactly one `/`.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        return name.to_string();
    }
    format!(
        "{}/{}",
        dir.trim_end_matches('/'),
        name.trim_start_matches('/')
    )
}

/// The last segment of a path.
pub fn file_name(path: &str) -> &str {
    let p = path.trim_end_matches('/');
    p.rsplit('/').next().unwrap_or(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_helpers() {
        assert_eq!(scheme_of("s3://b/k"), Some("s3"));
        assert_eq!(scheme_of("/tmp/x"), None);
        assert_eq!(join("/a/", "b"), "/a/b");
        assert_eq!(join("file:///a", "b"), "file:///a/b");
        assert_eq!(file_name("/a/b/c"), "c");
        assert_eq!(file_name("/a/b/"), "b");
        assert!(file_io_for("s3://b/k").is_err());
        assert!(file_io_for("file:///tmp").is_ok());
    }
}
