//! Paimon `.blob` files (Java `BlobFormatWriter`, `BlobFileMeta`, `BlobFormatReader`): the
//! values of one BLOB column of a data-evolution table, aligned by row id with its data file.
//!
//! ```text
//! record*  [magic LE i32 = 1481511375][blob bytes][record length LE i64][crc32 LE i32]
//! footer   [index: delta + zig-zag + varint record lengths][index length LE i32][version = 1]
//! ```
//! A record length counts the whole record (16 bytes of framing plus the blob); −1 marks a
//! null value and −2 a placeholder, neither of which takes bytes. The CRC covers magic, blob
//! and length. Everything is checked against the file's size before it is sliced, so damaged
//! bytes give an error, never a panic.

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use bytes::Bytes;

use super::{check_file_rows, BatchIter, DecodeRequest, RowRanges};
use crate::error::{Error, Result};

/// `BlobFormatWriter.MAGIC_NUMBER`.
const MAGIC: i32 = 1_481_511_375;
/// Magic, record length and CRC around each blob.
const FRAMING: u64 = 16;
/// The only footer version Java writes.
const VERSION: u8 = 1;
/// Record length of a null value.
const NULL_LENGTH: i64 = -1;
/// Record length of a placeholder.
const PLACEHOLDER_LENGTH: i64 = -2;

/// One value of a blob file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlobValue<'a> {
    /// A null value.
    Null,
    /// A placeholder (Java `BlobPlaceholder`): the value is not stored in this file.
    Placeholder,
    /// The blob's bytes.
    Bytes(&'a [u8]),
}

/// A parsed `.blob` file over its bytes (Java `BlobFileMeta`).
#[derive(Debug)]
pub struct BlobFile<'a> {
    data: &'a [u8],
    /// Per record: its length as the index holds it, and its start when it has bytes.
    records: Vec<(i64, usize)>,
}

impl<'a> BlobFile<'a> {
    /// Parses the footer and index of `data`, the whole blob file at `path`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming `path` and what does not follow the format.
    pub fn parse(path: &str, data: &'a [u8]) -> Result<Self> {
        Self::decode(data).map_err(|reason| Error::corrupt(path, reason))
    }

    fn decode(data: &'a [u8]) -> std::result::Result<Self, String> {
        let size = data.len();
        let footer = size
            .checked_sub(5)
            .ok_or_else(|| format!("{size} bytes is too short for a blob file footer"))?;
        let version = data[footer + 4];
        if version != VERSION {
            return Err(format!("unsupported blob file version {version}"));
        }
        let index_len = le_i32(&data[footer..footer + 4]);
        let index_start = usize::try_from(index_len)
            .ok()
            .and_then(|n| footer.checked_sub(n))
            .ok_or_else(|| format!("index length {index_len} does not fit the file"))?;
        let lengths = decompress_delta_varint(&data[index_start..footer])?;
        let mut records = Vec::with_capacity(lengths.len());
        let mut offset = 0usize;
        for (i, &len) in lengths.iter().enumerate() {
            records.push((len, offset));
            match len {
                NULL_LENGTH | PLACEHOLDER_LENGTH => {}
                l if l >= FRAMING as i64 => {
                    offset = usize::try_from(l)
                        .ok()
                        .and_then(|l| offset.checked_add(l))
                        .filter(|end| *end <= index_start)
                        .ok_or_else(|| {
                            format!("record {i} of {l} bytes runs past the records section")
                        })?;
                }
                l => return Err(format!("record {i} has invalid length {l}")),
            }
        }
        if offset != index_start {
            return Err(format!(
                "records cover {offset} bytes but the records section has {index_start}"
            ));
        }
        Ok(BlobFile { data, records })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the file holds no value.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Value `i`, with its record's magic, length and CRC verified.
    ///
    /// # Errors
    /// A description of the damage, or of an index out of bounds.
    pub fn get(&self, i: usize) -> std::result::Result<BlobValue<'a>, String> {
        let &(len, start) = self
            .records
            .get(i)
            .ok_or_else(|| format!("record {i} of {}", self.records.len()))?;
        match len {
            NULL_LENGTH => return Ok(BlobValue::Null),
            PLACEHOLDER_LENGTH => return Ok(BlobValue::Placeholder),
            _ => {}
        }
        // `parse` checked start + len against the records section.
        let end = start + usize::try_from(len).map_err(|_| format!("record {i} length {len}"))?;
        let record = self
            .data
            .get(start..end)
            .ok_or_else(|| format!("record {i} is outside the file"))?;
        let n = record.len();
        if le_i32(&record[..4]) != MAGIC {
            return Err(format!("record {i} at byte {start}: bad magic"));
        }
        let stored_len = i64::from_le_bytes(array8(&record[n - 12..n - 4]));
        if stored_len != len {
            return Err(format!(
                "record {i} at byte {start}: length {stored_len} in the record, {len} in the index"
            ));
        }
        let crc = le_i32(&record[n - 4..]) as u32;
        let actual = crc32fast::hash(&record[..n - 4]);
        if crc != actual {
            return Err(format!(
                "record {i} at byte {start}: CRC {actual:08x} does not match the stored {crc:08x}"
            ));
        }
        Ok(BlobValue::Bytes(&record[4..n - 12]))
    }
}

/// A serialized `BlobDescriptor` (Java `common/data/BlobDescriptor`): where the bytes of a
/// BLOB value stored as a reference live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobDescriptor {
    /// The file holding the bytes.
    pub uri: String,
    /// Byte offset in that file.
    pub offset: u64,
    /// Number of bytes; `None` (−1 on disk, as `Blob.fromFile` writes) up to the file's end.
    pub length: Option<u64>,
}

/// `BlobDescriptor` magic of version 2, "BLOBDESC" as a little-endian i64.
const DESCRIPTOR_MAGIC: u64 = 0x424C_4F42_4445_5343;

impl BlobDescriptor {
    /// Parses `[version u8][magic i64 LE, version ≥ 2][uriLen i32 LE][uri][offset i64 LE]
    /// [length i64 LE]`, a descriptor stored in the data file at `path`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming `path` and what does not follow the layout.
    pub fn parse(path: &str, bytes: &[u8]) -> Result<Self> {
        Self::decode(bytes).map_err(|reason| Error::corrupt(path, reason))
    }

    fn decode(bytes: &[u8]) -> std::result::Result<Self, String> {
        let mut pos = 0usize;
        let mut take = |n: usize| -> std::result::Result<&[u8], String> {
            let out = pos
                .checked_add(n)
                .and_then(|end| bytes.get(pos..end))
                .ok_or_else(|| format!("blob descriptor of {} bytes is cut short", bytes.len()))?;
            pos += n;
            Ok(out)
        };
        let version = take(1)?[0];
        match version {
            1 => {}
            2 => {
                let magic = u64::from_le_bytes(array8(take(8)?));
                if magic != DESCRIPTOR_MAGIC {
                    return Err(format!("blob descriptor has bad magic {magic:#x}"));
                }
            }
            v => return Err(format!("unsupported blob descriptor version {v}")),
        }
        let uri_len = le_i32(take(4)?);
        let uri_len = usize::try_from(uri_len)
            .map_err(|_| format!("blob descriptor URI length {uri_len}"))?;
        let uri = std::str::from_utf8(take(uri_len)?)
            .map_err(|_| "blob descriptor URI is not UTF-8".to_string())?
            .to_string();
        let offset = i64::from_le_bytes(array8(take(8)?));
        let length = i64::from_le_bytes(array8(take(8)?));
        let bad = || format!("blob descriptor range {offset}+{length} is invalid");
        let offset = u64::try_from(offset).map_err(|_| bad())?;
        let length = match length {
            -1 => None,
            l => Some(u64::try_from(l).map_err(|_| bad())?),
        };
        Ok(BlobDescriptor {
            uri,
            offset,
            length,
        })
    }
}

/// Decodes Java `DeltaVarintCompressor` output: the first value, then each difference from
/// the previous one, every number zig-zag encoded as an unsigned LEB128 varint.
///
/// # Errors
/// A truncated or over-long varint.
pub fn decompress_delta_varint(bytes: &[u8]) -> std::result::Result<Vec<i64>, String> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut prev = 0i64;
    while pos < bytes.len() {
        let mut v: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = *bytes
                .get(pos)
                .ok_or_else(|| format!("truncated varint at byte {pos} of the index"))?;
            pos += 1;
            if shift >= 64 || (shift == 63 && b > 1) {
                return Err(format!("varint too long at byte {pos} of the index"));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        let delta = ((v >> 1) as i64) ^ -((v & 1) as i64);
        prev = prev.wrapping_add(delta);
        out.push(prev);
    }
    Ok(out)
}

/// Decodes a blob file held in memory into batches of its one column.
pub(super) fn decode(path: &str, data: Bytes, req: &DecodeRequest) -> Result<BatchIter> {
    let file = BlobFile::parse(path, &data)?;
    let column = match req.columns.as_slice() {
        [] => None,
        [name] => Some(name.clone()),
        more => {
            return Err(Error::corrupt(
                path,
                format!(
                    "a blob file holds one column, {} were asked for",
                    more.len()
                ),
            ))
        }
    };
    if let Some((_, t)) = req.types.iter().find(|(n, _)| Some(n) == column.as_ref()) {
        if !matches!(t, ArrowType::Binary) {
            return Err(Error::unsupported(format!(
                "blob column of Arrow type {t} in {path}"
            )));
        }
    }
    let total = file.len();
    check_file_rows(path, req, total as u64)?;
    let rows = req
        .rows
        .clone()
        .unwrap_or_else(|| RowRanges::all(total as u64));
    let positions: Vec<usize> = rows
        .positions()
        .filter_map(|p| usize::try_from(p).ok())
        .collect();
    let schema = Arc::new(Schema::new(
        column
            .iter()
            .map(|n| Field::new(n, ArrowType::Binary, true))
            .collect::<Vec<_>>(),
    ));
    let mut batches = Vec::new();
    for chunk in positions.chunks(req.batch_size.max(1)) {
        let mut cols: Vec<ArrayRef> = Vec::new();
        if column.is_some() {
            let mut values = Vec::with_capacity(chunk.len());
            for &p in chunk {
                values.push(match file.get(p).map_err(|r| Error::corrupt(path, r))? {
                    BlobValue::Null => None,
                    BlobValue::Bytes(b) => Some(b),
                    BlobValue::Placeholder => {
                        return Err(Error::unsupported(format!(
                            "blob placeholder at row {p} of {path}"
                        )))
                    }
                });
            }
            cols.push(Arc::new(BinaryArray::from(values)));
        }
        let options = RecordBatchOptions::new().with_row_count(Some(chunk.len()));
        batches.push(Ok(RecordBatch::try_new_with_options(
            schema.clone(),
            cols,
            &options,
        )
        .map_err(|e| Error::arrow(path, e))?));
    }
    Ok(Box::new(batches.into_iter()))
}

fn le_i32(b: &[u8]) -> i32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    i32::from_le_bytes(a)
}

fn array8(b: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob file as Java's `BlobFormatWriter` lays it out.
    fn encode(values: &[Option<&[u8]>]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut lengths = Vec::new();
        for v in values {
            match v {
                None => lengths.push(NULL_LENGTH),
                Some(b) => {
                    let start = out.len();
                    let len = b.len() as i64 + FRAMING as i64;
                    out.extend_from_slice(&MAGIC.to_le_bytes());
                    out.extend_from_slice(b);
                    out.extend_from_slice(&len.to_le_bytes());
                    let crc = crc32fast::hash(&out[start..]);
                    out.extend_from_slice(&crc.to_le_bytes());
                    lengths.push(len);
                }
            }
        }
        let mut index = Vec::new();
        let mut prev = 0i64;
        for l in lengths {
            let d = l - prev;
            prev = l;
            let mut z = ((d << 1) ^ (d >> 63)) as u64;
            while z >= 0x80 {
                index.push((z as u8) | 0x80);
                z >>= 7;
            }
            index.push(z as u8);
        }
        out.extend_from_slice(&index);
        out.extend_from_slice(&(index.len() as i32).to_le_bytes());
        out.push(VERSION);
        out
    }

    #[test]
    fn delta_varint_matches_the_cpp_vectors() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/testdata/paimon-cpp/delta_varint_compressor.data"
        );
        let Ok(entries) = std::fs::read_dir(dir) else {
            return; // test data not present in this checkout
        };
        let mut cases = 0;
        for e in entries {
            let path = e.unwrap().path();
            if path.extension().and_then(|x| x.to_str()) != Some("bin") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let text = std::fs::read_to_string(path.with_extension("txt")).unwrap();
            let want: Vec<i64> = text
                .split_whitespace()
                .map(|t| t.parse().unwrap())
                .collect();
            assert_eq!(decompress_delta_varint(&bytes).unwrap(), want, "{path:?}");
            cases += 1;
        }
        assert!(cases > 0);
    }

    #[test]
    fn round_trip_with_nulls() {
        let data = encode(&[Some(b"abc"), None, Some(b""), Some(&[0u8; 300])]);
        let f = BlobFile::parse("t.blob", &data).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(f.get(0).unwrap(), BlobValue::Bytes(b"abc"));
        assert_eq!(f.get(1).unwrap(), BlobValue::Null);
        assert_eq!(f.get(2).unwrap(), BlobValue::Bytes(b""));
        assert_eq!(f.get(3).unwrap(), BlobValue::Bytes(&[0u8; 300]));
        assert!(f.get(4).is_err());
    }

    #[test]
    fn damage_is_an_error() {
        let data = encode(&[Some(b"abcdef"), Some(b"xyz")]);
        let mut flipped = data.clone();
        flipped[5] ^= 1;
        let f = BlobFile::parse("t.blob", &flipped).unwrap();
        assert!(f.get(0).unwrap_err().contains("CRC"));
        assert_eq!(f.get(1).unwrap(), BlobValue::Bytes(b"xyz"));
        // Every truncation and every single-byte change either parses or errors; no panic.
        for cut in 0..data.len() {
            if let Ok(f) = BlobFile::parse("t.blob", &data[..cut]) {
                for i in 0..f.len() {
                    let _ = f.get(i);
                }
            }
        }
        for pos in 0..data.len() {
            for bit in 0..8 {
                let mut d = data.clone();
                d[pos] ^= 1 << bit;
                if let Ok(f) = BlobFile::parse("t.blob", &d) {
                    for i in 0..f.len() {
                        let _ = f.get(i);
                    }
                }
            }
        }
        assert!(BlobFile::parse("t.blob", &[]).is_err());
        assert!(decompress_delta_varint(&[0xff; 11]).is_err());
    }

    #[test]
    fn descriptors() {
        let mut b = vec![2u8];
        b.extend_from_slice(&DESCRIPTOR_MAGIC.to_le_bytes());
        b.extend_from_slice(&5i32.to_le_bytes());
        b.extend_from_slice(b"/a/b1");
        b.extend_from_slice(&7i64.to_le_bytes());
        b.extend_from_slice(&9i64.to_le_bytes());
        assert_eq!(
            BlobDescriptor::parse("t.blob", &b).unwrap(),
            BlobDescriptor {
                uri: "/a/b1".into(),
                offset: 7,
                length: Some(9)
            }
        );
        for cut in 0..b.len() {
            assert!(BlobDescriptor::parse("t.blob", &b[..cut]).is_err());
        }
        let mut v1 = vec![1u8];
        v1.extend_from_slice(&b[9..]);
        assert_eq!(BlobDescriptor::parse("t.blob", &v1).unwrap().uri, "/a/b1");
    }

    #[test]
    fn reads_the_java_fixture() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/warehouse/append.db/blob/bucket-0/data-5bb36e27-612a-4c98-9f1b-370f8443abf9-1.blob"
        );
        let data = std::fs::read(path).unwrap();
        let f = BlobFile::parse("t.blob", &data).unwrap();
        assert!(!f.is_empty());
        for i in 0..f.len() {
            f.get(i).unwrap();
        }
    }
}
