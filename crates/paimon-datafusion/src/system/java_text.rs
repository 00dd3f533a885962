//! Values printed as Java Paimon's system tables print them: `toString` of internal objects
//! (stats and keys), casts to STRING (partitions), `Duration.toString`, and the iteration order
//! of a `java.util.HashMap<String, _>` (schema options).

use paimon_spec::binary::json::{
    format_date, format_decimal, java_double_string, java_float_string, to_hex,
};
use paimon_spec::binary::Datum;
use paimon_spec::layout::{local_date_time, partition_value_text};
use paimon_spec::types::{DataType, TypeKind};

use super::columns::local_millis;

/// `String.valueOf` of the internal object Java's `InternalRowUtils.get` returns for `d`
/// (what `Arrays.toString` and `TreeMap.toString` print): DATE and TIME as their int, TIMESTAMP
/// as `LocalDateTime.toString`, DECIMAL as a plain number. Java prints binary values as
/// `[B@<identity hash>`, which nothing can reproduce; they are printed as hex here.
pub fn internal_object_string(d: &Datum) -> String {
    match d {
        Datum::Null => "null".into(),
        Datum::Boolean(b) => b.to_string(),
        Datum::TinyInt(v) => v.to_string(),
        Datum::SmallInt(v) => v.to_string(),
        Datum::Int(v) | Datum::Date(v) | Datum::Time(v) => v.to_string(),
        Datum::BigInt(v) => v.to_string(),
        Datum::Float(v) => java_floating(f64::from(*v)).unwrap_or_else(|| java_float_string(*v)),
        Datum::Double(v) => java_floating(*v).unwrap_or_else(|| java_double_string(*v)),
        Datum::Decimal {
            unscaled, scale, ..
        } => format_decimal(*unscaled, *scale),
        Datum::String(s) => s.clone(),
        Datum::Binary(b) => to_hex(b),
        Datum::Timestamp { millis, nanos } | Datum::LocalZonedTimestamp { millis, nanos } => {
            local_date_time(*millis, *nanos)
        }
        Datum::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(internal_object_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Datum::Map(pairs) => format!(
            "{{{}}}",
            pairs
                .iter()
                .map(|(k, v)| format!(
                    "{}={}",
                    internal_object_string(k),
                    internal_object_string(v)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Datum::Row(fields) => format!(
            "({})",
            fields
                .iter()
                .map(internal_object_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
        Datum::Variant { value, .. } => to_hex(value),
    }
}

/// Java's text of the non-finite floating-point values.
fn java_floating(v: f64) -> Option<String> {
    if v.is_nan() {
        Some("NaN".into())
    } else if v.is_infinite() {
        Some(if v > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        None
    }
}

/// A non-null value cast to STRING (Java `CastExecutors.resolve(type, STRING)`): DATE as
/// `yyyy-MM-dd`, TIME as `HH:mm:ss[.fff]`, TIMESTAMP(p) as `yyyy-MM-dd HH:mm:ss` with at least
/// p fraction digits (trailing zeros beyond p dropped), TIMESTAMP_LTZ the same in this
/// machine's zone, binary as its UTF-8 text.
pub fn cast_to_string(d: &Datum, ty: &DataType) -> String {
    match (d, &ty.kind) {
        (Datum::Int(v) | Datum::Date(v), TypeKind::Date) => format_date(*v),
        (Datum::Int(v) | Datum::Time(v), TypeKind::Time { precision }) => {
            time_string(*v, *precision)
        }
        (Datum::Timestamp { millis, nanos }, k)
        | (Datum::LocalZonedTimestamp { millis, nanos }, k) => {
            let precision = match k {
                TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision } => {
                    *precision
                }
                _ => 9,
            };
            let wall = match (d, k) {
                (Datum::LocalZonedTimestamp { .. }, _)
                | (_, TypeKind::LocalZonedTimestamp { .. }) => local_millis(*millis),
                _ => *millis,
            };
            timestamp_string(wall, *nanos, precision)
        }
        (Datum::Binary(b), _) => String::from_utf8_lossy(b).into_owned(),
        _ => match partition_value_text(d, false) {
            Some(Some(text)) => text,
            _ => internal_object_string(d),
        },
    }
}

/// Java `DateTimeUtils.formatTimestampMillis`: fraction digits stop at the first zero.
fn time_string(millis_of_day: i32, precision: u32) -> String {
    let t = millis_of_day.rem_euclid(86_400_000);
    let mut out = format!(
        "{:02}:{:02}:{:02}",
        t / 3_600_000,
        t / 60_000 % 60,
        t / 1000 % 60
    );
    if precision > 0 {
        out.push('.');
        let mut ms = t % 1000;
        let mut left = precision;
        while left > 0 {
            out.push(char::from(b'0' + u8::try_from(ms / 100).unwrap_or(0)));
            ms = ms % 100 * 10;
            if ms == 0 {
                break;
            }
            left -= 1;
        }
    }
    out
}

/// Java `DateTimeUtils.formatTimestamp(ts, precision)`.
fn timestamp_string(millis: i64, nanos: i32, precision: u32) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms_of_day = millis.rem_euclid(86_400_000);
    let date = format_date(i32::try_from(days).unwrap_or(i32::MAX));
    let secs = ms_of_day / 1000;
    let nano = ms_of_day % 1000 * 1_000_000 + i64::from(nanos);
    let mut fraction = format!("{nano:09}");
    while fraction.len() > precision as usize && fraction.ends_with('0') {
        fraction.pop();
    }
    let mut out = format!(
        "{date} {:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(&fraction);
    }
    out
}

/// A partition row cast to STRING (Java `RowToStringCastRule`): `{v1, v2}`, `null` for nulls,
/// `{}` for an unpartitioned table.
pub fn row_string(values: &[Datum], types: &[DataType]) -> String {
    let parts: Vec<String> = values
        .iter()
        .zip(types)
        .map(|(d, t)| match d {
            Datum::Null => "null".to_string(),
            d => cast_to_string(d, t),
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// `TreeMap<String, _>.toString()`: `{a=1, b=null}`, keys in `String.compareTo` order.
pub fn tree_map_string(mut entries: Vec<(String, String)>) -> String {
    entries.sort_by(|a, b| java_compare(&a.0, &b.0));
    let parts: Vec<String> = entries.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// Java `String.compareTo`: UTF-16 code units.
fn java_compare(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Java `Duration.toString()` of a non-negative duration: `PT8H6M12.345S`, `PT0S`.
pub fn duration_string(seconds: i64, nanos: u32) -> String {
    if seconds == 0 && nanos == 0 {
        return "PT0S".into();
    }
    let (hours, minutes, secs) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    let mut out = String::from("PT");
    if hours != 0 {
        out.push_str(&format!("{hours}H"));
    }
    if minutes != 0 {
        out.push_str(&format!("{minutes}M"));
    }
    if secs == 0 && nanos == 0 {
        return out;
    }
    out.push_str(&secs.to_string());
    if nanos > 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push('S');
    out
}

/// Java `String.hashCode`.
fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The order in which a `java.util.HashMap<String, _>` filled with `keys` (in this order,
/// no duplicates) iterates: by bucket of the spread hash in the final table size, then by
/// insertion within a bucket. Java's schema options are such a map, filled in file order.
pub fn hash_map_order<S: AsRef<str>>(keys: &[S]) -> Vec<usize> {
    // Default capacity 16, load factor 0.75, doubling while size exceeds the threshold.
    let mut capacity: usize = 16;
    while keys.len() > capacity / 4 * 3 {
        capacity *= 2;
    }
    let bucket = |k: &str| {
        let h = java_string_hash(k);
        let spread = h ^ ((h as u32) >> 16) as i32;
        (spread as u32 as usize) & (capacity - 1)
    };
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| (bucket(keys[i].as_ref()), i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_strings() {
        assert_eq!(duration_string(3, 0), "PT3S");
        assert_eq!(
            internal_object_string(&Datum::Double(f64::NEG_INFINITY)),
            "-Infinity"
        );
        assert_eq!(internal_object_string(&Datum::Float(f32::NAN)), "NaN");
        assert_eq!(internal_object_string(&Datum::Float(1.5)), "1.5");
        assert_eq!(duration_string(86_400, 0), "PT24H");
        assert_eq!(duration_string(5400, 500_000_000), "PT1H30M0.5S");
        assert_eq!(java_string_hash("bucket"), -1_378_203_158);
        assert_eq!(time_string(3_723_400, 3), "01:02:03.4");
        assert_eq!(
            timestamp_string(1_704_103_200_000, 0, 3),
            "2024-01-01 10:00:00.000"
        );
        assert_eq!(
            timestamp_string(1_704_103_200_000, 0, 0),
            "2024-01-01 10:00:00"
        );
        assert_eq!(
            tree_map_string(vec![("b".into(), "1".into()), ("a".into(), "null".into())]),
            "{a=null, b=1}"
        );
    }
}
