//! Every shared table plans its latest snapshot, or fails with a listed `Unsupported`.

use std::sync::Arc;

use paimon_meta::{Error, Table};

use crate::common;

/// Tables we cannot plan yet, each with the reason (a typed `Unsupported` is expected).
pub const SKIP: &[(&str, &str)] = &[];

#[test]
fn every_table_plans_its_latest_snapshot() {
    let tables = common::all_tables();
    assert!(
        tables.len() > 100,
        "expected the full paimon-cpp table set, found {}",
        tables.len()
    );
    let mut failures = Vec::new();
    let mut planned = 0;
    for t in &tables {
        let rel = common::rel(t);
        let result = Table::open(Arc::new(paimon_io::LocalFileIO::new()), t.to_str().unwrap())
            .and_then(|table| table.scan().plan());
        let skipped = SKIP.iter().find(|(name, _)| *name == rel);
        match (result, skipped) {
            (Ok(_), None) => planned += 1,
            (Ok(_), Some(_)) => failures.push(format!("{rel}: planned but is in the skip list")),
            (Err(Error::Unsupported { .. }), Some(_)) => {}
            (Err(e), _) => failures.push(format!("{rel}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} tables failed:\n{}",
        failures.len(),
        tables.len(),
        failures.join("\n")
    );
    assert_eq!(planned + SKIP.len(), tables.len());
}

/// Snapshots Java refuses to read, and so do we: main snapshot 2 of the paimon-cpp
/// `append_table_with_append_pt_branch` tables has `value2` while the fallback branch's snapshot
/// before it has not (`java-oracle.sh dump TABLE --snapshot 2`: "Branch main and test does not
/// have the same row type").
const REFUSED: &[(&str, i64, &str)] = &[
    (
        "orc/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch",
        2,
        "row types differ",
    ),
    (
        "parquet/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch",
        2,
        "row types differ",
    ),
];

/// Every snapshot of every table plans too (time travel through all layouts).
#[test]
fn every_snapshot_of_every_table_plans() {
    let mut failures = Vec::new();
    let mut refused = 0;
    let mut count = 0;
    for t in common::all_tables() {
        let rel = common::rel(&t);
        if SKIP.iter().any(|(name, _)| *name == rel) {
            continue;
        }
        let table =
            Table::open(Arc::new(paimon_io::LocalFileIO::new()), t.to_str().unwrap()).unwrap();
        for s in table.snapshots().unwrap() {
            count += 1;
            if let Err(e) = table.scan().with_snapshot(s.id).plan() {
                let expected = REFUSED.iter().any(|(name, id, why)| {
                    *name == rel && *id == s.id && e.to_string().contains(why)
                });
                if expected {
                    refused += 1;
                } else {
                    failures.push(format!("{rel} snapshot {}: {e}", s.id));
                }
            }
        }
    }
    assert!(count > 200, "only {count} snapshots");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        refused,
        REFUSED.len(),
        "a snapshot Java refuses was planned"
    );
}

/// `with_drop_stats(true)` plans the same splits, files and order, with empty value stats.
#[test]
fn drop_stats_plans_the_same_files_without_value_stats() {
    let mut compared = 0;
    for t in common::all_tables() {
        let Ok(table) = Table::open(Arc::new(paimon_io::LocalFileIO::new()), t.to_str().unwrap())
        else {
            continue;
        };
        let (Ok(full), Ok(lean)) = (
            table.scan().plan(),
            table.scan().with_drop_stats(true).plan(),
        ) else {
            continue;
        };
        assert_eq!(full.splits.len(), lean.splits.len(), "{}", t.display());
        for (a, b) in full.splits.iter().zip(&lean.splits) {
            assert_eq!(a.data_files.len(), b.data_files.len(), "{}", t.display());
            for (fa, fb) in a.data_files.iter().zip(&b.data_files) {
                assert_eq!(
                    fb.value_stats,
                    paimon_spec::stats::SimpleStats::empty(),
                    "{}",
                    t.display()
                );
                let mut fa = fa.clone();
                fa.value_stats = paimon_spec::stats::SimpleStats::empty();
                assert_eq!(&fa, fb, "{}", t.display());
            }
            assert_eq!(a.data_deletion_files, b.data_deletion_files);
        }
        compared += 1;
    }
    assert!(compared > 100, "compared {compared} tables");
}
