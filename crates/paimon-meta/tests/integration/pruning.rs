//! Partition and value-stats pruning, incremental scans, and I/O accounting.

use std::sync::Arc;

use paimon_io::{CountingFileIO, LocalFileIO};
use paimon_meta::Table;
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};

use crate::common;

const APPEND_09: &str = "orc/append_09.db/append_09";

fn rows_and_partitions(t: &Table, filter: Option<Predicate>) -> (i64, Vec<i32>) {
    let mut scan = t.scan();
    if let Some(f) = filter {
        scan = scan.with_filter(f);
    }
    let plan = scan.plan().unwrap();
    let mut parts: Vec<i32> = plan
        .splits
        .iter()
        .map(|s| s.partition_row().unwrap().get_int(0).unwrap())
        .collect();
    parts.sort_unstable();
    parts.dedup();
    (plan.splits.iter().map(|s| s.row_count()).sum(), parts)
}

#[test]
fn partition_filter_keeps_only_matching_partitions() {
    let t = common::open(APPEND_09);
    assert_eq!(rows_and_partitions(&t, None), (11, vec![10, 20]));
    let eq20 = Predicate::leaf("f1", LeafOp::Eq, vec![Datum::Int(20)]);
    assert_eq!(rows_and_partitions(&t, Some(eq20.clone())), (2, vec![20]));
    let not20 = Predicate::Not(Box::new(eq20));
    assert_eq!(rows_and_partitions(&t, Some(not20)), (9, vec![10]));
    let none = Predicate::leaf("f1", LeafOp::Gt, vec![Datum::Int(20)]);
    assert_eq!(rows_and_partitions(&t, Some(none)).0, 0);
    let is_null = Predicate::leaf("f1", LeafOp::IsNull, vec![]);
    assert_eq!(rows_and_partitions(&t, Some(is_null)).0, 0);
}

#[test]
fn value_stats_prune_append_files_without_losing_matches() {
    let t = common::open(APPEND_09);
    // f3 values: 11.1 12.1 13.1 14.1 14.1 15.1 12.1 16.1 null 17.1 17.1; none above 17.5.
    let gt = Predicate::leaf("f3", LeafOp::Gt, vec![Datum::Double(17.5)]);
    assert_eq!(rows_and_partitions(&t, Some(gt)).0, 0);
    // Alex (16.1) lives in the compacted 8-row file of partition 10: it must stay.
    let alex = Predicate::leaf("f3", LeafOp::Eq, vec![Datum::Double(16.1)]);
    let plan = t.scan().with_filter(alex).plan().unwrap();
    assert!(plan
        .splits
        .iter()
        .any(|s| s.data_files.iter().any(|f| f.row_count == 8)));
    // Paul's f3 is null: IS NULL must keep his file.
    let null = Predicate::leaf("f3", LeafOp::IsNull, vec![]);
    assert!(rows_and_partitions(&t, Some(null)).0 >= 1);
}

/// No file of pk_09 holds `f3 > 1e9`, so Java's whole-bucket value filter drops every bucket
/// (`java-oracle.sh plan orc/pk_09.db/pk_09 --filter "f3 > 1000000000.0"` plans no file), while
/// a filter some file may match keeps each bucket whole.
#[test]
fn primary_key_buckets_are_pruned_on_value_columns_as_java_does() {
    let t = common::open("orc/pk_09.db/pk_09");
    let all: usize = t
        .scan()
        .plan()
        .unwrap()
        .splits
        .iter()
        .map(|s| s.data_files.len())
        .sum();
    let planned = |f: Predicate| -> usize {
        t.scan()
            .with_filter(f)
            .plan()
            .unwrap()
            .splits
            .iter()
            .map(|s| s.data_files.len())
            .sum()
    };
    assert_eq!(all, 3);
    assert_eq!(
        planned(Predicate::leaf("f3", LeafOp::Gt, vec![Datum::Double(1e9)])),
        0
    );
    assert_eq!(
        planned(Predicate::leaf("f3", LeafOp::Gt, vec![Datum::Double(-1e9)])),
        all
    );
}

#[test]
fn incremental_scan_reads_delta_files() {
    let t = common::open(APPEND_09);
    // Snapshot 2 added 4 rows and snapshot 3 one row.
    let plan = t.scan().with_incremental(1, 3).plan().unwrap();
    assert_eq!(plan.snapshot_id, Some(3));
    assert_eq!(plan.splits.iter().map(|s| s.row_count()).sum::<i64>(), 5);
    assert!(plan.splits.iter().all(|s| s.is_streaming));
    assert!(t.scan().with_incremental(3, 1).plan().is_err());
}

#[test]
fn planning_reads_only_metadata() {
    let dir = common::testdata().join("orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv");
    let io = Arc::new(CountingFileIO::new(Arc::new(LocalFileIO::new())));
    let t = Table::open(io.clone(), dir.to_str().unwrap()).unwrap();
    io.reset();
    let plan = t.scan().plan().unwrap();
    assert!(!plan.splits.is_empty());
    let reads = io.reads();
    assert!(reads
        .iter()
        .all(|r| !r.path.contains("/bucket-") && !r.path.contains("/index/")));
    assert!(reads.iter().any(|r| r.path.contains("index-manifest-")));
}

#[test]
fn time_travel_by_tag_and_timestamp() {
    let t = common::open("orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv");
    let by_tag = t.scan().with_tag("1").plan().unwrap();
    assert_eq!(by_tag.snapshot_id, Some(1));
    let snaps = t.snapshots().unwrap();
    let s3 = &snaps[2];
    assert_eq!(
        t.scan()
            .with_timestamp_ms(s3.time_millis)
            .plan()
            .unwrap()
            .snapshot_id,
        Some(3)
    );
    assert!(t
        .scan()
        .with_timestamp_ms(0)
        .plan()
        .unwrap()
        .snapshot_id
        .is_none());
    assert!(matches!(
        t.scan().with_snapshot(99).plan(),
        Err(paimon_meta::Error::SnapshotNotFound { id: 99, .. })
    ));
    assert!(matches!(
        t.scan().with_tag("nope").plan(),
        Err(paimon_meta::Error::TagNotFound { .. })
    ));
}

#[test]
fn catalog_lists_databases_and_tables() {
    let cat = paimon_meta::Catalog::new(
        Arc::new(LocalFileIO::new()),
        common::testdata().join("orc").to_str().unwrap(),
    );
    let dbs = cat.list_databases().unwrap();
    assert!(dbs.contains(&"append_09".to_string()));
    assert_eq!(
        cat.list_tables("append_09").unwrap(),
        vec!["append_09".to_string()]
    );
    let t = cat.get_table("append_09", "append_09").unwrap();
    assert_eq!(t.schema().partition_keys, vec!["f1".to_string()]);
    let branch = cat
        .get_table(
            "append_table_with_rt_branch",
            "append_table_with_rt_branch$branch_rt",
        )
        .unwrap();
    assert_eq!(branch.branch(), "rt");
    assert!(branch.is_primary_key_table());
    assert!(cat
        .get_table("append_09", "missing")
        .unwrap_err()
        .is_not_found());
}

#[test]
fn bucket_filter_selects_the_bucket_java_wrote_to() {
    // pk_09 README: Tony (f2 = 0) lives in bucket 1, Alice and Lily (f2 = 1) in bucket 0.
    let t = common::open("orc/pk_09.db/pk_09");
    let buckets = |v: i32| -> Vec<i32> {
        let f = Predicate::leaf("f2", LeafOp::Eq, vec![Datum::Int(v)]);
        let mut b: Vec<i32> = t
            .scan()
            .with_filter(f)
            .plan()
            .unwrap()
            .splits
            .iter()
            .map(|s| s.bucket)
            .collect();
        b.sort_unstable();
        b.dedup();
        b
    };
    assert_eq!(buckets(0), vec![1]);
    assert_eq!(buckets(1), vec![0]);
    let both = Predicate::leaf("f2", LeafOp::In, vec![Datum::Int(0), Datum::Int(1)]);
    let n = t.scan().with_filter(both).plan().unwrap().splits.len();
    assert_eq!(n, t.scan().plan().unwrap().splits.len());
}
