//! Manifest-family files in ORC (`manifest.format=orc`), through paimon-format's ORC encoder:
//! the row types as Java's `OrcWriterFactory` maps them (TINYINT as `tinyint`, `_CREATION_TIME`
//! as `timestamp`, rows as `struct`, arrays as `list`), field names as the row type's.

use super::write::{OrcCodec, OrcColumn, OrcType, OrcWriter};
use crate::error::{Error, Result};

use crate::avro::encode::WriteType;
use crate::value::Value;

/// Manifests are small: one stripe holds them.
const STRIPE_SIZE: usize = 64 << 20;

/// The ORC codec of a `manifest.compression`.
///
/// # Errors
/// A reason for a compression ORC manifests are not written with here.
pub fn orc_codec(compression: &str) -> Result<OrcCodec> {
    OrcCodec::from_name(compression, 1).ok_or_else(|| {
        Error::unsupported(
            "ORC manifest",
            format!(
                "manifest compression {compression:?} (it has zstd, snappy, zlib, lz4 or none)"
            ),
        )
    })
}

fn orc_type(t: &WriteType) -> OrcType {
    match t {
        WriteType::Int => OrcType::Int,
        WriteType::TinyInt => OrcType::Byte,
        WriteType::Long => OrcType::Long,
        WriteType::String => OrcType::String,
        WriteType::Bytes => OrcType::Binary,
        WriteType::TimestampMillis => OrcType::Timestamp,
        WriteType::Array(e) => OrcType::List(Box::new(orc_type(e))),
        WriteType::Record(fields) => OrcType::Struct(
            fields
                .iter()
                .map(|(n, t)| ((*n).to_string(), orc_type(t)))
                .collect(),
        ),
        WriteType::Nullable(inner) => orc_type(inner),
    }
}

/// Columns of the subtree of `t`, itself included.
fn subtree_len(t: &WriteType) -> usize {
    match t {
        WriteType::Array(e) => 1 + subtree_len(e),
        WriteType::Record(fields) => 1 + fields.iter().map(|(_, t)| subtree_len(t)).sum::<usize>(),
        WriteType::Nullable(inner) => subtree_len(inner),
        _ => 1,
    }
}

/// Encodes `records` (each a [`Value::Record`] of `schema`, a [`WriteType::Record`]) as one
/// ORC file.
///
/// # Errors
/// A reason naming the field when a value does not fit its type, or the encoder fails.
pub fn write_orc(schema: &WriteType, codec: OrcCodec, records: &[Value]) -> Result<Vec<u8>> {
    let WriteType::Record(fields) = schema else {
        return Err(misfit("a manifest schema must be a record"));
    };
    let types = fields
        .iter()
        .map(|(n, t)| ((*n).to_string(), orc_type(t)))
        .collect();
    let mut w = OrcWriter::try_new(Vec::new(), types, codec, STRIPE_SIZE)
        .map_err(|e| misfit(format!("ORC: {e}")))?;
    for r in records {
        if !matches!(r, Value::Record(_)) {
            return Err(misfit(format!("a manifest row is not a record: {r:?}")));
        }
        push(w.columns(), 0, "", schema, r)?;
        w.end_rows(1).map_err(|e| misfit(format!("ORC: {e}")))?;
    }
    let (bytes, _) = w.finish().map_err(|e| misfit(format!("ORC: {e}")))?;
    Ok(bytes)
}

/// Pushes `v` (of type `t`, field `name`) into column `id` and its children.
fn push(cols: &mut [OrcColumn], id: usize, name: &str, t: &WriteType, v: &Value) -> Result<()> {
    let (t, nullable) = match t {
        WriteType::Nullable(inner) => (inner.as_ref(), true),
        t => (t, false),
    };
    let Some(col) = cols.get_mut(id) else {
        return Err(misfit(format!("field {name}: no ORC column {id}")));
    };
    if matches!(v, Value::Null) {
        if !nullable {
            return Err(misfit(format!("field {name}: null in a NOT NULL field")));
        }
        col.push_null();
        return Ok(());
    }
    let bad = || misfit(format!("field {name}: {v:?} does not fit {t:?}"));
    match (t, v) {
        (WriteType::Int, _) => {
            let x = v
                .as_i64()
                .and_then(|x| i32::try_from(x).ok())
                .ok_or_else(bad)?;
            col.push_long(i64::from(x));
        }
        (WriteType::TinyInt, _) => {
            let x = v
                .as_i64()
                .and_then(|x| i8::try_from(x).ok())
                .ok_or_else(bad)?;
            col.push_byte(x);
        }
        (WriteType::Long, _) => col.push_long(v.as_i64().ok_or_else(bad)?),
        (WriteType::TimestampMillis, _) => {
            let ms = v.as_i64().ok_or_else(bad)?;
            let nanos = (ms.rem_euclid(1_000) * 1_000_000) as u32;
            col.push_timestamp(ms.div_euclid(1_000), nanos)
                .map_err(|e| misfit(format!("field {name}: {e}")))?;
        }
        (WriteType::String, Value::String(s)) => col.push_bytes(s.as_bytes()),
        (WriteType::Bytes, Value::Bytes(b)) => col.push_bytes(b),
        (WriteType::Array(e), Value::Array(xs)) => {
            col.push_length(xs.len());
            for x in xs {
                push(cols, id + 1, name, e, x)?;
            }
        }
        (WriteType::Record(fields), Value::Record(rec)) => {
            col.push_struct();
            let mut child = id + 1;
            for (n, ct) in fields {
                push(cols, child, n, ct, rec.get(n))?;
                child += subtree_len(ct);
            }
        }
        _ => return Err(bad()),
    }
    Ok(())
}

/// An [`Error::Encode`] of ORC manifest: `reason` says what cannot be written.
fn misfit(reason: impl Into<String>) -> Error {
    Error::encode("ORC manifest", reason)
}
