//! Keys of scalar global indexes (Java `KeySerializer`): little-endian fixed-width numbers,
//! UTF-8 strings, DECIMAL as a little-endian long (precision <= 18) or big-endian two's
//! complement bytes, TIMESTAMP as little-endian millis plus var-length nanos of the milli when
//! its precision is above 3.

use super::block::Cursor;
use crate::error::{Error, Result};
use paimon_spec::binary::Datum;
use paimon_spec::types::{DataType, TypeKind};

const WHAT: &str = "global index key";

fn fixed<const N: usize>(bytes: &[u8]) -> Result<[u8; N]> {
    bytes.try_into().map_err(|_| {
        Error::corrupt(
            WHAT,
            format!("{} bytes where the key type takes {N}", bytes.len()),
        )
    })
}

/// Decodes one serialized key of `ty`.
///
/// # Errors
/// `Corrupt` on a wrong length or invalid UTF-8; `Unsupported` for types Java does not index.
pub fn decode_key(bytes: &[u8], ty: &DataType) -> Result<Datum> {
    Ok(match &ty.kind {
        TypeKind::Boolean => Datum::Boolean(fixed::<1>(bytes)?[0] == 1),
        TypeKind::TinyInt => Datum::TinyInt(i8::from_le_bytes(fixed(bytes)?)),
        TypeKind::SmallInt => Datum::SmallInt(i16::from_le_bytes(fixed(bytes)?)),
        TypeKind::Int => Datum::Int(i32::from_le_bytes(fixed(bytes)?)),
        TypeKind::BigInt => Datum::BigInt(i64::from_le_bytes(fixed(bytes)?)),
        TypeKind::Float => Datum::Float(f32::from_le_bytes(fixed(bytes)?)),
        TypeKind::Double => Datum::Double(f64::from_le_bytes(fixed(bytes)?)),
        TypeKind::Date => Datum::Date(i32::from_le_bytes(fixed(bytes)?)),
        TypeKind::Time { .. } => Datum::Time(i32::from_le_bytes(fixed(bytes)?)),
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => Datum::String(
            String::from_utf8(bytes.to_vec())
                .map_err(|e| Error::corrupt(WHAT, format!("string key is not UTF-8: {e}")))?,
        ),
        TypeKind::Decimal { precision, scale } => {
            let unscaled = if *precision <= 18 {
                i128::from(i64::from_le_bytes(fixed(bytes)?))
            } else {
                if bytes.is_empty() || bytes.len() > 16 {
                    return Err(Error::corrupt(
                        WHAT,
                        format!("DECIMAL key of {} bytes (1..=16 allowed)", bytes.len()),
                    ));
                }
                let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
                let mut be = [fill; 16];
                be[16 - bytes.len()..].copy_from_slice(bytes);
                i128::from_be_bytes(be)
            };
            Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            }
        }
        TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision } => {
            let local = matches!(ty.kind, TypeKind::LocalZonedTimestamp { .. });
            let head = bytes.get(..8).ok_or_else(|| {
                Error::corrupt(WHAT, format!("TIMESTAMP key of {} bytes", bytes.len()))
            })?;
            let millis = i64::from_le_bytes(fixed(head)?);
            let mut nanos = 0;
            if *precision > 3 && bytes.len() > 8 {
                let mut c = Cursor::new(&bytes[8..], WHAT);
                nanos = i32::try_from(c.var_long()?)
                    .ok()
                    .filter(|n| *n < 1_000_000)
                    .ok_or_else(|| Error::corrupt(WHAT, "TIMESTAMP nanos of milli out of range"))?;
            }
            if local {
                Datum::LocalZonedTimestamp { millis, nanos }
            } else {
                Datum::Timestamp { millis, nanos }
            }
        }
        other => return Err(Error::unsupported(WHAT, format!("key type {other:?}"))),
    })
}

/// Serializes one non-null key of `ty` as [`decode_key`] reads it (Java `KeySerializer`:
/// DECIMAL above precision 18 as the shortest big-endian two's complement, as
/// `BigInteger.toByteArray`).
///
/// # Errors
/// `Unsupported` for a key type the format does not index, or a value that is not of `ty`
/// (NULL included: NULL rows are kept apart by the writers).
pub fn encode_key(key: &Datum, ty: &DataType) -> Result<Vec<u8>> {
    let mismatch = || Error::unsupported(WHAT, format!("value {key:?} for key type {:?}", ty.kind));
    Ok(match (&ty.kind, key) {
        (TypeKind::Boolean, Datum::Boolean(b)) => vec![u8::from(*b)],
        (TypeKind::TinyInt, Datum::TinyInt(v)) => v.to_le_bytes().to_vec(),
        (TypeKind::SmallInt, Datum::SmallInt(v)) => v.to_le_bytes().to_vec(),
        (TypeKind::Int, Datum::Int(v))
        | (TypeKind::Date, Datum::Date(v))
        | (TypeKind::Time { .. }, Datum::Time(v)) => v.to_le_bytes().to_vec(),
        (TypeKind::BigInt, Datum::BigInt(v)) => v.to_le_bytes().to_vec(),
        (TypeKind::Float, Datum::Float(v)) => v.to_le_bytes().to_vec(),
        (TypeKind::Double, Datum::Double(v)) => v.to_le_bytes().to_vec(),
        (TypeKind::Char { .. } | TypeKind::VarChar { .. }, Datum::String(s)) => {
            s.as_bytes().to_vec()
        }
        (TypeKind::Decimal { precision, .. }, Datum::Decimal { unscaled, .. }) => {
            if *precision <= 18 {
                i64::try_from(*unscaled)
                    .map_err(|_| mismatch())?
                    .to_le_bytes()
                    .to_vec()
            } else {
                let be = unscaled.to_be_bytes();
                // Drop leading bytes that only repeat the sign of the next one.
                let mut start = 0;
                while start < 15 {
                    let (b, next) = (be[start], be[start + 1]);
                    let redundant = (b == 0 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0);
                    if !redundant {
                        break;
                    }
                    start += 1;
                }
                be[start..].to_vec()
            }
        }
        (TypeKind::Timestamp { precision }, Datum::Timestamp { millis, nanos })
        | (
            TypeKind::LocalZonedTimestamp { precision },
            Datum::LocalZonedTimestamp { millis, nanos },
        ) => {
            let mut out = millis.to_le_bytes().to_vec();
            if *precision > 3 {
                let nanos = u64::try_from(*nanos).map_err(|_| mismatch())?;
                super::write_block::put_var(&mut out, nanos);
            }
            out
        }
        _ => return Err(mismatch()),
    })
}
