//! Partition directory names (Java `PartitionPathUtils.generatePartitionPath`,
//! `InternalRowPartitionComputer`).

use paimon_spec::binary::Datum;
use paimon_spec::types::DataField;

use crate::table::Table;

/// Java `FileStorePathFactory.bucketPath`: the directory of `bucket` in the partition with
/// `values` (typed by the table's partition columns). `None` when a value cannot be printed
/// as Java would.
pub fn bucket_path(table: &Table, values: &[Datum], bucket: i32) -> Option<String> {
    let opts = table.options();
    let part = partition_path(
        &table.schema().partition_fields(),
        values,
        &opts.partition_default_name,
        opts.partition_legacy_name,
    )?;
    let mut p = table.path().to_string();
    if let Some(d) = &opts.data_file_path_directory {
        p = paimon_io::join(&p, d);
    }
    let bucket_dir = if bucket == -2 {
        "bucket-postpone".to_string()
    } else {
        format!("bucket-{bucket}")
    };
    Some(paimon_io::join(&p, &format!("{part}{bucket_dir}")))
}

/// Builds `k1=v1/k2=v2/` for a partition, escaping as Java does. `None` values (or values that
/// cannot be printed as Java would) give `None` so the caller can report an error.
pub fn partition_path(
    fields: &[DataField],
    values: &[Datum],
    default_name: &str,
    legacy_name: bool,
) -> Option<String> {
    let mut out = String::new();
    for (f, v) in fields.iter().zip(values) {
        let text = value_text(v, legacy_name)?;
        let text = match text {
            Some(t) if !t.trim().is_empty() => t,
            _ => default_name.to_string(),
        };
        out.push_str(&escape(&f.name));
        out.push('=');
        out.push_str(&escape(&text));
        out.push('/');
    }
    Some(out)
}

/// Java `PartitionPathUtils.escapePathName`.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let needs = matches!(
            c,
            '\u{01}'
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

/// The partition value's text: `Ok(None)` for null; `None` when unsupported.
fn value_text(v: &Datum, legacy: bool) -> Option<Option<String>> {
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
        } => decimal_plain(*unscaled, *scale),
        Datum::Timestamp { millis, nanos } if legacy => local_date_time(*millis, *nanos),
        _ => return None,
    }))
}

/// `BigDecimal.toPlainString` of `unscaled * 10^-scale`.
pub fn decimal_plain(unscaled: i128, scale: u32) -> String {
    paimon_spec::binary::json::format_decimal(unscaled, scale)
}

fn format_date(days: i64) -> String {
    let (y, m, d) = paimon_spec::calendar::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Java `LocalDateTime.toString()`.
fn local_date_time(millis: i64, nanos_of_milli: i32) -> String {
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
    use paimon_spec::types::{DataType, TypeKind};

    #[test]
    fn java_compatible_names() {
        let fields = vec![
            DataField::new(0, "dt", DataType::nullable(TypeKind::Date)),
            DataField::new(1, "s", DataType::string()),
        ];
        let p = partition_path(
            &fields,
            &[Datum::Date(19723), Datum::String("a/b=c".into())],
            "__D__",
            true,
        );
        assert_eq!(p.unwrap(), "dt=19723/s=a%2Fb%3Dc/");
        let p = partition_path(
            &fields,
            &[Datum::Date(19723), Datum::String(" ".into())],
            "__D__",
            false,
        );
        assert_eq!(p.unwrap(), "dt=2024-01-01/s=__D__/");
        assert_eq!(decimal_plain(-5, 3), "-0.005");
        assert_eq!(decimal_plain(12345, 2), "123.45");
        assert_eq!(local_date_time(1_704_103_200_000, 0), "2024-01-01T10:00");
        assert_eq!(
            local_date_time(1_704_103_200_123, 0),
            "2024-01-01T10:00:00.123"
        );
        assert_eq!(java_double_string(1.5, false), "1.5");
        assert_eq!(java_double_string(1e10, false), "1.0E10");
        assert_eq!(java_double_string(100.0, false), "100.0");
    }
}
