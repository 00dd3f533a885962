//! A check of an ORC file's type tree before an ORC library builds its schema (run
//! by `paimon-meta` for ORC manifests and `paimon-data` for ORC data files).
//!
//! `orc-rust` 0.9 turns the footer's flat type list into a tree by recursing from each type into
//! the types its `subtypes` name. A damaged footer whose subtypes point back at an ancestor
//! recurses until the stack overflows, which aborts the process (`catch_unwind` cannot catch
//! it). ORC lists types in pre-order, so every subtype of type `i` is greater than `i`; with
//! that, and a bounded depth, the recursion ends.
//!
//! ```text
//! file       ... | footer: compressed chunks | postscript | postscript length: u8
//! postscript 1: footer length, 2: compression kind, 3: compression block size (protobuf)
//! chunk      header: 3 bytes LE, (length << 1) | is-original | length bytes
//! footer     4: types (repeated Type); Type 1: kind, 2: subtypes (packed or not)
//! ```

use crate::error::{Error, Result};

/// Deepest type nesting accepted (Paimon schemas nest a few levels).
pub const MAX_TYPE_DEPTH: usize = 256;

/// Largest decompressed footer accepted.
const MAX_FOOTER_BYTES: usize = 1 << 28;

/// Checks that the footer's types form a tree listed in pre-order: each subtype index lies after
/// its parent and inside the list, and the nesting is at most [`MAX_TYPE_DEPTH`] deep. A footer
/// compressed with LZO is not checked (no LZO decoder here; Paimon does not write LZO).
///
/// # Errors
/// A reason when the tail cannot be parsed or the types are not such a tree.
pub fn check_type_tree(file: &[u8]) -> Result<()> {
    let (&ps_len, rest) = file.split_last().ok_or(bad("empty ORC file"))?;
    let ps_start = rest
        .len()
        .checked_sub(usize::from(ps_len))
        .ok_or(bad("ORC postscript longer than the file"))?;
    let mut footer_len = None;
    let mut kind = 0u64;
    let mut block_size = 256 * 1024u64;
    for field in Fields::new(&rest[ps_start..]) {
        match field? {
            (1, Value::Varint(v)) => footer_len = Some(v),
            (2, Value::Varint(v)) => kind = v,
            (3, Value::Varint(v)) => block_size = v,
            _ => {}
        }
    }
    let footer_len =
        usize::try_from(footer_len.ok_or(bad("ORC postscript without footer length"))?)
            .map_err(|_| bad("ORC footer length out of range"))?;
    let footer = ps_start
        .checked_sub(footer_len)
        .map(|start| &rest[start..ps_start])
        .ok_or(bad("ORC footer longer than the file"))?;
    let footer = match kind {
        0 => footer.to_vec(),
        3 => return Ok(()),
        1 | 2 | 4 | 5 => decompress_chunks(footer, kind, block_size)?,
        k => return Err(bad(format!("unknown ORC compression kind {k}"))),
    };
    let mut subtypes: Vec<Vec<u64>> = Vec::new();
    for field in Fields::new(&footer) {
        if let (4, Value::Bytes(ty)) = field? {
            let mut subs = Vec::new();
            for f in Fields::new(ty) {
                match f? {
                    (2, Value::Varint(v)) => subs.push(v),
                    (2, Value::Bytes(packed)) => {
                        let mut pos = 0;
                        while pos < packed.len() {
                            subs.push(varint(packed, &mut pos)?);
                        }
                    }
                    _ => {}
                }
            }
            subtypes.push(subs);
        }
    }
    check_pre_order(&subtypes)
}

/// How many bytes from the end of an ORC file a reader needs to open it (the postscript, its
/// length byte, the footer and the stripe statistics), from `end`, the file's last bytes; `None`
/// when `end` does not hold a readable postscript.
pub fn tail_len(end: &[u8]) -> Option<u64> {
    let (&ps_len, rest) = end.split_last()?;
    let ps = rest.get(rest.len().checked_sub(usize::from(ps_len))?..)?;
    let (mut footer, mut metadata) = (None, 0u64);
    for field in Fields::new(ps) {
        match field.ok()? {
            (1, Value::Varint(v)) => footer = Some(v),
            (5, Value::Varint(v)) => metadata = v,
            _ => {}
        }
    }
    (u64::from(ps_len) + 1)
        .checked_add(footer?)?
        .checked_add(metadata)
}

/// The types, as their subtype lists, form one tree numbered in pre-order, as ORC writers
/// number them: walking from type 0, each type is reached once, as the next number, and every
/// type is reached. orc-rust projects a column by its subtree's numbers, so two columns sharing
/// a number would each read the other's streams; a number pointing back would recurse forever.
fn check_pre_order(subtypes: &[Vec<u64>]) -> Result<()> {
    let n = subtypes.len();
    if n == 0 {
        return Ok(());
    }
    let mut next = 1usize;
    // (type, index of its next child to visit)
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    while let Some(&mut (ty, ref mut child)) = stack.last_mut() {
        let Some(&sub) = subtypes[ty].get(*child) else {
            stack.pop();
            continue;
        };
        *child += 1;
        if usize::try_from(sub).ok() != Some(next) || next >= n {
            return Err(bad(format!(
                "ORC type {ty} names subtype {sub} where a pre-order tree of {n} types has {next}"
            )));
        }
        next += 1;
        if stack.len() >= MAX_TYPE_DEPTH {
            return Err(bad(format!(
                "ORC types nest deeper than {MAX_TYPE_DEPTH} levels"
            )));
        }
        stack.push((usize::try_from(sub).unwrap_or(0), 0));
    }
    if next != n {
        return Err(bad(format!(
            "ORC footer lists {n} types but its tree reaches {next}"
        )));
    }
    Ok(())
}

/// The footer's compression chunks, decompressed.
fn decompress_chunks(mut bytes: &[u8], kind: u64, block_size: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let max_block = usize::try_from(block_size)
        .unwrap_or(usize::MAX)
        .min(MAX_FOOTER_BYTES);
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let h = bytes
            .get(..3)
            .ok_or(bad("truncated ORC compression chunk header"))?;
        let header = u32::from_le_bytes([h[0], h[1], h[2], 0]);
        let len = (header >> 1) as usize;
        let chunk = bytes
            .get(3..3 + len)
            .ok_or(bad("ORC compression chunk longer than the footer"))?;
        bytes = &bytes[3 + len..];
        if header & 1 == 1 {
            out.extend_from_slice(chunk);
        } else {
            let limit = (MAX_FOOTER_BYTES - out.len()) as u64 + 1;
            let err = |e: std::io::Error| bad(format!("chunk: {e}"));
            match kind {
                1 => {
                    flate2::read::DeflateDecoder::new(chunk)
                        .take(limit)
                        .read_to_end(&mut out)
                        .map_err(err)?;
                }
                2 => {
                    let n = snap::raw::decompress_len(chunk).map_err(|e| bad(e.to_string()))?;
                    if n > max_block {
                        return Err(bad(format!("ORC snappy chunk of {n} bytes")));
                    }
                    let v = snap::raw::Decoder::new()
                        .decompress_vec(chunk)
                        .map_err(|e| bad(e.to_string()))?;
                    out.extend_from_slice(&v);
                }
                4 => {
                    let v = lz4_flex::block::decompress(chunk, max_block)
                        .map_err(|e| bad(e.to_string()))?;
                    out.extend_from_slice(&v);
                }
                _ => {
                    zstd::stream::read::Decoder::new(chunk)
                        .map_err(err)?
                        .take(limit)
                        .read_to_end(&mut out)
                        .map_err(err)?;
                }
            }
        }
        if out.len() > MAX_FOOTER_BYTES {
            return Err(bad("ORC footer decompresses beyond 256 MiB"));
        }
    }
    Ok(out)
}

enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed,
}

/// The fields of a protobuf message: (field number, value).
struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Fields { buf, pos: 0 }
    }

    fn field(&mut self) -> Result<(u64, Value<'a>)> {
        let key = varint(self.buf, &mut self.pos)?;
        let value = match key & 7 {
            0 => Value::Varint(varint(self.buf, &mut self.pos)?),
            1 | 5 => {
                let n = if key & 7 == 1 { 8 } else { 4 };
                self.take(n)?;
                Value::Fixed
            }
            2 => {
                let n = usize::try_from(varint(self.buf, &mut self.pos)?)
                    .map_err(|_| bad("protobuf length out of range"))?;
                Value::Bytes(self.take(n)?)
            }
            w => return Err(bad(format!("protobuf wire type {w} in an ORC tail"))),
        };
        Ok((key >> 3, value))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let s = self
            .pos
            .checked_add(n)
            .and_then(|end| self.buf.get(self.pos..end))
            .ok_or(bad("truncated protobuf field in an ORC tail"))?;
        self.pos += n;
        Ok(s)
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let r = self.field();
        if r.is_err() {
            self.pos = self.buf.len();
        }
        Some(r)
    }
}

fn varint(buf: &[u8], pos: &mut usize) -> Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf
            .get(*pos)
            .ok_or(bad("truncated protobuf varint in an ORC tail"))?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(bad("protobuf varint longer than 10 bytes in an ORC tail"))
}

/// An [`Error`] of ORC footer: `reason` says what is wrong.
fn bad(reason: impl Into<String>) -> Error {
    Error::corrupt("ORC footer", reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(field: u64, wire: u64, out: &mut Vec<u8>) {
        put(field << 3 | wire, out);
    }

    fn put(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// A tail whose footer lists `types` as (kind, subtypes), uncompressed or in one stored
    /// ("original") chunk.
    fn tail(types: &[(u64, &[u64])], chunked: bool) -> Vec<u8> {
        let mut footer = Vec::new();
        for (kind, subs) in types {
            let mut ty = Vec::new();
            key(1, 0, &mut ty);
            put(*kind, &mut ty);
            let mut packed = Vec::new();
            subs.iter().for_each(|s| put(*s, &mut packed));
            key(2, 2, &mut ty);
            put(packed.len() as u64, &mut ty);
            ty.extend(packed);
            key(4, 2, &mut footer);
            put(ty.len() as u64, &mut footer);
            footer.extend(ty);
        }
        if chunked {
            let h = ((footer.len() as u32) << 1 | 1).to_le_bytes();
            let mut c = h[..3].to_vec();
            c.extend(footer);
            footer = c;
        }
        let mut ps = Vec::new();
        key(1, 0, &mut ps);
        put(footer.len() as u64, &mut ps);
        key(2, 0, &mut ps);
        put(if chunked { 5 } else { 0 }, &mut ps);
        let mut file = b"ORC".to_vec();
        file.extend(footer);
        let ps_len = ps.len() as u8;
        file.extend(ps);
        file.push(ps_len);
        file
    }

    #[test]
    fn pre_order_trees_pass() {
        // struct<a: int, b: list<string>>
        let types: &[(u64, &[u64])] = &[(12, &[1, 2]), (3, &[]), (10, &[3]), (7, &[])];
        check_type_tree(&tail(types, false)).unwrap();
        check_type_tree(&tail(types, true)).unwrap();
    }

    #[test]
    fn cycles_out_of_range_and_deep_nesting_fail() {
        let cycle: &[(u64, &[u64])] = &[(12, &[1]), (10, &[1])];
        let e = check_type_tree(&tail(cycle, false)).unwrap_err();
        assert!(e.to_string().contains("type 1 names subtype 1"), "{e}");
        let back: &[(u64, &[u64])] = &[(12, &[1]), (10, &[0])];
        assert!(check_type_tree(&tail(back, true)).is_err());
        let out: &[(u64, &[u64])] = &[(12, &[5])];
        assert!(check_type_tree(&tail(out, false)).is_err());
        let chain: Vec<(u64, Vec<u64>)> = (0..300u64).map(|i| (10, vec![i + 1])).collect();
        let mut chain: Vec<(u64, &[u64])> = chain.iter().map(|(k, s)| (*k, &s[..])).collect();
        chain.push((3, &[]));
        let e = check_type_tree(&tail(&chain, false)).unwrap_err();
        assert!(e.to_string().contains("deeper than 256"), "{e}");
        // Two columns sharing type 2 (fuzz finding data_file/orc-shared-subtype-extra-column:
        // orc-rust projected the other column along): not a pre-order tree.
        let shared: &[(u64, &[u64])] = &[(12, &[1, 2]), (12, &[2]), (3, &[])];
        let e = check_type_tree(&tail(shared, false)).unwrap_err();
        assert!(e.to_string().contains("type 0 names subtype 2"), "{e}");
        // A type no column reaches.
        let stray: &[(u64, &[u64])] = &[(12, &[1]), (3, &[]), (3, &[])];
        let e = check_type_tree(&tail(stray, false)).unwrap_err();
        assert!(
            e.to_string()
                .contains("lists 3 types but its tree reaches 2"),
            "{e}"
        );
        // A well-formed nested tree passes: struct<a int, b struct<c int, d list<int>>, e int>.
        let nested: &[(u64, &[u64])] = &[
            (12, &[1, 2, 6]),
            (3, &[]),
            (12, &[3, 4]),
            (3, &[]),
            (10, &[5]),
            (3, &[]),
            (3, &[]),
        ];
        check_type_tree(&tail(nested, true)).unwrap();
    }

    #[test]
    fn damaged_tails_are_errors() {
        let good = tail(&[(12, &[1]), (3, &[])], true);
        for n in 0..good.len() {
            let _ = check_type_tree(&good[..n]);
        }
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= 0x55;
            let _ = check_type_tree(&b);
        }
        assert!(check_type_tree(&[]).is_err());
    }
}
