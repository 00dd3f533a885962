//! Every case of the other acceptance tests read again on 2 threads within a small memory
//! budget (`--threads 2 --memory-budget ...`), against the same Java rows: the budget changes
//! batch sizes (down to one row) and how far the threads run ahead, never the rows.
//!
//! Budgets: `1` byte (every batch is over the budget: the task being drained may still have
//! one waiting, one row per batch) and `16KiB` (batches of a few rows, merges reading each
//! sorted run in smaller batches than the merged output).

use std::path::{Path, PathBuf};

use clap::Parser;
use paimon_cli::compare::diff_rows;
use paimon_cli::read_cmd::{output_fields, read_to_json_lines_with, OutputArgs};
use paimon_cli::scan_args::ScanArgs;

use crate::paths::repo;
use crate::skips::skip_reason;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    scan: ScanArgs,
    #[command(flatten)]
    output: OutputArgs,
}

const BUDGETS: [&str; 2] = ["1", "16KiB"];

/// Reads `table` with the scan `args` plus 2 threads and `budget`, compared with `expected`.
fn run(table: &Path, args: &[String], budget: &str, expected: &Path) -> Result<(), String> {
    let tuning = ["--threads", "2", "--memory-budget", budget].map(String::from);
    let argv = std::iter::once("read".to_string())
        .chain(args.iter().cloned())
        .chain(tuning);
    let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
    assert_eq!(cli.output.threads, Some(2));
    assert!(cli.output.memory_budget.is_some());
    let table = table.to_string_lossy();
    let got = read_to_json_lines_with(&table, &cli.scan, Some(&cli.output))
        .map_err(|e| format!("{e:#}"))?;
    let want: Vec<String> = std::fs::read_to_string(expected)
        .map_err(|e| e.to_string())?
        .lines()
        .map(str::to_string)
        .collect();
    let opened = cli.scan.open(&table).map_err(|e| format!("{e:#}"))?;
    let fields =
        output_fields(&opened.schema, opened.select.as_deref()).map_err(|e| e.to_string())?;
    diff_rows(&want, &got, &fields).map_or(Ok(()), Err)
}

/// The scan arguments of a paimon-cpp case (`crate::cpp_tables` builds them as values).
fn cpp_args(scan: &ScanArgs) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(b) = &scan.branch {
        args.extend(["--branch".to_string(), b.clone()]);
    }
    if let Some(n) = scan.snapshot {
        args.extend(["--snapshot".to_string(), n.to_string()]);
    }
    args
}

#[test]
fn every_case_reads_javas_rows_within_a_memory_budget() {
    let mut cases: Vec<(String, PathBuf, Vec<String>, PathBuf)> = crate::fixtures::cases();
    let expected_root = repo().join(".cache/interop/expected");
    if expected_root.exists() {
        let data = repo().join("../shared/testdata/paimon-cpp");
        let mut cpp = Vec::new();
        crate::cpp_tables::collect(&expected_root, "", &mut cpp);
        cases.extend(
            cpp.into_iter()
                .map(|(case, rel, scan, f)| (case, data.join(rel), cpp_args(&scan), f)),
        );
    } else {
        eprintln!("memory budget acceptance: no Java rows for the paimon-cpp tables (run scripts/interop.sh)");
    }
    assert!(cases.len() > 200, "only {} cases", cases.len());
    let mut failures = Vec::new();
    let mut passed = 0;
    for (case, table, args, expected) in &cases {
        if skip_reason(case).is_some() {
            continue;
        }
        for budget in BUDGETS {
            match run(table, args, budget, expected) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("FAIL {case} {args:?} budget {budget}: {e}")),
            }
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    eprintln!(
        "memory budget acceptance: {} cases x {} budgets, {passed} passed, {} failed",
        cases.len(),
        BUDGETS.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{} reads failed", failures.len());
}
