//! Decoding Java-written Avro data files (issue 5: "Avro (measure `apache-avro` against
//! `arrow-avro` and pick the faster that reads every table)"), three ways, on the same bytes:
//!
//! * `arrow-avro`: straight to Arrow record batches of 8,192 rows (the decoder paimon-data
//!   uses for Avro data files);
//! * `apache-avro` to its generic `Value` rows only, a lower bound for any reader built on it;
//! * `apache-avro` to `Value` rows, then into Arrow builders, batches of 8,192 rows: the whole
//!   job a reader built on `apache-avro` would have to do.
//!
//! Input: the first 8 data files of the `append_avro` bench table (`scripts/bench.sh` writes
//! it under `.cache/bench/tables-*`; `PAIMON_AVRO_TABLE` points elsewhere): zstd blocks, Java
//! `AvroFileFormat`, columns BIGINT, INT x3, DOUBLE x2, STRING x2, BOOLEAN, TIMESTAMP(3).
//! Without the table the bench says so and measures nothing. Run:
//! `cargo bench -p paimon-data --bench avro_decoders`.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use apache_avro::schema::Schema as AvroSchema;
use apache_avro::types::Value;
use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, StringBuilder,
    TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const BATCH: usize = 8192;

fn table_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PAIMON_AVRO_TABLE") {
        return Some(PathBuf::from(p));
    }
    let cache = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.cache/bench");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cache)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("append_avro")))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.pop()
}

fn avro_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            avro_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "avro")
            && p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("data-"))
        {
            out.push(p);
        }
    }
}

fn inputs() -> Vec<bytes::Bytes> {
    let Some(dir) = table_dir() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    avro_files(&dir, &mut files);
    files.sort();
    files.truncate(8);
    files
        .iter()
        .map(|p| std::fs::read(p).expect("read an Avro data file").into())
        .collect()
}

fn arrow_avro_rows(data: &bytes::Bytes) -> usize {
    arrow_avro::reader::ReaderBuilder::new()
        .with_batch_size(BATCH)
        .build(Cursor::new(data.clone()))
        .expect("arrow-avro reader")
        .map(|b| b.expect("arrow-avro batch").num_rows())
        .sum()
}

fn apache_values(data: &bytes::Bytes) -> usize {
    apache_avro::Reader::new(&data[..])
        .expect("apache-avro reader")
        .fold(0, |n, v| {
            std::hint::black_box(v.expect("apache-avro value"));
            n + 1
        })
}

/// One Arrow builder per column, chosen from the writer schema's non-null union branch.
fn builders(schema: &AvroSchema) -> Vec<Box<dyn ArrayBuilder>> {
    let AvroSchema::Record(record) = schema else {
        panic!("a Paimon Avro data file holds records");
    };
    record
        .fields
        .iter()
        .map(|f| {
            let branch = match &f.schema {
                AvroSchema::Union(u) => u
                    .variants()
                    .iter()
                    .find(|s| !matches!(s, AvroSchema::Null))
                    .expect("a non-null branch"),
                other => other,
            };
            let b: Box<dyn ArrayBuilder> = match branch {
                AvroSchema::Long => Box::new(Int64Builder::with_capacity(BATCH)),
                AvroSchema::Int => Box::new(Int32Builder::with_capacity(BATCH)),
                AvroSchema::Double => Box::new(Float64Builder::with_capacity(BATCH)),
                AvroSchema::String => Box::new(StringBuilder::with_capacity(BATCH, BATCH * 16)),
                AvroSchema::Boolean => Box::new(BooleanBuilder::with_capacity(BATCH)),
                AvroSchema::TimestampMillis => {
                    Box::new(TimestampMillisecondBuilder::with_capacity(BATCH))
                }
                other => panic!("column type {other:?} is not in the bench table"),
            };
            b
        })
        .collect()
}

fn append(builder: &mut dyn ArrayBuilder, value: &Value) {
    let any = builder.as_any_mut();
    let value = match value {
        Value::Union(_, v) => v.as_ref(),
        v => v,
    };
    macro_rules! put {
        ($t:ty, $v:expr) => {
            any.downcast_mut::<$t>()
                .expect("builder type")
                .append_option($v)
        };
    }
    match value {
        Value::Null => {
            if let Some(b) = any.downcast_mut::<Int64Builder>() {
                b.append_null();
            } else if let Some(b) = any.downcast_mut::<Int32Builder>() {
                b.append_null();
            } else if let Some(b) = any.downcast_mut::<Float64Builder>() {
                b.append_null();
            } else if let Some(b) = any.downcast_mut::<StringBuilder>() {
                b.append_null();
            } else if let Some(b) = any.downcast_mut::<BooleanBuilder>() {
                b.append_null();
            } else if let Some(b) = any.downcast_mut::<TimestampMillisecondBuilder>() {
                b.append_null();
            }
        }
        Value::Long(v) => put!(Int64Builder, Some(*v)),
        Value::Int(v) => put!(Int32Builder, Some(*v)),
        Value::Double(v) => put!(Float64Builder, Some(*v)),
        Value::String(v) => put!(StringBuilder, Some(v.as_str())),
        Value::Boolean(v) => put!(BooleanBuilder, Some(*v)),
        Value::TimestampMillis(v) => put!(TimestampMillisecondBuilder, Some(*v)),
        other => panic!("value {other:?} is not in the bench table"),
    }
}

fn apache_to_arrow(data: &bytes::Bytes) -> usize {
    let reader = apache_avro::Reader::new(&data[..]).expect("apache-avro reader");
    let mut cols = builders(reader.writer_schema());
    let mut rows = 0;
    let mut pending = 0;
    let flush = |cols: &mut Vec<Box<dyn ArrayBuilder>>| {
        let arrays: Vec<ArrayRef> = cols.iter_mut().map(|b| b.finish()).collect();
        let batch = RecordBatch::try_from_iter(
            arrays
                .into_iter()
                .enumerate()
                .map(|(i, a)| (format!("c{i}"), a)),
        )
        .expect("batch");
        std::hint::black_box(Arc::new(batch));
    };
    for v in reader {
        let Value::Record(fields) = v.expect("apache-avro value") else {
            panic!("a Paimon Avro data file holds records");
        };
        for (b, (_, value)) in cols.iter_mut().zip(&fields) {
            append(b.as_mut(), value);
        }
        rows += 1;
        pending += 1;
        if pending == BATCH {
            flush(&mut cols);
            pending = 0;
        }
    }
    if pending > 0 {
        flush(&mut cols);
    }
    rows
}

fn decoders(c: &mut Criterion) {
    let files = inputs();
    if files.is_empty() {
        eprintln!(
            "avro_decoders bench: no append_avro table (run scripts/bench.sh, or set \
             PAIMON_AVRO_TABLE); nothing measured"
        );
        return;
    }
    let rows: usize = files.iter().map(arrow_avro_rows).sum();
    // Every decoder must see the same rows, or the comparison means nothing.
    assert_eq!(rows, files.iter().map(apache_values).sum::<usize>());
    assert_eq!(rows, files.iter().map(apache_to_arrow).sum::<usize>());
    eprintln!(
        "avro_decoders bench: {} files, {rows} rows, {} bytes",
        files.len(),
        files.iter().map(|f| f.len()).sum::<usize>()
    );
    let mut group = c.benchmark_group("avro_data_files");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(rows as u64));
    group.bench_function("arrow_avro_to_batches", |b| {
        b.iter(|| files.iter().map(arrow_avro_rows).sum::<usize>())
    });
    group.bench_function("apache_avro_values_only", |b| {
        b.iter(|| files.iter().map(apache_values).sum::<usize>())
    });
    group.bench_function("apache_avro_to_batches", |b| {
        b.iter(|| files.iter().map(apache_to_arrow).sum::<usize>())
    });
    group.finish();
}

criterion_group!(benches, decoders);
criterion_main!(benches);
