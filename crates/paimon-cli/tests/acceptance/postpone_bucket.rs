//! Postpone-bucket primary-key tables (`bucket = -2`): our writer and Java's 1.4.2 writer both
//! put their records into `bucket-postpone`, which batch reads (Java's and ours) skip; `paimon
//! compact` redistributes them into real buckets (the partition's known bucket count, else
//! `postpone.default-bucket-num`), after which Java reads every row kept in the test, merged
//! by key in commit order, and writes on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::json;

use crate::maintenance::{oracle, our_rows};
use crate::write_cmd::{canonical, java_rows, ok, s};

fn expected(rows: &BTreeMap<(String, i64), String>, partitioned: bool) -> Vec<String> {
    canonical(
        rows.iter()
            .map(|((dt, id), v)| match partitioned {
                true => json!({"dt": dt, "id": id, "v": v}),
                false => json!({"id": id, "v": v}),
            })
            .collect(),
    )
}

/// The entries of `dir` named `bucket-*`.
fn buckets(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("bucket-"))
        .collect()
}

/// `(id BIGINT primary key, v STRING)`, the columns Java's `prepare-messages` writes, with
/// `bucket = -2`.
fn create_kv(t: &Path) {
    ok(&[
        "create-table",
        s(t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=-2",
    ]);
}

/// Java's postpone writer commits `(id, "java-<id>")` for ids `from..to`.
fn java_writes(
    t: &Path,
    dir: &Path,
    from: i64,
    to: i64,
    want: &mut BTreeMap<(String, i64), String>,
) {
    let msgs = dir.join(format!("java-msgs-{from}-{to}"));
    let (from_s, to_s) = (from.to_string(), to.to_string());
    oracle(&[
        "prepare-messages",
        s(t),
        s(&msgs),
        "--from",
        &from_s,
        "--to",
        &to_s,
        "--commit",
        "true",
    ]);
    for i in from..to {
        want.insert((String::new(), i), format!("java-{i}"));
    }
}

#[test]
fn ours_and_javas_postpone_files_are_skipped_until_our_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create_kv(&t);
    let mut want: BTreeMap<(String, i64), String> = BTreeMap::new();

    // Our write: ten keys, then updates and a delete, in two commits.
    let first = dir.path().join("first.jsonl");
    let text: String = (0..10)
        .map(|i| format!("{}\n", json!({"id": i, "v": format!("ours-{i}")})))
        .collect();
    std::fs::write(&first, text).unwrap();
    ok(&["write", s(&t), "--from", s(&first)]);
    for i in 0..10 {
        want.insert((String::new(), i), format!("ours-{i}"));
    }
    let second = dir.path().join("second.csv");
    std::fs::write(
        &second,
        "op,id,v\n+U,2,ours2-2\n-D,9,ours-9\n+I,3,ours2-3\n",
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
    want.insert((String::new(), 2), "ours2-2".into());
    want.insert((String::new(), 3), "ours2-3".into());
    want.remove(&(String::new(), 9));

    // Only the postpone bucket, in Avro files named as Java names them; batch reads skip it.
    assert_eq!(buckets(&t), BTreeSet::from(["bucket-postpone".to_string()]));
    let names: Vec<String> = std::fs::read_dir(t.join("bucket-postpone"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    for n in &names {
        assert!(
            n.starts_with("data--u-") && n.contains("-s-") && n.contains("-w-"),
            "{n}"
        );
        assert!(n.ends_with(".avro"), "{n}");
    }
    assert_eq!(java_rows(&t), Vec::<String>::new());
    assert_eq!(our_rows(&t), Vec::<String>::new());
    // The files' metadata as Java's postpone writer leaves it: level 0, sequence numbers -1
    // (none given yet), total buckets -2, the retractions counted.
    let plan = oracle(&[
        "plan",
        s(&t),
        "--changes-since",
        "0",
        "--out-dir",
        s(&dir.path().join("plan")),
    ]);
    let files: Vec<serde_json::Value> = plan
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{plan}");
    for (split, deletes) in files.iter().zip([0, 1]) {
        assert_eq!(split["bucket"], -2, "{split}");
        assert_eq!(split["totalBuckets"], -2, "{split}");
        let f = &split["files"][0];
        assert_eq!(f["level"], 0, "{f}");
        assert_eq!(f["minSequenceNumber"], -1, "{f}");
        assert_eq!(f["maxSequenceNumber"], -1, "{f}");
        assert_eq!(f["deleteRowCount"], deletes, "{f}");
    }
    // Java's streaming read sees our records with their kinds, the delete included.
    let java_changes = oracle(&[
        "dump",
        s(&t),
        "--changes-since",
        "0",
        "--with-kind",
        "--sort",
    ]);
    assert_eq!(java_changes.lines().count(), 13, "{java_changes}");
    assert!(
        java_changes.contains(r#"{"_ROW_KIND":"-D","id":9,"v":"ours-9"}"#),
        "{java_changes}"
    );

    // Java's postpone writer on top: ids 5..15 (5..8 are ours, 9 deleted, the rest new).
    java_writes(&t, dir.path(), 5, 15, &mut want);
    assert_eq!(java_rows(&t), Vec::<String>::new());

    // Our compaction: one real bucket (postpone.default-bucket-num), every row merged by key
    // in commit order; Java reads them, and no postpone file is left live.
    ok(&["compact", s(&t)]);
    assert_eq!(java_rows(&t), expected(&want, false));
    assert_eq!(our_rows(&t), expected(&want, false));
    assert!(buckets(&t).contains("bucket-0"));
    assert!(!buckets(&t).contains("bucket-1"));
    let files = ok(&["files", s(&t)]);
    assert!(!files.contains("bucket-postpone"), "{files}");

    // Java writes on (postpone again), then our next compaction keeps the bucket count and
    // continues the bucket's sequence numbers: Java's newer values win.
    java_writes(&t, dir.path(), 0, 3, &mut want);
    let second_round = want.clone();
    ok(&["compact", s(&t)]);
    assert_eq!(java_rows(&t), expected(&second_round, false));
    assert_eq!(our_rows(&t), expected(&second_round, false));
    assert!(!buckets(&t).contains("bucket-1"));

    // Java compacts the real buckets further (as a fixed-bucket table, as Flink's postpone
    // jobs write them) and reads the same rows; so do we.
    oracle(&["compact", s(&t)]);
    assert_eq!(java_rows(&t), expected(&second_round, false));
    assert_eq!(our_rows(&t), expected(&second_round, false));
}

#[test]
fn partitions_keep_their_bucket_count_and_new_ones_get_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"dt","type":"STRING"},{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#,
        "--primary-key",
        "dt,id",
        "--partition-key",
        "dt",
        "--option",
        "bucket=-2",
        "--option",
        "postpone.default-bucket-num=2",
    ]);
    let mut want: BTreeMap<(String, i64), String> = BTreeMap::new();
    let write =
        |name: &str, rows: &[(&str, i64, &str)], want: &mut BTreeMap<(String, i64), String>| {
            let f = dir.path().join(name);
            let text: String = rows
                .iter()
                .map(|(dt, id, v)| format!("{}\n", json!({"dt": dt, "id": id, "v": v})))
                .collect();
            std::fs::write(&f, text).unwrap();
            ok(&["write", s(&t), "--from", s(&f)]);
            for (dt, id, v) in rows {
                want.insert((dt.to_string(), *id), v.to_string());
            }
        };
    let rows_a: Vec<(String, i64, String)> =
        (0..20).map(|i| ("a".into(), i, format!("a-{i}"))).collect();
    let rows_a: Vec<(&str, i64, &str)> = rows_a
        .iter()
        .map(|(d, i, v)| (d.as_str(), *i, v.as_str()))
        .collect();
    write("a.jsonl", &rows_a, &mut want);
    ok(&["compact", s(&t)]);
    assert_eq!(
        buckets(&t.join("dt=a")),
        BTreeSet::from([
            "bucket-0".to_string(),
            "bucket-1".to_string(),
            "bucket-postpone".to_string()
        ])
    );
    assert_eq!(java_rows(&t), expected(&want, true));

    // A larger default from now on: partition a keeps its 2 buckets, b gets 3.
    ok(&[
        "alter-table",
        s(&t),
        "--set-option",
        "postpone.default-bucket-num=3",
    ]);
    write(
        "ab.jsonl",
        &[
            ("a", 1, "a2-1"),
            ("a", 25, "a2-25"),
            ("b", 1, "b-1"),
            ("b", 2, "b-2"),
            ("b", 3, "b-3"),
            ("b", 4, "b-4"),
        ],
        &mut want,
    );
    assert_eq!(
        java_rows(&t).len(),
        20,
        "the new rows wait in bucket-postpone"
    );
    ok(&["compact", s(&t)]);
    assert!(!buckets(&t.join("dt=a")).contains("bucket-2"));
    let b = buckets(&t.join("dt=b"));
    assert!(
        b.iter()
            .all(|n| ["bucket-0", "bucket-1", "bucket-2", "bucket-postpone"].contains(&n.as_str())),
        "{b:?}"
    );
    assert_eq!(java_rows(&t), expected(&want, true));
    assert_eq!(our_rows(&t), expected(&want, true));
    // Java's plan of partition b: three buckets, as its own postpone compaction would give.
    let plan_dir = dir.path().join("plan");
    let plan = oracle(&[
        "plan",
        s(&t),
        "--filter",
        "dt = 'b'",
        "--out-dir",
        s(&plan_dir),
    ]);
    assert!(
        plan.lines().all(|l| l.contains(r#""totalBuckets":3"#)),
        "{plan}"
    );
}

#[test]
fn partial_update_rows_merge_in_commit_order_when_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"a","type":"STRING"},{"name":"b","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=-2",
        "--option",
        "merge-engine=partial-update",
    ]);
    for (i, rows) in [
        r#"{"id":1,"a":"a1","b":null}
{"id":2,"a":"a2","b":"b2"}"#,
        r#"{"id":1,"a":null,"b":"b1"}
{"id":2,"a":"a2-new","b":null}"#,
    ]
    .iter()
    .enumerate()
    {
        let f = dir.path().join(format!("{i}.jsonl"));
        std::fs::write(&f, rows).unwrap();
        ok(&["write", s(&t), "--from", s(&f)]);
    }
    assert_eq!(java_rows(&t), Vec::<String>::new());
    ok(&["compact", s(&t)]);
    let want = canonical(vec![
        json!({"id": 1, "a": "a1", "b": "b1"}),
        json!({"id": 2, "a": "a2-new", "b": "b2"}),
    ]);
    assert_eq!(java_rows(&t), want);
    assert_eq!(our_rows(&t), want);
}

/// A table whose batch reads skip level 0 (whose writes Java's postpone writer does not
/// compact either) is written, but its compaction would hide the redistributed rows: refused,
/// and nothing committed.
#[test]
fn compaction_refuses_tables_whose_reads_skip_level0() {
    for opt in ["deletion-vectors.enabled=true", "merge-engine=first-row"] {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t");
        ok(&[
            "create-table",
            s(&t),
            "--schema",
            r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#,
            "--primary-key",
            "id",
            "--option",
            "bucket=-2",
            "--option",
            opt,
        ]);
        let f = dir.path().join("rows.jsonl");
        std::fs::write(&f, "{\"id\":1,\"v\":\"a\"}\n").unwrap();
        ok(&["write", s(&t), "--from", s(&f)]);
        let out = crate::write_cmd::paimon(&["compact", s(&t)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{opt}: {err}");
        assert!(err.contains("skip level 0"), "{opt}: {err}");
        assert_eq!(crate::write_cmd::snapshot_count(&t), 1, "{opt}");
    }
}

/// Java wrote `pk/postpone_bucket` (four commits into `bucket-postpone`, deletes among them).
/// After our compaction Java's batch read holds each key's last record of Java's own streaming
/// read, in commit order, deletes applied; ours the same.
#[test]
fn a_java_written_postpone_table_compacted_by_us() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("postpone_bucket");
    crate::maintenance::copy_dir(
        &crate::maintenance::repo().join("fixtures/warehouse/pk.db/postpone_bucket"),
        &t,
    );
    assert_eq!(java_rows(&t), Vec::<String>::new());
    // Java's changes, commit after commit (its read order), folded by key.
    let changes = oracle(&["dump", s(&t), "--changes-since", "0", "--with-kind"]);
    let mut last: BTreeMap<i64, serde_json::Value> = BTreeMap::new();
    for line in changes.lines() {
        let mut row: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(line).unwrap();
        let kind = row.shift_remove("_ROW_KIND").unwrap();
        let id = row["id"].as_i64().unwrap();
        match kind.as_str().unwrap() {
            "-D" | "-U" => last.remove(&id),
            _ => last.insert(id, serde_json::Value::Object(row)),
        };
    }
    let want = canonical(last.into_values().collect());
    assert!(want.len() > 10, "{want:?}");
    ok(&["compact", s(&t)]);
    assert_eq!(java_rows(&t), want);
    assert_eq!(our_rows(&t), want);
}
