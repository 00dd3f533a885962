//! `paimon sql` `CALL sys.<procedure>(..)` (issue 43), with Java Paimon's Spark / Flink
//! procedure and argument names, named and positional: what each returns, and Java Paimon
//! 1.4.2 (`scripts/java-oracle.sh dump`) reading the tags, branches, rollbacks, expiry and
//! compaction it left, against the rows kept here.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::maintenance::java_dump;
use crate::write_cmd::{canonical, java_rows, ok, paimon, s, snapshot_count};

const KV: &str = r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"v","type":"STRING"}]}"#;

/// Creates `db.kv` in `warehouse` (`id INT NOT NULL` primary key, `v STRING`, one bucket,
/// and `options`) with `paimon create-table`; its directory.
pub(crate) fn kv_table(warehouse: &Path, options: &[&str]) -> PathBuf {
    let t = warehouse.join("db.db").join("kv");
    let mut args = vec![
        "create-table",
        s(&t),
        "--schema",
        KV,
        "--primary-key",
        "id",
        "--option",
        "bucket=1",
    ];
    for o in options {
        args.extend(["--option", o]);
    }
    ok(&args);
    drop(args);
    t
}

/// Runs `sql` with `paimon sql WAREHOUSE SQL --format csv`; returns stdout.
pub(crate) fn sql(warehouse: &Path, sql: &str) -> String {
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
    let t = kv_table(wh, &[]);
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
        "CALL sys.create_tag(table => 'db.kv', tag => 'x', time_retained => 'soon')",
    ]);
    assert!(!err.status.success());
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(
        err.contains("time_retained 'soon' is not a duration"),
        "{err}"
    );
    assert!(!t.join("tag/tag-x").exists());
    let err = paimon(&["sql", s(wh), "CALL sys.no_such(table => 'db.kv')"]);
    assert!(String::from_utf8_lossy(&err.stderr).contains("no such procedure"));
}

#[test]
fn expire_snapshots_and_compact_through_call() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = kv_table(wh, &["num-sorted-run.compaction-trigger=100"]);
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

/// `timeMillis` and `watermark` of snapshot `id` of `t`, from its file.
fn snapshot_time(t: &Path, id: i64) -> (i64, Value) {
    let text = std::fs::read_to_string(t.join(format!("snapshot/snapshot-{id}"))).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    (v["timeMillis"].as_i64().unwrap(), v["watermark"].clone())
}

#[test]
fn tags_and_rollbacks_by_timestamp_through_call() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = kv_table(wh, &[]);
    for (i, v) in [(1, "a"), (2, "b"), (3, "c")] {
        sql(wh, &format!("INSERT INTO db.kv VALUES ({i}, '{v}')"));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (t1, _) = snapshot_time(&t, 1);
    let (t2, watermark) = snapshot_time(&t, 2);
    // The first snapshot committed at or after the time: snapshot 2 for a time after 1's.
    let watermark = match watermark {
        Value::Number(n) => n.to_string(),
        _ => "null".to_string(),
    };
    assert_eq!(
        sql(
            wh,
            &format!(
                "CALL sys.create_tag_from_timestamp(table => 'db.kv', tag => 'at2', timestamp => {})",
                t1 + 1
            )
        ),
        format!("tagName,snapshot,commit_time,watermark\nat2,2,{t2},{watermark}\n")
    );
    assert_eq!(java_at(&t, &["--tag", "at2"]), rows(&[(1, "a"), (2, "b")]));
    let err = paimon(&[
        "sql",
        s(wh),
        &format!(
            "CALL sys.create_tag_from_timestamp('db.kv', 'late', {})",
            i64::MAX / 2
        ),
    ]);
    assert!(!err.status.success());
    assert!(!t.join("tag/tag-late").exists());

    // The last snapshot committed at or before the time.
    assert_eq!(
        sql(
            wh,
            &format!("CALL sys.rollback_to_timestamp('db.kv', {})", t2 + 1)
        ),
        "previous_snapshot_id,current_snapshot_id\n3,2\n"
    );
    assert_eq!(java_rows(&t), rows(&[(1, "a"), (2, "b")]));
    let before = snapshot_count(&t);
    let err = paimon(&[
        "sql",
        s(wh),
        &format!(
            "CALL sys.rollback_to_timestamp(table => 'db.kv', timestamp => {})",
            t1 - 1
        ),
    ]);
    assert!(!err.status.success());
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(err.contains("no snapshot committed at or before"), "{err}");
    assert_eq!(snapshot_count(&t), before);
    assert_eq!(java_rows(&t), rows(&[(1, "a"), (2, "b")]));
}

#[test]
fn remove_orphan_files_and_expire_partitions_through_call() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = kv_table(wh, &[]);
    sql(wh, "INSERT INTO db.kv VALUES (1, 'a')");
    let orphan = t.join("bucket-0").join("data-orphan-0.parquet");
    std::fs::write(&orphan, b"not referenced").unwrap();
    // Java's own cleanup lists the same orphan (dry run).
    let java = crate::maintenance::oracle(&[
        "remove-orphan-files",
        s(&t),
        "--older-than-ms",
        "0",
        "--dry-run",
        "true",
    ]);
    assert!(java.contains("data-orphan-0.parquet"), "{java}");
    let dry = sql(
        wh,
        "CALL sys.remove_orphan_files(table => 'db.kv', older_than => '2999-01-01 00:00:00', dry_run => true)",
    );
    assert!(
        dry.starts_with("result\n")
            && dry.contains("data-orphan-0.parquet")
            && dry.lines().count() == 2,
        "{dry}"
    );
    assert!(orphan.exists(), "a dry run deletes nothing");
    sql(
        wh,
        "CALL sys.remove_orphan_files('db.kv', '2999-01-01 00:00:00')",
    );
    assert!(!orphan.exists());
    assert_eq!(java_rows(&t), rows(&[(1, "a")]));

    let p = wh.join("db.db").join("events");
    ok(&[
        "create-table",
        s(&p),
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT"},{"name":"dt","type":"STRING"}]}"#,
        "--partition-key",
        "dt",
    ]);
    sql(
        wh,
        "INSERT INTO db.events VALUES (1, '20200101'), (2, '20200102'), (3, '29990101')",
    );
    assert_eq!(
        sql(
            wh,
            "CALL sys.expire_partitions(table => 'db.events', expiration_time => '1 d', \
             timestamp_formatter => 'yyyyMMdd')"
        )
        .lines()
        .collect::<std::collections::BTreeSet<_>>(),
        ["expired_partitions", "dt=20200101", "dt=20200102"]
            .into_iter()
            .collect()
    );
    assert_eq!(
        java_rows(&p),
        canonical(vec![json!({"id": 3, "dt": "29990101"})])
    );
    assert_eq!(
        sql(
            wh,
            "CALL sys.expire_partitions(table => 'db.events', expiration_time => '1 d', \
             timestamp_formatter => 'yyyyMMdd')"
        ),
        "expired_partitions\nNo expired partitions.\n"
    );
    let err = paimon(&[
        "sql",
        s(wh),
        "CALL sys.expire_partitions(table => 'db.events', expiration_time => 'soon')",
    ]);
    assert!(String::from_utf8_lossy(&err.stderr).contains("not a duration"));
}

/// Java's `Table` API (the oracle's `table-op`) on `table`.
fn java_op(table: &Path, args: &[&str]) {
    let mut all = vec!["table-op", s(table)];
    all.extend_from_slice(args);
    assert_eq!(crate::maintenance::oracle(&all).trim(), "ok", "{args:?}");
}

/// Paimon's Spark tag statements (`ALTER TABLE t CREATE TAG .. [AS OF VERSION n]`,
/// `DELETE TAG`, `RENAME TAG`) on one copy of the Java-written `pk.db/many_snapshots` leave
/// the files Java's own `createTag` / `deleteTag` / `renameTag` leave on another copy.
#[test]
fn alter_table_tag_statements_leave_the_files_java_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let ours = wh.join("db.db/ms");
    let java = dir.path().join("java");
    let src = crate::paths::repo().join("fixtures/warehouse/pk.db/many_snapshots");
    crate::maintenance::copy_dir(&src, &ours);
    crate::maintenance::copy_dir(&src, &java);
    let same = |step: &str| paimon_test_utils::assert_same_tree(&ours, &java, step);

    sql(&wh, "ALTER TABLE db.ms CREATE TAG s12 AS OF VERSION 12");
    java_op(&java, &["create-tag", "s12", "12"]);
    // Spark's quoting of a name with a dash; the latest snapshot.
    sql(&wh, "ALTER TABLE db.ms CREATE TAG `TAG-1`");
    java_op(&java, &["create-tag", "TAG-1"]);
    same("create tag");
    assert_eq!(
        java_at(&ours, &["--tag", "s12"]),
        java_at(&java, &["--snapshot", "12"])
    );

    // IF NOT EXISTS leaves the tag as it is; without it, Java's refusal.
    sql(
        &wh,
        "ALTER TABLE db.ms CREATE TAG IF NOT EXISTS s12 AS OF VERSION 13",
    );
    same("create tag if not exists");
    let err = paimon(&[
        "sql",
        s(&wh),
        "ALTER TABLE db.ms CREATE TAG s12 AS OF VERSION 13",
    ]);
    assert!(!err.status.success());
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(err.contains("Tag 's12' already exists."), "{err}");

    sql(&wh, "ALTER TABLE db.ms RENAME TAG `TAG-1` TO newest");
    java_op(&java, &["rename-tag", "TAG-1", "newest"]);
    same("rename tag");
    // Several tags at once, as Spark's comma-separated list.
    sql(&wh, "ALTER TABLE db.ms DELETE TAG `s12,t3`");
    java_op(&java, &["delete-tag", "s12"]);
    java_op(&java, &["delete-tag", "t3"]);
    same("delete tags");
    // A tag that is not there: nothing to do, with or without IF EXISTS (Java's `deleteTag`
    // only warns).
    sql(&wh, "ALTER TABLE db.ms DELETE TAG IF EXISTS nope");
    sql(&wh, "ALTER TABLE db.ms DELETE TAG nope");
    java_op(&java, &["delete-tag", "nope"]);
    same("delete a tag that is not there");

    // RETAIN: the tag's retention as Java reads it from `$tags`.
    sql(
        &wh,
        "ALTER TABLE db.ms CREATE TAG kept AS OF VERSION 13 RETAIN 7 DAYS",
    );
    let tags = crate::maintenance::oracle(&["system-table", s(&ours), "tags"]);
    let kept: Value = tags
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["tag_name"] == "kept")
        .unwrap_or_else(|| panic!("no tag kept in {tags}"));
    assert_eq!(kept["snapshot_id"], 13, "{kept}");
    assert_eq!(kept["time_retained"], "PT168H", "{kept}");
    let err = paimon(&["sql", s(&wh), "ALTER TABLE db.ms REPLACE TAG kept"]);
    assert!(String::from_utf8_lossy(&err.stderr).contains("REPLACE TAG"));
}
