//! What merge-on-read costs on top of decoding: generated sorted runs (4 Parquet files of a
//! primary-key table, keys overlapping so that most keys have records in two runs) read
//! decode-only, then decoded and merged with `deduplicate`, and with `aggregation` (sum, max,
//! last_non_null_value). A last line prints each merge's time as a ratio of decode time.
//!
//! `merge_projection` reads a real merge-on-read split through the `SplitReader`: split 0 of
//! `.cache/bench/tables-20000000-5000000/pk_big` (5 overlapping level-0 Parquet files, 1.25M
//! rows, 6 columns; written by `scripts/bench.sh`), planned by Java into
//! `.cache/bench/pk_big-splits` with `scripts/java-oracle.sh plan <pk_big> --out-dir
//! .cache/bench/pk_big-splits`. It reads 2 of the 6 columns (only the key and the projected
//! column are decoded) and all 6 (what every projection decoded before the pushdown), and
//! prints the ratio. Without those files it is skipped.
//!
//! Run: `cargo bench -p paimon-data --bench merge`. To compare against a saved baseline:
//! `cargo bench -p paimon-data --bench merge -- --save-baseline before`, change the code, then
//! `... -- --baseline before`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Float64Array, Int64Array, Int8Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, SchemaRef};
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use paimon_data::merge::{merge_sorted_runs, MergeEngineSpec, MergeOptions, RunLayout, SortedRun};
use paimon_data::SplitReader;
use paimon_io::LocalFileIO;
use paimon_spec::options::CoreOptions;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;

const RUNS: usize = 4;
const KEY_SPACE: i64 = 400_000;
const BATCH: usize = 8192;

/// One run: about half of the key space (a key is in a run with probability 1/2), sorted.
fn run_batch(run: usize) -> RecordBatch {
    let mut state =
        0x9e37_79b9_7f4a_7c15_u64 ^ (run as u64 + 1).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let mut keys = Vec::new();
    for k in 0..KEY_SPACE {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if state & 1 == 0 {
            keys.push(k);
        }
    }
    let n = keys.len();
    let seq: Vec<i64> = (0..n as i64).map(|i| run as i64 * 10_000_000 + i).collect();
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("_KEY_id", Arc::new(Int64Array::from(keys.clone()))),
        ("_SEQUENCE_NUMBER", Arc::new(Int64Array::from(seq))),
        ("_VALUE_KIND", Arc::new(Int8Array::from(vec![0i8; n]))),
        ("id", Arc::new(Int64Array::from(keys.clone()))),
        (
            "a",
            Arc::new(Int64Array::from_iter_values(
                keys.iter().map(|k| k * 3 + run as i64),
            )),
        ),
        (
            "b",
            Arc::new(Float64Array::from_iter_values(
                keys.iter().map(|k| *k as f64 * 0.5 + run as f64),
            )),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter_values(
                keys.iter().map(|k| format!("value-{run}-{k:08}")),
            )),
        ),
    ];
    RecordBatch::try_from_iter(cols).expect("generated batch")
}

fn parquet_bytes(batch: &RecordBatch) -> Bytes {
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), None).expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    Bytes::from(out)
}

fn decode(file: &Bytes) -> SortedRun<ArrowError> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .expect("parquet")
        .with_batch_size(BATCH)
        .build()
        .expect("reader");
    Box::new(reader)
}

struct Setup {
    files: Vec<Bytes>,
    schema: SchemaRef,
    rows: u64,
}

fn engine(setup: &Setup, options: &[(&str, &str)]) -> (RunLayout, MergeEngineSpec) {
    let pk = vec!["id".to_string()];
    let layout = RunLayout::from_schema(&setup.schema, &pk, &[], false).expect("layout");
    let raw: BTreeMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let core = CoreOptions::try_new(&raw).expect("options");
    let fields = layout.value_fields(&setup.schema).expect("fields");
    let spec = MergeEngineSpec::try_new(&core, &pk, &fields).expect("engine");
    (layout, spec)
}

fn decode_only(setup: &Setup) -> usize {
    setup
        .files
        .iter()
        .flat_map(decode)
        .map(|b| b.expect("batch").num_rows())
        .sum()
}

fn decode_and_merge(setup: &Setup, layout: &RunLayout, spec: &MergeEngineSpec) -> usize {
    let runs = setup.files.iter().map(decode).collect();
    let options = MergeOptions::default().with_batch_size(BATCH);
    merge_sorted_runs(runs, &setup.schema, layout.clone(), spec, options)
        .expect("merge")
        .map(|b| b.expect("merged batch").num_rows())
        .sum()
}

fn median_time(mut f: impl FnMut() -> usize) -> Duration {
    let mut times: Vec<Duration> = (0..7)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn bench_merge(c: &mut Criterion) {
    let batches: Vec<RecordBatch> = (0..RUNS).map(run_batch).collect();
    let setup = Setup {
        files: batches.iter().map(parquet_bytes).collect(),
        schema: batches[0].schema(),
        rows: batches.iter().map(|b| b.num_rows() as u64).sum(),
    };
    drop(batches);
    let dedup = engine(&setup, &[]);
    let aggregation = engine(
        &setup,
        &[
            ("merge-engine", "aggregation"),
            ("fields.a.aggregate-function", "sum"),
            ("fields.b.aggregate-function", "max"),
        ],
    );
    let merged_rows = decode_and_merge(&setup, &dedup.0, &dedup.1);

    let mut group = c.benchmark_group("merge");
    group.sample_size(10);
    group.throughput(Throughput::Elements(setup.rows));
    group.bench_function("decode_only", |b| b.iter(|| decode_only(&setup)));
    group.bench_function("decode_merge_deduplicate", |b| {
        b.iter(|| decode_and_merge(&setup, &dedup.0, &dedup.1))
    });
    group.bench_function("decode_merge_aggregation", |b| {
        b.iter(|| decode_and_merge(&setup, &aggregation.0, &aggregation.1))
    });
    group.finish();

    let decode = median_time(|| decode_only(&setup));
    let dedup_t = median_time(|| decode_and_merge(&setup, &dedup.0, &dedup.1));
    let agg_t = median_time(|| decode_and_merge(&setup, &aggregation.0, &aggregation.1));
    println!(
        "merge cost: {} runs, {} input rows -> {merged_rows} keys; decode {decode:.2?}; \
         decode+deduplicate {dedup_t:.2?} ({:.2}x decode); decode+aggregation {agg_t:.2?} ({:.2}x decode)",
        setup.files.len(),
        setup.rows,
        dedup_t.as_secs_f64() / decode.as_secs_f64(),
        agg_t.as_secs_f64() / decode.as_secs_f64(),
    );
}

/// Merged rows of the split in `split` of `table`, read with `projection`.
fn read_split(table: &str, split: &[u8], projection: Option<&[&str]>) -> usize {
    let mut builder = SplitReader::builder(Arc::new(LocalFileIO::new()));
    if let Some(p) = projection {
        builder = builder.with_projection(p.iter().copied());
    }
    builder
        .build()
        .read_bytes(table, split)
        .expect("split")
        .map(|b| b.expect("batch").num_rows())
        .sum()
}

fn bench_projection(c: &mut Criterion) {
    let bench = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.cache/bench");
    let table = bench.join("tables-20000000-5000000/pk_big");
    let split_file = bench.join("pk_big-splits/split-0000.bin");
    let (Ok(table), Ok(split)) = (table.canonicalize(), std::fs::read(&split_file)) else {
        println!(
            "merge_projection skipped: needs {} and {} (see the module docs)",
            table.display(),
            split_file.display()
        );
        return;
    };
    let table = table.to_string_lossy().into_owned();
    let two: &[&str] = &["k", "v1"];
    let all: &[&str] = &["k", "v1", "v2", "d", "s", "ts"];
    let rows = read_split(&table, &split, Some(two));
    assert_eq!(rows, read_split(&table, &split, Some(all)));

    let mut group = c.benchmark_group("merge_projection");
    group.sample_size(10);
    group.bench_function("pk_big_split_2_of_6_columns", |b| {
        b.iter(|| read_split(&table, &split, Some(two)))
    });
    group.bench_function("pk_big_split_all_6_columns", |b| {
        b.iter(|| read_split(&table, &split, Some(all)))
    });
    group.finish();

    let two_t = median_time(|| read_split(&table, &split, Some(two)));
    let all_t = median_time(|| read_split(&table, &split, Some(all)));
    println!(
        "merge projection: pk_big split 0 -> {rows} merged rows; 2 of 6 columns {two_t:.2?}, \
         all 6 columns {all_t:.2?} ({:.2}x of all)",
        two_t.as_secs_f64() / all_t.as_secs_f64(),
    );
}

criterion_group!(benches, bench_merge, bench_projection);
criterion_main!(benches);
