//! Property tests: random splits round-trip through every version and envelope.

use paimon_spec::binary::Datum;
use paimon_spec::data_file::{DataFileMeta, DeletionFile};
use paimon_spec::stats::{serialize_datums, SimpleStats};
use paimon_spec::types::DataType;
use paimon_split::codec::file_meta_arity;
use paimon_split::{decode_split, encode_split, DataSplit, SplitEnvelope};
use proptest::prelude::*;

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9_./=-]{0,40}",
        any::<String>().prop_map(|s| s.chars().take(30).collect()),
    ]
}

fn arb_row() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(proptest::option::of(arb_string()), 0..4).prop_map(|vals| {
        let types = vec![DataType::string(); vals.len()];
        let datums: Vec<Datum> = vals
            .into_iter()
            .map(|v| v.map(Datum::String).unwrap_or(Datum::Null))
            .collect();
        serialize_datums(&datums, &types).unwrap()
    })
}

fn arb_stats() -> impl Strategy<Value = SimpleStats> {
    (
        arb_row(),
        arb_row(),
        proptest::option::of(proptest::collection::vec(
            proptest::option::of(any::<i64>()),
            0..4,
        )),
    )
        .prop_map(|(min_values, max_values, null_counts)| SimpleStats {
            min_values: min_values.into(),
            max_values: max_values.into(),
            null_counts: null_counts.map(Into::into),
        })
}

prop_compose! {
    fn arb_file()(
        file_name in arb_string(),
        nums in proptest::array::uniform6(any::<i64>()),
        sizes in proptest::array::uniform2(0..i64::MAX),
        level in any::<i32>(),
        min_key in arb_row(),
        max_key in arb_row(),
        key_stats in arb_stats(),
        value_stats in arb_stats(),
        extra_files in proptest::collection::vec(arb_string(), 0..3),
        creation_time in proptest::option::of(any::<i64>()),
        delete_row_count in proptest::option::of(any::<i64>()),
        embedded_index in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20)),
        file_source in proptest::option::of(0i8..2),
        value_stats_cols in proptest::option::of(proptest::collection::vec(arb_string(), 0..3)),
        external_path in proptest::option::of(arb_string()),
        first_row_id in proptest::option::of(any::<i64>()),
        write_cols in proptest::option::of(proptest::collection::vec(arb_string(), 0..3)),
        write_cols_sequences in proptest::option::of(proptest::collection::vec(any::<i64>(), 0..3)),
    ) -> DataFileMeta {
        DataFileMeta {
            // Sizes and counts are non-negative: the decoder rejects negative ones as corrupt.
            file_name, file_size: sizes[0], row_count: sizes[1], min_key: min_key.into(), max_key: max_key.into(), key_stats,
            value_stats, min_sequence_number: nums[2], max_sequence_number: nums[3],
            schema_id: nums[4], level, extra_files, creation_time, delete_row_count,
            embedded_index, file_source, value_stats_cols, external_path, first_row_id,
            write_cols, write_cols_sequences,
        }
    }
}

fn arb_deletion_file() -> impl Strategy<Value = Option<DeletionFile>> {
    proptest::option::of(
        (
            arb_string(),
            any::<i64>(),
            any::<i64>(),
            proptest::option::of(0i64..i64::MAX),
        )
            .prop_map(|(path, offset, length, cardinality)| DeletionFile {
                path,
                offset,
                length,
                cardinality,
            }),
    )
}

prop_compose! {
    fn arb_split()(
        files in proptest::collection::vec(arb_file(), 0..4),
        snapshot_id in any::<i64>(),
        partition in arb_row(),
        bucket in any::<i32>(),
        bucket_path in arb_string(),
        total_buckets in proptest::option::of(any::<i32>()),
        with_dv in any::<bool>(),
        dvs in proptest::collection::vec(arb_deletion_file(), 4),
        is_streaming in any::<bool>(),
        raw_convertible in any::<bool>(),
    ) -> DataSplit {
        let data_deletion_files = with_dv.then(|| dvs[..files.len()].to_vec());
        DataSplit {
            snapshot_id, partition, bucket, bucket_path, total_buckets,
            before_files: vec![], before_deletion_files: None,
            data_files: files, data_deletion_files, is_streaming, raw_convertible,
        }
    }
}

/// What a split looks like after a trip through `version`: fields that version lacks are lost.
fn as_seen_by(split: &DataSplit, version: i32) -> DataSplit {
    let arity = file_meta_arity(version).unwrap();
    let mut s = split.clone();
    for f in &mut s.data_files {
        *f = DataFileMeta::from_datums(f.to_datums(arity)).unwrap();
    }
    if version < 6 {
        s.total_buckets = None;
    }
    if version < 4 {
        for d in s.data_deletion_files.iter_mut().flatten().flatten() {
            d.cardinality = None;
        }
    }
    if version == 1 && s.snapshot_id == paimon_split::DATA_SPLIT_MAGIC {
        // v1 has no magic: this one snapshot id is indistinguishable from the v2+ magic.
        s.snapshot_id = 0;
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_splits_round_trip_at_every_version(split in arb_split()) {
        for version in 1..=9 {
            let expected = as_seen_by(&split, version);
            if version == 1 && expected.snapshot_id != split.snapshot_id {
                continue;
            }
            for env in [SplitEnvelope::Raw, SplitEnvelope::SplitV1, SplitEnvelope::JavaObject] {
                let bytes = encode_split(&split, version, env).unwrap();
                let back = decode_split(&bytes).unwrap();
                prop_assert_eq!(&back, &expected, "version {} {:?}", version, env);
            }
        }
    }

    #[test]
    fn truncated_and_mutated_bytes_never_panic(split in arb_split(), cut in any::<usize>(), flip in any::<(usize, u8)>()) {
        let bytes = encode_split(&split, 9, SplitEnvelope::SplitV1).unwrap();
        let _ = decode_split(&bytes[..cut % (bytes.len() + 1)]);
        let mut m = bytes.clone();
        let i = flip.0 % m.len();
        m[i] ^= flip.1 | 1;
        let _ = decode_split(&m);
    }
}

fn arb_index_file() -> impl Strategy<Value = paimon_spec::index_file::IndexFileMeta> {
    use paimon_spec::index_file::{DeletionVectorMeta, GlobalIndexMeta, IndexFileMeta};
    let dv = proptest::collection::vec(
        (
            any::<i32>(),
            any::<i32>(),
            proptest::option::of(any::<i64>()),
        ),
        0..3,
    )
    .prop_map(|ranges| {
        // Distinct data-file names: Java keys the ranges by name.
        ranges
            .into_iter()
            .enumerate()
            .map(|(i, (offset, length, cardinality))| DeletionVectorMeta {
                data_file_name: format!("data-{i}.parquet"),
                offset,
                length,
                cardinality,
            })
            .collect::<Vec<_>>()
    });
    let global = (
        any::<(i64, i64, i32)>(),
        proptest::option::of(proptest::collection::vec(any::<i32>(), 0..3)),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..5)),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..5)),
    )
        .prop_map(|((s, e, f), extra, meta, source)| GlobalIndexMeta {
            row_range_start: s,
            row_range_end: e,
            index_field_id: f,
            extra_field_ids: extra,
            index_meta: meta,
            source_meta: source,
            build_schema_id: None,
        });
    (
        arb_string(),
        arb_string(),
        any::<(i64, i64)>(),
        proptest::option::of(dv),
        proptest::option::of(arb_string()),
        proptest::option::of(global),
    )
        .prop_map(
            |(
                index_type,
                file_name,
                (file_size, row_count),
                dv_ranges,
                external_path,
                global_index,
            )| {
                IndexFileMeta {
                    index_type,
                    file_name,
                    file_size,
                    row_count,
                    dv_ranges,
                    external_path,
                    global_index,
                }
            },
        )
}

fn arb_message() -> impl Strategy<Value = paimon_split::CommitMessage> {
    use paimon_split::{CommitMessage, CompactIncrement, DataIncrement};
    let files = || proptest::collection::vec(arb_file(), 0..2);
    let indexes = || proptest::collection::vec(arb_index_file(), 0..2);
    (
        arb_row(),
        any::<i32>(),
        proptest::option::of(any::<i32>()),
        (files(), files(), files(), indexes(), indexes()),
        (files(), files(), files(), indexes(), indexes()),
        proptest::option::of(any::<i64>()),
    )
        .prop_map(|(partition, bucket, total, d, c, check_from)| {
            CommitMessage::new(partition, bucket)
                .with_total_buckets(total)
                .with_check_from_snapshot(check_from)
                .with_data_increment(DataIncrement {
                    new_files: d.0,
                    deleted_files: d.1,
                    changelog_files: d.2,
                    new_index_files: d.3,
                    deleted_index_files: d.4,
                })
                .with_compact_increment(CompactIncrement {
                    compact_before: c.0,
                    compact_after: c.1,
                    changelog_files: c.2,
                    new_index_files: c.3,
                    deleted_index_files: c.4,
                })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The newest version carries every message; at older versions a message either
    /// round-trips unchanged or is refused with a typed error, never silently cut.
    #[test]
    fn random_commit_messages_round_trip_or_are_refused(m in arb_message()) {
        use paimon_split::commit::{decode_commit_message, encode_commit_message};
        for version in 2..=14 {
            match encode_commit_message(&m, version) {
                Ok(bytes) => {
                    prop_assert_eq!(&decode_commit_message(&bytes, version).unwrap(), &m, "v{}", version);
                }
                Err(e) => {
                    prop_assert!(version < 14, "v14 refused: {}", e);
                    prop_assert!(matches!(e, paimon_split::Error::Encode { .. }), "v{}: {}", version, e);
                    prop_assert!(m.check_version(version).is_err());
                }
            }
        }
    }
}
