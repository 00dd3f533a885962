//! `paimon sql` `CALL sys.reset_consumer` / `sys.clear_consumers` (issue 43), Flink's and
//! Spark's argument names, named and positional: Java Paimon 1.4.2's `ConsumerManager`
//! (`scripts/java-oracle.sh table-op T consumers`) reads the consumers each call leaves, and
//! consumers Java wrote (`table-op T reset-consumer`) are reset and cleared by our SQL. Bad
//! input gets a one-line error naming the table and leaves the consumers as they were.

use std::path::Path;

use crate::maintenance::oracle;
use crate::sql_call::{kv_table, sql};
use crate::write_cmd::{paimon, s};

/// Java's consumers of `t`: `id=next_snapshot` lines, sorted by id.
fn java_consumers(t: &Path) -> String {
    oracle(&["table-op", s(t), "consumers"])
}

/// Runs `sql`, which must fail; its stderr.
fn refused(warehouse: &Path, sql: &str) -> String {
    let out = paimon(&["sql", s(warehouse), sql]);
    assert!(!out.status.success(), "{sql} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A `db.kv` with snapshots 1 to 3; its directory.
fn three_snapshots(warehouse: &Path) -> std::path::PathBuf {
    let t = kv_table(warehouse, &[]);
    for i in 1..=3 {
        sql(
            warehouse,
            &format!("INSERT INTO db.kv VALUES ({i}, 'v{i}')"),
        );
    }
    t
}

#[test]
fn consumers_reset_and_cleared_by_sql_are_read_by_java() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = three_snapshots(wh);
    assert_eq!(
        sql(
            wh,
            "CALL sys.reset_consumer(table => 'db.kv', consumer_id => 'job-1', next_snapshot_id => 2)"
        ),
        "result\ntrue\n"
    );
    // Flink's positional order; Spark's camel-case names.
    sql(wh, "CALL sys.reset_consumer('db.kv', 'job-2', 3)");
    sql(
        wh,
        "CALL sys.reset_consumer(table => 'db.kv', consumerId => 'keep', nextSnapshotId => 1)",
    );
    assert_eq!(java_consumers(&t), "job-1=2\njob-2=3\nkeep=1\n");
    sql(wh, "CALL sys.reset_consumer('db.kv', 'job-1', 3)");
    assert_eq!(java_consumers(&t), "job-1=3\njob-2=3\nkeep=1\n");

    // Bad input: one line naming the table and the cause; nothing written.
    let before = java_consumers(&t);
    for (call, cause) in [
        (
            "CALL sys.reset_consumer('db.kv', 'job-1', 9)",
            "next_snapshot_id 9: snapshot 9 not found",
        ),
        (
            "CALL sys.reset_consumer('db.kv', 'nobody')",
            "consumer 'nobody' does not exist, nothing deleted",
        ),
        (
            "CALL sys.reset_consumer(table => 'db.kv', consumer_id => 'job-1', next_snapshot_id => 'two')",
            "next_snapshot_id: 'two' is not an integer",
        ),
        (
            "CALL sys.reset_consumer('db.kv', '../job', 1)",
            "consumer id",
        ),
        (
            "CALL sys.reset_consumer('db.nope', 'job-1', 1)",
            "No table named 'nope'",
        ),
        (
            "CALL sys.clear_consumers('db.kv', 'job-(')",
            "including consumers pattern 'job-(' is not a regular expression",
        ),
        (
            "CALL sys.clear_consumers('db.kv', 'job-.*', '[')",
            "excluding consumers pattern '[' is not a regular expression",
        ),
        (
            "CALL sys.reset_consumer(table => 'db.kv', consumer => 'job-1')",
            "no argument 'consumer'",
        ),
    ] {
        let err = refused(wh, call);
        let table = if call.contains("db.nope") {
            "db.nope"
        } else {
            "db.kv"
        };
        assert!(
            err.contains(cause) && (err.contains(table) || cause.starts_with("no argument")),
            "{call}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{call}: {err}");
        assert_eq!(java_consumers(&t), before, "{call} changed the consumers");
    }
    assert!(!t.join("consumer/consumer-nobody").exists());

    // Whole ids match: `job` is neither `job-1` nor `job-2`.
    sql(wh, "CALL sys.clear_consumers('db.kv', 'job')");
    assert_eq!(java_consumers(&t), before);
    assert_eq!(
        sql(
            wh,
            "CALL sys.clear_consumers(table => 'db.kv', including_consumers => 'job-.*', excluding_consumers => 'job-2')"
        ),
        "result\ntrue\n"
    );
    assert_eq!(java_consumers(&t), "job-2=3\nkeep=1\n");
    // Without a snapshot the consumer is deleted.
    sql(wh, "CALL sys.reset_consumer('db.kv', 'job-2')");
    assert_eq!(java_consumers(&t), "keep=1\n");
    sql(wh, "CALL sys.clear_consumers('db.kv')");
    assert_eq!(java_consumers(&t), "");
}

#[test]
fn consumers_java_wrote_are_reset_and_cleared_by_sql() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = three_snapshots(wh);
    for (id, next) in [("a", "1"), ("b-1", "2"), ("b-2", "3"), ("c", "2")] {
        oracle(&["table-op", s(&t), "reset-consumer", id, next]);
    }
    assert_eq!(java_consumers(&t), "a=1\nb-1=2\nb-2=3\nc=2\n");
    sql(wh, "CALL sys.reset_consumer('db.kv', 'a', 3)");
    // The file we rewrote is byte for byte the one Java writes for the same snapshot.
    assert_eq!(
        std::fs::read(t.join("consumer/consumer-a")).unwrap(),
        std::fs::read(t.join("consumer/consumer-b-2")).unwrap()
    );
    assert_eq!(java_consumers(&t), "a=3\nb-1=2\nb-2=3\nc=2\n");
    // Flink 1.18's positional placeholder '' for an argument left out: every consumer but
    // the excluded ones.
    sql(wh, "CALL sys.clear_consumers('db.kv', '', 'b-.*')");
    assert_eq!(java_consumers(&t), "b-1=2\nb-2=3\n");
    sql(
        wh,
        "CALL sys.clear_consumers(table => 'db.kv', includingConsumers => 'b-1|x')",
    );
    assert_eq!(java_consumers(&t), "b-2=3\n");
    sql(
        wh,
        "CALL sys.reset_consumer(table => 'db.kv', consumer_id => 'b-2')",
    );
    assert_eq!(java_consumers(&t), "");
}
