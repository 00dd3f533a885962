//! Appends to a data-evolution table (Java's `append/data_evolution` fixture: two commits and
//! two column-group rewrites): `paimon write` appends rows whose row ids continue the table's
//! (the commit gives the new files their first row ids), Java 1.4.2 reads Java's rows and ours
//! with those row ids, compacts the table, and our next append continues after Java's
//! snapshot. Our own compaction of such a table is refused (it merges column files, which only
//! Java does) with nothing committed.

use std::path::Path;

use crate::maintenance::{copy_dir, oracle, repo};
use crate::write_cmd::{canonical, paimon, s};
use serde_json::{json, Value};

/// Java's rows with their row ids, canonical JSON, sorted.
fn java_rows(t: &Path) -> Vec<String> {
    let out = oracle(&["dump", s(t), "--select", "_ROW_ID,id,a,b,c", "--sort"]);
    canonical(
        out.lines()
            .map(|l| serde_json::from_str(l).expect("oracle JSON line"))
            .collect(),
    )
}

/// Appends rows `ids` (a = "r<id>", b = id, c = id / 2) with `paimon write`.
fn append(t: &Path, dir: &Path, name: &str, ids: std::ops::Range<i64>) {
    let file = dir.join(name);
    let lines: Vec<String> = ids
        .map(|i| json!({"id": i, "a": format!("r{i}"), "b": i, "c": i as f64 / 2.0}).to_string())
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = paimon(&["write", s(t), "--from", s(&file)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The rows `ids` as Java prints them, with row ids from `first_row_id` on.
fn kept(ids: std::ops::Range<i64>, first_row_id: i64) -> Vec<Value> {
    let start = ids.start;
    ids.map(|i| {
        json!({"_ROW_ID": first_row_id + i - start, "id": i, "a": format!("r{i}"), "b": i,
               "c": i as f64 / 2.0})
    })
    .collect()
}

#[test]
fn we_append_to_a_data_evolution_table_and_java_reads_and_compacts_it() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("data_evolution");
    copy_dir(
        &repo().join("fixtures/warehouse/append.db/data_evolution"),
        &t,
    );
    let before: Vec<Value> = java_rows(&t)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The fixture's 30 rows hold row ids 0..29.
    assert_eq!(before.len(), 30);
    assert_eq!(
        before.iter().filter_map(|r| r["_ROW_ID"].as_i64()).max(),
        Some(29)
    );

    append(&t, dir.path(), "a.jsonl", 100..105);
    let mut want = before.clone();
    want.extend(kept(100..105, 30));
    assert_eq!(java_rows(&t), canonical(want.clone()));

    // Ours refuses to compact it, and commits nothing.
    let snapshots = std::fs::read_dir(t.join("snapshot")).unwrap().count();
    let out = paimon(&["compact", s(&t), "--full"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("data-evolution"), "{err}");
    assert_eq!(
        std::fs::read_dir(t.join("snapshot")).unwrap().count(),
        snapshots
    );

    // Java compacts; the rows and their ids stay, and our next append continues after them.
    let compacted: Value = serde_json::from_str(oracle(&["compact", s(&t)]).trim()).unwrap();
    assert_eq!(compacted["snapshot"], json!(6), "Java compacted nothing");
    assert_eq!(java_rows(&t), canonical(want.clone()));
    append(&t, dir.path(), "b.jsonl", 200..203);
    want.extend(kept(200..203, 35));
    assert_eq!(java_rows(&t), canonical(want));
}

/// A data-evolution table with a BLOB column (Java's `append/blob`): Java keeps the values in
/// `.blob` files, which the writers do not produce, so the write is refused and commits nothing.
#[test]
fn appends_to_a_table_with_a_blob_column_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("blob");
    copy_dir(&repo().join("fixtures/warehouse/append.db/blob"), &t);
    let snapshots = std::fs::read_dir(t.join("snapshot")).unwrap().count();
    let file = dir.path().join("b.jsonl");
    std::fs::write(&file, "{\"id\":100,\"name\":\"x\",\"doc\":null}\n").unwrap();
    let out = paimon(&["write", s(&t), "--from", s(&file)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("BLOB column doc"), "{err}");
    assert_eq!(
        std::fs::read_dir(t.join("snapshot")).unwrap().count(),
        snapshots
    );
}
