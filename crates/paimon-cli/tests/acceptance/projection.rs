//! Projection pushdown into merge-on-read: for every primary-key table (fixtures
//! `pk.db/*`, `evolution.db/pk_columns` and the paimon-cpp primary-key tables), reading some
//! columns gives the rows of the full read cut to those columns, as multisets.
//!
//! The merge decodes only what it needs for the projected columns (keys, sequence fields,
//! sequence-group fields, ...), so a wrong rule shows up as a projected read that differs from
//! the full one. The full read is checked against Java's rows by the other suites.

use paimon_cli::read_cmd::read_to_json_lines;
use paimon_cli::scan_args::ScanArgs;

use crate::paths::{repo, table_dirs};

/// `rows` (JSON objects) cut to `cols`, each rendered as a JSON array, sorted.
fn cut(rows: &[String], cols: &[String]) -> Result<Vec<String>, String> {
    let mut out = rows
        .iter()
        .map(|r| {
            let v: serde_json::Value = serde_json::from_str(r).map_err(|e| format!("{e}: {r}"))?;
            let cells: Vec<serde_json::Value> = cols
                .iter()
                .map(|c| {
                    v.get(c)
                        .cloned()
                        .ok_or_else(|| format!("row without {c}: {r}"))
                })
                .collect::<Result<_, String>>()?;
            Ok(serde_json::Value::Array(cells).to_string())
        })
        .collect::<Result<Vec<_>, String>>()?;
    out.sort();
    Ok(out)
}

fn read(
    table: &str,
    select: Option<&[String]>,
    filter: Option<&str>,
) -> Result<Vec<String>, String> {
    let scan = ScanArgs {
        select: select.map(|s| s.join(",")),
        filter: filter.map(str::to_string),
        ..Default::default()
    };
    read_to_json_lines(table, &scan).map_err(|e| format!("{e:#}"))
}

/// The projections tried on a table with columns `cols`: each column alone, all columns but
/// the first in reverse order, and the first and last columns swapped.
fn projections(cols: &[String]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = cols.iter().map(|c| vec![c.clone()]).collect();
    if cols.len() > 2 {
        out.push(cols[1..].iter().rev().cloned().collect());
    }
    if cols.len() > 1 {
        out.push(vec![cols[cols.len() - 1].clone(), cols[0].clone()]);
    }
    out
}

/// Checks every projection of `table` (and one with a filter on an unprojected column) against
/// its full read. Returns the number of merged (not raw-convertible, several files) splits, or
/// None when the table is not a primary-key table or its full read fails (other suites report
/// that).
fn check_table(table: &str, failures: &mut Vec<String>) -> Option<usize> {
    let opened = ScanArgs::default().open(table).ok()?;
    if opened.schema.primary_keys.is_empty() {
        return None;
    }
    let plan = opened.scan.plan().ok()?;
    let merged = plan
        .splits
        .iter()
        .filter(|s| !s.raw_convertible && s.data_files.len() > 1)
        .count();
    let cols: Vec<String> = opened
        .schema
        .fields
        .iter()
        .map(|f| f.name.clone())
        .collect();
    let full = read(table, None, None).ok()?;
    for p in projections(&cols) {
        let result = read(table, Some(&p), None).and_then(|got| {
            let (got, want) = (cut(&got, &p)?, cut(&full, &p)?);
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
            failures.push(format!("{table} --select {}: {e}", p.join(",")));
        }
    }
    // The first column, filtered on the last: the filter's column is read for the merge only.
    if cols.len() > 1 {
        let (first, last) = (&cols[..1], &cols[cols.len() - 1]);
        let filter = format!("{last} IS NOT NULL");
        let result = read(table, None, Some(&filter)).and_then(|full| {
            let got = cut(&read(table, Some(first), Some(&filter))?, first)?;
            let want = cut(&full, first)?;
            (got == want)
                .then_some(())
                .ok_or_else(|| format!("{} rows, want {}", got.len(), want.len()))
        });
        if let Err(e) = result {
            failures.push(format!(
                "{table} --select {} --filter '{filter}': {e}",
                first[0]
            ));
        }
    }
    Some(merged)
}

#[test]
fn projected_merge_reads_equal_the_full_read_projected() {
    let fixtures = repo().join("fixtures/warehouse");
    let mut tables = Vec::new();
    table_dirs(&fixtures.join("pk.db"), &mut tables);
    tables.push(fixtures.join("evolution.db/pk_columns"));
    table_dirs(&repo().join("../shared/testdata/paimon-cpp"), &mut tables);
    let mut failures = Vec::new();
    let (mut checked, mut merged_tables) = (0, Vec::new());
    for t in &tables {
        let table = t.to_string_lossy().to_string();
        if let Some(merged) = check_table(&table, &mut failures) {
            checked += 1;
            if merged > 0 {
                merged_tables.push(table);
            }
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    eprintln!(
        "projection: {checked} primary-key tables checked, {} with merged splits, {} failures",
        merged_tables.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} projected reads differ",
        failures.len()
    );
    // The engines whose column needs differ must really have been merged. (Java plans no
    // merged split for the first-row tables: their latest reads are raw-convertible.)
    for name in [
        "pk.db/partial_update",
        "pk.db/aggregation",
        "pk.db/sequence_field",
        "evolution.db/pk_columns",
        "orc/pk_table_partial_update.db/pk_table_partial_update",
    ] {
        assert!(
            merged_tables.iter().any(|t| t.ends_with(name)),
            "{name} has no merged split: {merged_tables:?}"
        );
    }
    assert!(checked > 40, "only {checked} primary-key tables checked");
}

/// A read of no columns (what Ray's `count()` pushes down) gives batches of no columns holding
/// every row of the full read: Java's rows for merge reads of primary-key tables (level-0 runs
/// merged, deletes dropped) and for an append table.
#[test]
fn an_empty_projection_keeps_every_row() {
    use std::sync::Arc;
    for (db, t) in [
        ("pk", "dedup_uncompacted"),
        ("pk", "dedup_mixed_levels"),
        ("pk", "partitioned"),
        ("append", "unaware"),
    ] {
        let dir = repo().join(format!("fixtures/warehouse/{db}.db/{t}"));
        let want = std::fs::read_to_string(
            repo().join(format!("fixtures/expected/{db}/{t}/latest.jsonl")),
        )
        .unwrap()
        .lines()
        .count();
        let path = dir.to_str().unwrap();
        let io: paimon_io::FileIORef = Arc::new(paimon_io::LocalFileIO::new());
        let plan = paimon_meta::Table::open(Arc::clone(&io), path)
            .unwrap()
            .scan()
            .plan()
            .unwrap();
        let reader = paimon_data::SplitReader::builder(io)
            .with_projection(Vec::<String>::new())
            .build();
        let batches = reader
            .read_any_splits(path, &plan.wire_splits())
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        assert!(batches.iter().all(|b| b.num_columns() == 0), "{db}/{t}");
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, want, "{db}/{t}: rows of an empty projection");
    }
}
