//! Plans with filters equal Java's: value statistics prune primary-key files exactly where
//! Java's `KeyValueFileStoreScan` lets them (whole buckets of snapshot reads, each file of
//! deletion-vector and first-row tables, changelog files of streaming reads with a lookup or
//! full-compaction producer) and nowhere else. Java's plans are
//! `fixtures/plans/filtered/<name>.jsonl`, recorded by `scripts/gen-plans.sh` from the cases
//! in `fixtures/plans/filtered/cases.jsonl`.

use std::path::{Path, PathBuf};

use clap::Parser;
use paimon_cli::scan_args::ScanArgs;
use serde_json::Value;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    scan: ScanArgs,
}

/// `(snapshot, bucket, file name, deletion file name)` of every planned file, sorted.
type FileKey = (i64, i64, String, Option<String>);

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn java(name: &str) -> Vec<FileKey> {
    let path = fixtures().join(format!("plans/filtered/{name}.jsonl"));
    let mut out = Vec::new();
    for line in std::fs::read_to_string(&path).unwrap().lines() {
        if line.trim().is_empty() {
            continue;
        }
        let split: Value = serde_json::from_str(line).unwrap();
        for f in split["files"].as_array().unwrap() {
            out.push((
                split["snapshot"].as_i64().unwrap(),
                split["bucket"].as_i64().unwrap(),
                f["name"].as_str().unwrap().to_string(),
                f["deletionFile"]["path"].as_str().map(str::to_string),
            ));
        }
    }
    out.sort();
    out
}

fn ours(table: &str, args: &[String]) -> Vec<FileKey> {
    let cli = Cli::try_parse_from(std::iter::once("plan".to_string()).chain(args.iter().cloned()))
        .unwrap();
    let path = fixtures().join("warehouse/pk.db").join(table);
    let opened = cli.scan.open(path.to_str().unwrap()).unwrap();
    let plan = opened.scan.plan().unwrap();
    let mut out = Vec::new();
    for s in &plan.splits {
        for (i, f) in s.data_files.iter().enumerate() {
            out.push((
                s.snapshot_id,
                i64::from(s.bucket),
                f.file_name.clone(),
                s.deletion_file(i)
                    .map(|d| paimon_io::file_name(&d.path).to_string()),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn filtered_plans_prune_primary_key_files_as_java_does() {
    let cases = std::fs::read_to_string(fixtures().join("plans/filtered/cases.jsonl")).unwrap();
    let mut checked = 0;
    let mut pruned_by_values = 0;
    let mut failures = Vec::new();
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let name = case["name"].as_str().unwrap();
        let table = case["table"].as_str().unwrap();
        let args: Vec<String> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let expected = java(name);
        let got = ours(table, &args);
        if got != expected {
            failures.push(format!("{name}: Java {expected:?}\n  ours {got:?}"));
        }
        // The same scan without the filter: how many files the filter removed.
        let mut unfiltered = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "--filter" {
                it.next();
            } else {
                unfiltered.push(a.clone());
            }
        }
        if ours(table, &unfiltered).len() > expected.len() {
            pruned_by_values += 1;
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 16, "only {checked} cases");
    // Most cases filter on value columns only, so Java's smaller plans come from value stats.
    assert!(
        pruned_by_values >= 8,
        "only {pruned_by_values} cases pruned"
    );
}
