//! Reads filtered through the BTree (`id`) and bitmap (`name`) global indexes pypaimon 2.1
//! built in `fixtures/global-index` return exactly the rows of pypaimon's own full read
//! filtered here (`expected-full-read.jsonl`), and read fewer data-file bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_rs::arrow_array::{Array, Int32Array, Int64Array, StringArray};
use paimon_rs::io::{CountingFileIO, LocalFileIO};
use paimon_rs::{RecordBatch, Table};

type Row = (i64, Option<String>, i32);

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/global-index")
}

/// pypaimon's full read of the table.
fn writer_rows() -> Vec<Row> {
    let text = std::fs::read_to_string(fixture().join("expected-full-read.jsonl")).unwrap();
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_i64().unwrap(),
                v["name"].as_str().map(str::to_string),
                v["k"].as_i64().unwrap() as i32,
            )
        })
        .collect()
}

fn rows_of(batches: &[RecordBatch]) -> Vec<Row> {
    let mut out = Vec::new();
    for b in batches {
        let id = b
            .column_by_name("id")
            .unwrap()
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        let name = b
            .column_by_name("name")
            .unwrap()
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        let k = b
            .column_by_name("k")
            .unwrap()
            .as_any()
            .downcast_ref::<Int32Array>()
            .unwrap();
        for i in 0..b.num_rows() {
            out.push((
                id.value(i),
                (!name.is_null(i)).then(|| name.value(i).to_string()),
                k.value(i),
            ));
        }
    }
    out.sort();
    out
}

/// Our rows for `filter` and the bytes of data files read for them.
fn read(filter: &str) -> (Vec<Row>, u64, usize) {
    let io = Arc::new(CountingFileIO::new(Arc::new(LocalFileIO::new())));
    let path = fixture().join("db.db/t");
    let table = Table::open(io.clone(), path.to_str().unwrap()).unwrap();
    let mut scan = table.scan();
    if !filter.is_empty() {
        scan = scan.with_filter(filter).unwrap();
    }
    let splits = scan.plan().unwrap().splits.len();
    io.reset();
    let rows = rows_of(&scan.to_arrow().unwrap());
    let data_bytes = io
        .reads()
        .iter()
        .filter(|r| r.path.contains("/bucket-0/data-"))
        .map(|r| r.range.end - r.range.start)
        .sum();
    (rows, data_bytes, splits)
}

#[test]
fn indexed_reads_return_the_writers_rows_and_read_less() {
    let all = writer_rows();
    assert_eq!(all.len(), 210);
    let (full, full_bytes, _) = read("");
    assert_eq!(full, all);
    // (filter, rows kept, whether some data file holds none of them and is skipped)
    type Keep = Box<dyn Fn(&Row) -> bool>;
    let cases: Vec<(&str, Keep, bool)> = vec![
        ("id = 42", Box::new(|r| r.0 == 42), true),
        (
            "id IN (5, 120, 1003)",
            Box::new(|r| [5, 120, 1003].contains(&r.0)),
            true,
        ),
        (
            "id >= 190 AND id < 1002",
            Box::new(|r| r.0 >= 190 && r.0 < 1002),
            true,
        ),
        (
            "name = 'n3'",
            Box::new(|r| r.1.as_deref() == Some("n3")),
            false,
        ),
        (
            "name IS NULL OR id = 7",
            Box::new(|r| r.1.is_none() || r.0 == 7),
            false,
        ),
        (
            "id < 60 AND name = 'n1'",
            Box::new(|r| r.0 < 60 && r.1.as_deref() == Some("n1")),
            true,
        ),
    ];
    for (filter, keep, skips) in cases {
        let expected: Vec<Row> = all.iter().filter(|r| keep(r)).cloned().collect();
        assert!(!expected.is_empty(), "{filter}");
        let (rows, bytes, _) = read(filter);
        assert_eq!(rows, expected, "{filter}");
        if skips {
            assert!(
                bytes < full_bytes,
                "{filter}: {bytes} bytes of data files, full scan {full_bytes}"
            );
        } else {
            assert_eq!(bytes, full_bytes, "{filter}");
        }
    }
    // The index cannot answer k: every data file is read, with the same rows as a filter.
    let (rows, bytes, _) = read("k = 3");
    assert_eq!(
        rows,
        all.iter().filter(|r| r.2 == 3).cloned().collect::<Vec<_>>()
    );
    assert_eq!(bytes, full_bytes);
}
