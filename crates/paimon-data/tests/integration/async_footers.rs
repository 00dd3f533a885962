//! `SplitReader::read_async` on files whose opening reads more than the last 64 KiB: a
//! Parquet footer longer than that, a Parquet page index before a footer a filter reads, the
//! stripe footers of an ORC file. The async driver fetches them ahead from what the tail
//! says, so the read makes no blocking call; the rows are checked against the values written.

use std::path::Path;

use arrow_array::RecordBatch;
use paimon_data::ReadOptions;
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use parquet::file::metadata::{KeyValue, ParquetMetaDataReader};

use super::ranged_reads::{
    column_sum, expected_sum, parquet_file, properties, read_async_counted, rows, table_of, Table,
    ROWS, TAIL,
};

fn projection(columns: &[usize]) -> ReadOptions {
    ReadOptions {
        projection: Some(columns.iter().map(|c| format!("c{c}")).collect()),
        ..ReadOptions::default()
    }
}

#[test]
fn a_parquet_footer_longer_than_the_tail_is_fetched_ahead() {
    let pad = KeyValue::new("pad".to_string(), "x".repeat(100_000));
    let file = parquet_file(properties().set_key_value_metadata(Some(vec![pad])).build());
    let n = file.len();
    let footer = u64::from(u32::from_le_bytes(file[n - 8..n - 4].try_into().unwrap())) + 8;
    assert!(footer > TAIL, "footer {footer} fits the tail");
    let t = table_of("async-long-footer", "parquet", &file);
    let (batches, sync, _) = read_async_counted(&t, projection(&[3]));
    assert_eq!(column_sum(&batches, "c3"), expected_sum(3, 0..ROWS));
    assert_eq!(sync, 0, "the read made blocking calls");
}

#[test]
fn a_parquet_page_index_before_the_tail_is_fetched_ahead_for_a_filter() {
    let file = parquet_file(
        properties()
            .set_data_page_row_count_limit(50)
            .set_write_batch_size(50)
            .build(),
    );
    // The page index (every column's column and offset index) starts before the tail.
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&bytes::Bytes::from(file.clone()))
        .unwrap();
    let index_start = meta
        .row_groups()
        .iter()
        .flat_map(|rg| rg.columns())
        .filter_map(|c| c.column_index_offset())
        .min()
        .unwrap() as u64;
    assert!(
        index_start + TAIL < file.len() as u64,
        "the page index at {index_start} lies in the tail of {} bytes",
        file.len()
    );
    let t = table_of("async-page-index", "parquet", &file);
    let from = ROWS - 50;
    let options = ReadOptions {
        predicate: Some(Predicate::leaf(
            "c0",
            LeafOp::GtEq,
            vec![Datum::BigInt(from)],
        )),
        ..projection(&[0, 5])
    };
    let (batches, sync, _) = read_async_counted(&t, options);
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 50);
    assert_eq!(column_sum(&batches, "c5"), expected_sum(5, from..ROWS));
    assert_eq!(sync, 0, "the read made blocking calls");
}

#[test]
fn orc_stripe_footers_are_fetched_ahead() {
    const STRIPE_ROWS: usize = 10_000;
    let batch = rows();
    let mut file = Vec::new();
    let mut w = orc_rust::ArrowWriterBuilder::new(&mut file, batch.schema())
        .try_build()
        .unwrap();
    for s in (0..batch.num_rows()).step_by(STRIPE_ROWS) {
        w.write(&batch.slice(s, STRIPE_ROWS)).unwrap();
        w.flush_stripe().unwrap();
    }
    w.close().unwrap();
    assert!(file.len() as u64 > 10 * TAIL, "{} bytes", file.len());
    let t = table_of("async-orc", "orc", &file);
    // Each stream fetched alone (no coalescing), to count the bytes.
    let options = ReadOptions {
        coalesce_gap: 0,
        ..projection(&[2, 8])
    };
    let (batches, sync, fetched) = read_async_counted(&t, options);
    assert_eq!(column_sum(&batches, "c2"), expected_sum(2, 0..ROWS));
    assert_eq!(column_sum(&batches, "c8"), expected_sum(8, 0..ROWS));
    assert_eq!(sync, 0, "the read made blocking calls");
    // Two of ten equal columns, the stripe footers and the tail: about a fifth of the file.
    assert!(
        fetched < file.len() as u64 / 4,
        "fetched {fetched} of {} bytes",
        file.len()
    );
}

/// Writes a deletion vector of the first `deleted` rows into `dir/name`, and has the split
/// name it at `t/gone/name`, where it is not (the reader then looks for it elsewhere).
fn delete_first_rows(t: &mut Table, dir: &Path, name: &str, deleted: u64) {
    let (frame, length) = paimon_data::deletion_vector::DeletionVector::from_positions(0..deleted)
        .encode(false)
        .unwrap();
    let mut index = vec![paimon_data::deletion_vector::INDEX_FILE_VERSION];
    index.extend_from_slice(&frame);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), &index).unwrap();
    t.split.data_deletion_files = Some(vec![Some(paimon_spec::data_file::DeletionFile {
        path: t.dir.join("gone").join(name).display().to_string(),
        offset: 1,
        length,
        cardinality: Some(deleted as i64),
    })]);
}

/// Reads `t` (columns 0 and 6) through the async path: the rows after the first `deleted`,
/// with no blocking call.
fn assert_async_read_skips_first_rows(t: &Table, deleted: u64) {
    let (batches, sync, _) = read_async_counted(t, projection(&[0, 6]));
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows as u64, ROWS as u64 - deleted);
    assert_eq!(
        column_sum(&batches, "c6"),
        expected_sum(6, deleted as i64..ROWS)
    );
    assert_eq!(sync, 0, "the read made blocking calls");
}

/// A data file at an external path, and a deletion file the split names at a place where it
/// is not but the table's index directory holds it: the reader checks both places for
/// existence, and the driver has staged both answers.
#[test]
fn external_paths_and_moved_deletion_files_are_checked_ahead() {
    let mut t = table_of(
        "async-paths",
        "parquet",
        &parquet_file(properties().build()),
    );
    let external = t.dir.join("elsewhere");
    std::fs::create_dir_all(&external).unwrap();
    let moved = external.join("data-0.parquet");
    std::fs::rename(&t.file, &moved).unwrap();
    t.split.data_files[0].external_path = Some(moved.display().to_string());
    let index = t.dir.join("index");
    delete_first_rows(&mut t, &index, "index-async-0", 1_000);
    assert_async_read_skips_first_rows(&t, 1_000);
}

/// A deletion file the split names at a place where it is not, and which only the bucket
/// directory holds (the reader's last place to look): the driver locates the bucket directory
/// from the staged schema and stages the file there.
#[test]
fn deletion_files_found_only_in_the_bucket_directory_are_fetched_ahead() {
    let mut t = table_of(
        "async-bucket-dv",
        "parquet",
        &parquet_file(properties().build()),
    );
    let bucket = t.file.parent().unwrap().to_path_buf();
    delete_first_rows(&mut t, &bucket, "index-async-1", 250);
    assert_async_read_skips_first_rows(&t, 250);
}
