//! The JSON row encoding shared by the Java oracle and `paimon read --format jsonl`.
//!
//! Integers and booleans as JSON; FLOAT/DOUBLE as numbers with `"NaN"`, `"Infinity"`,
//! `"-Infinity"` as strings; DECIMAL as a string with exactly `scale` fraction digits; strings as
//! strings; binary as lowercase hex; DATE `YYYY-MM-DD`; TIME `HH:MM:SS[.fff]`; TIMESTAMP(p)
//! `YYYY-MM-DDTHH:MM:SS[.f…]` with p fraction digits; LTZ the same in UTC with `Z`; ARRAY a list;
//! MAP a list of `[key, value]` pairs; ROW an object.

use serde_json::{json, Map, Value};

use super::datum::Datum;
use crate::calendar::civil_from_days;
use crate::types::{DataType, TypeKind};

/// Encodes one datum of type `ty`.
pub fn datum_to_json(d: &Datum, ty: &DataType) -> Value {
    match (d, &ty.kind) {
        (Datum::Null, _) => Value::Null,
        (Datum::Boolean(b), _) => json!(b),
        (Datum::TinyInt(v), _) => json!(v),
        (Datum::SmallInt(v), _) => json!(v),
        (Datum::Int(v), TypeKind::Date) | (Datum::Date(v), _) => json!(format_date(*v)),
        (Datum::Int(v), TypeKind::Time { precision })
        | (Datum::Time(v), TypeKind::Time { precision }) => {
            json!(format_time(*v, *precision))
        }
        (Datum::Time(v), _) => json!(format_time(*v, 3)),
        (Datum::Int(v), _) => json!(v),
        (Datum::BigInt(v), _) => json!(v),
        (Datum::Float(v), _) => float_json(f64::from(*v), java_float_string(*v)),
        (Datum::Double(v), _) => float_json(*v, java_double_string(*v)),
        (
            Datum::Decimal {
                unscaled, scale, ..
            },
            _,
        ) => json!(format_decimal(*unscaled, *scale)),
        (Datum::String(s), _) => json!(s),
        (Datum::Binary(b), _) => json!(to_hex(b)),
        (Datum::Timestamp { millis, nanos }, TypeKind::Timestamp { precision })
        | (Datum::Timestamp { millis, nanos }, TypeKind::LocalZonedTimestamp { precision }) => {
            json!(format_timestamp(*millis, *nanos, *precision, false))
        }
        (
            Datum::LocalZonedTimestamp { millis, nanos },
            TypeKind::LocalZonedTimestamp { precision },
        )
        | (Datum::LocalZonedTimestamp { millis, nanos }, TypeKind::Timestamp { precision }) => {
            json!(format_timestamp(*millis, *nanos, *precision, true))
        }
        (Datum::Timestamp { millis, nanos }, _) => {
            json!(format_timestamp(*millis, *nanos, 9, false))
        }
        (Datum::LocalZonedTimestamp { millis, nanos }, _) => {
            json!(format_timestamp(*millis, *nanos, 9, true))
        }
        (Datum::Array(items), TypeKind::Array(e) | TypeKind::Vector { element: e, .. }) => {
            Value::Array(items.iter().map(|i| datum_to_json(i, e)).collect())
        }
        (Datum::Map(pairs), TypeKind::Map { key, value }) => Value::Array(
            pairs
                .iter()
                .map(|(k, v)| json!([datum_to_json(k, key), datum_to_json(v, value)]))
                .collect(),
        ),
        (Datum::Map(pairs), TypeKind::Multiset(e)) => Value::Array(
            pairs
                .iter()
                .map(|(k, v)| {
                    json!([
                        datum_to_json(k, e),
                        datum_to_json(v, &DataType::nullable(TypeKind::Int))
                    ])
                })
                .collect(),
        ),
        (Datum::Row(values), TypeKind::Row(fields)) => {
            let mut m = Map::new();
            for (f, v) in fields.iter().zip(values) {
                m.insert(f.name.clone(), datum_to_json(v, &f.data_type));
            }
            Value::Object(m)
        }
        (Datum::Variant { value, metadata }, _) => {
            json!({"value": to_hex(value), "metadata": to_hex(metadata)})
        }
        // A datum whose shape does not match its type: print it untyped rather than lose it.
        (Datum::Array(items), _) => {
            Value::Array(items.iter().map(|i| datum_to_json(i, ty)).collect())
        }
        (Datum::Map(_), _) | (Datum::Row(_), _) => json!(format!("{d:?}")),
    }
}

fn float_json(v: f64, text: String) -> Value {
    if v.is_nan() {
        json!("NaN")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        // Java's text is valid JSON number syntax; keep it verbatim.
        serde_json::from_str::<Value>(&text).unwrap_or(Value::Null)
    }
}

/// `Float.toString` layout over the shortest round-tripping digits.
pub fn java_float_string(v: f32) -> String {
    java_layout(
        &format!("{v:e}"),
        v == 0.0,
        v.is_sign_negative(),
        f64::from(v).abs(),
    )
}

/// `Double.toString` layout over the shortest round-tripping digits.
pub fn java_double_string(v: f64) -> String {
    java_layout(&format!("{v:e}"), v == 0.0, v.is_sign_negative(), v.abs())
}

/// Lays out Rust's `d.ddde±x` text as Java does: plain in [1e-3, 1e7), else `d.dddE±x`, and
/// always at least one fraction digit.
fn java_layout(sci: &str, zero: bool, negative: bool, abs: f64) -> String {
    if sci.contains("NaN") || sci.contains("inf") {
        return sci.to_string();
    }
    let sign = if negative { "-" } else { "" };
    if zero {
        return format!("{sign}0.0");
    }
    let body = sci.trim_start_matches('-');
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (1e-3..1e7).contains(&abs) {
        let point = exp + 1; // digits before the decimal point
        let (int, frac) = if point <= 0 {
            (
                "0".to_string(),
                format!("{}{}", "0".repeat((-point) as usize), digits),
            )
        } else if (point as usize) >= digits.len() {
            (
                format!("{}{}", digits, "0".repeat(point as usize - digits.len())),
                String::new(),
            )
        } else {
            (
                digits[..point as usize].to_string(),
                digits[point as usize..].to_string(),
            )
        };
        let frac = if frac.is_empty() {
            "0".to_string()
        } else {
            frac
        };
        format!("{sign}{int}.{frac}")
    } else {
        let frac = if digits.len() > 1 { &digits[1..] } else { "0" };
        format!("{sign}{}.{frac}E{exp}", &digits[..1])
    }
}

/// Lowercase hex of `b`.
pub fn to_hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push(DIGITS[(x >> 4) as usize] as char);
        s.push(DIGITS[(x & 15) as usize] as char);
    }
    s
}

/// `unscaled / 10^scale` with exactly `scale` fraction digits.
pub fn format_decimal(unscaled: i128, scale: u32) -> String {
    let neg = unscaled < 0;
    let digits = unscaled.unsigned_abs().to_string();
    let scale = scale as usize;
    let body = if scale == 0 {
        digits
    } else if digits.len() > scale {
        format!(
            "{}.{}",
            &digits[..digits.len() - scale],
            &digits[digits.len() - scale..]
        )
    } else {
        format!("0.{}{}", "0".repeat(scale - digits.len()), digits)
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// Days since epoch as `YYYY-MM-DD` (proleptic Gregorian).
pub fn format_date(days: i32) -> String {
    let (y, m, d) = civil_from_days(i64::from(days));
    if (0..=9999).contains(&y) {
        format!("{y:04}-{m:02}-{d:02}")
    } else {
        format!("{y:+05}-{m:02}-{d:02}")
    }
}

/// Millis of day as `HH:MM:SS` plus `.` and min(p, 3) digits when p > 0.
pub fn format_time(millis: i32, precision: u32) -> String {
    let ms = millis.rem_euclid(86_400_000);
    let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    let digits = precision.min(3) as usize;
    if digits == 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}.{}", &format!("{f:03}")[..digits])
    }
}

/// A timestamp with exactly `precision` fraction digits; `utc` appends `Z`.
pub fn format_timestamp(millis: i64, nanos: i32, precision: u32, utc: bool) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms_of_day = millis.rem_euclid(86_400_000);
    let (y, mo, d) = civil_from_days(days);
    let secs = ms_of_day / 1000;
    let (h, mi, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let nano_of_sec = (ms_of_day % 1000) * 1_000_000 + i64::from(nanos);
    let mut out = if (0..=9999).contains(&y) {
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}")
    } else {
        format!("{y:+05}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}")
    };
    if precision > 0 {
        let frac = format!("{nano_of_sec:09}");
        out.push('.');
        out.push_str(&frac[..(precision.min(9) as usize)]);
    }
    if utc {
        out.push('Z');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_decimal(-5, 2), "-0.05");
        assert_eq!(format_decimal(12345, 2), "123.45");
        assert_eq!(format_decimal(7, 0), "7");
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(19723), "2024-01-01");
        assert_eq!(format_date(-1), "1969-12-31");
        assert_eq!(format_time(3_723_004, 3), "01:02:03.004");
        assert_eq!(format_time(3_723_004, 0), "01:02:03");
        assert_eq!(java_float_string(3.402_823_5e38), "3.4028235E38");
        assert_eq!(java_double_string(f64::MAX), "1.7976931348623157E308");
        assert_eq!(java_double_string(13.125), "13.125");
        assert_eq!(java_double_string(1.0), "1.0");
        assert_eq!(java_double_string(-0.0), "-0.0");
        assert_eq!(java_double_string(1e-4), "1.0E-4");
        assert_eq!(java_double_string(1e7), "1.0E7");
        assert_eq!(java_double_string(0.001), "0.001");
        assert_eq!(java_double_string(1234567.0), "1234567.0");
        assert_eq!(java_float_string(0.1), "0.1");
        assert_eq!(
            format_timestamp(1_646_252_412_000, 0, 0, false),
            "2022-03-02T20:20:12"
        );
        assert_eq!(
            format_timestamp(-1, 999_999, 9, true),
            "1969-12-31T23:59:59.999999999Z"
        );
        assert_eq!(
            format_timestamp(1, 500, 6, false),
            "1970-01-01T00:00:00.001000"
        );
        assert_eq!(to_hex(&[0, 171]), "00ab");
    }
}
