//! Our incremental-diff plans equal Java's: `fixtures/splits/<case>/` holds the
//! `IncrementalSplit` object streams `java-oracle.sh plan --incremental ...` wrote for a fixture
//! table (recorded by `scripts/gen-plans.sh`). A split carries no bucket path, so one without
//! deletion files compares byte for byte; deletion files hold absolute index-file paths, which
//! are compared by file name.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::scan::{IncrementalScanMode, SnapshotSelection};
use paimon_meta::{ScanBuilder, Table};
use paimon_split::frame::IncrementalSplit;
use paimon_split::incremental::encode_incremental_java;
use paimon_split::{decode_any, Split};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn table(db: &str, name: &str) -> Table {
    let p = fixtures()
        .join("warehouse")
        .join(format!("{db}.db"))
        .join(name);
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

/// Java's split files of `case`, sorted (Java's bucket order is a hash map's).
fn java_splits(case: &str) -> Vec<Vec<u8>> {
    let dir = fixtures().join("splits").join(case);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut out: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    out.sort();
    out
}

fn our_splits(scan: ScanBuilder) -> Vec<Vec<u8>> {
    let plan = scan.plan().unwrap();
    let mut out: Vec<Vec<u8>> = plan
        .splits
        .iter()
        .map(|s| {
            assert!(s.is_incremental_diff(), "{s:?}");
            encode_incremental_java(s, 8).unwrap()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn tag_to_tag_diff_is_javas_incremental_split() {
    let t = table("pk", "many_snapshots");
    let ours = our_splits(t.scan().with_incremental_between("t3", "t6"));
    assert_eq!(ours, java_splits("pk_many_snapshots_incremental_t3_t6"));
}

/// `bytes` decoded, with deletion-file paths cut to file names.
fn location_free(bytes: &[u8]) -> IncrementalSplit {
    let Split::Incremental(mut s) = decode_any(bytes).unwrap().split else {
        panic!("not an IncrementalSplit")
    };
    for list in [&mut s.before_deletion_files, &mut s.after_deletion_files] {
        for d in list.iter_mut().flatten().flatten() {
            d.path = paimon_io::file_name(&d.path).to_string();
        }
    }
    s
}

fn location_free_all(splits: Vec<Vec<u8>>) -> Vec<IncrementalSplit> {
    let mut out: Vec<IncrementalSplit> = splits.iter().map(|b| location_free(b)).collect();
    out.sort_by_key(|s| s.bucket);
    out
}

#[test]
fn snapshot_diff_mode_is_javas_incremental_splits() {
    let t = table("pk", "dv32");
    let by_mode = our_splits(
        t.scan()
            .with_incremental_between("2", "8")
            .with_incremental_scan_mode(IncrementalScanMode::Diff),
    );
    let explicit = our_splits(
        t.scan()
            .with_incremental_diff(SnapshotSelection::Id(2), SnapshotSelection::Id(8)),
    );
    let java = location_free_all(java_splits("pk_dv32_diff_2_8"));
    assert_eq!(java.len(), 2);
    assert!(
        java.iter()
            .any(|s| s.after_deletion_files.iter().flatten().flatten().count() > 0),
        "the case should carry deletion files"
    );
    assert_eq!(location_free_all(by_mode), java);
    assert_eq!(location_free_all(explicit), java);
}

#[test]
fn equal_ends_plan_nothing_and_reversed_ends_fail() {
    let t = table("pk", "many_snapshots");
    let same = t
        .scan()
        .with_incremental_between("t6", "t6")
        .plan()
        .unwrap();
    assert!(same.splits.is_empty());
    assert_eq!(same.snapshot_id, Some(6));
    let e = t
        .scan()
        .with_incremental_between("t6", "t3")
        .plan()
        .unwrap_err();
    assert!(matches!(e, paimon_meta::Error::Unsupported { .. }), "{e}");
    let e = t
        .scan()
        .with_incremental_between("t3", "nope")
        .plan()
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("neither two tags nor two snapshot ids"),
        "{e}"
    );
}
