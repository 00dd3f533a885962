//! Stats-based pruning: may any row described by min/max/null-count statistics match a
//! predicate? Answers err towards "yes": a wrong prune loses rows, a missed one only costs I/O.

use std::cmp::Ordering;

use paimon_spec::binary::Datum;
use paimon_spec::predicate::{compare_datums, LeafOp, Predicate};

/// Statistics of one column over a set of rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnStats {
    /// Smallest non-null value, `None` when unknown (or all null).
    pub min: Option<Datum>,
    /// Largest non-null value, `None` when unknown.
    pub max: Option<Datum>,
    /// Number of nulls, `None` when unknown.
    pub null_count: Option<i64>,
}

impl ColumnStats {
    /// Exact stats of a single value (a partition column).
    pub fn exact(v: &Datum) -> Self {
        if v.is_null() {
            ColumnStats {
                min: None,
                max: None,
                null_count: Some(1),
            }
        } else {
            ColumnStats {
                min: Some(v.clone()),
                max: Some(v.clone()),
                null_count: Some(0),
            }
        }
    }
}

/// Whether rows with the given per-column statistics may satisfy `pred`. `stats` returns
/// `None` for columns without usable statistics, which then may match anything.
pub fn may_match(
    pred: &Predicate,
    row_count: i64,
    stats: &dyn Fn(&str) -> Option<ColumnStats>,
) -> bool {
    match pred {
        Predicate::AlwaysTrue => true,
        Predicate::AlwaysFalse => false,
        Predicate::And(c) => c.iter().all(|p| may_match(p, row_count, stats)),
        Predicate::Or(c) => c.iter().any(|p| may_match(p, row_count, stats)),
        Predicate::Not(p) => match negate(p) {
            Some(n) => may_match(&n, row_count, stats),
            None => true,
        },
        Predicate::Leaf {
            column,
            op,
            literals,
        } => match stats(column) {
            None => true,
            Some(s) => leaf_may_match(*op, literals, &s, row_count),
        },
    }
}

/// Pushes a NOT inwards where SQL semantics allow it exactly.
fn negate(p: &Predicate) -> Option<Predicate> {
    Some(match p {
        Predicate::AlwaysTrue => Predicate::AlwaysFalse,
        Predicate::AlwaysFalse => Predicate::AlwaysTrue,
        Predicate::Not(q) => (**q).clone(),
        Predicate::And(c) => Predicate::Or(c.iter().map(negate).collect::<Option<Vec<_>>>()?),
        Predicate::Or(c) => Predicate::And(c.iter().map(negate).collect::<Option<Vec<_>>>()?),
        Predicate::Leaf {
            column,
            op,
            literals,
        } => {
            let nop = match op {
                LeafOp::Eq => LeafOp::NotEq,
                LeafOp::NotEq => LeafOp::Eq,
                LeafOp::Lt => LeafOp::GtEq,
                LeafOp::LtEq => LeafOp::Gt,
                LeafOp::Gt => LeafOp::LtEq,
                LeafOp::GtEq => LeafOp::Lt,
                LeafOp::IsNull => LeafOp::IsNotNull,
                LeafOp::IsNotNull => LeafOp::IsNull,
                // NOT IN with a null literal is never true; IN's negation is only exact without.
                LeafOp::In if literals.iter().all(|l| !l.is_null()) => LeafOp::NotIn,
                LeafOp::NotIn if literals.iter().all(|l| !l.is_null()) => LeafOp::In,
                _ => return None,
            };
            Predicate::leaf(column.clone(), nop, literals.clone())
        }
    })
}

fn cmp(a: &Datum, b: &Datum) -> Option<Ordering> {
    compare_datums(a, b)
}

fn leaf_may_match(op: LeafOp, literals: &[Datum], s: &ColumnStats, row_count: i64) -> bool {
    let all_null = s
        .null_count
        .is_some_and(|n| n >= row_count && row_count > 0);
    match op {
        LeafOp::IsNull => s.null_count != Some(0),
        LeafOp::IsNotNull => !all_null,
        _ if all_null => false,
        _ => {
            let (Some(min), Some(max)) = (&s.min, &s.max) else {
                return true;
            };
            let lit = literals.first();
            match op {
                LeafOp::Eq => lit.is_none_or(|v| eq_may_match(v, min, max)),
                LeafOp::NotEq => lit.is_none_or(|v| {
                    v.is_null()
                        || !(cmp(min, v) == Some(Ordering::Equal)
                            && cmp(max, v) == Some(Ordering::Equal))
                }),
                LeafOp::Lt => lit.is_none_or(|v| cmp(min, v).is_none_or(|o| o == Ordering::Less)),
                LeafOp::LtEq => {
                    lit.is_none_or(|v| cmp(min, v).is_none_or(|o| o != Ordering::Greater))
                }
                LeafOp::Gt => {
                    lit.is_none_or(|v| cmp(max, v).is_none_or(|o| o == Ordering::Greater))
                }
                LeafOp::GtEq => lit.is_none_or(|v| cmp(max, v).is_none_or(|o| o != Ordering::Less)),
                LeafOp::In => literals
                    .iter()
                    .any(|v| !v.is_null() && eq_may_match(v, min, max)),
                LeafOp::NotIn => {
                    if literals.iter().any(Datum::is_null) {
                        return false;
                    }
                    !(cmp(min, max) == Some(Ordering::Equal)
                        && literals
                            .iter()
                            .any(|v| cmp(min, v) == Some(Ordering::Equal)))
                }
                LeafOp::StartsWith => match (lit, min, max) {
                    (Some(Datum::String(p)), Datum::String(lo), Datum::String(hi)) => {
                        let p = p.as_bytes();
                        let (lo, hi) = (lo.as_bytes(), hi.as_bytes());
                        // Some string in [lo, hi] starts with p iff hi >= p and lo <= p + max suffix.
                        (hi >= p || hi.starts_with(p)) && (lo <= p || lo.starts_with(p))
                    }
                    _ => true,
                },
                LeafOp::IsNull | LeafOp::IsNotNull => true,
            }
        }
    }
}

fn eq_may_match(v: &Datum, min: &Datum, max: &Datum) -> bool {
    if v.is_null() {
        return false;
    }
    cmp(min, v).is_none_or(|o| o != Ordering::Greater)
        && cmp(max, v).is_none_or(|o| o != Ordering::Less)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(min: i32, max: i32, nulls: i64) -> ColumnStats {
        ColumnStats {
            min: Some(Datum::Int(min)),
            max: Some(Datum::Int(max)),
            null_count: Some(nulls),
        }
    }

    fn check(p: Predicate, s: ColumnStats) -> bool {
        may_match(&p, 10, &|c| (c == "a").then(|| s.clone()))
    }

    #[test]
    fn leaf_ranges() {
        let l = |op, v: i32| Predicate::leaf("a", op, vec![Datum::Int(v)]);
        assert!(check(l(LeafOp::Eq, 5), stats(1, 10, 0)));
        assert!(!check(l(LeafOp::Eq, 11), stats(1, 10, 0)));
        assert!(!check(l(LeafOp::Lt, 1), stats(1, 10, 0)));
        assert!(check(l(LeafOp::LtEq, 1), stats(1, 10, 0)));
        assert!(!check(l(LeafOp::Gt, 10), stats(1, 10, 0)));
        assert!(!check(l(LeafOp::NotEq, 3), stats(3, 3, 0)));
        assert!(!check(
            Predicate::leaf("a", LeafOp::IsNull, vec![]),
            stats(1, 2, 0)
        ));
        assert!(check(
            Predicate::leaf("b", LeafOp::IsNull, vec![]),
            stats(1, 2, 0)
        ));
        assert!(!check(
            Predicate::Not(Box::new(l(LeafOp::GtEq, 0))),
            stats(1, 10, 0)
        ));
        assert!(check(
            Predicate::Not(Box::new(l(LeafOp::Eq, 5))),
            stats(1, 10, 0)
        ));
        let all_null = ColumnStats {
            min: None,
            max: None,
            null_count: Some(10),
        };
        assert!(!check(l(LeafOp::Eq, 5), all_null.clone()));
        assert!(check(
            Predicate::leaf("a", LeafOp::IsNull, vec![]),
            all_null
        ));
    }

    #[test]
    fn starts_with() {
        let s = |lo: &str, hi: &str| ColumnStats {
            min: Some(Datum::String(lo.into())),
            max: Some(Datum::String(hi.into())),
            null_count: Some(0),
        };
        let p = |x: &str| Predicate::leaf("a", LeafOp::StartsWith, vec![Datum::String(x.into())]);
        assert!(check(p("ab"), s("aa", "ac")));
        assert!(check(p("ab"), s("abc", "abd")));
        assert!(!check(p("ab"), s("ac", "ad")));
        assert!(!check(p("ab"), s("a", "aa")));
    }
}
