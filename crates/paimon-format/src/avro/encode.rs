//! Avro object-container writing for manifest-family files (Java `AvroFileFormat`'s writer over
//! `AvroSchemaConverter`'s schema of a Paimon row type).
//!
//! A [`WriteType`] describes a Paimon row type; its JSON is the schema Java puts in the header
//! (record `org.apache.paimon.avro.generated.record`, nested records named
//! `<parent>_<field>`, nullable types as `["null", T]` with `"default": null`), and values are
//! written from the same [`Value`] trees the decoder produces.

use super::container::{self as avro_container, write_bytes, write_long, AvroCodec, BLOCK_SIZE};
use crate::error::{Error, Result};

use crate::value::Value;

/// The Avro shape of one Paimon field type.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteType {
    /// INT
    Int,
    /// TINYINT: an Avro int, an 8-bit integer in Parquet manifests
    TinyInt,
    /// BIGINT
    Long,
    /// STRING
    String,
    /// BYTES
    Bytes,
    /// TIMESTAMP(3): long with logical type `timestamp-millis`
    TimestampMillis,
    /// ARRAY
    Array(Box<WriteType>),
    /// ROW: field names and types in order
    Record(Vec<(&'static str, WriteType)>),
    /// A nullable type
    Nullable(Box<WriteType>),
}

impl WriteType {
    /// `Nullable(t)`.
    pub fn nullable(t: WriteType) -> Self {
        WriteType::Nullable(Box::new(t))
    }

    /// `Array(t)`.
    pub fn array(t: WriteType) -> Self {
        WriteType::Array(Box::new(t))
    }

    /// The header schema JSON of a top-level record, as Java writes it (compact, no spaces).
    pub fn schema_json(&self) -> String {
        let mut out = String::new();
        self.json(&mut out, "record", true);
        out
    }

    fn json(&self, out: &mut String, name: &str, top: bool) {
        match self {
            WriteType::Int | WriteType::TinyInt => out.push_str("\"int\""),
            WriteType::Long => out.push_str("\"long\""),
            WriteType::String => out.push_str("\"string\""),
            WriteType::Bytes => out.push_str("\"bytes\""),
            WriteType::TimestampMillis => {
                out.push_str("{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}");
            }
            WriteType::Array(t) => {
                out.push_str("{\"type\":\"array\",\"items\":");
                t.json(out, name, false);
                out.push('}');
            }
            WriteType::Nullable(t) => {
                out.push_str("[\"null\",");
                t.json(out, name, false);
                out.push(']');
            }
            WriteType::Record(fields) => {
                out.push_str(&format!("{{\"type\":\"record\",\"name\":\"{name}\","));
                if top {
                    out.push_str("\"namespace\":\"org.apache.paimon.avro.generated\",");
                }
                out.push_str("\"fields\":[");
                for (i, (f, t)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&format!("{{\"name\":\"{f}\",\"type\":"));
                    t.json(out, &format!("{name}_{f}"), false);
                    if matches!(t, WriteType::Nullable(_)) {
                        out.push_str(",\"default\":null");
                    }
                    out.push('}');
                }
                out.push_str("]}");
            }
        }
    }

    /// Appends the binary encoding of `v`.
    ///
    /// # Errors
    /// A reason naming `field` when `v` does not fit the type (a null for a non-null type, a
    /// string for an int...).
    pub fn encode(&self, v: &Value, field: &str, out: &mut Vec<u8>) -> Result<()> {
        let bad = || {
            misfit(format!(
                "field {field}: {v:?} does not fit Avro type {self:?}"
            ))
        };
        match (self, v) {
            (WriteType::Nullable(_), Value::Null) => out.push(0),
            (WriteType::Nullable(t), v) => {
                out.push(2); // zig-zag of union branch 1
                t.encode(v, field, out)?;
            }
            (
                WriteType::Int | WriteType::TinyInt | WriteType::Long | WriteType::TimestampMillis,
                v,
            ) => {
                write_long(out, v.as_i64().ok_or_else(bad)?);
            }
            (WriteType::String, Value::String(s)) => write_bytes(out, s.as_bytes()),
            (WriteType::Bytes, Value::Bytes(b)) => write_bytes(out, b),
            (WriteType::Array(t), Value::Array(items)) => {
                if !items.is_empty() {
                    write_long(out, items.len() as i64);
                    for item in items {
                        t.encode(item, field, out)?;
                    }
                }
                out.push(0);
            }
            (WriteType::Record(fields), Value::Record(r)) => {
                for (name, t) in fields {
                    t.encode(r.get(name), name, out)?;
                }
            }
            _ => return Err(bad()),
        }
        Ok(())
    }
}

/// The Avro codec for a Paimon compression (`manifest.compression`).
///
/// # Errors
/// A reason when the compression has no Avro codec here.
pub fn codec_for(compression: &str) -> Result<AvroCodec> {
    AvroCodec::from_compression(compression).ok_or_else(|| {
        Error::unsupported(
            "Avro manifest",
            format!("manifest compression {compression:?} (it has zstd, snappy, deflate or none)"),
        )
    })
}

/// Writes an object container holding `records` of `schema` with `codec` (see [`codec_for`]);
/// `sync` is the 16-byte marker (random in Java; callers pass fresh bytes).
///
/// # Errors
/// A reason when a record does not fit the schema or compression fails.
pub fn write_container(
    schema: &WriteType,
    codec: AvroCodec,
    sync: [u8; 16],
    records: &[Value],
) -> Result<Vec<u8>> {
    let mut out = avro_container::header(&schema.schema_json(), codec, sync);
    let mut block = Vec::new();
    let mut count = 0i64;
    let flush = |block: &mut Vec<u8>, count: &mut i64, out: &mut Vec<u8>| {
        if *count == 0 {
            return Ok::<(), Error>(());
        }
        out.extend(avro_container::block(codec, *count, block, sync)?);
        block.clear();
        *count = 0;
        Ok(())
    };
    for r in records {
        schema.encode(r, "record", &mut block)?;
        count += 1;
        if block.len() >= BLOCK_SIZE {
            flush(&mut block, &mut count, &mut out)?;
        }
    }
    flush(&mut block, &mut count, &mut out)?;
    Ok(out)
}

/// An [`Error::Encode`] of Avro container: `reason` says what cannot be written.
fn misfit(reason: impl Into<String>) -> Error {
    Error::encode("Avro container", reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Record;
    use std::sync::Arc;

    /// Our bytes decode with apache-avro (an independent reader) to the values written.
    #[test]
    fn apache_avro_reads_what_we_write() {
        let t = WriteType::Record(vec![
            ("a", WriteType::Int),
            ("b", WriteType::nullable(WriteType::Long)),
            ("c", WriteType::array(WriteType::nullable(WriteType::Long))),
            ("d", WriteType::String),
        ]);
        let names: Arc<[String]> = ["a", "b", "c", "d"].map(String::from).into();
        let recs: Vec<Value> = (0..3000)
            .map(|i| {
                Value::Record(Record::new(
                    names.clone(),
                    vec![
                        Value::Int(i - 1500),
                        if i % 3 == 0 {
                            Value::Null
                        } else {
                            Value::Long(i64::from(i) << 40)
                        },
                        Value::Array(vec![Value::Null, Value::Long(7)]),
                        Value::String(format!("row {i} ünï")),
                    ],
                ))
            })
            .collect();
        for codec in [
            AvroCodec::Null,
            AvroCodec::Zstandard,
            AvroCodec::Snappy,
            AvroCodec::Deflate,
        ] {
            let bytes = write_container(&t, codec, [7; 16], &recs).unwrap();
            let reader = apache_avro::Reader::new(&bytes[..]).unwrap();
            let got: Vec<_> = reader.map(|r| r.unwrap()).collect();
            assert_eq!(got.len(), 3000, "{codec:?}");
            use apache_avro::types::Value as A;
            let A::Record(f) = &got[3] else { panic!() };
            assert_eq!(f[0].1, A::Int(-1497));
            assert_eq!(f[1].1, A::Union(0, Box::new(A::Null)));
            let A::Record(f) = &got[4] else { panic!() };
            assert_eq!(f[1].1, A::Union(1, Box::new(A::Long(4 << 40))));
            assert_eq!(
                f[2].1,
                A::Array(vec![
                    A::Union(0, Box::new(A::Null)),
                    A::Union(1, Box::new(A::Long(7)))
                ])
            );
            assert_eq!(f[3].1, A::String("row 4 ünï".into()));
            // And our own reader gives back the same values.
            assert_eq!(
                super::super::read_container(&bytes).unwrap(),
                recs,
                "{codec:?}"
            );
        }
        let bad = Value::Record(Record::new(names, vec![Value::Null; 4]));
        let e = write_container(&t, AvroCodec::Null, [0; 16], &[bad]).unwrap_err();
        assert!(e.to_string().contains("field a"), "{e}");
    }
}
