//! Filter predicates shared by the planner (pruning) and the reader (row filtering).
//!
//! Leaves name a column of the table's current schema; literals are typed [`Datum`]s of that
//! column's type. Evaluation follows SQL three-valued logic: a comparison with NULL is unknown,
//! and unknown rows do not pass a filter. `sql::parse_sql_filter` (feature `sql`) reads one from
//! SQL text.

mod literal;
#[cfg(feature = "sql")]
pub mod sql;

pub use literal::typed_literal;

use crate::binary::Datum;

/// A comparison operator of a leaf predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeafOp {
    /// `=`
    Eq,
    /// `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
    /// `IS NULL`
    IsNull,
    /// `IS NOT NULL`
    IsNotNull,
    /// `IN (...)`
    In,
    /// `NOT IN (...)`
    NotIn,
    /// `LIKE 'prefix%'`
    StartsWith,
}

/// A boolean filter over a table's columns.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// Matches every row.
    AlwaysTrue,
    /// Matches no row.
    AlwaysFalse,
    /// All children hold.
    And(Vec<Predicate>),
    /// Any child holds.
    Or(Vec<Predicate>),
    /// The child does not hold (SQL NOT: unknown stays unknown).
    Not(Box<Predicate>),
    /// `column op literals`.
    Leaf {
        /// Column name in the table's current schema.
        column: String,
        /// Operator.
        op: LeafOp,
        /// Literals: none for null checks, one for comparisons, several for IN.
        literals: Vec<Datum>,
    },
}

impl Predicate {
    /// A leaf predicate.
    pub fn leaf(column: impl Into<String>, op: LeafOp, literals: Vec<Datum>) -> Self {
        Predicate::Leaf {
            column: column.into(),
            op,
            literals,
        }
    }

    /// The conjunction of `preds`, flattened.
    pub fn and(preds: Vec<Predicate>) -> Self {
        let mut out = Vec::new();
        for p in preds {
            match p {
                Predicate::AlwaysTrue => {}
                Predicate::And(c) => out.extend(c),
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Predicate::AlwaysTrue,
            1 => out.pop().unwrap_or(Predicate::AlwaysTrue),
            _ => Predicate::And(out),
        }
    }

    /// Column names referenced by this predicate.
    pub fn columns(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.visit_columns(&mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    fn visit_columns<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Predicate::And(c) | Predicate::Or(c) => c.iter().for_each(|p| p.visit_columns(out)),
            Predicate::Not(p) => p.visit_columns(out),
            Predicate::Leaf { column, .. } => out.push(column),
            _ => {}
        }
    }

    /// The conjuncts of this predicate (itself when it is not an AND).
    pub fn conjuncts(&self) -> Vec<&Predicate> {
        match self {
            Predicate::And(c) => c.iter().collect(),
            Predicate::AlwaysTrue => Vec::new(),
            p => vec![p],
        }
    }
}

/// Compares two non-null datums of the same type family; `None` when incomparable.
pub fn compare_datums(a: &Datum, b: &Datum) -> Option<std::cmp::Ordering> {
    use Datum::*;
    match (a, b) {
        (Boolean(x), Boolean(y)) => Some(x.cmp(y)),
        (Float(x), Float(y)) => x.partial_cmp(y),
        (Double(x), Double(y)) => x.partial_cmp(y),
        (Float(x), Double(y)) => f64::from(*x).partial_cmp(y),
        (Double(x), Float(y)) => x.partial_cmp(&f64::from(*y)),
        (
            Decimal {
                unscaled: u1,
                scale: s1,
                ..
            },
            Decimal {
                unscaled: u2,
                scale: s2,
                ..
            },
        ) => {
            let (a, b) = align_scales(*u1, *s1, *u2, *s2)?;
            Some(a.cmp(&b))
        }
        (String(x), String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Binary(x), Binary(y)) => Some(x.cmp(y)),
        (
            Timestamp {
                millis: m1,
                nanos: n1,
            },
            Timestamp {
                millis: m2,
                nanos: n2,
            },
        )
        | (
            LocalZonedTimestamp {
                millis: m1,
                nanos: n1,
            },
            LocalZonedTimestamp {
                millis: m2,
                nanos: n2,
            },
        ) => Some((m1, n1).cmp(&(m2, n2))),
        _ => match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => None,
        },
    }
}

fn align_scales(u1: i128, s1: u32, u2: i128, s2: u32) -> Option<(i128, i128)> {
    if s1 == s2 {
        return Some((u1, u2));
    }
    if s1 < s2 {
        let f = 10i128.checked_pow(s2 - s1)?;
        Some((u1.checked_mul(f)?, u2))
    } else {
        let f = 10i128.checked_pow(s1 - s2)?;
        Some((u1, u2.checked_mul(f)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn compares_decimals_across_scales() {
        let a = Datum::Decimal {
            unscaled: 150,
            precision: 5,
            scale: 2,
        };
        let b = Datum::Decimal {
            unscaled: 15,
            precision: 5,
            scale: 1,
        };
        assert_eq!(compare_datums(&a, &b), Some(Ordering::Equal));
    }

    #[test]
    fn and_flattens() {
        let p = Predicate::and(vec![
            Predicate::AlwaysTrue,
            Predicate::leaf("a", LeafOp::IsNull, vec![]),
        ]);
        assert_eq!(p, Predicate::leaf("a", LeafOp::IsNull, vec![]));
    }
}
