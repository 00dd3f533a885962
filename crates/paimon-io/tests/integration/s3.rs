//! The S3 backend against a loopback S3 server holding copies of fixture tables.
//!
//! `PAIMON_TEST_S3_TABLES` lists `s3://bucket/key=local/dir` pairs separated by `;`: each
//! object-store table is a byte-for-byte copy of the local directory. The S3 endpoint and
//! credentials come from the usual environment variables (set by the script), so this also
//! exercises `file_io_for`'s configuration. When the variable is set, every failure fails the
//! test: the script has said the server is up.
#![cfg(feature = "s3")]

use std::path::{Path, PathBuf};

use paimon_io::{file_io_for, Error, FileIO, FileIORef, ObjectStoreFileIO, S3Options};

/// The `(s3 url, local dir)` pairs to check, or `None` when no server was started.
fn tables() -> Option<Vec<(String, PathBuf)>> {
    let spec = std::env::var("PAIMON_TEST_S3_TABLES").ok()?;
    let pairs = spec
        .split(';')
        .filter(|s| !s.trim().is_empty())
        .map(|p| {
            let (url, dir) = p
                .split_once('=')
                .unwrap_or_else(|| panic!("bad PAIMON_TEST_S3_TABLES entry {p}"));
            (url.trim_end_matches('/').to_string(), PathBuf::from(dir))
        })
        .collect::<Vec<_>>();
    assert!(!pairs.is_empty(), "PAIMON_TEST_S3_TABLES is empty");
    Some(pairs)
}

fn skip(test: &str) {
    eprintln!("{test}: PAIMON_TEST_S3_TABLES not set (run scripts/test-s3.sh); nothing to check");
}

/// Every file below `dir`, relative, with `/` separators.
fn local_files(dir: &Path, rel: &str, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let r = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if e.file_type().unwrap().is_dir() {
            local_files(&e.path(), &r, out);
        } else {
            out.push(r);
        }
    }
}

fn check_table(io: &dyn FileIO, url: &str, local: &Path) {
    let mut files = Vec::new();
    local_files(local, "", &mut files);
    assert!(!files.is_empty(), "{} has no files", local.display());
    assert!(io.exists(url).unwrap(), "table dir {url} should exist");
    for rel in &files {
        let remote = format!("{url}/{rel}");
        let want = std::fs::read(local.join(rel)).unwrap();
        let n = want.len() as u64;
        assert_eq!(io.size(&remote).unwrap(), n, "size of {remote}");
        assert!(io.exists(&remote).unwrap(), "exists {remote}");
        assert_eq!(&io.read(&remote).unwrap()[..], &want[..], "read {remote}");
        if n >= 3 {
            let (a, b) = (n / 3, n - n / 3);
            let got = io.read_range(&remote, a..b).unwrap();
            assert_eq!(&got[..], &want[a as usize..b as usize], "range of {remote}");
            // The footer read a Parquet/ORC reader starts with.
            let tail = io.read_range(&remote, n - 2..n).unwrap();
            assert_eq!(&tail[..], &want[want.len() - 2..], "tail of {remote}");
        }
        assert!(io.read_range(&remote, n..n).unwrap().is_empty());
        let err = io.read_range(&remote, 0..n + 10).unwrap_err();
        assert!(
            matches!(err, Error::InvalidRange { size, .. } if size == n),
            "range past the end of {remote}: {err}"
        );
    }
    // Listings match the local tree, directory by directory.
    let mut dirs: Vec<String> = vec![String::new()];
    for f in &files {
        let mut p = f.as_str();
        while let Some((parent, _)) = p.rsplit_once('/') {
            if !dirs.iter().any(|d| d == parent) {
                dirs.push(parent.to_string());
            }
            p = parent;
        }
    }
    for d in &dirs {
        let remote = if d.is_empty() {
            url.to_string()
        } else {
            format!("{url}/{d}")
        };
        let mut want: Vec<(String, bool, u64)> = std::fs::read_dir(local.join(d))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let is_dir = e.file_type().unwrap().is_dir();
                let size = if is_dir {
                    0
                } else {
                    e.metadata().unwrap().len()
                };
                let name = e.file_name().to_string_lossy().into_owned();
                (format!("{remote}/{name}"), is_dir, size)
            })
            .collect();
        want.sort();
        let got: Vec<(String, bool, u64)> = io
            .list(&remote)
            .unwrap()
            .into_iter()
            .map(|s| (s.path, s.is_dir, s.size))
            .collect();
        assert_eq!(got, want, "listing of {remote}");
        assert!(io.exists(&remote).unwrap(), "dir {remote} should exist");
        // A trailing slash names the same directory.
        assert_eq!(io.list(&format!("{remote}/")).unwrap().len(), want.len());
    }
}

fn env_io(url: &str) -> FileIORef {
    file_io_for(url).unwrap_or_else(|e| panic!("file_io_for({url}): {e}"))
}

#[test]
fn s3_reads_fixture_tables() {
    let Some(tables) = tables() else {
        return skip("s3_reads_fixture_tables");
    };
    for (url, local) in &tables {
        check_table(env_io(url).as_ref(), url, local);
    }
}

#[test]
fn s3_missing_paths_are_not_found_and_name_the_url() {
    let Some(tables) = tables() else {
        return skip("s3_missing_paths_are_not_found_and_name_the_url");
    };
    let (url, _) = &tables[0];
    let io = env_io(url);
    let missing = format!("{url}/snapshot/snapshot-999999");
    for err in [
        io.read(&missing).unwrap_err(),
        io.size(&missing).unwrap_err(),
        io.read_range(&missing, 0..4).unwrap_err(),
    ] {
        assert!(err.is_not_found(), "{err}");
        assert!(err.to_string().contains(&missing), "{err}");
    }
    assert!(!io.exists(&missing).unwrap());
    let missing_dir = format!("{url}/no-such-dir");
    assert!(!io.exists(&missing_dir).unwrap());
    let err = io.list(&missing_dir).unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert!(err.to_string().contains(&missing_dir), "{err}");
    // A key that is only a prefix of real keys is not a directory.
    let partial = &url[..url.len() - 1];
    assert!(!io.exists(partial).unwrap(), "{partial}");
}

#[test]
fn s3_missing_bucket_is_an_error_naming_the_url() {
    let Some(tables) = tables() else {
        return skip("s3_missing_bucket_is_an_error_naming_the_url");
    };
    let url = "s3://paimon-no-such-bucket/warehouse/t/snapshot/LATEST";
    let io = env_io(&tables[0].0);
    let err = io.read(url).unwrap_err();
    assert!(err.to_string().contains(url), "{err}");
}

#[test]
fn s3_explicit_options_and_calls_from_async_and_parallel_callers() {
    let Some(tables) = tables() else {
        return skip("s3_explicit_options_and_calls_from_async_and_parallel_callers");
    };
    let (url, local) = tables[0].clone();
    let io: FileIORef = std::sync::Arc::new(ObjectStoreFileIO::s3(S3Options::from_env()));
    let want = std::fs::read(local.join("schema/schema-0")).unwrap();
    let path = format!("{url}/schema/schema-0");
    // From inside a tokio runtime, where a nested block_on would panic.
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let got = rt.block_on(async { io.read(&path).unwrap() });
    assert_eq!(&got[..], &want[..]);
    // From many threads at once.
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| io.read(&path).unwrap()))
            .collect();
        for h in handles {
            assert_eq!(&h.join().unwrap()[..], &want[..]);
        }
    });
}
