//! Reading one large Parquet file under a memory budget holds one row group's column chunks
//! at a time, not the file: heap bytes counted by a global allocator while the batches are
//! consumed and dropped.
//!
//! A binary of its own because the counting allocator serves the whole process; one test
//! function, so no other test allocates while it measures.
//!
//! File: written here, 18,000,000 rows (BIGINT id, STRING name of 40 characters, DOUBLE
//! value), uncompressed and without dictionaries, so it is about 1 GiB on disk (the issue's
//! figure), in row groups of 131,072 rows (about 7.5 MiB). Read with one thread and a 64 MiB
//! budget; the peak must stay under the budget, a sixteenth of the file (reading the file
//! whole could not).

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use paimon_data::SplitReader;
use paimon_io::LocalFileIO;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::stats::SimpleStats;
use paimon_split::DataSplit;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use peak_alloc::PeakAlloc;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

const ROWS: i64 = 18_000_000;
const WRITE_BATCH: i64 = 100_000;
const BUDGET: usize = 64 << 20;

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

struct TempTable(PathBuf);

impl Drop for TempTable {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn batch(first: i64) -> RecordBatch {
    let ids: Vec<i64> = (first..first + WRITE_BATCH).collect();
    let names = StringArray::from_iter_values(
        ids.iter()
            .map(|i| format!("name-{i:012}-abcdefghijklmnopqrstuv")),
    );
    let values = Float64Array::from_iter_values(ids.iter().map(|i| *i as f64 / 7.0));
    RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("name", Arc::new(names) as ArrayRef),
        ("value", Arc::new(values) as ArrayRef),
    ])
    .unwrap()
}

fn table() -> (TempTable, DataSplit, u64) {
    let dir = std::env::temp_dir().join(format!("paimon-large-file-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bucket = dir.join("bucket-0");
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::create_dir_all(&bucket).unwrap();
    std::fs::write(dir.join("schema/schema-0"), SCHEMA).unwrap();
    let path = bucket.join("data-0.parquet");
    let props = WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(Some(131_072))
        .build();
    let file = std::fs::File::create(&path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch(0).schema(), Some(props)).unwrap();
    for first in (0..ROWS).step_by(WRITE_BATCH as usize) {
        w.write(&batch(first)).unwrap();
    }
    w.close().unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let empty = paimon_spec::stats::empty_serialized_row();
    let meta = DataFileMeta {
        file_name: "data-0.parquet".into(),
        file_size: size as i64,
        row_count: ROWS,
        min_key: empty.clone().into(),
        max_key: empty.clone().into(),
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
    };
    let split = DataSplit {
        snapshot_id: 1,
        partition: empty,
        bucket: 0,
        bucket_path: bucket.display().to_string(),
        total_buckets: Some(-1),
        before_files: Vec::new(),
        before_deletion_files: None,
        data_files: vec![meta],
        data_deletion_files: None,
        is_streaming: false,
        raw_convertible: true,
    };
    (TempTable(dir), split, size)
}

fn mib(n: u64) -> f64 {
    n as f64 / (1 << 20) as f64
}

#[test]
fn a_large_file_is_read_under_a_64_mib_budget() {
    let (dir, split, size) = table();
    assert!(
        size > 4 * BUDGET as u64,
        "the file ({size} bytes) should dwarf the budget, or the test shows nothing"
    );
    let reader = SplitReader::builder(Arc::new(LocalFileIO::new()))
        .with_memory_budget(BUDGET)
        .build();
    let base = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let (mut rows, mut id_sum, mut name_bytes) = (0i64, 0i64, 0usize);
    for b in reader.read(&dir.0.display().to_string(), &split).unwrap() {
        let b = b.unwrap();
        rows += b.num_rows() as i64;
        id_sum += b
            .column(0)
            .as_primitive::<Int64Type>()
            .values()
            .iter()
            .sum::<i64>();
        name_bytes += b.column(1).as_string::<i32>().value_data().len();
    }
    let peak = HEAP.peak_usage().saturating_sub(base) as u64;
    eprintln!(
        "large file test: {ROWS} rows, file {:.1} MiB, budget {:.0} MiB: peak heap {:.1} MiB",
        mib(size),
        mib(BUDGET as u64),
        mib(peak)
    );
    assert_eq!(rows, ROWS);
    assert_eq!(id_sum, ROWS * (ROWS - 1) / 2);
    assert_eq!(name_bytes, ROWS as usize * 40);
    assert!(
        peak <= BUDGET as u64,
        "peak {peak} bytes over the budget {BUDGET}"
    );
}
