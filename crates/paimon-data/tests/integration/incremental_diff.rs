//! An incremental-diff split Java planned (an `IncrementalSplit` object stream, tags t3 to t6 of
//! the `pk/many_snapshots` fixture) reads Java's rows for that query.

use std::path::PathBuf;

use paimon_split::{decode_any, Split};

use crate::common::{reader, rows};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

#[test]
fn javas_tag_diff_split_reads_javas_rows() {
    let table = fixtures().join("warehouse/pk.db/many_snapshots");
    let table = table.to_string_lossy().into_owned();
    let bytes =
        std::fs::read(fixtures().join("splits/pk_many_snapshots_incremental_t3_t6/split-0000.bin"))
            .unwrap();
    let Split::Incremental(inc) = decode_any(&bytes).unwrap().split else {
        panic!("not an IncrementalSplit")
    };
    // The table is unpartitioned: the bucket directory is `bucket-N` under the table.
    let bucket_path = format!("{table}/bucket-{}", inc.bucket);
    let split = inc.into_data_split(bucket_path);
    assert!(split.is_incremental_diff());
    let batches: Vec<_> = reader()
        .read(&table, &split)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let expected = std::fs::read_to_string(
        fixtures().join("expected/pk/many_snapshots/q-incremental-tags.jsonl"),
    )
    .unwrap();
    let mut want: Vec<String> = expected
        .lines()
        .map(|l| {
            // `{"id":12,"v":"r4-12","round":4}`: no value holds a comma or a quote.
            let cells: Vec<String> = l
                .trim_matches(|c| c == '{' || c == '}')
                .split(',')
                .map(|kv| kv.split_once(':').unwrap().1.trim_matches('"').to_string())
                .collect();
            cells.join("|")
        })
        .collect();
    want.sort();
    assert_eq!(want.len(), 8);
    assert_eq!(rows(&batches), want);
}
