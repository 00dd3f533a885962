//! Avro data files (`file.format = avro`): append and primary-key tables written by
//! [`paimon_write::TableWrite`], read back by Java 1.4.2 and by paimon-data; rows and
//! statistics kept in the test.

use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::types::DataType;
use paimon_write::Error;

use crate::append::{batch, ids, rows, schema_json, sorted_java_lines};
use crate::common::{create_table, data_files, read_java, read_ours, table_write};
use crate::pk::{expected_dedup, pk_schema, updates};

#[test]
fn append_files_read_by_us_and_java_with_collected_stats() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &schema_json(r#""bucket":"-1","file.format":"avro""#, ""),
    );
    let mut w = table_write(dir.path(), &schema);
    let rows = rows();
    w.write(&batch(&schema, &rows)).unwrap();
    let msgs = w.prepare_commit().unwrap();
    let f = &msgs[0].data_increment.new_files[0];
    assert!(f.file_name.starts_with("data-") && f.file_name.ends_with("-0.avro"));
    let on_disk = std::fs::read(dir.path().join("bucket-0").join(&f.file_name)).unwrap();
    assert_eq!(f.file_size as u64, on_disk.len() as u64);
    assert_eq!(&on_disk[..4], b"Obj\x01");
    assert_eq!(
        (f.row_count, f.min_sequence_number, f.max_sequence_number),
        (4, 0, 3)
    );
    // Collected row by row, as Java's `SimpleStatsCollector`: every column counts its nulls,
    // so none is left out (the array column has a null count and no bounds).
    assert_eq!(f.value_stats_cols, None);
    let types: Vec<DataType> = schema
        .fields
        .iter()
        .map(|f| f.data_type.clone().with_nullable(true))
        .collect();
    let min = BinaryRow::from_serialized(&f.value_stats.min_values)
        .unwrap()
        .to_datums(&types)
        .unwrap();
    let max = BinaryRow::from_serialized(&f.value_stats.max_values)
        .unwrap()
        .to_datums(&types)
        .unwrap();
    assert_eq!((&min[0], &max[0]), (&Datum::Int(1), &Datum::Int(4)));
    assert_eq!(min[1], Datum::String(String::new()));
    assert_eq!(max[1], Datum::String("zz much longer o".into()));
    assert_eq!(
        (&min[2], &max[2]),
        (&Datum::Double(-0.25), &Datum::Double(1e10))
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
    assert_eq!((&min[7], &max[7]), (&Datum::Null, &Datum::Null));
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
                Some(1),
                Some(1)
            ][..]
        )
    );
    assert_eq!(ids(&read_ours(dir.path(), &msgs)), vec![1, 2, 3, 4]);
    assert_eq!(read_java(dir.path(), &msgs), sorted_java_lines(&rows));
}

#[test]
fn primary_key_files_merged_by_java() {
    for compression in ["zstd", "snappy", "none"] {
        let dir = tempfile::tempdir().unwrap();
        let schema = create_table(
            dir.path(),
            &pk_schema(&format!(
                r#""bucket":"1","file.format":"avro","file.compression":"{compression}","write-buffer-size":"1 b""#
            )),
        );
        let mut w = table_write(dir.path(), &schema);
        w.write(&batch(&schema, &rows())).unwrap();
        let (u, kinds) = updates();
        w.write_with_row_kinds(&batch(&schema, &u), Some(&kinds))
            .unwrap();
        let msgs = w.prepare_commit().unwrap();
        // Two level-0 files, merged by Java's reader.
        assert_eq!(data_files(dir.path()).len(), 2, "{compression}");
        assert_eq!(
            read_java(dir.path(), &msgs),
            expected_dedup(),
            "{compression}"
        );
    }
}

#[test]
fn codecs_avro_does_not_have_are_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &schema_json(
            r#""bucket":"-1","file.format":"avro","file.compression":"lz4""#,
            "",
        ),
    );
    let err = paimon_write::TableWrite::try_new(
        std::sync::Arc::new(paimon_io::LocalFileIO::new()),
        dir.path().to_str().unwrap(),
        &schema,
    )
    .unwrap_err();
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
}
