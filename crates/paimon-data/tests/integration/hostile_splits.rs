//! Splits naming files outside the table (issue 39): a deletion file's path or a data file's
//! `_EXTERNAL_PATH` that points at `../`, at an absolute path elsewhere, at another scheme or
//! bucket, at `/dev/zero` or at a FIFO is refused with an error naming the field, before the
//! reader touches the path; a deletion vector is read as its entry only, checked against the
//! data file's row count before it is built, and its errors never echo the file's bytes.
//!
//! Every read goes through [`Recording`], which lists each path the reader asks storage
//! about, so "never touched" is checked, not assumed.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use paimon_data::deletion_vector::{DeletionVector, INDEX_FILE_VERSION};
use paimon_data::{Error, SplitReader};
use paimon_io::{FileIO, FileStatus, LocalFileIO};
use paimon_spec::data_file::DeletionFile;

use super::ranged_reads::{parquet_file, properties, table_of, Table, ROWS};

/// The secret a hostile split tries to read, four bytes per error message.
const SECRET: &[u8] = b"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n";

/// Local files, with every path asked about recorded.
#[derive(Debug, Default)]
struct Recording {
    inner: LocalFileIO,
    touched: Mutex<Vec<String>>,
}

impl Recording {
    fn note(&self, path: &str) {
        self.touched.lock().unwrap().push(path.to_string());
    }

    /// Whether any recorded path names `file` (by its last segment).
    fn touched_name(&self, file: &str) -> bool {
        self.touched
            .lock()
            .unwrap()
            .iter()
            .any(|p| p.rsplit('/').next() == Some(file))
    }
}

impl FileIO for Recording {
    fn read(&self, path: &str) -> paimon_io::Result<bytes::Bytes> {
        self.note(path);
        self.inner.read(path)
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> paimon_io::Result<bytes::Bytes> {
        self.note(path);
        self.inner.read_range(path, range)
    }

    fn read_range_async<'a>(
        &'a self,
        path: &'a str,
        range: Range<u64>,
    ) -> paimon_io::BoxFuture<'a, paimon_io::Result<bytes::Bytes>> {
        self.note(path);
        Box::pin(async move { self.inner.read_range(path, range) })
    }

    fn read_async<'a>(
        &'a self,
        path: &'a str,
    ) -> paimon_io::BoxFuture<'a, paimon_io::Result<bytes::Bytes>> {
        self.note(path);
        Box::pin(async move { self.inner.read(path) })
    }

    fn size(&self, path: &str) -> paimon_io::Result<u64> {
        self.note(path);
        self.inner.size(path)
    }

    fn size_async<'a>(&'a self, path: &'a str) -> paimon_io::BoxFuture<'a, paimon_io::Result<u64>> {
        self.note(path);
        Box::pin(async move { self.inner.size(path) })
    }

    fn exists(&self, path: &str) -> paimon_io::Result<bool> {
        self.note(path);
        self.inner.exists(path)
    }

    fn status(&self, path: &str) -> paimon_io::Result<FileStatus> {
        self.note(path);
        self.inner.status(path)
    }

    fn list(&self, dir: &str) -> paimon_io::Result<Vec<FileStatus>> {
        self.inner.list(dir)
    }
}

fn table(tag: &str) -> Table {
    table_of(
        &format!("hostile-{tag}"),
        "parquet",
        &parquet_file(properties().build()),
    )
}

/// A directory beside the tables, removed when dropped.
struct Outside(PathBuf);

impl Outside {
    fn new(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!("paimon-outside-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Outside(d)
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Reads `t`'s split (sync, or async on a current-thread runtime) through `io` on another
/// thread, giving up after `limit`: the rows' count, or the error.
fn read(
    t: &Table,
    io: Arc<Recording>,
    asynchronous: bool,
    limit: Duration,
) -> Result<usize, Error> {
    let split = t.split.clone();
    let dir = s(&t.dir);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let reader = SplitReader::builder(io).build();
        let result = if asynchronous {
            use futures::StreamExt;
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            let split = paimon_split::Split::Data(split);
            rt.block_on(reader.read_async(&dir, &split).collect::<Vec<_>>())
                .into_iter()
                .collect::<Result<Vec<RecordBatch>, _>>()
        } else {
            reader
                .read(&dir, &split)
                .and_then(|it| it.collect::<Result<Vec<RecordBatch>, _>>())
        };
        let _ = tx.send(result.map(|b| b.iter().map(RecordBatch::num_rows).sum()));
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("the read did not finish within {limit:?}"))
}

/// The field a path refusal names, if `e` is one.
fn refused_field(e: &Error) -> Option<&str> {
    match e {
        Error::Spec {
            source: paimon_spec::Error::PathNotAllowed { field, .. },
            ..
        } => Some(field),
        _ => None,
    }
}

/// Every rendering of the 4-byte windows of `bytes` an error could echo: text, decimal and
/// hexadecimal, both byte orders.
fn renderings(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for w in bytes.windows(4) {
        let w: [u8; 4] = w.try_into().unwrap();
        for v in [u32::from_be_bytes(w), u32::from_le_bytes(w)] {
            out.push(v.to_string());
            out.push((v as i32).to_string());
            out.push(format!("{v:x}"));
            out.push(format!("{v:X}"));
        }
    }
    for w in bytes.windows(3) {
        if let Ok(t) = std::str::from_utf8(w) {
            out.push(t.to_string());
        }
    }
    out.retain(|r| r.len() >= 3);
    out
}

fn assert_no_secret(message: &str) {
    for r in renderings(SECRET) {
        assert!(
            !message.contains(&r),
            "the error echoes the file's bytes ({r}): {message}"
        );
    }
}

fn deletion_file(path: String, offset: i64, length: i64) -> DeletionFile {
    DeletionFile {
        path,
        offset,
        length,
        cardinality: None,
    }
}

/// Deletion files outside the table: through `../`, at an absolute path, under another
/// scheme or bucket, `/dev/zero` and a FIFO. Each is refused naming `DeletionFile.path`,
/// quickly, and the reader never touches it, in the sync and the async read.
#[test]
fn deletion_files_outside_the_table_are_refused_untouched() {
    let outside = Outside::new("dv");
    std::fs::write(outside.0.join("secret.txt"), SECRET).unwrap();
    let fifo = outside.0.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let mut t = table("dv-outside");
    let escape = format!("{}/../{}/secret.txt", s(&t.dir), outside.0.display());
    let hostile = [
        s(&outside.0.join("secret.txt")),
        escape,
        format!("{}/index/../../secret.txt", s(&t.dir)),
        "/dev/zero".to_string(),
        s(&fifo),
        "s3://other-bucket/warehouse/secret.txt".to_string(),
        format!("oss://bucket{}/secret.txt", s(&t.dir)),
    ];
    for path in hostile {
        for asynchronous in [false, true] {
            t.split.data_deletion_files = Some(vec![Some(deletion_file(path.clone(), 1, 24))]);
            let io = Arc::new(Recording::default());
            let started = Instant::now();
            let e = read(&t, io.clone(), asynchronous, Duration::from_secs(20)).expect_err(&path);
            assert_eq!(refused_field(&e), Some("DeletionFile.path"), "{path}: {e}");
            assert!(started.elapsed() < Duration::from_secs(5), "{path}");
            for name in ["secret.txt", "zero", "fifo"] {
                assert!(!io.touched_name(name), "{path}: {name} was touched");
            }
            assert_no_secret(&e.to_string());
        }
    }
}

/// An index file's bytes never reach an error message: a deletion file in the table whose
/// bytes are a secret, read at every offset, fails with messages holding none of them.
#[test]
fn deletion_vector_errors_do_not_echo_file_bytes() {
    let mut t = table("dv-oracle");
    let index = t.dir.join("index");
    std::fs::create_dir_all(&index).unwrap();
    std::fs::write(index.join("index-secret-0"), SECRET).unwrap();
    for offset in 0..(SECRET.len() as i64 - 8) {
        t.split.data_deletion_files = Some(vec![Some(deletion_file(
            s(&index.join("index-secret-0")),
            offset,
            8,
        ))]);
        let e = read(
            &t,
            Arc::new(Recording::default()),
            false,
            Duration::from_secs(20),
        )
        .expect_err("a secret is no deletion vector");
        assert_no_secret(&e.to_string());
    }
    // A frame whose length prefix and CRC check out around bytes of the secret: the magic
    // is wrong, and the message says so without it.
    let body = &SECRET[..12];
    let mut frame = vec![INDEX_FILE_VERSION];
    frame.extend_from_slice(&(body.len() as i32).to_be_bytes());
    frame.extend_from_slice(body);
    frame.extend_from_slice(&crc32fast::hash(body).to_be_bytes());
    std::fs::write(index.join("index-secret-1"), &frame).unwrap();
    t.split.data_deletion_files = Some(vec![Some(deletion_file(
        s(&index.join("index-secret-1")),
        1,
        body.len() as i64,
    ))]);
    let e = read(
        &t,
        Arc::new(Recording::default()),
        false,
        Duration::from_secs(20),
    )
    .expect_err("bad magic");
    assert!(e.to_string().contains("bad magic"), "{e}");
    assert_no_secret(&e.to_string());
}

/// A FIFO and a directory in the table's index directory, named as deletion files: refused
/// from their status, never opened (opening a FIFO would wait for a writer forever).
#[test]
fn a_fifo_or_directory_in_the_table_is_not_opened_as_a_deletion_file() {
    let mut t = table("dv-fifo");
    let index = t.dir.join("index");
    std::fs::create_dir_all(index.join("index-dir-0")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(index.join("index-fifo-0"))
        .status()
        .unwrap();
    assert!(made.success());
    for name in ["index-fifo-0", "index-dir-0"] {
        for asynchronous in [false, true] {
            t.split.data_deletion_files =
                Some(vec![Some(deletion_file(s(&index.join(name)), 1, 24))]);
            let e = read(
                &t,
                Arc::new(Recording::default()),
                asynchronous,
                Duration::from_secs(20),
            )
            .expect_err(name);
            assert!(matches!(e, Error::Corrupt { .. }), "{name}: {e}");
        }
    }
}

/// A 32-bit vector of 65,536 full run containers (its frame in an index file): 2^32 deleted positions in about 900 KB.
fn vector_of_every_position() -> Vec<u8> {
    let containers = 1usize << 16;
    let mut bitmap = Vec::new();
    bitmap.extend_from_slice(&(12347u32 | ((containers as u32 - 1) << 16)).to_le_bytes());
    bitmap.extend(std::iter::repeat_n(0xFFu8, containers / 8));
    for key in 0..containers {
        bitmap.extend_from_slice(&(key as u16).to_le_bytes());
        bitmap.extend_from_slice(&u16::MAX.to_le_bytes());
    }
    bitmap.extend(std::iter::repeat_n(0u8, 4 * containers));
    for _ in 0..containers {
        bitmap.extend_from_slice(&1u16.to_le_bytes());
        bitmap.extend_from_slice(&0u16.to_le_bytes());
        bitmap.extend_from_slice(&u16::MAX.to_le_bytes());
    }
    let mut covered = 1_581_511_376u32.to_be_bytes().to_vec();
    covered.extend_from_slice(&bitmap);
    let mut frame = vec![INDEX_FILE_VERSION];
    frame.extend_from_slice(&(covered.len() as i32).to_be_bytes());
    frame.extend_from_slice(&covered);
    frame.extend_from_slice(&crc32fast::hash(&covered).to_be_bytes());
    frame
}

/// A vector deleting 2^32 positions of a file of 100,000 rows is refused from its header,
/// in well under a second, without being expanded (it would take 512 MB and minutes).
#[test]
fn a_vector_larger_than_its_file_is_refused_before_it_is_built() {
    let mut t = table("dv-huge");
    let index = t.dir.join("index");
    std::fs::create_dir_all(&index).unwrap();
    let frame = vector_of_every_position();
    std::fs::write(index.join("index-huge-0"), &frame).unwrap();
    let length = frame.len() as i64 - 1 - 8;
    for asynchronous in [false, true] {
        t.split.data_deletion_files = Some(vec![Some(deletion_file(
            s(&index.join("index-huge-0")),
            1,
            length,
        ))]);
        let started = Instant::now();
        let e = read(
            &t,
            Arc::new(Recording::default()),
            asynchronous,
            Duration::from_secs(30),
        )
        .expect_err("2^32 deletions in a file of 100,000 rows");
        assert!(e.to_string().contains(&format!("{ROWS} rows")), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }
}

/// `_EXTERNAL_PATH` outside the table and its external roots: a real Parquet file of the
/// same rows elsewhere, through `../`, another scheme or bucket, `/dev/zero`. Each is
/// refused naming `_EXTERNAL_PATH` and left untouched; a data file moved under the table and
/// named there is still read.
#[test]
fn external_paths_outside_the_table_are_refused_untouched() {
    let outside = Outside::new("ext");
    let mut t = table("ext-outside");
    let copy = outside.0.join("data-copy.parquet");
    std::fs::copy(&t.file, &copy).unwrap();
    let hostile = [
        s(&copy),
        format!("{}/../{}/data-copy.parquet", s(&t.dir), outside.0.display()),
        format!("file://{}", s(&copy)),
        "/dev/zero".to_string(),
        "s3://other-bucket/t/bucket-0/data-copy.parquet".to_string(),
        format!("gs://{}/data-copy.parquet", s(&t.dir)),
    ];
    for path in hostile {
        for asynchronous in [false, true] {
            t.split.data_files[0].external_path = Some(path.clone());
            let io = Arc::new(Recording::default());
            let e = read(&t, io.clone(), asynchronous, Duration::from_secs(20)).expect_err(&path);
            assert_eq!(refused_field(&e), Some("_EXTERNAL_PATH"), "{path}: {e}");
            assert!(!io.touched_name("data-copy.parquet"), "{path}");
            assert!(!io.touched_name("zero"), "{path}");
        }
    }
    let inside = t.dir.join("moved");
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::rename(&t.file, inside.join("data-0.parquet")).unwrap();
    t.split.data_files[0].external_path = Some(s(&inside.join("data-0.parquet")));
    let rows = read(
        &t,
        Arc::new(Recording::default()),
        false,
        Duration::from_secs(60),
    )
    .unwrap();
    assert_eq!(rows as i64, ROWS);
}

/// A deletion file named under another table location (a copied table) is looked up by its
/// name in this table's index directory; one named under the table's own data directory is
/// found there too. The rows it deletes are gone.
#[test]
fn deletion_files_elsewhere_are_re_rooted_by_name() {
    let mut t = table("dv-reroot");
    let index = t.dir.join("index");
    std::fs::create_dir_all(&index).unwrap();
    let (frame, length) = DeletionVector::from_positions(0..10).encode(false).unwrap();
    let mut file = vec![INDEX_FILE_VERSION];
    file.extend_from_slice(&frame);
    std::fs::write(index.join("index-copied-0"), &file).unwrap();
    for path in [
        "s3://old-bucket/warehouse/db.db/t/index/index-copied-0".to_string(),
        "/elsewhere/db.db/t/index/index-copied-0".to_string(),
        format!("{}/bucket-0/index-copied-0", s(&t.dir)),
    ] {
        t.split.data_deletion_files = Some(vec![Some(deletion_file(path.clone(), 1, length))]);
        let io = Arc::new(Recording::default());
        let rows = read(&t, io.clone(), false, Duration::from_secs(60)).unwrap();
        assert_eq!(rows as i64, ROWS - 10, "{path}");
        assert!(
            !io.touched
                .lock()
                .unwrap()
                .iter()
                .any(|p| *p == path && !p.starts_with(&s(&t.dir))),
            "{path} was touched"
        );
    }
}

/// A FIFO and a directory inside the table named as a data file's `_EXTERNAL_PATH`, and a
/// FIFO in the data file's own place, for a ranged (Parquet) and a whole-file (Avro) format:
/// refused from their status as not a regular file, never opened (opening a FIFO waits for a
/// writer forever), in the sync and the async read.
#[test]
fn a_fifo_or_directory_in_the_table_is_not_opened_as_a_data_file() {
    let mkfifo = |p: &Path| {
        let made = std::process::Command::new("mkfifo")
            .arg(p)
            .status()
            .unwrap();
        assert!(made.success());
    };
    for format in ["avro", "parquet"] {
        // The file's bytes are never read: every path below is a FIFO or a directory.
        let mut t = table_of(&format!("hostile-data-fifo-{format}"), format, b"unread");
        let moved = t.dir.join("moved");
        let fifo = moved.join(format!("data-fifo-0.{format}"));
        let dir = moved.join(format!("data-dir-0.{format}"));
        std::fs::create_dir_all(&dir).unwrap();
        mkfifo(&fifo);
        std::fs::remove_file(&t.file).unwrap();
        mkfifo(&t.file);
        for (external, named) in [
            (Some(s(&fifo)), s(&fifo)),
            (Some(s(&dir)), s(&dir)),
            (None, s(&t.file)),
        ] {
            for asynchronous in [false, true] {
                t.split.data_files[0].external_path = external.clone();
                let e = read(
                    &t,
                    Arc::new(Recording::default()),
                    asynchronous,
                    Duration::from_secs(20),
                )
                .expect_err(&named);
                let m = e.to_string();
                assert!(matches!(e, Error::Corrupt { .. }), "{named}: {m}");
                assert!(m.contains(&named), "{named}: {m}");
                assert!(m.contains("not a regular file"), "{named}: {m}");
            }
        }
    }
}
