//! `java.io.DataInput` / `DataOutput` primitives: big-endian numbers and modified UTF-8.

use crate::error::{Error, Result};

/// A bounds-checked big-endian reader that knows its offset.
#[derive(Debug)]
pub struct WireReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> WireReader<'a> {
    /// Reads from the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        WireReader { buf, pos: 0 }
    }

    /// Current offset.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// An error at the current offset.
    pub fn corrupt(&self, reason: impl Into<String>) -> Error {
        Error::Corrupt {
            offset: self.pos,
            reason: reason.into(),
        }
    }

    /// Takes `n` bytes.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when fewer than `n` bytes remain.
    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.corrupt(format!(
                "{what} needs {n} bytes but only {} remain",
                self.remaining()
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// One byte.
    ///
    /// # Errors
    /// [`Error::Corrupt`] at end of input.
    pub fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A boolean byte (Java accepts any non-zero as true).
    ///
    /// # Errors
    /// [`Error::Corrupt`] at end of input.
    pub fn bool(&mut self, what: &str) -> Result<bool> {
        Ok(self.u8(what)? != 0)
    }

    /// A big-endian i32.
    ///
    /// # Errors
    /// [`Error::Corrupt`] at end of input.
    pub fn i32(&mut self, what: &str) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }

    /// A big-endian i64.
    ///
    /// # Errors
    /// [`Error::Corrupt`] at end of input.
    pub fn i64(&mut self, what: &str) -> Result<i64> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }

    /// A big-endian f32.
    ///
    /// # Errors
    /// [`Error::Corrupt`] at end of input.
    pub fn f32(&mut self, what: &str) -> Result<f32> {
        Ok(f32::from_be_bytes(self.array(what)?))
    }

    /// A non-negative i32 count whose items take at least `min_item_bytes` each; rejects counts
    /// that the remaining input cannot hold, so no allocation trusts an unchecked length.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on a negative or impossible count.
    pub fn count(&mut self, what: &str, min_item_bytes: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.i32(what)?;
        let n = usize::try_from(n).map_err(|_| Error::Corrupt {
            offset: at,
            reason: format!("negative {what} {n}"),
        })?;
        if n.saturating_mul(min_item_bytes.max(1)) > self.remaining() {
            return Err(Error::Corrupt {
                offset: at,
                reason: format!(
                    "{what} {n} exceeds the {} remaining bytes",
                    self.remaining()
                ),
            });
        }
        Ok(n)
    }

    /// A `writeUTF` string: u16 length, then modified UTF-8.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on truncation or malformed modified UTF-8.
    pub fn utf(&mut self, what: &str) -> Result<String> {
        let at = self.pos;
        let len = u16::from_be_bytes(self.array(what)?) as usize;
        let bytes = self.take(len, what)?;
        decode_modified_utf8(bytes).map_err(|reason| Error::Corrupt {
            offset: at,
            reason: format!("{what}: {reason}"),
        })
    }
}

/// A big-endian writer.
#[derive(Debug, Default)]
pub struct WireWriter {
    /// Bytes written so far.
    pub buf: Vec<u8>,
}

impl WireWriter {
    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// Appends a boolean byte.
    pub fn bool(&mut self, v: bool) {
        self.buf.push(u8::from(v));
    }

    /// Appends a big-endian i32.
    pub fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends a big-endian i64.
    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends a big-endian f32.
    pub fn f32(&mut self, v: f32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends a length as i32.
    ///
    /// # Errors
    /// [`Error::Encode`] when the length exceeds i32.
    pub fn len(&mut self, n: usize) -> Result<()> {
        let v = i32::try_from(n).map_err(|_| Error::Encode {
            reason: format!("length {n} exceeds i32"),
        })?;
        self.i32(v);
        Ok(())
    }

    /// Appends a `writeUTF` string.
    ///
    /// # Errors
    /// [`Error::Encode`] when the encoded form exceeds 65535 bytes, as Java's
    /// `UTFDataFormatException`.
    pub fn utf(&mut self, s: &str) -> Result<()> {
        let enc = encode_modified_utf8(s);
        let len = u16::try_from(enc.len()).map_err(|_| Error::Encode {
            reason: format!(
                "string of {} encoded bytes exceeds writeUTF's 65535-byte limit",
                enc.len()
            ),
        })?;
        self.buf.extend_from_slice(&len.to_be_bytes());
        self.buf.extend_from_slice(&enc);
        Ok(())
    }
}

/// Java's modified UTF-8: U+0000 as `C0 80`, supplementary characters as two 3-byte surrogates.
pub fn encode_modified_utf8(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for unit in s.encode_utf16() {
        let c = u32::from(unit);
        match c {
            0x0001..=0x007f => out.push(c as u8),
            0x0000 | 0x0080..=0x07ff => {
                out.push(0xc0 | ((c >> 6) & 0x1f) as u8);
                out.push(0x80 | (c & 0x3f) as u8);
            }
            _ => {
                out.push(0xe0 | ((c >> 12) & 0x0f) as u8);
                out.push(0x80 | ((c >> 6) & 0x3f) as u8);
                out.push(0x80 | (c & 0x3f) as u8);
            }
        }
    }
    out
}

/// Decodes modified UTF-8 as Java's `DataInputStream.readUTF` does.
///
/// # Errors
/// A reason string on malformed input or unpaired surrogates.
pub(crate) fn decode_modified_utf8(bytes: &[u8]) -> Result<String, String> {
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let cont = |j: usize| -> Result<u16, String> {
            match bytes.get(j) {
                Some(&c) if c & 0xc0 == 0x80 => Ok(u16::from(c & 0x3f)),
                _ => Err(format!("malformed modified UTF-8 around byte {j}")),
            }
        };
        match b >> 4 {
            0..=7 => {
                units.push(u16::from(b));
                i += 1;
            }
            12 | 13 => {
                units.push((u16::from(b & 0x1f) << 6) | cont(i + 1)?);
                i += 2;
            }
            14 => {
                units.push((u16::from(b & 0x0f) << 12) | (cont(i + 1)? << 6) | cont(i + 2)?);
                i += 3;
            }
            _ => return Err(format!("malformed modified UTF-8 at byte {i}")),
        }
    }
    String::from_utf16(&units).map_err(|_| "unpaired surrogate in modified UTF-8".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_utf8_special_cases() {
        assert_eq!(encode_modified_utf8("a\0b"), vec![b'a', 0xc0, 0x80, b'b']);
        let emoji = encode_modified_utf8("😀");
        assert_eq!(emoji, vec![0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]);
        for s in ["", "plain", "a\0b", "é中😀", "\u{7ff}\u{800}\u{ffff}"] {
            assert_eq!(decode_modified_utf8(&encode_modified_utf8(s)).unwrap(), s);
        }
        assert!(decode_modified_utf8(&[0xed, 0xa0, 0xbd]).is_err());
        assert!(decode_modified_utf8(&[0xf0, 0x9f]).is_err());
    }

    #[test]
    fn utf_length_limit() {
        let mut w = WireWriter::default();
        assert!(w.utf(&"x".repeat(65535)).is_ok());
        assert!(w.utf(&"x".repeat(65536)).is_err());
        assert!(w.utf(&"é".repeat(32768)).is_err());
    }

    #[test]
    fn counts_are_bounded_by_input() {
        let bytes = [0x7f, 0xff, 0xff, 0xff, 0, 0];
        let mut r = WireReader::new(&bytes);
        assert!(r.count("file count", 4).is_err());
        let mut r = WireReader::new(&[0xff, 0xff, 0xff, 0xff]);
        assert!(r.count("file count", 1).is_err());
    }
}
