//! Every table under `fixtures/warehouse`: each expected file under `fixtures/expected`
//! (latest, every snapshot, tags, branches, and the queries of `fixtures/queries.json`).

use std::path::{Path, PathBuf};

use clap::Parser;
use paimon_cli::compare::diff_rows;
use paimon_cli::read_cmd::{output_fields, read_to_json_lines};
use paimon_cli::scan_args::ScanArgs;

use crate::skips::skip_reason;
use paimon_test_utils::repo;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    scan: ScanArgs,
}

/// (case name, table dir, scan args, expected file)
pub(crate) fn cases() -> Vec<(String, PathBuf, Vec<String>, PathBuf)> {
    let root = repo().join("fixtures");
    let mut out = Vec::new();
    let expected_root = root.join("expected");
    let mut dbs: Vec<_> = std::fs::read_dir(&expected_root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    dbs.sort();
    for db in dbs {
        let dbname = db.file_name().unwrap().to_string_lossy().to_string();
        let mut tables: Vec<_> = std::fs::read_dir(&db)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        tables.sort();
        for t in tables {
            let tname = t.file_name().unwrap().to_string_lossy().to_string();
            let table_dir = root
                .join("warehouse")
                .join(format!("{dbname}.db"))
                .join(&tname);
            let mut files: Vec<PathBuf> = std::fs::read_dir(&t)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            files.sort();
            for f in files {
                let name = f.file_name().unwrap().to_string_lossy().to_string();
                let args: Vec<String> = if f.is_dir() {
                    // branch-B/latest.jsonl
                    let Some(b) = name.strip_prefix("branch-") else {
                        continue;
                    };
                    let case = format!("{dbname}/{tname}/{name}/latest.jsonl");
                    out.push((
                        case,
                        table_dir.clone(),
                        vec!["--branch".into(), b.into()],
                        f.join("latest.jsonl"),
                    ));
                    continue;
                } else if name == "latest.jsonl" {
                    vec![]
                } else if let Some(n) = name
                    .strip_prefix("snapshot-")
                    .and_then(|n| n.strip_suffix(".jsonl"))
                {
                    vec!["--snapshot".into(), n.into()]
                } else if let Some(tag) = name
                    .strip_prefix("tag-")
                    .and_then(|n| n.strip_suffix(".jsonl"))
                {
                    vec!["--tag".into(), tag.into()]
                } else {
                    continue; // q-*.jsonl come from queries.json
                };
                out.push((
                    format!("{dbname}/{tname}/{name}"),
                    table_dir.clone(),
                    args,
                    f,
                ));
            }
        }
    }
    let queries: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("queries.json")).unwrap()).unwrap();
    for q in queries.as_array().unwrap() {
        let table = q["table"].as_str().unwrap();
        let (db, t) = table.split_once('/').unwrap();
        let args: Vec<String> = q["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let expected = q["expected"].as_str().unwrap();
        out.push((
            expected.to_string(),
            root.join("warehouse").join(format!("{db}.db")).join(t),
            args,
            root.join("expected").join(expected),
        ));
    }
    out
}

fn run_case(table: &Path, args: &[String], expected: &Path) -> Result<(), String> {
    let cli = Cli::try_parse_from(std::iter::once("read".to_string()).chain(args.iter().cloned()))
        .map_err(|e| e.to_string())?;
    let table_s = table.to_string_lossy();
    let got = read_to_json_lines(&table_s, &cli.scan).map_err(|e| format!("{e:#}"))?;
    let want: Vec<String> = std::fs::read_to_string(expected)
        .map_err(|e| e.to_string())?
        .lines()
        .map(str::to_string)
        .collect();
    let opened = cli.scan.open(&table_s).map_err(|e| format!("{e:#}"))?;
    let fields =
        output_fields(&opened.schema, opened.select.as_deref()).map_err(|e| e.to_string())?;
    match diff_rows(&want, &got, &fields) {
        None => Ok(()),
        Some(d) => Err(d),
    }
}

#[test]
fn fixture_tables_read_exactly_javas_rows() {
    let cases = cases();
    assert!(cases.len() > 100, "only {} cases found", cases.len());
    let (mut passed, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    let mut unexpected_passes = Vec::new();
    for (case, table, args, expected) in &cases {
        let result = run_case(table, args, expected);
        match (skip_reason(case), result) {
            (None, Ok(())) => passed += 1,
            (None, Err(e)) => failures.push(format!("FAIL {case} {args:?}: {e}")),
            (Some(_), Err(_)) => skipped += 1,
            (Some(_), Ok(())) => unexpected_passes.push(case.clone()),
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    eprintln!(
        "acceptance: {} cases, {passed} passed, {} failed, {skipped} skipped (skips.rs), {} skipped cases now pass",
        cases.len(),
        failures.len(),
        unexpected_passes.len()
    );
    assert!(
        failures.is_empty(),
        "{} acceptance cases failed",
        failures.len()
    );
    assert!(
        unexpected_passes.is_empty(),
        "skipped cases now pass, remove them from skips.rs: {unexpected_passes:?}"
    );
}
