//! `paimon sql` `CALL sys.<procedure>(..)` (issue 43), with Java Paimon's Spark / Flink
//! procedure and argument names, named and positional: what each returns, and Java Paimon
//! 1.4.2 (`scripts/java-oracle.sh dump`) reading the tags, branches, rollbacks, expiry and
//! compaction it left, against the rows kept here.

use std::path::Path;

use serde_json::{json, Value};

use crate::maintenance::java_dump;
use crate::write_cmd::{canonical, java_rows, ok, paimon, s, snapshot_count};

const KV: &str = r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"v","type":"STRING"}]}"#;

/// Runs `sql` with `paimon sql WAREHOUSE SQL --format csv`; returns stdout.
fn sql(warehouse: &Path, sql: &str) -> String {
    ok(&["sql", s(warehouse), sql, "--format", "csv"])
}

/// Java's rows of `table` as `scan` (`--tag t`, `--branch b`) selects them, canonical.
fn java_at(table: &Path, scan: &[&str]) -> Vec<String> {
    canonical(
        java_dump(table, scan)
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect(),
    )
}

fn rows(kv: &[(i32, &str)]) -> Vec<String> {
    canonical(kv.iter().map(|(i, v)| json!({"id": i, "v": v})).collect())
}

#[test]
fn tags_branches_and_rollback_through_call() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = wh.join("db.db").join("kv");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        KV,
        "--primary-key",
        "id",
        "--option",
        "bucket=1",
    ]);
    for (i, v) in [(1, "a"), (2, "b"), (3, "c")] {
        sql(wh, &format!("INSERT INTO db.kv VALUES ({i}, '{v}')"));
    }

    assert_eq!(
        sql(
            wh,
            "CALL sys.create_tag(table => 'db.kv', tag => 't1', snapshot => 1)"
        ),
        "result\ntrue\n"
    );
    // Positional, Flink's order: table, tag, snapshot.
    sql(wh, "CALL sys.create_tag('db.kv', 't2', 2)");
    assert_eq!(java_at(&t, &["--tag", "t1"]), rows(&[(1, "a")]));
    assert_eq!(java_at(&t, &["--tag", "t2"]), rows(&[(1, "a"), (2, "b")]));

    assert_eq!(
        sql(wh, "CALL sys.create_branch('db.kv', 'b1', 't2')"),
        "result\ntrue\n"
    );
    assert_eq!(
        java_at(&t, &["--branch", "b1"]),
        rows(&[(1, "a"), (2, "b")])
    );
    sql(
        wh,
        "CALL sys.create_branch(table => 'db.kv', branch => 'b2', snapshot => 3)",
    );
    assert_eq!(
        java_at(&t, &["--branch", "b2"]),
        rows(&[(1, "a"), (2, "b"), (3, "c")])
    );
    sql(
        wh,
        "CALL sys.delete_branch(table => 'db.kv', branch => 'b1,b2')",
    );
    assert!(!t.join("branch/branch-b1").exists());
    assert!(!t.join("branch/branch-b2").exists());

    assert_eq!(
        sql(
            wh,
            "CALL sys.rollback_to(table => 'db.kv', snapshot_id => 2)"
        ),
        "previous_snapshot_id,current_snapshot_id\n3,2\n"
    );
    assert_eq!(java_rows(&t), rows(&[(1, "a"), (2, "b")]));
    // Spark's spelling: a version that is not all digits is a tag.
    assert_eq!(
        sql(wh, "CALL sys.rollback(table => 'db.kv', version => 't1')"),
        "previous_snapshot_id,current_snapshot_id\n2,1\n"
    );
    assert_eq!(java_rows(&t), rows(&[(1, "a")]));

    sql(wh, "CALL sys.delete_tag(table => 'db.kv', tag => 't1')");
    assert!(!t.join("tag/tag-t1").exists());
    let err = paimon(&[
        "sql",
        s(wh),
        "CALL sys.create_tag(table => 'db.kv', tag => 'x', time_retained => '1 d')",
    ]);
    assert!(!err.status.success());
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(err.contains("time_retained is not supported"), "{err}");
    let err = paimon(&["sql", s(wh), "CALL sys.no_such(table => 'db.kv')"]);
    assert!(String::from_utf8_lossy(&err.stderr).contains("no such procedure"));
}

#[test]
fn expire_snapshots_and_compact_through_call() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = wh.join("db.db").join("kv");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        KV,
        "--primary-key",
        "id",
        "--option",
        "bucket=1",
        "--option",
        "num-sorted-run.compaction-trigger=100",
    ]);
    for i in 1..=4 {
        sql(wh, &format!("INSERT INTO db.kv VALUES ({i}, 'v{i}')"));
    }
    let want = rows(&[(1, "v1"), (2, "v2"), (3, "v3"), (4, "v4")]);
    assert_eq!(
        sql(
            wh,
            "CALL sys.compact(table => 'db.kv', compact_strategy => 'full')"
        ),
        "result\ntrue\n"
    );
    assert_eq!(snapshot_count(&t), 5, "one COMPACT snapshot");
    let latest = ok(&["snapshots", s(&t), "--json"]);
    assert!(
        latest.lines().last().unwrap().contains("COMPACT"),
        "{latest}"
    );
    assert_eq!(java_rows(&t), want);

    assert_eq!(
        sql(
            wh,
            "CALL sys.expire_snapshots(table => 'db.kv', retain_max => 2, retain_min => 1)"
        ),
        "result\n3\n"
    );
    assert_eq!(snapshot_count(&t), 2);
    assert!(!t.join("snapshot/snapshot-1").exists());
    assert_eq!(java_rows(&t), want);
}
