//! `paimon sql` `DELETE` / `UPDATE` / `MERGE INTO` on append tables (issue 43): copy-on-write, or deletion
//! vectors on a table with `deletion-vectors.enabled`; partitioned, bucketed and bucket-unaware.
//! Each result is read by Java Paimon 1.4.2 (`scripts/java-oracle.sh`) against the rows kept
//! here, with the commit kinds Java reports; a statement touching nothing and a failing one
//! commit nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::maintenance::oracle;
use crate::write_cmd::{canonical, java_rows, ok, paimon, s, snapshot_count};

const ORDERS: &str = r#"{"fields":[{"name":"id","type":"INT"},{"name":"item","type":"STRING"},{"name":"dt","type":"STRING"}]}"#;

/// `db.t` in warehouse `dir` with `extra` create-table arguments, written in two commits:
/// ids 1, 2, 3 then 4, 5 (two files per bucket written to twice).
fn orders(dir: &Path, extra: &[&str]) -> PathBuf {
    let t = dir.join("db.db").join("t");
    let mut args = vec!["create-table", s(&t), "--schema", ORDERS];
    args.extend_from_slice(extra);
    ok(&args);
    sql(
        dir,
        "INSERT INTO db.t VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')",
    );
    sql(dir, "INSERT INTO db.t VALUES (4, 'd', 'y'), (5, 'e', 'x')");
    t
}

/// Runs `sql` with `paimon sql WAREHOUSE SQL --format csv`; returns stdout.
fn sql(warehouse: &Path, sql: &str) -> String {
    ok(&["sql", s(warehouse), sql, "--format", "csv"])
}

fn row(id: i32, item: &str, dt: &str) -> Value {
    json!({"id": id, "item": item, "dt": dt})
}

/// The commit kinds of the table's snapshots, as Java's `t$snapshots` lists them.
fn java_commit_kinds(table: &Path) -> Vec<String> {
    oracle(&["system-table", s(table), "snapshots"])
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["commit_kind"].as_str().unwrap().to_string()
        })
        .collect()
}

/// The live data files of the table, as Java's `t$files` lists them.
fn java_live_files(table: &Path) -> BTreeSet<String> {
    oracle(&["system-table", s(table), "files"])
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["file_path"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Every file under `dir`.
fn all_files(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.insert(p);
            }
        }
    }
    out
}

#[test]
fn copy_on_write_on_a_partitioned_bucket_unaware_table() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(wh, &["--partition-key", "dt"]);
    assert_eq!(sql(wh, "DELETE FROM db.t WHERE id = 2"), "count\n1\n");
    assert_eq!(
        sql(wh, "UPDATE db.t SET item = upper(item) WHERE id > 3"),
        "count\n2\n"
    );
    // Touching nothing commits nothing.
    assert_eq!(sql(wh, "DELETE FROM db.t WHERE id = 99"), "count\n0\n");
    assert_eq!(
        sql(wh, "UPDATE db.t SET item = 'z' WHERE dt = 'none'"),
        "count\n0\n"
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            row(1, "a", "x"),
            row(3, "c", "y"),
            row(4, "D", "y"),
            row(5, "E", "x"),
        ])
    );
    assert_eq!(
        java_commit_kinds(&t),
        ["APPEND", "APPEND", "OVERWRITE", "OVERWRITE"]
    );
}

#[test]
fn copy_on_write_update_moves_rows_across_buckets_and_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(
        wh,
        &[
            "--partition-key",
            "dt",
            "--option",
            "bucket=2",
            "--option",
            "bucket-key=id",
        ],
    );
    assert_eq!(
        sql(
            wh,
            "UPDATE db.t SET id = id + 10, dt = 'z' WHERE id IN (1, 4)"
        ),
        "count\n2\n"
    );
    assert_eq!(sql(wh, "DELETE FROM db.t WHERE item = 'c'"), "count\n1\n");
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            row(2, "b", "x"),
            row(5, "e", "x"),
            row(11, "a", "z"),
            row(14, "d", "z"),
        ])
    );
    assert_eq!(snapshot_count(&t), 4, "one commit per statement");
}

#[test]
fn deletion_vectors_on_a_bucketed_table_mark_rows_and_keep_files() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(
        wh,
        &[
            "--option",
            "bucket=2",
            "--option",
            "bucket-key=id",
            "--option",
            "deletion-vectors.enabled=true",
        ],
    );
    let before = java_live_files(&t);
    assert_eq!(sql(wh, "DELETE FROM db.t WHERE id = 2"), "count\n1\n");
    assert_eq!(
        java_live_files(&t),
        before,
        "a DELETE marks rows, it rewrites no file"
    );
    assert_eq!(
        sql(wh, "UPDATE db.t SET item = upper(item) WHERE id >= 4"),
        "count\n2\n"
    );
    // A second mark in a file that already has a vector keeps the first.
    assert_eq!(sql(wh, "DELETE FROM db.t WHERE item = 'a'"), "count\n1\n");
    assert_eq!(sql(wh, "DELETE FROM db.t WHERE id = 2"), "count\n0\n");
    assert_eq!(
        java_rows(&t),
        canonical(vec![row(3, "c", "y"), row(4, "D", "y"), row(5, "E", "x")])
    );
    assert_eq!(
        java_commit_kinds(&t),
        ["APPEND", "APPEND", "OVERWRITE", "OVERWRITE", "OVERWRITE"]
    );
}

#[test]
fn deletion_vectors_on_a_partitioned_bucket_unaware_table() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(
        wh,
        &[
            "--partition-key",
            "dt",
            "--option",
            "deletion-vectors.enabled=true",
        ],
    );
    assert_eq!(sql(wh, "DELETE FROM db.t WHERE id IN (1, 3)"), "count\n2\n");
    assert_eq!(
        sql(wh, "UPDATE db.t SET dt = 'y', item = 'moved' WHERE id = 5"),
        "count\n1\n"
    );
    assert_eq!(sql(wh, "DELETE FROM db.t WHERE id = 2"), "count\n1\n");
    let kept = canonical(vec![row(4, "d", "y"), row(5, "moved", "y")]);
    assert_eq!(java_rows(&t), kept);
    // Java compacts the table through our vectors: the same rows.
    oracle(&["compact", s(&t)]);
    assert_eq!(java_rows(&t), kept);
}

#[test]
fn a_failing_update_commits_nothing_and_leaves_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(wh, &[]);
    let files = all_files(&t);
    // Dividing by zero at id 5, in the second file: the first file's rows are written by then.
    let out = paimon(&[
        "sql",
        s(wh),
        "UPDATE db.t SET id = 10 / (id - 5) WHERE id <> 1",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.to_lowercase().contains("divide by zero"), "{err}");
    assert_eq!(snapshot_count(&t), 2);
    assert_eq!(all_files(&t), files, "the files written were deleted");
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            row(1, "a", "x"),
            row(2, "b", "x"),
            row(3, "c", "y"),
            row(4, "d", "y"),
            row(5, "e", "x"),
        ])
    );
}

#[test]
fn row_tracking_append_tables_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(wh, &["--option", "row-tracking.enabled=true"]);
    for statement in [
        "DELETE FROM db.t WHERE id = 1",
        "UPDATE db.t SET item = 'z' WHERE id = 1",
    ] {
        let out = paimon(&["sql", s(wh), statement]);
        assert!(!out.status.success(), "{statement}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("row-tracking.enabled"), "{statement}: {err}");
    }
    assert_eq!(snapshot_count(&t), 2);
}

/// The source rows `(id, item)` as a subquery named `s`.
fn source(rows: &str) -> String {
    format!("(SELECT column1 AS id, column2 AS item FROM (VALUES {rows})) AS s")
}

#[test]
fn merge_into_a_bucketed_partitioned_table_with_deletion_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(
        wh,
        &[
            "--partition-key",
            "dt",
            "--option",
            "bucket=2",
            "--option",
            "bucket-key=id",
            "--option",
            "deletion-vectors.enabled=true",
        ],
    );
    let out = sql(
        wh,
        &format!(
            "MERGE INTO db.t AS t USING {} ON t.id = s.id \
             WHEN MATCHED AND s.item = 'del' THEN DELETE \
             WHEN MATCHED THEN UPDATE SET item = s.item || '!' \
             WHEN NOT MATCHED AND s.id < 7 THEN INSERT VALUES (s.id, s.item, 'x')",
            source("(1, 'u'), (2, 'del'), (5, 'v'), (6, 'new'), (7, 'skip')")
        ),
    );
    // Two rows updated, one deleted, one inserted; id 7's clause condition is false.
    assert_eq!(out, "count\n4\n");
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            row(1, "u!", "x"),
            row(3, "c", "y"),
            row(4, "d", "y"),
            row(5, "v!", "x"),
            row(6, "new", "x"),
        ])
    );
    assert_eq!(java_commit_kinds(&t), ["APPEND", "APPEND", "OVERWRITE"]);
}

#[test]
fn merge_into_a_copy_on_write_table_and_a_row_matched_twice() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(wh, &[]);
    let files = all_files(&t);
    let out = paimon(&[
        "sql",
        s(wh),
        &format!(
            "MERGE INTO db.t USING {} ON t.id = s.id WHEN MATCHED THEN UPDATE SET item = s.item",
            source("(4, 'x'), (4, 'y')")
        ),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MERGE_CARDINALITY_VIOLATION"), "{err}");
    assert_eq!(snapshot_count(&t), 2);
    assert_eq!(all_files(&t), files, "nothing written is left behind");
    let out = sql(
        wh,
        &format!(
            "MERGE INTO db.t USING {} ON t.id = s.id \
             WHEN MATCHED THEN UPDATE SET item = upper(t.item) \
             WHEN NOT MATCHED THEN INSERT (id, dt) VALUES (s.id, 'n')",
            source("(3, 'q'), (9, 'n9')")
        ),
    );
    assert_eq!(out, "count\n2\n");
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            row(1, "a", "x"),
            row(2, "b", "x"),
            row(3, "C", "y"),
            row(4, "d", "y"),
            row(5, "e", "x"),
            json!({"id": 9, "item": null, "dt": "n"}),
        ])
    );
}

/// Two row-level deletes prepared from the same snapshot of a bucketed table whose bucket has no
/// deletion-vector index file yet, each writing the bucket's first one (as `paimon sql DELETE`
/// does, through the same library calls): the first commits, the second is a conflict and
/// publishes nothing. Before, the second replaced the first's index file and undid its delete.
#[test]
fn concurrent_first_deletion_vectors_of_a_bucket_conflict() {
    use std::sync::Arc;

    use paimon_io::LocalFileIO;
    use paimon_meta::Table;
    use paimon_split::commit::{CommitMessage, DataIncrement};
    use paimon_write::dv_index::BucketVectors;

    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = orders(
        wh,
        &[
            "--option",
            "bucket=1",
            "--option",
            "bucket-key=id",
            "--option",
            "deletion-vectors.enabled=true",
        ],
    );
    let table = Table::open(Arc::new(LocalFileIO::new()), s(&t)).unwrap();
    let base = table.snapshot_manager().latest_id().unwrap();
    let live = table.live_files(None).unwrap();
    // Ids 1, 2, 3 at positions 0, 1, 2 of the first commit's file; ids 4, 5 in the second's.
    let file_of = |rows: i64| {
        let f = live.iter().find(|f| f.file.row_count == rows).unwrap();
        f.file.file_name.clone()
    };
    let (first, second) = (file_of(3), file_of(2));
    let partition = paimon_spec::stats::serialize_datums(&[], &[]).unwrap();
    let delete = |marks: &[(&str, u64)]| {
        let mut vectors = BucketVectors::default();
        for (file, pos) in marks {
            vectors.delete(file, *pos);
        }
        let meta = vectors
            .write(table.file_io(), s(&t), s(&t), false)
            .unwrap()
            .unwrap();
        let mut m = CommitMessage::new(partition.clone(), 0).with_data_increment(DataIncrement {
            new_index_files: vec![meta],
            ..DataIncrement::default()
        });
        m.total_buckets = Some(1);
        m
    };
    // Both read the bucket at `base`, where it has no index file.
    let a = delete(&[(&first, 0)]);
    let b = delete(&[(&first, 1), (&second, 0)]);
    let commit = |user: &str, m: &CommitMessage| {
        table
            .new_commit(user)
            .with_vectors_from(base)
            .commit(1, std::slice::from_ref(m))
    };
    assert_eq!(commit("a", &a).unwrap().len(), 1);
    let err = commit("b", &b).unwrap_err();
    assert!(
        matches!(err, paimon_meta::Error::CommitConflict { .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("deletion vectors of bucket 0"),
        "{err}"
    );
    assert_eq!(snapshot_count(&t), 3, "the second delete published nothing");
    // The loser's index file is removed as `paimon sql` removes it.
    assert_eq!(table.new_commit("b").abort(&[b]).unwrap(), 1);
    // Java reads exactly the first delete's result: id 1 gone, ids 2 and 4 kept.
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            row(2, "b", "x"),
            row(3, "c", "y"),
            row(4, "d", "y"),
            row(5, "e", "x"),
        ])
    );
}
