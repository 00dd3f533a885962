//! One column's values of the open stripe, and the streams they are written as.

use super::rle::{bool_rle, byte_rle, decimal_varint, rle_v2_signed, rle_v2_unsigned};
use crate::error::{Error, Result};

/// Seconds from the Unix epoch to ORC's timestamp base, 2015-01-01 00:00:00 UTC.
const ORC_EPOCH_SECONDS: i64 = 1_420_070_400;

/// What a column holds, as far as its streams are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    Boolean,
    Byte,
    /// SHORT, INT, LONG and DATE: RLE v2 of signed values.
    Integer,
    /// FLOAT or DOUBLE: the IEEE bytes, little-endian.
    Floating,
    /// STRING and BINARY: the bytes and their lengths.
    Bytes,
    Decimal {
        scale: u32,
    },
    Timestamp,
    /// LIST and MAP: the lengths.
    Lengths,
    Struct,
}

/// ORC stream kinds.
pub(crate) const PRESENT: u64 = 0;
pub(crate) const DATA: u64 = 1;
pub(crate) const LENGTH: u64 = 2;
pub(crate) const SECONDARY: u64 = 5;

/// One column of the open stripe. Every `push_*` adds one value slot (the parent's rows, or
/// a list's elements); a value of another kind than the column's is not written.
#[derive(Debug)]
pub struct OrcColumn {
    pub(crate) layout: Layout,
    present: Vec<bool>,
    nulls: usize,
    longs: Vec<i64>,
    unsigned: Vec<u64>,
    data: Vec<u8>,
}

impl OrcColumn {
    pub(crate) fn new(layout: Layout) -> Self {
        OrcColumn {
            layout,
            present: Vec::new(),
            nulls: 0,
            longs: Vec::new(),
            unsigned: Vec::new(),
            data: Vec::new(),
        }
    }

    /// A null slot.
    pub fn push_null(&mut self) {
        self.present.push(false);
        self.nulls += 1;
    }

    /// A BOOLEAN value.
    pub fn push_bool(&mut self, v: bool) {
        self.present.push(true);
        self.data.push(u8::from(v));
    }

    /// A TINYINT (BYTE) value.
    pub fn push_byte(&mut self, v: i8) {
        self.present.push(true);
        self.data.push(v as u8);
    }

    /// A SHORT, INT, LONG or DATE (days since 1970) value.
    pub fn push_long(&mut self, v: i64) {
        self.present.push(true);
        self.longs.push(v);
    }

    /// A FLOAT value.
    pub fn push_f32(&mut self, v: f32) {
        self.present.push(true);
        self.data.extend_from_slice(&v.to_le_bytes());
    }

    /// A DOUBLE value.
    pub fn push_f64(&mut self, v: f64) {
        self.present.push(true);
        self.data.extend_from_slice(&v.to_le_bytes());
    }

    /// A STRING or BINARY value.
    pub fn push_bytes(&mut self, v: &[u8]) {
        self.present.push(true);
        self.data.extend_from_slice(v);
        self.unsigned.push(v.len() as u64);
    }

    /// A DECIMAL value: its unscaled value at the column's scale.
    pub fn push_decimal(&mut self, unscaled: i128) {
        self.present.push(true);
        self.longs.push(0);
        decimal_varint(unscaled, &mut self.data);
    }

    /// A TIMESTAMP or TIMESTAMP_INSTANT value: `seconds` since the epoch (rounded down) and the
    /// `nanos` (0..1e9) after them.
    ///
    /// # Errors
    /// A reason for an instant ORC cannot hold: in the second before the epoch with a fraction
    /// of over a millisecond Java's reader returns a different instant (ORC-763), and seconds
    /// far beyond the range of a long from 2015.
    pub fn push_timestamp(&mut self, seconds: i64, nanos: u32) -> Result<()> {
        if seconds == -1 && nanos > 999_999 {
            return Err(bad(format!(
                "timestamp {seconds} s + {nanos} ns: ORC cannot hold an instant in the second \
                 before 1970-01-01 with a fraction of over a millisecond (ORC-763)"
            )));
        }
        // Java's reader takes a second off negative values whose nanos pass a millisecond.
        let stored = if seconds < 0 && nanos > 999_999 {
            seconds + 1
        } else {
            seconds
        };
        let stored = stored
            .checked_sub(ORC_EPOCH_SECONDS)
            .ok_or_else(|| bad(format!("timestamp {seconds} s is out of ORC's range")))?;
        self.present.push(true);
        self.longs.push(stored);
        self.unsigned.push(encode_nanos(nanos));
        Ok(())
    }

    /// A LIST or MAP value of `len` elements (the elements go to the child columns).
    pub fn push_length(&mut self, len: usize) {
        self.present.push(true);
        self.unsigned.push(len as u64);
    }

    /// A STRUCT value (its fields go to the child columns).
    pub fn push_struct(&mut self) {
        self.present.push(true);
    }

    /// Value slots so far in the stripe.
    pub fn len(&self) -> usize {
        self.present.len()
    }

    /// Whether the stripe has no slot of this column yet.
    pub fn is_empty(&self) -> bool {
        self.present.is_empty()
    }

    /// Rough bytes the stripe's values take before encoding.
    pub(crate) fn buffered(&self) -> usize {
        self.present.len() / 8 + self.longs.len() * 8 + self.unsigned.len() * 8 + self.data.len()
    }

    /// The column's streams (kind, bytes) in the order they are written, and empties the
    /// column for the next stripe. PRESENT is written only when a slot is null.
    pub(crate) fn take_streams(&mut self) -> Vec<(u64, Vec<u8>)> {
        let mut streams = Vec::new();
        if self.nulls > 0 {
            let mut p = Vec::new();
            bool_rle(&self.present, &mut p);
            streams.push((PRESENT, p));
        }
        let mut put = |kind, f: &dyn Fn(&mut Vec<u8>)| {
            let mut b = Vec::new();
            f(&mut b);
            streams.push((kind, b));
        };
        match self.layout {
            Layout::Boolean => {
                let bits: Vec<bool> = self.data.iter().map(|&b| b != 0).collect();
                put(DATA, &|o| bool_rle(&bits, o));
            }
            Layout::Byte => put(DATA, &|o| byte_rle(&self.data, o)),
            Layout::Integer => put(DATA, &|o| rle_v2_signed(&self.longs, o)),
            Layout::Floating => put(DATA, &|o| o.extend_from_slice(&self.data)),
            Layout::Bytes => {
                put(DATA, &|o| o.extend_from_slice(&self.data));
                put(LENGTH, &|o| rle_v2_unsigned(&self.unsigned, o));
            }
            Layout::Decimal { scale } => {
                put(DATA, &|o| o.extend_from_slice(&self.data));
                let scales = vec![i64::from(scale); self.longs.len()];
                put(SECONDARY, &|o| rle_v2_signed(&scales, o));
            }
            Layout::Timestamp => {
                put(DATA, &|o| rle_v2_signed(&self.longs, o));
                put(SECONDARY, &|o| rle_v2_unsigned(&self.unsigned, o));
            }
            Layout::Lengths => put(LENGTH, &|o| rle_v2_unsigned(&self.unsigned, o)),
            Layout::Struct => {}
        }
        self.present.clear();
        self.nulls = 0;
        self.longs.clear();
        self.unsigned.clear();
        self.data.clear();
        streams
    }

    /// The column's `ColumnEncoding` kind: DIRECT (0) or DIRECT_V2 (2).
    pub(crate) fn encoding(&self) -> u64 {
        match self.layout {
            Layout::Boolean | Layout::Byte | Layout::Floating | Layout::Struct => 0,
            _ => 2,
        }
    }
}

/// Nanoseconds as ORC stores them: trailing decimal zeros (two or more) are cut and their
/// count less one goes in the low three bits.
fn encode_nanos(nanos: u32) -> u64 {
    let n = u64::from(nanos);
    if n == 0 || n % 100 != 0 {
        return n << 3;
    }
    let mut n = n / 100;
    let mut zeros = 1;
    while n % 10 == 0 && zeros < 7 {
        n /= 10;
        zeros += 1;
    }
    (n << 3) | zeros
}

/// An [`Error`] of ORC column: `reason` says what is wrong.
fn bad(reason: impl Into<String>) -> Error {
    Error::encode("ORC column", reason)
}

#[cfg(test)]
mod tests {
    use super::encode_nanos;

    #[test]
    fn nanos_keep_their_trailing_zero_count() {
        assert_eq!(encode_nanos(0), 0);
        assert_eq!(encode_nanos(1), 8);
        assert_eq!(encode_nanos(1_000), (1 << 3) | 2);
        assert_eq!(encode_nanos(123_000_000), (123 << 3) | 5);
        assert_eq!(encode_nanos(500_000_000), (5 << 3) | 7);
    }
}
