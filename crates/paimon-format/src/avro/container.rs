//! Writing Avro object container files (the Avro 1.x "Object Container Files" layout Java's
//! `DataFileWriter` produces): the header with the schema JSON and the codec, then blocks of
//! encoded records, each followed by the file's sync marker. Manifest-family files (paimon-meta)
//! and Avro data files (paimon-write) are both framed here; what the records hold is up to
//! them.
//!
//! ```text
//! "Obj" 0x01 | map {avro.schema: json, avro.codec: name} | sync(16)
//! block: count (long) | size (long) | compressed records | sync(16)   ... repeated
//! ```

use crate::error::{Error, Result};
use std::io::Write;

/// The four bytes every container starts with.
pub const MAGIC: &[u8; 4] = b"Obj\x01";

/// Uncompressed record bytes after which a block is closed (Java `DataFileWriter`'s default
/// sync interval).
pub const BLOCK_SIZE: usize = 64_000;

/// A block codec (the header's `avro.codec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AvroCodec {
    /// `null`: stored as is.
    Null,
    /// `zstandard` (level 1, as Paimon's default `zstd` level).
    Zstandard,
    /// `snappy`, with the big-endian CRC32 of the raw bytes after each block.
    Snappy,
    /// `deflate` (raw deflate, default level).
    Deflate,
}

impl AvroCodec {
    /// The codec of a Paimon compression name (`file.compression`, `manifest.compression`):
    /// `none`/`null`/empty, `zstd`, `snappy`, `deflate`; `None` for a name Avro has no codec
    /// for here.
    pub fn from_compression(compression: &str) -> Option<Self> {
        match compression.to_ascii_lowercase().as_str() {
            "" | "none" | "null" | "uncompressed" => Some(AvroCodec::Null),
            "zstd" | "zstandard" => Some(AvroCodec::Zstandard),
            "snappy" => Some(AvroCodec::Snappy),
            "deflate" => Some(AvroCodec::Deflate),
            _ => None,
        }
    }

    /// The header's name of the codec.
    pub fn name(self) -> &'static str {
        match self {
            AvroCodec::Null => "null",
            AvroCodec::Zstandard => "zstandard",
            AvroCodec::Snappy => "snappy",
            AvroCodec::Deflate => "deflate",
        }
    }

    fn compress(self, raw: &[u8]) -> Result<Vec<u8>> {
        match self {
            AvroCodec::Null => Ok(raw.to_vec()),
            AvroCodec::Zstandard => {
                zstd::bulk::compress(raw, 1).map_err(|e| bad(format!("zstd: {e}")))
            }
            AvroCodec::Snappy => {
                let mut out = snap::raw::Encoder::new()
                    .compress_vec(raw)
                    .map_err(|e| bad(format!("snappy: {e}")))?;
                out.extend(crc32fast::hash(raw).to_be_bytes());
                Ok(out)
            }
            AvroCodec::Deflate => {
                let mut enc =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
                enc.write_all(raw)
                    .map_err(|e| bad(format!("deflate: {e}")))?;
                enc.finish().map_err(|e| bad(format!("deflate: {e}")))
            }
        }
    }
}

/// Avro's zig-zag varint `long`.
pub fn write_long(out: &mut Vec<u8>, v: i64) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8 & 0x7F) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Avro `bytes` (and `string`): the length, then the bytes.
pub fn write_bytes(out: &mut Vec<u8>, b: &[u8]) {
    write_long(out, b.len() as i64);
    out.extend_from_slice(b);
}

/// The container header for records of `schema_json` in blocks of `codec`, ending with `sync`.
pub fn header(schema_json: &str, codec: AvroCodec, sync: [u8; 16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + schema_json.len());
    out.extend_from_slice(MAGIC);
    write_long(&mut out, 2);
    write_bytes(&mut out, b"avro.schema");
    write_bytes(&mut out, schema_json.as_bytes());
    write_bytes(&mut out, b"avro.codec");
    write_bytes(&mut out, codec.name().as_bytes());
    out.push(0);
    out.extend_from_slice(&sync);
    out
}

/// One block of `count` records whose encoded bytes are `raw`, compressed with `codec` and
/// followed by `sync`.
///
/// # Errors
/// The compressor's message.
pub fn block(codec: AvroCodec, count: i64, raw: &[u8], sync: [u8; 16]) -> Result<Vec<u8>> {
    let data = codec.compress(raw)?;
    let mut out = Vec::with_capacity(data.len() + 36);
    write_long(&mut out, count);
    write_long(&mut out, data.len() as i64);
    out.extend_from_slice(&data);
    out.extend_from_slice(&sync);
    Ok(out)
}

/// An [`Error`] of Avro container: `reason` says what is wrong.
fn bad(reason: impl Into<String>) -> Error {
    Error::encode("Avro container", reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longs_zig_zag_as_avro() {
        for (v, bytes) in [
            (0i64, vec![0u8]),
            (-1, vec![1]),
            (1, vec![2]),
            (-64, vec![0x7F]),
            (64, vec![0x80, 0x01]),
        ] {
            let mut out = Vec::new();
            write_long(&mut out, v);
            assert_eq!(out, bytes, "{v}");
        }
    }

    #[test]
    fn codecs_by_paimon_names() {
        assert_eq!(
            AvroCodec::from_compression("ZSTD"),
            Some(AvroCodec::Zstandard)
        );
        assert_eq!(AvroCodec::from_compression("none"), Some(AvroCodec::Null));
        assert_eq!(AvroCodec::from_compression("lz4"), None);
        assert_eq!(AvroCodec::Snappy.name(), "snappy");
    }
}
