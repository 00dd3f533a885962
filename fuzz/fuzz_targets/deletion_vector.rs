//! `DeletionVector::decode_in_file(file, offset, length, path, rows)` (paimon-data, rows fixed at 2^20): a deletion vector
//! read from an index file at the `(offset, length)` a split's `DeletionFile` names. Both come
//! from untrusted bytes, so both are fuzzed: decoding must never panic, never allocate without
//! bound, and a decoded vector must agree with itself (cardinality = positions listed).
//!
//! Input: `[flags][file bytes...]` where
//! * flags bit 0: "hostile entry": the first 16 file bytes are taken as offset and length
//!   (i64 BE each) and removed from the file; otherwise offset is the second byte, and length
//!   is derived from the length prefix found there (32-bit layout, or 64-bit when bit 1 is set);
//! * bit 2: write the right magic for the layout at the offset;
//! * bit 3: write the right CRC for the declared length, so mutations reach the bitmap decoder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_data::deletion_vector::{DeletionVector, MAGIC_32, MAGIC_64};
use paimon_fuzz::check_error_names;

/// The row count of the data file every fuzzed vector belongs to.
const ROWS: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let wide = flags & 2 != 0;
    let (mut file, offset, length) = if flags & 1 != 0 {
        if rest.len() < 16 {
            return;
        }
        let (head, file) = rest.split_at(16);
        let offset = i64::from_be_bytes(head[..8].try_into().unwrap());
        let length = i64::from_be_bytes(head[8..].try_into().unwrap());
        (file.to_vec(), offset, length)
    } else {
        let Some((&off, file)) = rest.split_first() else {
            return;
        };
        let off = usize::from(off).min(file.len());
        let declared = file
            .get(off..off + 4)
            .map(|b| i64::from(i32::from_be_bytes(b.try_into().unwrap())))
            .unwrap_or(0);
        let length = if wide { declared + 8 } else { declared };
        (file.to_vec(), off as i64, length)
    };

    if let Ok(start) = usize::try_from(offset) {
        if flags & 4 != 0 {
            let magic = if wide {
                MAGIC_64.to_le_bytes()
            } else {
                MAGIC_32.to_be_bytes()
            };
            if let Some(m) = file.get_mut(start + 4..start + 8) {
                m.copy_from_slice(&magic);
            }
        }
        if flags & 8 != 0 {
            let declared = file
                .get(start..start + 4)
                .map(|b| i32::from_be_bytes(b.try_into().unwrap()));
            if let Some(body) = declared.and_then(|d| usize::try_from(d).ok()) {
                let covered = start + 4..start + 4 + body;
                if let Some(crc) = file.get(covered.clone()).map(crc32fast::hash) {
                    if let Some(c) = file.get_mut(covered.end..covered.end + 4) {
                        c.copy_from_slice(&crc.to_be_bytes());
                    }
                }
            }
        }
    }

    let path = "t/index/index-fuzz-0";
    // The data file the vector belongs to: a vector deleting a row at or past its row count is
    // refused from the bitmap's header, so the work stays bounded by this count.
    let rows = ROWS;
    match DeletionVector::decode_in_file(&file, offset, length, path, rows) {
        Ok(dv) => {
            assert!(dv.iter().all(|p| p < rows), "a position at or past the row count");
            let positions: Vec<u64> = dv.iter().take(1 << 16).collect();
            if dv.cardinality() <= 1 << 16 {
                assert_eq!(positions.len() as u64, dv.cardinality());
            }
            assert!(
                positions.windows(2).all(|w| w[0] < w[1]),
                "positions not ascending"
            );
            for p in positions.iter().take(64) {
                assert!(dv.is_deleted(*p));
            }
        }
        err => check_error_names(&err, path),
    }
});
