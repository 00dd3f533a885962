//! `paimon sql` DDL spellings of Flink and Spark that DataFusion's parser rejects (issue 43):
//! Paimon's nested and local-zoned type names in `CREATE TABLE` / `ALTER TABLE ADD COLUMN(S)`,
//! `UNSET TBLPROPERTIES` / `RESET`, `CREATE TABLE .. LIKE`, a table `COMMENT` beside `WITH`,
//! and `SHOW CREATE TABLE`; each schema read back by Java Paimon 1.4.2 (the oracle's
//! `system-table T schemas`, Java's `T$schemas`) and compared with a Java-written fixture
//! table's or with values kept here.

use std::path::Path;

use serde_json::{json, Value};

use crate::maintenance::oracle;
use crate::paths::repo;
use crate::write_cmd::{canonical, java_rows, ok, paimon, s};

/// Runs `sql` with `paimon sql WAREHOUSE SQL --format csv`; returns stdout.
fn sql(warehouse: &Path, sql: &str) -> String {
    ok(&["sql", s(warehouse), sql, "--format", "csv"])
}

/// Runs `sql`, which must fail; its stderr.
fn fails(warehouse: &Path, sql: &str) -> String {
    let out = paimon(&["sql", s(warehouse), sql]);
    assert!(!out.status.success(), "{sql} must fail");
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// Java's latest row of `table$schemas`, its JSON-text columns parsed.
fn java_schema(table: &Path) -> Value {
    let out = oracle(&["system-table", s(table), "schemas"]);
    let mut row: Value = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .max_by_key(|r| r["schema_id"].as_i64().unwrap())
        .expect("Java lists a schema");
    for key in ["fields", "partition_keys", "primary_keys", "options"] {
        let text = row[key].as_str().unwrap().to_string();
        row[key] = serde_json::from_str(&text).unwrap();
    }
    row.as_object_mut().unwrap().remove("update_time");
    row
}

/// How many schema files the table has.
fn schema_count(table: &Path) -> usize {
    std::fs::read_dir(table.join("schema")).unwrap().count()
}

/// The columns of the Java-written fixture `append.db/all_types_avro`, as a Flink user types
/// them (`TIMESTAMP_LTZ`, `ROW(..)` and `ROW<..>` spellings mixed).
const ALL_TYPES: &str = "id INT NOT NULL, c_bool BOOLEAN, c_tinyint TINYINT, \
    c_smallint SMALLINT, c_int INT, c_bigint BIGINT, c_float FLOAT, c_double DOUBLE, \
    c_dec_5_2 DECIMAL(5, 2), c_dec_18_4 DECIMAL(18, 4), c_dec_38_0 DECIMAL(38, 0), \
    c_dec_38_10 DECIMAL(38, 10), c_char CHAR(5), c_varchar VARCHAR(20), c_string STRING, \
    c_binary BINARY(4), c_varbinary VARBINARY(10), c_bytes BYTES, c_date DATE, c_time TIME(3), \
    c_ts0 TIMESTAMP(0), c_ts3 TIMESTAMP(3), c_ts6 TIMESTAMP(6), \
    c_ltz3 TIMESTAMP(3) WITH LOCAL TIME ZONE, c_ltz6 TIMESTAMP_LTZ(6), c_arr_int ARRAY<INT>, \
    c_arr_str ARRAY<STRING>, c_arr_arr ARRAY<ARRAY<BIGINT>>, c_map MAP<STRING, INT>, \
    c_map_int_arr MAP<INT, ARRAY<STRING>>, \
    c_row ROW<a INT, b STRING, c ROW<d DOUBLE, e ARRAY<BIGINT>>>, \
    c_arr_row ARRAY<ROW<x INT, y STRING>>, c_map_row MAP<STRING, ROW(p DECIMAL(10, 3), q DATE)>";

#[test]
fn nested_type_names_create_the_schema_java_created() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    sql(
        wh,
        &format!("CREATE TABLE db.all_types ({ALL_TYPES}) WITH ('file.format' = 'avro')"),
    );
    let ours = java_schema(&wh.join("db.db/all_types"));
    let java = java_schema(&repo().join("fixtures/warehouse/append.db/all_types_avro"));
    // Field ids included: nested rows numbered as Java's `Schema.Builder` numbers them.
    assert_eq!(ours["fields"], java["fields"]);
    assert_eq!(ours["options"], java["options"]);

    // SHOW CREATE TABLE prints it back; run as another table, Java reads the same schema.
    let shown = sql(wh, "SHOW CREATE TABLE db.all_types");
    let out = ok(&[
        "sql",
        s(wh),
        "SHOW CREATE TABLE db.all_types",
        "--format",
        "jsonl",
    ]);
    let row: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let definition = row["definition"].as_str().unwrap().to_string();
    assert!(shown.contains("db,all_types"), "{shown}");
    for line in [
        "CREATE TABLE db.all_types (\n  `id` INT NOT NULL,\n",
        "\n  `c_ltz6` TIMESTAMP(6) WITH LOCAL TIME ZONE,\n",
        "\n  `c_row` ROW<`a` INT, `b` STRING, `c` ROW<`d` DOUBLE, `e` ARRAY<BIGINT>>>,\n",
        "\n  `c_map_row` MAP<STRING, ROW<`p` DECIMAL(10, 3), `q` DATE>>\n)\nWITH (\n  'file.format' = 'avro'\n)",
    ] {
        assert!(definition.contains(line), "{line} in {definition}");
    }
    sql(
        wh,
        &definition.replace("CREATE TABLE db.all_types", "CREATE TABLE db.again"),
    );
    let again = java_schema(&wh.join("db.db/again"));
    assert_eq!(again["fields"], java["fields"]);
    assert_eq!(again["options"], java["options"]);

    // A type Paimon has no name for is one error naming it; nothing is created.
    let err = fails(wh, "CREATE TABLE db.bad (a INT, m MAP<INT>)");
    assert!(
        err.contains("CREATE TABLE db.bad") && err.contains("MAP<INT>"),
        "{err}"
    );
    assert!(!wh.join("db.db/bad").exists());
}

#[test]
fn show_create_table_runs_back_into_the_same_schema() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    sql(
        wh,
        "CREATE TABLE db.orders (id INT NOT NULL COMMENT 'the key', dt STRING, \
         attrs MAP<STRING, ROW<a INT COMMENT 'it''s', b ARRAY<TIMESTAMP_LTZ(3)>>>, \
         PRIMARY KEY (id, dt) NOT ENFORCED) COMMENT 'all orders' PARTITIONED BY (dt) \
         WITH ('bucket' = '2', 'file.format' = 'parquet')",
    );
    let orders = wh.join("db.db/orders");
    let java = java_schema(&orders);
    assert_eq!(java["comment"], "all orders");
    assert_eq!(java["primary_keys"], json!(["id", "dt"]));
    assert_eq!(java["partition_keys"], json!(["dt"]));
    assert_eq!(
        java["options"],
        json!({"bucket": "2", "file.format": "parquet"})
    );
    assert_eq!(
        java["fields"],
        json!([
            {"id": 0, "name": "id", "type": "INT NOT NULL", "description": "the key"},
            {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
            {"id": 2, "name": "attrs", "type": {"type": "MAP", "key": "STRING", "value": {
                "type": "ROW", "fields": [
                    {"id": 3, "name": "a", "type": "INT", "description": "it's"},
                    {"id": 4, "name": "b", "type": {"type": "ARRAY",
                        "element": "TIMESTAMP(3) WITH LOCAL TIME ZONE"}}]}}}
        ])
    );
    let out = ok(&[
        "sql",
        s(wh),
        "SHOW CREATE TABLE db.orders",
        "--format",
        "jsonl",
    ]);
    let row: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(
        row["definition"],
        "CREATE TABLE db.orders (\n  `id` INT NOT NULL COMMENT 'the key',\n  `dt` STRING NOT NULL,\n  \
         `attrs` MAP<STRING, ROW<`a` INT COMMENT 'it''s', `b` ARRAY<TIMESTAMP(3) WITH LOCAL TIME ZONE>>>,\n  \
         PRIMARY KEY (`id`, `dt`) NOT ENFORCED\n) COMMENT 'all orders'\nPARTITIONED BY (`dt`)\n\
         WITH (\n  'bucket' = '2',\n  'file.format' = 'parquet'\n)"
    );
    let definition = row["definition"].as_str().unwrap();
    sql(
        wh,
        &definition.replace("CREATE TABLE db.orders", "CREATE TABLE db.copy"),
    );
    let mut copy = java_schema(&wh.join("db.db/copy"));
    let mut java = java;
    copy.as_object_mut().unwrap().remove("schema_id");
    java.as_object_mut().unwrap().remove("schema_id");
    assert_eq!(copy, java);
    // Rows written through SQL are Java's to read.
    sql(wh, "INSERT INTO db.copy (id, dt) VALUES (1, 'a')");
    assert_eq!(
        java_rows(&wh.join("db.db/copy")),
        canonical(vec![json!({"id": 1, "dt": "a", "attrs": null})])
    );
}

#[test]
fn unset_tblproperties_and_reset_remove_options() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    sql(
        wh,
        "CREATE TABLE db.t (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) \
         WITH ('bucket' = '1', 'snapshot.num-retained.max' = '20', \
         'snapshot.num-retained.min' = '5', 'manifest.target-file-size' = '4 mb')",
    );
    let t = wh.join("db.db/t");
    sql(
        wh,
        "ALTER TABLE db.t UNSET TBLPROPERTIES ('snapshot.num-retained.max', 'snapshot.num-retained.min')",
    );
    assert_eq!(
        java_schema(&t)["options"],
        json!({"bucket": "1", "manifest.target-file-size": "4 mb"})
    );
    // Flink's spelling; a key the table does not have is no error (Java's removeOption).
    sql(
        wh,
        "ALTER TABLE db.t RESET ('manifest.target-file-size', 'no.such.key')",
    );
    sql(
        wh,
        "ALTER TABLE db.t UNSET TBLPROPERTIES IF EXISTS ('other')",
    );
    assert_eq!(java_schema(&t)["options"], json!({"bucket": "1"}));
    // Flink's SET spelling.
    sql(
        wh,
        "ALTER TABLE db.t SET ('snapshot.num-retained.max' = '30')",
    );
    assert_eq!(
        java_schema(&t)["options"],
        json!({"bucket": "1", "snapshot.num-retained.max": "30"})
    );
    assert_eq!(schema_count(&t), 5);

    // What Java refuses, refused: nothing written.
    let err = fails(wh, "ALTER TABLE db.t RESET ('bucket')");
    assert!(
        err.contains("bucket") && err.contains("cannot be changed"),
        "{err}"
    );
    let err = fails(wh, "ALTER TABLE db.nope UNSET TBLPROPERTIES ('bucket')");
    assert!(err.contains("db.db/nope") || err.contains("nope"), "{err}");
    let err = fails(wh, "ALTER TABLE db.t RESET (bucket)");
    assert!(err.contains("list of quoted option keys"), "{err}");
    assert_eq!(schema_count(&t), 5);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn add_columns_takes_nested_type_names() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    sql(wh, "CREATE TABLE db.t (id INT, v STRING)");
    let t = wh.join("db.db/t");
    sql(wh, "INSERT INTO db.t VALUES (1, 'a')");
    sql(wh, "ALTER TABLE db.t ADD COLUMN m MAP<STRING, ARRAY<INT>>");
    // Spark's ADD COLUMNS list.
    sql(
        wh,
        "ALTER TABLE db.t ADD COLUMNS (r ROW<a INT, b ROW<c DATE>>, ts TIMESTAMP_LTZ(3))",
    );
    let fields = java_schema(&t)["fields"].clone();
    let types: Vec<(String, Value)> = fields
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                strip_ids(&f["type"]),
            )
        })
        .collect();
    assert_eq!(
        types,
        vec![
            ("id".to_string(), json!("INT")),
            ("v".to_string(), json!("STRING")),
            (
                "m".to_string(),
                json!({"type": "MAP", "key": "STRING", "value": {"type": "ARRAY", "element": "INT"}})
            ),
            (
                "r".to_string(),
                json!({"type": "ROW", "fields": [{"name": "a", "type": "INT"},
                    {"name": "b", "type": {"type": "ROW", "fields": [{"name": "c", "type": "DATE"}]}}]})
            ),
            ("ts".to_string(), json!("TIMESTAMP(3) WITH LOCAL TIME ZONE")),
        ]
    );
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 1, "v": "a", "m": null, "r": null, "ts": null})
        ])
    );
    let before = schema_count(&t);
    let err = fails(wh, "ALTER TABLE db.t ADD COLUMN x ARRAY<NOPE>");
    assert!(err.contains("ARRAY<NOPE>"), "{err}");
    assert_eq!(schema_count(&t), before);
}

/// `t` without the `id` keys of nested fields.
fn strip_ids(t: &Value) -> Value {
    match t {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "id")
                .map(|(k, v)| (k.clone(), strip_ids(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_ids).collect()),
        other => other.clone(),
    }
}

#[test]
fn create_table_like_copies_columns_keys_partitioning_and_options() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    sql(
        wh,
        "CREATE TABLE db.src (id INT NOT NULL, v STRING, dt STRING, \
         PRIMARY KEY (id, dt) NOT ENFORCED) COMMENT 'source' PARTITIONED BY (dt) \
         WITH ('bucket' = '2', 'merge-engine' = 'partial-update')",
    );
    sql(wh, "ALTER TABLE db.src DROP COLUMN v");
    sql(wh, "ALTER TABLE db.src ADD COLUMN w ROW<x INT>");
    sql(wh, "INSERT INTO db.src (id, dt) VALUES (1, 'a')");
    sql(wh, "CREATE TABLE db.dst LIKE db.src");
    let src = java_schema(&wh.join("db.db/src"));
    let dst = java_schema(&wh.join("db.db/dst"));
    assert_eq!(dst["schema_id"], 0);
    assert_eq!(dst["primary_keys"], src["primary_keys"]);
    assert_eq!(dst["partition_keys"], src["partition_keys"]);
    assert_eq!(dst["options"], src["options"]);
    assert_eq!(dst["comment"], Value::Null);
    // The columns, numbered afresh as a new table's.
    assert_eq!(
        dst["fields"],
        json!([
            {"id": 0, "name": "id", "type": "INT NOT NULL"},
            {"id": 1, "name": "dt", "type": "STRING NOT NULL"},
            {"id": 2, "name": "w", "type": {"type": "ROW", "fields": [
                {"id": 3, "name": "x", "type": "INT"}]}}
        ])
    );
    assert_eq!(java_rows(&wh.join("db.db/dst")), Vec::<String>::new());
    sql(wh, "CREATE TABLE IF NOT EXISTS db.dst LIKE db.src");
    assert_eq!(schema_count(&wh.join("db.db/dst")), 1);
    let err = fails(wh, "CREATE TABLE db.other LIKE db.nope");
    assert!(err.contains("nope"), "{err}");
    assert!(!wh.join("db.db/other").exists());
    let err = fails(wh, "CREATE TABLE db.dst LIKE db.src");
    assert!(err.contains("exists"), "{err}");
}

/// Fails when run with `paimon ARGS`; its stderr.
fn cli_fails(args: &[&str]) -> String {
    let out = paimon(args);
    assert!(!out.status.success(), "{args:?} must fail");
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// Options Java's `SchemaValidation` refuses are refused at CREATE and ALTER (SQL, `paimon
/// create-table`, `paimon alter-table`) with one line naming the table and the option, and
/// nothing is written: before, `snapshot.num-retained.max` below the default minimum was
/// committed and Java then failed to open the table ("snapshot.num-retained.min should not be
/// larger than snapshot.num-retained.max").
#[test]
fn options_java_refuses_are_refused_at_create_and_alter() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    sql(wh, "CREATE TABLE db.t (id INT, dt STRING)");
    let t = wh.join("db.db/t");
    for bad in [
        "ALTER TABLE db.t SET ('snapshot.num-retained.max' = '7')",
        "ALTER TABLE db.t SET TBLPROPERTIES ('snapshot.num-retained.min' = '0')",
        "ALTER TABLE db.t SET ('changelog.num-retained.max' = '3')",
        "ALTER TABLE db.t SET ('partition.expiration-time' = '1 d')",
    ] {
        let err = fails(wh, bad);
        let option = bad.split('\'').nth(1).unwrap();
        assert!(
            err.contains(option) && err.contains("db.db/t"),
            "{bad}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    assert_eq!(schema_count(&t), 1);
    let err = cli_fails(&[
        "alter-table",
        s(&t),
        "--set-option",
        "snapshot.num-retained.max=7",
    ]);
    assert!(err.contains("snapshot.num-retained.max"), "{err}");
    assert_eq!(schema_count(&t), 1);
    // Java still opens the table, at its first schema.
    assert_eq!(java_schema(&t)["schema_id"], 0);
    assert_eq!(java_rows(&t), Vec::<String>::new());

    // Within Java's bounds the same option is taken, and Java reads it back.
    sql(
        wh,
        "ALTER TABLE db.t SET ('snapshot.num-retained.max' = '7', 'snapshot.num-retained.min' = '7')",
    );
    assert_eq!(
        java_schema(&t)["options"],
        json!({"snapshot.num-retained.max": "7", "snapshot.num-retained.min": "7"})
    );
    sql(wh, "INSERT INTO db.t VALUES (1, 'a')");
    assert_eq!(java_rows(&t), canonical(vec![json!({"id": 1, "dt": "a"})]));

    // CREATE TABLE: refused with nothing created.
    let err = fails(
        wh,
        "CREATE TABLE db.bad (id INT) WITH ('snapshot.num-retained.max' = '5')",
    );
    assert!(
        err.contains("snapshot.num-retained.max") && err.contains("db.db/bad"),
        "{err}"
    );
    assert!(!wh.join("db.db/bad/schema/schema-0").exists());
    let bad = wh.join("db.db/bad2");
    let err = cli_fails(&[
        "create-table",
        s(&bad),
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT"}]}"#,
        "--option",
        "record-level.time-field=nope",
    ]);
    assert!(err.contains("record-level.time-field"), "{err}");
    assert!(!bad.join("schema/schema-0").exists());
}

/// `ADD COLUMN c T COMMENT '..' FIRST | AFTER b` in Flink's (`ADD c ..`, `ADD (..)`) and
/// Spark's (`ADD COLUMN`, `ADD COLUMNS (..)`) spellings: Java's `$schemas` shows each column
/// where it was put, with its comment and the ids Java's `SchemaManager` gives (the column's
/// own before its nested fields'), and Java reads the old rows under the new schema.
#[test]
fn add_column_takes_a_comment_and_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    sql(wh, "CREATE TABLE db.t (id INT, v STRING)");
    let t = wh.join("db.db/t");
    sql(wh, "INSERT INTO db.t VALUES (1, 'a')");
    sql(wh, "ALTER TABLE db.t ADD c INT COMMENT 'the c' FIRST");
    sql(wh, "ALTER TABLE db.t ADD COLUMN r ROW<x INT> AFTER id");
    sql(
        wh,
        "ALTER TABLE db.t ADD COLUMNS (d STRING COMMENT 'it''s d' AFTER v)",
    );
    sql(
        wh,
        "ALTER TABLE db.t ADD (e BIGINT FIRST, f INT COMMENT 'f')",
    );
    assert_eq!(
        java_schema(&t)["fields"],
        json!([
            {"id": 6, "name": "e", "type": "BIGINT"},
            {"id": 2, "name": "c", "type": "INT", "description": "the c"},
            {"id": 0, "name": "id", "type": "INT"},
            {"id": 3, "name": "r", "type": {"type": "ROW", "fields": [
                {"id": 4, "name": "x", "type": "INT"}]}},
            {"id": 1, "name": "v", "type": "STRING"},
            {"id": 5, "name": "d", "type": "STRING", "description": "it's d"},
            {"id": 7, "name": "f", "type": "INT", "description": "f"}
        ])
    );
    sql(wh, "INSERT INTO db.t (id, v, e) VALUES (2, 'b', 20)");
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"e": null, "c": null, "id": 1, "r": null, "v": "a", "d": null, "f": null}),
            json!({"e": 20, "c": null, "id": 2, "r": null, "v": "b", "d": null, "f": null}),
        ])
    );
    // A position after a column that is not there: refused, nothing written.
    let before = schema_count(&t);
    let err = fails(wh, "ALTER TABLE db.t ADD COLUMN g INT AFTER nope");
    assert!(err.contains("nope") && err.contains("db.db/t"), "{err}");
    assert_eq!(schema_count(&t), before);
}

/// Spark's `CREATE TABLE .. USING paimon` creates the table the statement describes without
/// it; another `USING` is refused by name and nothing is created.
#[test]
fn using_paimon_is_taken_and_other_formats_refused() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    sql(
        wh,
        "CREATE TABLE db.s (id INT NOT NULL, v STRING, dt STRING) USING paimon \
         COMMENT 'spark' PARTITIONED BY (dt) TBLPROPERTIES ('file.format' = 'avro')",
    );
    let java = java_schema(&wh.join("db.db/s"));
    assert_eq!(java["partition_keys"], json!(["dt"]));
    assert_eq!(java["comment"], "spark");
    assert_eq!(java["options"], json!({"file.format": "avro"}));
    sql(wh, "CREATE TABLE db.ctas USING paimon AS SELECT 1 AS a");
    assert_eq!(
        java_rows(&wh.join("db.db/ctas")),
        canonical(vec![json!({"a": 1})])
    );
    let err = fails(wh, "CREATE TABLE db.p (a INT) USING parquet");
    assert!(err.contains("USING parquet"), "{err}");
    assert!(!wh.join("db.db/p").exists());
}
