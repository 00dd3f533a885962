//! A whole table directory built from fuzzed files, planned with paimon-meta and read with
//! paimon-data as an engine would: `Table::open` → `scan().plan()` → each split framed as a
//! worker receives it (`SPLIT_V1`) → `SplitReader::read_bytes` → batches.
//!
//! Input: `[filter][records...]`. A non-zero `filter` pushes a predicate on column `id` (every
//! seed table has one) into planning and reading, so that file-index, statistics and page
//! pruning run too: `filter % 4` picks `=`, `<`, `IN` or `IS NULL`, `filter / 4` the literal.
//! Records are `[path length: u8][relative path][length: u16 LE][file bytes]`, each written
//! to that path under a fresh directory (`snapshot/LATEST`, `snapshot/snapshot-2`,
//! `schema/schema-0`, `manifest/manifest-list-...`, `manifest/manifest-...`,
//! `bucket-0/data-....parquet`, `index/index-...`). Paths whose segments are empty, `.`, `..`
//! or hold `\` or NUL are dropped, so nothing is written outside the directory. The seeds are
//! the Java-written fixture tables `fixtures/warehouse/append.db/*` (latest snapshot only), with
//! their manifests re-encoded uncompressed so that mutations reach the fields.
//!
//! The directory is `$FUZZ_TABLE_DIR/t` (`scripts/fuzz.sh` sets a temporary one), else
//! `$TMPDIR/paimon-fuzz-table-<pid>/t`; it is emptied before each input.
//!
//! Checks: no panic (orc-rust panics that paimon-data and paimon-meta catch are allowed),
//! bounded work, and every error names a file or directory of the table (a snapshot reported
//! expired is named by its id).
#![no_main]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use paimon_data::SplitReader;
use paimon_fuzz::run_allowing_caught_panics;
use paimon_io::LocalFileIO;
use paimon_meta::Table;
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};

/// Most batches read from one input (bounds the work of files that legitimately hold many
/// rows in few bytes).
const MAX_BATCHES: usize = 4096;
const MAX_RECORDS: usize = 64;

fn base() -> &'static PathBuf {
    static BASE: OnceLock<PathBuf> = OnceLock::new();
    BASE.get_or_init(|| {
        let b = match std::env::var_os("FUZZ_TABLE_DIR") {
            Some(d) => PathBuf::from(d),
            None => std::env::temp_dir().join(format!("paimon-fuzz-table-{}", std::process::id())),
        };
        std::fs::create_dir_all(&b).expect("fuzz table base directory");
        b
    })
}

/// The relative path of a record, when it stays inside the table directory.
fn safe_path(raw: &[u8]) -> Option<PathBuf> {
    let s = std::str::from_utf8(raw).ok()?;
    let parts: Vec<&str> = s.split('/').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut p = PathBuf::new();
    for part in parts {
        if part.is_empty() || part == "." || part == ".." || part.contains(['\\', '\0']) {
            return None;
        }
        p.push(part);
    }
    Some(p)
}

/// Names the table directory (every file of the table lies under it).
fn check_error<E: std::fmt::Display>(e: &E, dir: &str) {
    let msg = e.to_string();
    assert!(msg.contains(dir), "error names no file of the table: {msg}");
}

/// As [`check_error`]; a snapshot reported expired (a `LATEST` hint or manifest list naming a
/// snapshot older than the earliest present one) is named by its id instead.
fn check_meta_error(e: &paimon_meta::Error, dir: &str) {
    if !matches!(e, paimon_meta::Error::SnapshotExpired { .. }) {
        check_error(e, dir);
    }
}

/// The predicate `filter` selects (see the module docs).
fn predicate(filter: u8) -> Option<Predicate> {
    let v = Datum::Int(i32::from(filter / 4));
    let leaf = |op, literals| Predicate::Leaf {
        column: "id".into(),
        op,
        literals,
    };
    match (filter, filter % 4) {
        (0, _) => None,
        (_, 0) => Some(leaf(LeafOp::Eq, vec![v])),
        (_, 1) => Some(leaf(LeafOp::Lt, vec![v])),
        (_, 2) => Some(leaf(LeafOp::In, vec![v, Datum::Int(i32::from(filter))])),
        _ => Some(leaf(LeafOp::IsNull, vec![])),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&filter, data)) = data.split_first() else {
        return;
    };
    let filter = predicate(filter);
    let dir = base().join("t");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("fuzz table directory");
    let mut rest = data;
    let mut written = 0;
    while let [n, tail @ ..] = rest {
        let n = usize::from(*n);
        if tail.len() < n + 2 || written == MAX_RECORDS {
            break;
        }
        let (path, tail) = tail.split_at(n);
        let len = usize::from(u16::from_le_bytes([tail[0], tail[1]]));
        let tail = &tail[2..];
        let len = len.min(tail.len());
        let (bytes, tail) = tail.split_at(len);
        rest = tail;
        let Some(rel) = safe_path(path) else {
            continue;
        };
        let target = dir.join(rel);
        if let Some(parent) = target.parent() {
            if std::fs::create_dir_all(parent).is_err() {
                continue;
            }
        }
        if std::fs::write(&target, bytes).is_ok() {
            written += 1;
        }
    }
    let dir = dir.to_string_lossy().into_owned();
    let io = Arc::new(LocalFileIO::new());
    run_allowing_caught_panics(|| {
        let table = match Table::open(io.clone(), &dir) {
            Ok(t) => t,
            Err(e) => return check_meta_error(&e, &dir),
        };
        let mut scan = table.scan();
        if let Some(p) = &filter {
            scan = scan.with_filter(p.clone());
        }
        let plan = match scan.plan() {
            Ok(p) => p,
            Err(e) => return check_meta_error(&e, &dir),
        };
        let mut reader = SplitReader::builder(io.clone()).with_batch_size(64);
        if let Some(p) = &filter {
            reader = reader.with_filter(p.clone());
        }
        let reader = reader.build();
        let mut batches = 0;
        for split in plan.wire_splits() {
            let bytes = paimon_split::encode_frame(&split, paimon_split::CURRENT_VERSION)
                .expect("a planned split encodes");
            let iter = match reader.read_bytes(&dir, &bytes) {
                Ok(it) => it,
                Err(e) => {
                    check_error(&e, &dir);
                    continue;
                }
            };
            for b in iter {
                if let Err(e) = &b {
                    check_error(e, &dir);
                    break;
                }
                batches += 1;
                if batches >= MAX_BATCHES {
                    return;
                }
            }
        }
    });
});
