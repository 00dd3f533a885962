//! Decoding `BinaryArray` and `BinaryMap` (Java `BinaryArray`, `BinaryMap`).

use super::datum::Datum;
use super::row::decode_value;
use crate::error::{Error, Result};
use crate::types::{DataType, TypeKind};

/// A borrowed, bounds-checked view of a BinaryArray.
///
/// ```text
/// | n: i32 LE | null bits: 4*ceil(n/32) | n element slots | pad to 8 | var part |
/// ```
#[derive(Debug, Clone, Copy)]
pub struct BinaryArray<'a> {
    bytes: &'a [u8],
    len: usize,
}

fn corrupt(reason: String) -> Error {
    Error::corrupt("BinaryArray", reason)
}

/// Bytes per element slot (Java `BinaryArray.calculateFixLengthPartSize`).
pub(crate) fn element_size(ty: &DataType) -> usize {
    match ty.kind {
        TypeKind::Boolean | TypeKind::TinyInt => 1,
        TypeKind::SmallInt => 2,
        TypeKind::Int | TypeKind::Float | TypeKind::Date | TypeKind::Time { .. } => 4,
        _ => 8,
    }
}

/// Header bytes for `n` elements.
pub(crate) fn header_size(n: usize) -> usize {
    4 + n.div_ceil(32) * 4
}

impl<'a> BinaryArray<'a> {
    /// Wraps array bytes.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the header is short or the count is negative.
    pub fn new(bytes: &'a [u8]) -> Result<Self> {
        let head: [u8; 4] = bytes
            .get(..4)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| corrupt(format!("{} bytes hold no element count", bytes.len())))?;
        let n = i32::from_le_bytes(head);
        let len = usize::try_from(n).map_err(|_| corrupt(format!("negative element count {n}")))?;
        if header_size(len) > bytes.len() {
            return Err(corrupt(format!(
                "{len} elements do not fit in {} bytes",
                bytes.len()
            )));
        }
        Ok(BinaryArray { bytes, len })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The raw bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether element `i` is null.
    pub fn is_null_at(&self, i: usize) -> bool {
        i < self.len && self.bytes[4 + i / 8] & (1 << (i % 8)) != 0
    }

    /// Decodes every element as `elem`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when an element lies outside the buffer or is malformed.
    pub fn to_datums(&self, elem: &DataType) -> Result<Vec<Datum>> {
        let size = element_size(elem);
        let start = header_size(self.len);
        self.len
            .checked_mul(size)
            .and_then(|b| b.checked_add(start))
            .filter(|e| *e <= self.bytes.len())
            .ok_or_else(|| {
                corrupt(format!(
                    "{} elements of {size} bytes exceed {} bytes",
                    self.len,
                    self.bytes.len()
                ))
            })?;
        let mut out = Vec::with_capacity(self.len);
        for i in 0..self.len {
            if self.is_null_at(i) {
                out.push(Datum::Null);
                continue;
            }
            let off = start + i * size;
            let mut slot = [0u8; 8];
            slot[..size].copy_from_slice(&self.bytes[off..off + size]);
            out.push(decode_value(self.bytes, slot, off, elem, "BinaryArray")?);
        }
        Ok(out)
    }

    /// Decodes an array of non-null strings (used for DataFileMeta's string lists).
    ///
    /// # Errors
    /// [`Error::Corrupt`] on a null element or a malformed one.
    pub fn to_strings(&self) -> Result<Vec<String>> {
        self.to_datums(&DataType::string())?
            .into_iter()
            .map(|d| match d {
                Datum::String(s) => Ok(s),
                _ => Err(corrupt("null element in a string list".into())),
            })
            .collect()
    }

    /// Decodes an array of nullable longs.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on a malformed array.
    pub fn to_longs(&self) -> Result<Vec<Option<i64>>> {
        Ok(self
            .to_datums(&DataType::nullable(TypeKind::BigInt))?
            .into_iter()
            .map(|d| d.as_i64())
            .collect())
    }
}

/// A BinaryMap: `[key array size: i32 LE][key array][value array]`.
#[derive(Debug, Clone, Copy)]
pub struct BinaryMap<'a> {
    keys: BinaryArray<'a>,
    values: BinaryArray<'a>,
}

impl<'a> BinaryMap<'a> {
    /// Wraps map bytes.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the key array size is out of range or the arrays differ in length.
    pub fn new(bytes: &'a [u8]) -> Result<Self> {
        let bad = |r: String| Error::corrupt("BinaryMap", r);
        let head: [u8; 4] = bytes
            .get(..4)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| bad("shorter than 4 bytes".into()))?;
        let ksize = i32::from_le_bytes(head);
        let ksize = usize::try_from(ksize)
            .ok()
            .filter(|k| 4 + k <= bytes.len())
            .ok_or_else(|| bad(format!("key array size {ksize} out of range")))?;
        let keys = BinaryArray::new(&bytes[4..4 + ksize])?;
        let values = BinaryArray::new(&bytes[4 + ksize..])?;
        if keys.len() != values.len() {
            return Err(bad(format!(
                "{} keys but {} values",
                keys.len(),
                values.len()
            )));
        }
        Ok(BinaryMap { keys, values })
    }

    /// The key array.
    pub fn keys(&self) -> BinaryArray<'a> {
        self.keys
    }

    /// The value array.
    pub fn values(&self) -> BinaryArray<'a> {
        self.values
    }

    /// Decodes the entries in stored order.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on malformed arrays.
    pub fn to_pairs(&self, key: &DataType, value: &DataType) -> Result<Vec<(Datum, Datum)>> {
        let k = self.keys.to_datums(key)?;
        let v = self.values.to_datums(value)?;
        Ok(k.into_iter().zip(v).collect())
    }
}
