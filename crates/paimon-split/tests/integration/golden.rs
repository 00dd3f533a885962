//! Java's golden `DataSplit` bytes (`DataSplitCompatibleTest`, `SplitSerializerTest`).

use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::data_file::{DataFileMeta, DeletionFile};
use paimon_spec::types::DataType;
use paimon_split::frame::Split;
use paimon_split::{decode_any, decode_split, encode_frame, encode_split, SplitEnvelope};

use crate::common::read;

fn single_string(serialized: &[u8]) -> String {
    let row = BinaryRow::from_serialized(serialized).unwrap();
    assert_eq!(row.arity(), 1);
    row.get_string(0).unwrap().to_string()
}

/// The file every compatibility test builds, with fields gated by the version that carries them.
fn check_file(f: &DataFileMeta, version: i32) {
    assert_eq!(f.file_name, "my_file");
    assert_eq!(f.file_size, 1024 * 1024);
    assert_eq!(f.row_count, 1024);
    assert_eq!(single_string(&f.min_key), "min_key");
    assert_eq!(single_string(&f.max_key), "max_key");
    assert_eq!(single_string(&f.key_stats.min_values), "min_key");
    assert_eq!(single_string(&f.key_stats.max_values), "max_key");
    assert_eq!(f.key_stats.null_counts.as_deref(), Some(&[Some(0)][..]));
    assert_eq!(single_string(&f.value_stats.min_values), "min_value");
    assert_eq!(single_string(&f.value_stats.max_values), "max_value");
    assert_eq!(f.value_stats.null_counts.as_deref(), Some(&[Some(0)][..]));
    assert_eq!(f.min_sequence_number, 15);
    assert_eq!(f.max_sequence_number, 200);
    assert_eq!(f.schema_id, 5);
    assert_eq!(f.level, 3);
    assert_eq!(f.extra_files, vec!["extra1", "extra2"]);
    // 2022-03-02T20:20:12 as local wall-clock millis.
    assert_eq!(f.creation_time, Some(1_646_252_412_000));
    assert_eq!(f.delete_row_count, Some(11));
    assert_eq!(f.embedded_index.as_deref(), Some(&[1u8, 2, 4][..]));
    assert_eq!(f.file_source, (version >= 2).then_some(1));
    let stats_cols =
        (version >= 3).then(|| vec!["field1".to_string(), "field2".into(), "field3".into()]);
    assert_eq!(f.value_stats_cols, stats_cols);
    assert_eq!(
        f.external_path.as_deref(),
        (version >= 5).then_some("hdfs:///path/to/warehouse")
    );
    assert_eq!(f.first_row_id, (version >= 7).then_some(12));
    let write_cols =
        (version >= 8).then(|| vec!["a".to_string(), "b".into(), "c".into(), "f".into()]);
    assert_eq!(f.write_cols, write_cols);
}

#[test]
fn datasplit_v1_to_v9_decode_to_java_values() {
    for version in 1..=9 {
        let bytes = read(&format!("java-compat/datasplit-v{version}"));
        let decoded = decode_any(&bytes).unwrap_or_else(|e| panic!("v{version}: {e}"));
        assert_eq!(decoded.envelope, SplitEnvelope::JavaObject);
        assert_eq!(decoded.version, Some(version), "v{version}");
        let s = decoded.split.data_split().unwrap();
        assert_eq!(s.snapshot_id, 18, "v{version}");
        assert_eq!(single_string(&s.partition), "aaaaa");
        assert_eq!(s.bucket, 20);
        assert_eq!(s.bucket_path, "my path");
        assert_eq!(s.total_buckets, (version >= 6).then_some(32));
        assert!(s.before_files.is_empty());
        assert_eq!(s.data_files.len(), 1);
        check_file(&s.data_files[0], version);
        let expected_dv = (version >= 3).then(|| {
            vec![Some(DeletionFile {
                path: "deletion_file".into(),
                offset: 100,
                length: 22,
                cardinality: (version >= 4).then_some(33),
            })]
        });
        assert_eq!(s.data_deletion_files, expected_dv, "v{version}");
        assert!(!s.is_streaming);
        assert!(!s.raw_convertible);
    }
}

#[test]
fn datasplit_v9_carries_write_cols_sequences_and_reencodes_byte_for_byte() {
    let bytes = read("java-compat/datasplit-v9");
    let split = decode_split(&bytes).unwrap();
    assert!(split.data_files[0].write_cols_sequences.is_some());
    let again = encode_split(&split, 9, SplitEnvelope::JavaObject).unwrap();
    assert_eq!(again, bytes);
}

#[test]
fn every_version_reencodes_its_payload_byte_for_byte() {
    for version in 1..=9 {
        let bytes = read(&format!("java-compat/datasplit-v{version}"));
        let payload = paimon_split::java_stream::unwrap_java_stream(&bytes).unwrap();
        let split = decode_split(&bytes).unwrap();
        let raw = encode_split(&split, version, SplitEnvelope::Raw).unwrap();
        assert_eq!(raw, payload, "v{version}");
    }
}

#[test]
fn split_v1_data_frame() {
    let bytes = read("java-compat/split-v1-data");
    let d = decode_any(&bytes).unwrap();
    assert_eq!(d.envelope, SplitEnvelope::SplitV1);
    assert_eq!(d.version, Some(9));
    let Split::Data(s) = &d.split else {
        panic!("expected a data split")
    };
    assert_eq!(s.snapshot_id, 42);
    let part = BinaryRow::from_serialized(&s.partition).unwrap();
    assert_eq!(part.arity(), 2);
    assert_eq!(s.bucket_path, "dt=20260706/bucket-3");
    assert_eq!(s.bucket, 3);
    assert_eq!(s.data_files.len(), 2);
    assert_eq!(s.data_files[0].file_name, "file-a");
    assert_eq!(s.data_files[1].file_name, "file-b");
    assert_eq!(encode_split(s, 9, SplitEnvelope::SplitV1).unwrap(), bytes);
}

#[test]
fn split_v1_other_frames_decode_and_reencode() {
    for name in [
        "incremental",
        "indexed",
        "chain",
        "query-auth",
        "fallback",
        "fallback-data",
    ] {
        let bytes = read(&format!("java-compat/split-v1-{name}"));
        let d = decode_any(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(d.split.kind_name(), name);
        assert_eq!(encode_frame(&d.split, 9).unwrap(), bytes, "{name}");
    }
}

#[test]
fn split_v1_indexed_and_query_auth_values() {
    let d = decode_any(&read("java-compat/split-v1-indexed")).unwrap();
    let Split::Indexed(ix) = d.split else {
        panic!()
    };
    assert!(!ix.row_ranges.is_empty());
    assert_eq!(ix.row_ranges, vec![(1, 4), (11, 13)]);
    assert_eq!(ix.scores, Some(vec![0.5, 0.25, 0.125]));
    let d = decode_any(&read("java-compat/split-v1-query-auth")).unwrap();
    let Split::QueryAuth {
        auth: Some(auth), ..
    } = d.split
    else {
        panic!()
    };
    assert_eq!(
        auth.filter,
        Some(vec![
            "filter-json-1".to_string(),
            "filter-json-2".to_string()
        ])
    );
    let masks = auth.column_masking.unwrap();
    assert_eq!(
        masks.get("name").map(String::as_str),
        Some("mask-name-json")
    );
    assert_eq!(
        masks.get("phone").map(String::as_str),
        Some("mask-phone-json")
    );
}

#[test]
fn partition_values_are_typed() {
    let s = decode_split(&read("java-compat/split-v1-data")).unwrap();
    let row = s.partition_row().unwrap();
    let int = DataType::nullable(paimon_spec::types::TypeKind::Int);
    let values = row.to_datums(&[int.clone(), int]).unwrap();
    assert_eq!(values, vec![Datum::Int(2026), Datum::Int(7)]);
}

#[test]
fn indexed_and_query_auth_splits_are_not_plain_data_splits() {
    for name in ["indexed", "query-auth"] {
        let bytes = read(&format!("java-compat/split-v1-{name}"));
        let err = decode_split(&bytes).unwrap_err();
        assert!(
            matches!(&err, paimon_split::Error::Unsupported { feature } if feature.contains(name)),
            "{name}: {err}"
        );
        let d = decode_any(&bytes).unwrap();
        assert!(d.split.data_split().is_none(), "{name}");
        // Their files stay visible for inspection.
        let files = d.split.files_split().unwrap();
        assert_eq!(files.data_files.len(), 2, "{name}");
    }
}
