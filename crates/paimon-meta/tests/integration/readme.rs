//! Live files and rows agree with each table's README and snapshot record counts.

use std::collections::BTreeSet;
use std::sync::Arc;

use paimon_meta::Table;

use crate::common;

fn files_rows_dvs(rel: &str, snapshot: i64) -> (usize, i64, usize) {
    let t = common::open(rel);
    let files = t
        .live_files(Some(t.scan().with_snapshot(snapshot)))
        .unwrap();
    let dv_files: BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.deletion_file.as_ref().map(|d| d.path.clone()))
        .collect();
    (
        files.len(),
        files.iter().map(|f| f.file.row_count).sum(),
        dv_files.len(),
    )
}

#[test]
fn append_09_snapshots_follow_the_readme() {
    // snapshot-1: 5 rows in 3 files (p10 b0, p10 b1, p20 b1); snapshot-2 adds 4 rows;
    // snapshot-3 adds 1; snapshot-4 adds 1; snapshot-5 fully compacts p10 bucket 1.
    let rel = "orc/append_09.db/append_09";
    assert_eq!(files_rows_dvs(rel, 1), (3, 5, 0));
    assert_eq!(files_rows_dvs(rel, 2).1, 9);
    assert_eq!(files_rows_dvs(rel, 3).1, 10);
    assert_eq!(files_rows_dvs(rel, 4), (7, 11, 0));
    assert_eq!(files_rows_dvs(rel, 5), (4, 11, 0));
}

#[test]
fn pk_09_data_and_deletion_files_follow_the_readme() {
    let rel = "orc/pk_09.db/pk_09";
    // "snapshot-1-2 (3 data files)", "snapshot-3-4 (4 data files)".
    assert_eq!(files_rows_dvs(rel, 2).0, 3);
    assert_eq!(files_rows_dvs(rel, 4).0, 4);
    // "snapshot-5-6 (5 data files and 2 deletion file)".
    let (files, _, dvs) = files_rows_dvs(rel, 6);
    assert_eq!((files, dvs), (5, 2));
    // "snapshot-7-8 (3 data files and 1 deletion file)".
    let (files, _, dvs) = files_rows_dvs(rel, 8);
    assert_eq!((files, dvs), (3, 1));
}

#[test]
fn pk_dv_table_skips_uncompacted_level0_files() {
    // Snapshots 5 and 6 only commit level-0 files, which DV batch scans do not read: the plan
    // equals the one of compacted snapshot 4 (4 files, DVs for Tony and the old Alice).
    let rel = "orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv";
    assert_eq!(files_rows_dvs(rel, 6), files_rows_dvs(rel, 4));
    let t = common::open(rel);
    let plan = t.scan().plan().unwrap();
    assert_eq!(plan.snapshot_id, Some(6));
    let files: usize = plan.splits.iter().map(|s| s.data_files.len()).sum();
    assert_eq!(files, 4);
    assert!(plan.splits.iter().all(|s| s.raw_convertible));
    let cardinalities: i64 = plan
        .splits
        .iter()
        .flat_map(|s| {
            (0..s.data_files.len()).filter_map(|i| s.deletion_file(i).and_then(|d| d.cardinality))
        })
        .sum();
    assert_eq!(cardinalities, 2, "Tony deleted, Alice updated");
}

/// For every table whose batch scans read all levels of all real buckets, the live files
/// of every snapshot sum to the snapshot's `totalRecordCount`.
#[test]
fn live_rows_equal_total_record_count_everywhere() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for dir in common::all_tables() {
        let rel = common::rel(&dir);
        let t = Table::open(
            Arc::new(paimon_io::LocalFileIO::new()),
            dir.to_str().unwrap(),
        )
        .unwrap();
        let o = t.options();
        if (t.is_primary_key_table() && o.batch_scan_skip_level0()) || o.bucket == -2 {
            continue;
        }
        for s in t.snapshots().unwrap() {
            let Some(total) = s.total_record_count else {
                continue;
            };
            let files = t.live_files(Some(t.scan().with_snapshot(s.id))).unwrap();
            let rows: i64 = files.iter().map(|f| f.file.row_count).sum();
            checked += 1;
            if rows != total {
                failures.push(format!(
                    "{rel} snapshot {}: {rows} live rows, totalRecordCount {total}",
                    s.id
                ));
            }
        }
    }
    assert!(checked > 150, "only {checked} snapshots checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
