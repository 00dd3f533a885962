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
