//! Thrift's binary protocol (strict messages, unframed), the subset a Hive Metastore client
//! speaks: writing call messages and reading replies into [`Value`]s.
//!
//! A reply is untrusted bytes: the reader never allocates more than the bytes that arrived
//! (lengths and counts are checked against what the message may still hold, strings are read
//! as they come), nests at most [`MAX_DEPTH`] levels, and reports what is wrong as a
//! [`DecodeError`], never a panic.

use std::io::Read;

/// Thrift type ids.
pub(super) mod ttype {
    /// End of a struct's fields.
    pub const STOP: u8 = 0;
    /// `bool`.
    pub const BOOL: u8 = 2;
    /// `byte`.
    pub const BYTE: u8 = 3;
    /// `double`.
    pub const DOUBLE: u8 = 4;
    /// `i16`.
    pub const I16: u8 = 6;
    /// `i32` (and enums).
    pub const I32: u8 = 8;
    /// `i64`.
    pub const I64: u8 = 10;
    /// `string` / `binary`.
    pub const STRING: u8 = 11;
    /// `struct`.
    pub const STRUCT: u8 = 12;
    /// `map`.
    pub const MAP: u8 = 13;
    /// `set`.
    pub const SET: u8 = 14;
    /// `list`.
    pub const LIST: u8 = 15;
}

/// Message types.
pub(super) const CALL: u8 = 1;
/// A normal reply.
pub(super) const REPLY: u8 = 2;
/// A `TApplicationException` reply.
pub(super) const EXCEPTION: u8 = 3;
const VERSION_1: u32 = 0x8001_0000;

/// Deepest nesting of structs and collections a reply may have (the metastore's deepest
/// object, a table, nests five).
pub(super) const MAX_DEPTH: usize = 64;

/// One decoded Thrift value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    /// `bool`.
    Bool(bool),
    /// `byte`.
    Byte(i8),
    /// `i16`.
    I16(i16),
    /// `i32` or an enum.
    I32(i32),
    /// `i64`.
    I64(i64),
    /// `double`.
    Double(f64),
    /// `string` or `binary` (bytes; UTF-8 is checked where a string is read).
    Bytes(Vec<u8>),
    /// A struct's fields by id, in wire order.
    Struct(Vec<(i16, Value)>),
    /// A map's key and value types and its entries, in wire order.
    Map(u8, u8, Vec<(Value, Value)>),
    /// A list's (or set's) type, its element type and its elements.
    List(u8, u8, Vec<Value>),
}

impl Value {
    /// The field `id` of a struct.
    pub(super) fn field(&self, id: i16) -> Option<&Value> {
        match self {
            Value::Struct(fields) => fields.iter().find(|(i, _)| *i == id).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets (or adds) the field `id` of a struct; no effect on another value.
    pub(super) fn set_field(&mut self, id: i16, value: Value) {
        if let Value::Struct(fields) = self {
            match fields.iter_mut().find(|(i, _)| *i == id) {
                Some((_, v)) => *v = value,
                None => fields.push((id, value)),
            }
        }
    }

    /// The field `id` of a struct, mutable.
    pub(super) fn field_mut(&mut self, id: i16) -> Option<&mut Value> {
        match self {
            Value::Struct(fields) => fields.iter_mut().find(|(i, _)| *i == id).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Its Thrift type id.
    pub(super) fn ttype(&self) -> u8 {
        match self {
            Value::Bool(_) => ttype::BOOL,
            Value::Byte(_) => ttype::BYTE,
            Value::I16(_) => ttype::I16,
            Value::I32(_) => ttype::I32,
            Value::I64(_) => ttype::I64,
            Value::Double(_) => ttype::DOUBLE,
            Value::Bytes(_) => ttype::STRING,
            Value::Struct(_) => ttype::STRUCT,
            Value::Map(..) => ttype::MAP,
            Value::List(t, ..) => *t,
        }
    }
}

/// What is wrong with a reply's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum DecodeError {
    /// The stream ended (or failed) before the message did.
    Io(String),
    /// The bytes are not a Thrift binary message.
    Malformed(String),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Io(m) => write!(f, "connection failed: {m}"),
            DecodeError::Malformed(m) => write!(f, "not a Thrift reply: {m}"),
        }
    }
}

type DResult<T> = std::result::Result<T, DecodeError>;

fn malformed<T>(m: impl Into<String>) -> DResult<T> {
    Err(DecodeError::Malformed(m.into()))
}

/// A message header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Header {
    /// The method name.
    pub(super) name: String,
    /// [`CALL`], [`REPLY`], [`EXCEPTION`]...
    pub(super) kind: u8,
    /// The sequence id.
    pub(super) seq: i32,
}

/// Reads one message from `input`, consuming at most `budget` bytes.
pub(super) struct Reader<R> {
    input: R,
    budget: u64,
}

impl<R: Read> Reader<R> {
    /// A reader that refuses a message longer than `budget` bytes.
    pub(super) fn new(input: R, budget: u64) -> Self {
        Reader { input, budget }
    }

    fn take(&mut self, n: u64) -> DResult<()> {
        if n > self.budget {
            return malformed(format!(
                "{n} more bytes announced, more than the {} the reply may still hold",
                self.budget
            ));
        }
        self.budget -= n;
        Ok(())
    }

    fn bytes<const N: usize>(&mut self) -> DResult<[u8; N]> {
        self.take(N as u64)?;
        let mut b = [0u8; N];
        self.input
            .read_exact(&mut b)
            .map_err(|e| DecodeError::Io(e.to_string()))?;
        Ok(b)
    }

    fn u8(&mut self) -> DResult<u8> {
        Ok(self.bytes::<1>()?[0])
    }

    fn i16(&mut self) -> DResult<i16> {
        Ok(i16::from_be_bytes(self.bytes()?))
    }

    fn i32(&mut self) -> DResult<i32> {
        Ok(i32::from_be_bytes(self.bytes()?))
    }

    fn len(&mut self, what: &str) -> DResult<u64> {
        let n = self.i32()?;
        u64::try_from(n).or_else(|_| malformed(format!("negative {what} {n}")))
    }

    fn binary(&mut self) -> DResult<Vec<u8>> {
        let n = self.len("string length")?;
        self.take(n)?;
        // Grows with the bytes that arrive, never with the announced length alone.
        let mut out = Vec::new();
        let got = (&mut self.input)
            .take(n)
            .read_to_end(&mut out)
            .map_err(|e| DecodeError::Io(e.to_string()))?;
        if got as u64 != n {
            return Err(DecodeError::Io(format!(
                "stream ended after {got} of {n} string bytes"
            )));
        }
        Ok(out)
    }

    /// A count of elements each at least `min` bytes long, checked against the budget.
    fn count(&mut self, what: &str, min: u64) -> DResult<usize> {
        let n = self.len(what)?;
        if n.saturating_mul(min) > self.budget {
            return malformed(format!(
                "{what} {n} is more than the {} bytes left can hold",
                self.budget
            ));
        }
        usize::try_from(n).or_else(|_| malformed(format!("{what} {n} too large")))
    }

    /// The header of the next message.
    pub(super) fn header(&mut self) -> DResult<Header> {
        let word = self.i32()? as u32;
        if word & 0xffff_0000 != VERSION_1 {
            return malformed(format!(
                "message header 0x{word:08x} is not a strict binary-protocol version 1 header"
            ));
        }
        let kind = (word & 0xff) as u8;
        let name =
            String::from_utf8(self.binary()?).or_else(|_| malformed("method name is not UTF-8"))?;
        let seq = self.i32()?;
        Ok(Header { name, kind, seq })
    }

    /// A value of type `t`.
    pub(super) fn value(&mut self, t: u8, depth: usize) -> DResult<Value> {
        if depth > MAX_DEPTH {
            return malformed(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        Ok(match t {
            ttype::BOOL => Value::Bool(self.u8()? != 0),
            ttype::BYTE => Value::Byte(self.u8()? as i8),
            ttype::I16 => Value::I16(self.i16()?),
            ttype::I32 => Value::I32(self.i32()?),
            ttype::I64 => Value::I64(i64::from_be_bytes(self.bytes()?)),
            ttype::DOUBLE => Value::Double(f64::from_be_bytes(self.bytes()?)),
            ttype::STRING => Value::Bytes(self.binary()?),
            ttype::STRUCT => self.structure(depth)?,
            ttype::MAP => {
                let (kt, vt) = (self.u8()?, self.u8()?);
                let n = self.count("map size", min_size(kt) + min_size(vt))?;
                let mut out = Vec::new();
                for _ in 0..n {
                    let k = self.value(kt, depth + 1)?;
                    let v = self.value(vt, depth + 1)?;
                    out.push((k, v));
                }
                Value::Map(kt, vt, out)
            }
            ttype::LIST | ttype::SET => {
                let et = self.u8()?;
                let n = self.count("list size", min_size(et))?;
                let mut out = Vec::new();
                for _ in 0..n {
                    out.push(self.value(et, depth + 1)?);
                }
                Value::List(t, et, out)
            }
            other => return malformed(format!("unknown Thrift type {other}")),
        })
    }

    /// A struct (its fields up to the stop byte).
    pub(super) fn structure(&mut self, depth: usize) -> DResult<Value> {
        if depth > MAX_DEPTH {
            return malformed(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let mut fields = Vec::new();
        loop {
            let t = self.u8()?;
            if t == ttype::STOP {
                return Ok(Value::Struct(fields));
            }
            let id = self.i16()?;
            fields.push((id, self.value(t, depth + 1)?));
        }
    }
}

/// The fewest bytes a value of type `t` takes on the wire (an unknown type is refused when
/// read; 1 keeps the count check meaningful).
fn min_size(t: u8) -> u64 {
    match t {
        ttype::I16 => 2,
        ttype::I32 | ttype::STRING => 4,
        ttype::I64 | ttype::DOUBLE => 8,
        ttype::MAP => 6,
        ttype::LIST | ttype::SET => 5,
        _ => 1,
    }
}

/// Writes a call message.
#[derive(Debug, Default)]
pub(super) struct Writer {
    /// The bytes so far.
    pub(super) buf: Vec<u8>,
}

impl Writer {
    /// A message header.
    pub(super) fn header(&mut self, name: &str, kind: u8, seq: i32) {
        self.buf
            .extend_from_slice(&(VERSION_1 | u32::from(kind)).to_be_bytes());
        self.string(name);
        self.buf.extend_from_slice(&seq.to_be_bytes());
    }

    fn len(&mut self, n: usize) {
        // A metastore call never carries 2 GiB in one string or collection.
        let n = i32::try_from(n).unwrap_or(i32::MAX);
        self.buf.extend_from_slice(&n.to_be_bytes());
    }

    /// A string value.
    pub(super) fn string(&mut self, s: &str) {
        self.len(s.len());
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// A field header.
    pub(super) fn field(&mut self, t: u8, id: i16) {
        self.buf.push(t);
        self.buf.extend_from_slice(&id.to_be_bytes());
    }

    /// A string field.
    pub(super) fn string_field(&mut self, id: i16, s: &str) {
        self.field(ttype::STRING, id);
        self.string(s);
    }

    /// An optional string field (absent when `None`).
    pub(super) fn opt_string_field(&mut self, id: i16, s: Option<&str>) {
        if let Some(s) = s {
            self.string_field(id, s);
        }
    }

    /// An `i32` field.
    pub(super) fn i32_field(&mut self, id: i16, v: i32) {
        self.field(ttype::I32, id);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// An `i64` field.
    pub(super) fn i64_field(&mut self, id: i16, v: i64) {
        self.field(ttype::I64, id);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// A `bool` field.
    pub(super) fn bool_field(&mut self, id: i16, v: bool) {
        self.field(ttype::BOOL, id);
        self.buf.push(u8::from(v));
    }

    /// A `map<string,string>` field.
    pub(super) fn string_map_field<'a>(
        &mut self,
        id: i16,
        entries: impl ExactSizeIterator<Item = (&'a String, &'a String)>,
    ) {
        self.field(ttype::MAP, id);
        self.buf.push(ttype::STRING);
        self.buf.push(ttype::STRING);
        self.len(entries.len());
        for (k, v) in entries {
            self.string(k);
            self.string(v);
        }
    }

    /// A `list<string>` field.
    pub(super) fn string_list_field(&mut self, id: i16, items: &[String]) {
        self.list_header(id, ttype::STRING, items.len());
        for s in items {
            self.string(s);
        }
    }

    /// A list field's header; its `n` elements follow.
    pub(super) fn list_header(&mut self, id: i16, elem: u8, n: usize) {
        self.field(ttype::LIST, id);
        self.buf.push(elem);
        self.len(n);
    }

    /// A decoded value, written back as it was read (a struct with its fields).
    pub(super) fn value(&mut self, v: &Value) {
        match v {
            Value::Bool(b) => self.buf.push(u8::from(*b)),
            Value::Byte(b) => self.buf.push(*b as u8),
            Value::I16(x) => self.buf.extend_from_slice(&x.to_be_bytes()),
            Value::I32(x) => self.buf.extend_from_slice(&x.to_be_bytes()),
            Value::I64(x) => self.buf.extend_from_slice(&x.to_be_bytes()),
            Value::Double(x) => self.buf.extend_from_slice(&x.to_be_bytes()),
            Value::Bytes(b) => {
                self.len(b.len());
                self.buf.extend_from_slice(b);
            }
            Value::Struct(fields) => {
                for (id, f) in fields {
                    self.field(f.ttype(), *id);
                    self.value(f);
                }
                self.stop();
            }
            Value::Map(kt, vt, entries) => {
                self.buf.push(*kt);
                self.buf.push(*vt);
                self.len(entries.len());
                for (k, v) in entries {
                    self.value(k);
                    self.value(v);
                }
            }
            Value::List(_, et, items) => {
                self.buf.push(*et);
                self.len(items.len());
                for i in items {
                    self.value(i);
                }
            }
        }
    }

    /// A field holding a decoded value.
    pub(super) fn value_field(&mut self, id: i16, v: &Value) {
        self.field(v.ttype(), id);
        self.value(v);
    }

    /// The end of a struct.
    pub(super) fn stop(&mut self) {
        self.buf.push(ttype::STOP);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let mut w = Writer::default();
        w.header("get_all_databases", REPLY, 7);
        w.list_header(0, ttype::STRING, 2);
        w.string("default");
        w.string("db");
        w.stop();
        w.buf
    }

    fn read(bytes: &[u8]) -> DResult<(Header, Value)> {
        let mut r = Reader::new(bytes, bytes.len() as u64);
        let h = r.header()?;
        let v = r.structure(0)?;
        Ok((h, v))
    }

    #[test]
    fn reads_what_it_writes() {
        let (h, v) = read(&sample()).unwrap();
        assert_eq!(
            h,
            Header {
                name: "get_all_databases".into(),
                kind: REPLY,
                seq: 7
            }
        );
        assert_eq!(
            v.field(0),
            Some(&Value::List(
                ttype::LIST,
                ttype::STRING,
                vec![
                    Value::Bytes(b"default".to_vec()),
                    Value::Bytes(b"db".to_vec())
                ]
            ))
        );
        // A decoded struct is written back byte for byte.
        let mut w = Writer::default();
        w.header("get_all_databases", REPLY, 7);
        w.value(&v);
        assert_eq!(w.buf, sample());
    }

    /// Announced lengths larger than the message are refused before anything is allocated
    /// for them; so are negative lengths, unknown types and deep nesting.
    #[test]
    fn hostile_lengths_are_typed_errors() {
        let mut bytes = sample();
        // The list's count (after header 4+4+17+4, field 3, elem 1) set to i32::MAX.
        let at = 4 + 4 + 17 + 4 + 3 + 1;
        bytes[at..at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
        let e = read(&bytes).unwrap_err();
        assert!(
            matches!(e, DecodeError::Malformed(ref m) if m.contains("list size")),
            "{e}"
        );
        bytes[at..at + 4].copy_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(
            read(&bytes).unwrap_err(),
            DecodeError::Malformed("negative list size -1".into())
        );
        // A string of 2 GiB announced in a 40-byte message.
        let mut w = Writer::default();
        w.header("x", REPLY, 1);
        w.field(ttype::STRING, 0);
        w.buf.extend_from_slice(&i32::MAX.to_be_bytes());
        let e = read(&w.buf).unwrap_err();
        assert!(matches!(e, DecodeError::Malformed(ref m) if m.contains("more bytes announced")));
        // 100 nested lists.
        let mut w = Writer::default();
        w.header("x", REPLY, 1);
        w.list_header(0, ttype::LIST, 1);
        for _ in 0..100 {
            w.buf.push(ttype::LIST);
            w.buf.extend_from_slice(&1i32.to_be_bytes());
        }
        let e = read(&w.buf).unwrap_err();
        assert!(matches!(e, DecodeError::Malformed(ref m) if m.contains("nested deeper")));
        let e = read(&[0x80, 1, 0, 2, 0, 0, 0, 1, b'x', 0, 0, 0, 1, 99, 0, 0]).unwrap_err();
        assert_eq!(e, DecodeError::Malformed("unknown Thrift type 99".into()));
        let e = read(&[0, 0, 0, 0]).unwrap_err();
        assert!(matches!(e, DecodeError::Malformed(ref m) if m.contains("header")));
    }

    /// Every truncation of a valid reply is an error, never a panic or a value.
    #[test]
    fn truncated_replies_are_errors() {
        let bytes = sample();
        for n in 0..bytes.len() {
            assert!(read(&bytes[..n]).is_err(), "prefix of {n} bytes decoded");
        }
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            /// Arbitrary bytes: an error or a value, never a panic, and no value holds
            /// more bytes than the input had.
            #[test]
            fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
                let _ = read(&bytes);
            }

            /// A valid reply with bytes flipped: an error or a value, never a panic.
            #[test]
            fn mutated_replies_never_panic(
                flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)
            ) {
                let mut bytes = sample();
                for (i, b) in flips {
                    let at = i.index(bytes.len());
                    bytes[at] = b;
                }
                let _ = read(&bytes);
            }
        }
    }
}
