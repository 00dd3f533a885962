//! Writing a [`Predicate`] as Java's Jackson form (`JsonSerdeUtil.toFlatJson` of a Java
//! `LeafPredicate` / `CompoundPredicate`), and the Java text of literals Jackson writes.

use serde_json::{json, Value};

use crate::binary::Datum;
use crate::calendar::civil_from_days;
use crate::error::{Error, Result};
use crate::predicate::{LeafOp, Predicate};
use crate::types::{DataField, DataType, TypeKind};

const WHAT: &str = "predicate JSON";

/// Writes `predicate` over a table whose row type is `fields` as Java Paimon 1.4 writes it
/// (Jackson over `LeafPredicate` / `CompoundPredicate`, field references with their index in
/// `fields`).
///
/// Java's JSON has no NOT: a [`Predicate::Not`] is pushed into its children the way Java's
/// `Predicate.negate` does (De Morgan, `<` to `>=`, `IN` to `NOT IN`, ...), which keeps SQL's
/// three-valued result; `NOT STARTS_WITH`, which Java cannot negate, becomes a range test. [`Predicate::AlwaysTrue`] / [`Predicate::AlwaysFalse`] are Java's
/// `TRUE` / `FALSE` leaf functions on the first field. Literals take Jackson's forms of Java's
/// literal objects: numbers, strings, booleans, `DATE` as `[y,m,d]`, `TIME` / `TIMESTAMP` as
/// `LocalTime` / `LocalDateTime` arrays, `DECIMAL` as the `BigDecimal.toString` number,
/// `TIMESTAMP WITH LOCAL TIME ZONE` as Jackson's `Instant` seconds number. Java cannot read the
/// last four back ([`super::predicate_from_json`] refuses them as Java does);
/// [`super::predicate_from_json_all_types`] reads every form this writes.
///
/// # Errors
/// [`Error::Unsupported`] for what Java cannot write either: literals of binary, nested or
/// variant columns, NaN and infinite floats.
/// [`Error::Encode`] when a leaf names a column not in `fields` or a literal does not have the
/// column's type.
pub fn predicate_to_json(predicate: &Predicate, fields: &[DataField]) -> Result<String> {
    predicate_text(predicate, false, fields)
}

/// Java's `BigDecimal.toString` of `unscaled * 10^-scale` (scientific when the adjusted exponent
/// is below -6, as Java does).
pub(crate) fn big_decimal_text(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let len = digits.len() as i64;
    let adjusted = len - 1 - i64::from(scale);
    if adjusted >= -6 {
        let scale = scale as usize;
        if digits.len() <= scale {
            format!("{sign}0.{}{digits}", "0".repeat(scale - digits.len()))
        } else {
            let (int, frac) = digits.split_at(digits.len() - scale);
            format!("{sign}{int}.{frac}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        format!("{sign}{first}{point}{rest}E{adjusted}")
    }
}

/// Jackson's number for a Java `Instant` (`InstantSerializer` with timestamps written as
/// numbers): the epoch second and the nano of that second joined by a point, as a
/// `BigDecimal` of scale 9 (`0.0` for the epoch itself). Before 1970 the text is the (negative)
/// floored second followed by the positive nano: -0.5 s is `-1.500000000`.
pub(crate) fn instant_text(millis: i64, nanos_of_milli: i32) -> Result<String> {
    let second = millis.div_euclid(1000);
    let nano = millis.rem_euclid(1000) * 1_000_000 + i64::from(nanos_of_milli);
    if second == 0 && nano == 0 {
        return Ok("0.0".to_string());
    }
    let whole = i128::from(second.unsigned_abs()) * 1_000_000_000 + i128::from(nano);
    let unscaled = if second < 0 { -whole } else { whole };
    if !(0..1_000_000_000).contains(&nano) {
        return Err(Error::Encode {
            what: WHAT.into(),
            reason: format!("timestamp nanos {nanos_of_milli} out of range"),
        });
    }
    Ok(big_decimal_text(unscaled, 9))
}

/// Jackson's array for a Java `LocalTime` / the time part of a `LocalDateTime`: hour and
/// minute, then the second when it or the nano is not zero, then the nano when not zero.
fn push_time(out: &mut Vec<Value>, hour: i64, minute: i64, second: i64, nano: i64) {
    out.push(hour.into());
    out.push(minute.into());
    if second != 0 || nano != 0 {
        out.push(second.into());
    }
    if nano != 0 {
        out.push(nano.into());
    }
}

fn encode_err(reason: String) -> Error {
    Error::Encode {
        what: WHAT.into(),
        reason,
    }
}

/// The JSON text of `p` (of NOT `p` when `negated`). Written as text, not as a serde_json
/// value, so that decimal and instant literals keep Java's digits.
fn predicate_text(p: &Predicate, negated: bool, fields: &[DataField]) -> Result<String> {
    match (p, negated) {
        (Predicate::Not(inner), n) => predicate_text(inner, !n, fields),
        (Predicate::And(children), false) | (Predicate::Or(children), true) => {
            compound("AND", children, negated, fields)
        }
        (Predicate::Or(children), false) | (Predicate::And(children), true) => {
            compound("OR", children, negated, fields)
        }
        (Predicate::AlwaysTrue, false) | (Predicate::AlwaysFalse, true) => constant("TRUE", fields),
        (Predicate::AlwaysFalse, false) | (Predicate::AlwaysTrue, true) => {
            constant("FALSE", fields)
        }
        (
            Predicate::Leaf {
                column,
                op: LeafOp::StartsWith,
                literals,
            },
            true,
        ) => predicate_text(&not_starts_with(column, literals)?, false, fields),
        (
            Predicate::Leaf {
                column,
                op,
                literals,
            },
            n,
        ) => {
            let op = if n { negate(*op, column)? } else { *op };
            leaf(column, op, literals, fields)
        }
    }
}

fn compound(
    function: &str,
    children: &[Predicate],
    negated: bool,
    fields: &[DataField],
) -> Result<String> {
    let children = children
        .iter()
        .map(|c| predicate_text(c, negated, fields))
        .collect::<Result<Vec<_>>>()?;
    Ok(format!(
        r#"{{"kind":"COMPOUND","function":"{function}","children":[{}]}}"#,
        children.join(",")
    ))
}

/// `NOT column STARTS WITH prefix` without NOT (Java's `StartsWith` has no negation): the
/// strings starting with `prefix` are exactly those in `[prefix, next)`, where `next` is
/// `prefix` with its last character that can be incremented incremented and what follows
/// dropped (strings compare by UTF-8 bytes, which is code point order). A null column stays
/// unknown; with NOT pushed to the leaves, unknown and false reject a row alike, so the empty
/// prefix (every string starts with it) is FALSE.
fn not_starts_with(column: &str, literals: &[Datum]) -> Result<Predicate> {
    let prefix = match literals {
        [Datum::String(p)] => p,
        [Datum::Null] => return Ok(Predicate::AlwaysFalse),
        _ => {
            return Err(encode_err(format!(
                "STARTS_WITH on {column} takes one string literal, not {literals:?}"
            )))
        }
    };
    if prefix.is_empty() {
        return Ok(Predicate::AlwaysFalse);
    }
    let below = Predicate::leaf(column, LeafOp::Lt, vec![Datum::String(prefix.clone())]);
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            let above = Predicate::leaf(
                column,
                LeafOp::GtEq,
                vec![Datum::String(chars.into_iter().collect())],
            );
            return Ok(Predicate::Or(vec![below, above]));
        }
    }
    // Only U+10FFFF characters: nothing above the prefixed strings.
    Ok(below)
}

/// Java `LeafFunction.negate()`: the function that holds exactly where this one is false.
fn negate(op: LeafOp, column: &str) -> Result<LeafOp> {
    Ok(match op {
        LeafOp::Eq => LeafOp::NotEq,
        LeafOp::NotEq => LeafOp::Eq,
        LeafOp::Lt => LeafOp::GtEq,
        LeafOp::GtEq => LeafOp::Lt,
        LeafOp::Gt => LeafOp::LtEq,
        LeafOp::LtEq => LeafOp::Gt,
        LeafOp::IsNull => LeafOp::IsNotNull,
        LeafOp::IsNotNull => LeafOp::IsNull,
        LeafOp::In => LeafOp::NotIn,
        LeafOp::NotIn => LeafOp::In,
        LeafOp::StartsWith => {
            return Err(Error::Internal(format!(
                "NOT over STARTS_WITH on {column} is rewritten before negating functions"
            )))
        }
    })
}

fn function_name(op: LeafOp) -> &'static str {
    match op {
        LeafOp::Eq => "EQUAL",
        LeafOp::NotEq => "NOT_EQUAL",
        LeafOp::Lt => "LESS_THAN",
        LeafOp::LtEq => "LESS_OR_EQUAL",
        LeafOp::Gt => "GREATER_THAN",
        LeafOp::GtEq => "GREATER_OR_EQUAL",
        LeafOp::IsNull => "IS_NULL",
        LeafOp::IsNotNull => "IS_NOT_NULL",
        LeafOp::In => "IN",
        LeafOp::NotIn => "NOT_IN",
        LeafOp::StartsWith => "STARTS_WITH",
    }
}

fn field_ref(index: usize, field: &DataField) -> Value {
    json!({
        "name": "FIELD_REF",
        "fieldRef": {"index": index, "name": field.name, "type": field.data_type.to_json()},
    })
}

fn constant(function: &str, fields: &[DataField]) -> Result<String> {
    let first = fields
        .first()
        .ok_or_else(|| encode_err("a constant predicate over a row type without fields".into()))?;
    Ok(leaf_text(0, first, function, &[]))
}

fn leaf_text(index: usize, field: &DataField, function: &str, literals: &[String]) -> String {
    format!(
        r#"{{"kind":"LEAF","transform":{},"function":"{function}","literals":[{}]}}"#,
        field_ref(index, field),
        literals.join(",")
    )
}

fn leaf(column: &str, op: LeafOp, literals: &[Datum], fields: &[DataField]) -> Result<String> {
    let (index, field) = fields
        .iter()
        .enumerate()
        .find(|(_, f)| f.name == column)
        .ok_or_else(|| encode_err(format!("the filter names {column}, not in the row type")))?;
    let literals = literals
        .iter()
        .map(|d| literal(d, &field.data_type, column))
        .collect::<Result<Vec<_>>>()?;
    Ok(leaf_text(index, field, function_name(op), &literals))
}

/// The JSON text of one literal.
fn literal(d: &Datum, ty: &DataType, column: &str) -> Result<String> {
    let mismatch = || {
        encode_err(format!(
            "literal {d:?} does not have the type {ty} of {column}"
        ))
    };
    let unsupported = || {
        Error::unsupported(format!(
            "a predicate JSON literal of type {ty} (on {column}): Java cannot write it"
        ))
    };
    let value: Value = match (&ty.kind, d) {
        (_, Datum::Null) => Value::Null,
        (TypeKind::Boolean, Datum::Boolean(b)) => Value::Bool(*b),
        (TypeKind::TinyInt, Datum::TinyInt(v)) => (*v).into(),
        (TypeKind::SmallInt, Datum::SmallInt(v)) => (*v).into(),
        (TypeKind::Int, Datum::Int(v)) => (*v).into(),
        (TypeKind::BigInt, Datum::BigInt(v)) => (*v).into(),
        (TypeKind::Float, Datum::Float(v)) => {
            if !v.is_finite() {
                return Err(unsupported());
            }
            // The shortest text of the f32, so that reading it as a double and narrowing gives
            // the same float back.
            return Ok(v.to_string());
        }
        (TypeKind::Double, Datum::Double(v)) => {
            if !v.is_finite() {
                return Err(unsupported());
            }
            (*v).into()
        }
        (TypeKind::Char { .. } | TypeKind::VarChar { .. }, Datum::String(s)) => {
            Value::String(s.clone())
        }
        (
            TypeKind::Decimal { precision, scale },
            Datum::Decimal {
                unscaled,
                precision: p,
                scale: s,
            },
        ) => {
            if p != precision || s != scale {
                return Err(mismatch());
            }
            return Ok(big_decimal_text(*unscaled, *scale));
        }
        (TypeKind::Date, Datum::Date(days)) => {
            let (y, m, d) = civil_from_days(i64::from(*days));
            json!([y, m, d])
        }
        (TypeKind::Time { .. }, Datum::Time(ms)) => {
            let ms = i64::from(*ms);
            if !(0..86_400_000).contains(&ms) {
                return Err(mismatch());
            }
            let mut out = Vec::new();
            push_time(
                &mut out,
                ms / 3_600_000,
                ms / 60_000 % 60,
                ms / 1000 % 60,
                ms % 1000 * 1_000_000,
            );
            Value::Array(out)
        }
        (TypeKind::Timestamp { .. }, Datum::Timestamp { millis, nanos }) => {
            if !(0..1_000_000).contains(nanos) {
                return Err(mismatch());
            }
            let days = millis.div_euclid(86_400_000);
            let ms = millis.rem_euclid(86_400_000);
            let (y, m, d) = civil_from_days(days);
            let mut out = vec![y.into(), m.into(), d.into()];
            push_time(
                &mut out,
                ms / 3_600_000,
                ms / 60_000 % 60,
                ms / 1000 % 60,
                ms % 1000 * 1_000_000 + i64::from(*nanos),
            );
            Value::Array(out)
        }
        (TypeKind::LocalZonedTimestamp { .. }, Datum::LocalZonedTimestamp { millis, nanos }) => {
            if !(0..1_000_000).contains(nanos) {
                return Err(mismatch());
            }
            return instant_text(*millis, *nanos);
        }
        (
            TypeKind::Binary { .. }
            | TypeKind::VarBinary { .. }
            | TypeKind::Blob
            | TypeKind::Variant
            | TypeKind::Spatial { .. }
            | TypeKind::Array(_)
            | TypeKind::Map { .. }
            | TypeKind::Multiset(_)
            | TypeKind::Row(_)
            | TypeKind::Vector { .. },
            _,
        ) => return Err(unsupported()),
        _ => return Err(mismatch()),
    };
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_starts_with_is_a_range() {
        let s = |v: &str| Datum::String(v.into());
        let range = |lo: &str, hi: &str| {
            Predicate::Or(vec![
                Predicate::leaf("c", LeafOp::Lt, vec![s(lo)]),
                Predicate::leaf("c", LeafOp::GtEq, vec![s(hi)]),
            ])
        };
        assert_eq!(not_starts_with("c", &[s("ab")]).unwrap(), range("ab", "ac"));
        // U+D7FF is followed by U+E000 (surrogates are no characters); U+10FFFF by nothing.
        assert_eq!(
            not_starts_with("c", &[s("a\u{d7ff}")]).unwrap(),
            range("a\u{d7ff}", "a\u{e000}")
        );
        assert_eq!(
            not_starts_with("c", &[s("a\u{10ffff}")]).unwrap(),
            range("a\u{10ffff}", "b")
        );
        assert_eq!(
            not_starts_with("c", &[s("\u{10ffff}")]).unwrap(),
            Predicate::leaf("c", LeafOp::Lt, vec![s("\u{10ffff}")])
        );
        assert_eq!(
            not_starts_with("c", &[s("")]).unwrap(),
            Predicate::AlwaysFalse
        );
    }

    #[test]
    fn java_big_decimal_text() {
        // Java's BigDecimal.toString of these (unscaled, scale) pairs.
        for (unscaled, scale, text) in [
            (125000, 4, "12.5000"),
            (10000, 2, "100.00"),
            (0, 2, "0.00"),
            (-5000, 4, "-0.5000"),
            (1, 10, "1E-10"),
            (10000, 10, "0.0000010000"),
            (1000, 10, "1.000E-7"),
            (123, 0, "123"),
        ] {
            assert_eq!(big_decimal_text(unscaled, scale), text);
        }
    }

    #[test]
    fn jackson_instant_text() {
        // Jackson's text of these instants, as the Java oracle printed them.
        assert_eq!(instant_text(0, 0).unwrap(), "0.0");
        assert_eq!(
            instant_text(1_704_164_645_000, 0).unwrap(),
            "1704164645.000000000"
        );
        assert_eq!(instant_text(-1000, 0).unwrap(), "-1.000000000");
        assert_eq!(instant_text(-500, 0).unwrap(), "-1.500000000");
        assert_eq!(instant_text(-1, 999_000).unwrap(), "-1.999999000");
        assert_eq!(instant_text(0, 1).unwrap(), "1E-9");
    }
}
