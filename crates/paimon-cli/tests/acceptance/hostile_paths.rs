//! Commit messages naming files outside the table (issue 39): `paimon commit` refuses a
//! message whose `_EXTERNAL_PATH` or extra file points outside the table, writing nothing, and
//! a later `paimon write --overwrite` and `paimon expire-snapshots` leave the file outside
//! untouched (before the check, the overwrite retired the "file" and the expiry deleted it).

use std::path::Path;

use paimon_split::commit::{
    decode_commit_message, encode_commit_message, DEFAULT_COMMIT_MESSAGE_VERSION,
};
use serde_json::json;

use crate::maintenance::our_rows;
use crate::write_cmd::{canonical, ok, paimon, s, snapshot_count};

fn rows_file(
    dir: &Path,
    name: &str,
    ids: std::ops::Range<i64>,
) -> (std::path::PathBuf, Vec<String>) {
    let rows: Vec<serde_json::Value> = ids
        .map(|i| json!({"id": i, "v": format!("v{i}")}))
        .collect();
    let file = dir.join(name);
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&file, text).unwrap();
    (file, canonical(rows))
}

/// Every data file of the table's own directory tree.
fn table_data_files(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            n += table_data_files(&p);
        } else if p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("data-")
        {
            n += 1;
        }
    }
    n
}

#[test]
fn messages_naming_files_outside_are_refused_and_overwrite_and_expiry_leave_them() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#,
    ]);
    let (a, _) = rows_file(dir.path(), "a.jsonl", 0..10);
    ok(&["write", s(&t), "--from", s(&a)]);

    // A writer's message, then the same message made hostile.
    let (b, _) = rows_file(dir.path(), "b.jsonl", 10..20);
    let msgs = dir.path().join("msgs");
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&b),
        "--prepare-only",
        "--out-dir",
        s(&msgs),
    ]);
    let files: Vec<_> = std::fs::read_dir(&msgs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let v = DEFAULT_COMMIT_MESSAGE_VERSION;
    let message = decode_commit_message(&std::fs::read(&files[0]).unwrap(), v).unwrap();
    assert_eq!(message.data_increment.new_files.len(), 1);

    // Another table's file, the hostile message's target.
    let outside = dir.path().join("other");
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("data-victim-0.parquet");
    std::fs::write(&victim, b"another table's data").unwrap();
    std::fs::write(dir.path().join("victim"), b"keep").unwrap();

    let mut external = message.clone();
    external.data_increment.new_files[0].external_path = Some(format!("file://{}", s(&victim)));
    let mut extra = message.clone();
    extra.data_increment.new_files[0].extra_files = vec!["../../victim".into()];
    let before = snapshot_count(&t);
    for (m, needle) in [
        (&external, s(&victim).to_string()),
        (&extra, "../../victim".to_string()),
    ] {
        let hostile = dir.path().join("hostile");
        std::fs::write(&hostile, encode_commit_message(m, v).unwrap()).unwrap();
        let out = paimon(&["commit", s(&t), s(&hostile)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&needle) && err.contains("newFiles[0]"),
            "{err}"
        );
        assert_eq!(snapshot_count(&t), before);
    }

    // The table moves on: an overwrite retires every live file, the expiry deletes them.
    let (c, want) = rows_file(dir.path(), "c.jsonl", 100..105);
    ok(&["write", s(&t), "--from", s(&c), "--overwrite"]);
    ok(&[
        "expire-snapshots",
        s(&t),
        "--retain-max",
        "1",
        "--retain-min",
        "1",
        "--older-than",
        "0 s",
    ]);
    assert_eq!(std::fs::read(&victim).unwrap(), b"another table's data");
    assert_eq!(std::fs::read(dir.path().join("victim")).unwrap(), b"keep");
    assert_eq!(our_rows(&t), want);
    // The written-but-never-committed file of the refused message is an orphan, still there.
    assert_eq!(table_data_files(&t), 2);
}
