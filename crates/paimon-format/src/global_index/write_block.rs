//! Writing the pieces of global index files: var-length integers, blocks followed by their
//! 5-byte trailer (compression none and the CRC32 of the block plus that byte) and SST blocks
//! of key/value entries (Java `BlockWriter`).

use super::block::TRAILER_LEN;

/// Appends `v` as a var-length integer (Java `MemorySliceOutput.writeVarLenLong`).
pub(super) fn put_var(out: &mut Vec<u8>, mut v: u64) {
    while v & !0x7f != 0 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Bytes `v` takes as a var-length integer.
pub(super) fn var_size(v: u64) -> usize {
    let mut n = 1;
    let mut v = v;
    while v & !0x7f != 0 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Appends `block` and its trailer (compression none) to `file`; returns its offset and
/// length (without the trailer), the handle readers use.
pub(super) fn put_block(file: &mut Vec<u8>, block: &[u8]) -> (u64, u64) {
    let offset = file.len() as u64;
    file.reserve(block.len() + TRAILER_LEN);
    file.extend_from_slice(block);
    let mut h = crc32fast::Hasher::new();
    h.update(block);
    h.update(&[0]);
    file.push(0);
    file.extend_from_slice(&h.finalize().to_le_bytes());
    (offset, block.len() as u64)
}

/// Appends raw bytes (a bitmap) to `file`; returns their offset and length.
pub(super) fn put_raw(file: &mut Vec<u8>, bytes: &[u8]) -> (u64, u64) {
    let offset = file.len() as u64;
    file.extend_from_slice(bytes);
    (offset, bytes.len() as u64)
}

/// An SST block being filled (Java `BlockWriter`): entries of var-length key and value, then
/// either the common entry size and type 0 (aligned: every entry the same size) or one 4-byte
/// position per entry, the count and type 1.
#[derive(Default)]
pub(super) struct SstBlock {
    data: Vec<u8>,
    positions: Vec<u32>,
    aligned_size: usize,
    unaligned: bool,
}

impl SstBlock {
    pub(super) fn add(&mut self, key: &[u8], value: &[u8]) {
        let start = self.data.len();
        put_var(&mut self.data, key.len() as u64);
        self.data.extend_from_slice(key);
        put_var(&mut self.data, value.len() as u64);
        self.data.extend_from_slice(value);
        self.positions.push(start as u32);
        let size = self.data.len() - start;
        if !self.unaligned {
            if self.aligned_size == 0 {
                self.aligned_size = size;
            } else if self.aligned_size != size {
                self.unaligned = true;
            }
        }
    }

    pub(super) fn len(&self) -> usize {
        self.positions.len()
    }

    /// The finished block's size.
    pub(super) fn memory(&self) -> usize {
        let mut size = self.data.len() + 5;
        if self.unaligned {
            size += self.positions.len() * 4;
        }
        size
    }

    /// The finished block; the builder is empty again.
    pub(super) fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.data);
        if self.positions.is_empty() || self.unaligned {
            for p in &self.positions {
                out.extend_from_slice(&p.to_le_bytes());
            }
            out.extend_from_slice(&(self.positions.len() as u32).to_le_bytes());
            out.push(1);
        } else {
            out.extend_from_slice(&(self.aligned_size as u32).to_le_bytes());
            out.push(0);
        }
        *self = SstBlock::default();
        out
    }
}
