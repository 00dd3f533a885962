//! `paimon sql` `MERGE INTO` on primary-key tables (issue 43): each result read by Java Paimon
//! 1.4.2 (`scripts/java-oracle.sh dump`) against the rows kept here; refusals commit nothing.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::write_cmd::{canonical, java_rows, ok, paimon, s, snapshot_count};

const KV: &str = r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"v","type":"STRING"}]}"#;

/// A warehouse in `dir` with `db.kv` (`extra` options) holding ids 1..=4 with values a..d.
fn kv(dir: &Path, extra: &[&str]) -> PathBuf {
    let t = dir.join("db.db").join("kv");
    let mut args = vec!["create-table", s(&t), "--schema", KV];
    args.extend_from_slice(extra);
    ok(&args);
    ok(&[
        "sql",
        s(dir),
        "INSERT INTO db.kv VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')",
    ]);
    t
}

/// The source rows `(id, v)` as a subquery named `s`.
fn source(rows: &str) -> String {
    format!("(SELECT column1 AS id, column2 AS v FROM (VALUES {rows})) AS s")
}

#[test]
fn merge_updates_deletes_and_inserts_in_one_commit() {
    let dir = tempfile::tempdir().unwrap();
    let t = kv(dir.path(), &["--primary-key", "id", "--option", "bucket=2"]);
    let out = ok(&[
        "sql",
        s(dir.path()),
        &format!(
            "MERGE INTO db.kv AS t USING {} ON t.id = s.id \
             WHEN MATCHED AND s.v = 'del' THEN DELETE \
             WHEN MATCHED THEN UPDATE SET v = s.v || '!' \
             WHEN NOT MATCHED AND s.id < 6 THEN INSERT (id, v) VALUES (s.id, s.v)",
            source("(1, 'x'), (2, 'del'), (5, 'new'), (6, 'skip')")
        ),
        "--format",
        "csv",
    ]);
    // -U and +U for key 1, -D for key 2, +I for key 5; key 6's clause condition is false.
    assert_eq!(out, "count\n4\n");
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "v": "x!"}),
            json!({"id": 3, "v": "c"}),
            json!({"id": 4, "v": "d"}),
            json!({"id": 5, "v": "new"}),
        ])
    );
    assert_eq!(snapshot_count(&t), 2, "one commit for the MERGE");
}

#[test]
fn merge_without_alias_and_insert_of_all_columns() {
    let dir = tempfile::tempdir().unwrap();
    let t = kv(dir.path(), &["--primary-key", "id", "--option", "bucket=1"]);
    ok(&[
        "sql",
        s(dir.path()),
        &format!(
            "MERGE INTO db.kv USING {} ON kv.id = s.id \
             WHEN MATCHED THEN UPDATE SET v = upper(kv.v) \
             WHEN NOT MATCHED THEN INSERT VALUES (s.id * 10, s.v)",
            source("(3, 'ignored'), (7, 'g')")
        ),
    ]);
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "v": "a"}),
            json!({"id": 2, "v": "b"}),
            json!({"id": 3, "v": "C"}),
            json!({"id": 4, "v": "d"}),
            json!({"id": 70, "v": "g"}),
        ])
    );
}

/// Runs the failing `sql`; returns its stderr.
fn refused(dir: &Path, sql: &str) -> String {
    let out = paimon(&["sql", s(dir), sql]);
    assert!(!out.status.success(), "{sql} must fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_target_row_matched_twice_is_refused_and_nothing_is_committed() {
    let dir = tempfile::tempdir().unwrap();
    let t = kv(dir.path(), &["--primary-key", "id", "--option", "bucket=1"]);
    let err = refused(
        dir.path(),
        &format!(
            "MERGE INTO db.kv AS t USING {} ON t.id = s.id \
             WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)",
            source("(1, 'x'), (1, 'y'), (9, 'z')")
        ),
    );
    assert!(err.contains("MERGE_CARDINALITY_VIOLATION"), "{err}");
    assert_eq!(snapshot_count(&t), 1);
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "v": "a"}),
            json!({"id": 2, "v": "b"}),
            json!({"id": 3, "v": "c"}),
            json!({"id": 4, "v": "d"}),
        ])
    );
}

#[test]
fn merge_refuses_what_it_does_not_support_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let t = kv(
        dir.path(),
        &[
            "--primary-key",
            "id",
            "--option",
            "bucket=1",
            "--option",
            "merge-engine=first-row",
        ],
    );
    let before = snapshot_count(&t);
    let err = refused(
        dir.path(),
        &format!(
            "MERGE INTO db.kv AS t USING {} ON t.id = s.id WHEN MATCHED THEN DELETE",
            source("(1, 'x')")
        ),
    );
    assert!(err.contains("first-row merge engine"), "{err}");
    let err = refused(
        dir.path(),
        &format!(
            "MERGE INTO db.kv AS t USING {} ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = 5",
            source("(1, 'x')")
        ),
    );
    assert!(err.contains("first-row merge engine"), "{err}");
    assert_eq!(snapshot_count(&t), before);
}

#[test]
fn merge_refuses_a_primary_key_in_set() {
    let dir = tempfile::tempdir().unwrap();
    let t = kv(dir.path(), &["--primary-key", "id", "--option", "bucket=1"]);
    let err = refused(
        dir.path(),
        &format!(
            "MERGE INTO db.kv AS t USING {} ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = 5",
            source("(1, 'x')")
        ),
    );
    assert!(
        err.contains("'id' is a primary-key column and cannot be SET"),
        "{err}"
    );
    assert_eq!(snapshot_count(&t), 1);
}
