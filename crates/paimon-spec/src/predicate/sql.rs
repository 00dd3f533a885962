//! SQL filter text (`a > 5 AND dt = DATE '2024-01-01'`) parsed with `sqlparser` into a typed
//! [`Predicate`], shared by the `paimon` command, the Python package and engines.
//!
//! Supported: comparisons (`= <> != < <= > >=`) between a column and a literal (either side),
//! `AND`, `OR`, `NOT`, `IN (...)`, `BETWEEN`, `IS [NOT] NULL`, `LIKE 'prefix%'`, and typed
//! literals `DATE '...'`, `TIMESTAMP '...'`, numbers (as decimals for DECIMAL columns).

use sqlparser::ast::{BinaryOperator, Expr, InTarget, UnaryOperator, Value};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

use crate::binary::Datum;
use crate::error::{Error, Result};
use crate::predicate::{typed_literal, LeafOp, Predicate};
use crate::schema::TableSchema;
use crate::types::{DataType, TypeKind};

/// Internal result: the reason text, wrapped into [`Error::InvalidFilter`] once at the top.
type R<T> = std::result::Result<T, String>;

/// Parses `text` against `schema`'s columns.
///
/// ```
/// use paimon_spec::predicate::{sql::parse_sql_filter, LeafOp, Predicate};
/// use paimon_spec::binary::Datum;
/// use paimon_spec::schema::TableSchema;
/// let schema = TableSchema::from_json_str(r#"{"version":3,"id":0,
///     "fields":[{"id":0,"name":"a","type":"INT"}],
///     "partitionKeys":[],"primaryKeys":[],"options":{}}"#).unwrap();
/// let p = parse_sql_filter("a > 5", &schema).unwrap();
/// assert_eq!(p, Predicate::leaf("a", LeafOp::Gt, vec![Datum::Int(5)]));
/// assert!(parse_sql_filter("b > 5", &schema).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidFilter`] naming the unsupported construct, unknown column or ill-typed
/// literal.
pub fn parse_sql_filter(text: &str, schema: &TableSchema) -> Result<Predicate> {
    let invalid = |reason: String| Error::InvalidFilter {
        filter: text.to_string(),
        reason,
    };
    let dialect = GenericDialect {};
    let expr = Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| invalid(e.to_string()))?;
    convert(&expr, schema).map_err(invalid)
}

fn convert(e: &Expr, schema: &TableSchema) -> R<Predicate> {
    match e {
        Expr::Nested(inner) => convert(inner, schema),
        Expr::BinaryOp { left, op, right } => match op {
            BinaryOperator::And => Ok(Predicate::and(vec![
                convert(left, schema)?,
                convert(right, schema)?,
            ])),
            BinaryOperator::Or => Ok(Predicate::Or(vec![
                convert(left, schema)?,
                convert(right, schema)?,
            ])),
            _ => {
                let cmp = match op {
                    BinaryOperator::Eq => LeafOp::Eq,
                    BinaryOperator::NotEq => LeafOp::NotEq,
                    BinaryOperator::Lt => LeafOp::Lt,
                    BinaryOperator::LtEq => LeafOp::LtEq,
                    BinaryOperator::Gt => LeafOp::Gt,
                    BinaryOperator::GtEq => LeafOp::GtEq,
                    other => return Err(format!("unsupported operator {other}")),
                };
                if let Some(col) = column(left) {
                    let ty = column_type(schema, &col)?;
                    Ok(Predicate::leaf(col, cmp, vec![literal(right, &ty)?]))
                } else if let Some(col) = column(right) {
                    let ty = column_type(schema, &col)?;
                    Ok(Predicate::leaf(col, flip(cmp), vec![literal(left, &ty)?]))
                } else {
                    Err(format!("a comparison needs a column on one side: {e}"))
                }
            }
        },
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => Ok(Predicate::Not(Box::new(convert(expr, schema)?))),
        Expr::IsNull(inner) | Expr::IsNotNull(inner) => {
            let col = column(inner).ok_or_else(|| format!("IS NULL needs a column: {e}"))?;
            column_type(schema, &col)?;
            let op = if matches!(e, Expr::IsNull(_)) {
                LeafOp::IsNull
            } else {
                LeafOp::IsNotNull
            };
            Ok(Predicate::leaf(col, op, vec![]))
        }
        Expr::In {
            expr,
            target: InTarget::List(list),
            negated,
            ..
        } => {
            let col = column(expr).ok_or_else(|| format!("IN needs a column: {e}"))?;
            let ty = column_type(schema, &col)?;
            let lits = list
                .iter()
                .map(|l| literal(l, &ty))
                .collect::<R<Vec<_>>>()?;
            let op = if *negated { LeafOp::NotIn } else { LeafOp::In };
            Ok(Predicate::leaf(col, op, lits))
        }
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => {
            let col = column(expr).ok_or_else(|| format!("BETWEEN needs a column: {e}"))?;
            let ty = column_type(schema, &col)?;
            let p = Predicate::and(vec![
                Predicate::leaf(col.clone(), LeafOp::GtEq, vec![literal(low, &ty)?]),
                Predicate::leaf(col, LeafOp::LtEq, vec![literal(high, &ty)?]),
            ]);
            Ok(if *negated {
                Predicate::Not(Box::new(p))
            } else {
                p
            })
        }
        Expr::Like {
            negated,
            expr,
            pattern,
            escape_char: None,
            any: false,
        } => {
            let col = column(expr).ok_or_else(|| format!("LIKE needs a column: {e}"))?;
            let ty = column_type(schema, &col)?;
            if !matches!(ty.kind, TypeKind::Char { .. } | TypeKind::VarChar { .. }) {
                return Err(format!("LIKE needs a string column, '{col}' is {ty}"));
            }
            let Some(pat) = string_value(pattern) else {
                return Err("LIKE needs a string pattern".to_string());
            };
            let prefix = pat
                .strip_suffix('%')
                .filter(|p| !p.contains(['%', '_']))
                .ok_or_else(|| format!("only LIKE 'prefix%' is supported, got '{pat}'"))?;
            let p = Predicate::leaf(
                col,
                LeafOp::StartsWith,
                vec![Datum::String(prefix.to_string())],
            );
            Ok(if *negated {
                Predicate::Not(Box::new(p))
            } else {
                p
            })
        }
        Expr::Value(v) if matches!(v.value, Value::Boolean(true)) => Ok(Predicate::AlwaysTrue),
        Expr::Value(v) if matches!(v.value, Value::Boolean(false)) => Ok(Predicate::AlwaysFalse),
        other => Err(format!("unsupported expression {other}")),
    }
}

fn flip(op: LeafOp) -> LeafOp {
    match op {
        LeafOp::Lt => LeafOp::Gt,
        LeafOp::LtEq => LeafOp::GtEq,
        LeafOp::Gt => LeafOp::Lt,
        LeafOp::GtEq => LeafOp::LtEq,
        other => other,
    }
}

fn column(e: &Expr) -> Option<String> {
    match e {
        Expr::Identifier(id) => Some(id.value.clone()),
        Expr::Nested(inner) => column(inner),
        _ => None,
    }
}

fn column_type(schema: &TableSchema, name: &str) -> R<DataType> {
    schema
        .field(name)
        .map(|f| f.data_type.clone())
        .or_else(|| match name {
            "_ROW_ID" | "_SEQUENCE_NUMBER" => Some(DataType::nullable(TypeKind::BigInt)),
            _ => None,
        })
        .ok_or_else(|| format!("unknown column '{name}'"))
}

fn string_value(e: &Expr) -> Option<String> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        Expr::TypedString(ts) => match &ts.value.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The literal text of `e` (numbers keep their sign), and whether it was a number.
fn literal_text(e: &Expr) -> R<(String, bool)> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => Ok((n.to_string(), true)),
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Ok((s.clone(), false)),
            Value::Boolean(b) => Ok((b.to_string(), false)),
            other => Err(format!("unsupported literal {other}")),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => {
            let (t, num) = literal_text(expr)?;
            if !num {
                return Err(format!("cannot negate '{t}'"));
            }
            Ok((format!("-{t}"), true))
        }
        Expr::Nested(inner) => literal_text(inner),
        Expr::TypedString(_) => Ok((string_value(e).unwrap_or_default(), false)),
        other => Err(format!("expected a literal, found {other}")),
    }
}

/// Converts a literal expression to a datum of the column's type.
fn literal(e: &Expr, ty: &DataType) -> R<Datum> {
    if let Expr::Value(v) = e {
        if matches!(v.value, Value::Null) {
            return Ok(Datum::Null);
        }
    }
    let (text, _) = literal_text(e)?;
    typed_literal(&text, ty).ok_or_else(|| format!("'{text}' is not a valid {ty} literal"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, schema: &TableSchema) -> Result<Predicate> {
        parse_sql_filter(text, schema)
    }

    fn schema() -> TableSchema {
        TableSchema::from_json_str(
            r#"{"version":3,"id":0,"fields":[
              {"id":0,"name":"a","type":"INT"},{"id":1,"name":"s","type":"STRING"},
              {"id":2,"name":"d","type":"DECIMAL(10, 2)"},{"id":3,"name":"dt","type":"DATE"},
              {"id":4,"name":"ts","type":"TIMESTAMP(6)"}],
              "partitionKeys":[],"primaryKeys":[],"options":{}}"#,
        )
        .unwrap()
    }

    #[test]
    fn parses_the_supported_grammar() {
        let s = schema();
        let p = parse(
            "a > 5 AND s LIKE 'ab%' OR d IN (1.5, -2) AND dt = DATE '2024-01-01'",
            &s,
        )
        .unwrap();
        let Predicate::Or(parts) = p else {
            panic!("{p:?}")
        };
        assert_eq!(
            parts[0],
            Predicate::And(vec![
                Predicate::leaf("a", LeafOp::Gt, vec![Datum::Int(5)]),
                Predicate::leaf("s", LeafOp::StartsWith, vec![Datum::String("ab".into())]),
            ])
        );
        let Predicate::And(right) = &parts[1] else {
            panic!()
        };
        assert_eq!(
            right[0],
            Predicate::leaf(
                "d",
                LeafOp::In,
                vec![
                    Datum::Decimal {
                        unscaled: 150,
                        precision: 10,
                        scale: 2
                    },
                    Datum::Decimal {
                        unscaled: -200,
                        precision: 10,
                        scale: 2
                    },
                ]
            )
        );
        assert_eq!(
            right[1],
            Predicate::leaf("dt", LeafOp::Eq, vec![Datum::Date(19723)])
        );
        assert_eq!(
            parse("5 < a", &s).unwrap(),
            Predicate::leaf("a", LeafOp::Gt, vec![Datum::Int(5)])
        );
        assert_eq!(
            parse("ts >= TIMESTAMP '1970-01-01 00:00:01.000002'", &s).unwrap(),
            Predicate::leaf(
                "ts",
                LeafOp::GtEq,
                vec![Datum::Timestamp {
                    millis: 1000,
                    nanos: 2000
                }]
            )
        );
    }

    #[test]
    fn rejects_what_it_cannot_type() {
        let s = schema();
        assert!(parse("nope = 1", &s).is_err());
        assert!(parse("a = 'x'", &s).is_err());
        assert!(parse("s LIKE '%x'", &s).is_err());
        assert!(parse("d = 1.234", &s).is_err());
        assert!(parse("a +", &s).is_err());
    }
}
