//! Java 1.4.2 decodes the commit messages we write to the values we meant.
//!
//! The messages below are encoded at version 11 (Java 1.4's, `COMMIT_MESSAGE_VERSION_JAVA_1_4`) as a list, as one versioned
//! message and inside a ManifestCommittable v5. `fixtures/commit-messages/` holds those bytes
//! and what `java-oracle.sh decode-commit-messages` printed for them (recorded by
//! `scripts/gen-commit-oracle.sh`, which runs this test with `PAIMON_RECORD_COMMIT_BYTES=1`
//! first). The test checks that our encoder still writes exactly the recorded bytes, that Java's
//! view of every field equals the message built here, and that Java's own re-serialization of
//! what it decoded is our bytes.

use std::path::PathBuf;

use paimon_spec::binary::{BinaryRowBuilder, Datum};
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::index_file::{
    DeletionVectorMeta, GlobalIndexMeta, IndexFileMeta, DELETION_VECTORS_INDEX, HASH_INDEX,
};
use paimon_spec::stats::{ColStats, SimpleStats};
use paimon_spec::types::{DataField, DataType, TypeKind};
use paimon_split::commit::{
    encode_commit_message, encode_commit_message_list, encode_manifest_committable,
    encode_versioned_commit_message, CommitMessage, CompactIncrement, DataIncrement,
    ManifestCommittable, COMMIT_MESSAGE_VERSION_JAVA_1_4, MANIFEST_COMMITTABLE_VERSION,
};
use serde_json::{json, Value};

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/commit-messages")
}

fn value_fields() -> Vec<DataField> {
    let n = DataType::nullable;
    vec![
        DataField::new(0, "id", n(TypeKind::Int)),
        DataField::new(1, "name", DataType::string()),
        DataField::new(
            2,
            "amount",
            n(TypeKind::Decimal {
                precision: 20,
                scale: 2,
            }),
        ),
        DataField::new(3, "ts", n(TypeKind::Timestamp { precision: 6 })),
        DataField::new(4, "blob", DataType::bytes()),
    ]
}

fn key_row(id: i32) -> Vec<u8> {
    BinaryRowBuilder::new(vec![DataType::not_null(TypeKind::Int)])
        .with_value(0, Datum::Int(id))
        .unwrap()
        .build_serialized()
        .unwrap()
}

fn file(name: &str, level: i32, source: i8) -> DataFileMeta {
    let ts = |millis| Datum::Timestamp {
        millis,
        nanos: 123_000,
    };
    let dec = |unscaled| Datum::Decimal {
        unscaled,
        precision: 20,
        scale: 2,
    };
    // `blob` has no stats (mode none): dense stats leave it out and list the others.
    let (value_stats, cols) = SimpleStats::from_col_stats(
        &value_fields(),
        &[
            ColStats::new(Datum::Int(1), Datum::Int(40), Some(0)),
            ColStats::new(
                Datum::String("alpha".into()),
                Datum::String("a name longer than eight".into()),
                Some(2),
            ),
            ColStats::new(
                dec(-12_345_678_901_234_567),
                dec(99_999_999_999_999_999),
                Some(0),
            ),
            ColStats::new(ts(1_700_000_000_000), ts(1_700_000_999_000), Some(1)),
            ColStats::none(),
        ],
        true,
    )
    .unwrap();
    let key_stats = SimpleStats::new(key_row(1), key_row(40), Some(vec![Some(0)]));
    DataFileMeta {
        file_name: name.into(),
        file_size: 4096,
        row_count: 40,
        min_key: key_row(1).into(),
        max_key: key_row(40).into(),
        key_stats,
        value_stats,
        min_sequence_number: 100,
        max_sequence_number: 139,
        schema_id: 2,
        level,
        extra_files: vec![format!("{name}.index")],
        creation_time: Some(1_733_000_000_123),
        delete_row_count: Some(3),
        embedded_index: (level == 0).then(|| vec![9, 8, 7]),
        file_source: Some(source),
        value_stats_cols: cols,
        external_path: (level == 1).then(|| format!("s3://bucket/ext/{name}")),
        first_row_id: Some(1000),
        write_cols: None,
        write_cols_sequences: None,
    }
}

fn dv_index(name: &str) -> IndexFileMeta {
    IndexFileMeta {
        index_type: DELETION_VECTORS_INDEX.into(),
        file_name: name.into(),
        file_size: 77,
        row_count: 2,
        dv_ranges: Some(vec![
            DeletionVectorMeta {
                data_file_name: "data-a.parquet".into(),
                offset: 1,
                length: 22,
                cardinality: Some(3),
            },
            DeletionVectorMeta {
                data_file_name: "data-b.parquet".into(),
                offset: 23,
                length: 30,
                cardinality: None,
            },
        ]),
        external_path: None,
        global_index: None,
    }
}

fn messages() -> Vec<CommitMessage> {
    let partition =
        BinaryRowBuilder::new(vec![DataType::string(), DataType::nullable(TypeKind::Int)])
            .with_value(0, Datum::String("2024-01-15 partition".into()))
            .unwrap()
            .with_value(1, Datum::Int(7))
            .unwrap()
            .build_serialized()
            .unwrap();
    let first = CommitMessage::new(partition, 3)
        .with_total_buckets(Some(8))
        .with_data_increment(DataIncrement {
            new_files: vec![file("data-a.parquet", 0, 0), file("data-b.parquet", 0, 0)],
            deleted_files: vec![],
            changelog_files: vec![file("changelog-c.parquet", 0, 0)],
            new_index_files: vec![dv_index("index-new")],
            deleted_index_files: vec![dv_index("index-old")],
        })
        .with_compact_increment(CompactIncrement {
            compact_before: vec![file("data-b.parquet", 0, 0)],
            compact_after: vec![file("data-d.parquet", 1, 1)],
            changelog_files: vec![],
            new_index_files: vec![IndexFileMeta {
                index_type: HASH_INDEX.into(),
                file_name: "index-hash".into(),
                file_size: 160,
                row_count: 40,
                dv_ranges: None,
                external_path: Some("s3://bucket/ext/index-hash".into()),
                global_index: None,
            }],
            deleted_index_files: vec![],
        });
    let second = CommitMessage::new(paimon_spec::stats::empty_serialized_row(), -1)
        .with_data_increment(DataIncrement {
            new_files: vec![file("data-e.orc", 0, 0)],
            new_index_files: vec![IndexFileMeta {
                index_type: "btree".into(),
                file_name: "btree-global-index-1.index".into(),
                file_size: 512,
                row_count: 40,
                dv_ranges: None,
                external_path: None,
                global_index: Some(GlobalIndexMeta {
                    row_range_start: 1000,
                    row_range_end: 1039,
                    index_field_id: 1,
                    extra_field_ids: Some(vec![0, 3]),
                    index_meta: Some(vec![0xca, 0xfe]),
                    source_meta: None,
                    build_schema_id: None,
                }),
            }],
            ..DataIncrement::default()
        });
    vec![first, second]
}

fn committable() -> ManifestCommittable {
    ManifestCommittable::new(i64::MAX, messages())
        .with_message_version(COMMIT_MESSAGE_VERSION_JAVA_1_4)
        .with_watermark(Some(1_733_000_000_000))
        .with_property("k1", "v1")
        .with_property("commit-user-note", "written by paimon-rs")
}

fn stats_json(s: &SimpleStats) -> Value {
    json!({"min": hex::encode(&s.min_values), "max": hex::encode(&s.max_values),
           "nullCounts": s.null_counts})
}

fn files_json(files: &[DataFileMeta]) -> Value {
    files
        .iter()
        .map(|f| {
            json!({
                "fileName": f.file_name, "fileSize": f.file_size, "rowCount": f.row_count,
                "minKey": hex::encode(&f.min_key), "maxKey": hex::encode(&f.max_key),
                "keyStats": stats_json(&f.key_stats), "valueStats": stats_json(&f.value_stats),
                "minSequenceNumber": f.min_sequence_number,
                "maxSequenceNumber": f.max_sequence_number, "schemaId": f.schema_id,
                "level": f.level, "extraFiles": f.extra_files, "creationTime": f.creation_time,
                "deleteRowCount": f.delete_row_count,
                "embeddedIndex": f.embedded_index.as_ref().map(hex::encode),
                "fileSource": f.file_source, "valueStatsCols": f.value_stats_cols,
                "externalPath": f.external_path, "firstRowId": f.first_row_id,
                "writeCols": f.write_cols,
            })
        })
        .collect()
}

fn index_json(files: &[IndexFileMeta]) -> Value {
    files
        .iter()
        .map(|f| {
            json!({
                "indexType": f.index_type, "fileName": f.file_name, "fileSize": f.file_size,
                "rowCount": f.row_count,
                "dvRanges": f.dv_ranges.as_ref().map(|r| r.iter().map(|d| json!({
                    "dataFileName": d.data_file_name, "offset": d.offset, "length": d.length,
                    "cardinality": d.cardinality})).collect::<Vec<_>>()),
                "externalPath": f.external_path,
                "globalIndex": f.global_index.as_ref().map(|g| json!({
                    "rowRangeStart": g.row_range_start, "rowRangeEnd": g.row_range_end,
                    "indexFieldId": g.index_field_id, "extraFieldIds": g.extra_field_ids,
                    "indexMeta": g.index_meta.as_ref().map(hex::encode)})),
            })
        })
        .collect()
}

/// What Java must print for `m`, with its own serialization equal to ours.
fn expected_json(m: &CommitMessage) -> Value {
    let (d, c) = (&m.data_increment, &m.compact_increment);
    json!({
        "partition": hex::encode(&m.partition), "bucket": m.bucket,
        "totalBuckets": m.total_buckets,
        "newFiles": files_json(&d.new_files), "deletedFiles": files_json(&d.deleted_files),
        "changelogFiles": files_json(&d.changelog_files),
        "newIndexFiles": index_json(&d.new_index_files),
        "deletedIndexFiles": index_json(&d.deleted_index_files),
        "compactBefore": files_json(&c.compact_before),
        "compactAfter": files_json(&c.compact_after),
        "compactChangelogFiles": files_json(&c.changelog_files),
        "compactNewIndexFiles": index_json(&c.new_index_files),
        "compactDeletedIndexFiles": index_json(&c.deleted_index_files),
        "javaBytes": hex::encode(encode_commit_message(m, 11).unwrap()),
    })
}

/// (fixture, our bytes).
fn our_bytes() -> Vec<(&'static str, Vec<u8>)> {
    let v = COMMIT_MESSAGE_VERSION_JAVA_1_4;
    vec![
        (
            "list-v11.bin",
            encode_commit_message_list(&messages(), v).unwrap(),
        ),
        (
            "versioned-v11.bin",
            encode_versioned_commit_message(&messages()[0], v).unwrap(),
        ),
        (
            "committable-v5.bin",
            encode_manifest_committable(&committable(), MANIFEST_COMMITTABLE_VERSION).unwrap(),
        ),
    ]
}

fn java_lines(name: &str) -> Vec<Value> {
    let path = fixture_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/gen-commit-oracle.sh)", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn java_decodes_our_commit_messages_to_our_values() {
    let dir = fixture_dir();
    if std::env::var_os("PAIMON_RECORD_COMMIT_BYTES").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in our_bytes() {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        return;
    }
    for (name, bytes) in our_bytes() {
        let recorded = std::fs::read(dir.join(name)).unwrap();
        assert!(
            recorded == bytes,
            "{name}: our encoder no longer writes the bytes Java decoded"
        );
    }
    let expected: Vec<Value> = messages().iter().map(expected_json).collect();
    assert_eq!(java_lines("list-v11.java.jsonl"), expected);
    assert_eq!(java_lines("versioned-v11.java.jsonl"), expected[..1]);
    let lines = java_lines("committable-v5.java.jsonl");
    let c = committable();
    assert_eq!(
        lines[0],
        json!({"identifier": c.identifier, "watermark": c.watermark,
               "properties": {"k1": "v1", "commit-user-note": "written by paimon-rs"}})
    );
    assert_eq!(lines[1..], expected[..]);
}
