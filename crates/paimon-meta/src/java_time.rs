//! `java.time` values as Java Paimon writes them: a `LocalDateTime` (wall-clock millis, read in
//! this machine's time zone as Java's `ZoneId.systemDefault()` does) and a `Duration`'s text
//! (`Duration.toString`, ISO-8601 `PT..H..M..S`).

use chrono::{Local, Offset, TimeZone};

/// Wall-clock millis to epoch millis in this machine's time zone (Java
/// `LocalDateTime.atZone(ZoneId.systemDefault()).toInstant().toEpochMilli()`); a time in a
/// daylight-saving gap moves forward by the gap, as Java's `atZone` does.
pub fn epoch_millis_of_local(local_millis: i64) -> i64 {
    let secs = local_millis.div_euclid(1000);
    let sub = local_millis.rem_euclid(1000);
    let Some(naive) = chrono::DateTime::from_timestamp(secs, 0).map(|d| d.naive_utc()) else {
        return local_millis;
    };
    let offset = match Local.offset_from_local_datetime(&naive) {
        chrono::LocalResult::Single(o) | chrono::LocalResult::Ambiguous(o, _) => o.fix(),
        chrono::LocalResult::None => Local.offset_from_utc_datetime(&naive).fix(),
    };
    (secs - i64::from(offset.local_minus_utc())) * 1000 + sub
}

/// Epoch millis to wall-clock millis in this machine's time zone (Java
/// `LocalDateTime.ofInstant(instant, ZoneId.systemDefault())`).
pub fn local_millis_of_epoch(epoch_millis: i64) -> i64 {
    match Local.timestamp_millis_opt(epoch_millis) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            epoch_millis + i64::from(t.offset().fix().local_minus_utc()) * 1000
        }
        chrono::LocalResult::None => epoch_millis,
    }
}

/// Java `Duration.toString` of a non-negative duration: `PT1H`, `PT1H30M`, `PT0.5S`, `PT0S`.
pub fn duration_string(secs: i64, nanos: u32) -> String {
    if secs == 0 && nanos == 0 {
        return "PT0S".to_string();
    }
    let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    let mut out = "PT".to_string();
    if h != 0 {
        out.push_str(&format!("{h}H"));
    }
    if m != 0 {
        out.push_str(&format!("{m}M"));
    }
    if s != 0 || nanos != 0 {
        out.push_str(&s.to_string());
        if nanos != 0 {
            let frac = format!("{nanos:09}");
            out.push('.');
            out.push_str(frac.trim_end_matches('0'));
        }
        out.push('S');
    }
    out
}

/// Parses what [`duration_string`] writes (also with a `nD` day part, as Java's
/// `Duration.parse` accepts): seconds and nanos; `None` for any other text or a negative part.
pub fn parse_duration_string(text: &str) -> Option<(i64, u32)> {
    let rest = text.trim().strip_prefix('P')?;
    let (days, time) = match rest.split_once('T') {
        Some((d, t)) => (d, t),
        None => (rest, ""),
    };
    let mut secs: i64 = 0;
    if !days.is_empty() {
        let n: i64 = days.strip_suffix('D')?.parse().ok()?;
        secs = secs.checked_add(n.checked_mul(86_400)?)?;
    }
    let mut nanos = 0u32;
    let mut num = String::new();
    for c in time.chars() {
        match c {
            '0'..='9' | '.' => num.push(c),
            'H' | 'M' => {
                let n: i64 = num.parse().ok()?;
                let unit = if c == 'H' { 3600 } else { 60 };
                secs = secs.checked_add(n.checked_mul(unit)?)?;
                num.clear();
            }
            'S' => {
                let (whole, frac) = num.split_once('.').unwrap_or((num.as_str(), ""));
                let n: i64 = whole.parse().ok()?;
                secs = secs.checked_add(n)?;
                if !frac.is_empty() {
                    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    nanos = format!("{frac:0<9}").parse().ok()?;
                }
                num.clear();
            }
            _ => return None,
        }
    }
    if !num.is_empty() || secs < 0 || (days.is_empty() && time.is_empty()) {
        return None;
    }
    Some((secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Java 17 `Duration.ofSeconds(s, n).toString()` for these values (jshell).
    #[test]
    fn durations_as_java_prints_them() {
        assert_eq!(duration_string(3600, 0), "PT1H");
        assert_eq!(duration_string(5400, 0), "PT1H30M");
        assert_eq!(duration_string(90061, 0), "PT25H1M1S");
        assert_eq!(duration_string(0, 500_000_000), "PT0.5S");
        assert_eq!(duration_string(0, 0), "PT0S");
        for (s, n) in [(3600, 0), (5400, 0), (90061, 0), (0, 500_000_000), (0, 0)] {
            assert_eq!(parse_duration_string(&duration_string(s, n)), Some((s, n)));
        }
        assert_eq!(parse_duration_string("P1D"), Some((86_400, 0)));
        assert_eq!(parse_duration_string("P1DT1H"), Some((90_000, 0)));
        assert_eq!(parse_duration_string("1h"), None);
        assert_eq!(parse_duration_string("PT"), None);
        assert_eq!(parse_duration_string("P"), None);
        assert_eq!(parse_duration_string("PTxS"), None);
    }
}
