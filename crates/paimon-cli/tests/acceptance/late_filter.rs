//! Filter pushdown into the data files (statistics pruning of Parquet row groups and pages and
//! of ORC stripes, Parquet late materialization): for every fixture and paimon-cpp table, a
//! filtered read gives the rows of the full read that the test's own evaluation of the filter
//! keeps, as multisets.
//!
//! Filters compare integer and string columns with a value taken from the table's own rows
//! (=, >=, < and IS NULL), so they select some rows and not others; the expected rows are
//! computed here from the full read's JSON values (SQL semantics: NULL matches nothing but IS
//! NULL). The full read is checked against Java's rows by the other suites.

use clap::Parser;
use paimon_cli::read_cmd::{read_to_json_lines_with, OutputArgs};
use paimon_cli::scan_args::ScanArgs;
use paimon_spec::types::TypeKind;
use serde_json::Value;

use crate::paths::{repo, table_dirs};

/// The reader options of `paimon read`, parsed as the command line gives them.
#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    output: OutputArgs,
}

/// `table` read with `filter` and `--late-materialization mode`.
fn read(table: &str, filter: Option<&str>, mode: &str) -> Result<Vec<Value>, String> {
    let scan = ScanArgs {
        filter: filter.map(str::to_string),
        ..Default::default()
    };
    let cli =
        Cli::try_parse_from(["read", "--late-materialization", mode]).map_err(|e| e.to_string())?;
    read_to_json_lines_with(table, &scan, Some(&cli.output))
        .map_err(|e| format!("{e:#}"))?
        .iter()
        .map(|r| serde_json::from_str(r).map_err(|e| format!("{e}: {r}")))
        .collect()
}

fn sorted(rows: &[&Value]) -> Vec<String> {
    let mut out: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
    out.sort();
    out
}

/// A comparison the test evaluates itself.
enum Test {
    IntGe(i64),
    IntEq(i64),
    StrEq(String),
    StrLt(String),
    IsNull,
}

impl Test {
    fn holds(&self, v: Option<&Value>) -> bool {
        let v = v.unwrap_or(&Value::Null);
        match self {
            Test::IsNull => v.is_null(),
            Test::IntGe(x) => v.as_i64().is_some_and(|v| v >= *x),
            Test::IntEq(x) => v.as_i64() == Some(*x),
            Test::StrEq(x) => v.as_str() == Some(x.as_str()),
            Test::StrLt(x) => v.as_str().is_some_and(|v| v < x.as_str()),
        }
    }

    fn sql(&self, col: &str) -> String {
        match self {
            Test::IsNull => format!("{col} IS NULL"),
            Test::IntGe(x) => format!("{col} >= {x}"),
            Test::IntEq(x) => format!("{col} = {x}"),
            Test::StrEq(x) => format!("{col} = '{x}'"),
            Test::StrLt(x) => format!("{col} < '{x}'"),
        }
    }
}

/// The filters tried on column `col` of the rows `full`: its median value compared each
/// way, and IS NULL.
fn tests(full: &[Value], col: &str, integer: bool) -> Vec<Test> {
    let mut out = vec![Test::IsNull];
    if integer {
        let mut v: Vec<i64> = full.iter().filter_map(|r| r.get(col)?.as_i64()).collect();
        v.sort_unstable();
        if let Some(m) = v.get(v.len() / 2) {
            out.extend([Test::IntGe(*m), Test::IntEq(*m)]);
        }
    } else {
        let mut v: Vec<&str> = full.iter().filter_map(|r| r.get(col)?.as_str()).collect();
        v.sort_unstable();
        if let Some(m) = v.get(v.len() / 2).filter(|m| !m.contains('\'')) {
            out.extend([Test::StrEq(m.to_string()), Test::StrLt(m.to_string())]);
        }
    }
    out
}

/// Checks the filters on `table`'s integer and string columns; the number of filtered reads,
/// or None when the table's full read fails (other suites report that).
fn check_table(table: &str, mode: &str, failures: &mut Vec<String>) -> Option<usize> {
    let opened = ScanArgs::default().open(table).ok()?;
    let full = read(table, None, "never").ok()?;
    let simple = |n: &str| {
        n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && n.starts_with(|c: char| c.is_ascii_alphabetic())
    };
    let mut reads = 0;
    for f in &opened.schema.fields {
        let integer = match f.data_type.kind {
            TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt => true,
            TypeKind::VarChar { .. } => false,
            _ => continue,
        };
        if !simple(&f.name) {
            continue;
        }
        for t in tests(&full, &f.name, integer) {
            let sql = t.sql(&f.name);
            let want: Vec<&Value> = full.iter().filter(|r| t.holds(r.get(&f.name))).collect();
            reads += 1;
            let result = read(table, Some(&sql), mode).and_then(|got| {
                let (got, want) = (sorted(&got.iter().collect::<Vec<_>>()), sorted(&want));
                (got == want).then_some(()).ok_or_else(|| {
                    format!(
                        "{} rows, want {}: first got {:?}, want {:?}",
                        got.len(),
                        want.len(),
                        got.first(),
                        want.first()
                    )
                })
            });
            if let Err(e) = result {
                failures.push(format!("{table} --filter \"{sql}\": {e}"));
            }
        }
    }
    Some(reads)
}

/// Once with late materialization forced on every Parquet file a filter can be pushed into
/// (`--late-materialization always`: the fixture files are too small for the sampling rule to
/// push many), once with the default rule.
#[test]
fn filtered_reads_equal_the_full_read_filtered() {
    let mut tables = Vec::new();
    table_dirs(&repo().join("fixtures/warehouse"), &mut tables);
    table_dirs(&repo().join("../shared/testdata/paimon-cpp"), &mut tables);
    for mode in ["always", "auto"] {
        let mut failures = Vec::new();
        let (mut checked, mut reads) = (0, 0);
        for t in &tables {
            if let Some(n) = check_table(&t.to_string_lossy(), mode, &mut failures) {
                checked += 1;
                reads += n;
            }
        }
        for f in &failures {
            eprintln!("FAIL ({mode}) {f}");
        }
        eprintln!(
            "late_filter ({mode}): {checked} tables, {reads} filtered reads, {} failures",
            failures.len()
        );
        assert!(
            failures.is_empty(),
            "{} filtered reads differ",
            failures.len()
        );
        assert!(checked > 80, "only {checked} tables checked");
    }
}
