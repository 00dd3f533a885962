//! Avro binary decoding of one datum against a writer schema.

use super::schema::Schema;
use crate::error::{Error, Result};
use crate::value::{Record, Value};

/// Most elements a zero-width array or map block (or records of a zero-width schema in a whole
/// container) may claim, to bound work on bad input.
pub(crate) const MAX_EMPTY_ITEMS: usize = 1 << 20;

/// A bounds-checked cursor over Avro binary data.
#[derive(Debug)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0 }
    }

    /// Current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Takes `n` raw bytes.
    ///
    /// # Errors
    /// A reason when fewer than `n` bytes remain.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(bad(format!(
                "need {n} bytes at offset {} but only {} remain",
                self.pos,
                self.remaining()
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// A zig-zag varint long.
    ///
    /// # Errors
    /// A reason on truncation or an over-long varint.
    pub fn read_long(&mut self) -> Result<i64> {
        let mut v: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = *self
                .buf
                .get(self.pos)
                .ok_or_else(|| bad(format!("truncated varint at offset {}", self.pos)))?;
            self.pos += 1;
            if shift >= 64 {
                return Err(bad(format!(
                    "varint longer than 10 bytes at offset {}",
                    self.pos
                )));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A zig-zag varint int.
    ///
    /// # Errors
    /// A reason when the value does not fit 32 bits.
    pub fn read_int(&mut self) -> Result<i32> {
        let v = self.read_long()?;
        i32::try_from(v).map_err(|_| bad(format!("int out of range: {v}")))
    }

    /// A length prefix, checked against the remaining bytes.
    ///
    /// # Errors
    /// A reason when negative or larger than the rest of the buffer.
    pub fn read_len(&mut self) -> Result<usize> {
        let v = self.read_long()?;
        let n = usize::try_from(v).map_err(|_| bad(format!("negative length {v}")))?;
        if n > self.remaining() {
            return Err(bad(format!(
                "length {n} at offset {} exceeds the {} remaining bytes",
                self.pos,
                self.remaining()
            )));
        }
        Ok(n)
    }

    /// Length-prefixed bytes.
    ///
    /// # Errors
    /// A reason on a bad length.
    pub fn read_bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.read_len()?;
        self.take(n)
    }

    /// A length-prefixed UTF-8 string.
    ///
    /// # Errors
    /// A reason on a bad length or invalid UTF-8.
    pub fn read_string(&mut self) -> Result<String> {
        let b = self.read_bytes()?;
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|e| bad(format!("invalid UTF-8 string: {e}")))
    }

    /// The item count of the next array/map block (0 ends the sequence). A count is bounded by
    /// the bytes left, or, when `empty_items` says the items may take no bytes, by a fixed cap.
    pub fn read_block_count(&mut self, empty_items: bool) -> Result<usize> {
        let c = self.read_long()?;
        let count = if c < 0 {
            // A negative count is followed by the block's byte size.
            let _size = self.read_long()?;
            c.checked_neg().ok_or(bad("block count overflow"))?
        } else {
            c
        };
        let n = usize::try_from(count).map_err(|_| bad(format!("bad block count {count}")))?;
        let limit = if empty_items {
            MAX_EMPTY_ITEMS
        } else {
            self.remaining()
        };
        if n > limit {
            return Err(bad(format!(
                "block of {n} items at offset {} cannot fit in {} remaining bytes",
                self.pos,
                self.remaining()
            )));
        }
        Ok(n)
    }

    /// Skips one datum of `schema` without allocating.
    ///
    /// # Errors
    /// A reason when the bytes do not hold a value of the schema.
    pub fn skip_value(&mut self, schema: &Schema) -> Result<()> {
        self.skip_value_at(schema, 0)
    }

    fn skip_value_at(&mut self, schema: &Schema, depth: usize) -> Result<()> {
        if depth > 128 {
            return Err(bad("value nested too deeply"));
        }
        match schema {
            Schema::Null => {}
            Schema::Boolean => match self.take(1)?[0] {
                0 | 1 => {}
                b => return Err(bad(format!("invalid boolean byte {b}"))),
            },
            Schema::Int => {
                self.read_int()?;
            }
            Schema::Long => {
                self.read_long()?;
            }
            Schema::Float => {
                self.take(4)?;
            }
            Schema::Double => {
                self.take(8)?;
            }
            Schema::Bytes => {
                self.read_bytes()?;
            }
            Schema::String => {
                let b = self.read_bytes()?;
                std::str::from_utf8(b).map_err(|e| bad(format!("invalid UTF-8 string: {e}")))?;
            }
            Schema::Fixed(n) => {
                self.take(*n)?;
            }
            Schema::Enum(symbols) => {
                let i = self.read_int()?;
                if usize::try_from(i)
                    .ok()
                    .and_then(|i| symbols.get(i))
                    .is_none()
                {
                    return Err(bad(format!("enum index {i} out of range")));
                }
            }
            Schema::Union(_) => {
                let b = self.read_union_branch(schema)?;
                self.skip_value_at(b, depth + 1)?;
            }
            Schema::Array(items) => {
                let empty = items.can_be_empty();
                let mut total = 0usize;
                loop {
                    let n = self.read_block_count(empty)?;
                    if n == 0 {
                        break;
                    }
                    total = total.saturating_add(n);
                    if total > MAX_EMPTY_ITEMS.max(self.buf.len()) {
                        return Err(bad("array longer than its file allows"));
                    }
                    for _ in 0..n {
                        self.skip_value_at(items, depth + 1)?;
                    }
                }
            }
            Schema::Map(values) => loop {
                let n = self.read_block_count(false)?;
                if n == 0 {
                    break;
                }
                for _ in 0..n {
                    self.skip_value_at(&Schema::String, depth + 1)?;
                    self.skip_value_at(values, depth + 1)?;
                }
            },
            Schema::Record(r) => {
                for f in &r.fields {
                    self.skip_value_at(f, depth + 1)?;
                }
            }
        }
        Ok(())
    }

    /// Reads a union's branch index and returns the branch's schema; any other schema is
    /// returned as is.
    ///
    /// # Errors
    /// A reason when the index is out of range.
    pub fn read_union_branch<'s>(&mut self, schema: &'s Schema) -> Result<&'s Schema> {
        let Schema::Union(branches) = schema else {
            return Ok(schema);
        };
        let i = self.read_long()?;
        usize::try_from(i)
            .ok()
            .and_then(|i| branches.get(i))
            .ok_or_else(|| {
                bad(format!(
                    "union branch {i} out of range ({} branches)",
                    branches.len()
                ))
            })
    }

    /// Decodes one datum of `schema`.
    ///
    /// # Errors
    /// A reason when the bytes do not hold a value of the schema.
    pub fn read_value(&mut self, schema: &Schema) -> Result<Value> {
        self.read_value_at(schema, 0)
    }

    fn read_value_at(&mut self, schema: &Schema, depth: usize) -> Result<Value> {
        if depth > 128 {
            return Err(bad("value nested too deeply"));
        }
        Ok(match schema {
            Schema::Null => Value::Null,
            Schema::Boolean => match self.take(1)?[0] {
                0 => Value::Boolean(false),
                1 => Value::Boolean(true),
                b => return Err(bad(format!("invalid boolean byte {b}"))),
            },
            Schema::Int => Value::Int(self.read_int()?),
            Schema::Long => Value::Long(self.read_long()?),
            Schema::Float => {
                let b = self.take(4)?;
                Value::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            Schema::Double => {
                let b = self.take(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                Value::Double(f64::from_le_bytes(a))
            }
            Schema::Bytes => Value::Bytes(self.read_bytes()?.to_vec()),
            Schema::String => Value::String(self.read_string()?),
            Schema::Fixed(n) => Value::Bytes(self.take(*n)?.to_vec()),
            Schema::Enum(symbols) => {
                let i = self.read_int()?;
                let s = usize::try_from(i)
                    .ok()
                    .and_then(|i| symbols.get(i))
                    .ok_or_else(|| bad(format!("enum index {i} out of range")))?;
                Value::String(s.clone())
            }
            Schema::Union(branches) => {
                let i = self.read_long()?;
                let b = usize::try_from(i)
                    .ok()
                    .and_then(|i| branches.get(i))
                    .ok_or_else(|| {
                        bad(format!(
                            "union branch {i} out of range ({} branches)",
                            branches.len()
                        ))
                    })?;
                self.read_value_at(b, depth + 1)?
            }
            Schema::Array(items) => {
                let empty = items.can_be_empty();
                let mut out = Vec::new();
                loop {
                    let n = self.read_block_count(empty)?;
                    if n == 0 {
                        break;
                    }
                    if out.len().saturating_add(n) > MAX_EMPTY_ITEMS.max(self.buf.len()) {
                        return Err(bad("array longer than its file allows"));
                    }
                    out.reserve(n.min(self.remaining()));
                    for _ in 0..n {
                        out.push(self.read_value_at(items, depth + 1)?);
                    }
                }
                Value::Array(out)
            }
            Schema::Map(values) => {
                let mut out = Vec::new();
                loop {
                    // Every entry has at least a 1-byte key length.
                    let n = self.read_block_count(false)?;
                    if n == 0 {
                        break;
                    }
                    out.reserve(n);
                    for _ in 0..n {
                        let k = self.read_string()?;
                        let v = self.read_value_at(values, depth + 1)?;
                        out.push((k, v));
                    }
                }
                Value::Map(out)
            }
            Schema::Record(r) => {
                let mut vals = Vec::with_capacity(r.fields.len());
                for f in &r.fields {
                    vals.push(self.read_value_at(f, depth + 1)?);
                }
                Value::Record(Record::new(r.names.clone(), vals))
            }
        })
    }
}

/// An [`Error`] of Avro container: `reason` says what is wrong.
fn bad(reason: impl Into<String>) -> Error {
    Error::corrupt("Avro container", reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_varints() {
        let mut c = Cursor::new(&[0x00, 0x01, 0x02, 0x7f, 0x80, 0x01]);
        assert_eq!(c.read_long().unwrap(), 0);
        assert_eq!(c.read_long().unwrap(), -1);
        assert_eq!(c.read_long().unwrap(), 1);
        assert_eq!(c.read_long().unwrap(), -64);
        assert_eq!(c.read_long().unwrap(), 64);
        assert!(c.read_long().is_err());
        let mut c = Cursor::new(&[0xff; 11]);
        assert!(c.read_long().is_err());
    }

    #[test]
    fn rejects_unchecked_counts() {
        // An array claiming 2^40 longs in a 3-byte buffer.
        let mut buf = Vec::new();
        let mut v = (1u64 << 40) << 1;
        while v >= 0x80 {
            buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        buf.push(v as u8);
        let mut c = Cursor::new(&buf);
        assert!(c
            .read_value(&Schema::Array(Box::new(Schema::Long)))
            .is_err());
        let mut c = Cursor::new(&buf);
        assert!(c
            .read_value(&Schema::Array(Box::new(Schema::Null)))
            .is_err());
        // A string longer than the buffer.
        let mut c = Cursor::new(&[0x20, b'a']);
        assert!(c.read_value(&Schema::String).is_err());
    }
}
