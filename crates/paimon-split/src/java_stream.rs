//! Java object-serialization images of a `DataSplit` (what Spark and Flink ship around) and of
//! an `IncrementalSplit` (how Java 1.4+ ships incremental-diff splits).
//!
//! Both classes' `writeObject` write their `serialize` bytes as block data, so the image is a
//! fixed class descriptor followed by the payload in block-data records:
//!
//! ```text
//! AC ED 00 05 | 73 72 <class desc: name, UID, flags 03, fields> 78 70 | 7A/77 blocks... | 78
//! ```

use crate::error::{Error, Result};

const STREAM_MAGIC: [u8; 4] = [0xac, 0xed, 0x00, 0x05];
const TC_NULL: u8 = 0x70;
const TC_REFERENCE: u8 = 0x71;
const TC_CLASSDESC: u8 = 0x72;
const TC_OBJECT: u8 = 0x73;
const TC_STRING: u8 = 0x74;
const TC_BLOCKDATA: u8 = 0x77;
const TC_ENDBLOCKDATA: u8 = 0x78;
const TC_BLOCKDATALONG: u8 = 0x7a;
const MAX_BLOCK: usize = 1024;

/// `DataSplit.serialVersionUID`.
pub const DATA_SPLIT_UID: i64 = 7;
const CLASS_NAME: &str = "org.apache.paimon.table.source.DataSplit";
/// `IncrementalSplit.serialVersionUID`.
pub const INCREMENTAL_SPLIT_UID: i64 = 1;
const INCREMENTAL_CLASS_NAME: &str = "org.apache.paimon.table.source.IncrementalSplit";

/// The split class a Java object stream holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JavaSplitClass {
    /// `org.apache.paimon.table.source.DataSplit`: the payload is `DataSplit.serialize` bytes.
    DataSplit,
    /// `org.apache.paimon.table.source.IncrementalSplit`: the payload is its versioned body.
    IncrementalSplit,
}

impl JavaSplitClass {
    fn of(name: &[u8]) -> Option<(Self, i64)> {
        if name == CLASS_NAME.as_bytes() {
            Some((JavaSplitClass::DataSplit, DATA_SPLIT_UID))
        } else if name == INCREMENTAL_CLASS_NAME.as_bytes() {
            Some((JavaSplitClass::IncrementalSplit, INCREMENTAL_SPLIT_UID))
        } else {
            None
        }
    }
}

/// Whether `bytes` start like a Java serialization stream.
pub fn is_java_stream(bytes: &[u8]) -> bool {
    bytes.starts_with(&STREAM_MAGIC)
}

struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn err(&self, reason: impl Into<String>) -> Error {
        Error::Corrupt {
            offset: self.pos,
            reason: format!("Java object stream: {}", reason.into()),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.b.len() - self.pos < n {
            return Err(self.err(format!(
                "needs {n} more bytes, {} remain",
                self.b.len() - self.pos
            )));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<usize> {
        let s = self.take(2)?;
        Ok(usize::from(u16::from_be_bytes([s[0], s[1]])))
    }

    fn utf(&mut self) -> Result<&'a [u8]> {
        let n = self.u16()?;
        self.take(n)
    }
}

/// Extracts the `DataSplit.serialize` payload from a Java object stream.
///
/// # Errors
/// [`Error::Corrupt`] when the stream is not a DataSplit image; [`Error::Unsupported`] for a
/// stream holding another class.
pub fn unwrap_java_stream(bytes: &[u8]) -> Result<Vec<u8>> {
    match unwrap_java_object(bytes)? {
        (JavaSplitClass::DataSplit, payload) => Ok(payload),
        (other, _) => Err(Error::Unsupported {
            feature: format!("Java object stream of {other:?} read as a DataSplit"),
        }),
    }
}

/// Extracts the payload of a Java object stream holding a `DataSplit` or an
/// `IncrementalSplit`, with the class.
///
/// # Errors
/// [`Error::Corrupt`] when the stream is not such an image; [`Error::Unsupported`] for a
/// stream holding another class.
pub fn unwrap_java_object(bytes: &[u8]) -> Result<(JavaSplitClass, Vec<u8>)> {
    let mut c = Cursor { b: bytes, pos: 0 };
    if c.take(4)? != STREAM_MAGIC {
        return Err(c.err("missing stream header AC ED 00 05"));
    }
    if c.u8()? != TC_OBJECT {
        return Err(c.err("expected TC_OBJECT"));
    }
    if c.u8()? != TC_CLASSDESC {
        return Err(c.err("expected TC_CLASSDESC"));
    }
    let name = c.utf()?;
    let Some((class, expected_uid)) = JavaSplitClass::of(name) else {
        return Err(Error::Unsupported {
            feature: format!(
                "Java object stream of class {}",
                String::from_utf8_lossy(name)
            ),
        });
    };
    let uid = i64::from_be_bytes(
        c.take(8)?
            .try_into()
            .map_err(|_| c.err("short serialVersionUID"))?,
    );
    if uid != expected_uid {
        return Err(c.err(format!("serialVersionUID {uid}, expected {expected_uid}")));
    }
    let _flags = c.u8()?;
    let fields = c.u16()?;
    for _ in 0..fields {
        let code = c.u8()?;
        c.utf()?;
        if code == b'L' || code == b'[' {
            match c.u8()? {
                TC_STRING => {
                    c.utf()?;
                }
                TC_REFERENCE => {
                    c.take(4)?;
                }
                t => return Err(c.err(format!("unexpected field type marker {t:#x}"))),
            }
        }
    }
    if c.u8()? != TC_ENDBLOCKDATA {
        return Err(c.err("expected end of class annotations"));
    }
    if c.u8()? != TC_NULL {
        return Err(c.err(format!("{class:?} must have no serializable superclass")));
    }
    let mut payload = Vec::new();
    loop {
        match c.u8()? {
            TC_BLOCKDATA => {
                let n = usize::from(c.u8()?);
                payload.extend_from_slice(c.take(n)?);
            }
            TC_BLOCKDATALONG => {
                let s = c.take(4)?;
                let n = i32::from_be_bytes([s[0], s[1], s[2], s[3]]);
                let n =
                    usize::try_from(n).map_err(|_| c.err(format!("negative block length {n}")))?;
                payload.extend_from_slice(c.take(n)?);
            }
            TC_ENDBLOCKDATA => break,
            t => return Err(c.err(format!("unexpected marker {t:#x} in object data"))),
        }
    }
    Ok((class, payload))
}

/// A declared field of a class descriptor: type code, name, and the JVM type of an object field.
type FieldDesc = (u8, &'static str, Option<&'static str>);

// The declared fields, primitives first then objects, each group sorted by name, as
// ObjectStreamClass orders them.
const DATA_SPLIT_FIELDS: [FieldDesc; 9] = [
    (b'I', "bucket", None),
    (b'Z', "isStreaming", None),
    (b'Z', "rawConvertible", None),
    (b'J', "snapshotId", None),
    (b'L', "bucketPath", Some("Ljava/lang/String;")),
    (b'L', "dataDeletionFiles", Some("Ljava/util/List;")),
    (b'L', "dataFiles", Some("Ljava/util/List;")),
    (
        b'L',
        "partition",
        Some("Lorg/apache/paimon/data/BinaryRow;"),
    ),
    (b'L', "totalBuckets", Some("Ljava/lang/Integer;")),
];

const INCREMENTAL_SPLIT_FIELDS: [FieldDesc; 9] = [
    (b'I', "bucket", None),
    (b'Z', "isStreaming", None),
    (b'J', "snapshotId", None),
    (b'I', "totalBuckets", None),
    (b'L', "afterDeletionFiles", Some("Ljava/util/List;")),
    (b'L', "afterFiles", Some("Ljava/util/List;")),
    (b'L', "beforeDeletionFiles", Some("Ljava/util/List;")),
    (b'L', "beforeFiles", Some("Ljava/util/List;")),
    (
        b'L',
        "partition",
        Some("Lorg/apache/paimon/data/BinaryRow;"),
    ),
];

/// Wraps DataSplit payload bytes in a Java object-serialization image that
/// `ObjectInputStream.readObject` turns into a `DataSplit`.
pub fn wrap_java_stream(payload: &[u8]) -> Vec<u8> {
    wrap_object(CLASS_NAME, DATA_SPLIT_UID, &DATA_SPLIT_FIELDS, payload)
}

/// Wraps an `IncrementalSplit` body in a Java object-serialization image that
/// `ObjectInputStream.readObject` turns into an `IncrementalSplit` (Java 1.4+).
pub fn wrap_incremental_java_stream(payload: &[u8]) -> Vec<u8> {
    wrap_object(
        INCREMENTAL_CLASS_NAME,
        INCREMENTAL_SPLIT_UID,
        &INCREMENTAL_SPLIT_FIELDS,
        payload,
    )
}

fn wrap_object(class: &str, uid: i64, fields: &[FieldDesc], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 320);
    out.extend_from_slice(&STREAM_MAGIC);
    out.push(TC_OBJECT);
    out.push(TC_CLASSDESC);
    put_utf(&mut out, class);
    out.extend_from_slice(&uid.to_be_bytes());
    // SC_SERIALIZABLE | SC_WRITE_METHOD
    out.push(0x03);
    // Handles: 0x7e0000 is the class descriptor; the field type strings follow.
    out.extend_from_slice(&(fields.len() as u16).to_be_bytes());
    let mut handles: Vec<&str> = Vec::new();
    for &(code, name, class) in fields {
        out.push(code);
        put_utf(&mut out, name);
        if let Some(class) = class {
            match handles.iter().position(|h| *h == class) {
                Some(i) => {
                    out.push(TC_REFERENCE);
                    out.extend_from_slice(&(0x007e_0001u32 + i as u32).to_be_bytes());
                }
                None => {
                    handles.push(class);
                    out.push(TC_STRING);
                    put_utf(&mut out, class);
                }
            }
        }
    }
    out.push(TC_ENDBLOCKDATA);
    out.push(TC_NULL);
    for chunk in payload.chunks(MAX_BLOCK) {
        if chunk.len() <= 255 {
            out.push(TC_BLOCKDATA);
            out.push(chunk.len() as u8);
        } else {
            out.push(TC_BLOCKDATALONG);
            out.extend_from_slice(&(chunk.len() as i32).to_be_bytes());
        }
        out.extend_from_slice(chunk);
    }
    out.push(TC_ENDBLOCKDATA);
    out
}

fn put_utf(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}
