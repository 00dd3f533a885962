//! Append tables written by [`TableWrite`], read back by paimon-data and by Java; rows kept
//! in the test.

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array,
    RecordBatch, StringArray, TimestampMicrosecondArray,
};
use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::schema::TableSchema;
use paimon_spec::types::DataType;
use paimon_write::{CommitMessage, Error};

use crate::common::{create_table, data_files, read_java, read_ours, table_write};

pub fn schema_json(options: &str, partition_keys: &str) -> String {
    format!(
        r#"{{"version":3,"id":0,"fields":[
        {{"id":0,"name":"id","type":"INT NOT NULL"}},
        {{"id":1,"name":"name","type":"STRING"}},
        {{"id":2,"name":"price","type":"DOUBLE"}},
        {{"id":3,"name":"amount","type":"DECIMAL(12, 2)"}},
        {{"id":4,"name":"dt","type":"DATE"}},
        {{"id":5,"name":"ts","type":"TIMESTAMP(6)"}},
        {{"id":6,"name":"flag","type":"BOOLEAN"}},
        {{"id":7,"name":"tags","type":{{"type":"ARRAY","element":"STRING"}}}},
        {{"id":8,"name":"region","type":"STRING"}}],
        "highestFieldId":8,"partitionKeys":[{partition_keys}],"primaryKeys":[],
        "options":{{{options}}},"timeMillis":0}}"#
    )
}

/// One row kept in the test: its values and the line Java prints for it.
pub struct Row {
    pub id: i32,
    pub name: Option<&'static str>,
    pub price: f64,
    pub amount_cents: i128,
    pub days: i32,
    pub ts_micros: i64,
    pub flag: Option<bool>,
    pub tags: Option<Vec<Option<&'static str>>>,
    pub region: Option<&'static str>,
    pub java: &'static str,
}

pub fn rows() -> Vec<Row> {
    vec![
        Row {
            id: 1,
            name: Some("alpha"),
            price: 1.5,
            amount_cents: 1234,
            days: 19723,
            ts_micros: 1_704_067_200_000_001,
            flag: Some(true),
            tags: Some(vec![Some("a"), None]),
            region: Some("eu"),
            java: r#"{"id":1,"name":"alpha","price":1.5,"amount":"12.34","dt":"2024-01-01","ts":"2024-01-01T00:00:00.000001","flag":true,"tags":["a",null],"region":"eu"}"#,
        },
        Row {
            id: 2,
            name: None,
            price: -0.25,
            amount_cents: -5,
            days: 0,
            ts_micros: -1,
            flag: None,
            tags: None,
            region: Some("us"),
            java: r#"{"id":2,"name":null,"price":-0.25,"amount":"-0.05","dt":"1970-01-01","ts":"1969-12-31T23:59:59.999999","flag":null,"tags":null,"region":"us"}"#,
        },
        Row {
            id: 3,
            name: Some("zz much longer name than sixteen"),
            price: 1e10,
            amount_cents: 99_999_999_999,
            days: -1,
            ts_micros: 0,
            flag: Some(false),
            tags: Some(vec![]),
            region: None,
            java: r#"{"id":3,"name":"zz much longer name than sixteen","price":1.0E10,"amount":"999999999.99","dt":"1969-12-31","ts":"1970-01-01T00:00:00.000000","flag":false,"tags":[],"region":null}"#,
        },
        Row {
            id: 4,
            name: Some(""),
            price: 3.0,
            amount_cents: 0,
            days: 20000,
            ts_micros: 1_000_000,
            flag: Some(true),
            tags: Some(vec![Some("x"), Some("y")]),
            region: Some("eu"),
            java: r#"{"id":4,"name":"","price":3.0,"amount":"0.00","dt":"2024-10-04","ts":"1970-01-01T00:00:01.000000","flag":true,"tags":["x","y"],"region":"eu"}"#,
        },
    ]
}

pub fn batch(schema: &TableSchema, rows: &[Row]) -> RecordBatch {
    let mut tags = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(
        arrow_schema::Field::new("element", arrow_schema::DataType::Utf8, true),
    ));
    for r in rows {
        match &r.tags {
            None => tags.append_null(),
            Some(t) => {
                for v in t {
                    tags.values().append_option(*v);
                }
                tags.append(true);
            }
        }
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.id))),
        Arc::new(StringArray::from_iter(rows.iter().map(|r| r.name))),
        Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.price))),
        Arc::new(
            Decimal128Array::from_iter_values(rows.iter().map(|r| r.amount_cents))
                .with_precision_and_scale(12, 2)
                .unwrap(),
        ),
        Arc::new(Date32Array::from_iter_values(rows.iter().map(|r| r.days))),
        Arc::new(TimestampMicrosecondArray::from_iter_values(
            rows.iter().map(|r| r.ts_micros),
        )),
        Arc::new(BooleanArray::from_iter(rows.iter().map(|r| r.flag))),
        Arc::new(tags.finish()),
        Arc::new(StringArray::from_iter(rows.iter().map(|r| r.region))),
    ];
    let _ = schema;
    let table = tempfile::tempdir().unwrap();
    let w = table_write(table.path(), schema);
    RecordBatch::try_new(w.input_schema().clone(), cols).unwrap()
}

/// The rows kept in this module as one batch.
pub fn rows_batch(schema: &TableSchema) -> RecordBatch {
    batch(schema, &rows())
}

pub fn sorted_java_lines(rows: &[Row]) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(|r| r.java.to_string()).collect();
    v.sort();
    v
}

pub fn ids(batches: &[RecordBatch]) -> Vec<i32> {
    let mut out: Vec<i32> = batches
        .iter()
        .flat_map(|b| {
            let a = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
            a.values().to_vec()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn unaware_bucket_files_read_by_us_and_java() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), &schema_json(r#""bucket":"-1""#, ""));
    let mut w = table_write(dir.path(), &schema);
    let rows = rows();
    w.write(&batch(&schema, &rows)).unwrap();
    let msgs = w.prepare_commit().unwrap();
    assert_eq!(msgs.len(), 1);
    let m = &msgs[0];
    // No total buckets for a bucket-unaware table: Java's committers take the table's bucket
    // option (-1) for an absent one, and pypaimon 2.1's / paimon-rust 0.4's refuse -1.
    assert_eq!((m.bucket, m.total_buckets), (0, None));
    assert_eq!(m.partition, paimon_spec::stats::empty_serialized_row());
    let f = &m.data_increment.new_files[0];
    assert_eq!(f.row_count, 4);
    assert_eq!((f.min_sequence_number, f.max_sequence_number), (0, 3));
    assert_eq!(
        (f.level, f.file_source, f.delete_row_count),
        (0, Some(0), Some(0))
    );
    assert!(f.file_name.starts_with("data-") && f.file_name.ends_with("-0.parquet"));
    let on_disk = std::fs::metadata(dir.path().join("bucket-0").join(&f.file_name)).unwrap();
    assert_eq!(f.file_size as u64, on_disk.len());
    // The nested column has no footer stats under its own name (its leaf is
    // `tags.list.element`), so it knows nothing and Java's dense stats leave it out.
    let kept: Vec<String> = [
        "id", "name", "price", "amount", "dt", "ts", "flag", "region",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(f.value_stats_cols, Some(kept.clone()));
    let types: Vec<DataType> = kept
        .iter()
        .map(|n| {
            schema
                .field(n)
                .unwrap()
                .data_type
                .clone()
                .with_nullable(true)
        })
        .collect();
    let min = BinaryRow::from_serialized(&f.value_stats.min_values)
        .unwrap()
        .to_datums(&types)
        .unwrap();
    let max = BinaryRow::from_serialized(&f.value_stats.max_values)
        .unwrap()
        .to_datums(&types)
        .unwrap();
    assert_eq!(min[0], Datum::Int(1));
    assert_eq!(max[0], Datum::Int(4));
    assert_eq!(min[1], Datum::String(String::new()));
    // "zz much longer name than sixteen" cut to 16 code points, the last one raised.
    assert_eq!(max[1], Datum::String("zz much longer o".into()));
    assert_eq!(min[2], Datum::Double(-0.25));
    assert_eq!(max[2], Datum::Double(1e10));
    assert_eq!(
        (&min[3], &max[3]),
        (
            &Datum::Decimal {
                unscaled: -5,
                precision: 12,
                scale: 2
            },
            &Datum::Decimal {
                unscaled: 99_999_999_999,
                precision: 12,
                scale: 2
            }
        )
    );
    assert_eq!((&min[4], &max[4]), (&Datum::Date(-1), &Datum::Date(20000)));
    assert_eq!(
        (&min[5], &max[5]),
        (
            &Datum::Timestamp {
                millis: -1,
                nanos: 999_000
            },
            &Datum::Timestamp {
                millis: 1_704_067_200_000,
                nanos: 1000
            }
        )
    );
    assert_eq!(
        (&min[6], &max[6]),
        (&Datum::Boolean(false), &Datum::Boolean(true))
    );
    assert_eq!(
        (&min[7], &max[7]),
        (&Datum::String("eu".into()), &Datum::String("us".into()))
    );
    assert_eq!(
        f.value_stats.null_counts.as_deref(),
        Some(
            &[
                Some(0),
                Some(1),
                Some(0),
                Some(0),
                Some(0),
                Some(0),
                Some(1),
                Some(1)
            ][..]
        )
    );

    assert_eq!(ids(&read_ours(dir.path(), &msgs)), vec![1, 2, 3, 4]);
    assert_eq!(read_java(dir.path(), &msgs), sorted_java_lines(&rows));
}

#[test]
fn partitioned_fixed_bucket_files_read_by_java() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &schema_json(r#""bucket":"3","bucket-key":"id""#, r#""region""#),
    );
    let mut w = table_write(dir.path(), &schema);
    let rows = rows();
    w.write(&batch(&schema, &rows)).unwrap();
    let msgs = w.prepare_commit().unwrap();
    // Rows land in the bucket Java's function gives their id, under their partition.
    for m in &msgs {
        assert_eq!(m.total_buckets, Some(3));
        let region = BinaryRow::from_serialized(&m.partition)
            .unwrap()
            .to_datums(&[DataType::string()])
            .unwrap();
        let dir_name = match &region[0] {
            Datum::String(s) => format!("region={s}"),
            _ => "region=__DEFAULT_PARTITION__".to_string(),
        };
        let bucket_dir = dir
            .path()
            .join(dir_name)
            .join(format!("bucket-{}", m.bucket));
        for f in &m.data_increment.new_files {
            assert!(bucket_dir.join(&f.file_name).is_file(), "{}", f.file_name);
        }
    }
    let total: i64 = msgs
        .iter()
        .flat_map(|m| &m.data_increment.new_files)
        .map(|f| f.row_count)
        .sum();
    assert_eq!(total, 4);
    assert_eq!(read_java(dir.path(), &msgs), sorted_java_lines(&rows));
}

/// With two threads, rows wait to be handed to the encoding threads and their size is
/// estimated at the file's average: files still roll near the target size, as on one thread.
#[test]
fn files_roll_near_the_target_size_on_two_threads() {
    let sizes: Vec<Vec<i64>> = [1, 2]
        .into_iter()
        .map(|threads| {
            let (_dir, msgs) = write_rolling("4 kb", threads, 50_000);
            let files = &msgs[0].data_increment.new_files;
            assert_eq!(files.iter().map(|f| f.row_count).sum::<i64>(), 200_000);
            files.iter().map(|f| f.file_size).collect()
        })
        .collect();
    let (one, two) = (&sizes[0], &sizes[1]);
    assert!(one.len() >= 3, "one thread rolled {one:?}");
    // Each full file within a fifth of one thread's typical size.
    let typical = one[0] as f64;
    for s in &two[..two.len() - 1] {
        let r = *s as f64 / typical;
        assert!(
            (0.8..1.25).contains(&r),
            "two threads: {two:?}, one: {one:?}"
        );
    }
    assert!(two.len().abs_diff(one.len()) <= 1, "{two:?} / {one:?}");
}

/// On one thread and on two (where rows wait to be handed to the encoding threads and their
/// size is estimated before the first are encoded).
#[test]
fn files_roll_every_thousand_rows_past_the_target_size() {
    for threads in [1, 2] {
        rolls_every_thousand_rows(threads);
    }
}

/// Writes `copies` times [`rows`] in one batch into a new append table with `target` as its
/// `target-file-size`, on `threads` threads; the table's directory and the messages.
fn write_rolling(
    target: &str,
    threads: usize,
    copies: usize,
) -> (tempfile::TempDir, Vec<CommitMessage>) {
    let dir = tempfile::tempdir().unwrap();
    let options = format!(r#""bucket":"-1","target-file-size":"{target}""#);
    let schema = create_table(dir.path(), &schema_json(&options, ""));
    let mut w = table_write(dir.path(), &schema)
        .with_threads(threads)
        .unwrap();
    let all: Vec<Row> = (0..copies).flat_map(|_| rows()).collect();
    w.write(&batch(&schema, &all)).unwrap();
    let msgs = w.prepare_commit().unwrap();
    (dir, msgs)
}

fn rolls_every_thousand_rows(threads: usize) {
    // 2,500 rows in one batch: files of 1,000, 1,000 and 500 rows.
    let (dir, msgs) = write_rolling("1 b", threads, 625);
    let files = &msgs[0].data_increment.new_files;
    let counts: Vec<i64> = files.iter().map(|f| f.row_count).collect();
    assert_eq!(counts, vec![1000, 1000, 500]);
    let seqs: Vec<(i64, i64)> = files
        .iter()
        .map(|f| (f.min_sequence_number, f.max_sequence_number))
        .collect();
    assert_eq!(seqs, vec![(0, 999), (1000, 1999), (2000, 2499)]);
    assert_eq!(
        read_ours(dir.path(), &msgs)
            .iter()
            .map(|b| b.num_rows())
            .sum::<usize>(),
        2500
    );
}

#[test]
fn restored_sequence_numbers_continue() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), &schema_json(r#""bucket":"-1""#, ""));
    let mut w = table_write(dir.path(), &schema).with_restored_max_sequence_number(
        paimon_spec::stats::empty_serialized_row(),
        0,
        41,
    );
    w.write(&batch(&schema, &rows())).unwrap();
    let msgs = w.prepare_commit().unwrap();
    let f = &msgs[0].data_increment.new_files[0];
    assert_eq!((f.min_sequence_number, f.max_sequence_number), (42, 45));
}

#[test]
fn stats_modes_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &schema_json(
            r#""bucket":"-1","metadata.stats-mode":"none","fields.name.stats-mode":"full","fields.id.stats-mode":"counts""#,
            "",
        ),
    );
    let mut w = table_write(dir.path(), &schema);
    w.write(&batch(&schema, &rows())).unwrap();
    let f = w.prepare_commit().unwrap()[0].data_increment.new_files[0].clone();
    assert_eq!(
        f.value_stats_cols,
        Some(vec!["id".to_string(), "name".to_string()])
    );
    let types = [
        DataType::nullable(paimon_spec::types::TypeKind::Int),
        DataType::string(),
    ];
    let max = BinaryRow::from_serialized(&f.value_stats.max_values)
        .unwrap()
        .to_datums(&types)
        .unwrap();
    // full keeps the whole string; counts keeps no bounds.
    assert_eq!(
        max,
        vec![
            Datum::Null,
            Datum::String("zz much longer name than sixteen".into())
        ]
    );
    assert_eq!(
        f.value_stats.null_counts.as_deref(),
        Some(&[Some(0), Some(1)][..])
    );

    // All columns none: no stats at all, an empty column list.
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &schema_json(r#""metadata.stats-mode":"none""#, ""),
    );
    let mut w = table_write(dir.path(), &schema);
    w.write(&batch(&schema, &rows())).unwrap();
    let f = w.prepare_commit().unwrap()[0].data_increment.new_files[0].clone();
    assert_eq!(f.value_stats_cols, Some(vec![]));
    assert_eq!(f.value_stats.null_counts.as_deref(), Some(&[][..]));
    assert_eq!(
        f.value_stats.min_values,
        paimon_spec::stats::empty_serialized_row()
    );
}

#[test]
fn bad_batches_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), &schema_json(r#""bucket":"-1""#, ""));
    let mut w = table_write(dir.path(), &schema);
    let good = batch(&schema, &rows());
    // A column missing.
    let short = good.project(&[0, 1, 2]).unwrap();
    assert!(matches!(w.write(&short), Err(Error::SchemaMismatch { .. })));
    // A column of another type.
    let mut cols = good.columns().to_vec();
    cols[2] = Arc::new(Int32Array::from(vec![1, 2, 3, 4]));
    let mut fields: Vec<arrow_schema::Field> = good
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields[2] = arrow_schema::Field::new("price", arrow_schema::DataType::Int32, true);
    let wrong =
        RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields.clone())), cols).unwrap();
    let err = w.write(&wrong).unwrap_err();
    assert!(matches!(err, Error::SchemaMismatch { .. }), "{err}");
    assert!(
        err.to_string().contains(dir.path().to_str().unwrap()),
        "{err}"
    );
    // A null id (NOT NULL).
    let mut cols = good.columns().to_vec();
    cols[0] = Arc::new(Int32Array::from(vec![Some(1), None, Some(3), Some(4)]));
    let mut f0 = fields.clone();
    f0[0] = arrow_schema::Field::new("id", arrow_schema::DataType::Int32, true);
    f0[2] = arrow_schema::Field::new("price", arrow_schema::DataType::Float64, true);
    let nulls = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(f0)), cols).unwrap();
    let err = w.write(&nulls).unwrap_err();
    assert!(
        matches!(err, Error::NullValue { ref column, .. } if column == "id"),
        "{err}"
    );
    assert!(w.prepare_commit().unwrap().is_empty());
    assert!(data_files(dir.path()).is_empty());
}

#[test]
fn abort_removes_unhanded_files() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &schema_json(r#""bucket":"-1","target-file-size":"1 b""#, ""),
    );
    let mut w = table_write(dir.path(), &schema);
    let mut all = Vec::new();
    for _ in 0..500 {
        all.extend(rows());
    }
    w.write(&batch(&schema, &all)).unwrap();
    assert!(!data_files(dir.path()).is_empty());
    w.abort();
    assert!(data_files(dir.path()).is_empty());
}

#[test]
fn partition_values_java_cannot_name_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        r#"{"version":3,"id":0,"fields":[
            {"id":0,"name":"id","type":"INT"},
            {"id":1,"name":"p","type":"STRING"},
            {"id":2,"name":"b","type":"BYTES"}],
            "highestFieldId":2,"partitionKeys":["p","b"],"primaryKeys":[],
            "options":{"bucket":"-1"},"timeMillis":0}"#,
    );
    let mut w = table_write(dir.path(), &schema);
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![1, 2])),
        Arc::new(StringArray::from(vec!["x", "y"])),
        Arc::new(arrow_array::BinaryArray::from(vec![
            &b"ok"[..],
            &b"\x00"[..],
        ])),
    ];
    let b = RecordBatch::try_new(w.input_schema().clone(), cols).unwrap();
    let err = w.write(&b).unwrap_err();
    assert!(matches!(err, Error::InvalidPartition { .. }), "{err}");
    assert!(
        err.to_string().contains(dir.path().to_str().unwrap()),
        "{err}"
    );
    assert!(w.prepare_commit().unwrap().is_empty());
    assert!(data_files(dir.path()).is_empty());
}
