//! `paimon commit` commits a set of message files once: whatever order the files are given
//! in, and however many `paimon commit` processes race with the same files. Java Paimon 1.4.2
//! reads exactly the rows written.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::write_cmd::{canonical, java_rows, ok, s, snapshot_count};

const SCHEMA: &str = r#"{"fields":[{"name":"id","type":"INT"},{"name":"item","type":"STRING"},{"name":"dt","type":"STRING"}]}"#;
const ROWS: &str = "{\"id\":1,\"item\":\"a\",\"dt\":\"x\"}\n{\"id\":2,\"item\":\"b\",\"dt\":\"y\"}\n{\"id\":3,\"item\":\"c\",\"dt\":\"x\"}\n";

/// A partitioned table at `dir/name` and the message files of a `--prepare-only` write of
/// [`ROWS`] into it (one per partition), sorted by name.
fn prepared(dir: &Path, name: &str) -> (PathBuf, Vec<String>) {
    let input = dir.join("rows.jsonl");
    std::fs::write(&input, ROWS).unwrap();
    let t = dir.join(name);
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        SCHEMA,
        "--partition-key",
        "dt",
    ]);
    let msgs = dir.join(format!("{name}-msgs"));
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&input),
        "--prepare-only",
        "--out-dir",
        s(&msgs),
    ]);
    let mut files: Vec<String> = std::fs::read_dir(&msgs)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "one message per partition");
    (t, files)
}

fn expected_rows() -> Vec<String> {
    canonical(
        ROWS.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

/// The default commit user depends on the set of message files, not on their order.
#[test]
fn the_same_messages_in_another_order_commit_once() {
    let dir = tempfile::tempdir().unwrap();
    let (t, files) = prepared(dir.path(), "t");
    let mut forward = vec!["commit", s(&t)];
    forward.extend(files.iter().map(String::as_str));
    let mut backward = vec!["commit", s(&t)];
    backward.extend(files.iter().rev().map(String::as_str));
    ok(&forward);
    let out = ok(&backward);
    assert!(out.contains("nothing committed"), "{out}");
    assert_eq!(snapshot_count(&t), 1);
    assert_eq!(java_rows(&t), expected_rows());
}

/// Two `paimon commit` processes with the same files start together: exactly one snapshot,
/// and both succeed.
#[test]
fn racing_commit_processes_commit_once() {
    let dir = tempfile::tempdir().unwrap();
    for trial in 0..4 {
        let (t, files) = prepared(dir.path(), &format!("t{trial}"));
        let children: Vec<_> = (0..2)
            .map(|i| {
                let mut args = vec!["commit", s(&t)];
                // Each process gets the files in its own order.
                if i == 0 {
                    args.extend(files.iter().map(String::as_str));
                } else {
                    args.extend(files.iter().rev().map(String::as_str));
                }
                Command::new(env!("CARGO_BIN_EXE_paimon"))
                    .args(&args)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn paimon commit")
            })
            .collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "trial {trial}: a racing commit failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(snapshot_count(&t), 1, "trial {trial}");
        if trial == 0 {
            assert_eq!(java_rows(&t), expected_rows());
        }
    }
}
