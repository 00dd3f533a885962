//! Encoding typed values into Java's binary layouts (Java `BinaryRowWriter`,
//! `BinaryArrayWriter`). Output is byte-for-byte what Java writes: zeroed padding, inline short
//! strings, reserved space for null non-compact decimals and timestamps.

use super::array::{element_size, header_size};
use super::datum::Datum;
use super::round_to_word;
use super::row::null_bits_width;
use crate::error::{Error, Result};
use crate::types::{DataType, TypeKind};

/// Java `RowKind`: the first byte of every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum RowKind {
    /// `+I`
    Insert = 0,
    /// `-U`
    UpdateBefore = 1,
    /// `+U`
    UpdateAfter = 2,
    /// `-D`
    Delete = 3,
}

impl RowKind {
    /// The kind for a stored byte.
    pub fn from_byte(b: u8) -> Option<Self> {
        match b {
            0 => Some(RowKind::Insert),
            1 => Some(RowKind::UpdateBefore),
            2 => Some(RowKind::UpdateAfter),
            3 => Some(RowKind::Delete),
            _ => None,
        }
    }

    /// Whether this kind adds a row (`+I`, `+U`).
    pub fn is_add(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }

    /// Java's short string (`+I`, `-U`, `+U`, `-D`).
    pub fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }

    /// The kind of a Java short string (`+I`, `-U`, `+U`, `-D`; surrounding blanks ignored).
    pub fn from_short_string(text: &str) -> Option<Self> {
        match text.trim() {
            "+I" => Some(RowKind::Insert),
            "-U" => Some(RowKind::UpdateBefore),
            "+U" => Some(RowKind::UpdateAfter),
            "-D" => Some(RowKind::Delete),
            _ => None,
        }
    }
}

fn mismatch(ty: &DataType, d: &Datum) -> Error {
    Error::Encode {
        what: "BinaryRow".into(),
        reason: format!("value {d:?} does not match type {ty}"),
    }
}

/// A growing buffer with a fixed part followed by the variable part.
#[derive(Debug, Clone)]
struct Buf {
    bytes: Vec<u8>,
}

impl Buf {
    fn put(&mut self, at: usize, data: &[u8]) {
        self.bytes[at..at + data.len()].copy_from_slice(data);
    }

    /// Appends `data` zero-padded to 8 bytes and returns its offset.
    fn append_var(&mut self, data: &[u8]) -> usize {
        let off = self.bytes.len();
        self.bytes.extend_from_slice(data);
        self.bytes.resize(off + round_to_word(data.len()), 0);
        off
    }

    fn set_pointer(&mut self, slot: usize, offset: usize, size: u64) {
        let v = ((offset as u64) << 32) | size;
        self.put(slot, &v.to_le_bytes());
    }

    /// Writes the non-null value `d` of `ty` into the slot at `slot`.
    fn write_value(&mut self, slot: usize, ty: &DataType, d: &Datum) -> Result<()> {
        match (&ty.kind, d) {
            (TypeKind::Boolean, Datum::Boolean(b)) => self.put(slot, &[u8::from(*b)]),
            (TypeKind::TinyInt, Datum::TinyInt(v)) => self.put(slot, &v.to_le_bytes()),
            (TypeKind::SmallInt, Datum::SmallInt(v)) => self.put(slot, &v.to_le_bytes()),
            (TypeKind::Int, Datum::Int(v))
            | (TypeKind::Date, Datum::Date(v))
            | (TypeKind::Time { .. }, Datum::Time(v)) => self.put(slot, &v.to_le_bytes()),
            (TypeKind::BigInt, Datum::BigInt(v)) => self.put(slot, &v.to_le_bytes()),
            (TypeKind::Float, Datum::Float(v)) => self.put(slot, &v.to_le_bytes()),
            (TypeKind::Double, Datum::Double(v)) => self.put(slot, &v.to_le_bytes()),
            (TypeKind::Decimal { precision, .. }, Datum::Decimal { unscaled, .. }) => {
                if *precision <= 18 {
                    let v = i64::try_from(*unscaled).map_err(|_| mismatch(ty, d))?;
                    self.put(slot, &v.to_le_bytes());
                } else {
                    let be = minimal_be_twos_complement(*unscaled);
                    let off = self.append_var(&[0u8; 16]);
                    self.put(off, &be);
                    self.set_pointer(slot, off, be.len() as u64);
                }
            }
            (TypeKind::Char { .. } | TypeKind::VarChar { .. }, Datum::String(s)) => {
                self.write_var_bytes(slot, s.as_bytes())
            }
            (
                TypeKind::Binary { .. }
                | TypeKind::VarBinary { .. }
                | TypeKind::Blob
                | TypeKind::Spatial { .. },
                Datum::Binary(b),
            ) => self.write_var_bytes(slot, b),
            (TypeKind::Timestamp { precision }, Datum::Timestamp { millis, nanos })
            | (
                TypeKind::LocalZonedTimestamp { precision },
                Datum::LocalZonedTimestamp { millis, nanos },
            ) => {
                if *precision <= 3 {
                    self.put(slot, &millis.to_le_bytes());
                } else {
                    let off = self.append_var(&millis.to_le_bytes());
                    self.set_pointer(slot, off, *nanos as u32 as u64);
                }
            }
            (TypeKind::Row(fields), Datum::Row(values)) => {
                let types: Vec<DataType> = fields.iter().map(|f| f.data_type.clone()).collect();
                let nested = encode_row(RowKind::Insert, values, &types)?;
                let off = self.append_var(&nested);
                self.set_pointer(slot, off, nested.len() as u64);
            }
            (TypeKind::Array(e) | TypeKind::Vector { element: e, .. }, Datum::Array(values)) => {
                let nested = encode_array(values, e)?;
                let off = self.append_var(&nested);
                self.set_pointer(slot, off, nested.len() as u64);
            }
            (TypeKind::Map { key, value }, Datum::Map(pairs)) => {
                let nested = encode_map(pairs, key, value)?;
                let off = self.append_var(&nested);
                self.set_pointer(slot, off, nested.len() as u64);
            }
            (TypeKind::Multiset(e), Datum::Map(pairs)) => {
                let nested = encode_map(pairs, e, &DataType::not_null(TypeKind::Int))?;
                let off = self.append_var(&nested);
                self.set_pointer(slot, off, nested.len() as u64);
            }
            (TypeKind::Variant, Datum::Variant { value, metadata }) => {
                let mut b = Vec::with_capacity(4 + value.len() + metadata.len());
                let vlen = i32::try_from(value.len()).map_err(|_| mismatch(ty, d))?;
                b.extend_from_slice(&vlen.to_le_bytes());
                b.extend_from_slice(value);
                b.extend_from_slice(metadata);
                let off = self.append_var(&b);
                self.set_pointer(slot, off, b.len() as u64);
            }
            _ => return Err(mismatch(ty, d)),
        }
        Ok(())
    }

    fn write_var_bytes(&mut self, slot: usize, data: &[u8]) {
        if data.len() <= super::MAX_FIX_PART_DATA_SIZE {
            let mut s = [0u8; 8];
            s[..data.len()].copy_from_slice(data);
            s[7] = 0x80 | data.len() as u8;
            self.put(slot, &s);
        } else {
            let off = self.append_var(data);
            self.set_pointer(slot, off, data.len() as u64);
        }
    }
}

/// Encodes a row of `values` with `types` as Java's `BinaryRowWriter` does.
///
/// # Errors
/// [`Error::Encode`] when a value does not match its type or the counts differ.
pub fn encode_row(kind: RowKind, values: &[Datum], types: &[DataType]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_row_into(kind, values, types, &mut out)?;
    Ok(out)
}

/// As [`encode_row`], into `out` (cleared first), so that a caller encoding many rows reuses
/// one allocation. On error `out` holds no meaningful bytes.
///
/// # Errors
/// [`Error::Encode`] when a value does not match its type or the counts differ.
pub fn encode_row_into(
    kind: RowKind,
    values: &[Datum],
    types: &[DataType],
    out: &mut Vec<u8>,
) -> Result<()> {
    if values.len() != types.len() {
        return Err(Error::Encode {
            what: "BinaryRow".into(),
            reason: format!("{} values for {} types", values.len(), types.len()),
        });
    }
    let mut w = RowWriter {
        buf: Buf {
            bytes: std::mem::take(out),
        },
        width: null_bits_width(types.len()),
        arity: types.len(),
    };
    w.reset(kind);
    let result = types
        .iter()
        .zip(values)
        .enumerate()
        .try_for_each(|(i, (ty, d))| w.write(i, ty, d));
    *out = w.buf.bytes;
    result
}

/// Java `BinaryRowWriter` over one reused buffer, for callers that encode many rows of one
/// row type field by field (hashing the bucket key of every row written): [`RowWriter::reset`],
/// then each field, then [`RowWriter::bytes`]. A field not written stays zero, which is a
/// non-null zero value; write every field of every row.
#[derive(Debug, Clone)]
pub struct RowWriter {
    buf: Buf,
    width: usize,
    arity: usize,
}

impl RowWriter {
    /// A writer of rows with `arity` fields.
    pub fn new(arity: usize) -> Self {
        RowWriter {
            buf: Buf { bytes: Vec::new() },
            width: null_bits_width(arity),
            arity,
        }
    }

    /// Starts a new row of `kind`: the fixed part zeroed, the variable part empty.
    pub fn reset(&mut self, kind: RowKind) {
        self.buf.bytes.clear();
        self.buf.bytes.resize(self.width + 8 * self.arity, 0);
        self.buf.bytes[0] = kind as u8;
    }

    fn slot(&self, pos: usize) -> Result<usize> {
        if pos < self.arity {
            Ok(self.width + 8 * pos)
        } else {
            Err(Error::Encode {
                what: "BinaryRow".into(),
                reason: format!("field {pos} out of range for arity {}", self.arity),
            })
        }
    }

    /// Writes `d` ([`Datum::Null`] for null) of type `ty` into field `pos`.
    ///
    /// # Errors
    /// [`Error::Encode`] when the value does not match the type or `pos` is out of range.
    pub fn write(&mut self, pos: usize, ty: &DataType, d: &Datum) -> Result<()> {
        let slot = self.slot(pos)?;
        if !d.is_null() {
            return self.buf.write_value(slot, ty, d);
        }
        let bit = pos + 8;
        self.buf.bytes[bit / 8] |= 1 << (bit % 8);
        // Java reserves the variable part of a null non-compact decimal or timestamp.
        match ty.kind {
            TypeKind::Decimal { precision, .. } if precision > 18 => {
                let off = self.buf.append_var(&[0u8; 16]);
                self.buf.set_pointer(slot, off, 0);
            }
            TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision }
                if precision > 3 =>
            {
                let off = self.buf.append_var(&[0u8; 8]);
                self.buf.set_pointer(slot, off, 0);
            }
            _ => {}
        }
        Ok(())
    }

    /// Writes a non-null INT (or DATE, TIME) into field `pos`.
    ///
    /// # Errors
    /// [`Error::Encode`] when `pos` is out of range.
    pub fn write_int(&mut self, pos: usize, v: i32) -> Result<()> {
        let slot = self.slot(pos)?;
        self.buf.put(slot, &v.to_le_bytes());
        Ok(())
    }

    /// Writes a non-null BIGINT into field `pos`.
    ///
    /// # Errors
    /// [`Error::Encode`] when `pos` is out of range.
    pub fn write_long(&mut self, pos: usize, v: i64) -> Result<()> {
        let slot = self.slot(pos)?;
        self.buf.put(slot, &v.to_le_bytes());
        Ok(())
    }

    /// Writes a non-null CHAR/VARCHAR (its UTF-8 bytes) or BINARY/VARBINARY into field `pos`.
    ///
    /// # Errors
    /// [`Error::Encode`] when `pos` is out of range.
    pub fn write_bytes(&mut self, pos: usize, data: &[u8]) -> Result<()> {
        let slot = self.slot(pos)?;
        self.buf.write_var_bytes(slot, data);
        Ok(())
    }

    /// The row written since the last [`RowWriter::reset`].
    pub fn bytes(&self) -> &[u8] {
        &self.buf.bytes
    }
}

/// Encodes an array as Java's `BinaryArrayWriter` does.
///
/// # Errors
/// [`Error::Encode`] when an element does not match `elem`.
pub fn encode_array(values: &[Datum], elem: &DataType) -> Result<Vec<u8>> {
    let n = values.len();
    let size = element_size(elem);
    let header = header_size(n);
    let fixed = round_to_word(header + n * size);
    let mut buf = Buf {
        bytes: vec![0u8; fixed],
    };
    let count = i32::try_from(n).map_err(|_| Error::Encode {
        what: "BinaryArray".into(),
        reason: format!("{n} elements exceed i32"),
    })?;
    buf.put(0, &count.to_le_bytes());
    for (i, d) in values.iter().enumerate() {
        if d.is_null() {
            buf.bytes[4 + i / 8] |= 1 << (i % 8);
        } else if size == 8 {
            buf.write_value(header + i * size, elem, d)?;
        } else {
            // Narrow elements: write into a scratch slot, then copy the element's bytes.
            let mut scratch = Buf {
                bytes: vec![0u8; 8],
            };
            scratch.write_value(0, elem, d)?;
            let off = header + i * size;
            buf.bytes[off..off + size].copy_from_slice(&scratch.bytes[..size]);
        }
    }
    Ok(buf.bytes)
}

/// Encodes a map as `[key array size: i32 LE][key array][value array]`.
///
/// # Errors
/// [`Error::Encode`] when a key or value does not match its type.
pub fn encode_map(pairs: &[(Datum, Datum)], key: &DataType, value: &DataType) -> Result<Vec<u8>> {
    let keys: Vec<Datum> = pairs.iter().map(|(k, _)| k.clone()).collect();
    let values: Vec<Datum> = pairs.iter().map(|(_, v)| v.clone()).collect();
    let k = encode_array(&keys, key)?;
    let v = encode_array(&values, value)?;
    let mut out = Vec::with_capacity(4 + k.len() + v.len());
    out.extend_from_slice(&(k.len() as i32).to_le_bytes());
    out.extend_from_slice(&k);
    out.extend_from_slice(&v);
    Ok(out)
}

/// `BigInteger.toByteArray`: the shortest big-endian two's-complement form.
fn minimal_be_twos_complement(v: i128) -> Vec<u8> {
    let b = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let redundant = (b[start] == 0x00 && b[start + 1] & 0x80 == 0)
            || (b[start] == 0xff && b[start + 1] & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    b[start..].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary::BinaryRow;

    #[test]
    fn golden_partition_row() {
        // From docs §4.8: one STRING "aaaaa".
        let row = encode_row(
            RowKind::Insert,
            &[Datum::String("aaaaa".into())],
            &[DataType::string()],
        )
        .unwrap();
        assert_eq!(
            row,
            [0, 0, 0, 0, 0, 0, 0, 0, 0x61, 0x61, 0x61, 0x61, 0x61, 0, 0, 0x85]
        );
    }

    #[test]
    fn minimal_twos_complement() {
        assert_eq!(minimal_be_twos_complement(0), vec![0]);
        assert_eq!(minimal_be_twos_complement(127), vec![0x7f]);
        assert_eq!(minimal_be_twos_complement(128), vec![0x00, 0x80]);
        assert_eq!(minimal_be_twos_complement(-1), vec![0xff]);
        assert_eq!(minimal_be_twos_complement(-129), vec![0xff, 0x7f]);
    }

    #[test]
    fn empty_array_is_eight_bytes() {
        assert_eq!(
            encode_array(&[], &DataType::string()).unwrap(),
            vec![0u8; 8]
        );
    }

    #[test]
    fn round_trip_mixed_row() {
        let types = vec![
            DataType::nullable(TypeKind::Int),
            DataType::string(),
            DataType::nullable(TypeKind::Decimal {
                precision: 30,
                scale: 2,
            }),
            DataType::nullable(TypeKind::Timestamp { precision: 9 }),
            DataType::nullable(TypeKind::Array(Box::new(DataType::nullable(
                TypeKind::SmallInt,
            )))),
            DataType::nullable(TypeKind::Decimal {
                precision: 30,
                scale: 2,
            }),
        ];
        let values = vec![
            Datum::Int(-5),
            Datum::String("a longer string value".into()),
            Datum::Decimal {
                unscaled: -123456789012345678901234567,
                precision: 30,
                scale: 2,
            },
            Datum::Timestamp {
                millis: 1_700_000_000_123,
                nanos: 456_789,
            },
            Datum::Array(vec![Datum::SmallInt(1), Datum::Null, Datum::SmallInt(-3)]),
            Datum::Null,
        ];
        let bytes = encode_row(RowKind::Insert, &values, &types).unwrap();
        assert_eq!(bytes.len() % 8, 0);
        let row = BinaryRow::new(&bytes, types.len()).unwrap();
        assert_eq!(row.to_datums(&types).unwrap(), values);
    }
}
