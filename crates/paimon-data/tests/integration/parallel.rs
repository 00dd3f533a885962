//! `SplitReader::read_splits`: the same rows in the same order at any parallelism, with or
//! without a memory budget.

use std::sync::Arc;

use arrow::util::display::array_value_to_string;
use arrow_array::RecordBatch;
use paimon_data::SplitReader;
use paimon_io::LocalFileIO;
use paimon_split::DataSplit;

use crate::common::table;

/// Rows in read order (not sorted), `v1|v2|...`.
fn ordered_rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut out = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            let cells: Vec<String> = b
                .columns()
                .iter()
                .map(|c| array_value_to_string(c, r).unwrap())
                .collect();
            out.push(cells.join("|"));
        }
    }
    out
}

fn all_splits(t: &str) -> Vec<DataSplit> {
    let mut names: Vec<_> = std::fs::read_dir(format!("{t}/data_splits"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| paimon_split::decode_split(&std::fs::read(p).unwrap()).unwrap())
        .collect()
}

fn read(
    t: &str,
    splits: &[DataSplit],
    threads: usize,
    limit: Option<usize>,
    budget: Option<usize>,
) -> Vec<String> {
    let mut b = SplitReader::builder(Arc::new(LocalFileIO::new()))
        .with_batch_size(1)
        .with_parallelism(threads);
    if let Some(l) = limit {
        b = b.with_limit(l);
    }
    if let Some(n) = budget {
        b = b.with_memory_budget(n);
    }
    let batches: Vec<RecordBatch> = b
        .build()
        .read_splits(t, splits)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    ordered_rows(&batches)
}

#[test]
fn parallel_read_keeps_plan_order() {
    let t = table("orc", "append_09");
    let splits = all_splits(&t);
    let reader = SplitReader::builder(Arc::new(LocalFileIO::new()))
        .with_batch_size(1)
        .build();
    let mut one_by_one = Vec::new();
    for s in &splits {
        let batches: Vec<RecordBatch> = reader
            .read(&t, s)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        one_by_one.extend(ordered_rows(&batches));
    }
    assert!(one_by_one.len() > 3);
    // A budget of 1 byte: every batch is over it, so only the task being drained moves.
    for budget in [None, Some(1), Some(1 << 20)] {
        for threads in [1, 2, 3, 8] {
            assert_eq!(
                read(&t, &splits, threads, None, budget),
                one_by_one,
                "{threads} threads, budget {budget:?}"
            );
            assert_eq!(
                read(&t, &splits, threads, Some(3), budget),
                one_by_one[..3].to_vec(),
                "{threads} threads, limit 3, budget {budget:?}"
            );
        }
    }
}
