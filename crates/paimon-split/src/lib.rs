//! # paimon-split: the protocol between the control and data planes
//!
//! A [`DataSplit`] is the unit of read work a planner hands a worker. Its bytes are Java
//! Paimon's own `DataSplit.serialize` format, so splits planned by Java (Flink, Spark), C++,
//! Python or Rust can be read by any of them. Three envelopes are understood:
//!
//! * raw `DataSplit.serialize` bytes, versions 1..=9 ([`codec`]);
//! * the cross-language `SPLIT_V1` frame ([`frame`]), which also carries incremental, indexed,
//!   chain, query-auth and fallback splits;
//! * Java object-serialization images ([`java_stream`]), as Spark and Flink ship them, and as
//!   Java 1.4+ ships incremental-diff splits ([`incremental`]).
//!
//! ```
//! use paimon_split::{decode_split, encode_split, SplitEnvelope};
//! # let split = paimon_split::DataSplit {
//! #     snapshot_id: 1, partition: vec![0; 12], bucket: 0, bucket_path: "/t/bucket-0".into(),
//! #     total_buckets: Some(1), before_files: vec![], before_deletion_files: None,
//! #     data_files: vec![], data_deletion_files: None, is_streaming: false, raw_convertible: true,
//! # };
//! let bytes = encode_split(&split, 9, SplitEnvelope::Raw).unwrap();
//! assert_eq!(decode_split(&bytes).unwrap(), split);
//! ```
//!
//! The same crate carries the other direction of the protocol: the [`commit`] messages writers
//! hand the committer (Java `CommitMessageSerializer`, `ManifestCommittableSerializer`), the
//! [`CompactTask`]s a compaction planner hands its workers, and the [`WriteContext`] a write
//! planner hands its writers (schema, restored sequence numbers, hash index), so that no
//! worker reads the table's metadata.
//!
//! Decoding never panics and never allocates from an unchecked length: malformed input gives
//! [`Error::Corrupt`] with the byte offset where decoding stopped.
//!
//! Both planes speak this protocol, so it depends on `paimon-spec` only: no I/O, no planner,
//! no reader (`scripts/check-boundaries.sh`).

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod codec;
pub mod commit;
pub mod compact;
pub mod compact_codec;
pub mod error;
pub mod frame;
pub mod incremental;
pub mod java_stream;
pub mod read_options;
mod split;
pub mod wire;
pub mod write_context;
pub mod write_context_codec;

pub use codec::{CURRENT_VERSION, DATA_SPLIT_MAGIC};
pub use commit::{
    decode_commit_message, decode_commit_message_list, decode_manifest_committable,
    decode_versioned_commit_message, encode_commit_message, encode_commit_message_list,
    encode_manifest_committable, encode_versioned_commit_message, CommitMessage, CompactIncrement,
    DataIncrement, ManifestCommittable, DEFAULT_COMMIT_MESSAGE_VERSION,
};
pub use compact::{CompactLookup, CompactRewrite, CompactTask};
pub use compact_codec::{decode_compact_task, encode_compact_task};
pub use error::{Error, Result};
pub use frame::Split;
pub use read_options::{decode_read_options, encode_read_options, SplitReadOptions};
pub use split::{DataSplit, DataSplitRef};
pub use write_context::{HashIndexFile, RestoredSequence, WriteContext};
pub use write_context_codec::{decode_write_context, encode_write_context};

use wire::{WireReader, WireWriter};

/// How split bytes are wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitEnvelope {
    /// Plain `DataSplit.serialize` bytes.
    Raw,
    /// `DataSplit.serialize` bytes followed by an `isFallback` boolean (Java
    /// `FallbackDataSplit.serialize` outside a frame, as tables with a fallback branch write).
    RawFallback,
    /// The `SPLIT_V1` cross-language frame.
    SplitV1,
    /// A Java object-serialization image.
    JavaObject,
}

/// A decoded split with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedSplit {
    /// The split.
    pub split: Split,
    /// The envelope the bytes used.
    pub envelope: SplitEnvelope,
    /// The DataSplit version of the (outermost) data split, when there is one.
    pub version: Option<i32>,
}

/// Detects the envelope of `bytes`.
pub fn detect_envelope(bytes: &[u8]) -> SplitEnvelope {
    if java_stream::is_java_stream(bytes) {
        SplitEnvelope::JavaObject
    } else if bytes.starts_with(&frame::FRAME_MAGIC.to_be_bytes()) {
        SplitEnvelope::SplitV1
    } else {
        SplitEnvelope::Raw
    }
}

/// Decodes split bytes in any envelope into any split kind.
///
/// # Errors
/// [`Error::Corrupt`] on malformed bytes or trailing garbage; [`Error::VersionMismatch`] and
/// [`Error::Unsupported`] on versions or kinds that are not understood.
pub fn decode_any(bytes: &[u8]) -> Result<DecodedSplit> {
    let envelope = detect_envelope(bytes);
    let unwrapped;
    let body: &[u8] = match envelope {
        SplitEnvelope::JavaObject => {
            let (class, payload) = java_stream::unwrap_java_object(bytes)?;
            if class == java_stream::JavaSplitClass::IncrementalSplit {
                let mut r = WireReader::new(&payload);
                let split = Split::Incremental(frame::read_incremental(&mut r)?);
                if r.remaining() != 0 {
                    return Err(
                        r.corrupt(format!("{} trailing bytes after the split", r.remaining()))
                    );
                }
                return Ok(DecodedSplit {
                    split,
                    envelope,
                    version: None,
                });
            }
            unwrapped = payload;
            &unwrapped
        }
        _ => bytes,
    };
    let mut r = WireReader::new(body);
    let (split, version) = match envelope {
        SplitEnvelope::SplitV1 => frame::read_frame_with_version(&mut r)?,
        _ => {
            let (s, v) = codec::read_data_split(&mut r)?;
            if envelope == SplitEnvelope::Raw && r.remaining() == 1 {
                let is_fallback = r.bool("isFallback")?;
                return Ok(DecodedSplit {
                    split: Split::FallbackData {
                        split: s,
                        is_fallback,
                    },
                    envelope: SplitEnvelope::RawFallback,
                    version: Some(v),
                });
            }
            (Split::Data(s), Some(v))
        }
    };
    if r.remaining() != 0 {
        return Err(r.corrupt(format!("{} trailing bytes after the split", r.remaining())));
    }
    Ok(DecodedSplit {
        split,
        envelope,
        version,
    })
}

/// Decodes split bytes in any envelope that hold one data split.
///
/// # Errors
/// As [`decode_any`], plus [`Error::Unsupported`] when the frame holds a kind that is more than
/// one DataSplit read in full ([`Split::data_split`]): incremental and chain splits, and
/// indexed and query-auth splits, whose row ranges, filters and masks a plain DataSplit would
/// drop.
pub fn decode_split(bytes: &[u8]) -> Result<DataSplit> {
    let d = decode_any(bytes)?;
    match d.split {
        Split::Data(s) => Ok(s),
        other => other
            .data_split()
            .cloned()
            .ok_or_else(|| Error::Unsupported {
                feature: format!("reading a {} split as a data split", other.kind_name()),
            }),
    }
}

/// Encodes a data split at `version` in `envelope`.
///
/// # Errors
/// [`Error::VersionMismatch`] on an unknown version; [`Error::Encode`] when the split cannot be
/// carried at that version.
pub fn encode_split(split: &DataSplit, version: i32, envelope: SplitEnvelope) -> Result<Vec<u8>> {
    let mut w = WireWriter::default();
    match envelope {
        SplitEnvelope::SplitV1 => frame::write_frame(&mut w, &Split::Data(split.clone()), version)?,
        SplitEnvelope::Raw | SplitEnvelope::JavaObject => {
            codec::write_data_split(&mut w, split, version)?
        }
        SplitEnvelope::RawFallback => {
            codec::write_data_split(&mut w, split, version)?;
            w.bool(false);
        }
    }
    Ok(match envelope {
        SplitEnvelope::JavaObject => java_stream::wrap_java_stream(&w.buf),
        _ => w.buf,
    })
}

/// Encodes a decoded split back into its own envelope (data splits at `version`).
///
/// # Errors
/// As [`encode_split`]; [`Error::Unsupported`] when the envelope cannot carry that kind.
pub fn encode_decoded(split: &Split, envelope: SplitEnvelope, version: i32) -> Result<Vec<u8>> {
    match (split, envelope) {
        (_, SplitEnvelope::SplitV1) => encode_frame(split, version),
        (Split::Data(s), env) => encode_split(s, version, env),
        (Split::Incremental(s), SplitEnvelope::JavaObject) => {
            let mut w = WireWriter::default();
            frame::write_incremental(&mut w, s)?;
            Ok(java_stream::wrap_incremental_java_stream(&w.buf))
        }
        (Split::FallbackData { split, is_fallback }, SplitEnvelope::RawFallback) => {
            let mut w = WireWriter::default();
            codec::write_data_split(&mut w, split, version)?;
            w.bool(*is_fallback);
            Ok(w.buf)
        }
        (other, env) => Err(Error::Unsupported {
            feature: format!("a {} split in the {env:?} envelope", other.kind_name()),
        }),
    }
}

/// Encodes any split kind in a `SPLIT_V1` frame, data splits at `version`.
///
/// # Errors
/// As [`encode_split`].
pub fn encode_frame(split: &Split, version: i32) -> Result<Vec<u8>> {
    let mut w = WireWriter::default();
    frame::write_frame(&mut w, split, version)?;
    Ok(w.buf)
}
