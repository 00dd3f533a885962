//! The bytes of a [`WriteContext`], so a planner can hand write work to workers in other
//! processes. Java has no such message (its writers read the table themselves), so the layout
//! is paimon-rs's own, built from Java's pieces: the schema is the JSON of a schema file, the
//! partitions `SerializationUtils.serializeBinaryRow` bytes and the index files rows of the
//! commit message's newest index layout.
//!
//! ```text
//! magic i64 | version i32 (1)
//! table path: [len i32][UTF-8]
//! schema: [len i32][UTF-8 JSON of schema-N]
//! snapshot id: false | true i64
//! overwrite bool | compact after bool
//! commit user: false | true [len i32][UTF-8]
//! restored sequence numbers: [count i32] ([len i32][partition] bucket i32 seq i64)*
//! hash index: [count i32] ([len i32][partition] bucket i32 [count i32]([size i32][row])*)*
//! ```
//!
//! Decoding checks what a worker relies on (partitions are serialized rows of the schema's
//! partition arity, buckets in range, paths allowed by [`WriteContext::check_paths`], no
//! trailing bytes) and never panics on hostile bytes; errors name the field.

use paimon_spec::binary::BinaryRow;
use paimon_spec::index_file::IndexFileLayout;
use paimon_spec::schema::TableSchema;

use crate::codec::spec_err;
use crate::commit::message::{read_index_files, write_index_files};
use crate::error::{Error, Result};
use crate::wire::{WireReader, WireWriter};
use crate::write_context::WriteContext;

/// First eight bytes of a write context ("PMWCTX01" read as a big-endian i64).
pub const WRITE_CONTEXT_MAGIC: i64 = i64::from_be_bytes(*b"PMWCTX01");
/// The one layout version written and read.
pub const WRITE_CONTEXT_VERSION: i32 = 1;
/// Index files in the newest commit-message layout.
const INDEX_LAYOUT: IndexFileLayout = IndexFileLayout::V5;
/// The smallest bucket: Java's postpone bucket (-2); -1 is a dynamic or unaware bucket.
const MIN_BUCKET: i32 = -2;

/// Encodes `ctx`.
///
/// # Errors
/// [`Error::Encode`] when a partition is not a serialized row, a length exceeds i32 or an
/// index file cannot be carried by the index layout.
pub fn encode_write_context(ctx: &WriteContext) -> Result<Vec<u8>> {
    let mut w = WireWriter::default();
    w.i64(WRITE_CONTEXT_MAGIC);
    w.i32(WRITE_CONTEXT_VERSION);
    write_text(&mut w, &ctx.table_path)?;
    write_text(&mut w, &ctx.schema.to_json_string())?;
    match ctx.snapshot_id {
        None => w.bool(false),
        Some(id) => {
            w.bool(true);
            w.i64(id);
        }
    }
    w.bool(ctx.overwrite);
    w.bool(ctx.compact_after);
    match &ctx.commit_user {
        None => w.bool(false),
        Some(u) => {
            w.bool(true);
            write_text(&mut w, u)?;
        }
    }
    w.len(ctx.restored_sequence_numbers.len())?;
    for (partition, bucket, seq) in &ctx.restored_sequence_numbers {
        write_partition(&mut w, partition)?;
        w.i32(*bucket);
        w.i64(*seq);
    }
    // Consecutive files of one bucket share a group.
    let groups: Vec<_> = ctx
        .hash_index_files
        .chunk_by(|a, b| a.0 == b.0 && a.1 == b.1)
        .collect();
    w.len(groups.len())?;
    for group in groups {
        let Some((partition, bucket, _)) = group.first() else {
            continue;
        };
        write_partition(&mut w, partition)?;
        w.i32(*bucket);
        let files: Vec<_> = group.iter().map(|(_, _, f)| f.clone()).collect();
        write_index_files(&mut w, &files, INDEX_LAYOUT)?;
    }
    Ok(w.buf)
}

/// Decodes the bytes of [`encode_write_context`].
///
/// # Errors
/// [`Error::Corrupt`] for bytes that are not a write context (wrong magic, truncated, a
/// malformed schema, partition or index file, a bucket out of range, trailing bytes),
/// [`Error::UnsupportedVersion`] for another version, [`Error::Spec`] with
/// [`paimon_spec::Error::PathNotAllowed`] for a path the table may not use.
pub fn decode_write_context(bytes: &[u8]) -> Result<WriteContext> {
    let mut r = WireReader::new(bytes);
    if r.i64("write context magic")? != WRITE_CONTEXT_MAGIC {
        return Err(Error::Corrupt {
            offset: 0,
            reason: "not a write context (wrong magic)".into(),
        });
    }
    let version = r.i32("write context version")?;
    if version != WRITE_CONTEXT_VERSION {
        return Err(Error::UnsupportedVersion {
            what: "write context",
            found: version,
            supported: WRITE_CONTEXT_VERSION.to_string(),
        });
    }
    let at = r.position();
    let table_path = read_text(&mut r, "WriteContext.tablePath")?;
    if table_path.is_empty() {
        return Err(Error::Corrupt {
            offset: at,
            reason: "WriteContext.tablePath is empty".into(),
        });
    }
    let at = r.position();
    let json = read_text(&mut r, "WriteContext.schema")?;
    let schema = TableSchema::from_json_str(&json).map_err(|e| Error::Corrupt {
        offset: at,
        reason: format!("WriteContext.schema: {e}"),
    })?;
    let arity = schema.partition_keys.len();
    let snapshot_id = match r.bool("WriteContext.snapshotId present")? {
        false => None,
        true => {
            let at = r.position();
            let id = r.i64("WriteContext.snapshotId")?;
            if id < 1 {
                return Err(Error::Corrupt {
                    offset: at,
                    reason: format!("WriteContext.snapshotId {id} is not positive"),
                });
            }
            Some(id)
        }
    };
    let overwrite = r.bool("WriteContext.overwrite")?;
    let compact_after = r.bool("WriteContext.compactAfter")?;
    let commit_user = match r.bool("WriteContext.commitUser present")? {
        false => None,
        true => Some(read_text(&mut r, "WriteContext.commitUser")?),
    };
    let n = r.count("WriteContext.restoredSequenceNumbers count", 4 + 4 + 4 + 8)?;
    let mut restored_sequence_numbers = Vec::with_capacity(n);
    for _ in 0..n {
        let partition = read_partition(&mut r, arity, "WriteContext.restoredSequenceNumbers")?;
        let bucket = read_bucket(&mut r, "WriteContext.restoredSequenceNumbers.bucket")?;
        let seq = r.i64("WriteContext.restoredSequenceNumbers.sequenceNumber")?;
        restored_sequence_numbers.push((partition, bucket, seq));
    }
    let n = r.count("WriteContext.hashIndexFiles count", 4 + 4 + 4 + 4)?;
    let mut hash_index_files = Vec::new();
    for _ in 0..n {
        let partition = read_partition(&mut r, arity, "WriteContext.hashIndexFiles")?;
        let bucket = read_bucket(&mut r, "WriteContext.hashIndexFiles.bucket")?;
        let files = read_index_files(&mut r, INDEX_LAYOUT, "WriteContext.hashIndexFiles count")?;
        hash_index_files.extend(files.into_iter().map(|f| (partition.clone(), bucket, f)));
    }
    if r.remaining() > 0 {
        return Err(Error::Corrupt {
            offset: r.position(),
            reason: format!("{} bytes after the write context", r.remaining()),
        });
    }
    let ctx = WriteContext {
        table_path,
        schema,
        snapshot_id,
        overwrite,
        compact_after,
        commit_user,
        restored_sequence_numbers,
        hash_index_files,
    };
    ctx.check_paths().map_err(spec_err(0))?;
    Ok(ctx)
}

/// `[len i32][UTF-8]` (a schema may exceed `writeUTF`'s 65535 bytes).
fn write_text(w: &mut WireWriter, s: &str) -> Result<()> {
    w.len(s.len())?;
    w.bytes(s.as_bytes());
    Ok(())
}

fn read_text(r: &mut WireReader<'_>, what: &str) -> Result<String> {
    let at = r.position();
    let n = r.count(what, 1)?;
    let bytes = r.take(n, what)?;
    String::from_utf8(bytes.to_vec()).map_err(|e| Error::Corrupt {
        offset: at,
        reason: format!("{what} is not UTF-8: {e}"),
    })
}

fn write_partition(w: &mut WireWriter, partition: &[u8]) -> Result<()> {
    BinaryRow::from_serialized(partition).map_err(|e| Error::Encode {
        reason: format!("partition is not a serialized BinaryRow: {e}"),
    })?;
    w.len(partition.len())?;
    w.bytes(partition);
    Ok(())
}

/// A serialized partition row (`[arity][row]`) of the schema's partition arity.
fn read_partition(r: &mut WireReader<'_>, arity: usize, what: &str) -> Result<Vec<u8>> {
    let at = r.position();
    let n = r.count(&format!("{what}.partition size"), 1)?;
    let bytes = r.take(n, what)?;
    let row = BinaryRow::from_serialized(bytes).map_err(spec_err(at))?;
    if row.arity() != arity {
        return Err(Error::Corrupt {
            offset: at,
            reason: format!(
                "{what}.partition has {} fields, the schema {arity} partition keys",
                row.arity()
            ),
        });
    }
    Ok(bytes.to_vec())
}

fn read_bucket(r: &mut WireReader<'_>, what: &str) -> Result<i32> {
    let at = r.position();
    let bucket = r.i32(what)?;
    if bucket < MIN_BUCKET {
        return Err(Error::Corrupt {
            offset: at,
            reason: format!("{what} {bucket} is below {MIN_BUCKET}"),
        });
    }
    Ok(bucket)
}
