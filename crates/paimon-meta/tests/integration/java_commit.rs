//! Java 1.4.2 (the oracle, `scripts/java-oracle.sh`) reads the snapshots our committer writes
//! on copies of Java-written fixture tables, and keeps committing and compacting on top of
//! them. Expected rows are Java's own dump of the table before our commit, filtered by what the
//! commit removed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::scan::LiveFile;
use paimon_meta::Table;
use paimon_spec::binary::{BinaryRowBuilder, Datum};
use paimon_split::commit::CommitMessage;
use serde_json::Value;

use crate::common::{copy_dir, oracle, repo};

fn dump(p: &Path) -> Vec<String> {
    oracle(&["dump", p.to_str().unwrap(), "--sort"])
}

fn copy_fixture(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("t");
    copy_dir(&repo().join("fixtures/warehouse").join(rel), &dst);
    (dir, dst)
}

fn open(p: &Path) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

fn message(t: &Table, f: &LiveFile) -> CommitMessage {
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
    CommitMessage::new(b.build_serialized().unwrap(), f.bucket)
        .with_total_buckets(Some(f.total_buckets))
}

fn region(row: &str) -> Value {
    serde_json::from_str::<Value>(row).unwrap()["region"].clone()
}

/// Deleting Java's files of one partition: Java then reads exactly the other rows; the same
/// commit retried is applied once.
#[test]
fn java_reads_a_delete_commit() {
    let (_d, p) = copy_fixture("append.db/part_multi");
    let before = dump(&p);
    let t = open(&p);
    let live = t.live_files(None).unwrap();
    let msgs: Vec<CommitMessage> = live
        .iter()
        .filter(|f| f.partition[0] == Datum::String("eu".into()))
        .map(|f| {
            let mut m = message(&t, f);
            m.data_increment.deleted_files.push(f.file.clone());
            m
        })
        .collect();
    let c = t.new_commit("rust");
    assert_eq!(c.commit(1, &msgs).unwrap().len(), 1);
    assert!(c.commit(1, &msgs).unwrap().is_empty());
    let expected: Vec<String> = before
        .iter()
        .filter(|r| region(r) != Value::String("eu".into()))
        .cloned()
        .collect();
    assert!(expected.len() < before.len() && !expected.is_empty());
    assert_eq!(dump(&p), expected);
}

/// The publish of the snapshot lands but reports an error (a timed-out request): the commit
/// keeps its manifests, finds its snapshot on the retry and reports it; Java reads exactly the
/// rows the delete left, once.
#[test]
fn java_reads_a_commit_whose_publish_failed_after_landing() {
    use paimon_io::{FaultyFileIO, LocalFileIO, PublishFault};
    let (_d, p) = copy_fixture("append.db/part_multi");
    let before = dump(&p);
    let first = open(&p).snapshot_manager().latest_id().unwrap().unwrap();
    let io =
        FaultyFileIO::failing_first(Arc::new(LocalFileIO::new()), 1, PublishFault::AfterPublish);
    let t = Table::open(Arc::new(io), p.to_str().unwrap()).unwrap();
    let msgs: Vec<CommitMessage> = t
        .live_files(None)
        .unwrap()
        .iter()
        .filter(|f| f.partition[0] == Datum::String("eu".into()))
        .map(|f| {
            let mut m = message(&t, f);
            m.data_increment.deleted_files.push(f.file.clone());
            m
        })
        .collect();
    assert_eq!(
        t.new_commit("rust").commit(1, &msgs).unwrap(),
        vec![first + 1]
    );
    assert_eq!(
        open(&p).snapshot_manager().latest_id().unwrap(),
        Some(first + 1)
    );
    let expected: Vec<String> = before
        .iter()
        .filter(|r| region(r) != Value::String("eu".into()))
        .cloned()
        .collect();
    assert!(expected.len() < before.len() && !expected.is_empty());
    assert_eq!(dump(&p), expected);
}

/// Concurrent committers adding copies of one Java data file: Java reads the file's rows once
/// more per commit, and the ids are dense.
#[test]
fn java_reads_concurrent_appends() {
    let (_d, p) = copy_fixture("append.db/unaware");
    let before = dump(&p);
    let t = open(&p);
    let first = t.snapshot_manager().latest_id().unwrap().unwrap();
    let live = t.live_files(None).unwrap();
    let src = live[0].clone();
    let (threads, per) = (4, 2);
    std::thread::scope(|s| {
        for th in 0..threads {
            let (t, src) = (t.clone(), src.clone());
            s.spawn(move || {
                let c = t.new_commit(&format!("w{th}"));
                for i in 0..per {
                    let name = format!("data-copy-{th}-{i}.parquet");
                    let dir = Path::new(&src.bucket_path);
                    std::fs::copy(dir.join(&src.file.file_name), dir.join(&name)).unwrap();
                    let mut f = src.file.clone();
                    f.file_name = name;
                    let mut m = message(&t, &src);
                    m.data_increment.new_files.push(f);
                    c.commit(i, &[m]).unwrap();
                }
            });
        }
    });
    let ids = t.snapshot_manager().snapshot_ids().unwrap();
    let n = threads * per;
    assert_eq!(
        ids.iter()
            .filter(|i| **i > first)
            .copied()
            .collect::<Vec<_>>(),
        (first + 1..=first + n).collect::<Vec<_>>()
    );
    let after = dump(&p);
    let count = |rows: &[String]| {
        let mut m = BTreeMap::new();
        for r in rows {
            *m.entry(r.clone()).or_insert(0i64) += 1;
        }
        m
    };
    let (b, a) = (count(&before), count(&after));
    let mut added = 0;
    for (row, k) in &a {
        let extra = k - b.get(row).copied().unwrap_or(0);
        assert!(extra == 0 || extra == n, "{row}: {extra} extra copies");
        added += extra;
    }
    assert_eq!(added, n * src.file.row_count);
    assert_eq!(after.len() as i64, before.len() as i64 + added);
}

/// Drop partition, then truncate: Java reads the remaining rows, then none.
#[test]
fn java_reads_drop_partition_and_truncate() {
    let (_d, p) = copy_fixture("append.db/part_multi");
    let before = dump(&p);
    let t = open(&p);
    t.new_commit("rust")
        .drop_partitions(1, vec![vec![("region".into(), Datum::String("us".into()))]])
        .unwrap();
    let expected: Vec<String> = before
        .iter()
        .filter(|r| region(r) != Value::String("us".into()))
        .cloned()
        .collect();
    assert!(expected.len() < before.len());
    assert_eq!(dump(&p), expected);
    open(&p).new_commit("rust").truncate(2).unwrap();
    assert!(dump(&p).is_empty());
}

/// Java appends, fully compacts (its conflict detection reading our manifests) and reads a
/// primary-key table on top of a snapshot we committed; compaction keeps the rows.
#[test]
fn java_commits_and_compacts_after_us() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pk");
    let ps = p.to_str().unwrap();
    assert!(!oracle(&["commit-loop", ps, "--seconds", "1", "--rows", "10"]).is_empty());
    let t = open(&p);
    let live = t.live_files(None).unwrap();
    let f = live.iter().max_by_key(|f| f.file.level).unwrap();
    let mut m = message(&t, f);
    m.data_increment.deleted_files.push(f.file.clone());
    let ours = t.new_commit("rust").commit(1, &[m]).unwrap()[0];
    let rows_after_ours = dump(&p);
    let action = |l: &String| serde_json::from_str::<Value>(l).unwrap()["action"].clone();
    // Java's loop compacts every 4th round and stops wherever its second ends: one more round
    // (an append, never a compaction or expiry in round 1) leaves the table something to compact.
    // It is write-only: a writer that compacts on write (universal compaction's size
    // amplification) could leave one sorted run per bucket, and then nothing to compact.
    let mut again = oracle(&["commit-loop", ps, "--seconds", "1", "--rows", "10"]);
    let last_round = oracle(&[
        "commit-loop",
        ps,
        "--seconds",
        "60",
        "--rounds",
        "1",
        "--write-only",
        "--rows",
        "10",
    ]);
    assert_eq!(
        last_round.iter().map(action).collect::<Vec<_>>(),
        ["append"]
    );
    again.extend(last_round);
    let snapshot = |l: &String| serde_json::from_str::<Value>(l).unwrap()["snapshot"].as_i64();
    assert!(again.iter().all(|l| snapshot(l) > Some(ours)), "{again:?}");
    let before_compaction = dump(&p);
    let keys = |rows: &[String]| -> std::collections::BTreeSet<i64> {
        rows.iter()
            .map(|r| {
                serde_json::from_str::<Value>(r).unwrap()["id"]
                    .as_i64()
                    .unwrap()
            })
            .collect()
    };
    // Java's appends only add or update keys: every key we left is still there.
    assert!(keys(&before_compaction).is_superset(&keys(&rows_after_ours)));
    let c = oracle(&["compact", ps]);
    assert!(snapshot(&c[0]) > snapshot(again.last().unwrap()), "{c:?}");
    assert_eq!(dump(&p), before_compaction);
}

/// A table we create (schema-0) and fill by committing ADDs of a Java table's data files: Java
/// reads the same rows as from the Java table, and the first commit writes both hints.
#[test]
fn java_reads_a_table_we_created_and_committed() {
    let src = repo().join("fixtures/warehouse/append.db/part_multi");
    let java = open(&src);
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap();
    let catalog = paimon_meta::Catalog::new(Arc::new(paimon_io::LocalFileIO::new()), warehouse);
    let mut schema = (**java.schema()).clone();
    schema.time_millis = 0;
    let t = catalog
        .create_table("db", "t", schema.clone(), false)
        .unwrap();
    assert!(catalog
        .create_table("db", "t", schema.clone(), false)
        .is_err());
    catalog.create_table("db", "t", schema, true).unwrap();
    let mut msgs = Vec::new();
    for f in java.live_files(None).unwrap() {
        let rel = Path::new(&f.bucket_path)
            .strip_prefix(&src)
            .unwrap()
            .to_path_buf();
        let dst = Path::new(t.path()).join(&rel);
        std::fs::create_dir_all(&dst).unwrap();
        std::fs::copy(
            Path::new(&f.bucket_path).join(&f.file.file_name),
            dst.join(&f.file.file_name),
        )
        .unwrap();
        let mut m = message(&t, &f);
        m.data_increment.new_files.push(f.file.clone());
        msgs.push(m);
    }
    assert_eq!(t.new_commit("rust").commit(1, &msgs).unwrap(), vec![1]);
    let p = Path::new(t.path());
    assert_eq!(
        std::fs::read_to_string(p.join("snapshot/EARLIEST")).unwrap(),
        "1"
    );
    assert_eq!(dump(p), dump(&src));
}

/// `(id, "java-<id>")` rows in Java's dump encoding, sorted as `dump --sort` sorts them.
fn java_rows(ids: impl IntoIterator<Item = i64>) -> Vec<String> {
    let mut rows: Vec<String> = ids
        .into_iter()
        .map(|i| format!("{{\"id\":{i},\"v\":\"java-{i}\"}}"))
        .collect();
    rows.sort();
    rows
}

/// Java writes rows and serializes its `prepareCommit()` messages (CommitMessageSerializer,
/// version 11) without committing; our committer decodes and commits those bytes, exactly once
/// per commit user and identifier; Java reads the rows, then commits its own write on top, and
/// we commit another batch of Java's messages after that.
#[test]
fn we_commit_the_commit_messages_java_prepared() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap();
    let catalog = paimon_meta::Catalog::new(Arc::new(paimon_io::LocalFileIO::new()), warehouse);
    let schema = paimon_spec::schema::TableSchema::from_json(&serde_json::json!({
        "version": 3, "id": 0,
        "fields": [
            {"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
            {"id": 1, "name": "v", "type": "STRING"}
        ],
        "highestFieldId": 1, "partitionKeys": [], "primaryKeys": ["id"],
        "options": {"bucket": "2"}
    }))
    .unwrap();
    let t = catalog.create_table("db", "t", schema, false).unwrap();
    let p = Path::new(t.path()).to_path_buf();
    let prepare = |out: &Path, from: i64, to: i64, java_commits: bool| -> Vec<CommitMessage> {
        let line = oracle(&[
            "prepare-messages",
            p.to_str().unwrap(),
            out.to_str().unwrap(),
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
            "--commit",
            &java_commits.to_string(),
        ]);
        let info: Value = serde_json::from_str(&line[0]).unwrap();
        let version = i32::try_from(info["version"].as_i64().unwrap()).unwrap();
        let mut files: Vec<PathBuf> = std::fs::read_dir(out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert_eq!(files.len() as u64, info["messages"].as_u64().unwrap());
        files
            .iter()
            .map(|f| {
                paimon_split::commit::decode_commit_message(&std::fs::read(f).unwrap(), version)
                    .unwrap()
            })
            .collect()
    };
    let first = prepare(&dir.path().join("m1"), 0, 30, false);
    assert!(
        first.len() >= 2,
        "two buckets, one message each: {}",
        first.len()
    );
    assert_eq!(t.new_commit("rust").commit(7, &first).unwrap(), vec![1]);
    // the same messages under the same user and identifier are not applied twice
    assert_eq!(
        t.new_commit("rust").commit(7, &first).unwrap(),
        Vec::<i64>::new()
    );
    assert_eq!(dump(&p), java_rows(0..30));

    // Java commits a write of its own on top, then we commit more of Java's messages (ids
    // 35..45 overlap Java's 30..40 with equal rows), then Java compacts what we committed
    prepare(&dir.path().join("m2"), 30, 40, true);
    let third = prepare(&dir.path().join("m3"), 35, 45, false);
    let t = open(&p);
    assert_eq!(t.new_commit("rust").commit(8, &third).unwrap(), vec![3]);
    assert_eq!(dump(&p), java_rows(0..45));
    oracle(&["compact", p.to_str().unwrap()]);
    assert_eq!(dump(&p), java_rows(0..45));
    assert_eq!(open(&p).snapshots().unwrap().len(), 4);
}
