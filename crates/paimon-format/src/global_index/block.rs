//! Blocks of global index files: var-length integers, the 5-byte trailer (compression byte and
//! CRC32 of the block plus that byte) and the key/value entries of SST blocks.

use crate::error::{Error, Result};

/// Length of a block trailer: compression type (1) and CRC32 (4).
pub(super) const TRAILER_LEN: usize = 5;

/// A cursor over bytes that never reads past the end.
pub(super) struct Cursor<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) what: &'static str,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8], what: &'static str) -> Self {
        Cursor {
            bytes,
            pos: 0,
            what,
        }
    }

    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self.bytes.get(self.pos).ok_or_else(|| {
            Error::corrupt(self.what, format!("truncated at offset {}", self.pos))
        })?;
        self.pos += 1;
        Ok(b)
    }

    /// Java `MemorySliceInput.readVarLenLong` (also used for ints, checked below).
    pub(super) fn var_long(&mut self) -> Result<u64> {
        let mut out: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err(Error::corrupt(
            self.what,
            format!("var-length integer too long at offset {}", self.pos),
        ))
    }

    pub(super) fn var_len(&mut self) -> Result<usize> {
        let v = self.var_long()?;
        usize::try_from(v)
            .ok()
            .filter(|v| *v <= i32::MAX as usize)
            .ok_or_else(|| Error::corrupt(self.what, format!("length {v} out of range")))
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or_else(|| {
                Error::corrupt(
                    self.what,
                    format!(
                        "{n} bytes at offset {} run past the end ({})",
                        self.pos,
                        self.bytes.len()
                    ),
                )
            })?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// A block handle: var-length offset and size.
    pub(super) fn handle(&mut self) -> Result<(usize, usize)> {
        let offset = self.var_long()?;
        let offset = usize::try_from(offset).map_err(|_| {
            Error::corrupt(self.what, format!("block offset {offset} out of range"))
        })?;
        Ok((offset, self.var_len()?))
    }
}

/// `len` bytes of `file` from `offset`, or `Corrupt` naming `what`.
pub(super) fn slice<'a>(file: &'a [u8], offset: u64, len: u64, what: &str) -> Result<&'a [u8]> {
    let start = usize::try_from(offset).ok();
    let end = start
        .zip(usize::try_from(len).ok())
        .and_then(|(s, l)| s.checked_add(l));
    match (start, end) {
        (Some(s), Some(e)) if e <= file.len() => Ok(&file[s..e]),
        _ => Err(Error::corrupt(
            what,
            format!(
                "range {offset}+{len} lies outside the file ({} bytes)",
                file.len()
            ),
        )),
    }
}

/// The block of `len` bytes at `offset` after checking its trailer: CRC32 over the block and
/// the compression byte (Java `BlockCompressionType` + CRC), compression none only.
pub(super) fn checked_block<'a>(
    file: &'a [u8],
    offset: usize,
    len: usize,
    what: &str,
) -> Result<&'a [u8]> {
    let with_trailer = slice(file, offset as u64, len as u64 + TRAILER_LEN as u64, what)?;
    let (block, trailer) = with_trailer.split_at(len);
    let compression = trailer[0];
    let stored = u32::from_le_bytes([trailer[1], trailer[2], trailer[3], trailer[4]]);
    let mut h = crc32fast::Hasher::new();
    h.update(block);
    h.update(&[compression]);
    let actual = h.finalize();
    if actual != stored {
        return Err(Error::corrupt(
            what,
            format!("block at offset {offset}: CRC32 {actual:#010x} does not match stored {stored:#010x}"),
        ));
    }
    if compression != 0 {
        return Err(Error::unsupported(
            what,
            format!("block compression type {compression}"),
        ));
    }
    Ok(block)
}

/// The key/value entries of an SST block (Java `BlockReader`: aligned blocks end with the
/// record size and type 0, unaligned ones with one 4-byte position per record, the count and
/// type 1).
pub(super) fn sst_entries<'a>(
    block: &'a [u8],
    what: &'static str,
) -> Result<Vec<(&'a [u8], &'a [u8])>> {
    let n = block.len();
    if n < 5 {
        return Err(Error::corrupt(
            what,
            format!("SST block of {n} bytes has no trailer"),
        ));
    }
    let kind = block[n - 1];
    let value =
        u32::from_le_bytes([block[n - 5], block[n - 4], block[n - 3], block[n - 2]]) as usize;
    let data = match kind {
        0 => &block[..n - 5],
        1 => {
            let index_len = value
                .checked_mul(4)
                .filter(|l| *l <= n - 5)
                .ok_or_else(|| {
                    Error::corrupt(
                        what,
                        format!("SST block index of {value} records exceeds the block"),
                    )
                })?;
            &block[..n - 5 - index_len]
        }
        other => {
            return Err(Error::corrupt(
                what,
                format!("SST block aligned type {other}"),
            ))
        }
    };
    let mut c = Cursor::new(data, what);
    let mut out = Vec::new();
    while !c.at_end() {
        let kl = c.var_len()?;
        let k = c.take(kl)?;
        let vl = c.var_len()?;
        let v = c.take(vl)?;
        out.push((k, v));
    }
    Ok(out)
}

/// A 64-bit roaring bitmap in the portable format (Java `RoaringNavigableMap64`, CRoaring).
pub(super) fn bitmap(bytes: &[u8], what: &str) -> Result<roaring::RoaringTreemap> {
    roaring::RoaringTreemap::deserialize_from(bytes)
        .map_err(|e| Error::corrupt(what, format!("roaring bitmap: {e}")))
}
