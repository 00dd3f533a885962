//! The system tables against Java Paimon 1.4.2's own `TABLE$NAME` rows
//! (`scripts/java-oracle.sh system-table`, `SystemTableLoader` on the same table). What they
//! share with `paimon snapshots|schema|files --json` is checked in paimon-cli's acceptance
//! tests (`system_tables.rs`).
//!
//! Rows are compared as the oracle's JSON encoding, every column exactly. Orders that come
//! from Java's directory listings or hash maps are compared sorted: `files` (Java lists the
//! files of its scan plan's splits), `branches`, `schemas` (`SchemaManager.listAll` lists
//! the schema directory), and `partitions` of equal names.

use std::collections::BTreeMap;
use std::process::Command;

use arrow::array::{Array, AsArray};
use arrow::datatypes::TimestampMillisecondType;
use arrow::datatypes::{DataType as ArrowType, Int32Type, Int64Type, TimeUnit};
use datafusion::prelude::SessionContext;
use paimon_datafusion::system::{system_batch, system_table, SYSTEM_TABLES};
use paimon_spec::binary::json::format_timestamp;
use paimon_spec::types::{DataField, TypeKind};
use paimon_test_utils::repo;
use serde_json::{json, Map, Value};

/// The system tables built from metadata (`audit_log` is a scan of the table).
fn built() -> Vec<&'static str> {
    SYSTEM_TABLES
        .iter()
        .copied()
        .filter(|n| *n != "audit_log")
        .collect()
}

/// The absolute path of a table under `fixtures/warehouse` or `../shared/testdata/paimon-cpp`
/// (Java prints file paths under the path it was given, so both get the same one).
fn table(rel: &str) -> String {
    let p = match rel.strip_prefix("cpp/") {
        Some(r) => repo().join("../shared/testdata/paimon-cpp").join(r),
        None => repo().join("fixtures/warehouse").join(rel),
    };
    let p = p
        .canonicalize()
        .unwrap_or_else(|e| panic!("test table {} is missing: {e}", p.display()));
    p.to_str().unwrap().to_string()
}

/// Java's rows of every built system table of `path` (on `branch`).
fn java(path: &str, branch: Option<&str>) -> BTreeMap<String, Vec<Value>> {
    let mut args = vec!["system-table".to_string(), path.to_string()];
    args.extend(built().iter().map(|s| s.to_string()));
    if let Some(b) = branch {
        args.extend(["--branch".to_string(), b.to_string()]);
    }
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(&args)
        .output()
        .expect("run scripts/java-oracle.sh (needs java)");
    assert!(
        out.status.success(),
        "java-oracle {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows: BTreeMap<String, Vec<Value>> = built()
        .iter()
        .map(|n| (n.to_string(), Vec::new()))
        .collect();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let (name, json) = line.split_once('\t').expect("NAME<TAB>JSON");
        rows.get_mut(name)
            .unwrap_or_else(|| panic!("Java printed rows of {name}"))
            .push(serde_json::from_str(json).unwrap());
    }
    rows
}

/// Our rows of system table `name`, in the oracle's JSON encoding (`RowJson`: TIMESTAMP(3)
/// as `yyyy-MM-ddTHH:mm:ss.fff`, arrays as lists), after checking that each column has the
/// Arrow type of its Paimon type.
fn ours(path: &str, branch: Option<&str>, name: &str) -> Vec<Value> {
    let (fields, batch) = system_batch(path, branch, name)
        .unwrap_or_else(|e| panic!("{path}${name}: {e}"))
        .unwrap_or_else(|| panic!("{name} is a system table"));
    let mut rows = vec![Map::new(); batch.num_rows()];
    for (i, f) in fields.iter().enumerate() {
        let col = batch.column(i);
        assert_eq!(batch.schema().field(i).name(), &f.name);
        assert_eq!(
            batch.schema().field(i).is_nullable(),
            f.data_type.nullable,
            "{name}.{}",
            f.name
        );
        for (r, row) in rows.iter_mut().enumerate() {
            row.insert(f.name.clone(), cell(col.as_ref(), r, f));
        }
    }
    rows.into_iter().map(Value::Object).collect()
}

fn cell(col: &dyn Array, r: usize, f: &DataField) -> Value {
    if col.is_null(r) {
        return Value::Null;
    }
    match (&f.data_type.kind, col.data_type()) {
        (TypeKind::BigInt, ArrowType::Int64) => json!(col.as_primitive::<Int64Type>().value(r)),
        (TypeKind::Int, ArrowType::Int32) => json!(col.as_primitive::<Int32Type>().value(r)),
        (TypeKind::VarChar { .. }, ArrowType::Utf8) => json!(col.as_string::<i32>().value(r)),
        (
            TypeKind::Timestamp { precision: 3 },
            ArrowType::Timestamp(TimeUnit::Millisecond, None),
        ) => {
            let ms = col.as_primitive::<TimestampMillisecondType>().value(r);
            json!(format_timestamp(ms, 0, 3, false))
        }
        (TypeKind::Array(e), ArrowType::List(_)) if matches!(e.kind, TypeKind::VarChar { .. }) => {
            let items = col.as_list::<i32>().value(r);
            let items = items.as_string::<i32>();
            Value::Array((0..items.len()).map(|i| json!(items.value(i))).collect())
        }
        (t, a) => panic!("column {} of Paimon type {t:?} is Arrow {a}", f.name),
    }
}

fn sort_by(rows: &mut [Value], key: &str) {
    rows.sort_by(|a, b| a[key].to_string().cmp(&b[key].to_string()));
}

/// Compares every built system table of `rel` with Java's and returns Java's rows.
fn compare(rel: &str, branch: Option<&str>) -> BTreeMap<String, Vec<Value>> {
    let path = table(rel);
    let mut java = java(&path, branch);
    for name in built() {
        let mut mine = ours(&path, branch, name);
        let theirs = java.get_mut(name).unwrap();
        let order_key = match name {
            "files" => Some("file_path"),
            "branches" => Some("branch_name"),
            "schemas" => Some("schema_id"),
            _ => None,
        };
        if let Some(key) = order_key {
            sort_by(&mut mine, key);
            sort_by(theirs, key);
        }
        if name == "partitions" {
            // Java sorts by name, and rows of equal names (a null and a blank value both
            // print the default name) come in its hash map's order: those compare sorted.
            let whole = |a: &Value, b: &Value| {
                (a["partition"].as_str(), a.to_string())
                    .cmp(&(b["partition"].as_str(), b.to_string()))
            };
            mine.sort_by(whole);
            theirs.sort_by(whole);
        }
        assert_eq!(
            mine.len(),
            theirs.len(),
            "{rel} {branch:?} ${name}: row count"
        );
        for (i, (m, t)) in mine.iter().zip(theirs.iter()).enumerate() {
            assert_eq!(m, t, "{rel} {branch:?} ${name}: row {i}");
        }
    }
    java
}

fn count(rows: &BTreeMap<String, Vec<Value>>, name: &str) -> usize {
    rows[name].len()
}

#[test]
fn pk_table_with_tags_and_a_branch() {
    // fixtures/README.md: 12 commits, tags t3/t6/t9, branch b1 from t6 with 2 own commits,
    // snapshots expired down to the last 4.
    let java = compare("pk.db/many_snapshots", None);
    assert_eq!(count(&java, "snapshots"), 4);
    let tags: Vec<&str> = java["tags"]
        .iter()
        .map(|t| t["tag_name"].as_str().unwrap())
        .collect();
    assert_eq!(tags, ["t3", "t6", "t9"]);
    assert_eq!(java["branches"].len(), 1);
    assert_eq!(java["branches"][0]["branch_name"], "b1");
    assert!(count(&java, "files") > 0 && count(&java, "manifests") > 0);
    assert_eq!(count(&java, "buckets"), 1);

    // The branch: its own snapshots (the tag's plus 2 commits) and tags.
    let b1 = compare("pk.db/many_snapshots", Some("b1"));
    assert!(count(&b1, "snapshots") >= 2, "{:?}", b1["snapshots"]);
}

#[test]
fn partitioned_pk_table_without_tags() {
    // fixtures/README.md: partitioned by (dt STRING, hr INT) incl. empty-string dt, bucket 2,
    // 3 overlapping commits.
    let java = compare("pk.db/partitioned", None);
    assert_eq!(count(&java, "snapshots"), 3);
    assert!(java["tags"].is_empty() && java["branches"].is_empty());
    assert!(count(&java, "partitions") > 1);
    assert!(
        java["partitions"].iter().any(|p| p["partition"]
            .as_str()
            .unwrap()
            .contains("__DEFAULT_PARTITION__")),
        "the empty-string dt is named by the default name: {:?}",
        java["partitions"]
    );
    assert!(count(&java, "buckets") >= count(&java, "partitions"));
}

#[test]
fn append_tables() {
    for rel in [
        "append.db/part_multi",
        "append.db/unaware",
        "append.db/fixed_bucket",
        "append.db/row_tracking",
        "append.db/dv_append",
    ] {
        let java = compare(rel, None);
        assert!(count(&java, "files") > 0, "{rel} has files");
        assert!(java["tags"].is_empty(), "{rel} has no tags");
    }
}

#[test]
fn value_stats_of_every_type() {
    // fixtures/README.md: every type with min/max, zero/empty, all-null, NaN/Inf/-0.0, unicode
    // and pre-epoch values.
    for rel in [
        "append.db/all_types_parquet",
        "append.db/all_types_orc",
        "append.db/all_types_avro",
    ] {
        let java = compare(rel, None);
        assert!(count(&java, "files") > 0, "{rel}");
    }
}

#[test]
fn tables_with_evolved_schemas_and_other_layouts() {
    for rel in [
        "evolution.db/columns",
        "evolution.db/pk_columns",
        "pk.db/dv32",
        "pk.db/postpone_bucket",
        "pk.db/dynamic_bucket",
        "pk.db/changelog_input",
    ] {
        let java = compare(rel, None);
        assert!(count(&java, "schemas") > 0, "{rel} has schemas");
    }
    let java = compare("evolution.db/columns", None);
    assert!(count(&java, "schemas") > 1, "evolution.db/columns evolved");
}

#[test]
fn stats_of_changed_column_types_are_cast_as_java_casts_them() {
    // README of each: columns changed INT -> STRING, STRING -> INT, TIMESTAMP -> STRING,
    // DECIMAL(5, 2) -> DECIMAL(6, 3), STRING -> BOOLEAN, DATE -> TIMESTAMP after snapshot 1.
    for rel in [
        "cpp/parquet/append_table_alter_table_with_cast.db/append_table_alter_table_with_cast",
        "cpp/orc/append_table_alter_table_with_cast.db/append_table_alter_table_with_cast",
        "cpp/parquet/append_with_cast_timestamp.db/append_with_cast_timestamp",
        "cpp/orc/append_with_cast_timestamp.db/append_with_cast_timestamp",
        "cpp/parquet/pk_table_with_alter_table.db/pk_table_with_alter_table",
        "cpp/orc/append_table_with_alter_table.db/append_table_with_alter_table",
    ] {
        let java = compare(rel, None);
        assert!(count(&java, "files") > 0, "{rel}");
    }
}

#[test]
fn paimon_cpp_tables_with_tags_and_branches() {
    // A tag with its create time and retention (and no snapshot left).
    let java = compare(
        "cpp/orc/append_table_with_tag.db/append_table_with_tag",
        None,
    );
    assert_eq!(count(&java, "tags"), 1);
    assert_eq!(java["tags"][0]["time_retained"], "PT3S");
    assert!(java["snapshots"].is_empty() && java["files"].is_empty());
    for (rel, branch) in [
        (
            "cpp/parquet/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch",
            "test",
        ),
        (
            "cpp/orc/append_table_with_rt_branch.db/append_table_with_rt_branch",
            "rt",
        ),
    ] {
        let java = compare(rel, None);
        let names: Vec<&str> = java["branches"]
            .iter()
            .map(|b| b["branch_name"].as_str().unwrap())
            .collect();
        assert_eq!(names, [branch], "{rel}");
        compare(rel, Some(branch));
    }
    compare(
        "cpp/orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv",
        None,
    );
}

#[test]
fn not_a_system_table() {
    let path = table("pk.db/partitioned");
    assert!(system_table(&path, None, "audit_log").unwrap().is_none());
    assert!(system_table(&path, None, "nope").unwrap().is_none());
    let err = system_table(&format!("{path}-missing"), None, "snapshots")
        .expect_err("a missing table is an error");
    assert!(err.to_string().contains("partitioned-missing"), "{err}");
}

#[tokio::test]
async fn queried_through_datafusion() {
    let path = table("pk.db/many_snapshots");
    let ctx = SessionContext::new();
    let t = system_table(&path, None, "snapshots").unwrap().unwrap();
    ctx.register_table("snapshots", t).unwrap();
    let batches = ctx
        .sql("SELECT snapshot_id, commit_kind FROM snapshots WHERE snapshot_id > 12 ORDER BY snapshot_id")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let java = java(&path, None);
    let expected = java["snapshots"]
        .iter()
        .filter(|s| s["snapshot_id"].as_i64().unwrap() > 12)
        .count();
    assert_eq!(rows, expected);
    assert!(expected > 0);
}
