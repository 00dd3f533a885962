//! Commit messages at version 14 written by pypaimon 2.1.0's own serializer
//! (`interop/peers/pypaimon_messages.py gen`): each decodes to the values pypaimon reports for
//! it (`messages.json`) and encodes back to pypaimon's bytes.
//!
//! The committed copy is `tests/data/pypaimon-2.1/`; `scripts/test-peers.sh` points
//! `PAIMON_PEER_MESSAGES` at a directory it has just generated with pypaimon.

use std::path::PathBuf;

use paimon_spec::data_file::DataFileMeta;
use paimon_spec::index_file::IndexFileMeta;
use paimon_split::commit::{
    decode_commit_message, encode_commit_message, CommitMessage, COMMIT_MESSAGE_VERSION_2_1,
};
use serde_json::{json, Value};

fn peer_dir() -> PathBuf {
    match std::env::var_os("PAIMON_PEER_MESSAGES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/pypaimon-2.1"),
    }
}

fn file_json(f: &DataFileMeta) -> Value {
    json!({
        "file_name": f.file_name,
        "file_size": f.file_size,
        "row_count": f.row_count,
        "min_sequence_number": f.min_sequence_number,
        "max_sequence_number": f.max_sequence_number,
        "schema_id": f.schema_id,
        "level": f.level,
        "extra_files": f.extra_files,
        "delete_row_count": f.delete_row_count,
        "file_source": f.file_source,
        "external_path": f.external_path,
        "first_row_id": f.first_row_id,
        "write_cols": f.write_cols,
        "write_cols_sequences": f.write_cols_sequences,
    })
}

fn index_json(m: &IndexFileMeta) -> Value {
    json!({
        "index_type": m.index_type,
        "file_name": m.file_name,
        "file_size": m.file_size,
        "row_count": m.row_count,
        "external_path": m.external_path,
        "dv_ranges": m.dv_ranges.as_ref().map(|r| r
            .iter()
            .map(|d| json!([d.data_file_name, d.offset, d.length, d.cardinality]))
            .collect::<Vec<_>>()),
        "global_index": m.global_index.as_ref().map(|g| json!({
            "row_range_start": g.row_range_start,
            "row_range_end": g.row_range_end,
            "index_field_id": g.index_field_id,
            "extra_field_ids": g.extra_field_ids,
            "index_meta": g.index_meta.as_ref().map(hex::encode),
            "source_meta": g.source_meta.as_ref().map(hex::encode),
        })),
    })
}

fn files(list: &[DataFileMeta]) -> Value {
    list.iter().map(file_json).collect()
}

fn indexes(list: &[IndexFileMeta]) -> Value {
    list.iter().map(index_json).collect()
}

fn message_json(m: &CommitMessage) -> Value {
    let (d, c) = (&m.data_increment, &m.compact_increment);
    json!({
        "bucket": m.bucket,
        "total_buckets": m.total_buckets,
        "check_from_snapshot": m.check_from_snapshot,
        "new_files": files(&d.new_files),
        "deleted_files": files(&d.deleted_files),
        "changelog_files": files(&d.changelog_files),
        "new_index_files": indexes(&d.new_index_files),
        "deleted_index_files": indexes(&d.deleted_index_files),
        "compact_before": files(&c.compact_before),
        "compact_after": files(&c.compact_after),
        "compact_changelog_files": files(&c.changelog_files),
        "compact_new_index_files": indexes(&c.new_index_files),
        "compact_deleted_index_files": indexes(&c.deleted_index_files),
    })
}

/// Every message pypaimon wrote: (case, file, bytes, what pypaimon reports).
fn peer_messages() -> Vec<(String, String, Vec<u8>, Value)> {
    let dir = peer_dir();
    let report: Value = serde_json::from_slice(
        &std::fs::read(dir.join("messages.json")).expect("messages.json of the peer messages"),
    )
    .expect("messages.json parses");
    assert_eq!(report["version"], json!(COMMIT_MESSAGE_VERSION_2_1));
    let mut out = Vec::new();
    for (case, c) in report["cases"].as_object().expect("cases") {
        for m in c["messages"].as_array().expect("messages") {
            let file = m["file"].as_str().expect("file").to_string();
            let bytes = std::fs::read(dir.join(case).join(&file)).expect("message file");
            out.push((case.clone(), file, bytes, m["message"].clone()));
        }
    }
    out
}

#[test]
fn pypaimon_v14_messages_decode_to_pypaimon_values_and_encode_to_its_bytes() {
    let messages = peer_messages();
    // append (1), partitioned append (2), primary key in two buckets (2), delete by row id
    // (1), synthetic (1)
    assert!(messages.len() >= 7, "{} messages", messages.len());
    for (case, file, bytes, expected) in messages {
        let m = decode_commit_message(&bytes, COMMIT_MESSAGE_VERSION_2_1)
            .unwrap_or_else(|e| panic!("{case}/{file}: {e}"));
        assert_eq!(message_json(&m), expected, "{case}/{file}");
        assert_eq!(
            encode_commit_message(&m, COMMIT_MESSAGE_VERSION_2_1).unwrap(),
            bytes,
            "{case}/{file}: our v14 bytes differ from pypaimon's"
        );
    }
}

#[test]
fn pypaimon_synthetic_message_carries_every_v14_field() {
    let dir = peer_dir().join("synthetic/message-0000.bin");
    let bytes = std::fs::read(dir).expect("synthetic message");
    let m = decode_commit_message(&bytes, COMMIT_MESSAGE_VERSION_2_1).unwrap();
    assert_eq!(m.check_from_snapshot, Some(7));
    assert_eq!(m.total_buckets, Some(4));
    let dv = &m.data_increment.new_index_files[0];
    let ranges = dv.dv_ranges.as_ref().expect("deletion-vector ranges");
    assert_eq!(ranges.len(), 2);
    assert_eq!(ranges[1].cardinality, None);
    let g = m.data_increment.new_index_files[1]
        .global_index
        .as_ref()
        .expect("global index meta");
    assert_eq!(g.extra_field_ids, Some(vec![2, 3]));
    assert_eq!(g.source_meta.as_deref(), Some(&b"source"[..]));
    // Version 13 has no place for the check-from snapshot.
    let err = encode_commit_message(&m, 13).unwrap_err().to_string();
    assert!(err.contains("check-from snapshot"), "{err}");
    // Without it, the v13 bytes are the v14 bytes minus the trailing flag.
    let m13 = m.clone().with_check_from_snapshot(None);
    let v13 = encode_commit_message(&m13, 13).unwrap();
    assert_eq!(v13[..], bytes[..bytes.len() - 9]);
    assert_eq!(decode_commit_message(&v13, 13).unwrap(), m13);
}

#[test]
fn v14_check_from_snapshot_flag_other_than_0_or_1_is_refused_by_name() {
    let bytes = std::fs::read(peer_dir().join("append/message-0000.bin")).unwrap();
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] = 2;
    let err = decode_commit_message(&bad, COMMIT_MESSAGE_VERSION_2_1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("check-from snapshot flag is 2"), "{err}");
    // A set flag with a truncated snapshot id names the field too.
    bad[last] = 1;
    let err = decode_commit_message(&bad, COMMIT_MESSAGE_VERSION_2_1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("check-from snapshot"), "{err}");
}

/// `ManifestCommittableSerializer` v5 around v14 messages (what Java 2.1 checkpoints hold):
/// the committable's tail is the message version, the count and pypaimon's bytes unchanged.
#[test]
fn committable_v5_carries_pypaimon_v14_messages_unchanged() {
    use paimon_split::commit::{
        decode_manifest_committable, encode_manifest_committable, ManifestCommittable,
        MANIFEST_COMMITTABLE_VERSION,
    };
    let peer = peer_messages();
    let messages: Vec<CommitMessage> = peer
        .iter()
        .map(|(_, _, b, _)| decode_commit_message(b, COMMIT_MESSAGE_VERSION_2_1).unwrap())
        .collect();
    let c = ManifestCommittable::new(42, messages)
        .with_message_version(COMMIT_MESSAGE_VERSION_2_1)
        .with_property("k", "v");
    let bytes = encode_manifest_committable(&c, MANIFEST_COMMITTABLE_VERSION).unwrap();
    let mut tail = Vec::new();
    tail.extend_from_slice(&14i32.to_be_bytes());
    tail.extend_from_slice(&(peer.len() as i32).to_be_bytes());
    for (_, _, b, _) in &peer {
        tail.extend_from_slice(b);
    }
    assert!(
        bytes.ends_with(&tail),
        "committable does not end in pypaimon's messages"
    );
    // identifier, watermark null flag, one property (count, "k", "v"), then the tail.
    assert_eq!(bytes.len(), 8 + 1 + 4 + 3 + 3 + tail.len());
    assert_eq!(
        decode_manifest_committable(&bytes, MANIFEST_COMMITTABLE_VERSION).unwrap(),
        c
    );
}

/// pypaimon's delete by row id: a deletion-vector index file naming the data file and the row
/// deleted, and the snapshot the delete read (the check-from snapshot).
#[test]
fn pypaimon_delete_by_row_id_carries_a_deletion_vector_and_its_snapshot() {
    let dir = peer_dir().join("dv_delete");
    let bytes = std::fs::read(dir.join("message-0000.bin")).unwrap();
    let m = decode_commit_message(&bytes, COMMIT_MESSAGE_VERSION_2_1).unwrap();
    assert_eq!(m.check_from_snapshot, Some(1));
    assert!(m.data_increment.new_files.is_empty());
    let [dv] = &m.data_increment.new_index_files[..] else {
        panic!("one new index file: {:?}", m.data_increment.new_index_files)
    };
    assert_eq!(dv.index_type, "DELETION_VECTORS");
    let ranges = dv.dv_ranges.as_ref().expect("deletion-vector ranges");
    assert_eq!(ranges.len(), 1);
    assert!(ranges[0].data_file_name.starts_with("data-"));
    assert_eq!(ranges[0].cardinality, Some(1), "one row deleted");
}
