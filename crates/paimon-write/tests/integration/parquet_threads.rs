//! `ParquetFile` encodes a row group column by column, on the writing thread or on a pool of
//! threads: either way its bytes must be those the parquet crate's `ArrowWriter` writes for
//! the same batches and properties (the file layout Java reads), row group limits included.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema};
use paimon_io::{FileIO, LocalFileIO};
use paimon_write::parquet_file::{writer_properties, ParquetFile, ParquetFormat};
use parquet::arrow::ArrowWriter;

/// 300 batches of 1,000 rows over a flat and a nested column, some nulls, values from `seed`.
fn batches(seed: i64) -> (Arc<Schema>, Vec<RecordBatch>) {
    let inner = Fields::from(vec![
        Field::new("x", DataType::Int32, true),
        Field::new("y", DataType::Utf8, true),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
        Field::new("r", DataType::Struct(inner.clone()), true),
    ]));
    let out = (0..300)
        .map(|b| {
            let ids: Vec<i64> = (0..1000).map(|i| seed + b * 1000 + i).collect();
            let s: Vec<Option<String>> = ids
                .iter()
                .map(|i| (i % 7 != 0).then(|| format!("v{}", i % 250)))
                .collect();
            let x: Vec<Option<i32>> = ids
                .iter()
                .map(|i| (i % 5 != 0).then_some((i % 1000) as i32))
                .collect();
            let y: Vec<Option<String>> = ids.iter().map(|i| Some(format!("y{i}"))).collect();
            let r = StructArray::new(
                inner.clone(),
                vec![
                    Arc::new(Int32Array::from(x)) as ArrayRef,
                    Arc::new(StringArray::from(y)) as ArrayRef,
                ],
                None,
            );
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from(ids)),
                    Arc::new(StringArray::from(s)),
                    Arc::new(r),
                ],
            )
            .unwrap()
        })
        .collect();
    (schema, out)
}

#[test]
fn parquet_files_are_those_arrow_writer_writes_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let io = LocalFileIO::new();
    // 110,000-row row groups: a batch is split across row groups, and the threads' column
    // groups are handed batches 65,536 rows at a time and rebalanced.
    let props = writer_properties("zstd", 1)
        .unwrap()
        .into_builder()
        .set_max_row_group_row_count(Some(110_000))
        .build();
    let (schema, batches) = batches(17);
    let mut expected = Vec::new();
    let mut w = ArrowWriter::try_new(&mut expected, schema.clone(), Some(props.clone())).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    let meta = w.close().unwrap();
    assert_eq!(
        meta.num_row_groups(),
        3,
        "300,000 rows in 110,000-row groups"
    );
    for threads in [1, 2, 3] {
        let path = dir.path().join(format!("t{threads}.parquet"));
        let path = path.to_str().unwrap();
        let format = ParquetFormat::new(props.clone())
            .with_threads(threads)
            .unwrap();
        let mut f =
            ParquetFile::try_new("t", path, io.create(path).unwrap(), schema.clone(), &format)
                .unwrap();
        for b in &batches {
            f.write("t", b).unwrap();
        }
        assert_eq!(f.rows(), 300_000);
        let finished = f.finish("t", &[], &[]).unwrap();
        let written = std::fs::read(path).unwrap();
        assert_eq!(finished.size, written.len() as u64);
        assert!(
            written == expected,
            "{threads} threads: {} bytes written, ArrowWriter wrote {}",
            written.len(),
            expected.len()
        );
    }
}
