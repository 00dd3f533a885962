//! Commit safety (issue 39): an unknown publish outcome is not a failure, an identifier lands
//! once however committers race, a live file is never added twice, and hostile counts are
//! refused.

use std::path::Path;
use std::sync::Arc;

use paimon_io::{FaultyFileIO, FileIORef, LocalFileIO, PublishFault};
use paimon_spec::binary::BinaryRowBuilder;
use paimon_split::commit::CommitMessage;

use super::tests::copy_fixture;
use super::*;
use crate::scan::LiveFile;

fn open_with(p: &Path, io: FileIORef) -> Table {
    Table::open(io, p.to_str().unwrap()).unwrap()
}

fn open(p: &Path) -> Table {
    open_with(p, Arc::new(LocalFileIO::new()))
}

fn partition_bytes(t: &Table, f: &LiveFile) -> Vec<u8> {
    let types = t
        .schema()
        .partition_fields()
        .iter()
        .map(|f| f.data_type.clone())
        .collect();
    let mut b = BinaryRowBuilder::new(types);
    for (i, v) in f.partition.iter().enumerate() {
        b.set(i, v.clone()).unwrap();
    }
    b.build_serialized().unwrap()
}

/// A message adding a copy of `src`'s data file under `name` (the copy is made on disk).
fn add_copy(t: &Table, src: &LiveFile, name: &str) -> CommitMessage {
    let dir = Path::new(&src.bucket_path);
    std::fs::copy(dir.join(&src.file.file_name), dir.join(name)).unwrap();
    let mut f = src.file.clone();
    f.file_name = name.to_string();
    f.first_row_id = None;
    let mut m = CommitMessage::new(partition_bytes(t, src), src.bucket)
        .with_total_buckets(Some(src.total_buckets));
    m.data_increment.new_files.push(f);
    m
}

/// Every manifest list and manifest that the snapshots name exists and decodes.
fn assert_manifests_complete(t: &Table) {
    let sm = t.snapshot_manager();
    for s in sm.snapshots().unwrap() {
        let mut lists = vec![s.base_manifest_list.clone(), s.delta_manifest_list.clone()];
        lists.extend(s.changelog_manifest_list.clone());
        for list in lists {
            let path = t.layout().manifest_path(&list);
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("snapshot {}: list {list}: {e}", s.id));
            for m in ManifestFileMeta::decode_list(&path, bytes.into()).unwrap() {
                let mp = t.layout().manifest_path(&m.file_name);
                assert!(
                    Path::new(&mp).exists(),
                    "snapshot {} names manifest {} which is gone",
                    s.id,
                    m.file_name
                );
            }
        }
    }
}

/// The publish of the snapshot succeeds but reports an error: the committer keeps its
/// manifests, retries, finds its own snapshot and reports it; nothing is committed twice.
#[test]
fn a_publish_that_landed_but_failed_is_found_on_retry() {
    let (_d, p) = copy_fixture("append.db/unaware");
    let local = open(&p);
    let before = local.live_files(None).unwrap();
    let first = local.snapshot_manager().latest_id().unwrap().unwrap();
    let msg = add_copy(&local, &before[0], "data-landed-0.parquet");
    let t = open_with(
        &p,
        Arc::new(FaultyFileIO::failing_first(
            Arc::new(LocalFileIO::new()),
            1,
            PublishFault::AfterPublish,
        )),
    );
    assert_eq!(
        t.new_commit("u").commit(5, &[msg]).unwrap(),
        vec![first + 1]
    );
    let t = open(&p);
    let sm = t.snapshot_manager();
    assert_eq!(sm.latest_id().unwrap(), Some(first + 1));
    let s = sm.latest().unwrap().unwrap();
    assert_eq!((s.commit_user.as_str(), s.commit_identifier), ("u", 5));
    assert_manifests_complete(&t);
    let after = t.live_files(None).unwrap();
    assert_eq!(after.len(), before.len() + 1);
    assert!(after
        .iter()
        .any(|f| f.file.file_name == "data-landed-0.parquet"));
}

/// The publish fails before writing anything: the commit retries and lands once.
#[test]
fn a_publish_that_failed_before_writing_is_retried() {
    let (_d, p) = copy_fixture("append.db/unaware");
    let local = open(&p);
    let before = local.live_files(None).unwrap();
    let first = local.snapshot_manager().latest_id().unwrap().unwrap();
    let msg = add_copy(&local, &before[0], "data-retried-0.parquet");
    let t = open_with(
        &p,
        Arc::new(FaultyFileIO::failing_first(
            Arc::new(LocalFileIO::new()),
            2,
            PublishFault::BeforePublish,
        )),
    );
    assert_eq!(
        t.new_commit("u").commit(5, &[msg]).unwrap(),
        vec![first + 1]
    );
    let t = open(&p);
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), Some(first + 1));
    assert_manifests_complete(&t);
    assert_eq!(t.live_files(None).unwrap().len(), before.len() + 1);
}

/// Two committers with one user and identifier race: exactly one snapshot, every trial.
#[test]
fn racing_committers_of_one_identifier_commit_once() {
    for trial in 0..12 {
        let (_d, p) = copy_fixture("append.db/unaware");
        let t = open(&p);
        let before = t.live_files(None).unwrap();
        let first = t.snapshot_manager().latest_id().unwrap().unwrap();
        let msg = add_copy(&t, &before[0], &format!("data-race-{trial}.parquet"));
        let barrier = std::sync::Barrier::new(2);
        let results: Vec<Vec<i64>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    let (t, msg, barrier) = (t.clone(), msg.clone(), &barrier);
                    s.spawn(move || {
                        let c = t.new_commit("same-user");
                        barrier.wait();
                        c.commit(42, &[msg]).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let t = open(&p);
        assert_eq!(
            t.snapshot_manager().latest_id().unwrap(),
            Some(first + 1),
            "trial {trial}: {results:?}"
        );
        assert_eq!(t.live_files(None).unwrap().len(), before.len() + 1);
        assert_manifests_complete(&t);
    }
}

/// A file that is already live cannot be added again; nor can one file be added twice in a
/// commit. Nothing is committed then.
#[test]
fn adding_a_live_file_again_is_refused() {
    let (_d, p) = copy_fixture("append.db/unaware");
    let t = open(&p);
    let live = t.live_files(None).unwrap();
    let latest = t.snapshot_manager().latest_id().unwrap();
    let mut again = CommitMessage::new(partition_bytes(&t, &live[0]), live[0].bucket)
        .with_total_buckets(Some(live[0].total_buckets));
    again.data_increment.new_files.push(live[0].file.clone());
    let e = t.new_commit("dup").commit(1, &[again]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::CommitConflict { .. } | Error::InvalidCommit { .. }
        ),
        "{e}"
    );
    assert!(e.to_string().contains(&live[0].file.file_name), "{e}");
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), latest);

    let twice = add_copy(&t, &live[0], "data-twice-0.parquet");
    let e = t
        .new_commit("dup")
        .commit(2, &[twice.clone(), twice])
        .unwrap_err();
    assert!(e.to_string().contains("data-twice-0.parquet"), "{e}");
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), latest);
    assert_eq!(open(&p).live_files(None).unwrap().len(), live.len());
}

/// A compaction upgrade names one file at level 0 (before) and at level 1 (after): allowed.
#[test]
fn an_upgrade_of_a_live_file_is_allowed() {
    let (_d, p) = copy_fixture("append.db/unaware");
    let t = open(&p);
    let live = t.live_files(None).unwrap();
    let src = &live[0];
    assert_eq!(src.file.level, 0);
    let mut m = CommitMessage::new(partition_bytes(&t, src), src.bucket)
        .with_total_buckets(Some(src.total_buckets));
    let mut up = src.file.clone();
    up.level = 1;
    m.compact_increment.compact_before.push(src.file.clone());
    m.compact_increment.compact_after.push(up);
    assert_eq!(t.new_commit("c").commit(1, &[m]).unwrap().len(), 1);
    let after = open(&p).live_files(None).unwrap();
    assert_eq!(after.len(), live.len());
    let moved = after
        .iter()
        .find(|f| f.file.file_name == src.file.file_name)
        .unwrap();
    assert_eq!(moved.file.level, 1);
}

/// Row tracking: a row count of i64::MAX would wrap the next row id; the commit is refused.
#[test]
fn hostile_row_counts_are_invalid_commits() {
    let (_d, p) = copy_fixture("append.db/row_tracking");
    let t = open(&p);
    assert!(t.options().row_tracking_enabled);
    let live = t.live_files(None).unwrap();
    let latest = t.snapshot_manager().latest_id().unwrap();
    for (n, count) in [(0, i64::MAX), (1, -5)] {
        let mut m = add_copy(&t, &live[0], &format!("data-hostile-{n}.parquet"));
        m.data_increment.new_files[0].row_count = count;
        let e = t.new_commit("h").commit(1, &[m]).unwrap_err();
        assert!(matches!(e, Error::InvalidCommit { .. }), "{count}: {e}");
        assert!(e.to_string().contains("row count"), "{count}: {e}");
        assert_eq!(t.snapshot_manager().latest_id().unwrap(), latest);
    }
}

/// Aborting a compaction that upgraded a committed file (the same name in `compact_before`
/// and `compact_after`) removes the new files but keeps the committed one.
#[test]
fn abort_keeps_an_upgraded_committed_file() {
    let (_d, p) = copy_fixture("append.db/unaware");
    let t = open(&p);
    let live = t.live_files(None).unwrap();
    let src = &live[0];
    let mut m = add_copy(&t, src, "data-compacted-0.parquet");
    let new_file = m.data_increment.new_files.remove(0);
    let mut up = src.file.clone();
    up.level = 1;
    m.compact_increment.compact_before.push(src.file.clone());
    m.compact_increment.compact_after.push(up);
    m.compact_increment.compact_after.push(new_file);
    let dir = Path::new(&src.bucket_path);
    assert_eq!(t.new_commit("c").abort(&[m]).unwrap(), 1);
    assert!(
        dir.join(&src.file.file_name).exists(),
        "the committed file was deleted"
    );
    assert!(!dir.join("data-compacted-0.parquet").exists());
    assert_eq!(open(&p).live_files(None).unwrap().len(), live.len());
    // Every live file is still on disk.
    for f in open(&p).live_files(None).unwrap() {
        assert!(Path::new(&f.bucket_path).join(&f.file.file_name).exists());
    }
}

/// A publish whose outcome stays unknown in every attempt (a request that timed out and may
/// still land) ends in [`Error::CommitOutcomeUnknown`], so that callers keep the commit's
/// files, and publishes nothing twice.
#[test]
fn a_publish_that_stays_unknown_is_reported_as_unknown() {
    use crate::catalog::{Published, SnapshotCommit};

    #[derive(Debug)]
    struct NeverAnswers;
    impl SnapshotCommit for NeverAnswers {
        fn publish(&self, _: &Table, snapshot: &crate::Snapshot) -> Result<Published> {
            Ok(Published::Unknown(Error::Internal(format!(
                "snapshot {} timed out",
                snapshot.id
            ))))
        }
    }

    let (_d, p) = copy_fixture("append.db/unaware");
    let local = open(&p);
    // Two attempts, not Java's eleven with their growing waits.
    local
        .alter(&[SchemaChange::SetOption {
            key: "commit.max-retries".into(),
            value: "1".into(),
        }])
        .unwrap();
    let local = open(&p);
    let before = local.live_files(None).unwrap();
    let first = local.snapshot_manager().latest_id().unwrap().unwrap();
    let msg = add_copy(&local, &before[0], "data-unknown-0.parquet");
    let t = local.with_snapshot_commit(Arc::new(NeverAnswers));
    match t.new_commit("u").commit(5, &[msg]) {
        Err(Error::CommitOutcomeUnknown { table, source }) => {
            assert_eq!(table, t.path());
            assert!(source.to_string().contains("timed out"), "{source}");
        }
        other => panic!("expected an unknown outcome, got {other:?}"),
    }
    let t = open(&p);
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), Some(first));
    assert!(Path::new(&before[0].bucket_path)
        .join("data-unknown-0.parquet")
        .exists());
}
