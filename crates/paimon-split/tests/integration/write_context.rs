//! Write contexts: round trips over a Java-written schema, and refusals of damaged bytes.

use paimon_spec::binary::Datum;
use paimon_spec::index_file::IndexFileMeta;
use paimon_spec::schema::TableSchema;
use paimon_spec::stats::serialize_datums;
use paimon_spec::types::DataType;
use paimon_split::write_context_codec::WRITE_CONTEXT_MAGIC;
use paimon_split::{decode_write_context, encode_write_context, Error, WriteContext};

/// The Java-written schema of the fixture `pk.db/partitioned` (partitioned by dt, hr).
fn schema() -> TableSchema {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/warehouse/pk.db/partitioned/schema/schema-0"
    );
    TableSchema::from_json_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn partition(dt: &str, hr: i32) -> Vec<u8> {
    let types: Vec<DataType> = schema()
        .partition_fields()
        .into_iter()
        .map(|f| f.data_type)
        .collect();
    serialize_datums(&[Datum::String(dt.into()), Datum::Int(hr)], &types).unwrap()
}

fn hash_file(name: &str, rows: i64) -> IndexFileMeta {
    IndexFileMeta {
        index_type: "HASH".into(),
        file_name: name.into(),
        file_size: rows * 4,
        row_count: rows,
        dv_ranges: None,
        external_path: None,
        global_index: None,
    }
}

fn context() -> WriteContext {
    WriteContext {
        table_path: "/wh/pk.db/partitioned".into(),
        schema: schema(),
        snapshot_id: Some(7),
        overwrite: false,
        compact_after: true,
        commit_user: Some("planner-ü".into()),
        restored_sequence_numbers: vec![
            (partition("2024-01-01", 1), 0, 41),
            (partition("2024-01-01", 1), 1, 3),
            (partition("2024-01-02", 23), 0, i64::MAX),
        ],
        hash_index_files: vec![
            (partition("2024-01-01", 1), 0, hash_file("index-a-0", 10)),
            (partition("2024-01-01", 1), 0, hash_file("index-a-1", 2)),
            (partition("2024-01-02", 23), 1, hash_file("index-b-0", 5)),
        ],
    }
}

#[test]
fn a_context_round_trips_with_every_field() {
    let ctx = context();
    let bytes = encode_write_context(&ctx).unwrap();
    assert_eq!(&bytes[..8], b"PMWCTX01");
    let back = decode_write_context(&bytes).unwrap();
    assert_eq!(back, ctx);
    assert_eq!(back.schema.partition_keys, ["dt", "hr"]);
    assert_eq!(
        back.schema.options.get("bucket").map(String::as_str),
        Some("2")
    );
    assert_eq!(encode_write_context(&back).unwrap(), bytes);
}

#[test]
fn an_empty_context_round_trips() {
    let ctx = WriteContext {
        snapshot_id: None,
        overwrite: true,
        compact_after: false,
        commit_user: None,
        restored_sequence_numbers: vec![],
        hash_index_files: vec![],
        ..context()
    };
    let bytes = encode_write_context(&ctx).unwrap();
    assert_eq!(decode_write_context(&bytes).unwrap(), ctx);
}

#[test]
fn every_truncation_is_a_typed_error() {
    let bytes = encode_write_context(&context()).unwrap();
    for n in 0..bytes.len() {
        match decode_write_context(&bytes[..n]) {
            Err(Error::Corrupt { .. }) => {}
            other => panic!("{n} of {} bytes: {other:?}", bytes.len()),
        }
    }
}

#[test]
fn flipped_bytes_never_panic_and_trailing_bytes_are_refused() {
    let bytes = encode_write_context(&context()).unwrap();
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            // Either refused or decoded into a context that encodes again.
            if let Ok(ctx) = decode_write_context(&b) {
                encode_write_context(&ctx).unwrap();
            }
        }
    }
    let mut long = bytes.clone();
    long.push(0);
    let err = decode_write_context(&long).unwrap_err();
    assert!(
        err.to_string().contains("1 bytes after the write context"),
        "{err}"
    );
}

#[test]
fn damaged_fields_are_named() {
    let bytes = encode_write_context(&context()).unwrap();
    let mut wrong_magic = bytes.clone();
    wrong_magic[0] ^= 1;
    let err = decode_write_context(&wrong_magic).unwrap_err();
    assert!(err.to_string().contains("not a write context"), "{err}");

    let mut v2 = bytes.clone();
    v2[8..12].copy_from_slice(&2i32.to_be_bytes());
    let err = decode_write_context(&v2).unwrap_err();
    assert!(
        matches!(err, Error::UnsupportedVersion { found: 2, .. }),
        "{err}"
    );

    // A schema that is no JSON: the field is named.
    let mut w = Vec::new();
    w.extend_from_slice(&WRITE_CONTEXT_MAGIC.to_be_bytes());
    w.extend_from_slice(&1i32.to_be_bytes());
    w.extend_from_slice(&2i32.to_be_bytes());
    w.extend_from_slice(b"/t");
    w.extend_from_slice(&3i32.to_be_bytes());
    w.extend_from_slice(b"{x}");
    let err = decode_write_context(&w).unwrap_err();
    assert!(err.to_string().contains("WriteContext.schema"), "{err}");

    // A partition of another arity than the schema's two partition keys.
    let mut ctx = context();
    ctx.restored_sequence_numbers = vec![(serialize_datums(&[], &[]).unwrap(), 0, 1)];
    let err = decode_write_context(&encode_write_context(&ctx).unwrap()).unwrap_err();
    assert!(
        err.to_string()
            .contains("WriteContext.restoredSequenceNumbers.partition has 0 fields"),
        "{err}"
    );

    // A bucket below the postpone bucket.
    let mut ctx = context();
    ctx.restored_sequence_numbers[0].1 = -3;
    let err = decode_write_context(&encode_write_context(&ctx).unwrap()).unwrap_err();
    assert!(
        err.to_string()
            .contains("WriteContext.restoredSequenceNumbers.bucket -3"),
        "{err}"
    );
}

#[test]
fn hostile_paths_are_refused_by_the_layout_rule() {
    let refused = |ctx: WriteContext| {
        let err = decode_write_context(&encode_write_context(&ctx).unwrap()).unwrap_err();
        match err {
            Error::Spec {
                source: paimon_spec::Error::PathNotAllowed { field, .. },
                ..
            } => field,
            other => panic!("{other:?}"),
        }
    };
    let mut ctx = context();
    ctx.hash_index_files[1].2.file_name = "../../etc/passwd".into();
    assert_eq!(refused(ctx), "WriteContext.hashIndexFiles.fileName");

    let mut ctx = context();
    ctx.hash_index_files[0].2.external_path = Some("/elsewhere/index-a-0".into());
    assert_eq!(refused(ctx), "WriteContext.hashIndexFiles.externalPath");

    let mut ctx = context();
    ctx.schema
        .options
        .insert("data-file.external-paths".into(), "/ext/../etc".into());
    assert_eq!(refused(ctx), "data-file.external-paths");

    // Under a configured external root, an index file's external path is allowed.
    let mut ctx = context();
    ctx.schema
        .options
        .insert("data-file.external-paths".into(), "/ext/root".into());
    ctx.hash_index_files[0].2.external_path = Some("/ext/root/index/index-a-0".into());
    let bytes = encode_write_context(&ctx).unwrap();
    assert_eq!(decode_write_context(&bytes).unwrap(), ctx);
}

/// The fuzz seeds: contexts `paimon write-context` planned from fixture tables.
fn seed(name: &str) -> WriteContext {
    let path = format!(
        "{}/../../fuzz/seeds/write_context_decode/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap();
    let ctx = decode_write_context(&bytes).unwrap();
    assert_eq!(encode_write_context(&ctx).unwrap(), bytes, "{name}");
    ctx
}

#[test]
fn contexts_planned_from_fixture_tables_decode_as_planned() {
    let dynamic = seed("dynamic_bucket");
    assert_eq!(
        dynamic.table_path,
        "fixtures/warehouse/pk.db/dynamic_bucket"
    );
    assert_eq!(dynamic.snapshot_id, Some(4));
    assert!(!dynamic.overwrite && !dynamic.compact_after);
    assert!(!dynamic.hash_index_files.is_empty());
    assert!(dynamic
        .hash_index_files
        .iter()
        .all(|(_, _, f)| f.index_type == "HASH" && f.file_name.starts_with("index-")));

    let partitioned = seed("partitioned");
    assert_eq!(partitioned.schema.partition_keys, ["dt", "hr"]);
    assert!(!partitioned.restored_sequence_numbers.is_empty());
    assert!(partitioned.hash_index_files.is_empty());

    let overwrite = seed("partitioned-overwrite");
    assert!(overwrite.overwrite);
    assert_eq!(overwrite.commit_user.as_deref(), Some("planner"));
    assert!(overwrite.restored_sequence_numbers.is_empty());

    // Deletion vectors without write-only: the committer compacts after the write.
    assert!(seed("dv32").compact_after);
    // An append table restores no sequence numbers.
    assert!(seed("part_date").restored_sequence_numbers.is_empty());
}
