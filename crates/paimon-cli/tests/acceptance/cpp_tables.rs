//! Every table under `../shared/testdata/paimon-cpp` against Java's rows for it: latest, every
//! snapshot, every branch. Java's rows derive from data that is not ours, so they are computed
//! by `scripts/interop.sh` into the ignored `.cache/interop/expected` and never committed.

use std::path::{Path, PathBuf};

use paimon_cli::compare::diff_rows;
use paimon_cli::read_cmd::{output_fields, read_to_json_lines};
use paimon_cli::scan_args::ScanArgs;

use crate::skips::skip_reason;
use paimon_test_utils::repo;

pub(crate) fn collect(dir: &Path, rel: &str, out: &mut Vec<(String, String, ScanArgs, PathBuf)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            if let Some(b) = name.strip_prefix("branch-") {
                let f = p.join("latest.jsonl");
                if f.exists() {
                    let scan = ScanArgs {
                        branch: Some(b.to_string()),
                        ..Default::default()
                    };
                    out.push((
                        format!("cpp:{rel}/{name}/latest.jsonl"),
                        rel.to_string(),
                        scan,
                        f,
                    ));
                }
            } else {
                collect(&p, format!("{rel}/{name}").trim_start_matches('/'), out);
            }
            continue;
        }
        let scan = if name == "latest.jsonl" {
            ScanArgs::default()
        } else if let Some(n) = name
            .strip_prefix("snapshot-")
            .and_then(|n| n.strip_suffix(".jsonl"))
        {
            ScanArgs {
                snapshot: n.parse().ok(),
                ..Default::default()
            }
        } else {
            continue;
        };
        out.push((format!("cpp:{rel}/{name}"), rel.to_string(), scan, p));
    }
}

#[test]
fn paimon_cpp_tables_read_exactly_javas_rows() {
    let expected_root = repo().join(".cache/interop/expected");
    let data = repo().join("../shared/testdata/paimon-cpp");
    assert!(
        data.exists(),
        "missing {}: tests need ../shared/testdata",
        data.display()
    );
    if std::env::var_os("PAIMON_ACCEPTANCE_NO_JAVA").is_some() && !expected_root.exists() {
        eprintln!("SKIPPED paimon-cpp acceptance: PAIMON_ACCEPTANCE_NO_JAVA is set and Java's rows were not computed");
        return;
    }
    assert!(
        expected_root.exists(),
        "Java's expected rows are missing: run scripts/interop.sh (scripts/test.sh does) to compute {}",
        expected_root.display()
    );
    let mut cases = Vec::new();
    collect(&expected_root, "", &mut cases);
    assert!(
        cases.len() > 100,
        "only {} cases found under {}",
        cases.len(),
        expected_root.display()
    );
    let (mut passed, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    let mut unexpected = Vec::new();
    for (case, rel, scan, expected) in &cases {
        let table = data.join(rel).to_string_lossy().to_string();
        let result = (|| -> Result<(), String> {
            let got = read_to_json_lines(&table, scan).map_err(|e| format!("{e:#}"))?;
            let want: Vec<String> = std::fs::read_to_string(expected)
                .map_err(|e| e.to_string())?
                .lines()
                .map(str::to_string)
                .collect();
            let opened = scan.open(&table).map_err(|e| format!("{e:#}"))?;
            let fields = output_fields(&opened.schema, None).map_err(|e| e.to_string())?;
            diff_rows(&want, &got, &fields).map_or(Ok(()), Err)
        })();
        match (skip_reason(case), result) {
            (None, Ok(())) => passed += 1,
            (None, Err(e)) => failures.push(format!("FAIL {case}: {e}")),
            (Some(_), Err(_)) => skipped += 1,
            (Some(_), Ok(())) => unexpected.push(case.clone()),
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    eprintln!(
        "paimon-cpp acceptance: {} cases, {passed} passed, {} failed, {skipped} skipped (skips.rs), {} skipped cases now pass",
        cases.len(),
        failures.len(),
        unexpected.len()
    );
    assert!(
        failures.is_empty(),
        "{} paimon-cpp cases failed",
        failures.len()
    );
    assert!(
        unexpected.is_empty(),
        "skipped cases now pass, remove them from skips.rs: {unexpected:?}"
    );
}
