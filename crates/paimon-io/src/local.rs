//! Local filesystem storage (Java `LocalFileIO`).

use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;
use std::time::UNIX_EPOCH;

use crate::error::{Error, Result};
use crate::{FileIO, FileStatus, FileWriter};

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
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = crate::join(dir, &name);
            let meta = match entry.metadata() {
                Ok(meta) => meta,
                // Removed between the directory read and its stat (a publish's temporary file,
                // an expired snapshot): it is not there, so it is not listed. Reporting it as
                // not found would read as "the directory is missing", and a committer would take
                // a table whose listing raced a delete for a table without snapshots.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::from_io(&path, e)),
            };
            out.push(status_of(path, &meta));
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn create(&self, path: &str) -> Result<Box<dyn FileWriter>> {
        let os = Path::new(os_path(path));
        make_parent(path, os)?;
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(os)
            .map_err(|e| Error::from_io(path, e))?;
        Ok(Box::new(LocalFileWriter {
            path: path.to_string(),
            file: Some(std::io::BufWriter::with_capacity(1 << 16, file)),
            position: 0,
        }))
    }

    fn overwrite(&self, path: &str, data: &[u8]) -> Result<()> {
        // Write aside, then rename over: rename replaces atomically on POSIX filesystems.
        let os = Path::new(os_path(path));
        make_parent(path, os)?;
        let tmp = temp_sibling(os);
        fs::write(&tmp, data).map_err(|e| Error::from_io(path, e))?;
        fs::rename(&tmp, os).map_err(|e| {
            let _ = fs::remove_file(&tmp);
            Error::from_io(path, e)
        })
    }

    fn publish_if_absent(&self, path: &str, data: &[u8]) -> Result<bool> {
        // The content is written whole under a private name, then linked to `path`: `link(2)`
        // fails with EEXIST when the name is taken, atomically, so readers never see a partial
        // file and two publishers never both win. Rename would replace an existing file.
        let os = Path::new(os_path(path));
        make_parent(path, os)?;
        let tmp = temp_sibling(os);
        fs::write(&tmp, data).map_err(|e| Error::from_io(path, e))?;
        let linked = fs::hard_link(&tmp, os);
        let removed = fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                removed.map_err(|e| Error::from_io(path, e))?;
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(Error::from_io(path, e)),
        }
    }

    fn delete(&self, path: &str) -> Result<bool> {
        match fs::remove_file(os_path(path)) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::from_io(path, e)),
        }
    }

    fn delete_dir(&self, path: &str) -> Result<bool> {
        match fs::remove_dir_all(os_path(path)) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::from_io(path, e)),
        }
    }

    fn rename_dir(&self, from: &str, to: &str) -> Result<()> {
        let target = Path::new(os_path(to));
        if target.exists() {
            return Err(Error::from_io(
                to,
                std::io::Error::new(std::io::ErrorKind::AlreadyExists, "rename target exists"),
            ));
        }
        fs::rename(os_path(from), target).map_err(|e| Error::from_io(from, e))
    }

    fn delete_empty_dir(&self, path: &str) -> Result<bool> {
        // rmdir(2) refuses a directory with anything in it, atomically.
        match fs::remove_dir(os_path(path)) {
            Ok(()) => Ok(true),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::DirectoryNotEmpty
                ) =>
            {
                Ok(false)
            }
            Err(e) => Err(Error::from_io(path, e)),
        }
    }

    fn mkdirs(&self, path: &str) -> Result<()> {
        fs::create_dir_all(os_path(path)).map_err(|e| Error::from_io(path, e))
    }

    fn status(&self, path: &str) -> Result<FileStatus> {
        let meta = fs::metadata(os_path(path)).map_err(|e| Error::from_io(path, e))?;
        Ok(status_of(path.to_string(), &meta))
    }
}

fn status_of(path: String, meta: &fs::Metadata) -> FileStatus {
    let modified_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok());
    FileStatus {
        path,
        size: if meta.is_dir() { 0 } else { meta.len() },
        is_dir: meta.is_dir(),
        modified_ms,
    }
}

fn make_parent(path: &str, os: &Path) -> Result<()> {
    match os.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => {
            fs::create_dir_all(parent).map_err(|e| Error::from_io(path, e))
        }
        _ => Ok(()),
    }
}

/// A hidden name beside `os` ([`crate::hidden_temp_name`]).
fn temp_sibling(os: &Path) -> std::path::PathBuf {
    let name = os
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    os.with_file_name(crate::hidden_temp_name(&name))
}

/// A local file being written; removed again when aborted or dropped unclosed.
#[derive(Debug)]
struct LocalFileWriter {
    path: String,
    file: Option<std::io::BufWriter<fs::File>>,
    position: u64,
}

impl Write for LocalFileWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| std::io::Error::other("file already closed"))?;
        let n = file.write(buf)?;
        self.position += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl FileWriter for LocalFileWriter {
    fn position(&self) -> u64 {
        self.position
    }

    fn close(mut self: Box<Self>) -> Result<u64> {
        if let Some(mut f) = self.file.take() {
            f.flush().map_err(|e| Error::from_io(&self.path, e))?;
        }
        Ok(self.position)
    }

    fn abort(mut self: Box<Self>) -> Result<()> {
        self.file = None;
        match fs::remove_file(os_path(&self.path)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::from_io(&self.path, e)),
        }
    }
}

impl Drop for LocalFileWriter {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(os_path(&self.path));
        }
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

    #[test]
    fn writes_new_files_and_never_replaces_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let io = LocalFileIO::new();
        let f = format!("{d}/x/y/data-0.parquet");
        io.write_new(&f, b"one").unwrap();
        assert_eq!(&io.read(&f).unwrap()[..], b"one");
        assert!(matches!(
            io.write_new(&f, b"two"),
            Err(Error::AlreadyExists { .. })
        ));
        assert_eq!(&io.read(&f).unwrap()[..], b"one");

        let mut w = io.create(&format!("file://{d}/x/stream")).unwrap();
        w.write_all(b"abc").unwrap();
        w.write_all(b"de").unwrap();
        assert_eq!(w.position(), 5);
        assert_eq!(w.close().unwrap(), 5);
        assert_eq!(&io.read(&format!("{d}/x/stream")).unwrap()[..], b"abcde");

        let w = io.create(&format!("{d}/x/aborted")).unwrap();
        w.abort().unwrap();
        assert!(!io.exists(&format!("{d}/x/aborted")).unwrap());
        drop(io.create(&format!("{d}/x/dropped")).unwrap());
        assert!(!io.exists(&format!("{d}/x/dropped")).unwrap());

        assert!(io.delete(&f).unwrap());
        assert!(!io.delete(&f).unwrap());
        assert!(io.delete_dir(&format!("{d}/x")).unwrap());
        assert!(!io.exists(&format!("{d}/x")).unwrap());
        io.mkdirs(&format!("{d}/m/n")).unwrap();
        assert!(io.status(&format!("{d}/m/n")).unwrap().is_dir);
        io.write_new(&format!("{d}/m/n/f"), b"x").unwrap();
        assert!(
            !io.delete_empty_dir(&format!("{d}/m/n")).unwrap(),
            "not empty"
        );
        assert!(io.exists(&format!("{d}/m/n/f")).unwrap());
        assert!(io.delete(&format!("{d}/m/n/f")).unwrap());
        assert!(io.delete_empty_dir(&format!("{d}/m/n")).unwrap());
        assert!(!io.exists(&format!("{d}/m/n")).unwrap());
        assert!(!io.delete_empty_dir(&format!("{d}/m/n")).unwrap(), "absent");
        assert!(io.delete_empty_dir(&format!("{d}/m")).unwrap());
    }

    #[test]
    fn a_listing_racing_deletes_lists_what_stays() {
        // Files created and removed while the directory is listed (publishes' temporary files,
        // expiries) must neither fail the listing nor hide the files that stay: a committer
        // once took such a failure for a table without snapshots and published snapshot-1.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap().to_string();
        let io = LocalFileIO::new();
        io.write_new(&format!("{d}/snapshot-7"), b"stays").unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut i = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let p = format!("{d}/.tmp-{i}");
                    std::fs::write(&p, b"x").unwrap();
                    std::fs::remove_file(&p).unwrap();
                    i += 1;
                }
            });
            for _ in 0..3000 {
                let names: Vec<String> = io
                    .list(&d)
                    .unwrap_or_else(|e| panic!("listing {d} failed: {e}"))
                    .iter()
                    .map(|f| f.name().to_string())
                    .collect();
                assert!(names.contains(&"snapshot-7".to_string()), "{names:?}");
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
    }

    #[test]
    fn publish_if_absent_has_one_winner_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap().to_string();
        let io = std::sync::Arc::new(LocalFileIO::new());
        let target = format!("{d}/snapshot/snapshot-7");
        let winners: Vec<bool> = (0..8)
            .map(|i| {
                let io = io.clone();
                let target = target.clone();
                std::thread::spawn(move || {
                    io.publish_if_absent(&target, format!("writer {i}").as_bytes())
                        .unwrap()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        assert_eq!(winners.iter().filter(|w| **w).count(), 1);
        let winner = winners.iter().position(|w| *w).unwrap();
        assert_eq!(
            io.read(&target).unwrap(),
            format!("writer {winner}").as_bytes()
        );
        let names: Vec<String> = io
            .list(&format!("{d}/snapshot"))
            .unwrap()
            .iter()
            .map(|s| s.name().to_string())
            .collect();
        assert_eq!(names, vec!["snapshot-7".to_string()]);

        io.overwrite(&format!("{d}/snapshot/LATEST"), b"7").unwrap();
        io.overwrite(&format!("{d}/snapshot/LATEST"), b"8").unwrap();
        assert_eq!(&io.read(&format!("{d}/snapshot/LATEST")).unwrap()[..], b"8");
        assert!(io.status(&target).unwrap().modified_ms.unwrap() > 0);
    }
}
