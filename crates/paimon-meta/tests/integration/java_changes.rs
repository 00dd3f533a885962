//! "What changed since snapshot N" ([`Table::changes_since`]) plans what Java's streaming scan
//! plans: `fixtures/plans/changes/<table>-since-<N>.jsonl` is `java-oracle.sh plan
//! --changes-since N` (Java `newStreamScan()`, `restore(N + 1)`, `plan()` until no snapshot is
//! left), recorded by `scripts/gen-plans.sh`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::{Error, Table};
use serde_json::Value;

/// One split: snapshot, bucket, raw-convertible, streaming, row count, file names in order.
type SplitKey = (i64, i64, bool, bool, i64, Vec<String>);

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn table(name: &str) -> Table {
    let p = fixtures().join("warehouse/pk.db").join(name);
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

/// Java's splits, sorted within each snapshot (Java's bucket order is a hash map's).
fn java(name: &str, since: i64) -> Vec<SplitKey> {
    let path = fixtures().join(format!("plans/changes/{name}-since-{since}.jsonl"));
    let mut out: Vec<SplitKey> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let files = v["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["name"].as_str().unwrap().to_string())
                .collect();
            (
                v["snapshot"].as_i64().unwrap(),
                v["bucket"].as_i64().unwrap(),
                v["rawConvertible"].as_bool().unwrap(),
                v["isStreaming"].as_bool().unwrap(),
                v["rowCount"].as_i64().unwrap(),
                files,
            )
        })
        .collect();
    out.sort();
    out
}

/// Our splits from the change scan, and the snapshot ids of its plans in order.
fn ours(name: &str, since: i64) -> (Vec<SplitKey>, Vec<i64>, i64) {
    let mut changes = table(name).changes_since(since);
    let mut splits = Vec::new();
    let mut snapshots = Vec::new();
    while let Some(plan) = changes.next_plan().unwrap() {
        snapshots.push(plan.snapshot_id);
        for s in plan.splits {
            assert_eq!(s.snapshot_id, plan.snapshot_id);
            splits.push((
                s.snapshot_id,
                i64::from(s.bucket),
                s.raw_convertible,
                s.is_streaming,
                s.row_count(),
                s.data_files.iter().map(|f| f.file_name.clone()).collect(),
            ));
        }
    }
    splits.sort();
    (splits, snapshots, changes.next_snapshot_id())
}

/// Deltas of the APPEND snapshots (11 and any COMPACT skipped).
#[test]
fn delta_of_append_snapshots() {
    check("many_snapshots", 10, &[12, 13, 14], 15);
}

/// With a changelog producer: the changelog files, here of the full-compaction snapshot.
#[test]
fn changelog_of_compactions() {
    check("changelog_full_compaction", 0, &[5], 6);
}

#[test]
fn partitioned() {
    check("partitioned", 0, &[1, 2, 3], 4);
}

fn check(name: &str, since: i64, snapshots: &[i64], next: i64) {
    let want = java(name, since);
    let mut java_snapshots: Vec<i64> = want.iter().map(|s| s.0).collect();
    java_snapshots.dedup();
    assert_eq!(java_snapshots, snapshots, "Java's planned snapshots");
    let (got, planned, checkpoint) = ours(name, since);
    assert_eq!(got, want);
    assert_eq!(planned, snapshots);
    assert_eq!(checkpoint, next);
    // The concatenated plan holds the same splits.
    let plan = table(name).scan().with_changes_since(since).plan().unwrap();
    assert_eq!(plan.splits.len(), want.len());
    assert_eq!(plan.snapshot_id, Some(next - 1));
}

#[test]
fn a_change_scan_resumes_from_its_checkpoint() {
    let t = table("many_snapshots");
    let mut changes = t.changes_since(11);
    let first = changes.next_plan().unwrap().unwrap();
    assert_eq!(first.snapshot_id, 12);
    assert_eq!(first.commit_kind, "APPEND");
    let checkpoint = changes.next_snapshot_id();
    assert_eq!(checkpoint, 13);
    let mut resumed = t.changes_since(0);
    resumed.restore(checkpoint);
    let rest: Vec<i64> = resumed.map(|p| p.unwrap().snapshot_id).collect();
    assert_eq!(rest, [13, 14]);
    // Caught up: nothing, and the checkpoint stays past the latest snapshot.
    let mut done = t.changes_since(14);
    assert!(done.next_plan().unwrap().is_none());
    assert_eq!(done.next_snapshot_id(), 15);
}

#[test]
fn expired_and_future_starts_are_errors() {
    let t = table("many_snapshots");
    match t.changes_since(5).next_plan() {
        Err(Error::SnapshotExpired {
            id: 6,
            earliest: 11,
        }) => {}
        other => panic!("{other:?}"),
    }
    match t.changes_since(20).next_plan() {
        Err(Error::SnapshotNotFound { id: 21, .. }) => {}
        other => panic!("{other:?}"),
    }
    // The iterator ends after its error.
    let mut it = t.changes_since(5);
    assert!(it.next().unwrap().is_err());
    assert!(it.next().is_none());
}
