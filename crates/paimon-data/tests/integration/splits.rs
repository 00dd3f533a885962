//! Java-serialized splits in `*/data_splits/` read the rows the tables' READMEs list.

use std::sync::Arc;

use paimon_data::SplitReader;
use paimon_io::LocalFileIO;
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};

use crate::common::*;

const TWO_ROADS: &str =
    "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.";
const WHETHER: &str = "Whether I shall turn out to be the hero of my own life.";

fn check(fmt: &str, name: &str, split: &str, expected: &[&str]) {
    let t = table(fmt, name);
    let got = rows(&read_split_file(&reader(), &t, split));
    assert_eq!(got, sorted(expected), "{fmt}/{name}/{split}");
}

#[test]
fn append_09_orc_partitions_and_buckets() {
    check(
        "orc",
        "append_09",
        "data_split-01",
        &["Bob|10|0|12.1", "Emily|10|0|13.1", "Tony|10|0|14.1"],
    );
    check(
        "orc",
        "append_09",
        "data_split-02",
        &["Lucy|20|1|14.1", "Paul|20|1|null"],
    );
    check(
        "orc",
        "append_09",
        "data_split-03",
        &[
            "Alex|10|0|16.1",
            "Bob|10|0|12.1",
            "Bob|10|0|12.1",
            "David|10|0|17.1",
            "Emily|10|0|13.1",
            "Emily|10|0|15.1",
            "Lily|10|0|17.1",
            "Tony|10|0|14.1",
        ],
    );
}

#[test]
fn append_10_orc() {
    check(
        "orc",
        "append_10",
        "data_split-01",
        &["Bob|10|0|12.1", "Emily|10|0|13.1", "Tony|10|0|14.1"],
    );
    check(
        "orc",
        "append_10_stats_dense_store",
        "data_split-01",
        &["Bob|10|0|12.1", "Emily|10|0|13.1", "Tony|10|0|14.1"],
    );
    check(
        "orc",
        "append_10_external_path",
        "data_split-01",
        &[
            "Alice|10|1|11.1",
            "Bob|10|0|12.1",
            "Emily|10|0|13.1",
            "Lucy|20|1|14.1",
            "Tony|10|0|14.1",
        ],
    );
}

#[test]
fn pk_09_raw_convertible_with_deletion_vectors() {
    check(
        "orc",
        "pk_09",
        "data_split-01",
        &["Alice|10|1|11.1", &format!("{TWO_ROADS}|10|1|11.0")],
    );
    check(
        "orc",
        "pk_09",
        "data_split-02",
        &[
            "Alex|10|0|16.1",
            "Bob|10|0|12.1",
            "David|10|0|17.1",
            "Emily|10|0|13.1",
        ],
    );
    check(
        "orc",
        "pk_09",
        "data_split-03",
        &[
            "Alice|10|1|19.1",
            &format!("{TWO_ROADS}|10|1|11.0"),
            &format!("{WHETHER}|10|1|19.1"),
        ],
    );
    check(
        "orc",
        "pk_09",
        "data_split-04",
        &[
            "Alice|10|1|21.1",
            &format!("{TWO_ROADS}|10|1|11.0"),
            &format!("{WHETHER}|10|1|19.1"),
        ],
    );
}

#[test]
fn pk_deletion_vector_index_placement() {
    let name = "pk_dv_index_not_in_data_no_external";
    check(
        "orc",
        name,
        "data_split-01",
        &["Alice|10|1|19.1", &format!("{TWO_ROADS}|10|1|11.0")],
    );
    check(
        "orc",
        name,
        "data_split-02",
        &[
            "Alex|10|0|16.1",
            "Bob|10|0|12.1",
            "David|10|0|17.1",
            "Emily|10|0|13.1",
        ],
    );
    check(
        "orc",
        name,
        "data_split-03",
        &["Lucy|20|1|14.1", "Paul|20|1|18.1"],
    );
    check(
        "orc",
        "pk_table_with_dv_cardinality",
        "data_split-01",
        &[
            "Alex|10|0|16.1",
            "Bob|10|0|12.1",
            "David|10|0|17.1",
            "Emily|10|0|13.1",
            &format!("{WHETHER}|10|0|19.1"),
        ],
    );
}

#[test]
fn pk_external_paths_with_rewrite() {
    let name = "pk_dv_index_in_data_with_external";
    let t = table("orc", name);
    let external = format!("{}/../external", t);
    let r = SplitReader::builder(Arc::new(LocalFileIO::new()))
        .with_path_rewrite("FILE:/tmp/external", external.clone())
        .with_path_rewrite("file:/tmp/external", external)
        .build();
    let got = rows(&read_split_file(&r, &t, "data_split-01"));
    assert_eq!(
        got,
        sorted(&["Alice|10|1|19.1", &format!("{TWO_ROADS}|10|1|11.0")])
    );
    let got = rows(&read_split_file(&r, &t, "data_split-02"));
    assert_eq!(
        got,
        sorted(&[
            "Alex|10|0|16.1",
            "Bob|10|0|12.1",
            "David|10|0|17.1",
            "Emily|10|0|13.1"
        ])
    );
}

#[test]
fn pk_schema_evolution_rename_reorder_add_drop() {
    check(
        "orc",
        "pk_table_with_alter_table",
        "data_split-01",
        &[
            "1|Alex|52|514|518|516|1|519",
            "1|Bob|22|24|null|26|1|null",
            "1|David|62|64|null|66|1|null",
            "1|Emily|32|34|null|36|1|null",
            &format!("1|{WHETHER}|72|74|null|76|1|null"),
        ],
    );
}

#[test]
fn parquet_branches() {
    check(
        "parquet",
        "append_table_with_rt_branch",
        "data_split-0",
        &["20240725|apple|5", "20240725|banana|7"],
    );
    check(
        "parquet",
        "append_table_with_rt_branch",
        "data_split-rt-2",
        &["20240725|apple|4"],
    );
    check(
        "parquet",
        "append_table_with_append_pt_branch",
        "data_split-0",
        &["1|110|null", "1|120|1200"],
    );
}

/// Java `FallbackDataSplit`s of a table with `scan.fallback-branch`: the fallback one (pt=2,
/// planned on branch `test`) holds files of the branch's schema 1, which has `value2` while
/// the main branch's schema 1 does not; its rows are the branch's (README: "Add: 2, 220,
/// 2200"), in the main table's schema.
#[test]
fn fallback_split_reads_the_fallback_branch_schemas() {
    for fmt in ["orc", "parquet"] {
        let name = "append_table_with_append_pt_branch";
        check(fmt, name, "data_split-0", &["1|110|null", "1|120|1200"]);
        check(fmt, name, "data_split-1", &["2|210|null", "2|220|2200"]);
    }
}

#[test]
fn projection_filter_and_limit() {
    let t = table("orc", "append_09");
    let r = SplitReader::builder(Arc::new(LocalFileIO::new()))
        .with_projection(["f3", "f0"])
        .with_filter(Predicate::leaf("f3", LeafOp::Gt, vec![Datum::Double(13.0)]))
        .build();
    let got = rows(&read_split_file(&r, &t, "data_split-03"));
    assert_eq!(
        got,
        sorted(&[
            "13.1|Emily",
            "14.1|Tony",
            "15.1|Emily",
            "16.1|Alex",
            "17.1|David",
            "17.1|Lily"
        ])
    );
    let r = SplitReader::builder(Arc::new(LocalFileIO::new()))
        .with_projection(["f0"])
        .with_limit(3)
        .with_batch_size(2)
        .build();
    let batches = read_split_file(&r, &t, "data_split-03");
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
    assert!(batches.iter().all(|b| b.num_rows() <= 2));
}

#[test]
fn async_stream_matches_blocking_read() {
    use futures::StreamExt;
    let t = table("orc", "append_09");
    let bytes = std::fs::read(format!("{t}/data_splits/data_split-02")).unwrap();
    let split = paimon_split::decode_split(&bytes).unwrap();
    let stream = reader().read_stream(&t, &split);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let batches: Vec<_> = rt.block_on(stream.collect::<Vec<_>>());
    let batches: Vec<_> = batches.into_iter().collect::<Result<_, _>>().unwrap();
    assert_eq!(
        rows(&batches),
        sorted(&["Lucy|20|1|14.1", "Paul|20|1|null"])
    );
}
