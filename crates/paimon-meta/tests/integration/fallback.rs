//! Tables with `scan.fallback-branch` (Java `FallbackReadFileStoreTable`): which partitions are
//! planned on the fallback branch, and the `isFallback` flag each split carries to its reader.

use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_split::{DataSplit, Split};

use crate::common;

fn file_names(s: &DataSplit) -> Vec<&str> {
    s.data_files.iter().map(|f| f.file_name.as_str()).collect()
}

/// Every batch split Java serialized as a `FallbackDataSplit` into `data-splits/` has a
/// counterpart in our plan of the latest snapshot (same partition, bucket and files) that
/// carries the same `isFallback` flag.
#[test]
fn fallback_flags_match_javas_fallback_data_splits() {
    let mut checked = 0;
    for table_dir in common::all_tables() {
        let Ok(rd) = std::fs::read_dir(table_dir.join("data-splits")) else {
            continue;
        };
        let mut java = Vec::new();
        for e in rd.flatten() {
            let bytes = std::fs::read(e.path()).unwrap();
            let decoded = paimon_split::decode_any(&bytes).unwrap();
            if let Split::FallbackData { split, is_fallback } = decoded.split {
                if !split.is_streaming {
                    java.push((
                        e.file_name().to_string_lossy().into_owned(),
                        split,
                        is_fallback,
                    ));
                }
            }
        }
        if java.is_empty() {
            continue;
        }
        let rel = common::rel(&table_dir);
        let plan = common::open(&rel).scan().plan().unwrap();
        let ours = plan.wire_splits();
        for (name, split, is_fallback) in java {
            let found = ours.iter().find_map(|s| match s {
                Split::FallbackData {
                    split: o,
                    is_fallback,
                } if o.partition == split.partition
                    && o.bucket == split.bucket
                    && file_names(o) == file_names(&split) =>
                {
                    Some(*is_fallback)
                }
                _ => None,
            });
            assert_eq!(
                found,
                Some(is_fallback),
                "{rel}/data-splits/{name}: Java isFallback={is_fallback}, ours {found:?}"
            );
            checked += 1;
        }
    }
    // append_table_with_append_pt_branch (2 splits) and append_table_with_rt_branch (3), in
    // ORC and Parquet.
    assert_eq!(checked, 10);
}

/// A partition of the main branch stays the main branch's when a data filter prunes all its
/// files: Java's `FallbackReadScan` lists the main partitions with the partition conjuncts
/// only. `java-oracle.sh plan <table> --filter "amount > 100"` plans no split at all here
/// (Java also prunes the fallback primary-key buckets by value stats); in particular none of
/// dt=20240725, whose main file (amounts 5 and 7) the filter prunes and whose fallback
/// primary-key file (amount 4) the filter cannot prune by key stats.
#[test]
fn data_filter_never_moves_a_main_partition_to_the_fallback_branch() {
    for fmt in ["orc", "parquet"] {
        let rel = format!("{fmt}/append_table_with_rt_branch.db/append_table_with_rt_branch");
        let table = common::open(&rel);
        let filter = Predicate::leaf("amount", LeafOp::Gt, vec![Datum::Int(100)]);
        let plan = table.scan().with_filter(filter).plan().unwrap();
        let partitions: Vec<String> = plan
            .splits
            .iter()
            .map(|s| {
                let row = s.partition_row().unwrap();
                let types = [paimon_spec::types::DataType::string()];
                format!("{:?}", row.to_datums(&types).unwrap())
            })
            .collect();
        assert!(
            partitions.iter().all(|p| !p.contains("20240725")),
            "{rel}: {partitions:?}"
        );
        assert!(
            plan.fallback.as_ref().unwrap().iter().all(|f| *f),
            "{rel}: only fallback splits can remain"
        );
    }
}
