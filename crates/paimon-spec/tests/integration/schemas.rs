//! Every schema file under `../shared/testdata/paimon-cpp` parses, and prints back to the same
//! JSON value (the type strings, nested field ids, options and keys).

use std::path::{Path, PathBuf};

use paimon_spec::options::CoreOptions;
use paimon_spec::schema::TableSchema;
use paimon_test_utils::cpp_testdata;

fn schema_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            schema_files(&p, out);
        } else if p
            .parent()
            .and_then(|d| d.file_name())
            .is_some_and(|n| n == "schema")
            && p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("schema-"))
        {
            out.push(p);
        }
    }
}

#[test]
fn every_schema_file_parses_and_prints_back() {
    let mut files = Vec::new();
    schema_files(&cpp_testdata(), &mut files);
    assert!(
        files.len() >= 160,
        "only {} schema files found",
        files.len()
    );
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let schema =
            TableSchema::from_json_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let original: serde_json::Value = serde_json::from_str(&text).unwrap();
        let printed = schema.to_json();
        assert_eq!(printed["fields"], original["fields"], "{}", f.display());
        assert_eq!(
            printed["partitionKeys"],
            original["partitionKeys"],
            "{}",
            f.display()
        );
        assert_eq!(
            printed["primaryKeys"],
            original["primaryKeys"],
            "{}",
            f.display()
        );
        assert_eq!(
            printed["highestFieldId"],
            original["highestFieldId"],
            "{}",
            f.display()
        );
        CoreOptions::try_new(&schema.options).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}

#[test]
fn known_schema_values() {
    let dir = cpp_testdata().join("orc/append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone/schema/schema-0");
    let s = TableSchema::from_json_str(&std::fs::read_to_string(dir).unwrap()).unwrap();
    assert_eq!(s.fields.len(), 8);
    assert_eq!(s.fields[3].name, "ts_nano");
    assert_eq!(s.fields[3].data_type.to_string(), "TIMESTAMP(9)");
    assert_eq!(
        s.fields[7].data_type.to_string(),
        "TIMESTAMP(9) WITH LOCAL TIME ZONE"
    );
    let o = CoreOptions::try_new(&s.options).unwrap();
    assert_eq!(o.file_format, "orc");
    assert_eq!(o.manifest_format, "orc");
}
