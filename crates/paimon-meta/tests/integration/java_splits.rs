//! Our plans agree with the splits Java serialized into `data_splits/` / `data-splits/`.

use std::collections::BTreeSet;
use std::path::Path;

use paimon_split::DataSplit;

use crate::common;

/// File names and deletion files (index file name, offset, length, cardinality) of a split.
type FileSet = BTreeSet<(String, Option<(String, i64, i64, Option<i64>)>)>;

fn file_set(s: &DataSplit) -> FileSet {
    s.data_files
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
            (f.file_name.clone(), dv)
        })
        .collect()
}

fn bucket_suffix(path: &str, table: &str) -> String {
    let marker = format!("/{table}/");
    path.rfind(&marker)
        .map(|i| path[i + marker.len()..].to_string())
        .unwrap_or_else(|| path.to_string())
}

/// Our candidate plans for a Java split: its snapshot on main (with fallback) and on each
/// branch, and the latest snapshot of each.
fn candidates(table_dir: &Path, snapshot: i64) -> Vec<DataSplit> {
    let table = common::open(&common::rel(table_dir));
    let mut branches = vec!["main".to_string()];
    if let Ok(rd) = std::fs::read_dir(table_dir.join("branch")) {
        for e in rd.flatten() {
            if let Some(b) = e.file_name().to_string_lossy().strip_prefix("branch-") {
                branches.push(b.to_string());
            }
        }
    }
    let mut out = Vec::new();
    for b in branches {
        let t = table.with_branch(&b).unwrap();
        if let Ok(p) = t.scan().with_snapshot(snapshot).plan() {
            out.extend(p.splits);
        }
        out.extend(t.scan().plan().unwrap().splits);
    }
    out
}

#[test]
fn plans_match_java_serialized_splits() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for table_dir in common::all_tables() {
        for dir in ["data_splits", "data-splits"] {
            let Ok(rd) = std::fs::read_dir(table_dir.join(dir)) else {
                continue;
            };
            let table_name = table_dir
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let bytes = std::fs::read(e.path()).unwrap();
                let java = paimon_split::decode_split(&bytes)
                    .unwrap_or_else(|err| panic!("decode {}: {err}", e.path().display()));
                // Streaming splits, and splits written from a differently named table (README:
                // "with fake external path"), have no counterpart in this table's batch plan.
                if java.is_streaming || !java.bucket_path.contains(&format!("/{table_name}/")) {
                    continue;
                }
                let expected = file_set(&java);
                let ours = candidates(&table_dir, java.snapshot_id);
                let found = ours.iter().any(|s| {
                    s.partition == java.partition
                        && s.bucket == java.bucket
                        && file_set(s) == expected
                        && s.raw_convertible == java.raw_convertible
                        && bucket_suffix(&s.bucket_path, &table_name)
                            == bucket_suffix(&java.bucket_path, &table_name)
                });
                checked += 1;
                if !found {
                    let same_bucket: Vec<_> = ours
                        .iter()
                        .filter(|s| s.partition == java.partition && s.bucket == java.bucket)
                        .map(|s| (file_set(s), s.raw_convertible, s.bucket_path.clone()))
                        .collect();
                    failures.push(format!(
                        "{}/{dir}/{name}: java {:?} raw={} path={}\n  ours: {same_bucket:?}",
                        common::rel(&table_dir),
                        expected,
                        java.raw_convertible,
                        java.bucket_path
                    ));
                }
            }
        }
    }
    assert!(checked >= 30, "only {checked} Java splits found");
    assert!(
        failures.is_empty(),
        "{} of {checked} splits differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
