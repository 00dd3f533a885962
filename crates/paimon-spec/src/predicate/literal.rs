//! Literal text (`'2024-01-01'`, `-12.5`, `true`) read as a typed [`Datum`] of a column's type:
//! the values of SQL filters ([`super::sql`], feature `sql`) and of partition specs
//! (`dt=2024-01-01`).

use crate::binary::Datum;
use crate::calendar::days_from_civil;
use crate::types::{DataType, TypeKind};

/// Parses literal text as a value of `ty`.
pub fn typed_literal(text: &str, ty: &DataType) -> Option<Datum> {
    let t = text.trim();
    Some(match &ty.kind {
        TypeKind::Boolean => Datum::Boolean(match t.to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => return None,
        }),
        TypeKind::TinyInt => Datum::TinyInt(t.parse().ok()?),
        TypeKind::SmallInt => Datum::SmallInt(t.parse().ok()?),
        TypeKind::Int => Datum::Int(t.parse().ok()?),
        TypeKind::BigInt => Datum::BigInt(t.parse().ok()?),
        TypeKind::Float => Datum::Float(t.parse().ok()?),
        TypeKind::Double => Datum::Double(t.parse().ok()?),
        TypeKind::Decimal { precision, scale } => Datum::Decimal {
            unscaled: parse_decimal(t, *scale)?,
            precision: *precision,
            scale: *scale,
        },
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => Datum::String(text.to_string()),
        TypeKind::Binary { .. } | TypeKind::VarBinary { .. } => {
            Datum::Binary(text.as_bytes().to_vec())
        }
        TypeKind::Date => Datum::Date(parse_date(t)?),
        TypeKind::Timestamp { .. } => {
            let (millis, nanos) = parse_timestamp(t)?;
            Datum::Timestamp { millis, nanos }
        }
        TypeKind::LocalZonedTimestamp { .. } => {
            let (millis, nanos) = parse_timestamp(t.trim_end_matches('Z'))?;
            Datum::LocalZonedTimestamp { millis, nanos }
        }
        _ => return None,
    })
}

/// `"-12.5"` at scale 2 is -1250; more fraction digits than `scale` is rejected.
fn parse_decimal(t: &str, scale: u32) -> Option<i128> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > scale as usize {
        return None;
    }
    let digits = format!("{int}{frac}{}", "0".repeat(scale as usize - frac.len()));
    let v: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_date(t: &str) -> Option<i32> {
    let mut it = t.splitn(3, '-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok()?;
    let d: u32 = it.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// `YYYY-MM-DD[ T]HH:MM[:SS[.fffffffff]]` as (epoch millis, nanos within the milli).
fn parse_timestamp(t: &str) -> Option<(i64, i32)> {
    let (date, time) = match t.split_once(['T', ' ']) {
        Some((d, tm)) => (d, tm),
        None => (t, "00:00:00"),
    };
    let days = i64::from(parse_date(date)?);
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut parts = hms.split(':');
    let h: i64 = parts.next()?.parse().ok()?;
    let mi: i64 = parts.next()?.parse().ok()?;
    let s: i64 = parts.next().unwrap_or("0").parse().ok()?;
    if frac.len() > 9 || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let nanos: i64 = format!("{frac:0<9}").parse().ok()?;
    let millis = days * 86_400_000 + (h * 3600 + mi * 60 + s) * 1000 + nanos / 1_000_000;
    Some((millis, (nanos % 1_000_000) as i32))
}
