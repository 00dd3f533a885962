//! Reading back every literal form [`super::predicate_to_json`] writes, including the Jackson
//! forms Java 1.4 writes but cannot read (`DATE`, `TIME`, `TIMESTAMP`, `DECIMAL`,
//! `TIMESTAMP WITH LOCAL TIME ZONE`). Decimal and instant numbers are read from their JSON text,
//! never through a double.

use serde_json::{Map, Value};

use super::{leaf_column, leaf_predicate, literal, MAX_DEPTH, WHAT};
use crate::binary::Datum;
use crate::calendar::days_from_civil;
use crate::error::{Error, Result};
use crate::predicate::Predicate;
use crate::types::{DataType, TypeKind};

/// Parses a predicate as [`super::predicate_from_json`] does and also accepts the literal forms
/// Java writes but cannot read back (see [`super::predicate_to_json`]), so that
/// `predicate_from_json_all_types(&predicate_to_json(p, fields)?)` gives `p` back, with
/// NOT pushed into the leaves.
///
/// # Errors
/// As [`super::predicate_from_json`]; [`Error::Corrupt`] also for a temporal literal that is
/// not a valid date or time, and for a decimal literal with more digits than its column's
/// precision or scale.
pub fn predicate_from_json_all_types(json: &str) -> Result<Predicate> {
    if json.trim().is_empty() {
        return Err(Error::corrupt(WHAT, "a row filter cannot be empty"));
    }
    let mut p = Parser { text: json, pos: 0 };
    let v = p.value(0)?;
    p.skip_ws();
    if p.pos != json.len() {
        return Err(p.err("trailing characters"));
    }
    if matches!(v, Json::Null) {
        return Err(Error::corrupt(WHAT, "a row filter cannot be JSON null"));
    }
    predicate(&v, 0)
}

/// JSON with every number kept as its text (serde_json would read it through a double).
#[derive(Debug)]
enum Json<'a> {
    Null,
    Bool(bool),
    Number(&'a str),
    String(String),
    Array(Vec<Json<'a>>),
    /// Properties in order; on a repeated key the last wins, as in Java's mapper.
    Object(Vec<(String, Json<'a>)>),
}

impl Json<'_> {
    fn get(&self, key: &str) -> Option<&Self> {
        match self {
            Json::Object(props) => props.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    fn to_value(&self) -> Result<Value> {
        Ok(match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => serde_json::from_str(n)
                .map_err(|e| Error::corrupt(WHAT, format!("number {n}: {e}")))?,
            Json::String(s) => Value::String(s.clone()),
            Json::Array(a) => Value::Array(a.iter().map(Json::to_value).collect::<Result<_>>()?),
            Json::Object(props) => {
                let mut m = Map::new();
                for (k, v) in props {
                    m.insert(k.clone(), v.to_value()?);
                }
                Value::Object(m)
            }
        })
    }
}

/// Serde_json's own nesting bound.
const MAX_JSON_DEPTH: usize = 128;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, why: &str) -> Error {
        Error::corrupt(WHAT, format!("{why} at byte {}", self.pos))
    }

    fn skip_ws(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json<'a>> {
        if depth > MAX_JSON_DEPTH {
            return Err(self.err("JSON nested too deeply"));
        }
        self.skip_ws();
        let rest = &self.text[self.pos..];
        for (word, v) in [
            ("null", Json::Null),
            ("true", Json::Bool(true)),
            ("false", Json::Bool(false)),
        ] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return Ok(v);
            }
        }
        match self.peek() {
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.err("expected , or ]"));
                        }
                    }
                }
                Ok(Json::Array(items))
            }
            Some(b'{') => {
                self.pos += 1;
                let mut props = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.skip_ws();
                        let key = self.string()?;
                        if !self.eat(b':') {
                            return Err(self.err("expected :"));
                        }
                        props.push((key, self.value(depth + 1)?));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.err("expected , or }"));
                        }
                    }
                }
                Ok(Json::Object(props))
            }
            Some(b'-' | b'0'..=b'9') => {
                let len = rest
                    .find(|c: char| !matches!(c, '0'..='9' | '-' | '+' | '.' | 'e' | 'E'))
                    .unwrap_or(rest.len());
                let n = &rest[..len];
                // The grammar check is serde_json's.
                if !serde_json::from_str::<Value>(n).is_ok_and(|v| v.is_number()) {
                    return Err(self.err("invalid number"));
                }
                self.pos += len;
                Ok(Json::Number(n))
            }
            _ => Err(self.err("expected a JSON value")),
        }
    }

    /// A string token, unescaped by serde_json.
    fn string(&mut self) -> Result<String> {
        let bytes = self.text.as_bytes();
        if bytes.get(self.pos) != Some(&b'"') {
            return Err(self.err("expected a string"));
        }
        let mut i = self.pos + 1;
        loop {
            match bytes.get(i) {
                None => return Err(self.err("unterminated string")),
                Some(b'\\') => i += 2,
                Some(b'"') => break,
                Some(_) => i += 1,
            }
        }
        let token = self
            .text
            .get(self.pos..=i)
            .ok_or_else(|| self.err("bad string"))?;
        let s = serde_json::from_str::<String>(token).map_err(|e| self.err(&e.to_string()))?;
        self.pos = i + 1;
        Ok(s)
    }
}

fn predicate(n: &Json<'_>, depth: usize) -> Result<Predicate> {
    if depth > MAX_DEPTH {
        return Err(Error::corrupt(
            WHAT,
            format!("predicate nested deeper than {MAX_DEPTH}"),
        ));
    }
    if !matches!(n, Json::Object(_)) {
        return Err(Error::corrupt(WHAT, "a predicate is not an object"));
    }
    let function = |what: &str| {
        n.get("function")
            .and_then(Json::as_str)
            .ok_or_else(|| Error::corrupt(WHAT, format!("{what} without a string \"function\"")))
    };
    match n.get("kind").and_then(Json::as_str) {
        Some("LEAF") => {
            let t = n
                .get("transform")
                .ok_or_else(|| Error::corrupt(WHAT, "a leaf predicate without a transform"))?;
            let (column, ty) = leaf_column(&t.to_value()?)?;
            let function = function("a leaf predicate")?;
            let literals = match n.get("literals") {
                None | Some(Json::Null) => Vec::new(),
                Some(Json::Array(a)) => a
                    .iter()
                    .map(|l| written_literal(l, &ty, &column))
                    .collect::<Result<Vec<_>>>()?,
                Some(_) => {
                    return Err(Error::corrupt(
                        WHAT,
                        format!("literals of {column} are not a list"),
                    ))
                }
            };
            leaf_predicate(column, function, literals)
        }
        Some("COMPOUND") => {
            let function = function("a compound predicate")?;
            let Some(Json::Array(children)) = n.get("children") else {
                return Err(Error::corrupt(
                    WHAT,
                    "a compound predicate without children",
                ));
            };
            let children = children
                .iter()
                .map(|c| predicate(c, depth + 1))
                .collect::<Result<Vec<_>>>()?;
            match function {
                "AND" => Ok(Predicate::And(children)),
                "OR" => Ok(Predicate::Or(children)),
                other => Err(Error::corrupt(
                    WHAT,
                    format!("unknown compound predicate function '{other}'"),
                )),
            }
        }
        Some(other) => Err(Error::corrupt(
            WHAT,
            format!("unknown predicate kind '{other}'"),
        )),
        None => Err(Error::corrupt(
            WHAT,
            "a predicate without a string \"kind\"",
        )),
    }
}

fn written_literal(lit: &Json<'_>, ty: &DataType, column: &str) -> Result<Datum> {
    let bad = |why: &str| {
        Error::corrupt(
            WHAT,
            format!("literal {lit:?} of {column} (type {ty}): {why}"),
        )
    };
    let value = || lit.to_value();
    let number = || match lit {
        Json::Number(n) => ExactNumber::parse(n).ok_or_else(|| bad("not a number")),
        _ => Err(bad("not a number")),
    };
    if matches!(lit, Json::Null) {
        return Ok(Datum::Null);
    }
    match &ty.kind {
        TypeKind::Decimal { precision, scale } => {
            let unscaled = number()?
                .scaled(*scale)
                .ok_or_else(|| bad("does not fit the scale"))?;
            let limit = 10i128.checked_pow(*precision).unwrap_or(i128::MAX);
            if unscaled.unsigned_abs() >= limit.unsigned_abs() {
                return Err(bad("exceeds the precision"));
            }
            Ok(Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            })
        }
        TypeKind::LocalZonedTimestamp { .. } => {
            let (second, nano) = number()?
                .instant()
                .ok_or_else(|| bad("not a Jackson instant"))?;
            let millis = second
                .checked_mul(1000)
                .and_then(|m| m.checked_add(nano / 1_000_000))
                .ok_or_else(|| bad("out of range"))?;
            Ok(Datum::LocalZonedTimestamp {
                millis,
                nanos: (nano % 1_000_000) as i32,
            })
        }
        TypeKind::Date => {
            let parts = ints(&value()?).ok_or_else(|| bad("not [year, month, day]"))?;
            let [y, m, d] = parts[..] else {
                return Err(bad("not [year, month, day]"));
            };
            Ok(Datum::Date(
                i32::try_from(day_number(y, m, d).ok_or_else(|| bad("not a valid date"))?)
                    .map_err(|_| bad("out of range"))?,
            ))
        }
        TypeKind::Time { .. } => {
            let parts = ints(&value()?).ok_or_else(|| bad("not a time array"))?;
            let nanos = nano_of_day(&parts).ok_or_else(|| bad("not a valid time"))?;
            if nanos % 1_000_000 != 0 {
                return Err(bad("TIME holds milliseconds only"));
            }
            Ok(Datum::Time((nanos / 1_000_000) as i32))
        }
        TypeKind::Timestamp { .. } => {
            let parts = ints(&value()?).ok_or_else(|| bad("not a date-time array"))?;
            let (date, time) = parts
                .split_first_chunk::<3>()
                .ok_or_else(|| bad("not a date-time array"))?;
            let days = day_number(date[0], date[1], date[2]).ok_or_else(|| bad("not a date"))?;
            let nanos = nano_of_day(time).ok_or_else(|| bad("not a valid time"))?;
            let millis = days
                .checked_mul(86_400_000)
                .and_then(|m| m.checked_add(nanos / 1_000_000))
                .ok_or_else(|| bad("out of range"))?;
            Ok(Datum::Timestamp {
                millis,
                nanos: (nanos % 1_000_000) as i32,
            })
        }
        _ => literal(&value()?, ty, column),
    }
}

fn ints(v: &Value) -> Option<Vec<i64>> {
    v.as_array()?.iter().map(Value::as_i64).collect()
}

/// Days since the epoch of a valid proleptic Gregorian date within Java `LocalDate`'s range.
fn day_number(y: i64, m: i64, d: i64) -> Option<i64> {
    if !(-999_999_999..=999_999_999).contains(&y) || !(1..=12).contains(&m) || d < 1 {
        return None;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let len = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (d <= len).then(|| days_from_civil(y, m as u32, d as u32))
}

/// Nanosecond of the day of Jackson's `[hour, minute(, second(, nano))]`.
fn nano_of_day(parts: &[i64]) -> Option<i64> {
    let (h, mi, s, n) = match *parts {
        [h, mi] => (h, mi, 0, 0),
        [h, mi, s] => (h, mi, s, 0),
        [h, mi, s, n] => (h, mi, s, n),
        _ => return None,
    };
    let ok = (0..24).contains(&h)
        && (0..60).contains(&mi)
        && (0..60).contains(&s)
        && (0..1_000_000_000).contains(&n);
    ok.then(|| ((h * 60 + mi) * 60 + s) * 1_000_000_000 + n)
}

/// A JSON number kept exactly: `digits * 10^exponent`, with its sign.
#[derive(Debug, PartialEq)]
struct ExactNumber {
    negative: bool,
    /// Without leading zeros; empty for zero.
    digits: String,
    exponent: i64,
}

impl ExactNumber {
    /// Parses JSON number text (`-?int(.frac)?([eE][+-]?exp)?`).
    fn parse(text: &str) -> Option<Self> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text),
        };
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() || !all_digits(int) || !all_digits(frac) || exp.unsigned_abs() > 1000 {
            return None;
        }
        if mantissa.contains('.') && frac.is_empty() {
            return None;
        }
        let digits = format!("{int}{frac}").trim_start_matches('0').to_string();
        Some(ExactNumber {
            negative,
            digits,
            exponent: exp - frac.len() as i64,
        })
    }

    /// The value times `10^scale` when that is an integer that fits an i128.
    fn scaled(&self, scale: u32) -> Option<i128> {
        let shift = self.exponent.checked_add(i64::from(scale))?;
        let int = |digits: &str| -> Option<i128> {
            if digits.is_empty() {
                Some(0)
            } else if digits.len() > 39 {
                None
            } else {
                digits.parse().ok()
            }
        };
        let value = if shift >= 0 {
            int(&self.digits)?.checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?
        } else {
            let cut = usize::try_from(shift.unsigned_abs()).ok()?;
            let keep = self.digits.len().saturating_sub(cut);
            if !self.digits[keep..].bytes().all(|b| b == b'0') {
                return None;
            }
            int(&self.digits[..keep])?
        };
        Some(if self.negative { -value } else { value })
    }

    /// Jackson's instant number read back: the integer part (with the sign) is the epoch
    /// second, the fraction the positive nano of that second.
    fn instant(&self) -> Option<(i64, i64)> {
        let total = ExactNumber {
            negative: false,
            digits: self.digits.clone(),
            exponent: self.exponent,
        }
        .scaled(9)?;
        let second = i64::try_from(total / 1_000_000_000).ok()?;
        let nano = (total % 1_000_000_000) as i64;
        if self.negative && second == 0 && total != 0 {
            // Jackson writes any instant before 1970 with a second of -1 or less.
            return None;
        }
        Some((if self.negative { -second } else { second }, nano))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_numbers() {
        let n = ExactNumber::parse("123456789012345678901234567.8901234567").unwrap();
        assert_eq!(
            n.scaled(10),
            Some(1_234_567_890_123_456_789_012_345_678_901_234_567)
        );
        assert_eq!(ExactNumber::parse("1E-10").unwrap().scaled(10), Some(1));
        assert_eq!(
            ExactNumber::parse("1.000E-7").unwrap().scaled(10),
            Some(1000)
        );
        assert_eq!(
            ExactNumber::parse("-0.5000").unwrap().scaled(4),
            Some(-5000)
        );
        assert_eq!(ExactNumber::parse("0.00").unwrap().scaled(2), Some(0));
        assert_eq!(ExactNumber::parse("12.55").unwrap().scaled(1), None);
        assert_eq!(ExactNumber::parse("1e999").unwrap().scaled(0), None);
        for bad in ["", "-", "1.", ".5", "1e", "x", "1.2.3", "1e99999"] {
            assert_eq!(ExactNumber::parse(bad), None, "{bad}");
        }
        assert_eq!(
            ExactNumber::parse("-1.999999000").unwrap().instant(),
            Some((-1, 999_999_000))
        );
        assert_eq!(ExactNumber::parse("1E-9").unwrap().instant(), Some((0, 1)));
        assert_eq!(ExactNumber::parse("-0.5").unwrap().instant(), None);
    }

    #[test]
    fn refuses_bad_temporal_literals() {
        let leaf = |ty: &str, lit: &str| {
            format!(
                r#"{{"kind":"LEAF","transform":{{"name":"FIELD_REF","fieldRef":{{"index":0,"name":"c","type":"{ty}"}}}},"function":"EQUAL","literals":[{lit}]}}"#
            )
        };
        for (ty, lit) in [
            ("DATE", "[2024,2,30]"),
            ("DATE", "[2024,13,1]"),
            ("DATE", "[2024,1]"),
            ("DATE", "19000"),
            ("TIME(3)", "[24,0]"),
            ("TIME(3)", "[1,2,3,4]"),
            ("TIMESTAMP(6)", "[2024,1,1,0]"),
            ("TIMESTAMP(6)", "[2024,1,1,0,0,60]"),
            ("DECIMAL(5, 2)", "1234.5"),
            ("DECIMAL(5, 2)", "1.234"),
            ("DECIMAL(5, 2)", "\"1.5\""),
            ("TIMESTAMP(3) WITH LOCAL TIME ZONE", "-0.5"),
            ("TIMESTAMP(3) WITH LOCAL TIME ZONE", "1e300"),
        ] {
            let r = predicate_from_json_all_types(&leaf(ty, lit));
            assert!(matches!(r, Err(Error::Corrupt { .. })), "{ty} {lit}: {r:?}");
        }
        for bad in [
            "",
            "null",
            "{}",
            "[]",
            r#"{"kind":"COMPOUND","function":"AND"}"#,
        ] {
            assert!(predicate_from_json_all_types(bad).is_err(), "{bad}");
        }
    }
}
