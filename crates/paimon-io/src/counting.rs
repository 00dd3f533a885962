//! A [`FileIO`] wrapper that records reads, to prove pushdown in tests.

use std::ops::Range;
use std::sync::Mutex;

use crate::error::Result;
use crate::{BoxFuture, FileIO, FileIORef, FileStatus, FileWriter};

/// One recorded read: the path and the byte range (a whole-file read records `0..size`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRecord {
    /// The path read.
    pub path: String,
    /// The byte range read.
    pub range: Range<u64>,
}

/// One recorded change to storage: the operation (`create`, `overwrite`, `publish_if_absent`,
/// `delete`, `delete_dir`, `delete_empty_dir`, `mkdirs`) and its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteRecord {
    /// The operation.
    pub operation: &'static str,
    /// The path it changed.
    pub path: String,
}

/// Wraps a [`FileIO`] and records every read, listing and change.
#[derive(Debug)]
pub struct CountingFileIO {
    inner: FileIORef,
    reads: Mutex<Vec<ReadRecord>>,
    lists: Mutex<Vec<String>>,
    writes: Mutex<Vec<WriteRecord>>,
}

impl CountingFileIO {
    /// Wraps `inner`.
    pub fn new(inner: FileIORef) -> Self {
        CountingFileIO {
            inner,
            reads: Mutex::new(Vec::new()),
            lists: Mutex::new(Vec::new()),
            writes: Mutex::new(Vec::new()),
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

    /// Every change so far, in order.
    pub fn writes(&self) -> Vec<WriteRecord> {
        self.writes.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Forgets the recorded reads, listings and changes.
    pub fn reset(&self) {
        if let Ok(mut w) = self.writes.lock() {
            w.clear();
        }
        if let Ok(mut r) = self.reads.lock() {
            r.clear();
        }
        if let Ok(mut l) = self.lists.lock() {
            l.clear();
        }
    }

    fn record_write(&self, operation: &'static str, path: &str) {
        if let Ok(mut w) = self.writes.lock() {
            w.push(WriteRecord {
                operation,
                path: path.to_string(),
            });
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

    fn read_range_async<'a>(
        &'a self,
        path: &'a str,
        range: Range<u64>,
    ) -> BoxFuture<'a, Result<bytes::Bytes>> {
        Box::pin(async move {
            let b = self.inner.read_range_async(path, range.clone()).await?;
            self.record(path, range);
            Ok(b)
        })
    }

    fn read_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<bytes::Bytes>> {
        Box::pin(async move {
            let b = self.inner.read_async(path).await?;
            self.record(path, 0..b.len() as u64);
            Ok(b)
        })
    }

    fn size(&self, path: &str) -> Result<u64> {
        self.inner.size(path)
    }

    fn size_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<u64>> {
        self.inner.size_async(path)
    }

    fn list_async<'a>(&'a self, dir: &'a str) -> BoxFuture<'a, Result<Vec<FileStatus>>> {
        if let Ok(mut l) = self.lists.lock() {
            l.push(dir.to_string());
        }
        self.inner.list_async(dir)
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

    fn create(&self, path: &str) -> Result<Box<dyn FileWriter>> {
        self.record_write("create", path);
        self.inner.create(path)
    }

    fn write_new(&self, path: &str, data: &[u8]) -> Result<()> {
        self.record_write("create", path);
        self.inner.write_new(path, data)
    }

    fn overwrite(&self, path: &str, data: &[u8]) -> Result<()> {
        self.record_write("overwrite", path);
        self.inner.overwrite(path, data)
    }

    fn publish_if_absent(&self, path: &str, data: &[u8]) -> Result<bool> {
        self.record_write("publish_if_absent", path);
        self.inner.publish_if_absent(path, data)
    }

    fn delete(&self, path: &str) -> Result<bool> {
        self.record_write("delete", path);
        self.inner.delete(path)
    }

    fn delete_dir(&self, path: &str) -> Result<bool> {
        self.record_write("delete_dir", path);
        self.inner.delete_dir(path)
    }

    fn rename_dir(&self, from: &str, to: &str) -> Result<()> {
        self.record_write("rename_dir", from);
        self.inner.rename_dir(from, to)
    }

    fn delete_empty_dir(&self, path: &str) -> Result<bool> {
        self.record_write("delete_empty_dir", path);
        self.inner.delete_empty_dir(path)
    }

    fn mkdirs(&self, path: &str) -> Result<()> {
        self.record_write("mkdirs", path);
        self.inner.mkdirs(path)
    }

    fn status(&self, path: &str) -> Result<FileStatus> {
        self.inner.status(path)
    }

    fn storage_options(&self) -> Option<Result<std::collections::BTreeMap<String, String>>> {
        self.inner.storage_options()
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
        futures::executor::block_on(io.read_range_async(p, 7..9)).unwrap();
        assert_eq!(io.reads()[2].range, 7..9);
        io.reset();
        assert_eq!(io.bytes_read(), 0);
        let q = dir.path().join("g");
        let q = q.to_str().unwrap();
        io.write_new(q, b"x").unwrap();
        assert!(!io.publish_if_absent(q, b"y").unwrap());
        assert!(io.delete(q).unwrap());
        let ops: Vec<_> = io.writes().iter().map(|w| w.operation).collect();
        assert_eq!(ops, ["create", "publish_if_absent", "delete"]);
    }
}
