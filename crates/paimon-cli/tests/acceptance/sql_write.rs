//! `paimon sql` statements that write (issue 43): `INSERT INTO` through the table provider's
//! `insert_into` on primary-key, append, partitioned and dynamic-bucket tables, each result
//! read by Java Paimon 1.4.2 (`scripts/java-oracle.sh dump`) against the rows kept here; a
//! statement that fails midway commits nothing.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::write_cmd::{canonical, java_rows, ok, paimon, s, snapshot_count};

/// A warehouse in `dir` with table `db.<name>` created by `paimon create-table`.
fn table(dir: &Path, name: &str, schema: &str, extra: &[&str]) -> PathBuf {
    let t = dir.join("db.db").join(name);
    let mut args = vec!["create-table", s(&t), "--schema", schema];
    args.extend_from_slice(extra);
    ok(&args);
    t
}

/// Runs `sql` with `paimon sql WAREHOUSE SQL --format csv`; returns stdout.
fn sql(warehouse: &Path, sql: &str) -> String {
    ok(&["sql", s(warehouse), sql, "--format", "csv"])
}

const KV: &str = r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"v","type":"STRING"}]}"#;
const ORDERS: &str = r#"{"fields":[{"name":"id","type":"INT"},{"name":"item","type":"STRING"},{"name":"dt","type":"STRING"}]}"#;

#[test]
fn insert_into_a_primary_key_table_replaces_rows_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        "kv",
        KV,
        &["--primary-key", "id", "--option", "bucket=2"],
    );
    assert_eq!(
        sql(
            dir.path(),
            "INSERT INTO db.kv VALUES (1, 'a'), (2, 'b'), (3, 'c')"
        ),
        "count\n3\n"
    );
    // Key 2 again: the second statement's row wins (its sequence numbers continue).
    assert_eq!(
        sql(
            dir.path(),
            "INSERT INTO db.kv (v, id) SELECT upper(v), id + 1 FROM db.kv WHERE id < 2"
        ),
        "count\n1\n"
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "v": "a"}),
            json!({"id": 2, "v": "A"}),
            json!({"id": 3, "v": "c"}),
        ])
    );
    assert_eq!(snapshot_count(&t), 2, "one commit per statement");
}

#[test]
fn insert_into_a_partitioned_append_table_with_a_column_list() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(dir.path(), "orders", ORDERS, &["--partition-key", "dt"]);
    assert_eq!(
        sql(
            dir.path(),
            "INSERT INTO db.orders VALUES (1, 'apple', '2024-01-01'), (2, 'pear', '2024-01-02')"
        ),
        "count\n2\n"
    );
    // Columns left out are NULL; an append table keeps both rows of id 1.
    assert_eq!(
        sql(
            dir.path(),
            "INSERT INTO db.orders (dt, id) VALUES ('2024-01-01', 1), ('2024-01-03', 3)"
        ),
        "count\n2\n"
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "item": "apple", "dt": "2024-01-01"}),
            json!({"id": 2, "item": "pear", "dt": "2024-01-02"}),
            json!({"id": 1, "item": null, "dt": "2024-01-01"}),
            json!({"id": 3, "item": null, "dt": "2024-01-03"}),
        ])
    );
    assert_eq!(snapshot_count(&t), 2);
}

#[test]
fn insert_into_a_dynamic_bucket_table_finds_existing_keys() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        "dyn",
        KV,
        &["--primary-key", "id", "--option", "bucket=-1"],
    );
    sql(
        dir.path(),
        "INSERT INTO db.dyn SELECT CAST(value AS INT), 'old' FROM generate_series(1, 50)",
    );
    // Keys 41..=60: 41..=50 exist (in the hash index) and must be replaced, not duplicated.
    assert_eq!(
        sql(
            dir.path(),
            "INSERT INTO db.dyn SELECT CAST(value AS INT), 'new' FROM generate_series(41, 60)"
        ),
        "count\n20\n"
    );
    let want: Vec<_> = (1..=60)
        .map(|i| json!({"id": i, "v": if i > 40 { "new" } else { "old" }}))
        .collect();
    assert_eq!(java_rows(&t), canonical(want));
}

#[test]
fn a_statement_that_fails_midway_commits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(dir.path(), "orders", ORDERS, &["--partition-key", "dt"]);
    sql(
        dir.path(),
        "INSERT INTO db.orders VALUES (1, 'apple', '2024-01-01')",
    );
    let before = ok(&["snapshots", s(&t), "--json"]);
    // Batches of two rows: the first rows reach the writer before 10 / 0 fails.
    let out = paimon(&[
        "sql",
        s(dir.path()),
        "SET datafusion.execution.batch_size = 2; \
         INSERT INTO db.orders SELECT CAST(10 / (value - 7) AS INT), 'x', '2024-01-02' \
         FROM generate_series(1, 10)",
    ]);
    assert!(!out.status.success(), "the statement must fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Divide by zero"), "{err}");
    assert_eq!(ok(&["snapshots", s(&t), "--json"]), before);
    assert_eq!(snapshot_count(&t), 1);
    assert_eq!(
        java_rows(&t),
        canonical(vec![json!({"id": 1, "item": "apple", "dt": "2024-01-01"})])
    );
    // The aborted writer left no data file behind: only the first statement's partition.
    assert!(!t.join("dt=2024-01-02").exists() || dir_is_empty(&t.join("dt=2024-01-02")));
}

fn dir_is_empty(d: &Path) -> bool {
    walk(d).is_empty()
}

fn walk(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn insert_into_what_is_not_a_writable_table_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    table(
        dir.path(),
        "kv",
        KV,
        &["--primary-key", "id", "--option", "bucket=1"],
    );
    sql(dir.path(), "INSERT INTO db.kv VALUES (1, 'a')");
    let out = paimon(&[
        "sql",
        s(dir.path()),
        "INSERT INTO db.\"kv@snapshot=1\" VALUES (2, 'b')",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("latest snapshot on its main branch, not to snapshot 1"),
        "{err}"
    );
}

/// A partitioned table with rows in partitions `a` and `b`.
fn two_partitions(dir: &Path, extra: &[&str]) -> PathBuf {
    let mut args = vec!["--partition-key", "dt"];
    args.extend_from_slice(extra);
    let t = table(dir, "orders", ORDERS, &args);
    sql(
        dir,
        "INSERT INTO db.orders VALUES (1, 'apple', 'a'), (2, 'pear', 'b'), (3, 'fig', 'b')",
    );
    t
}

#[test]
fn insert_overwrite_replaces_the_partitions_written_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let t = two_partitions(dir.path(), &[]);
    assert_eq!(
        sql(
            dir.path(),
            "INSERT OVERWRITE db.orders VALUES (4, 'kiwi', 'a')"
        ),
        "count\n1\n"
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 4, "item": "kiwi", "dt": "a"}),
            json!({"id": 2, "item": "pear", "dt": "b"}),
            json!({"id": 3, "item": "fig", "dt": "b"}),
        ])
    );
}

#[test]
fn insert_overwrite_replaces_the_whole_table_without_dynamic_partition_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let t = two_partitions(
        dir.path(),
        &["--option", "dynamic-partition-overwrite=false"],
    );
    sql(
        dir.path(),
        "INSERT OVERWRITE TABLE db.orders VALUES (4, 'kiwi', 'a')",
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![json!({"id": 4, "item": "kiwi", "dt": "a"})])
    );
}

#[test]
fn insert_overwrite_a_static_partition() {
    let dir = tempfile::tempdir().unwrap();
    let t = two_partitions(dir.path(), &[]);
    // The query gives the other columns; dt = 'b' is replaced, 'a' is kept.
    assert_eq!(
        sql(
            dir.path(),
            "INSERT OVERWRITE db.orders PARTITION (dt = 'b') SELECT id + 10, upper(item) FROM db.orders WHERE id = 1"
        ),
        "count\n1\n"
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "item": "apple", "dt": "a"}),
            json!({"id": 11, "item": "APPLE", "dt": "b"}),
        ])
    );
    // A column list names the query's columns; INSERT INTO with a static partition appends.
    sql(
        dir.path(),
        "INSERT INTO db.orders (item, id) PARTITION (dt = 'c') VALUES ('plum', 5)",
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "item": "apple", "dt": "a"}),
            json!({"id": 11, "item": "APPLE", "dt": "b"}),
            json!({"id": 5, "item": "plum", "dt": "c"}),
        ])
    );
    let out = paimon(&[
        "sql",
        s(dir.path()),
        "INSERT OVERWRITE db.orders PARTITION (dt) SELECT id, item, dt FROM db.orders",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("each entry must be `column = literal`"),
        "{err}"
    );
}

/// `schema/schema-0` as JSON without its creation time.
fn schema_0(t: &Path) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.join("schema/schema-0")).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("timeMillis");
    v
}

#[test]
fn ddl_creates_and_drops_databases_and_tables_in_the_warehouse() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let run = |q: &str| ok(&["sql", s(wh), q]);
    let fails = |q: &str| {
        let out = paimon(&["sql", s(wh), q]);
        assert!(!out.status.success(), "{q} must fail");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    run("CREATE DATABASE shop");
    assert!(
        wh.join("shop.db").is_dir(),
        "CREATE DATABASE writes the directory"
    );
    run("CREATE DATABASE IF NOT EXISTS shop");
    assert!(fails("CREATE DATABASE shop").contains("already exists"));
    run(
        "CREATE TABLE shop.orders (id INT NOT NULL COMMENT 'the key', item STRING, qty BIGINT, \
         dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) \
         WITH ('bucket' = '2', 'file.format' = 'parquet')",
    );
    // The schema is the one `paimon create-table` writes for the same description.
    let same = wh.join("cli/orders");
    ok(&[
        "create-table",
        s(&same),
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT NOT NULL","description":"the key"},
            {"name":"item","type":"STRING"},{"name":"qty","type":"BIGINT"},
            {"name":"dt","type":"STRING"}],
            "primaryKeys":["id","dt"],"partitionKeys":["dt"],
            "options":{"bucket":"2","file.format":"parquet"}}"#,
    ]);
    let t = wh.join("shop.db/orders");
    assert_eq!(schema_0(&t), schema_0(&same));
    sql(
        wh,
        "INSERT INTO shop.orders VALUES (1, 'apple', 3, 'a'), (2, 'pear', 5, 'b')",
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "item": "apple", "qty": 3, "dt": "a"}),
            json!({"id": 2, "item": "pear", "qty": 5, "dt": "b"}),
        ])
    );
    // What would silently do less is refused, naming it.
    let err = fails("CREATE OR REPLACE TABLE shop.other (a INT)");
    assert!(err.contains("OR REPLACE is not supported"), "{err}");
    assert!(!wh.join("shop.db/other").exists());
    // CREATE TABLE .. AS SELECT: the query's columns and rows, one commit.
    run(
        "CREATE TABLE shop.copy PARTITIONED BY (dt) WITH ('bucket' = '-1')          AS SELECT id * 10 AS id, item, dt FROM shop.orders",
    );
    let copy = wh.join("shop.db/copy");
    assert_eq!(
        java_rows(&copy),
        canonical(vec![
            json!({"id": 10, "item": "apple", "dt": "a"}),
            json!({"id": 20, "item": "pear", "dt": "b"}),
        ])
    );
    assert_eq!(snapshot_count(&copy), 1);
    assert_eq!(schema_0(&copy)["partitionKeys"], json!(["dt"]));
    run("DROP TABLE shop.copy");
    run("CREATE TABLE IF NOT EXISTS shop.orders (x INT)");
    assert_eq!(
        schema_0(&t),
        schema_0(&same),
        "IF NOT EXISTS keeps the table"
    );
    let err = fails("DROP DATABASE shop");
    assert!(err.contains("not empty") && err.contains("orders"), "{err}");
    run("DROP TABLE shop.orders");
    assert!(!t.exists());
    run("DROP TABLE IF EXISTS shop.orders");
    assert!(fails("DROP TABLE shop.orders").contains("does not exist"));
    run("CREATE TABLE shop.other (a INT)");
    run("DROP DATABASE shop CASCADE");
    assert!(!wh.join("shop.db").exists());
}

#[test]
fn alter_table_changes_the_schema_and_show_databases_lists_the_warehouse() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = table(
        wh,
        "kv",
        KV,
        &["--primary-key", "id", "--option", "bucket=1"],
    );
    ok(&["sql", s(wh), "CREATE DATABASE shop"]);
    assert_eq!(sql(wh, "SHOW DATABASES"), "database_name\ndb\nshop\n");
    sql(wh, "INSERT INTO db.kv VALUES (1, 'a')");
    ok(&[
        "sql",
        s(wh),
        "ALTER TABLE db.kv SET TBLPROPERTIES ('snapshot.num-retained.max' = '20')",
    ]);
    ok(&["sql", s(wh), "ALTER TABLE db.kv ADD COLUMN qty BIGINT"]);
    ok(&["sql", s(wh), "ALTER TABLE db.kv RENAME COLUMN v TO name"]);
    sql(wh, "INSERT INTO db.kv VALUES (2, 'b', 20)");
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "name": "a", "qty": null}),
            json!({"id": 2, "name": "b", "qty": 20}),
        ])
    );
    let latest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.join("schema/schema-3")).unwrap()).unwrap();
    assert_eq!(latest["options"]["snapshot.num-retained.max"], "20");
    let out = paimon(&["sql", s(wh), "ALTER TABLE db.kv RENAME TO db.kv2"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("RENAME TO db.kv2' is not supported"), "{err}");
}

#[test]
fn delete_from_a_primary_key_table_writes_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = table(
        wh,
        "kv",
        KV,
        &["--primary-key", "id", "--option", "bucket=2"],
    );
    sql(
        wh,
        "INSERT INTO db.kv VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')",
    );
    assert_eq!(
        sql(wh, "DELETE FROM db.kv WHERE id > 3 OR v = 'a'"),
        "count\n3\n"
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![json!({"id": 2, "v": "b"}), json!({"id": 3, "v": "c"})])
    );
    assert_eq!(snapshot_count(&t), 2, "one commit for the DELETE");
    let refused = |name: &str, opts: &[&str], why: &str| {
        let mut args = vec!["--primary-key", "id"];
        args.extend_from_slice(opts);
        table(wh, name, KV, &args);
        let out = paimon(&["sql", s(wh), &format!("DELETE FROM db.{name} WHERE id = 1")]);
        assert!(!out.status.success(), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{name}: {err}");
    };
    refused(
        "first",
        &["--option", "bucket=1", "--option", "merge-engine=first-row"],
        "first-row merge engine does not take deletes",
    );
    refused(
        "partial",
        &[
            "--option",
            "bucket=1",
            "--option",
            "merge-engine=partial-update",
        ],
        "partial-update.remove-record-on-delete",
    );
}

#[test]
fn update_a_primary_key_table_writes_update_rows() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let t = table(
        wh,
        "kv",
        KV,
        &["--primary-key", "id", "--option", "bucket=2"],
    );
    sql(wh, "INSERT INTO db.kv VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    // Two rows, each written as -U (old) and +U (new).
    assert_eq!(
        sql(wh, "UPDATE db.kv SET v = upper(v) || '!' WHERE id >= 2"),
        "count\n4\n"
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "v": "a"}),
            json!({"id": 2, "v": "B!"}),
            json!({"id": 3, "v": "C!"}),
        ])
    );
    assert_eq!(snapshot_count(&t), 2);
    let out = paimon(&["sql", s(wh), "UPDATE db.kv SET id = 9 WHERE id = 1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'id' is a primary-key column"), "{err}");
    assert_eq!(snapshot_count(&t), 2);
}
