//! A bounds walk over the page headers of a Parquet file before the `parquet` crate reads them.
//!
//! Page headers are Thrift compact-protocol structs. When the `parquet` crate (59.x) skips a
//! field it does not know, it loops once per element a list, set or map header claims; its skip
//! of doubles, UUIDs and binaries does not fail at the end of the input, and it reads booleans
//! inside collections as taking no bytes. A 2 KB file whose page headers nest such collections
//! kept it busy for minutes (fuzz finding `data_file/parquet-thrift-list-skip-unbounded`).
//!
//! This walk follows the bytes exactly as that skip does (same consumption, same end-of-input
//! behaviour) and counts the values it visits: a header that claims more collection elements
//! than bytes remain in its column chunk, or that takes more than [`MAX_VALUES`] values to
//! skip, is corrupt and rejected before decoding. Real page headers hold a few dozen values.
//! Anything the walk cannot follow (a truncated header, an unknown type) ends the walk of that
//! chunk and is left to the `parquet` crate's own errors.

/// Thrift nesting the walk follows: deeper than the `parquet` crate's skip goes (64 levels
/// below the known fields it parses), so the walk sees everything that skip would visit.
const MAX_DEPTH: u32 = 80;

/// Values one page header may take to skip.
const MAX_VALUES: u64 = 1 << 20;

/// Walks the pages of one column chunk of `chunk_len` bytes at the start of `rest` (the
/// chunk's bytes, or the file from the chunk on); `Err((offset in chunk, reason))` on a lying
/// header. Run on each column chunk a read fetches ([`super::ranged`]), before the `parquet`
/// crate parses its pages.
pub(super) fn check_chunk(rest: &[u8], chunk_len: usize) -> Result<(), (usize, String)> {
    let mut pos = 0usize;
    while pos < chunk_len {
        let Some(buf) = rest.get(pos..) else {
            return Ok(());
        };
        let mut r = Reader {
            buf,
            at: 0,
            values: 0,
        };
        let page_size = match r.page_header() {
            Ok(size) => size,
            Err(Stop::Unbounded(why)) => return Err((pos, why)),
            Err(Stop::Unreadable) => return Ok(()),
        };
        let Some(size) = page_size.and_then(|s| usize::try_from(s).ok()) else {
            return Ok(());
        };
        pos = match pos.checked_add(r.at).and_then(|p| p.checked_add(size)) {
            Some(next) if next > pos => next,
            _ => return Ok(()),
        };
    }
    Ok(())
}

enum Stop {
    /// A collection claims more elements than bytes remain: the file is corrupt.
    Unbounded(String),
    /// The walk cannot go on (truncated or unknown); the decoder reports what is wrong.
    Unreadable,
}

struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
    /// Values visited in this header.
    values: u64,
}

impl Reader<'_> {
    fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.at)
    }

    fn byte(&mut self) -> Result<u8, Stop> {
        let b = *self.buf.get(self.at).ok_or(Stop::Unreadable)?;
        self.at += 1;
        Ok(b)
    }

    /// Skips up to `n` bytes: like the `parquet` crate's `io::copy` into a sink, a short
    /// input is not an error.
    fn skip(&mut self, n: usize) -> Result<(), Stop> {
        self.at += n.min(self.remaining());
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, Stop> {
        let mut out = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err(Stop::Unreadable)
    }

    fn zigzag(&mut self) -> Result<i64, Stop> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// The `PageHeader` struct; returns its `compressed_page_size` (field 3) when present.
    fn page_header(&mut self) -> Result<Option<i64>, Stop> {
        let mut last_id = 0i64;
        let mut compressed = None;
        loop {
            let head = self.byte()?;
            let kind = head & 0x0f;
            if kind == 0 {
                return Ok(compressed);
            }
            let delta = i64::from(head >> 4);
            let id = if delta == 0 {
                self.zigzag()?
            } else {
                last_id + delta
            };
            last_id = id;
            if id == 3 && kind == 5 {
                compressed = Some(self.zigzag()?);
            } else {
                self.value(kind, MAX_DEPTH)?;
            }
        }
    }

    fn elements(&mut self, n: u64, what: &str) -> Result<usize, Stop> {
        if n > self.remaining() as u64 {
            return Err(Stop::Unbounded(format!(
                "a {what} claims {n} elements with {} bytes left in the column chunk",
                self.remaining()
            )));
        }
        Ok(n as usize)
    }

    fn value(&mut self, kind: u8, depth: u32) -> Result<(), Stop> {
        if depth == 0 {
            return Err(Stop::Unreadable);
        }
        self.values += 1;
        if self.values > MAX_VALUES {
            return Err(Stop::Unbounded(format!(
                "it takes more than {MAX_VALUES} Thrift values to skip"
            )));
        }
        match kind {
            // BOOLEAN_TRUE / BOOLEAN_FALSE: the value is the type itself in a struct field; the
            // `parquet` crate's skip reads collection elements of these types as empty too.
            1 | 2 => Ok(()),
            3 => self.skip(1),
            4..=6 => self.varint().map(|_| ()),
            7 => self.skip(8),
            8 => {
                let n = self.varint()?;
                self.skip(usize::try_from(n).map_err(|_| Stop::Unreadable)?)
            }
            9 | 10 => {
                let head = self.byte()?;
                let elem = head & 0x0f;
                let n = match head >> 4 {
                    15 => self.varint()?,
                    small => u64::from(small),
                };
                let n = self.elements(n, "list")?;
                for _ in 0..n {
                    self.value(elem, depth - 1)?;
                }
                Ok(())
            }
            11 => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                let n = self.elements(n, "map")?;
                let kinds = self.byte()?;
                for _ in 0..n {
                    self.value(kinds >> 4, depth - 1)?;
                    self.value(kinds & 0x0f, depth - 1)?;
                }
                Ok(())
            }
            12 => loop {
                let head = self.byte()?;
                let k = head & 0x0f;
                if k == 0 {
                    return Ok(());
                }
                if head >> 4 == 0 {
                    // A field id that is not a delta follows as a zigzag varint.
                    self.zigzag()?;
                }
                self.value(k, depth - 1)?;
            },
            13 => self.skip(16),
            _ => Err(Stop::Unreadable),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page header: type DATA_PAGE (field 1), sizes (fields 2, 3), then `extra` fields, stop.
    fn header(compressed: i64, extra: &[u8]) -> Vec<u8> {
        let zz = |v: i64| ((v << 1) ^ (v >> 63)) as u64;
        let mut out = vec![0x15, 0x00]; // field 1 (i32) = 0
        out.push(0x15);
        out.extend(varint(zz(compressed)));
        out.push(0x15);
        out.extend(varint(zz(compressed)));
        out.extend_from_slice(extra);
        out.push(0x00);
        out
    }

    fn varint(mut v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return out;
            }
            out.push(b | 0x80);
        }
    }

    #[test]
    fn honest_pages_walk_to_the_end_of_the_chunk() {
        let mut chunk = header(4, &[]);
        chunk.extend([1, 2, 3, 4]);
        // A second page with an unknown list field (id 9) of three i32s and a binary.
        let mut extra = vec![0x69, 0x35];
        extra.extend([2, 4, 6]);
        extra.extend([0x18, 2, b'a', b'b']);
        chunk.extend(header(2, &extra));
        chunk.extend([9, 9]);
        assert!(check_chunk(&chunk, chunk.len()).is_ok());
    }

    #[test]
    fn a_list_claiming_more_elements_than_bytes_is_rejected() {
        // Field 9: a list of doubles (element type 7) claiming 2^31 elements.
        let mut extra = vec![0x69, 0xf7];
        extra.extend(varint(1 << 31));
        let chunk = header(0, &extra);
        let (offset, why) = check_chunk(&chunk, chunk.len()).unwrap_err();
        assert_eq!(offset, 0);
        assert!(why.contains("2147483648 elements"), "{why}");
        // The same with a map, and with a list nested in a second page.
        let mut map = vec![0x6b];
        map.extend(varint(1 << 40));
        map.push(0x55);
        let map = header(0, &map);
        assert!(check_chunk(&map, map.len()).is_err());
        let mut two = header(1, &[]);
        two.push(0);
        let second_at = two.len();
        two.extend(header(0, &extra));
        assert_eq!(check_chunk(&two, two.len()).unwrap_err().0, second_at);
    }

    #[test]
    fn truncated_or_unknown_headers_are_left_to_the_decoder() {
        let chunk = header(4, &[]);
        assert!(check_chunk(&chunk[..3], 3).is_ok());
        assert!(check_chunk(&[0x6e, 0x00], 2).is_ok()); // type 14 is not Thrift
        assert!(check_chunk(&[], 0).is_ok());
        assert!(check_chunk(&[], 10).is_ok());
    }
}
