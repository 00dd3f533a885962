//! A [`FileIO`] wrapper that records reads, to prove pushdown in tests.

use std::ops::Range;
use std::sync::Mutex;

use crate::error::Result;
use crate::{FileIO, FileIORef, FileStatus};

/// One recorded read: the path and the byte range (a whole-file read records `0..size`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRecord {
    /// The path read.
    pub path: String,
    /// The byte range read.
    pub range: Range<u64>,
}

/// Wraps a [`FileIO`] and records every read and listing.
#[derive(Debug)]
pub struct CountingFileIO {
    inner: FileIORef,
    reads: Mutex<Vec<ReadRecord>>,
    lists: Mutex<Vec<String>>,
}

impl CountingFileIO {
    /// Wraps `inner`.
    pub fn new(inner: FileIORef) -> Self {
        CountingFileIO {
            inner,
            reads: Mutex::new(Vec::new()),
            lists: Mutex::new(Vec::new()),
        }
    }

    /// Every read so far, in order.
    pub fn reads(&self) -> Vec<ReadRecord> {
        self.reads.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Total bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.reads()
            .iter()
            .map(|r| r.range.end - r.range.start)
            .sum()
    }

    /// Number of reads so far.
    pub fn read_count(&self) -> usize {
        self.reads.lock().map(|r| r.len()).unwrap_or(0)
    }

    /// Directories listed so far.
    pub fn lists(&self) -> Vec<String> {
        self.lists.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Forgets the recorded reads and listings.
    pub fn reset(&self) {
        if let Ok(mut r) = self.reads.lock() {
            r.clear();
        }
        if let Ok(mut l) = self.lists.lock() {
            l.clear();
        }
    }

    fn record(&self, path: &str, range: Range<u64>) {
        if let Ok(mut r) = self.reads.lock() {
            r.push(ReadRecord {
                path: path.to_string(),
                range,
            });
        }
    }
}

impl FileIO for CountingFileIO {
    fn read(&self, path: &str) -> Result<bytes::Bytes> {
        let b = self.inner.read(path)?;
        self.record(path, 0..b.len() as u64);
        Ok(b)
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> Result<bytes::Bytes> {
        let b = self.inner.read_range(path, range.clone())?;
        self.record(path, range);
        Ok(b)
    }

    fn size(&self, path: &str) -> Result<u64> {
        self.inner.size(path)
    }

    fn exists(&self, path: &str) -> Result<bool> {
        self.inner.exists(path)
    }

    fn list(&self, dir: &str) -> Result<Vec<FileStatus>> {
        if let Ok(mut l) = self.lists.lock() {
            l.push(dir.to_string());
        }
        self.inner.list(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LocalFileIO;
    use std::sync::Arc;

    #[test]
    fn records_reads() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        let p = p.to_str().unwrap();
        let io = CountingFileIO::new(Arc::new(LocalFileIO::new()));
        io.read(p).unwrap();
        io.read_range(p, 2..5).unwrap();
        assert_eq!(io.read_count(), 2);
        assert_eq!(io.bytes_read(), 13);
        assert_eq!(io.reads()[1].range, 2..5);
        io.reset();
        assert_eq!(io.bytes_read(), 0);
    }
}
