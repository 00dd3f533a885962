//! A larger ORC table of decimals, strings, lists and rows with nulls at different strides,
//! written by [`paimon_write::TableWrite`] into several files of several stripes (a 256 kb
//! target file size; stripes close at 1 MiB of buffered values) and read by Java 1.4.2 as the
//! rows built here.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder};
use arrow_array::{ArrayRef, Decimal128Array, Int32Array, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Fields};

use crate::common::{create_table, data_files, input_batch, read_java, table_write};

const SCHEMA: &str = r#"{"version":3,"id":0,"fields":[
  {"id":0,"name":"id","type":"INT NOT NULL"},
  {"id":1,"name":"d","type":"DECIMAL(20, 4)"},
  {"id":2,"name":"s","type":"STRING"},
  {"id":3,"name":"arr","type":{"type":"ARRAY","element":"BIGINT"}},
  {"id":4,"name":"r","type":{"type":"ROW","fields":[
    {"id":5,"name":"a","type":"INT"},
    {"id":6,"name":"b","type":"STRING"}]}}],
  "highestFieldId":6,"partitionKeys":[],"primaryKeys":[],
  "options":{"bucket":"-1","file.format":"orc","target-file-size":"256 kb"},"timeMillis":0}"#;

const ROWS: i64 = 60_000;

fn unscaled(r: i64) -> i128 {
    i128::from(r) * 1_234_567 - 30_000_000_000
}

/// `unscaled` at scale 4 as Java's `BigDecimal.toString` prints it.
fn decimal_text(v: i128) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    format!("{sign}{}.{:04}", a / 10_000, a % 10_000)
}

fn batch(w: &paimon_write::TableWrite, rows: std::ops::Range<i64>) -> RecordBatch {
    let ids = Int32Array::from_iter_values(rows.clone().map(|r| r as i32));
    let d = Decimal128Array::from_iter(rows.clone().map(|r| (r % 11 != 0).then(|| unscaled(r))))
        .with_precision_and_scale(20, 4)
        .unwrap();
    let s = StringArray::from_iter(rows.clone().map(|r| (r % 13 != 0).then(|| format!("s{r}"))));
    let mut arr = ListBuilder::new(Int64Builder::new());
    for r in rows.clone() {
        if r % 17 == 0 {
            arr.append_null();
        } else {
            for k in 0..r % 5 {
                arr.values().append_value(r + k);
            }
            arr.append(true);
        }
    }
    let a = Int32Array::from_iter_values(rows.clone().map(|r| (r * 2) as i32));
    let b = StringArray::from_iter_values(rows.clone().map(|r| format!("b{}", r % 100)));
    let valid: Vec<bool> = rows.clone().map(|r| r % 19 != 0).collect();
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
    ]);
    let r = StructArray::new(
        fields,
        vec![Arc::new(a) as ArrayRef, Arc::new(b)],
        Some(valid.into()),
    );
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ids),
        Arc::new(d),
        Arc::new(s),
        Arc::new(arr.finish()),
        Arc::new(r),
    ];
    input_batch(w, columns)
}

/// Row `r` as Java's `read-split` prints it.
fn want(r: i64) -> String {
    let d = if r % 11 == 0 {
        "null".to_string()
    } else {
        format!("\"{}\"", decimal_text(unscaled(r)))
    };
    let s = if r % 13 == 0 {
        "null".to_string()
    } else {
        format!("\"s{r}\"")
    };
    let arr = if r % 17 == 0 {
        "null".to_string()
    } else {
        let items: Vec<String> = (0..r % 5).map(|k| (r + k).to_string()).collect();
        format!("[{}]", items.join(","))
    };
    let row = if r % 19 == 0 {
        "null".to_string()
    } else {
        format!(r#"{{"a":{},"b":"b{}"}}"#, r * 2, r % 100)
    };
    format!(r#"{{"id":{r},"d":{d},"s":{s},"arr":{arr},"r":{row}}}"#)
}

#[test]
fn java_reads_a_table_of_many_orc_stripes_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), SCHEMA);
    let mut w = table_write(dir.path(), &schema);
    let mut start = 0;
    while start < ROWS {
        let end = (start + 7_000).min(ROWS);
        w.write(&batch(&w, start..end)).unwrap();
        start = end;
    }
    let messages = w.prepare_commit().unwrap();
    let files = data_files(dir.path());
    assert!(files.len() >= 2, "{files:?}");
    let mut got = read_java(dir.path(), &messages);
    // `--sort` orders the JSON text; compare in id order.
    got.sort_by_key(|l| {
        l.split(&['"', ':', ','][..])
            .nth(3)
            .and_then(|x| x.parse::<i64>().ok())
            .unwrap_or(-1)
    });
    let want: Vec<String> = (0..ROWS).map(want).collect();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
}
