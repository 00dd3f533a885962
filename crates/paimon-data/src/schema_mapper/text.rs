//! Java's text conversions used by casts: number and date formatting (`Float.toString`,
//! `Double.toString`, `DateTimeUtils.formatDate` / `formatTimestamp`) and parsing
//! (`BinaryStringUtils.toInt` / `toLong`, `Double.parseDouble`, `new BigDecimal(String)`,
//! `DateTimeUtils.parseDate` / `parseTimestampData`).

pub(crate) use paimon_spec::binary::json::format_decimal as decimal_plain_string;
pub(crate) use paimon_spec::calendar::{civil_from_days, days_from_civil};

/// Milliseconds per day.
pub(crate) const MILLIS_PER_DAY: i64 = 86_400_000;

/// Java `Double.toString` / `Float.toString` from the shortest round-trip digits: plain for
/// 1e-3 <= |v| < 1e7 (at least one fractional digit), computerized scientific otherwise.
pub(crate) fn java_float_string(sci: &str) -> String {
    // `sci` is Rust's `{:e}` form, e.g. "-1.2345e-5", "1e7", "NaN", "inf".
    match sci {
        "NaN" => return "NaN".into(),
        "inf" => return "Infinity".into(),
        "-inf" => return "-Infinity".into(),
        _ => {}
    }
    let (neg, body) = match sci.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, sci),
    };
    let (mant, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if digits.bytes().all(|b| b == b'0') {
        out.push_str("0.0");
        return out;
    }
    if (-3..7).contains(&exp) {
        if exp >= 0 {
            let int_len = usize::try_from(exp).unwrap_or(0) + 1;
            let padded = format!("{digits:0<int_len$}");
            let (i, f) = padded.split_at(int_len);
            out.push_str(i);
            out.push('.');
            out.push_str(if f.is_empty() { "0" } else { f });
        } else {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        out.push('.');
        out.push_str(if rest.is_empty() { "0" } else { rest });
        out.push('E');
        out.push_str(&exp.to_string());
    }
    out
}

/// Java `BinaryStringUtils.toLong`: optional sign, digits, an optional `.digits` tail that is
/// truncated; no whitespace; `None` on malformed input or overflow.
pub(crate) fn parse_java_long(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let (neg, start) = match b.first()? {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    if start == b.len() {
        return None;
    }
    let mut acc: i64 = 0;
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c == b'.' {
            break;
        }
        if !c.is_ascii_digit() {
            return None;
        }
        acc = acc.checked_mul(10)?.checked_sub(i64::from(c - b'0'))?;
    }
    if !b[i..].iter().all(u8::is_ascii_digit) {
        return None;
    }
    if neg {
        Some(acc)
    } else {
        acc.checked_neg()
    }
}

/// Java `Double.parseDouble`: trims, accepts `NaN`, `[+-]Infinity`, and a trailing `d`/`f`.
pub(crate) fn parse_java_double(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let (sign, body) = match t.as_bytes().first()? {
        b'-' => (-1.0, &t[1..]),
        b'+' => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    match body {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(sign * f64::INFINITY),
        _ => {}
    }
    let body = body.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(body);
    if body.is_empty()
        || !body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    body.parse::<f64>().ok().map(|v| sign * v)
}

/// A decimal number parsed like Java `new BigDecimal(String)`: unscaled digits and scale.
/// `None` on malformed text or more than 38 significant digits.
pub(crate) fn parse_big_decimal(s: &str) -> Option<(i128, i32)> {
    let b = s.as_bytes();
    let (neg, mut i) = match b.first()? {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    let mut unscaled: i128 = 0;
    let mut scale: i32 = 0;
    let mut seen_digit = false;
    let mut seen_dot = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'0'..=b'9' => {
                unscaled = unscaled
                    .checked_mul(10)?
                    .checked_add(i128::from(c - b'0'))?;
                seen_digit = true;
                if seen_dot {
                    scale += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            b'e' | b'E' => break,
            _ => return None,
        }
        i += 1;
    }
    if !seen_digit {
        return None;
    }
    if i < b.len() {
        let exp: i32 = s.get(i + 1..)?.parse().ok()?;
        scale = scale.checked_sub(exp)?;
    }
    if unscaled.unsigned_abs() >= 10u128.pow(38) {
        return None;
    }
    Some((if neg { -unscaled } else { unscaled }, scale))
}

/// Rescales `unscaled * 10^-scale` to `target_scale` with HALF_UP rounding and checks the
/// precision (Java `Decimal.fromBigDecimal`): `None` when it does not fit.
pub(crate) fn rescale_half_up(
    unscaled: i128,
    scale: i32,
    precision: u32,
    target_scale: u32,
) -> Option<i128> {
    let target = i32::try_from(target_scale).ok()?;
    let v = if target >= scale {
        let f = 10i128.checked_pow(u32::try_from(target - scale).ok()?)?;
        unscaled.checked_mul(f)?
    } else {
        let shift = u32::try_from(scale - target).ok()?;
        if shift > 38 {
            0
        } else {
            let f = 10i128.pow(shift);
            let q = unscaled / f;
            let r = unscaled % f;
            if r.unsigned_abs() * 2 >= f.unsigned_abs() {
                q + unscaled.signum()
            } else {
                q
            }
        }
    };
    let limit = 10u128.checked_pow(precision)?;
    (v.unsigned_abs() < limit).then_some(v)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if y % 400 == 0 || (y % 4 == 0 && y % 100 != 0) => 29,
        _ => 28,
    }
}

/// Java `DateTimeUtils.formatDate`: `yyyy-MM-dd`.
pub(crate) fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Java `DateTimeUtils.formatTimestampMillis` (TIME to STRING): `HH:MM:SS`, then for
/// `precision > 0` a point and the millisecond digits, stopping after the first digit once the
/// rest are zeros (`00:00:00.0`, `12:34:56.5`), as Java does to match `Timestamp.toString()`.
pub(crate) fn format_time_millis(millis_of_day: i32, precision: u32) -> String {
    let ms_per_day = MILLIS_PER_DAY as i32;
    let time = millis_of_day.rem_euclid(ms_per_day);
    let mut out = format!(
        "{:02}:{:02}:{:02}",
        time / 3_600_000,
        (time / 60_000) % 60,
        (time / 1000) % 60
    );
    if precision > 0 {
        out.push('.');
        let mut ms = time % 1000;
        for _ in 0..precision {
            out.push(char::from(b'0' + (ms / 100) as u8));
            ms = (ms % 100) * 10;
            if ms == 0 {
                break;
            }
        }
    }
    out
}

/// Java `DateTimeUtils.formatTimestamp(ts, precision)`: `yyyy-MM-dd HH:mm:ss[.fraction]`, the
/// nine-digit fraction stripped of trailing zeros but not below `precision` digits.
pub(crate) fn format_timestamp(epoch_nanos: i128, precision: u32) -> String {
    let secs = epoch_nanos.div_euclid(1_000_000_000);
    let nanos = epoch_nanos.rem_euclid(1_000_000_000);
    let days = i64::try_from(secs.div_euclid(86_400)).unwrap_or(0);
    let sod = secs.rem_euclid(86_400);
    let mut out = format!(
        "{} {:02}:{:02}:{:02}",
        format_date(days),
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    );
    let mut fraction = format!("{nanos:09}");
    while fraction.len() > precision as usize && fraction.ends_with('0') {
        fraction.pop();
    }
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(&fraction);
    }
    out
}

/// Java `DateTimeUtils.parseDate`: `y[-m[-d]]` with optional spaces around numbers and an
/// ignored time part after the first space; `None` for an invalid date.
pub(crate) fn parse_date(s: &str) -> Option<i64> {
    let s = match s.find(' ') {
        Some(ws) if ws > 0 => &s[..ws],
        _ => s,
    };
    let num = |t: &str| -> Option<i64> {
        let t = t.trim();
        let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse::<i32>().ok().map(i64::from)
    };
    let mut parts = s.splitn(3, '-');
    let y = num(parts.next()?)?;
    let m = parts.next().map(num).unwrap_or(Some(1))?;
    let d = parts.next().map(num).unwrap_or(Some(1))?;
    let m = u32::try_from(m).ok().filter(|m| (1..=12).contains(m))?;
    let d = u32::try_from(d)
        .ok()
        .filter(|d| *d >= 1 && *d <= days_in_month(y, m))?;
    Some(days_from_civil(y, m, d))
}

/// Java `DateTimeUtils.parseTimestampData` with its default formatter
/// (`yyyy-M-d[ H:m:s[.f]]` or `yyyy-M-d'T'H:m[:s[.f]]`), fraction truncated to `precision`;
/// epoch nanoseconds of the wall-clock value, `None` when the text does not match.
pub(crate) fn parse_timestamp(s: &str, precision: u32) -> Option<i128> {
    let (date, time) = if let Some((d, t)) = s.split_once('T') {
        (d, Some((t, true)))
    } else if let Some((d, t)) = s.split_once(' ') {
        (d, Some((t, false)))
    } else {
        (s, None)
    };
    let field = |t: &str, max: usize| -> Option<u32> {
        (!t.is_empty() && t.len() <= max && t.bytes().all(|c| c.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let mut dp = date.split('-');
    let y_text = dp.next()?;
    if y_text.len() != 4 || !y_text.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let y = i64::from(field(y_text, 4)?);
    let m = field(dp.next()?, 2)?;
    let d = field(dp.next()?, 2)?;
    if dp.next().is_some() || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    let (mut h, mut mi, mut sec, mut nanos) = (0u32, 0u32, 0u32, 0u64);
    if let Some((t, iso)) = time {
        let (hms, frac) = match t.split_once('.') {
            Some((a, f)) => (a, Some(f)),
            None => (t, None),
        };
        let mut tp = hms.split(':');
        h = field(tp.next()?, 2)?;
        mi = field(tp.next()?, 2)?;
        match tp.next() {
            Some(x) => sec = field(x, 2)?,
            None if iso && frac.is_none() => {}
            None => return None,
        }
        if tp.next().is_some() || h > 23 || mi > 59 || sec > 59 {
            return None;
        }
        if let Some(f) = frac {
            if f.is_empty() || f.len() > 9 || !f.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            nanos = format!("{f:0<9}").parse().ok()?;
        }
    }
    let unit = 10u64.pow(9 - precision.min(9));
    nanos -= nanos % unit;
    let days = days_from_civil(y, m, d);
    let secs = i128::from(days) * 86_400 + i128::from(h * 3600 + mi * 60 + sec);
    Some(secs * 1_000_000_000 + i128::from(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dstr(v: f64) -> String {
        java_float_string(&format!("{v:e}"))
    }

    #[test]
    fn time_to_string_trims_like_java() {
        assert_eq!(format_time_millis(0, 3), "00:00:00.0");
        assert_eq!(format_time_millis(45_296_789, 3), "12:34:56.789");
        assert_eq!(format_time_millis(45_296_500, 3), "12:34:56.5");
        assert_eq!(format_time_millis(45_296_120, 3), "12:34:56.12");
        assert_eq!(format_time_millis(86_399_999, 3), "23:59:59.999");
        assert_eq!(format_time_millis(45_296_789, 0), "12:34:56");
    }

    #[test]
    fn java_double_to_string() {
        assert_eq!(dstr(1.0), "1.0");
        assert_eq!(dstr(-12.5), "-12.5");
        assert_eq!(dstr(1e7), "1.0E7");
        assert_eq!(dstr(1234567.0), "1234567.0");
        assert_eq!(dstr(0.001), "0.001");
        assert_eq!(dstr(0.0001), "1.0E-4");
        assert_eq!(dstr(1.5e-10), "1.5E-10");
        assert_eq!(dstr(0.0), "0.0");
        assert_eq!(dstr(f64::NAN), "NaN");
        assert_eq!(dstr(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(java_float_string(&format!("{:e}", 1.1f32)), "1.1");
    }

    #[test]
    fn java_long_parsing() {
        assert_eq!(parse_java_long("123"), Some(123));
        assert_eq!(parse_java_long("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_java_long("9223372036854775808"), None);
        assert_eq!(parse_java_long("12.99"), Some(12));
        assert_eq!(parse_java_long("12.x"), None);
        assert_eq!(parse_java_long(" 1"), None);
        assert_eq!(parse_java_long("+"), None);
        assert_eq!(parse_java_long(""), None);
    }

    #[test]
    fn big_decimal_parsing_and_rescale() {
        assert_eq!(parse_big_decimal("12.345"), Some((12345, 3)));
        assert_eq!(parse_big_decimal("-1.5E2"), Some((-15, -1)));
        assert_eq!(parse_big_decimal("abc"), None);
        assert_eq!(rescale_half_up(12345, 3, 5, 2), Some(1235));
        assert_eq!(rescale_half_up(-12345, 3, 5, 2), Some(-1235));
        assert_eq!(rescale_half_up(12345, 3, 3, 2), None);
        assert_eq!(decimal_plain_string(-5, 3), "-0.005");
        assert_eq!(decimal_plain_string(12345, 2), "123.45");
    }

    #[test]
    fn dates_and_timestamps() {
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(19723), "2024-01-01");
        assert_eq!(format_date(-1), "1969-12-31");
        assert_eq!(parse_date("2024-01-01"), Some(19723));
        assert_eq!(parse_date("2024-1-1 10:00:00"), Some(19723));
        assert_eq!(parse_date("2024-02-30"), None);
        assert_eq!(parse_date("abc"), None);
        let ts = parse_timestamp("2024-01-01 10:00:00.123456", 6).unwrap();
        assert_eq!(format_timestamp(ts, 6), "2024-01-01 10:00:00.123456");
        assert_eq!(format_timestamp(ts, 3), "2024-01-01 10:00:00.123456");
        assert_eq!(
            parse_timestamp("2024-01-01 10:00:00.123456", 3),
            parse_timestamp("2024-01-01 10:00:00.123", 9)
        );
        assert_eq!(
            parse_timestamp("2024-01-01T10:00", 3),
            parse_timestamp("2024-01-01 10:00:00", 3)
        );
        assert_eq!(
            parse_timestamp("2024-01-01", 3).map(|n| n / 1_000_000),
            Some(19723 * MILLIS_PER_DAY as i128)
        );
        assert_eq!(parse_timestamp("2024-13-01", 3), None);
        assert_eq!(format_timestamp(0, 0), "1970-01-01 00:00:00");
        assert_eq!(format_timestamp(-1_000_000, 3), "1969-12-31 23:59:59.999");
    }
}
