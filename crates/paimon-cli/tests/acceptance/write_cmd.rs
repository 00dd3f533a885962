//! `paimon create-table`, `write` and `commit` run as processes on tables in a temp dir; Java
//! Paimon 1.4.2 (`scripts/java-oracle.sh dump TABLE --sort`) must read exactly the rows kept
//! in each test.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use arrow::array::{Int32Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use paimon_test_utils::repo;
use serde_json::{json, Value};

pub(crate) fn paimon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(args)
        .output()
        .expect("run paimon")
}

/// Runs `paimon ARGS`, which must succeed; returns stdout.
pub(crate) fn ok(args: &[&str]) -> String {
    let out = paimon(args);
    assert!(
        out.status.success(),
        "paimon {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Java's rows of the table's latest snapshot, canonical JSON (keys sorted), sorted.
pub(crate) fn java_rows(table: &Path) -> Vec<String> {
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(["dump", table.to_str().expect("utf-8 path"), "--sort"])
        .output()
        .expect("scripts/java-oracle.sh runs (needs java and the oracle jar)");
    assert!(
        out.status.success(),
        "oracle dump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    canonical(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("oracle JSON line"))
            .collect(),
    )
}

pub(crate) fn canonical(rows: Vec<Value>) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(Value::to_string).collect();
    v.sort();
    v
}

pub(crate) fn snapshot_count(table: &Path) -> usize {
    ok(&["snapshots", table.to_str().unwrap(), "--json"])
        .lines()
        .count()
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

const ORDERS: &str = r#"{"fields":[{"name":"id","type":"INT"},{"name":"item","type":"STRING"},{"name":"dt","type":"STRING"}]}"#;

#[test]
fn append_partitioned_table_from_csv_and_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("orders");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        ORDERS,
        "--partition-key",
        "dt",
    ]);
    let csv = dir.path().join("a.csv");
    std::fs::write(
        &csv,
        "dt,id,item\n2024-01-01,1,apple\n2024-01-02,2,pear\n2024-01-01,3,fig\n",
    )
    .unwrap();
    ok(&["write", s(&t), "--from", s(&csv)]);
    let jsonl = dir.path().join("b.jsonl");
    std::fs::write(&jsonl, "{\"id\":4,\"item\":null,\"dt\":\"2024-01-03\"}\n").unwrap();
    ok(&["write", s(&t), "--from", s(&jsonl)]);
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "item": "apple", "dt": "2024-01-01"}),
            json!({"id": 2, "item": "pear", "dt": "2024-01-02"}),
            json!({"id": 3, "item": "fig", "dt": "2024-01-01"}),
            json!({"id": 4, "item": null, "dt": "2024-01-03"}),
        ])
    );
    assert_eq!(snapshot_count(&t), 2);
}

#[test]
fn primary_key_table_takes_updates_and_deletes_from_a_row_kind_column() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("users");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"name","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=1",
    ]);
    // One bucket, and ann written last: her sequence number (2) is above those the second
    // write's update would get if it restarted at 0.
    let first = dir.path().join("first.jsonl");
    std::fs::write(
        &first,
        "{\"id\":3,\"name\":\"cy\"}\n{\"id\":2,\"name\":\"bob\"}\n{\"id\":1,\"name\":\"ann\"}\n",
    )
    .unwrap();
    ok(&["write", s(&t), "--from", s(&first)]);
    // A second commit: its sequence numbers must continue after the first's, or Java would
    // keep the old rows.
    let second = dir.path().join("second.csv");
    std::fs::write(
        &second,
        "op,id,name\n-U,1,ann\n+U,1,anne\n-D,2,bob\n+I,4,dee\n",
    )
    .unwrap();
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&second),
        "--row-kind-column",
        "op",
    ]);
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "name": "anne"}),
            json!({"id": 3, "name": "cy"}),
            json!({"id": 4, "name": "dee"}),
        ])
    );
}

#[test]
fn overwrite_replaces_one_partition() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("orders");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        ORDERS,
        "--partition-key",
        "dt",
    ]);
    let csv = dir.path().join("a.csv");
    std::fs::write(
        &csv,
        "id,item,dt\n1,apple,2024-01-01\n2,pear,2024-01-02\n3,fig,2024-01-01\n",
    )
    .unwrap();
    ok(&["write", s(&t), "--from", s(&csv)]);
    let new = dir.path().join("new.csv");
    std::fs::write(&new, "id,item,dt\n9,kiwi,2024-01-01\n").unwrap();
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&new),
        "--overwrite",
        "--partition",
        "dt=2024-01-01",
    ]);
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 2, "item": "pear", "dt": "2024-01-02"}),
            json!({"id": 9, "item": "kiwi", "dt": "2024-01-01"}),
        ])
    );
    // A row outside the overwritten partition is refused; nothing is committed.
    let stray = dir.path().join("stray.csv");
    std::fs::write(&stray, "id,item,dt\n7,plum,2024-01-05\n").unwrap();
    let out = paimon(&[
        "write",
        s(&t),
        "--from",
        s(&stray),
        "--overwrite",
        "--partition",
        "dt=2024-01-01",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(snapshot_count(&t), 2);
}

#[test]
fn prepare_only_then_commit_in_another_process_commits_once() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "{\"id\":1,\"item\":\"a\",\"dt\":\"x\"}\n{\"id\":2,\"item\":\"b\",\"dt\":\"y\"}\n{\"id\":3,\"item\":\"c\",\"dt\":\"x\"}\n";
    let input = dir.path().join("rows.jsonl");
    std::fs::write(&input, rows).unwrap();
    let one_step = dir.path().join("one_step");
    let two_step = dir.path().join("two_step");
    for t in [&one_step, &two_step] {
        ok(&[
            "create-table",
            s(t),
            "--schema",
            ORDERS,
            "--partition-key",
            "dt",
        ]);
    }
    ok(&["write", s(&one_step), "--from", s(&input)]);
    let msgs = dir.path().join("msgs");
    ok(&[
        "write",
        s(&two_step),
        "--from",
        s(&input),
        "--prepare-only",
        "--out-dir",
        s(&msgs),
    ]);
    assert_eq!(snapshot_count(&two_step), 0, "prepare-only commits nothing");
    let mut files: Vec<String> = std::fs::read_dir(&msgs)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "one message per partition and bucket");
    let mut commit = vec!["commit", s(&two_step)];
    commit.extend(files.iter().map(String::as_str));
    commit.extend(["--commit-user", "loader", "--identifier", "7"]);
    ok(&commit);
    ok(&commit);
    assert_eq!(snapshot_count(&two_step), 1);
    assert_eq!(java_rows(&two_step), java_rows(&one_step));
    assert_eq!(
        java_rows(&two_step),
        canonical(
            rows.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        )
    );
}

#[test]
fn create_like_parquet_then_write_parquet_and_arrow_ipc() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int32, false),
        Field::new("v", DataType::Utf8, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int32Array::from(vec![1, 2])),
            Arc::new(StringArray::from(vec![Some("one"), None])),
        ],
    )
    .unwrap();
    let pq = dir.path().join("in.parquet");
    let mut w = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&pq).unwrap(),
        schema.clone(),
        None,
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let ipc = dir.path().join("in.arrow");
    let mut w =
        arrow::ipc::writer::FileWriter::try_new(std::fs::File::create(&ipc).unwrap(), &schema)
            .unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    let t = dir.path().join("like");
    ok(&[
        "create-table",
        s(&t),
        "--like",
        s(&pq),
        "--primary-key",
        "k",
        "--option",
        "bucket=1",
    ]);
    ok(&["write", s(&t), "--from", s(&pq)]);
    let t2 = dir.path().join("like_append");
    ok(&["create-table", s(&t2), "--like", s(&pq)]);
    ok(&["write", s(&t2), "--from", s(&pq)]);
    ok(&["write", s(&t2), "--from", s(&ipc)]);
    let two = vec![json!({"k": 1, "v": "one"}), json!({"k": 2, "v": null})];
    assert_eq!(java_rows(&t), canonical(two.clone()));
    assert_eq!(java_rows(&t2), canonical([two.clone(), two].concat()));
}

#[test]
fn failures_exit_1_with_one_line_naming_the_table_and_commit_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("orders");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        ORDERS,
        "--partition-key",
        "dt",
    ]);
    let cases = [
        (
            "id,item,dt,extra\n1,a,x,9\n",
            "column extra is not a column of the table",
        ),
        ("id,item,dt\nnot-a-number,a,x\n", "input"),
    ];
    for (text, cause) in cases {
        let csv = dir.path().join("bad.csv");
        std::fs::write(&csv, text).unwrap();
        let out = paimon(&["write", s(&t), "--from", s(&csv)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(s(&t)) && err.contains(cause), "{err}");
    }
    let kinds = dir.path().join("kinds.csv");
    std::fs::write(&kinds, "op,id,item,dt\n+X,1,a,x\n").unwrap();
    let out = paimon(&[
        "write",
        s(&t),
        "--from",
        s(&kinds),
        "--row-kind-column",
        "op",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(s(&t)) && err.contains("'+X'"), "{err}");
    // A retraction into an append table is the writer's refusal.
    std::fs::write(&kinds, "op,id,item,dt\n-D,1,a,x\n").unwrap();
    let out = paimon(&[
        "write",
        s(&t),
        "--from",
        s(&kinds),
        "--row-kind-column",
        "op",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let garbage = dir.path().join("message-0000.bin");
    std::fs::write(&garbage, b"\x00\x01garbage").unwrap();
    let out = paimon(&["commit", s(&t), s(&garbage)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(s(&t)) && err.contains("message-0000.bin"),
        "{err}"
    );
    assert_eq!(snapshot_count(&t), 0);
    assert!(java_rows(&t).is_empty());
    let out = paimon(&["create-table", s(&t), "--schema", ORDERS]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("table exists"));
}

/// Java's maintenance after a commit: snapshots beyond `snapshot.num-retained.max` expire with
/// each write (and their files with them, where no live snapshot uses them), unless the table
/// is `write-only`. Java reads every row written either way.
#[test]
fn writes_expire_snapshots_as_java_commits_do_unless_write_only() {
    let dir = tempfile::tempdir().unwrap();
    for (name, write_only, kept) in [
        ("kept2", "false", vec![3, 4]),
        ("wo", "true", vec![1, 2, 3, 4]),
    ] {
        let t = dir.path().join(name);
        ok(&[
            "create-table",
            s(&t),
            "--schema",
            ORDERS,
            "--option",
            "snapshot.num-retained.min=1",
            "--option",
            "snapshot.num-retained.max=2",
            "--option",
            &format!("write-only={write_only}"),
        ]);
        let mut expected = Vec::new();
        for i in 0..4 {
            let f = dir.path().join(format!("{name}-{i}.jsonl"));
            std::fs::write(
                &f,
                format!("{{\"id\":{i},\"item\":\"x{i}\",\"dt\":\"d\"}}\n"),
            )
            .unwrap();
            ok(&["write", s(&t), "--from", s(&f)]);
            expected.push(json!({"id": i, "item": format!("x{i}"), "dt": "d"}));
        }
        let ids: Vec<i64> = ok(&["snapshots", s(&t), "--json"])
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["id"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        assert_eq!(ids, kept, "{name}");
        assert_eq!(java_rows(&t), canonical(expected), "{name}");
    }
}

/// A primary-key table with deletion vectors, whose readers skip level 0: each `paimon write`
/// commits its level-0 files and then lookup-compacts the buckets it wrote (an APPEND then a
/// COMPACT snapshot, as Java's writers commit), so Java reads every row at once; the second
/// write's update and delete mark the first write's copies in deletion vectors. Java then
/// compacts the table as its own.
#[test]
fn deletion_vector_table_is_lookup_compacted_after_each_write() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("users");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"name","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=2",
        "--option",
        "deletion-vectors.enabled=true",
    ]);
    let first = dir.path().join("first.csv");
    let rows: String = (1..=8).map(|i| format!("{i},n{i}\n")).collect();
    std::fs::write(&first, format!("id,name\n{rows}")).unwrap();
    ok(&["write", s(&t), "--from", s(&first)]);
    let second = dir.path().join("second.csv");
    std::fs::write(
        &second,
        "op,id,name\n+U,2,two\n-D,3,n3\n+I,9,n9\n+U,8,eight\n",
    )
    .unwrap();
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&second),
        "--row-kind-column",
        "op",
    ]);
    let expected = canonical(vec![
        json!({"id": 1, "name": "n1"}),
        json!({"id": 2, "name": "two"}),
        json!({"id": 4, "name": "n4"}),
        json!({"id": 5, "name": "n5"}),
        json!({"id": 6, "name": "n6"}),
        json!({"id": 7, "name": "n7"}),
        json!({"id": 8, "name": "eight"}),
        json!({"id": 9, "name": "n9"}),
    ]);
    assert_eq!(java_rows(&t), expected);
    let kinds: Vec<String> = ok(&["snapshots", s(&t), "--json"])
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["commitKind"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(kinds, ["APPEND", "COMPACT", "APPEND", "COMPACT"]);
    let table = paimon_meta::Table::open(std::sync::Arc::new(paimon_io::LocalFileIO::new()), s(&t))
        .unwrap();
    let live = table
        .live_files(Some(table.scan().with_all_levels(true)))
        .unwrap();
    assert!(live.iter().all(|f| f.file.level > 0), "level 0 left");
    let marked: i64 = live
        .iter()
        .filter_map(|f| f.deletion_file.as_ref()?.cardinality)
        .sum();
    // Bucket 0 gets ids 2 and 8: its level-0 file moves to level 4 and marks their old rows
    // in level 5. Bucket 1's new file (3 deleted, 9 added) is as large as its old run, so Java's
    // size ratio takes both into one merge at level 5, which needs no mark.
    assert_eq!(marked, 2, "ids 2 and 8 of the first write are marked");
    let levels: Vec<(i32, i32)> = live.iter().map(|f| (f.bucket, f.file.level)).collect();
    assert_eq!(
        levels.iter().filter(|(b, _)| *b == 1).count(),
        1,
        "{levels:?}"
    );
    crate::maintenance::oracle(&["compact", s(&t)]);
    assert_eq!(java_rows(&t), expected, "after Java's full compaction");
}

/// With `write-only` the writer leaves its level-0 files to a compactor, as Java's do.
#[test]
fn write_only_deletion_vector_table_waits_for_paimon_compact() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("users");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"name","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=1",
        "--option",
        "deletion-vectors.enabled=true",
        "--option",
        "write-only=true",
    ]);
    let first = dir.path().join("first.csv");
    std::fs::write(&first, "id,name\n1,a\n2,b\n").unwrap();
    ok(&["write", s(&t), "--from", s(&first)]);
    assert_eq!(snapshot_count(&t), 1);
    assert_eq!(java_rows(&t), Vec::<String>::new(), "level 0 is not read");
    ok(&["compact", s(&t)]);
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "name": "a"}),
            json!({"id": 2, "name": "b"}),
        ])
    );
}
