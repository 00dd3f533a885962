//! Local filesystem storage (Java `LocalFileIO`).

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;

use crate::error::{Error, Result};
use crate::{FileIO, FileStatus};

/// [`FileIO`] over the local filesystem; accepts plain paths and `file://` URLs.
#[derive(Debug, Clone, Default)]
pub struct LocalFileIO;

impl LocalFileIO {
    /// A local file IO.
    pub fn new() -> Self {
        LocalFileIO
    }
}

/// Strips `file://` (and the `file:` form Java's `Path` prints) to get an OS path.
fn os_path(path: &str) -> &str {
    if let Some(rest) = path.strip_prefix("file://") {
        rest
    } else if let Some(rest) = path.strip_prefix("file:") {
        rest
    } else {
        path
    }
}

impl FileIO for LocalFileIO {
    fn read(&self, path: &str) -> Result<bytes::Bytes> {
        fs::read(os_path(path))
            .map(bytes::Bytes::from)
            .map_err(|e| Error::from_io(path, e))
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> Result<bytes::Bytes> {
        let mut f = fs::File::open(os_path(path)).map_err(|e| Error::from_io(path, e))?;
        let size = f.metadata().map_err(|e| Error::from_io(path, e))?.len();
        if range.start > range.end || range.end > size {
            return Err(Error::InvalidRange {
                path: path.to_string(),
                start: range.start,
                end: range.end,
                size,
            });
        }
        let len = usize::try_from(range.end - range.start).map_err(|_| Error::InvalidRange {
            path: path.to_string(),
            start: range.start,
            end: range.end,
            size,
        })?;
        f.seek(SeekFrom::Start(range.start))
            .map_err(|e| Error::from_io(path, e))?;
        let mut buf = vec![0u8; len];
        f.read_exact(&mut buf)
            .map_err(|e| Error::from_io(path, e))?;
        Ok(bytes::Bytes::from(buf))
    }

    fn size(&self, path: &str) -> Result<u64> {
        fs::metadata(os_path(path))
            .map(|m| m.len())
            .map_err(|e| Error::from_io(path, e))
    }

    fn exists(&self, path: &str) -> Result<bool> {
        fs::exists(os_path(path)).map_err(|e| Error::from_io(path, e))
    }

    fn list(&self, dir: &str) -> Result<Vec<FileStatus>> {
        let rd = fs::read_dir(os_path(dir)).map_err(|e| Error::from_io(dir, e))?;
        let mut out = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|e| Error::from_io(dir, e))?;
            let meta = entry.metadata().map_err(|e| Error::from_io(dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            out.push(FileStatus {
                path: crate::join(dir, &name),
                size: if meta.is_dir() { 0 } else { meta.len() },
                is_dir: meta.is_dir(),
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ranges_and_lists() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap().to_string();
        std::fs::write(dir.path().join("a"), b"hello world").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let io = LocalFileIO::new();
        let url = format!("file://{d}/a");
        assert_eq!(&io.read(&url).unwrap()[..], b"hello world");
        assert_eq!(
            &io.read_range(&format!("{d}/a"), 6..11).unwrap()[..],
            b"world"
        );
        assert_eq!(io.size(&url).unwrap(), 11);
        assert!(matches!(
            io.read_range(&url, 5..20),
            Err(Error::InvalidRange { .. })
        ));
        let e = io.read(&format!("{d}/missing")).unwrap_err();
        assert!(e.is_not_found());
        assert!(e.to_string().contains("missing"));
        let l = io.list(&d).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].name(), "a");
        assert!(!l[0].is_dir);
        assert!(l[1].is_dir);
        assert!(io.list(&format!("{d}/nope")).unwrap_err().is_not_found());
    }
}
