//! Compaction of a row-tracked append table (`'row-tracking.enabled' = 'true'`, issue 45): the
//! rows keep their `_ROW_ID` and `_SEQUENCE_NUMBER` through our compactions (`paimon compact
//! --full`, then `--plan-only` tasks run by `paimon compact-task` and committed by `paimon
//! commit`, then `CALL sys.compact`), as Java Paimon 1.4.2 and our reader both read them; the
//! compacted file gets the first row id of its rows (pypaimon 2.1 and paimon-rust 0.4 read row
//! ids only through it: `scripts/test-peers-2x.sh` checks them on such tables).
//!
//! Before the fix the compacted file had no first row id and no row ids of its own: our reader
//! returned null row ids and Java 1.4.2 failed the read with a NullPointerException.

use std::path::Path;

use serde_json::{json, Value};

use crate::maintenance::oracle;
use crate::write_cmd::{canonical, ok, s};

/// Java's rows with their row ids and sequence numbers, canonical JSON, sorted.
fn java_rows(t: &Path) -> Vec<String> {
    let out = oracle(&[
        "dump",
        s(t),
        "--select",
        "_ROW_ID,_SEQUENCE_NUMBER,id,v",
        "--sort",
    ]);
    canonical(
        out.lines()
            .map(|l| serde_json::from_str(l).expect("oracle JSON line"))
            .collect(),
    )
}

/// Our rows, as `java_rows`.
fn our_rows(t: &Path) -> Vec<String> {
    let out = ok(&[
        "read",
        s(t),
        "--select",
        "_ROW_ID,_SEQUENCE_NUMBER,id,v",
        "--format",
        "jsonl",
    ]);
    canonical(
        out.lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect(),
    )
}

/// The live data files as Java's `$files` lists them.
fn java_files(t: &Path) -> Vec<Value> {
    oracle(&["system-table", s(t), "files"])
        .lines()
        .map(|l| serde_json::from_str(l).expect("oracle JSON line"))
        .collect()
}

/// `paimon write` of rows `(id, v)`.
fn write(t: &Path, dir: &Path, name: &str, rows: &[(i32, &str)]) {
    let file = dir.join(name);
    let lines: Vec<String> = rows
        .iter()
        .map(|(id, v)| json!({"id": id, "v": v}).to_string())
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    ok(&["write", s(t), "--from", s(&file)]);
}

/// The rows kept in the test: `(row id, sequence number, id, v)`.
fn rows(want: &[(i64, i64, i32, &str)]) -> Vec<String> {
    canonical(
        want.iter()
            .map(|(r, q, id, v)| json!({"_ROW_ID": r, "_SEQUENCE_NUMBER": q, "id": id, "v": v}))
            .collect(),
    )
}

/// Asserts the table's one live file: compacted, first row id 0, `rows` rows, described as
/// the table's (no `write_cols`), with the sequence numbers `seq`.
fn one_compacted_file(t: &Path, rows: i64, seq: (i64, i64)) {
    let files = java_files(t);
    assert_eq!(files.len(), 1, "{files:?}");
    let f = &files[0];
    assert_eq!(f["file_source"], json!("COMPACT"), "{f}");
    assert_eq!(f["first_row_id"], json!(0), "{f}");
    assert_eq!(f["record_count"], json!(rows), "{f}");
    assert_eq!(f["write_cols"], Value::Null, "{f}");
    assert_eq!(
        (
            f["min_sequence_number"].clone(),
            f["max_sequence_number"].clone()
        ),
        (json!(seq.0), json!(seq.1)),
        "{f}"
    );
}

#[test]
fn row_ids_and_sequence_numbers_survive_our_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let w = s(&wh);
    ok(&["sql", w, "CREATE DATABASE db"]);
    ok(&[
        "sql",
        w,
        "CREATE TABLE db.t (id INT, v STRING) WITH ('row-tracking.enabled' = 'true')",
    ]);
    let t = wh.join("db.db").join("t");

    // Two commits: first row ids 0 and 2; each row's sequence number is its snapshot's id.
    write(&t, dir.path(), "w1.jsonl", &[(1, "a"), (2, "b")]);
    write(&t, dir.path(), "w2.jsonl", &[(3, "c"), (4, "d"), (5, "e")]);
    let mut want = vec![
        (0, 1, 1, "a"),
        (1, 1, 2, "b"),
        (2, 2, 3, "c"),
        (3, 2, 4, "d"),
        (4, 2, 5, "e"),
    ];
    assert_eq!(java_rows(&t), rows(&want));
    assert_eq!(our_rows(&t), rows(&want));
    let firsts: Vec<Value> = java_files(&t)
        .iter()
        .map(|f| f["first_row_id"].clone())
        .collect();
    assert_eq!(firsts.len(), 2);
    assert!(
        firsts.contains(&json!(0)) && firsts.contains(&json!(2)),
        "{firsts:?}"
    );

    // `paimon compact --full`: one file, the same row ids and sequence numbers.
    ok(&["compact", s(&t), "--full"]);
    one_compacted_file(&t, 5, (1, 5));
    assert_eq!(java_rows(&t), rows(&want));
    assert_eq!(our_rows(&t), rows(&want));

    // A third commit continues at row id 5; the compaction tasks of `--plan-only`, run by
    // `paimon compact-task` and committed by `paimon commit`, compact the two files.
    write(&t, dir.path(), "w3.jsonl", &[(6, "f"), (7, "g")]);
    want.extend([(5, 4, 6, "f"), (6, 4, 7, "g")]);
    assert_eq!(java_rows(&t), rows(&want));
    let tasks = dir.path().join("tasks");
    ok(&[
        "compact",
        s(&t),
        "--full",
        "--plan-only",
        "--out-dir",
        s(&tasks),
    ]);
    let messages = dir.path().join("messages");
    for task in std::fs::read_dir(&tasks).unwrap() {
        let task = task.unwrap().path();
        ok(&["compact-task", s(&t), s(&task), "--out-dir", s(&messages)]);
    }
    let mut commit = vec!["commit".to_string(), s(&t).to_string()];
    for m in std::fs::read_dir(&messages).unwrap() {
        commit.push(m.unwrap().path().to_str().unwrap().to_string());
    }
    ok(&commit.iter().map(String::as_str).collect::<Vec<_>>());
    one_compacted_file(&t, 7, (1, 7));
    assert_eq!(java_rows(&t), rows(&want));
    assert_eq!(our_rows(&t), rows(&want));

    // Once more through SQL, after a fourth commit.
    write(&t, dir.path(), "w4.jsonl", &[(8, "h")]);
    want.push((7, 6, 8, "h"));
    ok(&[
        "sql",
        w,
        "CALL sys.compact(table => 'db.t', compact_strategy => 'full')",
    ]);
    one_compacted_file(&t, 8, (1, 8));
    assert_eq!(java_rows(&t), rows(&want));
    assert_eq!(our_rows(&t), rows(&want));
}
