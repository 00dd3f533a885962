//! The time a partition stands for (Java `PartitionTimeExtractor`), from its values, the table's
//! `partition.timestamp-pattern` and `partition.timestamp-formatter`.
//!
//! The pattern (e.g. `$dt $hour:00:00`) has each `$key` replaced by that partition value, in
//! partition-key order; without one the first value is taken. The text is then parsed:
//! - with a formatter, as Java's `DateTimeFormatter.ofPattern(formatter)` parses a
//!   `LocalDateTime` (smart resolver), and failing that a `LocalDate` at midnight. The
//!   numeric pattern letters `y u M d H m s S`, quoted literals and punctuation are supported;
//!   text fields (`MMM`, `EEE`, ...) are refused when the extractor is made;
//! - without one, as Java's default `y-M-d[ H:m:s[.fraction]]` (1-10 digit year, 1-2 digit
//!   fields, lenient: month 13 is January of the next year), and failing that `y-M-d`.
//!
//! Text that does not parse has no time ([`None`]), and Java leaves such partitions alone.

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime};

use crate::error::{Error, Result};

/// Extracts partition times with one table's pattern and formatter.
#[derive(Debug, Clone)]
pub struct PartitionTimeExtractor {
    pattern: Option<String>,
    formatter: Option<Vec<Token>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Year,
    /// Two-digit year, 2000-based (`yy`).
    ReducedYear,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Fraction,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Number {
        field: Field,
        min: usize,
        max: usize,
    },
    Literal(String),
}

impl PartitionTimeExtractor {
    /// An extractor for `pattern` (`partition.timestamp-pattern`) and `formatter`
    /// (`partition.timestamp-formatter`).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for formatter letters other than `y u M d H m s S` in their
    /// numeric forms; [`Error::InvalidOption`] for an unterminated quote.
    pub fn try_new(pattern: Option<&str>, formatter: Option<&str>) -> Result<Self> {
        Ok(PartitionTimeExtractor {
            pattern: pattern.map(str::to_string),
            formatter: formatter.map(compile).transpose()?,
        })
    }

    /// The time of the partition with `values` for `keys`; `None` when its text does not
    /// parse.
    pub fn extract(&self, keys: &[String], values: &[String]) -> Option<NaiveDateTime> {
        let text = match &self.pattern {
            None => values.first()?.clone(),
            Some(p) => {
                let mut t = p.clone();
                for (k, v) in keys.iter().zip(values) {
                    t = t.replace(&format!("${k}"), v);
                }
                t
            }
        };
        match &self.formatter {
            Some(tokens) => parse_with(tokens, &text),
            None => parse_default(&text),
        }
    }
}

/// Java `DateTimeFormatter.ofPattern` for the numeric letters.
fn compile(pattern: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let literal = |out: &mut Vec<Token>, s: &str| match out.last_mut() {
        Some(Token::Literal(l)) => l.push_str(s),
        _ => out.push(Token::Literal(s.to_string())),
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            let mut j = i + 1;
            let mut text = String::new();
            loop {
                match chars.get(j) {
                    None => {
                        return Err(Error::InvalidOption {
                            key: "partition.timestamp-formatter".into(),
                            value: pattern.into(),
                            reason: "unterminated quote".into(),
                        })
                    }
                    Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                        text.push('\'');
                        j += 2;
                    }
                    Some('\'') => break,
                    Some(ch) => {
                        text.push(*ch);
                        j += 1;
                    }
                }
            }
            literal(&mut out, if j == i + 1 { "'" } else { &text });
            i = j + 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            literal(&mut out, &c.to_string());
            i += 1;
            continue;
        }
        let mut n = 1;
        while chars.get(i + n) == Some(&c) {
            n += 1;
        }
        let refuse = || Error::Unsupported {
            feature: format!(
                "partition.timestamp-formatter '{pattern}': pattern letters {} (only the \
                 numeric y, u, M, d, H, m, s and S are parsed)",
                c.to_string().repeat(n)
            ),
        };
        let number = |field| match n {
            1 => Ok(Token::Number {
                field,
                min: 1,
                max: 19,
            }),
            2 => Ok(Token::Number {
                field,
                min: 2,
                max: 2,
            }),
            _ => Err(refuse()),
        };
        out.push(match c {
            'y' | 'u' if n == 2 => Token::Number {
                field: Field::ReducedYear,
                min: 2,
                max: 2,
            },
            'y' | 'u' => Token::Number {
                field: Field::Year,
                min: n,
                max: 19,
            },
            'M' => number(Field::Month)?,
            'd' => number(Field::Day)?,
            'H' => number(Field::Hour)?,
            'm' => number(Field::Minute)?,
            's' => number(Field::Second)?,
            'S' => Token::Number {
                field: Field::Fraction,
                min: n,
                max: n,
            },
            _ => return Err(refuse()),
        });
        i += n;
    }
    Ok(out)
}

/// Parses `text` whole with `tokens`, then resolves as Java's smart resolver.
fn parse_with(tokens: &[Token], text: &str) -> Option<NaiveDateTime> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut fields: Vec<(Field, i64, usize)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            Token::Literal(l) => {
                if !text[pos..].starts_with(l.as_str()) {
                    return None;
                }
                pos += l.len();
            }
            Token::Number { field, min, max } => {
                let avail = bytes[pos..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                // Java's adjacent value parsing: a variable-width field leaves the digits of
                // the fixed-width fields right after it to them.
                let reserved: usize = tokens[i + 1..]
                    .iter()
                    .map_while(|t| match t {
                        Token::Number { min, max, .. } if min == max => Some(*min),
                        _ => None,
                    })
                    .sum();
                let width = if min == max {
                    *min
                } else {
                    avail.saturating_sub(reserved).min(*max)
                };
                if width < *min || width > avail || width > 18 {
                    return None;
                }
                let value: i64 = text[pos..pos + width].parse().ok()?;
                fields.push((*field, value, width));
                pos += width;
            }
        }
    }
    if pos != text.len() {
        return None;
    }
    let get = |f: Field| {
        fields
            .iter()
            .find(|(g, _, _)| *g == f)
            .map(|(_, v, w)| (*v, *w))
    };
    let year = match (get(Field::Year), get(Field::ReducedYear)) {
        (Some((y, _)), _) => y,
        (None, Some((y, _))) => 2000 + y,
        (None, None) => return None,
    };
    let month = get(Field::Month)?.0;
    let day = get(Field::Day)?.0;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let year = i32::try_from(year).ok()?;
    // Smart: a day past the month's end is its last day.
    let last = last_day(year, month as u32)?;
    let date = NaiveDate::from_ymd_opt(year, month as u32, (day as u32).min(last))?;
    let Some((hour, _)) = get(Field::Hour) else {
        // No time fields: Java's LocalDateTime parse fails, its LocalDate parse gives midnight.
        return Some(date.and_time(NaiveTime::MIN));
    };
    let minute = get(Field::Minute).map_or(0, |v| v.0);
    let second = get(Field::Second).map_or(0, |v| v.0);
    let nanos = get(Field::Fraction).map_or(Some(0), |(v, w)| {
        u32::try_from(v * 10_i64.pow(9 - w.min(9) as u32)).ok()
    })?;
    let time = NaiveTime::from_hms_nano_opt(
        u32::try_from(hour).ok()?,
        u32::try_from(minute).ok()?,
        u32::try_from(second).ok()?,
        nanos,
    )?;
    Some(date.and_time(time))
}

fn last_day(year: i32, month: u32) -> Option<u32> {
    let next = if month == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(year, month + 1, 1)?
    };
    Some((next - Duration::days(1)).day())
}

/// Java's default `y-M-d[ H:m:s[.fraction]]`, lenient.
fn parse_default(text: &str) -> Option<NaiveDateTime> {
    let mut p = Cursor { text, pos: 0 };
    let year = p.number(1, 10)?;
    p.literal("-")?;
    let month = p.number(1, 2)?;
    p.literal("-")?;
    let day = p.number(1, 2)?;
    let start = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, 1, 1)?;
    // Lenient: January 1st plus (month - 1) months plus (day - 1) days.
    let date = if month >= 1 {
        start.checked_add_months(chrono::Months::new(u32::try_from(month - 1).ok()?))?
    } else {
        start.checked_sub_months(chrono::Months::new(1))?
    };
    let date = date.checked_add_signed(Duration::days(day - 1))?;
    let midnight = date.and_time(NaiveTime::MIN);
    if p.pos == text.len() {
        return Some(midnight);
    }
    // The optional time section, all or nothing; a partial one leaves text unparsed.
    let time = (|| {
        p.literal(" ")?;
        let h = p.number(1, 2)?;
        p.literal(":")?;
        let m = p.number(1, 2)?;
        p.literal(":")?;
        let s = p.number(1, 2)?;
        let mut nanos = 0;
        if p.literal(".").is_some() {
            let at = p.pos;
            let f = p.number(1, 9)?;
            let w = p.pos - at;
            nanos = f * 10_i64.pow(9 - w as u32);
        }
        Some(
            Duration::hours(h)
                + Duration::minutes(m)
                + Duration::seconds(s)
                + Duration::nanoseconds(nanos),
        )
    })()?;
    if p.pos != text.len() {
        return None;
    }
    midnight.checked_add_signed(time)
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn number(&mut self, min: usize, max: usize) -> Option<i64> {
        let digits = self.text.as_bytes()[self.pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
            .min(max);
        if digits < min {
            return None;
        }
        let v = self.text[self.pos..self.pos + digits].parse().ok()?;
        self.pos += digits;
        Some(v)
    }

    fn literal(&mut self, l: &str) -> Option<()> {
        if self.text[self.pos..].starts_with(l) {
            self.pos += l.len();
            Some(())
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    fn one(pattern: Option<&str>, formatter: Option<&str>, value: &str) -> Option<NaiveDateTime> {
        PartitionTimeExtractor::try_new(pattern, formatter)
            .unwrap()
            .extract(&["dt".into()], &[value.into()])
    }

    #[test]
    fn default_formats_as_java() {
        assert_eq!(
            one(None, None, "2024-01-05"),
            Some(at("2024-01-05 00:00:00"))
        );
        assert_eq!(
            one(None, None, "2024-1-5 7:08:09"),
            Some(at("2024-01-05 07:08:09"))
        );
        // Lenient: month 13 is January of the next year.
        assert_eq!(
            one(None, None, "2024-13-01"),
            Some(at("2025-01-01 00:00:00"))
        );
        assert_eq!(one(None, None, "20240105"), None);
        assert_eq!(one(None, None, "2024-01-05 10"), None);
        assert_eq!(one(None, None, "abc"), None);
    }

    #[test]
    fn formatters_as_java_of_pattern() {
        assert_eq!(
            one(None, Some("yyyyMMdd"), "20240105"),
            Some(at("2024-01-05 00:00:00"))
        );
        assert_eq!(
            one(None, Some("yyyyMMddHH"), "2024010512"),
            Some(at("2024-01-05 12:00:00"))
        );
        assert_eq!(
            one(None, Some("yyyy-MM-dd HH:mm:ss"), "2024-01-05 12:30:01"),
            Some(at("2024-01-05 12:30:01"))
        );
        assert_eq!(
            one(None, Some("yyyy-MM-dd'T'HH"), "2024-01-05T03"),
            Some(at("2024-01-05 03:00:00"))
        );
        // Smart: 31 April is 30 April; month 13 is no month.
        assert_eq!(
            one(None, Some("yyyyMMdd"), "20240431"),
            Some(at("2024-04-30 00:00:00"))
        );
        assert_eq!(one(None, Some("yyyyMMdd"), "20241301"), None);
        assert_eq!(one(None, Some("yyyyMMdd"), "2024-01-05"), None);
        assert!(PartitionTimeExtractor::try_new(None, Some("dd MMM yyyy")).is_err());
    }

    #[test]
    fn pattern_puts_values_in_place() {
        let e = PartitionTimeExtractor::try_new(Some("$dt $hour:00:00"), None).unwrap();
        assert_eq!(
            e.extract(
                &["dt".into(), "hour".into()],
                &["2024-01-05".into(), "7".into()]
            ),
            Some(at("2024-01-05 07:00:00"))
        );
    }
}
