//! `--message-version 14` (pypaimon 2.1 / paimon-rust 0.4's CommitMessage version) through
//! `paimon write --prepare-only` and `paimon commit`: the files hold v14 bodies (a v11 reader
//! refuses them), commit, and read back as the rows written; version 15 is refused by name.

use paimon_split::commit::decode_commit_message;

mod cli;
use cli::{ok, paimon, s};

fn sorted_lines(text: &str) -> Vec<serde_json::Value> {
    let mut rows: Vec<serde_json::Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON row"))
        .collect();
    rows.sort_by_key(|r| r.to_string());
    rows
}

#[test]
fn write_prepare_only_and_commit_at_message_version_14() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("orders");
    let rows = "{\"id\":1,\"item\":\"a\",\"dt\":\"x\"}\n{\"id\":2,\"item\":\"b\",\"dt\":\"y\"}\n\
                {\"id\":3,\"item\":\"c\",\"dt\":\"x\"}\n";
    let input = dir.path().join("rows.jsonl");
    std::fs::write(&input, rows).unwrap();
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT"},{"name":"item","type":"STRING"},{"name":"dt","type":"STRING"}]}"#,
        "--partition-key",
        "dt",
        "--primary-key",
        "dt,id",
        "--option",
        "bucket=2",
    ]);
    let msgs = dir.path().join("msgs");
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&input),
        "--prepare-only",
        "--out-dir",
        s(&msgs),
        "--message-version",
        "14",
    ]);
    let mut files: Vec<String> = std::fs::read_dir(&msgs)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut new_rows = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let m = decode_commit_message(&bytes, 14).unwrap();
        assert_eq!(m.check_from_snapshot, None, "{f}");
        assert_eq!(m.total_buckets, Some(2), "{f}");
        assert_eq!(
            *bytes.last().unwrap(),
            0,
            "{f}: the check-from snapshot flag"
        );
        // The same bytes are not a v13 body: one byte too many.
        assert!(decode_commit_message(&bytes, 13).is_err(), "{f}");
        new_rows += m
            .data_increment
            .new_files
            .iter()
            .map(|f| f.row_count)
            .sum::<i64>();
    }
    assert_eq!(new_rows, 3);
    let mut commit = vec!["commit", s(&t), "--message-version", "14"];
    commit.extend(files.iter().map(String::as_str));
    ok(&commit);
    let read = ok(&["read", s(&t), "--format", "jsonl"]);
    assert_eq!(sorted_lines(&read), sorted_lines(rows));

    let out = paimon(&["commit", s(&t), "--message-version", "15", &files[0]]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("15") && err.contains("2..=14"), "{err}");
}

/// Without `--message-version`, `write --prepare-only` writes v14 bodies (what pypaimon 2.1,
/// paimon-rust 0.4 and the Java 2.1 line read) and `commit` reads them; a bucket-unaware
/// table's messages carry no total buckets (the peers' committers refuse -1); version 11 stays
/// one flag away for Java 1.4.
#[test]
fn write_prepare_only_and_commit_default_to_message_version_14() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("events");
    let rows = "{\"id\":1,\"item\":\"a\"}\n{\"id\":2,\"item\":\"b\"}\n";
    let input = dir.path().join("rows.jsonl");
    std::fs::write(&input, rows).unwrap();
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT"},{"name":"item","type":"STRING"}]}"#,
    ]);
    let msgs = dir.path().join("msgs");
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&input),
        "--prepare-only",
        "--out-dir",
        s(&msgs),
    ]);
    let files: Vec<String> = std::fs::read_dir(&msgs)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 1);
    let bytes = std::fs::read(&files[0]).unwrap();
    let m = decode_commit_message(&bytes, 14).unwrap();
    assert_eq!((m.bucket, m.total_buckets), (0, None));
    assert_eq!(m.data_increment.new_files[0].row_count, 2);
    let mut commit = vec!["commit", s(&t)];
    commit.extend(files.iter().map(String::as_str));
    ok(&commit);
    let read = ok(&["read", s(&t), "--format", "jsonl"]);
    assert_eq!(sorted_lines(&read), sorted_lines(rows));

    let v11 = dir.path().join("v11");
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&input),
        "--prepare-only",
        "--out-dir",
        s(&v11),
        "--message-version",
        "11",
    ]);
    let f = std::fs::read_dir(&v11)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let bytes = std::fs::read(&f).unwrap();
    assert!(decode_commit_message(&bytes, 11).is_ok());
    assert!(decode_commit_message(&bytes, 14).is_err());
}
