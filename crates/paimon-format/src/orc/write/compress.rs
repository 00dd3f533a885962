//! ORC's compression framing: a stream is cut into blocks of the file's compression block
//! size, each compressed on its own behind a 3-byte header, or kept as it is (with the
//! header's low bit set) when compressing does not make it smaller.

use std::io::Write;

/// The codecs of `orc.compress` written here, with their PostScript `CompressionKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrcCodec {
    /// NONE (0): streams are written as they are.
    None,
    /// ZLIB (1): raw deflate.
    Zlib,
    /// SNAPPY (2): raw snappy blocks.
    Snappy,
    /// LZ4 (4): raw LZ4 blocks.
    Lz4,
    /// ZSTD (5) at a level.
    Zstd(i32),
}

impl OrcCodec {
    /// The codec of a `file.compression` value; `None` for a name ORC has no codec for here.
    pub fn from_name(name: &str, zstd_level: i32) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "zstd" => OrcCodec::Zstd(zstd_level),
            "snappy" => OrcCodec::Snappy,
            "zlib" | "deflate" => OrcCodec::Zlib,
            "lz4" => OrcCodec::Lz4,
            "none" | "uncompressed" => OrcCodec::None,
            _ => return None,
        })
    }

    /// PostScript `CompressionKind`.
    pub fn kind(self) -> u64 {
        match self {
            OrcCodec::None => 0,
            OrcCodec::Zlib => 1,
            OrcCodec::Snappy => 2,
            OrcCodec::Lz4 => 4,
            OrcCodec::Zstd(_) => 5,
        }
    }
}

/// Block size of the framing (Java's `orc.compress.size` default, 256 KiB).
pub const BLOCK_SIZE: usize = 256 * 1024;

/// `raw` as it is stored with `codec`.
///
/// # Errors
/// The codec's error.
pub fn frame(codec: OrcCodec, raw: &[u8]) -> std::io::Result<Vec<u8>> {
    if codec == OrcCodec::None {
        return Ok(raw.to_vec());
    }
    let mut out = Vec::with_capacity(raw.len() / 2 + 16);
    for block in raw.chunks(BLOCK_SIZE) {
        let packed = compress(codec, block)?;
        if packed.len() < block.len() {
            header(packed.len() << 1, &mut out);
            out.extend_from_slice(&packed);
        } else {
            header((block.len() << 1) | 1, &mut out);
            out.extend_from_slice(block);
        }
    }
    Ok(out)
}

fn header(v: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
}

fn compress(codec: OrcCodec, block: &[u8]) -> std::io::Result<Vec<u8>> {
    match codec {
        OrcCodec::None => Ok(block.to_vec()),
        OrcCodec::Zlib => {
            let mut e =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(block)?;
            e.finish()
        }
        OrcCodec::Snappy => snap::raw::Encoder::new()
            .compress_vec(block)
            .map_err(std::io::Error::other),
        OrcCodec::Lz4 => Ok(lz4_flex::block::compress(block)),
        OrcCodec::Zstd(level) => zstd::bulk::compress(block, level),
    }
}
