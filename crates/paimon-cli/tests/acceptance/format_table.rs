//! Format tables (`type = format-table`, Java `FormatTable`: Hive-style directories of plain
//! data files, no snapshots) are refused by every command with one typed error, and nothing
//! is written into their directory. Before the refusal, `paimon write` exited 0 after writing
//! a Paimon table (snapshot, manifests, buckets) into it, which pypaimon then read as 0 rows,
//! and `paimon read` printed 0 rows.

use std::path::Path;

use crate::write_cmd::{paimon, s};

/// The refusal every entry point gives (`paimon_spec::options::FORMAT_TABLE_UNSUPPORTED`).
const REFUSAL: &str = "format tables are not supported yet (type = format-table)";

/// A format table as pypaimon's filesystem catalog leaves it: `schema/schema-0` with
/// `type = format-table`, and a data file in a Hive-style partition directory.
fn format_table(root: &Path) {
    std::fs::create_dir_all(root.join("schema")).unwrap();
    std::fs::write(
        root.join("schema/schema-0"),
        r#"{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "id",
    "type" : "INT"
  }, {
    "id" : 1,
    "name" : "name",
    "type" : "STRING"
  }, {
    "id" : 2,
    "name" : "dt",
    "type" : "STRING"
  } ],
  "highestFieldId" : 2,
  "partitionKeys" : [ "dt" ],
  "primaryKeys" : [ ],
  "options" : {
    "type" : "format-table",
    "file.format" : "parquet"
  },
  "timeMillis" : 1781088620905
}"#,
    )
    .unwrap();
    std::fs::create_dir_all(root.join("dt=2024-01-01")).unwrap();
    std::fs::write(root.join("dt=2024-01-01/data-0.parquet"), b"PAR1").unwrap();
}

/// Every file under `root`, relative, sorted.
fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_command_refuses_a_format_table_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("ft");
    format_table(&t);
    let before = files(&t);
    let csv = dir.path().join("rows.csv");
    std::fs::write(&csv, "id,name,dt\n3,c,2024-01-02\n").unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["write", s(&t), "--from", s(&csv)],
        vec!["read", s(&t)],
        vec!["plan", s(&t)],
        vec!["compact", s(&t)],
        vec!["expire-snapshots", s(&t)],
        vec!["remove-orphan-files", s(&t)],
    ];
    for args in commands {
        let out = paimon(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "paimon {args:?}: {err}");
        assert!(err.contains(REFUSAL), "paimon {args:?}: {err}");
        assert_eq!(files(&t), before, "paimon {args:?} changed the table");
    }
    let new = dir.path().join("new_ft");
    let out = paimon(&[
        "create-table",
        s(&new),
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT"}]}"#,
        "--option",
        "type=format-table",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(REFUSAL), "{err}");
    assert!(
        !new.join("schema/schema-0").exists(),
        "create-table left a schema behind"
    );
}
