//! `--memory-limit`: one pool bounds planning and reading. Every fixture case read on 2 threads
//! within a pool of 16 MiB (the plan held in it while the splits are read) gives Java's rows;
//! within 1 byte, every case that plans files fails with the pool's one-line error.

use std::path::Path;
use std::process::Command;

use clap::Parser;
use paimon_cli::compare::diff_rows;
use paimon_cli::read_cmd::{output_fields, read_to_json_lines_with, OutputArgs};
use paimon_cli::scan_args::ScanArgs;

use crate::skips::skip_reason;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    scan: ScanArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// Reads `table` with the scan `args` on 2 threads within `limit`.
fn read(table: &Path, args: &[String], limit: &str) -> Result<(Cli, Vec<String>), String> {
    let tuning = ["--threads", "2", "--memory-limit", limit].map(String::from);
    let argv = std::iter::once("read".to_string())
        .chain(args.iter().cloned())
        .chain(tuning);
    let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
    assert!(cli.scan.memory_limit.is_some());
    let got = read_to_json_lines_with(&table.to_string_lossy(), &cli.scan, Some(&cli.output))
        .map_err(|e| format!("{e:#}"))?;
    Ok((cli, got))
}

#[test]
fn every_case_reads_javas_rows_within_one_pool_or_names_the_limit() {
    let cases = crate::fixtures::cases();
    assert!(cases.len() > 200, "only {} cases", cases.len());
    let mut failures = Vec::new();
    let (mut passed, mut refused) = (0, 0);
    for (case, table, args, expected) in &cases {
        if skip_reason(case).is_some() {
            continue;
        }
        let want: Vec<String> = std::fs::read_to_string(expected)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        match read(table, args, "16MiB") {
            Ok((cli, got)) => {
                let opened = cli.scan.open(&table.to_string_lossy()).unwrap();
                let fields = output_fields(&opened.schema, opened.select.as_deref()).unwrap();
                match diff_rows(&want, &got, &fields) {
                    None => passed += 1,
                    Some(d) => failures.push(format!("{case} {args:?} 16MiB: {d}")),
                }
            }
            Err(e) => failures.push(format!("{case} {args:?} 16MiB: {e}")),
        }
        match read(table, args, "1") {
            Err(e) if e.starts_with("memory limit of 1 bytes reached while planning ") => {
                assert!(!e.contains('\n'), "{e}");
                refused += 1;
            }
            Ok((_, got)) if got.is_empty() && want.is_empty() => {}
            other => failures.push(format!("{case} {args:?} 1 byte: {other:?}")),
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    eprintln!("memory limit acceptance: {passed} read within 16MiB, {refused} refused at 1 byte");
    assert!(failures.is_empty(), "{} cases failed", failures.len());
    assert!(refused > 100, "{refused}");
}

/// The command itself: exit code 1 and one `error:` line naming the limit, for `plan`,
/// `read` and `read-split`.
#[test]
fn the_command_fails_with_one_line() {
    let table = crate::paths::repo().join("fixtures/warehouse/pk.db/dedup_uncompacted");
    let table = table.to_string_lossy().into_owned();
    let bin = env!("CARGO_BIN_EXE_paimon");
    let dir = tempfile::tempdir().unwrap();
    let splits = dir.path().to_string_lossy().into_owned();
    let ok = Command::new(bin)
        .args([
            "plan",
            &table,
            "--out-dir",
            &splits,
            "--memory-limit",
            "64MiB",
        ])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let split = dir.path().join("split-0000.bin");
    let split = split.to_string_lossy().into_owned();
    for args in [
        vec!["plan", &table, "--memory-limit", "100"],
        vec!["read", &table, "--memory-limit", "100"],
    ] {
        let out = Command::new(bin).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: memory limit of 100 bytes reached while planning "),
            "{args:?}: {err}"
        );
    }
    // A split read within a pool: the rows of the read without one.
    let rows = |extra: &[&str]| {
        let out = Command::new(bin)
            .args([
                "read-split",
                &table,
                &split,
                "--format",
                "null",
                "--threads",
                "2",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(rows(&["--memory-limit", "1KiB"]), rows(&[]));
}
