//! Stripe pruning of ORC files: whole stripes whose column statistics (min/max, null count)
//! rule out the predicate are taken out of the selection, and the ORC decoder then leaves
//! them unread (`format::orc`).
//!
//! The predicate is the same [`FilePredicate`] Parquet pruning uses (the read's columns mapped
//! to the file's by field id, leaves only where the file's type is the read's) and each leaf
//! is judged by the same [`LeafTest`], on per-stripe min/max arrays built from the statistics.
//! Only statistics that bound the values as the exact filter compares them are used: integer
//! columns (TINYINT to BIGINT), DATE and VARCHAR/STRING with exact bounds (UTF-8 byte order,
//! as Arrow compares strings). CHAR is left out: the file holds blank-padded values, their
//! statistics too, while the read trims the blanks. A null count is only trusted where the
//! stripe's row count, its count of values and its has-null flag agree.

use std::ops::Range;
use std::sync::Arc;

use crate::format::RangedFile;
use arrow_array::{ArrayRef, Date32Array, Int64Array, StringArray, UInt64Array};
use arrow_cast::cast::cast;
use orc_rust::reader::metadata::{read_metadata, FileMetadata};
use orc_rust::statistics::{ColumnStatistics, TypeStatistics};
use paimon_spec::binary::Datum;
use paimon_spec::predicate::LeafOp;
use paimon_spec::types::{DataType, TypeKind};

use super::{FilePredicate, LeafTest, PruneStats, RowRanges};
use crate::arrow_schema::to_arrow_type;

/// The rows of `rows` (a file's selection, the deletion vector applied) that `pred` does not
/// rule out by the stripe statistics of the ORC file `data`. On anything unexpected
/// (unreadable metadata, stripe row counts that disagree with `rows`) `rows` comes back
/// unchanged: the decoder reports real errors. [`PruneStats::row_groups`] counts stripes.
pub(crate) fn prune_orc(
    data: &RangedFile,
    pred: &FilePredicate,
    rows: RowRanges,
) -> (RowRanges, PruneStats) {
    let mut stats = PruneStats {
        rows_before: rows.selected(),
        rows_after: rows.selected(),
        ..PruneStats::default()
    };
    if !pred.can_prune() || rows.selected() == 0 {
        return (rows, stats);
    }
    // orc-rust recurses without end on a type cycle (an abort) and panics on some damaged
    // footers: the type tree is checked first and a panic prunes nothing.
    if crate::format::orc::check_type_tree(data).is_err() {
        return (rows, stats);
    }
    let evaluated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let meta = read_metadata(&mut data.clone()).ok()?;
        let stripes = Stripes::new(&meta, rows.total())?;
        let kept = stripes.eval(pred);
        let ranges: Vec<Range<u64>> = stripes
            .ranges
            .iter()
            .zip(kept)
            .filter(|(_, k)| *k)
            .map(|(r, _)| r.clone())
            .collect();
        Some((stripes.ranges, ranges))
    }));
    let Ok(Some((stripe_ranges, kept))) = evaluated else {
        return (rows, stats);
    };
    let out = rows.intersect(&super::ranges::coalesce(kept));
    stats.row_groups = stripe_ranges.len();
    stats.row_groups_skipped = stripe_ranges
        .iter()
        .filter(|r| !super::ranges::overlaps(out.ranges(), (*r).clone()))
        .count();
    stats.rows_after = out.selected();
    (out, stats)
}

/// An ORC file's stripes: their row ranges and column statistics.
struct Stripes<'a> {
    meta: &'a FileMetadata,
    ranges: Vec<Range<u64>>,
    rows: Vec<u64>,
}

impl<'a> Stripes<'a> {
    /// `None` when the stripes do not hold `total` rows.
    fn new(meta: &'a FileMetadata, total: u64) -> Option<Self> {
        let mut ranges = Vec::new();
        let mut rows = Vec::new();
        let mut pos = 0u64;
        for s in meta.stripe_metadatas() {
            let n = s.number_of_rows();
            let end = pos.checked_add(n)?;
            ranges.push(pos..end);
            rows.push(n);
            pos = end;
        }
        (pos == total).then_some(Stripes { meta, ranges, rows })
    }

    /// Per stripe, whether it may hold a row matching `pred`.
    fn eval(&self, pred: &FilePredicate) -> Vec<bool> {
        let n = self.rows.len();
        match pred {
            FilePredicate::Never => vec![false; n],
            FilePredicate::Unknown => vec![true; n],
            FilePredicate::And(c) => c.iter().fold(vec![true; n], |acc, p| {
                acc.iter().zip(self.eval(p)).map(|(a, b)| *a && b).collect()
            }),
            FilePredicate::Or(c) => c.iter().fold(vec![false; n], |acc, p| {
                acc.iter().zip(self.eval(p)).map(|(a, b)| *a || b).collect()
            }),
            FilePredicate::Leaf {
                column,
                ty,
                op,
                literals,
            } => match self.leaf(column, ty, *op, literals) {
                Some(skip) => skip.into_iter().map(|s| !s).collect(),
                None => vec![true; n],
            },
        }
    }

    /// Per stripe, whether its statistics prove that no row has `column op literals`;
    /// `None` when they cannot tell.
    fn leaf(
        &self,
        column: &str,
        ty: &DataType,
        op: LeafOp,
        literals: &[Datum],
    ) -> Option<Vec<bool>> {
        let kind = StatKind::of(ty)?;
        let col = self
            .meta
            .root_data_type()
            .children()
            .iter()
            .find(|c| c.name() == column)?
            .data_type()
            .column_index();
        let stats: Vec<&ColumnStatistics> = self
            .meta
            .stripe_metadatas()
            .iter()
            .map(|s| s.column_statistics().get(col))
            .collect::<Option<_>>()?;
        let arrow_type = to_arrow_type(ty);
        let mins = kind.bounds(&stats, true)?;
        let maxes = kind.bounds(&stats, false)?;
        let (mins, maxes) = if mins.data_type() == &arrow_type {
            (mins, maxes)
        } else {
            (
                cast(&mins, &arrow_type).ok()?,
                cast(&maxes, &arrow_type).ok()?,
            )
        };
        let nulls: UInt64Array = stats
            .iter()
            .zip(&self.rows)
            .map(|(s, rows)| null_count(s, *rows))
            .collect();
        let test = LeafTest::new(ty, &arrow_type, op, literals)?;
        test.proves_no_match(&mins, &maxes, &nulls, &self.rows)
    }
}

/// The nulls of a stripe of `rows` rows, where its statistics agree on them.
fn null_count(s: &ColumnStatistics, rows: u64) -> Option<u64> {
    let nulls = rows.checked_sub(s.number_of_values())?;
    (s.has_null() == (nulls > 0)).then_some(nulls)
}

/// The statistics kinds whose bounds order values as the exact filter does.
#[derive(Clone, Copy)]
enum StatKind {
    Integer,
    Date,
    String,
}

impl StatKind {
    fn of(ty: &DataType) -> Option<Self> {
        match ty.kind {
            TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt => {
                Some(StatKind::Integer)
            }
            TypeKind::Date => Some(StatKind::Date),
            TypeKind::VarChar { .. } => Some(StatKind::String),
            _ => None,
        }
    }

    /// The per-stripe minima (`min`) or maxima; null where a stripe has no usable bound (no
    /// values, or an inexact string bound). `None` when a stripe's statistics are of another
    /// kind than the column's.
    fn bounds(self, stats: &[&ColumnStatistics], min: bool) -> Option<ArrayRef> {
        Some(match self {
            StatKind::Integer => Arc::new(
                stats
                    .iter()
                    .map(|s| match s.type_statistics() {
                        None => Some(None),
                        Some(TypeStatistics::Integer {
                            min: lo, max: hi, ..
                        }) => Some(Some(pick(min, *lo, *hi))),
                        Some(_) => None,
                    })
                    .collect::<Option<Int64Array>>()?,
            ),
            StatKind::Date => Arc::new(
                stats
                    .iter()
                    .map(|s| match s.type_statistics() {
                        None => Some(None),
                        Some(TypeStatistics::Date { min: lo, max: hi }) => {
                            Some(Some(pick(min, *lo, *hi)))
                        }
                        Some(_) => None,
                    })
                    .collect::<Option<Date32Array>>()?,
            ),
            StatKind::String => Arc::new(
                stats
                    .iter()
                    .map(|s| match s.type_statistics() {
                        None => Some(None),
                        Some(TypeStatistics::String {
                            lower_bound,
                            upper_bound,
                            is_exact_min,
                            is_exact_max,
                            ..
                        }) => Some(
                            (*is_exact_min && *is_exact_max)
                                .then(|| pick(min, lower_bound, upper_bound).clone()),
                        ),
                        Some(_) => None,
                    })
                    .collect::<Option<StringArray>>()?,
            ),
        })
    }
}

fn pick<T>(min: bool, lo: T, hi: T) -> T {
    if min {
        lo
    } else {
        hi
    }
}
