//! Partition directory names (Java `PartitionPathUtils.generatePartitionPath`,
//! `InternalRowPartitionComputer.generatePartValues`).

use crate::binary::Datum;
use crate::types::DataField;

/// `k1=v1/k2=v2/` for a partition (empty for an unpartitioned table), escaped as Java does;
/// a null or blank value is named `default_name` (`partition.default-name`). `None` when a value
/// cannot be printed as Java would, a field name is empty, or `values` does not match `fields`.
pub fn partition_path(
    fields: &[DataField],
    values: &[Datum],
    default_name: &str,
    legacy_name: bool,
) -> Option<String> {
    let pairs = partition_spec_text(fields, values, default_name, legacy_name)?;
    Some(partition_path_of_text(&pairs))
}

/// `k1=v1/k2=v2/` of a partition's `(key, value text)` pairs ([`partition_spec_text`]), each
/// escaped as Java's `PartitionPathUtils.generatePartitionPath` escapes it.
pub fn partition_path_of_text(pairs: &[(String, String)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        out.push_str(&escape_path_name(k));
        out.push('=');
        out.push_str(&escape_path_name(v));
        out.push('/');
    }
    out
}

/// A partition's `(key, value text)` pairs in partition-key order, unescaped (Java
/// `InternalRowPartitionComputer.generatePartValues`: what Hive holds as a partition's
/// values); a null or blank value is `default_name`. `None` as for [`partition_path`].
pub fn partition_spec_text(
    fields: &[DataField],
    values: &[Datum],
    default_name: &str,
    legacy_name: bool,
) -> Option<Vec<(String, String)>> {
    if fields.len() != values.len() {
        return None;
    }
    let mut out = Vec::with_capacity(fields.len());
    for (f, v) in fields.iter().zip(values) {
        if f.name.is_empty() {
            return None;
        }
        let text = match partition_value_text(v, legacy_name)? {
            Some(t) if !t.chars().all(java_is_whitespace) => t,
            _ => default_name.to_string(),
        };
        out.push((f.name.clone(), text));
    }
    Some(out)
}

/// Java `PartitionPathUtils.escapePathName`: control characters (U+0000..U+001F), DEL and
/// `"#%'*/:=?\\{}[]^` become `%XX` (upper-case hex).
pub fn escape_path_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let needs = matches!(
            c,
            '\u{00}'
                ..='\u{1F}'
                    | '"'
                    | '#'
                    | '%'
                    | '\''
                    | '*'
                    | '/'
                    | ':'
                    | '='
                    | '?'
                    | '\\'
                    | '\u{7F}'
                    | '{'
                    | '}'
                    | '['
                    | ']'
                    | '^'
        );
        if needs {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A partition value's text as Java prints it (`partition.legacy-name` true: `toString` of the
/// internal value, so dates are day numbers; false: cast to string): `Some(None)` for null,
/// `None` for a value that cannot be printed yet as Java would.
pub fn partition_value_text(v: &Datum, legacy: bool) -> Option<Option<String>> {
    Some(Some(match v {
        Datum::Null => return Some(None),
        Datum::Boolean(b) => b.to_string(),
        Datum::TinyInt(x) => x.to_string(),
        Datum::SmallInt(x) => x.to_string(),
        Datum::Int(x) => x.to_string(),
        Datum::BigInt(x) => x.to_string(),
        Datum::String(s) => s.clone(),
        Datum::Date(d) if legacy => d.to_string(),
        Datum::Date(d) => format_date(i64::from(*d)),
        Datum::Float(f) => java_double_string(f64::from(*f), true),
        Datum::Double(f) => java_double_string(*f, false),
        Datum::Decimal {
            unscaled, scale, ..
        } => crate::binary::json::format_decimal(*unscaled, *scale),
        Datum::Timestamp { millis, nanos } if legacy => local_date_time(*millis, *nanos),
        _ => return None,
    }))
}

/// Java `Character.isWhitespace` (what `StringUtils.isNullOrWhitespaceOnly` tests): space
/// separators except the non-breaking ones, and the ASCII controls tab..CR and FS..US.
fn java_is_whitespace(c: char) -> bool {
    match c {
        '\u{09}'..='\u{0D}' | '\u{1C}'..='\u{1F}' => true,
        '\u{A0}' | '\u{2007}' | '\u{202F}' => false,
        ' '
        | '\u{1680}'
        | '\u{2000}'..='\u{200A}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{205F}'
        | '\u{3000}' => true,
        _ => false,
    }
}

fn format_date(days: i64) -> String {
    let (y, m, d) = crate::calendar::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Java `LocalDateTime.toString()` of wall-clock millis plus nanos within the milli
/// (`2024-01-01T10:00`, seconds and fraction only when not zero).
pub fn local_date_time(millis: i64, nanos_of_milli: i32) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms_of_day = millis.rem_euclid(86_400_000);
    let (h, mi, s) = (
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
    );
    let nano = (ms_of_day % 1000) * 1_000_000 + i64::from(nanos_of_milli);
    let mut out = format!("{}T{h:02}:{mi:02}", format_date(days));
    if s > 0 || nano > 0 {
        out.push_str(&format!(":{s:02}"));
        if nano > 0 {
            if nano % 1_000_000 == 0 {
                out.push_str(&format!(".{:03}", nano / 1_000_000));
            } else if nano % 1000 == 0 {
                out.push_str(&format!(".{:06}", nano / 1000));
            } else {
                out.push_str(&format!(".{nano:09}"));
            }
        }
    }
    out
}

/// Java `Double.toString` / `Float.toString` (shortest repr; scientific outside [1e-3, 1e7)).
fn java_double_string(v: f64, is_float: bool) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let a = v.abs();
    let sci = if is_float {
        format!("{:e}", v as f32)
    } else {
        format!("{v:e}")
    };
    if (1e-3..1e7).contains(&a) {
        let s = if is_float {
            format!("{}", v as f32)
        } else {
            format!("{v}")
        };
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        // Rust: "1.5e10" / "1e-5"; Java: "1.5E10" / "1.0E-5".
        let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let mant = if mant.contains('.') {
            mant.to_string()
        } else {
            format!("{mant}.0")
        };
        format!("{mant}E{exp}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_value_texts() {
        assert_eq!(local_date_time(1_704_103_200_000, 0), "2024-01-01T10:00");
        assert_eq!(
            local_date_time(1_704_103_200_123, 0),
            "2024-01-01T10:00:00.123"
        );
        assert_eq!(java_double_string(1.5, false), "1.5");
        assert_eq!(java_double_string(1e10, false), "1.0E10");
        assert_eq!(java_double_string(100.0, false), "100.0");
        let t = |d: Datum| partition_value_text(&d, false).unwrap().unwrap();
        assert_eq!(
            t(Datum::Decimal {
                unscaled: -5,
                scale: 3,
                precision: 10
            }),
            "-0.005"
        );
        assert_eq!(partition_value_text(&Datum::Null, true), Some(None));
    }
}
