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

mod portable;

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
    /// whole index file, for a data file of `rows` rows. `path` names the index file in
    /// errors.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the magic, lengths, bitmap or CRC do not check out, or the
    /// vector deletes a row at or past `rows`. No message holds the file's bytes.
    pub fn decode_in_file(
        file: &[u8],
        offset: i64,
        length: i64,
        path: &str,
        rows: u64,
    ) -> Result<Self> {
        let start = usize::try_from(offset)
            .map_err(|_| entry_error(path, offset, "negative offset".into()))?;
        let frame = file.get(start..).ok_or_else(|| {
            entry_error(
                path,
                offset,
                format!("offset beyond file size {}", file.len()),
            )
        })?;
        decode_frame(frame, offset, length, path, rows)
    }

    /// Reads and decodes the vector at `offset` (entry length `length`) of the index file
    /// `path`, for a data file of `rows` rows. Only the entry's frame is read, after the
    /// file's status shows a regular file holding it; an entry longer than
    /// [`MAX_ENTRY_BYTES`] is refused unread.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Corrupt`] as
    /// [`DeletionVector::decode_in_file`], and when the entry is out of range or the path is
    /// not a regular file.
    pub fn read_in_file(
        io: &dyn paimon_io::FileIO,
        path: &str,
        offset: i64,
        length: i64,
        rows: u64,
    ) -> Result<Self> {
        let bad = |r: String| entry_error(path, offset, r);
        let start = u64::try_from(offset).map_err(|_| bad("negative offset".into()))?;
        let len = u64::try_from(length)
            .ok()
            .filter(|n| (4..=MAX_ENTRY_BYTES).contains(n))
            .ok_or_else(|| {
                bad(format!(
                    "entry length {length} is out of range (4 to {MAX_ENTRY_BYTES} bytes)"
                ))
            })?;
        let status = io.status(path).map_err(|e| Error::io(path, e))?;
        if status.is_dir {
            return Err(bad("the index file is a directory".into()));
        }
        let end = start.saturating_add(len);
        if end > status.size {
            return Err(bad(format!(
                "the entry runs past the file's {} bytes",
                status.size
            )));
        }
        // A 32-bit frame is the entry with its length prefix and CRC, a 64-bit one the entry.
        let frame_end = end.saturating_add(8).min(status.size);
        let frame = io
            .read_range(path, start..frame_end)
            .map_err(|e| Error::io(path, e))?;
        decode_frame(&frame, offset, length, path, rows)
    }
}

/// Largest deletion-vector entry [`DeletionVector::read_in_file`] reads: 256 MiB.
pub const MAX_ENTRY_BYTES: u64 = 256 << 20;

/// A corrupt-entry error for the entry at `offset` of `path`.
fn entry_error(path: &str, offset: i64, reason: String) -> Error {
    Error::corrupt(
        path,
        format!("deletion vector at offset {offset}: {reason}"),
    )
}

/// Decodes the framed vector at the start of `frame`, the bytes from `offset` of `path` on.
fn decode_frame(
    frame: &[u8],
    offset: i64,
    length: i64,
    path: &str,
    rows: u64,
) -> Result<DeletionVector> {
    let bad = |r: String| entry_error(path, offset, r);
    let header = frame
        .get(..8)
        .ok_or_else(|| bad("truncated header".into()))?;
    let declared = i32::from_be_bytes([header[0], header[1], header[2], header[3]]);
    let magic_be = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    let magic_le = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    let body_len = usize::try_from(declared)
        .ok()
        .filter(|n| *n >= 4)
        .ok_or_else(|| bad("the declared bitmap length is out of range".into()))?;
    // magic + body, then the CRC.
    let framed = frame
        .get(4..body_len.saturating_add(8))
        .ok_or_else(|| bad("the declared bitmap length exceeds the file".into()))?;
    let (covered, crc_bytes) = framed.split_at(body_len);
    let stored_crc = u32::from_be_bytes([crc_bytes[0], crc_bytes[1], crc_bytes[2], crc_bytes[3]]);
    if stored_crc != crc32fast::hash(covered) {
        return Err(bad("CRC mismatch".into()));
    }
    let body = &covered[4..];
    if magic_be == MAGIC_32 {
        if i64::from(declared) != length {
            return Err(bad(format!(
                "the 32-bit vector's declared length does not match the entry's {length}"
            )));
        }
        let mut cardinality = 0;
        let read = read_bitmap(body, 0, rows, &mut cardinality).map_err(bad)?;
        if read.used != body.len() {
            return Err(bad("the bitmap does not span its declared bytes".into()));
        }
        Ok(DeletionVector {
            deleted: RoaringTreemap::from_bitmaps(nonempty(0, read.bitmap)),
        })
    } else if magic_le == MAGIC_64 {
        if Some(i64::from(declared)) != length.checked_sub(8) {
            return Err(bad(format!(
                "the 64-bit vector's declared length does not match the entry's {length}"
            )));
        }
        decode_body64(body, rows).map_err(bad)
    } else {
        Err(bad("bad magic".into()))
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
            // The positions below 2^32 are the treemap's bitmap of key 0, taken whole (never
            // position by position: a vector may hold billions).
            let mut bitmap = RoaringBitmap::new();
            for (high, b) in self.deleted.bitmaps() {
                if high != 0 {
                    return Err(Error::Internal(
                        "a row position at or past 2^32 does not fit a 32-bit deletion vector"
                            .into(),
                    ));
                }
                bitmap = b.clone();
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

/// A portable bitmap read from the start of some bytes.
struct ReadBitmap {
    bitmap: RoaringBitmap,
    /// Bytes it used.
    used: usize,
}

/// The error of a vector deleting a row its data file does not have.
fn beyond(rows: u64) -> String {
    format!("the vector deletes a row at or past the data file's {rows} rows")
}

/// Reads the portable bitmap at the start of `bytes`, the low 32 bits of positions
/// `high << 32 | low`, once its header ([`portable::scan`]) shows every position below `rows`
/// and no more positions, with the `cardinality` of the bitmaps before it, than `rows`. The
/// bitmap is not expanded into positions.
fn read_bitmap(
    bytes: &[u8],
    high: u32,
    rows: u64,
    cardinality: &mut u64,
) -> std::result::Result<ReadBitmap, String> {
    let declared = portable::scan(bytes)?;
    let base = u64::from(high) << 32;
    if declared
        .last_key
        .is_some_and(|k| base | (u64::from(k) << 16) >= rows)
    {
        return Err(beyond(rows));
    }
    *cardinality = cardinality.saturating_add(declared.cardinality);
    if *cardinality > rows {
        return Err(format!(
            "the vector deletes more rows than the data file's {rows} rows"
        ));
    }
    let mut cur = Cursor::new(&bytes[..declared.len]);
    let bitmap = RoaringBitmap::deserialize_from(&mut cur)
        .map_err(|_| "the bitmap does not decode".to_string())?;
    if cur.position() != declared.len as u64 {
        return Err("the bitmap does not span its declared bytes".into());
    }
    if bitmap.max().is_some_and(|m| base | u64::from(m) >= rows) {
        return Err(beyond(rows));
    }
    Ok(ReadBitmap {
        bitmap,
        used: declared.len,
    })
}

/// `(key, bitmap)` unless the bitmap is empty (a treemap holds no empty bitmap).
fn nonempty(key: u32, bitmap: RoaringBitmap) -> Option<(u32, RoaringBitmap)> {
    (!bitmap.is_empty()).then_some((key, bitmap))
}

fn decode_body64(body: &[u8], rows: u64) -> std::result::Result<DeletionVector, String> {
    let count_bytes: [u8; 8] = body
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or("truncated bitmap count")?;
    let count = i64::from_le_bytes(count_bytes);
    if count < 0 || count > (body.len() as i64) {
        return Err("bad bitmap count".into());
    }
    let mut pos = 8;
    let mut bitmaps = Vec::new();
    let mut last_key: Option<u32> = None;
    let mut cardinality = 0;
    for _ in 0..count {
        let key = body
            .get(pos..pos + 4)
            .map(|k| u32::from_le_bytes([k[0], k[1], k[2], k[3]]))
            .ok_or("truncated bitmap key")?;
        if last_key.is_some_and(|k| k >= key) {
            return Err("bitmap keys not ascending".into());
        }
        last_key = Some(key);
        pos += 4;
        let read = read_bitmap(&body[pos..], key, rows, &mut cardinality)?;
        pos += read.used;
        bitmaps.extend(nonempty(key, read.bitmap));
    }
    if pos != body.len() {
        return Err("the 64-bit body has trailing bytes".into());
    }
    Ok(DeletionVector {
        deleted: RoaringTreemap::from_bitmaps(bitmaps),
    })
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
        let dv1 = DeletionVector::decode_in_file(&file, 1, 24, "dvindex-32", 4).unwrap();
        assert_eq!(dv1.iter().collect::<Vec<_>>(), vec![2, 3]);
        // next entry: prefix (4) + length (24) + crc (4)
        let dv2 =
            DeletionVector::decode_in_file(&file, 1 + 4 + 24 + 4, 22, "dvindex-32", 2).unwrap();
        assert_eq!(dv2.iter().collect::<Vec<_>>(), vec![1]);
        assert_eq!(file.len(), 1 + 32 + 4 + 22 + 4);
    }

    #[test]
    fn decodes_java_64_bit_golden() {
        let file = golden("dvindex-64");
        let dv1 = DeletionVector::decode_in_file(&file, 1, 44, "dvindex-64", 4).unwrap();
        assert_eq!(dv1.iter().collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(dv1.cardinality(), 2);
        let dv2 = DeletionVector::decode_in_file(&file, 1 + 44, 42, "dvindex-64", 2).unwrap();
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
        let back = DeletionVector::decode_in_file(&bytes, 0, length, "x", 6 << 32).unwrap();
        assert_eq!(back, dv);
        assert!(dv.encode(false).is_err());
        let dv = DeletionVector::from_positions((0..200_000).filter(|p| p % 3 != 1));
        let (bytes, length) = dv.encode(false).unwrap();
        assert_eq!(
            DeletionVector::decode_in_file(&bytes, 0, length, "x", 6 << 32).unwrap(),
            dv
        );
    }

    #[test]
    fn rejects_wrong_length_and_crc() {
        let file = golden("dvindex-32");
        assert!(DeletionVector::decode_in_file(&file, 1, 25, "x", 4).is_err());
        let mut bad = file.clone();
        bad[12] ^= 0xFF;
        assert!(DeletionVector::decode_in_file(&bad, 1, 24, "x", 4).is_err());
        assert!(DeletionVector::decode_in_file(&file, 1000, 24, "x", 4).is_err());
        let file64 = golden("dvindex-64");
        assert!(DeletionVector::decode_in_file(&file64, 1, 40, "x", 4).is_err());
    }

    /// A vector deleting a row at or past its data file's row count is refused, in both
    /// layouts (from the header, or the last position when the header cannot tell).
    #[test]
    fn vectors_must_stay_within_the_row_count() {
        let file = golden("dvindex-32");
        let e = DeletionVector::decode_in_file(&file, 1, 24, "x", 3).unwrap_err();
        assert!(e.to_string().contains("3 rows"), "{e}");
        let file = golden("dvindex-64");
        assert!(DeletionVector::decode_in_file(&file, 1, 44, "x", 3).is_err());
        assert!(DeletionVector::decode_in_file(&file, 1 + 44, 42, "x", 1).is_err());
        let dv = DeletionVector::from_positions([5 << 32]);
        let (bytes, length) = dv.encode(true).unwrap();
        let e = DeletionVector::decode_in_file(&bytes, 0, length, "x", 5 << 32).unwrap_err();
        assert!(e.to_string().contains("rows"), "{e}");
        let more = DeletionVector::from_positions(0..10);
        let (bytes, length) = more.encode(false).unwrap();
        assert!(DeletionVector::decode_in_file(&bytes, 0, length, "x", 9).is_err());
        assert_eq!(
            DeletionVector::decode_in_file(&bytes, 0, length, "x", 10).unwrap(),
            more
        );
    }

    /// Every 32-bit position, as full run containers (about 900 KB): refused against a file
    /// of 10 rows within milliseconds; where the row count allows it, decoded and encoded
    /// again without expanding it into positions.
    #[test]
    fn a_vector_of_every_32_bit_position_is_checked_from_its_header() {
        let mut full = RoaringBitmap::full();
        full.optimize();
        let dv = DeletionVector {
            deleted: RoaringTreemap::from_bitmaps([(0, full)]),
        };
        let started = std::time::Instant::now();
        let (bytes, length) = dv.encode(false).unwrap();
        assert!(bytes.len() < 1 << 20, "{} bytes", bytes.len());
        let e = DeletionVector::decode_in_file(&bytes, 0, length, "x", 10).unwrap_err();
        assert!(e.to_string().contains("10 rows"), "{e}");
        let back = DeletionVector::decode_in_file(&bytes, 0, length, "x", u64::MAX).unwrap();
        assert_eq!(back.cardinality(), 1 << 32);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    /// Errors name what is wrong, never the bytes: a frame whose length and CRC check out
    /// around a secret fails with "bad magic", and reads at every offset of the secret hold
    /// none of its four-byte windows in any rendering.
    #[test]
    fn errors_do_not_echo_the_bytes() {
        let secret = b"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        let mut renderings = Vec::new();
        for w in secret.windows(4) {
            let w: [u8; 4] = w.try_into().unwrap();
            for v in [u32::from_be_bytes(w), u32::from_le_bytes(w)] {
                renderings.extend([
                    v.to_string(),
                    (v as i32).to_string(),
                    format!("{v:x}"),
                    format!("{v:X}"),
                ]);
            }
            renderings.push(String::from_utf8_lossy(&w[..3]).into_owned());
        }
        let check = |e: Error| {
            let m = e.to_string();
            for r in &renderings {
                assert!(!m.contains(r.as_str()), "{r} in {m}");
            }
            m
        };
        for offset in 0..secret.len() as i64 {
            for length in [8, 24, 44] {
                check(
                    DeletionVector::decode_in_file(secret, offset, length, "f", 100).unwrap_err(),
                );
            }
        }
        let body = &secret[..12];
        let mut frame = (body.len() as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(body);
        frame.extend_from_slice(&crc32fast::hash(body).to_be_bytes());
        let m = check(DeletionVector::decode_in_file(&frame, 0, 12, "f", 100).unwrap_err());
        assert!(m.contains("bad magic"), "{m}");
    }
}
