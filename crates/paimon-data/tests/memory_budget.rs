//! The memory budget bounds what a parallel read holds: heap bytes counted by a global
//! allocator while a consumer that stalls after its first batch lets the two workers run as
//! far ahead as they may.
//!
//! A binary of its own because the counting allocator serves the whole process; one test
//! function, so no other test allocates while it measures.
//!
//! Table: an append table written here (8 Parquet files of 100,000 rows: BIGINT id, STRING
//! name of 32 characters, DOUBLE value; zstd; row groups of 16,384 rows, pages of 64 KiB), read
//! as one hand-built split with parallelism 2, with and without a 4 MiB budget.
//!
//! Bound with the budget: the budget, plus what it does not cover (`ReadOptions::memory_pool`):
//! the two open files' bytes (each worker reads its file whole) and [`DECODER_ALLOWANCE`] per
//! worker for the Parquet reader's own state. Without the budget the workers decode every
//! file ahead of the consumer (8 tasks of 13 batches, under the 4 x 2 tasks x 32 batches it
//! allows), so the peak is that of the whole table's decoded rows.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use paimon_data::SplitReader;
use paimon_io::LocalFileIO;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::stats::SimpleStats;
use paimon_split::DataSplit;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use peak_alloc::PeakAlloc;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

const FILES: usize = 8;
const ROWS_PER_FILE: i64 = 100_000;
const BUDGET: usize = 4 << 20;
const THREADS: usize = 2;
/// Heap a worker's Parquet reader keeps besides its file's bytes and the batch it builds: the
/// decompressed page and dictionary page of each of the 3 columns (64 KiB pages here), the
/// file's metadata and the decoders' buffers.
const DECODER_ALLOWANCE: usize = 1 << 20;

const SCHEMA: &str = r#"{
  "version" : 3,
  "id" : 0,
  "fields" : [
    { "id" : 0, "name" : "id", "type" : "BIGINT NOT NULL" },
    { "id" : 1, "name" : "name", "type" : "STRING" },
    { "id" : 2, "name" : "value", "type" : "DOUBLE" }
  ],
  "highestFieldId" : 2,
  "partitionKeys" : [ ],
  "primaryKeys" : [ ],
  "options" : { "file.format" : "parquet" },
  "timeMillis" : 0
}"#;

/// A fresh directory for the table, removed when dropped.
struct TempTable(PathBuf);

impl Drop for TempTable {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_file(path: &Path, first_id: i64) {
    let ids: Vec<i64> = (first_id..first_id + ROWS_PER_FILE).collect();
    let names =
        StringArray::from_iter_values(ids.iter().map(|i| format!("name-{i:012}-abcdefghijklmn")));
    let values = Float64Array::from_iter_values(ids.iter().map(|i| *i as f64 / 7.0));
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("name", Arc::new(names) as ArrayRef),
        ("value", Arc::new(values) as ArrayRef),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(16_384))
        .set_data_page_size_limit(64 << 10)
        .set_dictionary_page_size_limit(64 << 10)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

fn meta(file_name: String, file_size: i64) -> DataFileMeta {
    let empty = paimon_spec::stats::empty_serialized_row();
    DataFileMeta {
        file_name,
        file_size,
        row_count: ROWS_PER_FILE,
        min_key: empty.clone().into(),
        max_key: empty.into(),
        key_stats: SimpleStats::empty(),
        value_stats: SimpleStats::empty(),
        min_sequence_number: 0,
        max_sequence_number: 0,
        schema_id: 0,
        level: 0,
        extra_files: Vec::new(),
        creation_time: None,
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: Some(0),
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
        write_cols_sequences: None,
    }
}

/// Writes the table; returns its directory guard, the split and the largest file's size.
fn table() -> (TempTable, DataSplit, usize) {
    let dir = std::env::temp_dir().join(format!("paimon-memory-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bucket = dir.join("bucket-0");
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::create_dir_all(&bucket).unwrap();
    std::fs::write(dir.join("schema/schema-0"), SCHEMA).unwrap();
    let mut files = Vec::new();
    let mut largest = 0;
    for f in 0..FILES {
        let name = format!("data-{f}.parquet");
        let path = bucket.join(&name);
        write_file(&path, f as i64 * ROWS_PER_FILE);
        let size = std::fs::metadata(&path).unwrap().len();
        largest = largest.max(size as usize);
        files.push(meta(name, size as i64));
    }
    let split = DataSplit {
        snapshot_id: 1,
        partition: paimon_spec::stats::empty_serialized_row(),
        bucket: 0,
        bucket_path: bucket.display().to_string(),
        total_buckets: Some(-1),
        before_files: Vec::new(),
        before_deletion_files: None,
        data_files: files,
        data_deletion_files: None,
        is_streaming: false,
        raw_convertible: true,
    };
    (TempTable(dir), split, largest)
}

/// Blocks until the heap has not changed for 250 ms (the workers are waiting), at most 60 s.
fn wait_for_workers() {
    let start = Instant::now();
    let mut last = HEAP.current_usage();
    let mut still = 0;
    while still < 5 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
        let now = HEAP.current_usage();
        still = if now == last { still + 1 } else { 0 };
        last = now;
    }
}

struct Measured {
    /// Peak heap above what was allocated before the read.
    peak: usize,
    rows: i64,
    id_sum: i64,
}

fn read(table: &TempTable, split: &DataSplit, budget: Option<usize>) -> Measured {
    let mut builder = SplitReader::builder(Arc::new(LocalFileIO::new())).with_parallelism(THREADS);
    if let Some(b) = budget {
        builder = builder.with_memory_budget(b);
    }
    let reader = builder.build();
    let base = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let (mut rows, mut id_sum) = (0i64, 0i64);
    {
        let mut batches = reader
            .read_splits(&table.0.display().to_string(), std::slice::from_ref(split))
            .unwrap();
        let mut count = |b: RecordBatch| {
            rows += b.num_rows() as i64;
            id_sum += b
                .column(0)
                .as_primitive::<Int64Type>()
                .values()
                .iter()
                .sum::<i64>();
        };
        let first = batches.next().unwrap().unwrap();
        // A slow consumer: the workers decode ahead as far as they may.
        wait_for_workers();
        count(first);
        for b in batches {
            count(b.unwrap());
        }
    }
    Measured {
        peak: HEAP.peak_usage().saturating_sub(base),
        rows,
        id_sum,
    }
}

fn mib(n: usize) -> f64 {
    n as f64 / (1 << 20) as f64
}

#[test]
fn a_budget_bounds_the_heap_of_a_parallel_read() {
    let (dir, split, largest_file) = table();
    let total = FILES as i64 * ROWS_PER_FILE;
    let free = read(&dir, &split, None);
    let budgeted = read(&dir, &split, Some(BUDGET));
    let bound = BUDGET + THREADS * (largest_file + DECODER_ALLOWANCE);
    eprintln!(
        "memory budget test: {FILES} files x {ROWS_PER_FILE} rows (largest file {:.2} MiB), \
         {THREADS} threads: peak heap {:.1} MiB without a budget, {:.1} MiB with {:.0} MiB \
         (bound {:.1} MiB)",
        mib(largest_file),
        mib(free.peak),
        mib(budgeted.peak),
        mib(BUDGET),
        mib(bound)
    );
    for m in [&free, &budgeted] {
        assert_eq!(m.rows, total);
        assert_eq!(m.id_sum, total * (total - 1) / 2);
    }
    assert!(
        budgeted.peak <= bound,
        "peak {} bytes over the bound {bound}",
        budgeted.peak
    );
    assert!(
        free.peak > 3 * bound,
        "without a budget the peak ({} bytes) should be far above the budgeted bound {bound}: \
         the test would not show the budget at work",
        free.peak
    );
}
