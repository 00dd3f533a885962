//! Rows of the `(id INT, v STRING)` tables the catalog and service tests write, as maps from
//! `id` to `v`, from Arrow batches, from the oracle's JSON lines, and as the tests write them.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch, StringArray};
use arrow_schema::SchemaRef;

/// `(id, v)` of `batches`; a null `v` is a panic (the tests write none).
pub fn batch_rows(batches: &[RecordBatch]) -> BTreeMap<i32, String> {
    batch_row_list(batches).into_iter().collect()
}

/// `(id, v)` of the oracle's JSON lines (`{"id": 1, "v": "a"}` a line).
pub fn json_rows(text: &str) -> BTreeMap<i32, String> {
    text.lines().map(json_row).collect()
}

/// The rows `id = from..to` with `v = "<tag>-<id>"`, as the tests write them.
pub fn rows(from: i32, to: i32, tag: &str) -> BTreeMap<i32, String> {
    (from..to).map(|i| (i, format!("{tag}-{i}"))).collect()
}

/// Every `(id, v)` of `batches`, sorted, duplicates kept (a commit landing twice shows).
pub fn batch_row_list(batches: &[RecordBatch]) -> Vec<(i32, String)> {
    let mut out = Vec::new();
    for b in batches {
        let (id, v) = id_v_columns(b);
        for i in 0..b.num_rows() {
            assert!(!v.is_null(i), "row {} has a null v", id.value(i));
            out.push((id.value(i), v.value(i).to_string()));
        }
    }
    out.sort();
    out
}

/// Every `(id, v)` of the oracle's JSON lines, sorted, duplicates kept.
pub fn json_row_list(text: &str) -> Vec<(i32, String)> {
    let mut out: Vec<(i32, String)> = text.lines().map(json_row).collect();
    out.sort();
    out
}

/// [`rows`] as a list.
pub fn row_list(from: i32, to: i32, tag: &str) -> Vec<(i32, String)> {
    rows(from, to, tag).into_iter().collect()
}

/// The batch of [`rows`] in `schema` (an `id INT` and a `v STRING` column, in that order).
pub fn id_v_batch(schema: SchemaRef, from: i32, to: i32, tag: &str) -> RecordBatch {
    let ids: Vec<i32> = (from..to).collect();
    let v: Vec<String> = ids.iter().map(|i| format!("{tag}-{i}")).collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(ids)),
        Arc::new(StringArray::from(v)),
    ];
    RecordBatch::try_new(schema, cols).expect("an (id INT, v STRING) schema")
}

fn id_v_columns(b: &RecordBatch) -> (&Int32Array, &StringArray) {
    let id = b.column_by_name("id").expect("an id column");
    let v = b.column_by_name("v").expect("a v column");
    (
        id.as_any()
            .downcast_ref::<Int32Array>()
            .expect("id is an INT column"),
        v.as_any()
            .downcast_ref::<StringArray>()
            .expect("v is a STRING column"),
    )
}

fn json_row(line: &str) -> (i32, String) {
    let row: serde_json::Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    let id = row["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no id in {line}"));
    let v = row["v"]
        .as_str()
        .unwrap_or_else(|| panic!("no v in {line}"));
    (i32::try_from(id).expect("an INT id"), v.to_string())
}
