//! `paimon alter-table`: options set and removed, columns added, renamed, dropped and widened,
//! each published as the next `schema-N`; rows written before and after read by Java 1.4.2 (and
//! by us) as the rows kept here, through every schema; changes Java refuses (or that would lose
//! values) fail with nothing written.

use std::path::Path;

use serde_json::{json, Value};

use crate::maintenance::our_rows;
use crate::write_cmd::{canonical, java_rows, ok, paimon, s};

fn write(t: &Path, dir: &Path, name: &str, rows: &[Value]) {
    let file = dir.join(name);
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&file, text).unwrap();
    ok(&["write", s(t), "--from", s(&file)]);
}

fn schemas(t: &Path) -> usize {
    std::fs::read_dir(t.join("schema")).unwrap().count()
}

#[test]
fn columns_added_renamed_widened_and_dropped_read_by_java() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"},{"name":"n","type":"INT"}]}"#,
    ]);
    write(
        &t,
        dir.path(),
        "a.jsonl",
        &[
            json!({"id": 1, "v": "a", "n": 10}),
            json!({"id": 2, "v": "b", "n": -20}),
        ],
    );
    ok(&[
        "alter-table",
        s(&t),
        "--add-column",
        "x DOUBLE",
        "--rename-column",
        "v=w",
        "--update-column-type",
        "n BIGINT",
        "--set-option",
        "snapshot.num-retained.min=5",
    ]);
    assert!(t.join("schema/schema-1").exists());
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(t.join("schema/schema-1")).unwrap()).unwrap();
    assert_eq!(schema["id"], json!(1));
    assert_eq!(schema["highestFieldId"], json!(3));
    assert_eq!(
        schema["fields"][1],
        json!({"id": 1, "name": "w", "type": "STRING"})
    );
    assert_eq!(
        schema["fields"][2],
        json!({"id": 2, "name": "n", "type": "BIGINT"})
    );
    assert_eq!(
        schema["fields"][3],
        json!({"id": 3, "name": "x", "type": "DOUBLE"})
    );
    assert_eq!(schema["options"]["snapshot.num-retained.min"], json!("5"));

    write(
        &t,
        dir.path(),
        "b.jsonl",
        &[json!({"id": 3, "w": "c", "n": 5_000_000_000_i64, "x": 1.5})],
    );
    let want = canonical(vec![
        json!({"id": 1, "w": "a", "n": 10, "x": null}),
        json!({"id": 2, "w": "b", "n": -20, "x": null}),
        json!({"id": 3, "w": "c", "n": 5_000_000_000_i64, "x": 1.5}),
    ]);
    assert_eq!(java_rows(&t), want);
    assert_eq!(our_rows(&t), want);

    ok(&["alter-table", s(&t), "--drop-column", "x"]);
    write(
        &t,
        dir.path(),
        "c.jsonl",
        &[json!({"id": 4, "w": "d", "n": 7})],
    );
    let want = canonical(vec![
        json!({"id": 1, "w": "a", "n": 10}),
        json!({"id": 2, "w": "b", "n": -20}),
        json!({"id": 3, "w": "c", "n": 5_000_000_000_i64}),
        json!({"id": 4, "w": "d", "n": 7}),
    ]);
    assert_eq!(java_rows(&t), want);
    assert_eq!(our_rows(&t), want);

    // Refused, with nothing written.
    let before = schemas(&t);
    for args in [
        vec!["--add-column", "y INT NOT NULL"],
        vec!["--add-column", "w INT"],
        vec!["--update-column-type", "n INT"],
        vec!["--update-column-type", "w INT"],
        vec!["--rename-column", "w=id"],
        vec!["--drop-column", "nope"],
        vec!["--set-option", "bucket=2"],
    ] {
        let mut a = vec!["alter-table", s(&t)];
        a.extend(args.iter());
        let out = paimon(&a);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert_eq!(schemas(&t), before, "{args:?}");
    }
}

#[test]
fn a_primary_key_table_merges_rows_of_two_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    ok(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=2",
    ]);
    write(
        &t,
        dir.path(),
        "a.jsonl",
        &[json!({"id": 1, "v": "a"}), json!({"id": 2, "v": "b"})],
    );
    ok(&["alter-table", s(&t), "--add-column", "x INT"]);
    // The key and the partition columns cannot be changed.
    assert!(!paimon(&["alter-table", s(&t), "--drop-column", "id"])
        .status
        .success());
    write(
        &t,
        dir.path(),
        "b.jsonl",
        &[json!({"id": 1, "v": "a2", "x": 9})],
    );
    let want = canonical(vec![
        json!({"id": 1, "v": "a2", "x": 9}),
        json!({"id": 2, "v": "b", "x": null}),
    ]);
    assert_eq!(java_rows(&t), want);
    assert_eq!(our_rows(&t), want);
}
