//! A Rust user reading, writing and maintaining tables with the facade alone (`paimon_rs`
//! only): a Java-written fixture read and compared with the rows Java wrote
//! (`fixtures/expected`), rows written and committed then read back by Java's reader
//! (`scripts/java-oracle.sh dump`), and compaction, expiry and orphan cleanup on a temporary
//! copy, their reports checked against what the table holds.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use paimon_rs::arrow_array::{
    Array, ArrayRef, Int32Array, Int64Array, StringArray, TimestampMillisecondArray,
};
use paimon_rs::{Catalog, Overwrite, RecordBatch, Table};
use paimon_test_utils::copy_dir;
use paimon_test_utils::repo;

fn warehouse() -> String {
    repo().join("fixtures/warehouse").display().to_string()
}

/// `(id, v)` of each line of `fixtures/expected/<rel>` (Java's rows).
fn expected_rows(rel: &str) -> BTreeMap<i32, Option<String>> {
    let text = std::fs::read_to_string(repo().join("fixtures/expected").join(rel)).unwrap();
    text.lines()
        .map(|l| id_v(&serde_json::from_str(l).unwrap()))
        .collect()
}

fn id_v(row: &serde_json::Value) -> (i32, Option<String>) {
    (
        i32::try_from(row["id"].as_i64().unwrap()).unwrap(),
        row["v"].as_str().map(str::to_string),
    )
}

/// `(id, v)` of every row of `batches`.
fn rows_of(batches: &[RecordBatch]) -> BTreeMap<i32, Option<String>> {
    let mut out = BTreeMap::new();
    for b in batches {
        let id = b
            .column_by_name("id")
            .unwrap()
            .as_any()
            .downcast_ref::<Int32Array>()
            .unwrap();
        let v = b
            .column_by_name("v")
            .unwrap()
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        for i in 0..b.num_rows() {
            let prev = out.insert(id.value(i), (!v.is_null(i)).then(|| v.value(i).to_string()));
            assert!(prev.is_none(), "id {} read twice", id.value(i));
        }
    }
    out
}

/// A copy of `fixtures/warehouse/<db>.db/<table>` in a temporary directory.
fn temp_copy(db: &str, table: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join(format!("{db}.db")).join(table);
    copy_dir(
        &repo().join(format!("fixtures/warehouse/{db}.db/{table}")),
        &dst,
    );
    (dir, dst.display().to_string())
}

/// Rows for `pk.dedup_compacted` (`id INT NOT NULL, v STRING, n BIGINT, ts TIMESTAMP(3)`).
fn dedup_batch(table: &Table, ids: &[i32], tag: &str) -> RecordBatch {
    let v: Vec<String> = ids.iter().map(|i| format!("{tag}-{i}")).collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(ids.to_vec())),
        Arc::new(StringArray::from(v)),
        Arc::new(Int64Array::from(
            ids.iter().map(|i| i64::from(*i) * 100).collect::<Vec<_>>(),
        )),
        Arc::new(TimestampMillisecondArray::from(
            ids.iter()
                .map(|i| 1_714_521_600_000 + i64::from(*i))
                .collect::<Vec<_>>(),
        )),
    ];
    RecordBatch::try_new(table.arrow_schema(), cols).unwrap()
}

#[test]
fn reads_a_java_written_table_and_its_history() {
    let catalog = Catalog::filesystem(&warehouse()).unwrap();
    let table = catalog.table("pk.dedup_compacted").unwrap();
    let latest = table.scan().to_arrow().unwrap();
    assert_eq!(
        rows_of(&latest),
        expected_rows("pk/dedup_compacted/latest.jsonl")
    );
    let first = table.scan().with_snapshot(1).to_arrow().unwrap();
    assert_eq!(
        rows_of(&first),
        expected_rows("pk/dedup_compacted/snapshot-1.jsonl")
    );
    let narrowed = table
        .scan()
        .with_projection(["v", "id"])
        .with_filter("id >= 40")
        .unwrap()
        .to_arrow()
        .unwrap();
    let mut want = expected_rows("pk/dedup_compacted/latest.jsonl");
    want.retain(|id, _| *id >= 40);
    assert!(!want.is_empty());
    assert_eq!(rows_of(&narrowed), want);
    assert_eq!(narrowed[0].schema().field(0).name(), "v");
    let limited: usize = table
        .scan()
        .with_limit(7)
        .to_arrow()
        .unwrap()
        .iter()
        .map(RecordBatch::num_rows)
        .sum();
    assert_eq!(limited, 7);
}

#[test]
fn a_plan_travels_as_bytes_and_reads_the_same_rows() {
    let table = Table::open_path(&format!("{}/pk.db/dedup_compacted", warehouse())).unwrap();
    let scan = table.scan().with_projection(["id", "v"]);
    let plan = scan.plan().unwrap();
    assert_eq!(plan.snapshot_id, table.latest_snapshot_id().unwrap());
    let bytes = plan.split_bytes().unwrap();
    assert_eq!(bytes.len(), plan.splits.len());
    let reader = scan.split_reader().unwrap();
    let mut batches = Vec::new();
    for b in &bytes {
        for batch in reader.read_bytes(table.path(), b).unwrap() {
            batches.push(batch.unwrap());
        }
    }
    assert_eq!(
        rows_of(&batches),
        expected_rows("pk/dedup_compacted/latest.jsonl")
    );
}

#[test]
fn the_async_stream_reads_what_to_arrow_reads() {
    let table = Catalog::filesystem(&warehouse())
        .unwrap()
        .table("pk.dedup_compacted")
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = rt.block_on(async {
        use paimon_rs::StreamExt;
        let mut s = table.scan().to_stream().await.unwrap();
        let mut out = Vec::new();
        while let Some(b) = s.next().await {
            out.push(b.unwrap());
        }
        out
    });
    assert_eq!(
        rows_of(&batches),
        expected_rows("pk/dedup_compacted/latest.jsonl")
    );
}

/// Java's rows of the table at `path` (`scripts/java-oracle.sh dump`).
fn java_rows(path: &str) -> BTreeMap<i32, Option<String>> {
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(["dump", path, "--sort"])
        .output()
        .expect("run scripts/java-oracle.sh (needs java)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| id_v(&serde_json::from_str(l).unwrap()))
        .collect()
}

#[test]
fn rows_written_and_committed_are_read_by_java() {
    let (_dir, path) = temp_copy("pk", "dedup_compacted");
    let table = Table::open_path(&path).unwrap();
    let before = table.latest_snapshot_id().unwrap().unwrap();
    // Ids 10..=12 exist (their new values must win), 1000.. are new.
    let report = table
        .write()
        .batches([dedup_batch(&table, &[10, 11, 12, 1000, 1001], "w1")])
        .unwrap();
    assert_eq!(report.rows, 5);
    assert_eq!(report.snapshots, vec![before + 1]);
    assert_eq!(
        report.compaction, None,
        "a write-only table is not compacted"
    );
    // A worker's messages, committed by the driver.
    let messages = table
        .new_write()
        .unwrap()
        .write(&dedup_batch(&table, &[11, 2000], "w2"))
        .unwrap()
        .prepare_commit()
        .unwrap();
    let ids = table
        .new_commit("facade-test")
        .commit(1, &messages)
        .unwrap();
    assert_eq!(ids, vec![before + 2]);
    // The same identifier again commits nothing.
    assert!(table
        .new_commit("facade-test")
        .commit(1, &messages)
        .unwrap()
        .is_empty());

    let mut want = expected_rows("pk/dedup_compacted/latest.jsonl");
    for i in [10, 12, 1000, 1001] {
        want.insert(i, Some(format!("w1-{i}")));
    }
    for i in [11, 2000] {
        want.insert(i, Some(format!("w2-{i}")));
    }
    assert_eq!(rows_of(&table.scan().to_arrow().unwrap()), want);
    assert_eq!(java_rows(&path), want);
}

#[test]
fn overwrite_replaces_the_table() {
    let (_dir, path) = temp_copy("pk", "dedup_compacted");
    let table = Table::open_path(&path).unwrap();
    let report = table
        .write()
        .with_overwrite(Overwrite::AsConfigured)
        .batches([dedup_batch(&table, &[1, 2], "o")])
        .unwrap();
    assert_eq!(report.rows, 2);
    assert_eq!(
        report.files,
        live_files(&table),
        "only the files written are live"
    );
    let want: BTreeMap<i32, Option<String>> =
        [(1, Some("o-1".into())), (2, Some("o-2".into()))].into();
    assert_eq!(rows_of(&table.scan().to_arrow().unwrap()), want);
}

/// Data files of the latest snapshot.
fn live_files(table: &Table) -> usize {
    table
        .scan()
        .plan()
        .unwrap()
        .splits
        .iter()
        .filter_map(|s| s.files_split())
        .map(|d| d.data_files.len())
        .sum()
}

#[test]
fn compaction_expiry_and_orphan_cleanup_report_what_the_table_holds() {
    let (_dir, path) = temp_copy("pk", "dedup_uncompacted");
    let table = Table::open_path(&path).unwrap();
    let rows = expected_rows("pk/dedup_uncompacted/latest.jsonl");
    let files = live_files(&table);
    let latest = table.latest_snapshot_id().unwrap().unwrap();

    let c = table.compact().with_full(true).run().unwrap();
    assert_eq!(c.planned_from, Some(latest));
    assert_eq!(c.snapshots, vec![latest + 1]);
    assert_eq!(
        c.files_before, files,
        "a full compaction retires every file"
    );
    assert_eq!(c.files_after, live_files(&table));
    assert!(c.files_after <= 2, "one file per bucket at most");
    assert_eq!(rows_of(&table.scan().to_arrow().unwrap()), rows);

    let first = table
        .meta()
        .snapshot_manager()
        .earliest_id()
        .unwrap()
        .unwrap();
    let e = table
        .expire_snapshots()
        .with_retain_max(1)
        .with_retain_min(1)
        .with_older_than(Duration::ZERO)
        .run()
        .unwrap();
    assert_eq!(e.expired, (first..=latest).collect::<Vec<_>>());
    assert_eq!(e.earliest, Some(latest + 1));
    for f in &e.snapshot_files {
        assert!(!Path::new(f).exists(), "{f} is expired");
    }
    assert_eq!(rows_of(&table.scan().to_arrow().unwrap()), rows);

    let stray = Path::new(&path).join("bucket-0/data-stray-0.parquet");
    std::fs::write(&stray, b"not referenced").unwrap();
    let dry = table
        .remove_orphan_files()
        .with_older_than(Duration::ZERO)
        .with_dry_run(true)
        .run()
        .unwrap();
    assert_eq!(dry.files, vec![stray.display().to_string()]);
    assert_eq!(dry.bytes, 14);
    assert!(stray.exists());
    let done = table
        .remove_orphan_files()
        .with_older_than(Duration::ZERO)
        .run()
        .unwrap();
    assert_eq!(done.files, dry.files);
    assert!(!stray.exists());
    assert_eq!(rows_of(&table.scan().to_arrow().unwrap()), rows);
}

#[test]
fn partitions_older_than_the_expiration_time_are_dropped() {
    let (_dir, path) = temp_copy("pk", "partitioned");
    let table = Table::open_path(&path).unwrap();
    let now = paimon_rs::maintenance::NaiveDateTime::parse_from_str(
        "2024-01-03 12:00:00",
        "%Y-%m-%d %H:%M:%S",
    )
    .unwrap();
    let expire = table
        .expire_partitions()
        .with_expiration_time(Duration::from_secs(24 * 3600))
        .with_timestamp_formatter("yyyy-MM-dd")
        .with_timestamp_pattern("$dt")
        .with_now(now);
    let dry = expire.clone().with_dry_run(true).run().unwrap();
    let mut dts: Vec<String> = dry
        .partitions
        .iter()
        .map(|p| format!("{}/hr={}", p["dt"], p["hr"]))
        .collect();
    dts.sort();
    assert_eq!(
        dts,
        [
            "2024-01-01/hr=0",
            "2024-01-01/hr=1",
            "2024-01-02/hr=0",
            "2024-01-02/hr=1"
        ]
    );
    assert!(dry.snapshots.is_empty());
    let latest = table.latest_snapshot_id().unwrap().unwrap();
    let done = expire.run().unwrap();
    assert_eq!(done.snapshots, vec![latest + 1]);
    let text =
        std::fs::read_to_string(repo().join("fixtures/expected/pk/partitioned/latest.jsonl"))
            .unwrap();
    let kept = text.lines().filter(|l| l.contains("\"dt\":\"\"")).count();
    let read: usize = table
        .scan()
        .to_arrow()
        .unwrap()
        .iter()
        .map(RecordBatch::num_rows)
        .sum();
    assert_eq!(read, kept);
}

#[test]
fn errors_name_what_is_wrong() {
    let catalog = Catalog::filesystem(&warehouse()).unwrap();
    let e = catalog.table("no_database").unwrap_err();
    assert_eq!(
        e.to_string(),
        "table identifier: 'no_database' is not of the form db.table"
    );
    let table = catalog.table("pk.dedup_compacted").unwrap();
    let e = table
        .scan()
        .with_filter("nope > 1")
        .unwrap()
        .plan()
        .unwrap_err();
    assert!(matches!(e, paimon_rs::Error::Filter { .. }), "{e:?}");
    assert!(
        e.chain().starts_with("filter \"nope > 1\": "),
        "{}",
        e.chain()
    );
    let e = table
        .scan()
        .with_projection(["nope"])
        .to_arrow()
        .unwrap_err();
    assert!(e.to_string().contains("unknown column 'nope'"), "{e}");
    let e = table.expire_partitions().run().unwrap_err();
    assert!(
        e.to_string()
            .ends_with("give an expiration time or set partition.expiration-time"),
        "{e}"
    );
}

/// Tags, a branch from a tag, rollback to a snapshot id and to a tag, and a consumer, through
/// the facade: the rows each reads are the rows of the snapshot it names.
#[test]
fn tags_branches_rollback_and_consumers() {
    let (_dir, path) = temp_copy("pk", "many_snapshots");
    let table = Table::open_path(&path).unwrap();
    let rows_at = |t: &Table, id: i64| rows_of(&t.scan().with_snapshot(id).to_arrow().unwrap());
    let at_12 = rows_at(&table, 12);
    assert_eq!(table.create_tag("s12", Some(12)).unwrap(), 12);
    assert_eq!(table.create_tag("last", None).unwrap(), 14);
    let names: Vec<String> = table.tags().unwrap().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["last", "s12", "t3", "t6", "t9"]);
    assert!(table.create_tag("s12", None).is_err());

    table
        .create_branch("b2", &paimon_rs::BranchStart::Tag("s12".into()))
        .unwrap();
    assert_eq!(table.branches().unwrap(), ["b1", "b2"]);
    let b2 = table.with_branch("b2").unwrap();
    assert_eq!(rows_of(&b2.scan().to_arrow().unwrap()), at_12);

    let r = table.rollback_to(12).unwrap();
    assert_eq!(
        (r.snapshots, r.tags),
        (vec![14, 13], vec!["last".to_string()])
    );
    let table = Table::open_path(&path).unwrap();
    assert_eq!(table.latest_snapshot_id().unwrap(), Some(12));
    assert_eq!(rows_of(&table.scan().to_arrow().unwrap()), at_12);
    // Snapshot 9 has expired; its tag brings it back.
    let at_9 = rows_of(&table.scan().with_tag("t9").to_arrow().unwrap());
    let r = table.rollback_to("t9").unwrap();
    assert!(r.restored_from_tag);
    let table = Table::open_path(&path).unwrap();
    assert_eq!(table.latest_snapshot_id().unwrap(), Some(9));
    assert_eq!(rows_of(&table.scan().to_arrow().unwrap()), at_9);

    assert_eq!(table.consumer("job").unwrap(), None);
    table.reset_consumer("job", 9).unwrap();
    assert_eq!(table.consumer("job").unwrap(), Some(9));
    assert!(table.delete_consumer("job").unwrap());
    table.delete_branch("b2").unwrap();
    assert_eq!(table.branches().unwrap(), ["b1"]);
}

/// `a` of each row of `fixtures/expected/<rel>` whose column `col` is the string `value`
/// (Java's rows).
fn expected_a_where(rel: &str, col: &str, value: &str) -> Vec<i32> {
    let text = std::fs::read_to_string(repo().join("fixtures/expected").join(rel)).unwrap();
    let mut out: Vec<i32> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r[col].as_str() == Some(value))
        .map(|r| i32::try_from(r["a"].as_i64().unwrap()).unwrap())
        .collect();
    out.sort_unstable();
    out
}

/// The `a` values of `batches`, sorted.
fn a_values(batches: &[RecordBatch]) -> Vec<i32> {
    let mut out = Vec::new();
    for b in batches {
        let a = b
            .column_by_name("a")
            .unwrap()
            .as_any()
            .downcast_ref::<Int32Array>()
            .unwrap();
        out.extend(a.iter().map(Option::unwrap));
    }
    out.sort_unstable();
    out
}

/// Time travel over schema evolution: `evolution.columns` renamed `b` to `b2` after snapshot
/// 3, so a filter on `b` types against snapshot 1's schema (the one read), whichever order
/// the filter and the snapshot are given in, and a filter on `b2` does not.
#[test]
fn a_filter_types_against_the_schema_of_the_snapshot_read() {
    let catalog = Catalog::filesystem(&warehouse()).unwrap();
    let table = catalog.table("evolution.columns").unwrap();
    let want = expected_a_where("evolution/columns/snapshot-1.jsonl", "b", "b-3");
    assert_eq!(want.len(), 1);
    let filter_first = table
        .scan()
        .with_filter("b = 'b-3'")
        .unwrap()
        .with_snapshot(1)
        .to_arrow()
        .unwrap();
    assert_eq!(a_values(&filter_first), want);
    let snapshot_first = table
        .scan()
        .with_snapshot(1)
        .with_filter("b = 'b-3'")
        .unwrap()
        .plan()
        .unwrap();
    assert_eq!(snapshot_first.snapshot_id, Some(1));
    let later = table
        .scan()
        .with_filter("b2 = 'b-3'")
        .unwrap()
        .with_snapshot(1)
        .plan()
        .unwrap_err();
    assert!(
        matches!(later, paimon_rs::Error::Filter { .. }),
        "{later:?}"
    );
    assert!(later.chain().contains("b2"), "{}", later.chain());
    let latest = table
        .scan()
        .with_filter("b2 = 'b-3'")
        .unwrap()
        .to_arrow()
        .unwrap();
    assert_eq!(
        a_values(&latest),
        expected_a_where("evolution/columns/latest.jsonl", "b2", "b-3")
    );
}
