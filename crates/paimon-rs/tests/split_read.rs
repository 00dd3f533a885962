//! A planner and a worker in one test: the planner plans a scan of a Java-written fixture and
//! sends split bytes plus read options bytes; the worker reads them with the facade alone
//! (`paimon_rs::read_split`, `SplitRead`) and gets Java's rows (`fixtures/expected`) with the
//! scan's projection, filter and limit applied.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use paimon_rs::arrow_array::{Array, Int32Array, StringArray};
use paimon_rs::{read_split, Catalog, RecordBatch, SplitRead, StreamExt};
use paimon_test_utils::repo;

/// `(id, v)` of Java's rows of `pk/dedup_compacted` with `id < 12`.
fn java_rows_below_12() -> BTreeMap<i32, Option<String>> {
    let text =
        std::fs::read_to_string(repo().join("fixtures/expected/pk/dedup_compacted/latest.jsonl"))
            .unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|r| {
            (
                i32::try_from(r["id"].as_i64().unwrap()).unwrap(),
                r["v"].as_str().map(str::to_string),
            )
        })
        .filter(|(id, _)| *id < 12)
        .collect()
}

fn rows_of(batches: &[RecordBatch]) -> BTreeMap<i32, Option<String>> {
    let mut out = BTreeMap::new();
    for b in batches {
        let names: Vec<_> = b
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["id", "v"], "the projection is the scan's");
        let id = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.insert(id.value(i), (!v.is_null(i)).then(|| v.value(i).to_string()));
        }
    }
    out
}

fn table() -> paimon_rs::Table {
    let wh = repo().join("fixtures/warehouse");
    Catalog::filesystem(wh.to_str().unwrap())
        .unwrap()
        .table("pk.dedup_compacted")
        .unwrap()
}

#[test]
fn a_worker_reads_split_bytes_with_the_planners_read_options() {
    let t = table();
    let scan = t
        .scan()
        .with_projection(["id", "v"])
        .with_filter("id < 12")
        .unwrap();
    let plan = scan.plan().unwrap();
    let options = scan.read_options_bytes().unwrap();
    let path = t.meta().path().to_string();
    let mut batches = Vec::new();
    for split in plan.split_bytes().unwrap() {
        let io = paimon_rs::io::file_io_for(&path).unwrap();
        for b in read_split(io, &path, &split, &options).unwrap() {
            batches.push(b.unwrap());
        }
    }
    let want = java_rows_below_12();
    assert_eq!(want.len(), 8, "ids 3, 5..=11");
    assert_eq!(rows_of(&batches), want);
    // The same rows as the planner's own read.
    assert_eq!(rows_of(&scan.to_arrow().unwrap()), want);
}

#[test]
fn the_limit_travels_and_the_async_read_honours_it() {
    let t = table();
    let scan = t.scan().with_projection(["id", "v"]).with_limit(3);
    let splits = scan.plan().unwrap().split_bytes().unwrap();
    let options = scan.read_options_bytes().unwrap();
    let path = t.meta().path().to_string();
    let io = paimon_rs::io::file_io_for(&path).unwrap();
    let read = SplitRead::from_bytes(io, &path, &options).unwrap();
    assert_eq!(read.options().limit, Some(3));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = rt.block_on(async {
        let s = read.stream_bytes(&splits).unwrap();
        s.map(|b| b.unwrap()).collect().await
    });
    assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 3);
}

#[test]
fn hostile_read_options_and_split_bytes_are_errors() {
    let t = table();
    let path = t.meta().path().to_string();
    let io = || paimon_rs::io::file_io_for(&path).unwrap();
    let split = t.scan().plan().unwrap().split_bytes().unwrap().remove(0);
    let e = read_split(io(), &path, &split, br#"{"version":1,"limt":3}"#).unwrap_err();
    assert!(e.to_string().contains("unknown key 'limt'"), "{e}");
    let e = read_split(
        io(),
        &path,
        &split,
        br#"{"version":1,"projection":["nope"]}"#,
    )
    .map(|_| ())
    .unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
    let e = read_split(io(), &path, b"not a split", b"")
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("split"), "{e}");
}
