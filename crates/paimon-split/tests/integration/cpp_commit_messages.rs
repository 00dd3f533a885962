//! The Java-written commit messages shipped with the paimon-cpp tables (`commit_messages/`):
//! each decodes at the version it was written with and re-encodes byte for byte, at that
//! version only; the values of the ones whose content the data set documents are checked.

use paimon_spec::binary::{BinaryRow, BinaryRowBuilder, Datum};
use paimon_spec::index_file::{DeletionVectorMeta, GlobalIndexMeta, DELETION_VECTORS_INDEX};
use paimon_spec::types::{DataType, TypeKind};
use paimon_split::commit::{
    decode_commit_message, decode_commit_message_list, encode_commit_message,
    encode_commit_message_list, CommitMessage,
};

use crate::common::read;

/// (file under paimon-cpp, whether it is one message rather than a list, the versions at
/// which it round-trips). Versions 4 and 5 differ only in index files, which those files lack.
const FILES: [(&str, bool, &[i32]); 30] = [
    ("orc/append_09.db/append_09/commit_messages/commit_messages-01", false, &[3]),
    ("orc/append_09.db/append_09/commit_messages/commit_messages-02", false, &[3]),
    ("orc/append_09.db/append_09/commit_messages/commit_messages-03", false, &[3]),
    ("orc/append_09.db/append_09/commit_messages/commit_messages_complex", false, &[3]),
    ("orc/append_10.db/append_10/commit_messages/commit_messages-01", false, &[4, 5]),
    ("orc/append_10_external_path.db/append_10_external_path/commit_messages/commit_messages-01", false, &[6]),
    ("orc/append_10_stats_dense_store.db/append_10_stats_dense_store/commit_messages/commit_messages-01", false, &[4, 5]),
    ("orc/append_table_with_first_row_id.db/append_table_with_first_row_id/commit_messages/commit_messages-01", false, &[8]),
    ("orc/append_with_global_index_with_partition.db/append_with_global_index_with_partition/commit_messages/commit_messages-01", false, &[11]),
    ("orc/pk_09_with_dv.db/pk_09_with_dv/commit_messages/commit_messages-01", false, &[3]),
    ("orc/pk_btree_source_meta.db/pk_btree_source_meta/commit_messages/commit_messages-01", true, &[12]),
    ("orc/pk_dv_index_in_data_with_external.db/pk_dv_index_in_data_with_external/commit_messages/commit_messages-01", false, &[9]),
    ("orc/pk_dv_index_not_in_data_no_external.db/pk_dv_index_not_in_data_no_external/commit_messages/commit_messages-01", false, &[9]),
    ("orc/pk_dv_index_with_commit_message_version10.db/pk_dv_index_with_commit_message_version10/commit_messages/commit_messages-01", false, &[10]),
    ("orc/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality/commit_messages/commit_messages-01", false, &[5]),
    ("orc/pk_table_with_total_buckets.db/pk_table_with_total_buckets/commit_messages/commit_messages-01", false, &[7]),
    ("parquet/append_09.db/append_09/commit_messages/commit_messages-01", false, &[3]),
    ("parquet/append_09.db/append_09/commit_messages/commit_messages-02", false, &[3]),
    ("parquet/append_09.db/append_09/commit_messages/commit_messages-03", false, &[3]),
    ("parquet/append_09.db/append_09/commit_messages/commit_messages-04", false, &[3]),
    ("parquet/append_10.db/append_10/commit_messages/commit_messages-01", false, &[7]),
    ("parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid/commit_messages/commit_messages-01", false, &[7]),
    ("parquet/append_complex_data.db/append_complex_data/commit_messages/commit_messages-01", false, &[7]),
    ("parquet/append_complex_data.db/append_complex_data/commit_messages/commit_messages-02", false, &[7]),
    ("parquet/append_complex_data.db/append_complex_data/commit_messages/commit_messages-03", false, &[7]),
    ("parquet/append_with_empty_partition.db/append_with_empty_partition/commit_messages/commit_messages-01", false, &[7]),
    ("parquet/append_with_empty_partition_with_empty_value.db/append_with_empty_partition_with_empty_value/commit_messages/commit_messages-01", false, &[7]),
    ("parquet/append_with_empty_partition_with_specific_name.db/append_with_empty_partition_with_specific_name/commit_messages/commit_messages-01", false, &[7]),
    ("parquet/pk_table_nested_type.db/pk_table_nested_type/commit_messages/commit_messages-01", false, &[7]),
    ("parquet/pk_table_nested_type.db/pk_table_nested_type/commit_messages/commit_messages-02", false, &[7]),
];

fn round_trips(bytes: &[u8], single: bool, v: i32) -> bool {
    if single {
        decode_commit_message(bytes, v)
            .and_then(|m| encode_commit_message(&m, v))
            .is_ok_and(|b| b == bytes)
    } else {
        decode_commit_message_list(bytes, v)
            .and_then(|m| encode_commit_message_list(&m, v))
            .is_ok_and(|b| b == bytes)
    }
}

#[test]
fn java_written_messages_round_trip_at_their_version_only() {
    let mut listed: Vec<&str> = FILES.iter().map(|f| f.0).collect();
    listed.sort();
    let mut found = Vec::new();
    let root = crate::common::testdata("paimon-cpp");
    for dir in ["orc", "parquet"] {
        for table in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
            for t in std::fs::read_dir(table.path()).unwrap().flatten() {
                if let Ok(files) = std::fs::read_dir(t.path().join("commit_messages")) {
                    for f in files.flatten() {
                        let rel = f.path().strip_prefix(&root).unwrap().display().to_string();
                        found.push(rel);
                    }
                }
            }
        }
    }
    found.sort();
    assert_eq!(
        found, listed,
        "commit-message files of the paimon-cpp tables"
    );
    for (path, single, versions) in FILES {
        let bytes = read(&format!("paimon-cpp/{path}"));
        let ok: Vec<i32> = (2..=14)
            .filter(|v| round_trips(&bytes, single, *v))
            .collect();
        assert_eq!(ok, versions, "{path}");
    }
}

fn int_partition(v: i32) -> Vec<u8> {
    BinaryRowBuilder::new(vec![DataType::nullable(TypeKind::Int)])
        .with_value(0, Datum::Int(v))
        .unwrap()
        .build_serialized()
        .unwrap()
}

fn one(path: &str, version: i32) -> CommitMessage {
    let list = decode_commit_message_list(&read(&format!("paimon-cpp/{path}")), version).unwrap();
    assert_eq!(list.len(), 1, "{path}");
    list.into_iter().next().unwrap()
}

#[test]
fn version_10_deletion_vector_message_values() {
    // Values from paimon-cpp's CommitMessageTest.TestCompatibleWithVersion10 and the table's
    // README ("partition 10, bucket 1, snapshot 3-4").
    let m = one(FILES[13].0, 10);
    assert_eq!(m.partition, int_partition(10));
    assert_eq!((m.bucket, m.total_buckets), (1, Some(2)));
    let d = &m.data_increment;
    assert_eq!(d.new_files.len(), 1);
    let f = &d.new_files[0];
    assert_eq!(
        f.file_name,
        "data-a19eec15-e0e3-4a30-85e2-01d23d9945be-1.orc"
    );
    assert_eq!((f.file_size, f.row_count), (872, 1));
    assert_eq!((f.min_sequence_number, f.max_sequence_number), (5, 5));
    assert_eq!(
        (f.level, f.delete_row_count, f.file_source),
        (0, Some(1), Some(0))
    );
    assert_eq!(f.creation_time, Some(1_761_242_383_412));
    let key = BinaryRow::from_serialized(&f.min_key).unwrap();
    let key_types = [DataType::string(), DataType::nullable(TypeKind::Int)];
    assert_eq!(
        key.to_datums(&key_types).unwrap(),
        [Datum::String("Tony".into()), Datum::Int(0)]
    );
    assert!(d.deleted_files.is_empty() && d.new_index_files.is_empty());
    let c = &m.compact_increment;
    assert_eq!(c.compact_before, d.new_files);
    assert!(c.compact_after.is_empty() && c.deleted_index_files.is_empty());
    assert_eq!(c.new_index_files.len(), 1);
    let idx = &c.new_index_files[0];
    assert_eq!(idx.index_type, DELETION_VECTORS_INDEX);
    assert_eq!(
        idx.file_name,
        "index-9c24b2fc-40db-4f58-9a13-55b52ae8880c-1"
    );
    assert_eq!((idx.file_size, idx.row_count), (31, 1));
    assert_eq!(
        idx.dv_ranges,
        Some(vec![DeletionVectorMeta {
            data_file_name: "data-a19eec15-e0e3-4a30-85e2-01d23d9945be-0.orc".into(),
            offset: 1,
            length: 22,
            cardinality: Some(1),
        }])
    );
}

#[test]
fn version_11_global_index_message_values() {
    // Values from paimon-cpp's CommitMessageTest.TestCompatibleWithVersion11.
    let m = one(FILES[8].0, 11);
    assert_eq!(m.partition, int_partition(10));
    assert_eq!((m.bucket, m.total_buckets), (0, None));
    assert!(m.compact_increment.is_empty());
    let d = &m.data_increment;
    assert!(d.new_files.is_empty() && d.deleted_index_files.is_empty());
    assert_eq!(d.new_index_files.len(), 1);
    let idx = &d.new_index_files[0];
    assert_eq!(idx.index_type, "bitmap");
    assert_eq!(
        idx.file_name,
        "bitmap-global-index-6f974a9b-07bb-4a06-9696-6646020d8139.index"
    );
    assert_eq!((idx.file_size, idx.row_count), (120, 5));
    assert_eq!((&idx.dv_ranges, &idx.external_path), (&None, &None));
    assert_eq!(
        idx.global_index,
        Some(GlobalIndexMeta {
            row_range_start: 0,
            row_range_end: 4,
            index_field_id: 0,
            extra_field_ids: None,
            index_meta: None,
            source_meta: None,
            build_schema_id: None,
        })
    );
}

#[test]
fn version_12_single_message_is_a_compaction() {
    // The README: one message of snapshot-5, "force a full compaction and rebuild the
    // primary-key btree index" of an unpartitioned table with one bucket.
    let path = FILES[10].0;
    let m = decode_commit_message(&read(&format!("paimon-cpp/{path}")), 12).unwrap();
    assert_eq!(BinaryRow::from_serialized(&m.partition).unwrap().arity(), 0);
    assert_eq!(m.bucket, 0);
    assert!(m.data_increment.new_files.is_empty());
    let c = &m.compact_increment;
    assert!(!c.compact_before.is_empty() && !c.compact_after.is_empty());
    assert!(c.compact_after.iter().all(|f| f.file_source == Some(1)));
}
