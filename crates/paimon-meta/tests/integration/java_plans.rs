//! Our plans of the primary-key fixture tables equal Java's, split by split and file by file in
//! order: `fixtures/plans/pk/<table>.jsonl` is `java-oracle.sh plan` output recorded by
//! `scripts/gen-plans.sh` from the committed warehouse.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::Table;
use paimon_split::DataSplit;
use serde_json::Value;

/// One data file of a split: name, level, row count, deletion file (index file name, offset,
/// length, cardinality).
type FileKey = (String, i64, i64, Option<(String, i64, i64, Option<i64>)>);
/// One split: bucket, raw-convertible flag, files in read order.
type SplitKey = (i64, bool, Vec<FileKey>);

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn java_plan(path: &Path) -> Vec<SplitKey> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<SplitKey> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let files = v["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    let dv = f.get("deletionFile").filter(|d| !d.is_null()).map(|d| {
                        (
                            d["path"].as_str().unwrap().to_string(),
                            d["offset"].as_i64().unwrap(),
                            d["length"].as_i64().unwrap(),
                            d["cardinality"].as_i64(),
                        )
                    });
                    (
                        f["name"].as_str().unwrap().to_string(),
                        f["level"].as_i64().unwrap(),
                        f["rowCount"].as_i64().unwrap(),
                        dv,
                    )
                })
                .collect();
            (
                v["bucket"].as_i64().unwrap(),
                v["rawConvertible"].as_bool().unwrap(),
                files,
            )
        })
        .collect();
    out.sort();
    out
}

fn our_plan(table_dir: &Path) -> Vec<SplitKey> {
    let table = Table::open(
        Arc::new(paimon_io::LocalFileIO::new()),
        table_dir.to_str().unwrap(),
    )
    .unwrap();
    let mut out: Vec<SplitKey> = table
        .scan()
        .plan()
        .unwrap()
        .splits
        .iter()
        .map(split_key)
        .collect();
    out.sort();
    out
}

fn split_key(s: &DataSplit) -> SplitKey {
    let files = s
        .data_files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let dv = s.deletion_file(i).map(|d| {
                (
                    paimon_io::file_name(&d.path).to_string(),
                    d.offset,
                    d.length,
                    d.cardinality,
                )
            });
            (f.file_name.clone(), i64::from(f.level), f.row_count, dv)
        })
        .collect();
    (i64::from(s.bucket), s.raw_convertible, files)
}

/// Three level-0 files with the same key range: Java's sorted runs come out of
/// `PriorityQueue.stream()` (heap array order), so the file order is seq 0, 24, 12.
#[test]
fn sequence_field_file_order_is_javas() {
    let dir = fixtures().join("warehouse/pk.db/sequence_field");
    let ours = our_plan(&dir);
    let java = java_plan(&fixtures().join("plans/pk/sequence_field.jsonl"));
    assert_eq!(ours.len(), 1);
    assert!(!ours[0].1);
    assert_eq!(ours, java);
}

#[test]
fn every_pk_fixture_plans_as_java() {
    let plans = fixtures().join("plans/pk");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&plans)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    entries.sort();
    assert!(
        entries.len() >= 8,
        "plans missing under {}",
        plans.display()
    );
    let mut failures = Vec::new();
    for p in &entries {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let java = java_plan(p);
        let ours = our_plan(&fixtures().join("warehouse/pk.db").join(&name));
        if ours != java {
            failures.push(format!("{name}:\n  java {java:?}\n  ours {ours:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
