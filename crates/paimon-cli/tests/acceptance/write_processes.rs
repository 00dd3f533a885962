//! Writers as separate processes: several `paimon write`s committing to one table at once, and
//! writers killed (SIGKILL) at points spread over a write. Every commit must land exactly once
//! with dense snapshot ids, a killed writer must leave the table equal to a committed snapshot
//! (its rows all there or none of them), and Java Paimon 1.4.2 must read exactly the rows kept
//! in the test.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::write_cmd::{canonical, java_rows, ok, s, snapshot_count};

const SCHEMA: &str = r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"w","type":"INT"},{"name":"v","type":"STRING"}]}"#;

/// CSV rows `id,w,v` for ids `from..to` written by writer `w`, and the same rows as Java's
/// JSON.
fn rows(w: i64, from: i64, to: i64) -> (String, Vec<serde_json::Value>) {
    let mut csv = String::from("id,w,v\n");
    let mut json = Vec::new();
    for id in from..to {
        let v = format!("row-{id}-of-{w}");
        csv.push_str(&format!("{id},{w},{v}\n"));
        json.push(json!({"id": id, "w": w, "v": v}));
    }
    (csv, json)
}

fn create(t: &Path) {
    ok(&["create-table", s(t), "--schema", SCHEMA]);
}

/// The number of rows `paimon read` gives for the latest snapshot.
fn our_row_count(t: &Path) -> usize {
    let out = ok(&["read", s(t), "--format", "null"]);
    out.trim()
        .parse()
        .unwrap_or_else(|_| panic!("paimon read --format null printed {out:?}"))
}

#[test]
fn concurrent_writer_processes_each_commit_once_with_dense_snapshot_ids() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create(&t);
    let writers = 4;
    let mut expected = Vec::new();
    let mut children = Vec::new();
    for w in 0..writers {
        let (csv, json) = rows(w, w * 1000, w * 1000 + 500);
        let f = dir.path().join(format!("w{w}.csv"));
        std::fs::write(&f, csv).unwrap();
        expected.extend(json);
        children.push(
            Command::new(env!("CARGO_BIN_EXE_paimon"))
                .args(["write", s(&t), "--from", s(&f)])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn paimon write"),
        );
    }
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a concurrent writer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let ids: Vec<i64> = ok(&["snapshots", s(&t), "--json"])
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(ids, (1..=writers).collect::<Vec<_>>());
    assert_eq!(java_rows(&t), canonical(expected));
}

#[test]
fn a_writer_killed_at_any_point_leaves_a_committed_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create(&t);
    let (first, mut expected) = rows(0, 0, 10);
    let f = dir.path().join("first.csv");
    std::fs::write(&f, first).unwrap();
    ok(&["write", s(&t), "--from", s(&f)]);

    // A write big enough to be killed in the middle; its duration when left alone spreads the
    // kill points over reading, encoding, and committing.
    let big_rows = 100_000;
    let (big, _) = rows(1, 0, big_rows);
    let big_file = dir.path().join("big.csv");
    std::fs::write(&big_file, big).unwrap();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_paimon"))
            .args(["write", s(&t), "--from", s(&big_file)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn paimon write")
    };
    let started = Instant::now();
    assert!(spawn().wait().unwrap().success());
    let full = started.elapsed();
    let mut committed = 1usize; // complete copies of the big write
    let mut snapshots = 2usize;
    for fraction in [
        0.05, 0.25, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 1.0, 1.02, 1.05,
    ] {
        let mut child = spawn();
        std::thread::sleep(Duration::from_secs_f64(full.as_secs_f64() * fraction));
        let _ = child.kill();
        let finished = child.wait().unwrap().success();
        let now = snapshot_count(&t);
        // Either the write committed (one snapshot more, all its rows) or nothing of it is
        // visible; never a partial snapshot, never an unreadable table.
        assert!(
            now == snapshots || now == snapshots + 1,
            "kill at {fraction}: {now} snapshots after {snapshots}"
        );
        if now == snapshots + 1 {
            committed += 1;
        } else {
            assert!(
                !finished,
                "kill at {fraction}: the writer succeeded but nothing landed"
            );
        }
        eprintln!(
            "killed at {fraction} of {full:?}: {}",
            if now > snapshots {
                "had committed"
            } else if finished {
                "finished empty"
            } else {
                "nothing landed"
            }
        );
        snapshots = now;
        assert_eq!(
            our_row_count(&t),
            10 + committed * big_rows as usize,
            "kill at {fraction}"
        );
    }
    // Java reads the same: the first rows and each committed copy of the big write.
    let (_, big_json) = rows(1, 0, big_rows);
    for _ in 0..committed {
        expected.extend(big_json.iter().cloned());
    }
    assert_eq!(java_rows(&t), canonical(expected));
}
