//! What a portable RoaringBitmap declares (the Roaring format specification shared by the
//! Java, C and Rust libraries), read from its header without building it, so that a
//! deletion vector is checked against its data file's row count before it is materialised.
//!
//! ```text
//! cookie u32 LE: 12346 (no run containers), then the container count u32 LE
//!            or: 12347 | (count - 1) << 16, then the run flags (ceil(count / 8) bytes)
//! count x [key u16 LE][cardinality - 1 u16 LE]
//! count x [offset u32 LE]          (no run containers, or at least 4 containers)
//! containers, in key order:
//!   run:    [runs u16 LE] runs x [start u16 LE][length - 1 u16 LE]
//!   array:  cardinality x u16 LE   (cardinality <= 4096)
//!   bitmap: 1024 x u64 LE
//! ```
//!
//! Errors never hold the bytes read.

/// Cookie of a bitmap without run containers.
const COOKIE_NO_RUNS: u32 = 12346;
/// Low half of the cookie of a bitmap with run containers.
const COOKIE_RUNS: u32 = 12347;
/// Most containers a bitmap has (one per 16-bit key).
const MAX_CONTAINERS: usize = 1 << 16;
/// Largest cardinality of an array container.
const ARRAY_LIMIT: u64 = 4096;
/// Bytes of a bitmap container.
const BITMAP_BYTES: usize = 8192;

/// What a bitmap's header and run containers declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Declared {
    /// Bytes the bitmap spans.
    pub len: usize,
    /// Positions it holds.
    pub cardinality: u64,
    /// Key (high 16 bits) of its last container; `None` when it has none.
    pub last_key: Option<u16>,
}

/// Reads what the bitmap at the start of `b` declares.
///
/// # Errors
/// A fixed message when the header is truncated or malformed.
pub(super) fn scan(b: &[u8]) -> Result<Declared, String> {
    let truncated = || "truncated bitmap".to_string();
    let u16_at = |at: usize| -> Result<u16, String> {
        b.get(at..at + 2)
            .map(|x| u16::from_le_bytes([x[0], x[1]]))
            .ok_or_else(truncated)
    };
    let u32_at = |at: usize| -> Result<u32, String> {
        b.get(at..at + 4)
            .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
            .ok_or_else(truncated)
    };
    let cookie = u32_at(0)?;
    let (count, mut pos, run_flags) = if cookie == COOKIE_NO_RUNS {
        let count = usize::try_from(u32_at(4)?).map_err(|_| "bad container count")?;
        (count, 8, None)
    } else if cookie & 0xFFFF == COOKIE_RUNS {
        let count = (cookie >> 16) as usize + 1;
        let flags_len = count.div_ceil(8);
        let flags = b.get(4..4 + flags_len).ok_or_else(truncated)?;
        (count, 4 + flags_len, Some(flags))
    } else {
        return Err("bad bitmap cookie".into());
    };
    if count > MAX_CONTAINERS {
        return Err("the bitmap declares too many containers".into());
    }
    let descriptions = pos;
    pos += 4 * count;
    if run_flags.is_none() || count >= 4 {
        pos += 4 * count;
    }
    if pos > b.len() {
        return Err(truncated());
    }
    let mut cardinality = 0u64;
    let mut last_key: Option<u16> = None;
    for i in 0..count {
        let key = u16_at(descriptions + 4 * i)?;
        if last_key.is_some_and(|k| k >= key) {
            return Err("container keys not ascending".into());
        }
        last_key = Some(key);
        let declared = u64::from(u16_at(descriptions + 4 * i + 2)?) + 1;
        let is_run = run_flags.is_some_and(|f| f[i / 8] & (1 << (i % 8)) != 0);
        if is_run {
            let runs = usize::from(u16_at(pos)?);
            if runs == 0 {
                return Err("run container without runs".into());
            }
            pos += 2;
            for r in 0..runs {
                cardinality += u64::from(u16_at(pos + 4 * r + 2)?) + 1;
            }
            pos += 4 * runs;
        } else {
            cardinality += declared;
            pos += if declared <= ARRAY_LIMIT {
                2 * declared as usize
            } else {
                BITMAP_BYTES
            };
        }
        if pos > b.len() {
            return Err(truncated());
        }
    }
    Ok(Declared {
        len: pos,
        cardinality,
        last_key,
    })
}

#[cfg(test)]
mod tests {
    use roaring::RoaringBitmap;

    use super::*;

    fn serialized(b: &RoaringBitmap) -> Vec<u8> {
        let mut out = Vec::new();
        b.serialize_into(&mut out).unwrap();
        out
    }

    /// Arrays, bitmaps and runs declare what the library serialized.
    #[test]
    fn declares_what_was_serialized() {
        let mut b: RoaringBitmap = (0..100).chain(70_000..80_000).collect();
        b.insert(5 << 16);
        let bytes = serialized(&b);
        assert_eq!(
            scan(&bytes).unwrap(),
            Declared {
                len: bytes.len(),
                cardinality: b.len(),
                last_key: Some(5)
            }
        );
        b.optimize();
        let mut bytes = serialized(&b);
        bytes.extend_from_slice(b"tail");
        let d = scan(&bytes).unwrap();
        assert_eq!((d.len, d.cardinality), (bytes.len() - 4, b.len()));
        let empty = serialized(&RoaringBitmap::new());
        assert_eq!(scan(&empty).unwrap().last_key, None);
    }

    #[test]
    fn refuses_truncated_and_foreign_bytes() {
        let b: RoaringBitmap = (0..5000).collect();
        let bytes = serialized(&b);
        assert!(scan(&bytes[..bytes.len() - 1]).is_err());
        assert!(scan(b"AWS_SECRET_ACCESS_KEY=x").is_err());
        assert!(scan(&[]).is_err());
    }
}
