//! DataFusion filter expressions as Paimon [`Predicate`]s.
//!
//! A filter that translates is given to the planner (partition, bucket and file pruning) and
//! to the reader, which applies it exactly to every row ([`paimon_data::SplitReader`]). It is
//! reported [`Exact`](TableProviderFilterPushDown::Exact) when Paimon's evaluation agrees with
//! DataFusion's on every value, and `Inexact` (pruning only; DataFusion filters again) when it
//! may not: comparisons of FLOAT and DOUBLE columns, whose NaN ordering differs.
//! What does not translate is `Unsupported` and left to DataFusion.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{
    Between, BinaryExpr, Expr, Like, Operator, TableProviderFilterPushDown,
};
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::schema::TableSchema;
use paimon_spec::types::{DataType, TypeKind};

/// A translated filter and whether the reader evaluates it exactly as DataFusion would.
#[derive(Debug, Clone, PartialEq)]
pub struct Translated {
    /// The Paimon predicate.
    pub predicate: Predicate,
    /// Whether DataFusion may drop its own filter.
    pub exact: bool,
}

/// How `expr` can be pushed into a scan of a table with `schema`.
pub fn pushdown_kind(expr: &Expr, schema: &TableSchema) -> TableProviderFilterPushDown {
    match translate(expr, schema) {
        Some(t) if t.exact => TableProviderFilterPushDown::Exact,
        Some(_) => TableProviderFilterPushDown::Inexact,
        None => TableProviderFilterPushDown::Unsupported,
    }
}

/// The conjunction of every filter among `filters` that translates (the others are left to
/// DataFusion, which [`pushdown_kind`] told so).
pub fn translate_all(filters: &[Expr], schema: &TableSchema) -> Option<Predicate> {
    let preds: Vec<Predicate> = filters
        .iter()
        .filter_map(|f| translate(f, schema))
        .map(|t| t.predicate)
        .collect();
    (!preds.is_empty()).then(|| Predicate::and(preds))
}

/// `expr` as a Paimon predicate over `schema`'s columns, or `None` when some part of it has
/// no Paimon equivalent.
pub fn translate(expr: &Expr, schema: &TableSchema) -> Option<Translated> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And | Operator::Or => {
                let (l, r) = (translate(left, schema)?, translate(right, schema)?);
                let children = vec![l.predicate, r.predicate];
                Some(Translated {
                    predicate: if *op == Operator::And {
                        Predicate::And(children)
                    } else {
                        Predicate::Or(children)
                    },
                    exact: l.exact && r.exact,
                })
            }
            _ => comparison(left, *op, right, schema),
        },
        Expr::Not(inner) => {
            let t = translate(inner, schema)?;
            Some(Translated {
                predicate: Predicate::Not(Box::new(t.predicate)),
                exact: t.exact,
            })
        }
        Expr::IsNull(inner) | Expr::IsNotNull(inner) => {
            let (name, _) = column(inner, schema)?;
            let op = if matches!(expr, Expr::IsNull(_)) {
                LeafOp::IsNull
            } else {
                LeafOp::IsNotNull
            };
            Some(Translated {
                predicate: Predicate::leaf(name, op, vec![]),
                exact: true,
            })
        }
        Expr::InList(list) => {
            let (name, ty) = column(&list.expr, schema)?;
            let literals = list
                .list
                .iter()
                .map(|e| literal(e).and_then(|v| to_datum(v, ty)))
                .collect::<Option<Vec<_>>>()?;
            if literals.is_empty() {
                return None;
            }
            let op = if list.negated {
                LeafOp::NotIn
            } else {
                LeafOp::In
            };
            Some(Translated {
                predicate: Predicate::leaf(name, op, literals),
                exact: exact_type(ty),
            })
        }
        Expr::Between(Between {
            expr,
            negated,
            low,
            high,
        }) => {
            let lo = comparison(expr, Operator::GtEq, low, schema)?;
            let hi = comparison(expr, Operator::LtEq, high, schema)?;
            let both = Predicate::And(vec![lo.predicate, hi.predicate]);
            Some(Translated {
                predicate: if *negated {
                    Predicate::Not(Box::new(both))
                } else {
                    both
                },
                exact: lo.exact && hi.exact,
            })
        }
        Expr::Like(like) => starts_with(like, schema),
        _ => None,
    }
}

/// `column op literal` or `literal op column`.
fn comparison(left: &Expr, op: Operator, right: &Expr, schema: &TableSchema) -> Option<Translated> {
    let (name, ty, value, op) = match (column(left, schema), column(right, schema)) {
        (Some((name, ty)), None) => (name, ty, literal(right)?, op),
        (None, Some((name, ty))) => (name, ty, literal(left)?, op.swap()?),
        _ => return None,
    };
    let leaf = match op {
        Operator::Eq => LeafOp::Eq,
        Operator::NotEq => LeafOp::NotEq,
        Operator::Lt => LeafOp::Lt,
        Operator::LtEq => LeafOp::LtEq,
        Operator::Gt => LeafOp::Gt,
        Operator::GtEq => LeafOp::GtEq,
        _ => return None,
    };
    Some(Translated {
        predicate: Predicate::leaf(name, leaf, vec![to_datum(value, ty)?]),
        exact: exact_type(ty),
    })
}

/// `column LIKE 'prefix%'` with no other wildcard, case-sensitive, not negated.
fn starts_with(like: &Like, schema: &TableSchema) -> Option<Translated> {
    if like.negated || like.case_insensitive || like.escape_char.is_some() {
        return None;
    }
    let (name, ty) = column(&like.expr, schema)?;
    if !matches!(ty.kind, TypeKind::Char { .. } | TypeKind::VarChar { .. }) {
        return None;
    }
    let pattern = match literal(&like.pattern)? {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => s,
        _ => return None,
    };
    let prefix = pattern.strip_suffix('%')?;
    if prefix.contains(['%', '_', '\\']) {
        return None;
    }
    Some(Translated {
        predicate: Predicate::leaf(name, LeafOp::StartsWith, vec![Datum::String(prefix.into())]),
        exact: true,
    })
}

/// Comparisons on these types evaluate in Paimon exactly as in DataFusion.
fn exact_type(ty: &DataType) -> bool {
    !matches!(ty.kind, TypeKind::Float | TypeKind::Double)
}

/// A bare column of the table (not `rowkind` or another column Paimon does not store).
fn column<'a>(e: &Expr, schema: &'a TableSchema) -> Option<(&'a str, &'a DataType)> {
    match e {
        Expr::Column(c) => schema
            .field(&c.name)
            .map(|f| (f.name.as_str(), &f.data_type)),
        _ => None,
    }
}

fn literal(e: &Expr) -> Option<&ScalarValue> {
    match e {
        Expr::Literal(v, _) if !v.is_null() => Some(v),
        _ => None,
    }
}

/// `v` as a value of `ty`, when it converts without loss.
pub fn to_datum(v: &ScalarValue, ty: &DataType) -> Option<Datum> {
    use ScalarValue as S;
    let int = || -> Option<i128> {
        Some(match v {
            S::Int8(Some(x)) => i128::from(*x),
            S::Int16(Some(x)) => i128::from(*x),
            S::Int32(Some(x)) => i128::from(*x),
            S::Int64(Some(x)) => i128::from(*x),
            S::UInt8(Some(x)) => i128::from(*x),
            S::UInt16(Some(x)) => i128::from(*x),
            S::UInt32(Some(x)) => i128::from(*x),
            S::UInt64(Some(x)) => i128::from(*x),
            _ => return None,
        })
    };
    Some(match &ty.kind {
        TypeKind::Boolean => match v {
            S::Boolean(Some(b)) => Datum::Boolean(*b),
            _ => return None,
        },
        TypeKind::TinyInt => Datum::TinyInt(i8::try_from(int()?).ok()?),
        TypeKind::SmallInt => Datum::SmallInt(i16::try_from(int()?).ok()?),
        TypeKind::Int => Datum::Int(i32::try_from(int()?).ok()?),
        TypeKind::BigInt => Datum::BigInt(i64::try_from(int()?).ok()?),
        TypeKind::Float => match v {
            S::Float32(Some(x)) => Datum::Float(*x),
            _ => return None,
        },
        TypeKind::Double => match v {
            S::Float64(Some(x)) => Datum::Double(*x),
            S::Float32(Some(x)) => Datum::Double(f64::from(*x)),
            _ => return None,
        },
        TypeKind::Decimal { precision, scale } => {
            let (unscaled, from_scale) = match v {
                S::Decimal128(Some(u), _, s) => (*u, i32::from(*s)),
                _ => (int()?, 0),
            };
            let up = i32::try_from(*scale).ok()?.checked_sub(from_scale)?;
            let unscaled = unscaled.checked_mul(10i128.checked_pow(u32::try_from(up).ok()?)?)?;
            let limit = 10i128.checked_pow(*precision)?;
            if unscaled.abs() >= limit {
                return None;
            }
            Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            }
        }
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => match v {
            S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s)) => {
                Datum::String(s.clone())
            }
            _ => return None,
        },
        TypeKind::Binary { .. } | TypeKind::VarBinary { .. } => match v {
            S::Binary(Some(b))
            | S::LargeBinary(Some(b))
            | S::BinaryView(Some(b))
            | S::FixedSizeBinary(_, Some(b)) => Datum::Binary(b.clone()),
            _ => return None,
        },
        TypeKind::Date => match v {
            S::Date32(Some(d)) => Datum::Date(*d),
            _ => return None,
        },
        TypeKind::Timestamp { .. } => {
            let (millis, nanos) = timestamp(v, false)?;
            Datum::Timestamp { millis, nanos }
        }
        TypeKind::LocalZonedTimestamp { .. } => {
            let (millis, nanos) = timestamp(v, true)?;
            Datum::LocalZonedTimestamp { millis, nanos }
        }
        _ => return None,
    })
}

/// A timestamp literal as (millis, nanos within the milli); `zoned` literals must carry a
/// time zone (an instant), plain ones must not (a wall-clock time).
fn timestamp(v: &ScalarValue, zoned: bool) -> Option<(i64, i32)> {
    use ScalarValue as S;
    let (value, per_milli, tz) = match v {
        S::TimestampSecond(Some(x), tz) => (i128::from(*x) * 1_000_000, 1_000_000, tz),
        S::TimestampMillisecond(Some(x), tz) => (i128::from(*x) * 1_000_000, 1_000_000, tz),
        S::TimestampMicrosecond(Some(x), tz) => (i128::from(*x) * 1_000, 1_000_000, tz),
        S::TimestampNanosecond(Some(x), tz) => (i128::from(*x), 1_000_000, tz),
        _ => return None,
    };
    if tz.is_some() != zoned {
        return None;
    }
    let millis = i64::try_from(value.div_euclid(per_milli)).ok()?;
    let nanos = i32::try_from(value.rem_euclid(per_milli)).ok()?;
    Some((millis, nanos))
}

/// `p` in SQL-like text, for `EXPLAIN` and error messages.
pub fn display(p: &Predicate) -> String {
    let join = |children: &[Predicate], sep: &str| {
        let parts: Vec<String> = children
            .iter()
            .map(|c| format!("({})", display(c)))
            .collect();
        parts.join(sep)
    };
    match p {
        Predicate::AlwaysTrue => "TRUE".into(),
        Predicate::AlwaysFalse => "FALSE".into(),
        Predicate::And(c) => join(c, " AND "),
        Predicate::Or(c) => join(c, " OR "),
        Predicate::Not(c) => format!("NOT ({})", display(c)),
        Predicate::Leaf {
            column,
            op,
            literals,
        } => {
            let values: Vec<String> = literals.iter().map(display_datum).collect();
            let one = values.first().cloned().unwrap_or_default();
            match op {
                LeafOp::Eq => format!("{column} = {one}"),
                LeafOp::NotEq => format!("{column} <> {one}"),
                LeafOp::Lt => format!("{column} < {one}"),
                LeafOp::LtEq => format!("{column} <= {one}"),
                LeafOp::Gt => format!("{column} > {one}"),
                LeafOp::GtEq => format!("{column} >= {one}"),
                LeafOp::IsNull => format!("{column} IS NULL"),
                LeafOp::IsNotNull => format!("{column} IS NOT NULL"),
                LeafOp::In => format!("{column} IN ({})", values.join(", ")),
                LeafOp::NotIn => format!("{column} NOT IN ({})", values.join(", ")),
                LeafOp::StartsWith => format!("{column} STARTS WITH {one}"),
            }
        }
    }
}

fn display_datum(d: &Datum) -> String {
    match d {
        Datum::String(s) => format!("'{}'", s.replace('\'', "''")),
        Datum::Boolean(b) => b.to_string(),
        Datum::TinyInt(v) => v.to_string(),
        Datum::SmallInt(v) => v.to_string(),
        Datum::Int(v) => v.to_string(),
        Datum::BigInt(v) => v.to_string(),
        Datum::Float(v) => v.to_string(),
        Datum::Double(v) => v.to_string(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::{col, lit};
    use paimon_spec::types::DataField;

    fn schema() -> TableSchema {
        let fields = vec![
            DataField::new(0, "id", DataType::nullable(TypeKind::BigInt)),
            DataField::new(
                1,
                "name",
                DataType::nullable(TypeKind::VarChar { length: 100 }),
            ),
            DataField::new(2, "score", DataType::nullable(TypeKind::Double)),
            DataField::new(
                3,
                "amount",
                DataType::nullable(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
            ),
            DataField::new(4, "small", DataType::nullable(TypeKind::Int)),
        ];
        let json = serde_json::json!({
            "version": 3, "id": 0, "fields": fields.iter().map(DataField::to_json).collect::<Vec<_>>(),
            "highestFieldId": 4, "partitionKeys": [], "primaryKeys": [], "options": {}
        });
        TableSchema::from_json(&json).unwrap()
    }

    #[test]
    fn comparisons_and_connectives() {
        let s = schema();
        let t = translate(&col("id").gt(lit(5i64)).and(col("name").eq(lit("a"))), &s).unwrap();
        assert!(t.exact);
        assert_eq!(
            t.predicate,
            Predicate::And(vec![
                Predicate::leaf("id", LeafOp::Gt, vec![Datum::BigInt(5)]),
                Predicate::leaf("name", LeafOp::Eq, vec![Datum::String("a".into())]),
            ])
        );
        // literal on the left: the operator turns around
        let t = translate(&lit(5i64).lt(col("id")), &s).unwrap();
        assert_eq!(
            t.predicate,
            Predicate::leaf("id", LeafOp::Gt, vec![Datum::BigInt(5)])
        );
        // an Int64 literal fits an INT column; one that does not fit is not pushed
        let t = translate(&col("small").eq(lit(7i64)), &s).unwrap();
        assert_eq!(
            t.predicate,
            Predicate::leaf("small", LeafOp::Eq, vec![Datum::Int(7)])
        );
        assert!(translate(&col("small").eq(lit(1i64 << 40)), &s).is_none());
    }

    #[test]
    fn floats_are_inexact_and_unknown_shapes_unsupported() {
        let s = schema();
        assert_eq!(
            pushdown_kind(&col("score").gt(lit(1.5f64)), &s),
            TableProviderFilterPushDown::Inexact
        );
        assert_eq!(
            pushdown_kind(&(col("id") + lit(1i64)).gt(lit(5i64)), &s),
            TableProviderFilterPushDown::Unsupported
        );
        assert_eq!(
            pushdown_kind(&col("nope").gt(lit(5i64)), &s),
            TableProviderFilterPushDown::Unsupported
        );
        assert_eq!(
            pushdown_kind(&col("id").eq(col("small")), &s),
            TableProviderFilterPushDown::Unsupported
        );
    }

    #[test]
    fn in_between_null_checks_and_prefix() {
        let s = schema();
        let t = translate(&col("id").in_list(vec![lit(1i64), lit(2i64)], true), &s).unwrap();
        assert_eq!(
            t.predicate,
            Predicate::leaf(
                "id",
                LeafOp::NotIn,
                vec![Datum::BigInt(1), Datum::BigInt(2)]
            )
        );
        let t = translate(&col("id").between(lit(1i64), lit(3i64)), &s).unwrap();
        assert_eq!(
            t.predicate,
            Predicate::And(vec![
                Predicate::leaf("id", LeafOp::GtEq, vec![Datum::BigInt(1)]),
                Predicate::leaf("id", LeafOp::LtEq, vec![Datum::BigInt(3)]),
            ])
        );
        let t = translate(&std::ops::Not::not(col("name").is_null()), &s).unwrap();
        assert_eq!(
            t.predicate,
            Predicate::Not(Box::new(Predicate::leaf("name", LeafOp::IsNull, vec![])))
        );
        let t = translate(&col("name").like(lit("ab%")), &s).unwrap();
        assert_eq!(
            t.predicate,
            Predicate::leaf("name", LeafOp::StartsWith, vec![Datum::String("ab".into())])
        );
        assert!(translate(&col("name").like(lit("a_b%")), &s).is_none());
        assert!(translate(&col("name").like(lit("%ab")), &s).is_none());
        assert!(translate(&col("name").ilike(lit("ab%")), &s).is_none());
    }

    #[test]
    fn decimals_rescale_without_loss() {
        let ty = DataType::nullable(TypeKind::Decimal {
            precision: 10,
            scale: 2,
        });
        let d = to_datum(&ScalarValue::Decimal128(Some(15), 3, 1), &ty).unwrap();
        assert_eq!(
            d,
            Datum::Decimal {
                unscaled: 150,
                precision: 10,
                scale: 2
            }
        );
        // 1.234 needs scale 3: not representable at scale 2
        assert!(to_datum(&ScalarValue::Decimal128(Some(1234), 4, 3), &ty).is_none());
        // too many digits for DECIMAL(10, 2)
        assert!(to_datum(&ScalarValue::Int64(Some(100_000_000)), &ty).is_none());
        assert_eq!(
            to_datum(&ScalarValue::Int64(Some(7)), &ty),
            Some(Datum::Decimal {
                unscaled: 700,
                precision: 10,
                scale: 2
            })
        );
    }

    #[test]
    fn timestamps_keep_wall_clock_and_instants_apart() {
        let ts = DataType::nullable(TypeKind::Timestamp { precision: 6 });
        let v = ScalarValue::TimestampMicrosecond(Some(1_500_123), None);
        assert_eq!(
            to_datum(&v, &ts),
            Some(Datum::Timestamp {
                millis: 1_500,
                nanos: 123_000
            })
        );
        let zoned = ScalarValue::TimestampMicrosecond(Some(-1), Some("UTC".into()));
        assert_eq!(to_datum(&zoned, &ts), None);
        let ltz = DataType::nullable(TypeKind::LocalZonedTimestamp { precision: 6 });
        assert_eq!(
            to_datum(&zoned, &ltz),
            Some(Datum::LocalZonedTimestamp {
                millis: -1,
                nanos: 999_000
            })
        );
    }
}
