//! Deletion vectors (Java `DeletionVector`, `BitmapDeletionVector`, `Bitmap64DeletionVector`).
//!
//! A deletion vector lists the 0-based row positions of a data file that are deleted. It lives
//! at `(offset, length)` inside an index file (`index/index-<uuid>-<n>`), in one of two layouts
//! (`docs/paimon-format.md` §6):
//!
//! ```text
//! 32-bit: [len: i32 BE][magic 0x5E43F2D0: i32 BE][RoaringBitmap portable][crc32: i32 BE]
//!         length = len = 4 + bitmap bytes
//! 64-bit: [len: i32 BE][magic 0x6439D3D1: i32 LE][count: i64 LE]{[key: i32 LE][bitmap]}*[crc32 BE]
//!         length = 4 + len + 4
//! ```
//!
//! Both are verified: the declared lengths must agree with the entry, the bitmaps must consume
//! exactly the declared bytes, and the CRC32 over magic + body must match.

use std::io::Cursor;

use roaring::{RoaringBitmap, RoaringTreemap};

use crate::error::{Error, Result};

/// Magic of the 32-bit layout (Java `BitmapDeletionVector.MAGIC_NUMBER`).
pub const MAGIC_32: u32 = 1_581_511_376;
/// Magic of the 64-bit layout (Java `Bitmap64DeletionVector.MAGIC_NUMBER`).
pub const MAGIC_64: u32 = 1_681_511_377;
/// Version byte at the start of a deletion-vector index file.
pub const INDEX_FILE_VERSION: u8 = 1;

/// The deleted positions of one data file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeletionVector {
    deleted: RoaringTreemap,
}

impl DeletionVector {
    /// A vector deleting `positions`.
    pub fn from_positions(positions: impl IntoIterator<Item = u64>) -> Self {
        DeletionVector {
            deleted: positions.into_iter().collect(),
        }
    }

    /// Whether row `pos` is deleted.
    pub fn is_deleted(&self, pos: u64) -> bool {
        self.deleted.contains(pos)
    }

    /// Number of deleted rows.
    pub fn cardinality(&self) -> u64 {
        self.deleted.len()
    }

    /// Deleted positions, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.deleted.iter()
    }

    /// Decodes the vector stored at `offset` with entry length `length` inside the bytes of a
    /// whole index file. `path` names the index file in errors.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the magic, lengths, bitmap or CRC do not check out.
    pub fn decode_in_file(file: &[u8], offset: i64, length: i64, path: &str) -> Result<Self> {
        let bad =
            |r: String| Error::corrupt(path, format!("deletion vector at offset {offset}: {r}"));
        let start = usize::try_from(offset).map_err(|_| bad("negative offset".into()))?;
        let rest = file
            .get(start..)
            .ok_or_else(|| bad(format!("offset beyond file size {}", file.len())))?;
        let header = rest
            .get(..8)
            .ok_or_else(|| bad("truncated header".into()))?;
        let declared = i32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        let magic_be = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
        let magic_le = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
        let body_len = usize::try_from(declared)
            .ok()
            .filter(|n| *n >= 4)
            .ok_or_else(|| bad(format!("invalid bitmap length {declared}")))?;
        // magic + body, then the CRC.
        let framed = rest
            .get(4..4 + body_len + 4)
            .ok_or_else(|| bad(format!("bitmap length {body_len} exceeds the file")))?;
        let (covered, crc_bytes) = framed.split_at(body_len);
        let stored_crc =
            u32::from_be_bytes([crc_bytes[0], crc_bytes[1], crc_bytes[2], crc_bytes[3]]);
        let actual_crc = crc32fast::hash(covered);
        if stored_crc != actual_crc {
            return Err(bad(format!(
                "CRC mismatch: stored {stored_crc:#010x}, computed {actual_crc:#010x}"
            )));
        }
        let body = &covered[4..];
        if magic_be == MAGIC_32 {
            if i64::from(declared) != length {
                return Err(bad(format!(
                    "32-bit vector declares length {declared} but the entry says {length}"
                )));
            }
            let bitmap = read_bitmap32(body).map_err(bad)?;
            let mut deleted = RoaringTreemap::new();
            deleted.extend(bitmap.iter().map(u64::from));
            Ok(DeletionVector { deleted })
        } else if magic_le == MAGIC_64 {
            if Some(i64::from(declared)) != length.checked_sub(8) {
                return Err(bad(format!(
                    "64-bit vector declares length {declared} but the entry says {length}"
                )));
            }
            decode_body64(body).map_err(bad)
        } else {
            Err(bad(format!("unknown magic {magic_be:#010x}")))
        }
    }
}

impl DeletionVector {
    /// Marks row `pos` deleted; `false` when it already was.
    pub fn insert(&mut self, pos: u64) -> bool {
        self.deleted.insert(pos)
    }

    /// Adds every position of `other`.
    pub fn merge(&mut self, other: &DeletionVector) {
        self.deleted |= &other.deleted;
    }

    /// The vector as Java's `DeletionVector.serializeTo` frames it inside an index file,
    /// with the `length` its `DeletionVectorMeta` records:
    /// `[len i32 BE][magic][bitmap][crc32 BE]`, the bitmap run-length encoded first as Java
    /// does. `bitmap64` picks the 64-bit layout (`deletion-vectors.bitmap64`).
    ///
    /// # Errors
    /// [`Error::Internal`] when a 32-bit vector holds a position beyond `u32` (the layout
    /// cannot hold it) or the encoded vector exceeds 2 GiB.
    pub fn encode(&self, bitmap64: bool) -> Result<(Vec<u8>, i64)> {
        let too_big = || Error::Internal("deletion vector larger than 2 GiB".into());
        let mut covered = Vec::new();
        if bitmap64 {
            covered.extend_from_slice(&MAGIC_64.to_le_bytes());
            let bitmaps: Vec<(u32, &RoaringBitmap)> = self.deleted.bitmaps().collect();
            covered.extend_from_slice(&(bitmaps.len() as i64).to_le_bytes());
            for (key, bitmap) in bitmaps {
                covered.extend_from_slice(&key.to_le_bytes());
                let mut bitmap = bitmap.clone();
                bitmap.optimize();
                bitmap
                    .serialize_into(&mut covered)
                    .map_err(|e| Error::Internal(e.to_string()))?;
            }
        } else {
            covered.extend_from_slice(&MAGIC_32.to_be_bytes());
            let mut bitmap = RoaringBitmap::new();
            for pos in self.deleted.iter() {
                let pos = u32::try_from(pos).map_err(|_| {
                    Error::Internal(format!(
                        "row position {pos} does not fit a 32-bit deletion vector"
                    ))
                })?;
                bitmap.insert(pos);
            }
            bitmap.optimize();
            bitmap
                .serialize_into(&mut covered)
                .map_err(|e| Error::Internal(e.to_string()))?;
        }
        let declared = i32::try_from(covered.len()).map_err(|_| too_big())?;
        let mut out = Vec::with_capacity(covered.len() + 8);
        out.extend_from_slice(&declared.to_be_bytes());
        out.extend_from_slice(&covered);
        out.extend_from_slice(&crc32fast::hash(&covered).to_be_bytes());
        // Java's 32-bit meta records the magic and bitmap; the 64-bit one the whole frame.
        let length = if bitmap64 { out.len() } else { covered.len() };
        Ok((out, length as i64))
    }
}

/// Reads one portable RoaringBitmap that must span exactly `bytes`.
fn read_bitmap32(bytes: &[u8]) -> std::result::Result<RoaringBitmap, String> {
    let mut cur = Cursor::new(bytes);
    let bitmap =
        RoaringBitmap::deserialize_from(&mut cur).map_err(|e| format!("bad bitmap: {e}"))?;
    if cur.position() != bytes.len() as u64 {
        return Err(format!(
            "bitmap uses {} of its {} bytes",
            cur.position(),
            bytes.len()
        ));
    }
    Ok(bitmap)
}

fn decode_body64(body: &[u8]) -> std::result::Result<DeletionVector, String> {
    let count_bytes: [u8; 8] = body
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or("truncated bitmap count")?;
    let count = i64::from_le_bytes(count_bytes);
    if count < 0 || count > (body.len() as i64) {
        return Err(format!("invalid bitmap count {count}"));
    }
    let mut cur = Cursor::new(&body[8..]);
    let mut deleted = RoaringTreemap::new();
    let mut last_key: Option<u32> = None;
    for _ in 0..count {
        let mut key = [0u8; 4];
        std::io::Read::read_exact(&mut cur, &mut key).map_err(|_| "truncated bitmap key")?;
        let key = u32::from_le_bytes(key);
        if last_key.is_some_and(|k| k >= key) {
            return Err(format!("bitmap keys not ascending at key {key}"));
        }
        last_key = Some(key);
        let bitmap =
            RoaringBitmap::deserialize_from(&mut cur).map_err(|e| format!("bad bitmap: {e}"))?;
        let high = u64::from(key) << 32;
        deleted.extend(bitmap.iter().map(|low| high | u64::from(low)));
    }
    if cur.position() != (body.len() - 8) as u64 {
        return Err(format!(
            "64-bit body has {} trailing bytes",
            (body.len() - 8) as u64 - cur.position()
        ));
    }
    Ok(DeletionVector { deleted })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(name: &str) -> Vec<u8> {
        let path = format!(
            "{}/../../../shared/testdata/java-compat/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(&path).unwrap_or_else(|e| panic!("golden file {path} missing: {e}"))
    }

    #[test]
    fn decodes_java_32_bit_golden() {
        let file = golden("dvindex-32");
        assert_eq!(file[0], INDEX_FILE_VERSION);
        let dv1 = DeletionVector::decode_in_file(&file, 1, 24, "dvindex-32").unwrap();
        assert_eq!(dv1.iter().collect::<Vec<_>>(), vec![2, 3]);
        // next entry: prefix (4) + length (24) + crc (4)
        let dv2 = DeletionVector::decode_in_file(&file, 1 + 4 + 24 + 4, 22, "dvindex-32").unwrap();
        assert_eq!(dv2.iter().collect::<Vec<_>>(), vec![1]);
        assert_eq!(file.len(), 1 + 32 + 4 + 22 + 4);
    }

    #[test]
    fn decodes_java_64_bit_golden() {
        let file = golden("dvindex-64");
        let dv1 = DeletionVector::decode_in_file(&file, 1, 44, "dvindex-64").unwrap();
        assert_eq!(dv1.iter().collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(dv1.cardinality(), 2);
        let dv2 = DeletionVector::decode_in_file(&file, 1 + 44, 42, "dvindex-64").unwrap();
        assert_eq!(dv2.iter().collect::<Vec<_>>(), vec![1]);
        assert!(dv2.is_deleted(1) && !dv2.is_deleted(2));
    }

    /// Java's index files are a version byte and the framed vectors: encoding the golden
    /// vectors ({2, 3} then {1}) gives Java's bytes, in both layouts.
    #[test]
    fn encodes_java_golden_bytes() {
        for (name, bitmap64) in [("dvindex-32", false), ("dvindex-64", true)] {
            let mut file = vec![INDEX_FILE_VERSION];
            let mut lengths = Vec::new();
            for positions in [vec![2, 3], vec![1]] {
                let (bytes, length) = DeletionVector::from_positions(positions)
                    .encode(bitmap64)
                    .unwrap();
                file.extend_from_slice(&bytes);
                lengths.push(length);
            }
            assert_eq!(file, golden(name), "{name}");
            let want = if bitmap64 { [44, 42] } else { [24, 22] };
            assert_eq!(lengths, want, "{name}");
        }
    }

    #[test]
    fn encoded_runs_and_high_positions_decode_again() {
        let mut dv = DeletionVector::from_positions(0..70_000);
        dv.insert(5 << 32);
        let (bytes, length) = dv.encode(true).unwrap();
        let back = DeletionVector::decode_in_file(&bytes, 0, length, "x").unwrap();
        assert_eq!(back, dv);
        assert!(dv.encode(false).is_err());
        let dv = DeletionVector::from_positions((0..200_000).filter(|p| p % 3 != 1));
        let (bytes, length) = dv.encode(false).unwrap();
        assert_eq!(
            DeletionVector::decode_in_file(&bytes, 0, length, "x").unwrap(),
            dv
        );
    }

    #[test]
    fn rejects_wrong_length_and_crc() {
        let file = golden("dvindex-32");
        assert!(DeletionVector::decode_in_file(&file, 1, 25, "x").is_err());
        let mut bad = file.clone();
        bad[12] ^= 0xFF;
        assert!(DeletionVector::decode_in_file(&bad, 1, 24, "x").is_err());
        assert!(DeletionVector::decode_in_file(&file, 1000, 24, "x").is_err());
        let file64 = golden("dvindex-64");
        assert!(DeletionVector::decode_in_file(&file64, 1, 40, "x").is_err());
    }
}
