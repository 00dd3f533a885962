//! A distributed write through a write context: `paimon write-context` plans once, a worker
//! `paimon write --context --prepare-only` writes with the context bytes alone (the table's
//! schema, snapshot and manifest directories are moved away while it runs), `paimon commit`
//! commits, and the worker's rows win over the committed rows of the same keys (the restored
//! sequence numbers). Java Paimon 1.4.2 reads the same rows.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

mod cli;
use cli::{ok, paimon, s};
use paimon_test_utils::copy_dir;
use paimon_test_utils::repo;

/// `(id, v, n)` of each row `paimon read` gives, sorted by id.
fn rows(t: &Path) -> Vec<Row> {
    let mut out: Vec<_> = ok(&["read", s(t), "--format", "jsonl"])
        .lines()
        .map(|l| triple(&serde_json::from_str(l).expect("a JSON row")))
        .collect();
    out.sort();
    out
}

/// `(id, v, n)` of a row.
type Row = (i64, Option<String>, Option<i64>);

fn triple(v: &Value) -> Row {
    (
        v["id"].as_i64().expect("id"),
        v["v"].as_str().map(str::to_string),
        v["n"].as_i64(),
    )
}

/// Java's `(id, v, n)` rows of the table's latest snapshot, sorted by id.
fn java_rows(t: &Path) -> Vec<Row> {
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(["dump", s(t), "--sort"])
        .output()
        .expect("scripts/java-oracle.sh runs (needs java and the oracle jar)");
    assert!(
        out.status.success(),
        "oracle dump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows: Vec<_> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| triple(&serde_json::from_str(l).expect("oracle JSON line")))
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_worker_writes_with_the_context_alone_and_its_rows_win_over_committed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("dedup");
    copy_dir(
        &repo().join("fixtures/warehouse/pk.db/dedup_uncompacted"),
        &t,
    );
    let before = rows(&t);
    assert_eq!(before.len(), 45);
    let committed = |id: i64| before.iter().find(|r| r.0 == id).cloned();
    assert_eq!(committed(5), Some((5, Some("c1-5".into()), Some(5))));
    assert_eq!(committed(20), Some((20, Some("c3-20".into()), Some(60))));

    // Planner: the context, from the latest snapshot.
    let ctx = dir.path().join("ctx.bin");
    let said = ok(&["write-context", s(&t), "-o", s(&ctx)]);
    assert!(said.contains("snapshot "), "{said}");

    // Worker: the rows (two committed keys and a new one), with no metadata to read.
    let input = dir.path().join("rows.jsonl");
    let new_rows = [
        json!({"id": 5, "v": "new-5", "n": 500, "ts": "2024-06-01T00:00:00"}),
        json!({"id": 20, "v": "new-20", "n": 2000, "ts": "2024-06-01T00:00:01"}),
        json!({"id": 1000, "v": "new-1000", "n": 1, "ts": "2024-06-01T00:00:02"}),
    ];
    let text: String = new_rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&input, text).unwrap();
    let aside = dir.path().join("aside");
    std::fs::create_dir_all(&aside).unwrap();
    let metadata = ["snapshot", "schema", "manifest"];
    for d in metadata {
        std::fs::rename(t.join(d), aside.join(d)).unwrap();
    }
    let out_dir = dir.path().join("messages");
    let worker = paimon(&[
        "write",
        s(&t),
        "--from",
        s(&input),
        "--context",
        s(&ctx),
        "--prepare-only",
        "--out-dir",
        s(&out_dir),
    ]);
    // Without a context a worker needs that metadata.
    let blind = paimon(&[
        "write",
        s(&t),
        "--from",
        s(&input),
        "--prepare-only",
        "--out-dir",
        s(&dir.path().join("blind")),
    ]);
    for d in metadata {
        std::fs::rename(aside.join(d), t.join(d)).unwrap();
    }
    assert!(
        !blind.status.success(),
        "a worker without a context read no metadata"
    );
    assert!(
        worker.status.success(),
        "the worker failed without the table's metadata: {}",
        String::from_utf8_lossy(&worker.stderr)
    );

    // Committer: the messages, on the original table.
    let mut messages: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    messages.sort();
    assert!(!messages.is_empty());
    let mut args = vec!["commit", s(&t)];
    args.extend(messages.iter().map(String::as_str));
    ok(&args);

    let mut expected: Vec<_> = before
        .iter()
        .filter(|r| r.0 != 5 && r.0 != 20)
        .cloned()
        .collect();
    expected.extend(new_rows.iter().map(triple));
    expected.sort();
    assert_eq!(rows(&t), expected);
    assert_eq!(java_rows(&t), expected);
}

#[test]
fn a_context_for_another_table_or_damaged_bytes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("dedup");
    copy_dir(
        &repo().join("fixtures/warehouse/pk.db/dedup_uncompacted"),
        &t,
    );
    let other = dir.path().join("other");
    copy_dir(&t, &other);
    let ctx = dir.path().join("ctx.bin");
    ok(&["write-context", s(&t), "-o", s(&ctx)]);
    let input = dir.path().join("rows.jsonl");
    std::fs::write(
        &input,
        "{\"id\": 1, \"v\": \"x\", \"n\": 1, \"ts\": null}\n",
    )
    .unwrap();
    let out_dir = dir.path().join("m");
    let run = |table: &Path, ctx: &Path| {
        paimon(&[
            "write",
            s(table),
            "--from",
            s(&input),
            "--context",
            s(ctx),
            "--prepare-only",
            "--out-dir",
            s(&out_dir),
        ])
    };
    let out = run(&other, &ctx);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is for table") && err.contains("dedup"),
        "{err}"
    );

    let mut bytes = std::fs::read(&ctx).unwrap();
    bytes.truncate(bytes.len() - 3);
    let damaged = dir.path().join("damaged.bin");
    std::fs::write(&damaged, &bytes).unwrap();
    let out = run(&t, &damaged);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--context") && err.contains("corrupt"),
        "{err}"
    );
    assert!(
        !out_dir.exists(),
        "nothing is written from a damaged context"
    );
}
