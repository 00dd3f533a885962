//! Projection by field id ([`SplitReaderBuilder::with_projection_ids`]): a column renamed since
//! a file was written is still found by its id. The rows must be Java's for the same columns
//! selected by name: `fixtures/expected/evolution/columns/q-renamed-readded.jsonl`
//! (`--select c,b2,e --filter "d > 10"` on a table whose `b2` was renamed and `c` dropped and
//! re-added; fixture README).
//!
//! [`SplitReaderBuilder::with_projection_ids`]: paimon_data::SplitReaderBuilder::with_projection_ids

use std::path::PathBuf;
use std::sync::Arc;

use paimon_cli::filter::parse_filter;
use paimon_cli::rows::batch_to_json_rows;
use paimon_data::SplitReader;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

#[test]
fn projection_by_field_ids_reads_javas_rows_for_the_named_columns() {
    let path = fixtures().join("warehouse/evolution.db/columns");
    let path = path.to_str().unwrap();
    let io: paimon_io::FileIORef = Arc::new(paimon_io::LocalFileIO::new());
    let table = paimon_meta::Table::open(io.clone(), path).unwrap();
    let schema = table.schema().clone();
    let id = |name: &str| schema.field(name).unwrap().id;
    let ids = [id("c"), id("b2"), id("e")];
    let filter = parse_filter("d > 10", &schema).unwrap();
    let plan = table.scan().with_filter(filter.clone()).plan().unwrap();
    let reader = SplitReader::builder(io)
        .with_projection_ids(ids)
        .with_filter(filter)
        .build();
    let fields: Vec<_> = ids
        .iter()
        .map(|i| schema.fields.iter().find(|f| f.id == *i).unwrap().clone())
        .collect();
    let mut got = Vec::new();
    for batch in reader.read_splits(path, &plan.splits).unwrap() {
        for row in batch_to_json_rows(&batch.unwrap(), &fields).unwrap() {
            got.push(row.to_string());
        }
    }
    got.sort();
    let expected = fixtures().join("expected/evolution/columns/q-renamed-readded.jsonl");
    let mut want: Vec<String> = std::fs::read_to_string(expected)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap()
                .to_string()
        })
        .collect();
    want.sort();
    assert!(!want.is_empty());
    assert_eq!(got, want);

    // An id the schema does not have is a typed error naming it.
    let reader = SplitReader::builder(Arc::new(paimon_io::LocalFileIO::new()))
        .with_projection_ids([999])
        .build();
    let err = reader.output_schema(path).unwrap_err().to_string();
    assert!(err.contains("field id 999"), "{err}");
}
