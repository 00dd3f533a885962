//! Decoding a `BinaryRow` (Java `BinaryRow`).

use super::array::{BinaryArray, BinaryMap};
use super::datum::Datum;
use crate::error::{Error, Result};
use crate::types::{DataType, TypeKind};

/// Width in bytes of the header + null bitset for `arity` fields.
pub fn null_bits_width(arity: usize) -> usize {
    (arity + 63 + 8) / 64 * 8
}

/// A borrowed, bounds-checked view of one BinaryRow's bytes.
#[derive(Debug, Clone, Copy)]
pub struct BinaryRow<'a> {
    bytes: &'a [u8],
    arity: usize,
}

fn corrupt(reason: String) -> Error {
    Error::corrupt("BinaryRow", reason)
}

impl<'a> BinaryRow<'a> {
    /// Wraps row bytes of a row with `arity` fields.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the bytes are shorter than the fixed part.
    pub fn new(bytes: &'a [u8], arity: usize) -> Result<Self> {
        let fixed = null_bits_width(arity)
            .checked_add(
                arity
                    .checked_mul(8)
                    .ok_or_else(|| corrupt("arity overflow".into()))?,
            )
            .ok_or_else(|| corrupt("arity overflow".into()))?;
        if bytes.len() < fixed {
            return Err(corrupt(format!(
                "{} bytes cannot hold a row of arity {arity} (fixed part is {fixed} bytes)",
                bytes.len()
            )));
        }
        Ok(BinaryRow { bytes, arity })
    }

    /// Decodes the schemaless form `[arity: i32 BE][row bytes]` (Java
    /// `SerializationUtils.deserializeBinaryRow`).
    ///
    /// # Errors
    /// [`Error::Corrupt`] on a short buffer or negative arity.
    pub fn from_serialized(bytes: &'a [u8]) -> Result<Self> {
        let head: [u8; 4] = bytes
            .get(..4)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| {
                corrupt(format!(
                    "serialized row of {} bytes has no arity",
                    bytes.len()
                ))
            })?;
        let arity = i32::from_be_bytes(head);
        let arity =
            usize::try_from(arity).map_err(|_| corrupt(format!("negative arity {arity}")))?;
        Self::new(&bytes[4..], arity)
    }

    /// Number of fields.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The raw row bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The row kind byte (0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`).
    pub fn row_kind(&self) -> u8 {
        self.bytes[0]
    }

    /// Java `BinaryRow.hashCode`.
    pub fn hash_code(&self) -> i32 {
        super::murmur_hash_words(self.bytes)
    }

    fn check(&self, pos: usize) -> Result<()> {
        if pos >= self.arity {
            return Err(corrupt(format!(
                "field {pos} out of range for arity {}",
                self.arity
            )));
        }
        Ok(())
    }

    /// Whether field `pos` is null.
    ///
    /// # Errors
    /// [`Error::Corrupt`] if `pos` is out of range.
    pub fn is_null_at(&self, pos: usize) -> Result<bool> {
        self.check(pos)?;
        let bit = pos + 8;
        Ok(self.bytes[bit / 8] & (1 << (bit % 8)) != 0)
    }

    fn slot_offset(&self, pos: usize) -> usize {
        null_bits_width(self.arity) + pos * 8
    }

    fn slot(&self, pos: usize) -> Result<[u8; 8]> {
        self.check(pos)?;
        let off = self.slot_offset(pos);
        let mut s = [0u8; 8];
        s.copy_from_slice(&self.bytes[off..off + 8]);
        Ok(s)
    }

    /// The slot as a little-endian i64.
    ///
    /// # Errors
    /// [`Error::Corrupt`] if `pos` is out of range.
    pub fn get_long(&self, pos: usize) -> Result<i64> {
        Ok(i64::from_le_bytes(self.slot(pos)?))
    }

    /// The slot's first four bytes as a little-endian i32.
    ///
    /// # Errors
    /// [`Error::Corrupt`] if `pos` is out of range.
    pub fn get_int(&self, pos: usize) -> Result<i32> {
        let s = self.slot(pos)?;
        Ok(i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// Variable-length bytes (string / binary) of field `pos`, inline or out of line.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the offset or length points outside the row.
    pub fn get_binary(&self, pos: usize) -> Result<&'a [u8]> {
        read_var_bytes(
            self.bytes,
            self.slot(pos)?,
            self.slot_offset(pos),
            "BinaryRow",
        )
    }

    /// A string field.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on bad offsets or invalid UTF-8.
    pub fn get_string(&self, pos: usize) -> Result<&'a str> {
        let b = self.get_binary(pos)?;
        std::str::from_utf8(b).map_err(|e| corrupt(format!("field {pos} is not UTF-8: {e}")))
    }

    /// The out-of-line section `(offset << 32) | size` of field `pos`.
    fn section(&self, pos: usize) -> Result<&'a [u8]> {
        let v = u64::from_le_bytes(self.slot(pos)?);
        section_of(self.bytes, v, "BinaryRow")
    }

    /// A nested row field of the given arity.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on bad offsets.
    pub fn get_row(&self, pos: usize, arity: usize) -> Result<BinaryRow<'a>> {
        BinaryRow::new(self.section(pos)?, arity)
    }

    /// A nested array field.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on bad offsets.
    pub fn get_array(&self, pos: usize) -> Result<BinaryArray<'a>> {
        BinaryArray::new(self.section(pos)?)
    }

    /// A nested map field.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on bad offsets.
    pub fn get_map(&self, pos: usize) -> Result<BinaryMap<'a>> {
        BinaryMap::new(self.section(pos)?)
    }

    /// Decodes field `pos` as `ty`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the bytes do not hold a value of `ty`.
    pub fn get(&self, pos: usize, ty: &DataType) -> Result<Datum> {
        if self.is_null_at(pos)? {
            return Ok(Datum::Null);
        }
        let slot = self.slot(pos)?;
        decode_value(self.bytes, slot, self.slot_offset(pos), ty, "BinaryRow")
    }

    /// Decodes every field with the given types (one type per field).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the arity differs or a value is malformed.
    pub fn to_datums(&self, types: &[DataType]) -> Result<Vec<Datum>> {
        if types.len() != self.arity {
            return Err(corrupt(format!(
                "row has arity {} but {} types were given",
                self.arity,
                types.len()
            )));
        }
        types
            .iter()
            .enumerate()
            .map(|(i, t)| self.get(i, t))
            .collect()
    }
}

/// Resolves a `(offset << 32) | size` pointer against `base`.
pub(crate) fn section_of<'a>(base: &'a [u8], v: u64, what: &str) -> Result<&'a [u8]> {
    let offset = (v >> 32) as usize;
    let size = (v & 0xffff_ffff) as usize;
    offset
        .checked_add(size)
        .and_then(|end| base.get(offset..end))
        .ok_or_else(|| {
            Error::corrupt(
                what,
                format!(
                    "section at offset {offset} of {size} bytes exceeds {} bytes",
                    base.len()
                ),
            )
        })
}

/// Reads string/binary bytes from a slot: inline when the mark bit is set.
pub(crate) fn read_var_bytes<'a>(
    base: &'a [u8],
    slot: [u8; 8],
    slot_offset: usize,
    what: &str,
) -> Result<&'a [u8]> {
    if slot[7] & 0x80 != 0 {
        let len = (slot[7] & 0x7f) as usize;
        if len > 7 {
            return Err(Error::corrupt(
                what,
                format!("inline length {len} exceeds 7"),
            ));
        }
        Ok(&base[slot_offset..slot_offset + len])
    } else {
        section_of(base, u64::from_le_bytes(slot), what)
    }
}

/// Decodes one non-null value of `ty` from its slot (shared by rows and arrays).
pub(crate) fn decode_value(
    base: &[u8],
    slot: [u8; 8],
    slot_offset: usize,
    ty: &DataType,
    what: &str,
) -> Result<Datum> {
    let le_i64 = i64::from_le_bytes(slot);
    let le_i32 = i32::from_le_bytes([slot[0], slot[1], slot[2], slot[3]]);
    let utf8 = |b: &[u8]| {
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|e| Error::corrupt(what, format!("string is not UTF-8: {e}")))
    };
    Ok(match &ty.kind {
        TypeKind::Boolean => Datum::Boolean(slot[0] != 0),
        TypeKind::TinyInt => Datum::TinyInt(slot[0] as i8),
        TypeKind::SmallInt => Datum::SmallInt(i16::from_le_bytes([slot[0], slot[1]])),
        TypeKind::Int => Datum::Int(le_i32),
        TypeKind::Date => Datum::Date(le_i32),
        TypeKind::Time { .. } => Datum::Time(le_i32),
        TypeKind::BigInt => Datum::BigInt(le_i64),
        TypeKind::Float => Datum::Float(f32::from_le_bytes([slot[0], slot[1], slot[2], slot[3]])),
        TypeKind::Double => Datum::Double(f64::from_le_bytes(slot)),
        TypeKind::Decimal { precision, scale } => {
            let unscaled = if *precision <= 18 {
                i128::from(le_i64)
            } else {
                let bytes = section_of(base, le_i64 as u64, what)?;
                decode_be_twos_complement(bytes).ok_or_else(|| {
                    Error::corrupt(what, format!("decimal of {} bytes exceeds 16", bytes.len()))
                })?
            };
            Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            }
        }
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => {
            Datum::String(utf8(read_var_bytes(base, slot, slot_offset, what)?)?)
        }
        TypeKind::Binary { .. }
        | TypeKind::VarBinary { .. }
        | TypeKind::Blob
        | TypeKind::Spatial { .. } => {
            Datum::Binary(read_var_bytes(base, slot, slot_offset, what)?.to_vec())
        }
        TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision } => {
            let (millis, nanos) = if *precision <= 3 {
                (le_i64, 0)
            } else {
                let v = le_i64 as u64;
                let offset = (v >> 32) as usize;
                let nanos = (v & 0xffff_ffff) as i32;
                let b = offset
                    .checked_add(8)
                    .and_then(|e| base.get(offset..e))
                    .ok_or_else(|| {
                        Error::corrupt(what, format!("timestamp offset {offset} out of range"))
                    })?;
                let mut m = [0u8; 8];
                m.copy_from_slice(b);
                (i64::from_le_bytes(m), nanos)
            };
            if !(0..1_000_000).contains(&nanos) {
                return Err(Error::corrupt(
                    what,
                    format!("timestamp nano-of-milli {nanos} out of range"),
                ));
            }
            if matches!(ty.kind, TypeKind::Timestamp { .. }) {
                Datum::Timestamp { millis, nanos }
            } else {
                Datum::LocalZonedTimestamp { millis, nanos }
            }
        }
        TypeKind::Row(fields) => {
            let row = BinaryRow::new(section_of(base, le_i64 as u64, what)?, fields.len())?;
            let types: Vec<DataType> = fields.iter().map(|f| f.data_type.clone()).collect();
            Datum::Row(row.to_datums(&types)?)
        }
        TypeKind::Array(elem) | TypeKind::Vector { element: elem, .. } => {
            let arr = BinaryArray::new(section_of(base, le_i64 as u64, what)?)?;
            Datum::Array(arr.to_datums(elem)?)
        }
        TypeKind::Map { key, value } => {
            let map = BinaryMap::new(section_of(base, le_i64 as u64, what)?)?;
            Datum::Map(map.to_pairs(key, value)?)
        }
        TypeKind::Multiset(elem) => {
            let map = BinaryMap::new(section_of(base, le_i64 as u64, what)?)?;
            Datum::Map(map.to_pairs(elem, &DataType::not_null(TypeKind::Int))?)
        }
        TypeKind::Variant => {
            let b = section_of(base, le_i64 as u64, what)?;
            let head: [u8; 4] = b
                .get(..4)
                .and_then(|s| s.try_into().ok())
                .ok_or_else(|| Error::corrupt(what, "variant shorter than 4 bytes"))?;
            let vlen = i32::from_le_bytes(head);
            let vlen = usize::try_from(vlen)
                .ok()
                .filter(|l| 4 + l <= b.len())
                .ok_or_else(|| {
                    Error::corrupt(what, format!("variant value length {vlen} out of range"))
                })?;
            Datum::Variant {
                value: b[4..4 + vlen].to_vec(),
                metadata: b[4 + vlen..].to_vec(),
            }
        }
    })
}

/// Decodes a big-endian two's-complement integer of at most 16 bytes.
pub(crate) fn decode_be_twos_complement(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() {
        return Some(0);
    }
    if bytes.len() > 16 {
        return None;
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(buf))
}
