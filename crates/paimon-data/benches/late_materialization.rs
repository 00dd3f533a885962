//! Parquet late materialization: a filtered read of a wide generated file (400,000 rows, 4 row
//! groups, 9 columns: a filter column `k` uniform in 0..10000 that no statistics can prune,
//! 4 BIGINT, 3 STRING and a DOUBLE; once with short strings uncompressed, once with 64-char
//! strings compressed with zstd), every column projected, decoded and then filtered exactly,
//! with the predicate pushed into the decoder whenever it can be ("always"), by the default
//! sampling rule ("auto") and not at all ("off"), for filters keeping about 0.1%, 1%, 10% and
//! 100% of the rows. A last block prints, per file and filter, the median time of each mode
//! over the same number of alternating runs and their ratios to "off".
//!
//! Run: `cargo bench -p paimon-data --bench late_materialization`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use paimon_data::format::{
    decode, decode_with_predicate, BatchIter, DecodeRequest, FileFormat, LateMaterialization,
};
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::types::{DataField, DataType, TypeKind};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

const ROWS: usize = 400_000;
const BATCH: usize = 8192;
const PATH: &str = "bench.parquet";

fn fields() -> Vec<DataField> {
    let string = || {
        DataType::nullable(TypeKind::VarChar {
            length: 2_147_483_647,
        })
    };
    let bigint = || DataType::nullable(TypeKind::BigInt);
    vec![
        DataField::new(0, "k", bigint()),
        DataField::new(1, "a", bigint()),
        DataField::new(2, "b", bigint()),
        DataField::new(3, "c", bigint()),
        DataField::new(4, "d", bigint()),
        DataField::new(5, "s1", string()),
        DataField::new(6, "s2", string()),
        DataField::new(7, "s3", string()),
        DataField::new(8, "x", DataType::nullable(TypeKind::Double)),
    ]
}

/// The file: xorshift values, so neither statistics nor dictionaries help; strings of
/// `width` characters; `zstd` compresses it as Paimon does by default.
fn file(width: usize, zstd: bool) -> Bytes {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut cols: Vec<Vec<i64>> = (0..5).map(|_| Vec::with_capacity(ROWS)).collect();
    let mut strs: Vec<Vec<String>> = (0..3).map(|_| Vec::with_capacity(ROWS)).collect();
    let mut x = Vec::with_capacity(ROWS);
    for _ in 0..ROWS {
        cols[0].push((next() % 10_000) as i64);
        for c in cols.iter_mut().skip(1) {
            c.push(next() as i64 >> 8);
        }
        for s in strs.iter_mut() {
            let v = format!("{:016x}", next());
            s.push(v.repeat(width.div_ceil(16))[..width].to_string());
        }
        x.push((next() % 1_000_000) as f64 / 7.0);
    }
    let mut arrays: Vec<(&str, ArrayRef)> = Vec::new();
    for (name, c) in ["k", "a", "b", "c", "d"].into_iter().zip(cols) {
        arrays.push((name, Arc::new(Int64Array::from(c))));
    }
    for (name, s) in ["s1", "s2", "s3"].into_iter().zip(strs) {
        arrays.push((name, Arc::new(StringArray::from(s))));
    }
    arrays.push(("x", Arc::new(Float64Array::from(x))));
    let batch = RecordBatch::try_from_iter(arrays).unwrap();
    let mut props = WriterProperties::builder().set_max_row_group_row_count(Some(ROWS / 4));
    if zstd {
        props = props.set_compression(Compression::ZSTD(ZstdLevel::try_new(1).unwrap()));
    }
    let props = props.build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn request() -> DecodeRequest {
    DecodeRequest {
        columns: fields().into_iter().map(|f| f.name).collect(),
        types: Vec::new(),
        rows: None,
        batch_size: BATCH,
        expected_rows: Some(ROWS as i64),
    }
}

/// Decodes (the predicate offered to the decoder in `mode`, not at all with `None`) and
/// filters exactly; the rows left.
fn read(data: &Bytes, pred: &Predicate, mode: Option<LateMaterialization>) -> usize {
    let f = fields();
    let batches: BatchIter = match mode {
        Some(mode) => decode_with_predicate(
            FileFormat::Parquet,
            PATH,
            data.clone(),
            &request(),
            pred,
            &f,
            mode,
        ),
        None => decode(FileFormat::Parquet, PATH, data.clone(), &request()),
    }
    .unwrap();
    let type_of = |c: &str| f.iter().find(|x| x.name == c).map(|x| x.data_type.clone());
    batches
        .map(|b| {
            paimon_data::filter::filter_batch(pred, &b.unwrap(), &type_of)
                .unwrap()
                .num_rows()
        })
        .sum()
}

/// `k < limit` keeps about `limit / 100` percent of the rows.
fn filters() -> Vec<(&'static str, Predicate)> {
    [("0.1%", 10), ("1%", 100), ("10%", 1000), ("100%", 10_000)]
        .into_iter()
        .map(|(name, limit)| {
            let p = Predicate::leaf("k", LeafOp::Lt, vec![Datum::BigInt(limit)]);
            (name, p)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let files = [
        ("17-char strings, uncompressed", file(17, false)),
        ("64-char strings, zstd", file(64, true)),
    ];
    for (file_name, data) in &files {
        eprintln!("{file_name}: {} bytes, {ROWS} rows", data.len());
        for (name, pred) in filters() {
            let off = read(data, &pred, None);
            for mode in [LateMaterialization::Always, LateMaterialization::Auto] {
                let on = read(data, &pred, Some(mode));
                assert_eq!(
                    off, on,
                    "late materialization {mode:?} changed the rows of {name}"
                );
            }
            let mut g = c.benchmark_group(format!("late_materialization/{file_name}/{name}"));
            g.sample_size(10)
                .warm_up_time(Duration::from_secs(1))
                .measurement_time(Duration::from_secs(2))
                .throughput(Throughput::Elements(ROWS as u64));
            g.bench_function("off", |b| b.iter(|| read(data, &pred, None)));
            g.bench_function("always", |b| {
                b.iter(|| read(data, &pred, Some(LateMaterialization::Always)))
            });
            g.bench_function("auto", |b| {
                b.iter(|| read(data, &pred, Some(LateMaterialization::Auto)))
            });
            g.finish();
        }
    }
    // Ratios measured side by side: runs of the two modes alternate, so load on the machine
    // hits both alike.
    const RUNS: usize = 9;
    for (file_name, data) in &files {
        for (name, pred) in filters() {
            let (mut off, mut always, mut auto) = (Vec::new(), Vec::new(), Vec::new());
            let mut kept = 0;
            for _ in 0..RUNS {
                let t = Instant::now();
                kept = read(data, &pred, None);
                off.push(t.elapsed());
                let t = Instant::now();
                read(data, &pred, Some(LateMaterialization::Always));
                always.push(t.elapsed());
                let t = Instant::now();
                read(data, &pred, Some(LateMaterialization::Auto));
                auto.push(t.elapsed());
            }
            let median = |v: &mut Vec<Duration>| {
                v.sort();
                v[RUNS / 2].as_secs_f64()
            };
            let (off, always, auto) = (median(&mut off), median(&mut always), median(&mut auto));
            println!(
                "late materialization, {file_name}, filter keeping {name} ({kept} rows): \
                 off {:.1} ms, always {:.1} ms ({:.2}x), auto {:.1} ms ({:.2}x)",
                off * 1e3,
                always * 1e3,
                always / off,
                auto * 1e3,
                auto / off
            );
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
