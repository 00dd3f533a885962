//! Statistics pruning: the rows of a Parquet file that cannot satisfy a read's predicate,
//! found from the file's own metadata before decoding (Java `RowGroupFilter` and
//! `ColumnIndexFilter`), so the decoder skips them.
//!
//! Pruning is an optimisation under the exact filter ([`crate::filter`]), which still runs on
//! every output row: it may keep rows that do not match, it must never drop one that does.
//! Hence everything it cannot judge exactly keeps rows: a predicate column that is cast,
//! nested, absent from the file or a partition column; floating-point columns (Arrow orders
//! NaN above every number, while Parquet statistics leave NaN out); statistics missing,
//! deprecated (byte arrays compared as signed bytes) or of another Arrow type than the column
//! is read as; NOT and anything unknown. A conjunction prunes a range when any conjunct does;
//! a disjunction only when all do.
//!
//! ```text
//!  row groups      0: a 0..99   1: a 100..199   2: a 200..299      predicate a >= 250
//!  row groups                   pruned          pruned              kept (stats max 299)
//!  pages of rg 2   200..249     250..299
//!                  pruned       kept              => RowSelection: rows 250..299 only
//! ```
//!
//! The kept ranges are file-global row positions, intersected with the deletion vector's
//! [`RowRanges`]; the reader then decodes only those rows and `_ROW_ID` positions follow them.
//! ORC files are pruned by whole stripes the same way ([`orc`]).

use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, Scalar, UInt64Array};
use arrow_cast::cast::cast;
use arrow_ord::cmp;
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::types::{DataField, DataType, TypeKind};
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::basic::{ColumnOrder, Type as PhysicalType};
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData};
use parquet::file::reader::ChunkReader;

use super::RowRanges;
use crate::arrow_schema::to_arrow_type;
use crate::datum::datum_to_array;
use crate::schema_mapper::ColumnSource;
use ranges::{coalesce, intersect, overlaps, union};

/// A read predicate restated over one file's own columns, keeping only what statistics can
/// judge exactly.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FilePredicate {
    /// All hold.
    And(Vec<FilePredicate>),
    /// Any holds.
    Or(Vec<FilePredicate>),
    /// `column op literals` on the file column `column`, read without a cast as `ty`.
    Leaf {
        /// The file's name of the column.
        column: String,
        /// Its Paimon type (the file's and the read's, equal but for nullability).
        ty: DataType,
        /// Operator.
        op: LeafOp,
        /// Literals of type `ty`.
        literals: Vec<Datum>,
    },
    /// No row matches.
    Never,
    /// Not judged: keeps every row.
    Unknown,
}

impl FilePredicate {
    /// `pred` (over read fields by name) over the file's columns as `sources` maps them,
    /// keeping the leaves that statistics can judge.
    pub(crate) fn new(pred: &Predicate, sources: &[(DataField, ColumnSource)]) -> Self {
        Self::with_types(pred, sources, comparable)
    }

    /// `pred` over the file's columns, keeping the leaves on every scalar column read
    /// without a cast (floating point too, which statistics cannot judge): what a filter evaluated on the decoded column judges exactly as
    /// the read's own filter does ([`super::parquet_filter`]).
    pub(crate) fn for_row_filter(pred: &Predicate, sources: &[(DataField, ColumnSource)]) -> Self {
        Self::with_types(pred, sources, |ty| {
            comparable(ty) || matches!(ty.kind, TypeKind::Float | TypeKind::Double)
        })
    }

    fn with_types(
        pred: &Predicate,
        sources: &[(DataField, ColumnSource)],
        accept: fn(&DataType) -> bool,
    ) -> Self {
        match pred {
            Predicate::AlwaysFalse => FilePredicate::Never,
            Predicate::AlwaysTrue | Predicate::Not(_) => FilePredicate::Unknown,
            Predicate::And(c) => FilePredicate::And(
                c.iter()
                    .map(|p| Self::with_types(p, sources, accept))
                    .collect(),
            ),
            Predicate::Or(c) => FilePredicate::Or(
                c.iter()
                    .map(|p| Self::with_types(p, sources, accept))
                    .collect(),
            ),
            Predicate::Leaf {
                column,
                op,
                literals,
            } => match sources.iter().find(|(f, _)| f.name == *column) {
                Some((field, ColumnSource::File { name, file_type }))
                    if file_type.eq_ignore_nullable(&field.data_type)
                        && accept(&field.data_type) =>
                {
                    FilePredicate::Leaf {
                        column: name.clone(),
                        ty: field.data_type.clone(),
                        op: *op,
                        literals: literals.clone(),
                    }
                }
                _ => FilePredicate::Unknown,
            },
        }
    }

    /// Whether pruning with it could skip anything.
    pub(crate) fn can_prune(&self) -> bool {
        match self {
            FilePredicate::Leaf { .. } | FilePredicate::Never => true,
            FilePredicate::Unknown => false,
            FilePredicate::And(c) => c.iter().any(Self::can_prune),
            FilePredicate::Or(c) => !c.is_empty() && c.iter().all(Self::can_prune),
        }
    }
}

/// What pruning skipped in one file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PruneStats {
    /// Row groups of the file (stripes of an ORC file).
    pub row_groups: usize,
    /// Row groups (stripes) none of whose rows is left to decode.
    pub row_groups_skipped: usize,
    /// Rows selected before pruning (the deletion vector applied).
    pub rows_before: u64,
    /// Rows selected after pruning.
    pub rows_after: u64,
}

/// The rows of `rows` (a file's selection, the deletion vector applied) that `pred` does not
/// rule out by the statistics of the Parquet file `data`: row-group statistics, then the page
/// index where the file has one. On anything unexpected (unreadable metadata or page index,
/// row counts that disagree) `rows` comes back unchanged: the decoder reports real errors,
/// and pruning never decides a read's outcome.
pub(crate) fn prune_parquet<R: ChunkReader>(
    data: &R,
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
    // The parquet crate panics on some damaged footers (see `format::guard_panics`): a panic
    // here prunes nothing, and the guarded decoder then reports the file.
    let evaluated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let with_index =
            ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Optional);
        let meta = match ArrowReaderMetadata::load(data, with_index) {
            Ok(m) => m,
            // A page index that cannot be read leaves the row-group statistics.
            Err(_) => ArrowReaderMetadata::load(data, ArrowReaderOptions::new()).ok()?,
        };
        let file = FileStats::new(&meta, rows.total())?;
        let kept = file.eval(pred);
        Some((file.rg_starts, file.rg_rows, kept))
    }));
    let Ok(Some((rg_starts, rg_rows, kept))) = evaluated else {
        return (rows, stats);
    };
    let out = rows.intersect(&kept);
    stats.row_groups = rg_rows.len();
    stats.row_groups_skipped = rg_starts
        .iter()
        .zip(&rg_rows)
        .filter(|(s, n)| !overlaps(out.ranges(), **s..**s + **n))
        .count();
    stats.rows_after = out.selected();
    (out, stats)
}

impl RowRanges {
    /// The kept rows that are also in `keep` (sorted, disjoint ranges).
    fn intersect(&self, keep: &[Range<u64>]) -> RowRanges {
        RowRanges {
            ranges: intersect(&self.ranges, keep),
            total: self.total,
        }
    }
}

/// Types whose statistics order values as the exact filter compares them.
fn comparable(ty: &DataType) -> bool {
    matches!(
        ty.kind,
        TypeKind::Boolean
            | TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Decimal { .. }
            | TypeKind::Char { .. }
            | TypeKind::VarChar { .. }
            | TypeKind::Binary { .. }
            | TypeKind::VarBinary { .. }
            | TypeKind::Date
            | TypeKind::Time { .. }
            | TypeKind::Timestamp { .. }
            | TypeKind::LocalZonedTimestamp { .. }
    )
}

/// A Parquet file's metadata with its row groups' positions.
struct FileStats<'a> {
    meta: &'a ArrowReaderMetadata,
    rg_starts: Vec<u64>,
    rg_rows: Vec<u64>,
    total: u64,
}

impl<'a> FileStats<'a> {
    /// `None` when the row groups do not hold `total` rows.
    fn new(meta: &'a ArrowReaderMetadata, total: u64) -> Option<Self> {
        let mut rg_starts = Vec::new();
        let mut rg_rows = Vec::new();
        let mut pos = 0u64;
        for rg in meta.metadata().row_groups() {
            let n = u64::try_from(rg.num_rows()).ok()?;
            rg_starts.push(pos);
            rg_rows.push(n);
            pos = pos.checked_add(n)?;
        }
        (pos == total).then_some(FileStats {
            meta,
            rg_starts,
            rg_rows,
            total,
        })
    }

    fn md(&self) -> &ParquetMetaData {
        self.meta.metadata()
    }

    /// Row ranges that may hold a row matching `pred`.
    fn eval(&self, pred: &FilePredicate) -> Vec<Range<u64>> {
        let all = || std::iter::once(0..self.total).collect::<Vec<_>>();
        match pred {
            FilePredicate::Never => Vec::new(),
            FilePredicate::Unknown => all(),
            FilePredicate::And(c) => {
                let mut acc = all();
                for p in c {
                    if acc.is_empty() {
                        break;
                    }
                    acc = intersect(&acc, &self.eval(p));
                }
                acc
            }
            FilePredicate::Or(c) => {
                let mut acc = Vec::new();
                for p in c {
                    acc = union(&acc, &self.eval(p));
                }
                acc
            }
            FilePredicate::Leaf {
                column,
                ty,
                op,
                literals,
            } => self.leaf(column, ty, *op, literals).unwrap_or_else(all),
        }
    }

    /// Row ranges that may hold a row where `column op literals` holds; `None` when the
    /// statistics cannot tell.
    fn leaf(
        &self,
        column: &str,
        ty: &DataType,
        op: LeafOp,
        literals: &[Datum],
    ) -> Option<Vec<Range<u64>>> {
        let md = self.md();
        let schema = self.meta.schema();
        let descr = md.file_metadata().schema_descr();
        let conv = StatisticsConverter::try_new(column, schema, descr)
            .ok()?
            .with_missing_null_counts_as_zero(false);
        let arrow_type = to_arrow_type(ty);
        // Decoded as another Arrow type, the column is converted before the filter sees it.
        if conv.arrow_field().data_type() != &arrow_type {
            return None;
        }
        let leaf = conv.parquet_column_index()?;
        let physical = descr.columns().get(leaf)?.physical_type();
        let bytes = matches!(
            physical,
            PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY
        );
        if physical == PhysicalType::INT96 {
            return None;
        }
        if bytes
            && !matches!(
                md.file_metadata().column_orders().and_then(|o| o.get(leaf)),
                Some(ColumnOrder::TYPE_DEFINED_ORDER(_))
            )
        {
            return None;
        }
        let test = LeafTest::new(ty, &arrow_type, op, literals)?;
        let rgs = md.row_groups();
        let mins = conv.row_group_mins(rgs).ok()?;
        let maxes = conv.row_group_maxes(rgs).ok()?;
        let nulls = conv.row_group_null_counts(rgs).ok()?;
        let mut skip = test.proves_no_match(&mins, &maxes, &nulls, &self.rg_rows)?;
        // Deprecated byte-array statistics were ordered as signed bytes.
        for (s, rg) in skip.iter_mut().zip(rgs) {
            let deprecated = rg
                .columns()
                .get(leaf)
                .and_then(|c| c.statistics())
                .is_none_or(|st| st.is_min_max_deprecated());
            if bytes && deprecated {
                *s = false;
            }
        }
        let mut out = Vec::new();
        for (rg, skipped) in skip.into_iter().enumerate() {
            if skipped {
                continue;
            }
            let (start, n) = (*self.rg_starts.get(rg)?, *self.rg_rows.get(rg)?);
            match self.pages(&conv, leaf, rg, n, &test) {
                Some(pages) => {
                    out.extend(pages.into_iter().map(|r| start + r.start..start + r.end))
                }
                None => out.push(start..start + n),
            }
        }
        Some(coalesce(out))
    }

    /// Ranges (within row group `rg` of `n` rows) of the pages of leaf column `leaf` that may
    /// hold a match; `None` without a usable page index.
    fn pages(
        &self,
        conv: &StatisticsConverter<'_>,
        leaf: usize,
        rg: usize,
        n: u64,
        test: &LeafTest,
    ) -> Option<Vec<Range<u64>>> {
        let md = self.md();
        let (ci, oi) = (md.column_index()?, md.offset_index()?);
        ci.get(rg)?.get(leaf)?;
        let locations = oi.get(rg)?.get(leaf)?.page_locations();
        // Page boundaries must start at 0 and rise within the row group, or the ranges would
        // address other rows.
        let mut firsts = Vec::with_capacity(locations.len());
        for loc in locations {
            let f = u64::try_from(loc.first_row_index).ok()?;
            let ok = match firsts.last() {
                None => f == 0,
                Some(prev) => f > *prev && f < n,
            };
            if !ok {
                return None;
            }
            firsts.push(f);
        }
        let ends: Vec<u64> = firsts.iter().skip(1).copied().chain([n]).collect();
        let rows: Vec<u64> = firsts.iter().zip(&ends).map(|(s, e)| e - s).collect();
        if rows.is_empty() {
            return None;
        }
        let idx = [rg];
        let mins = conv.data_page_mins(ci, oi, &idx).ok()?;
        let maxes = conv.data_page_maxes(ci, oi, &idx).ok()?;
        let nulls = conv.data_page_null_counts(ci, oi, &idx).ok()?;
        let skip = test.proves_no_match(&mins, &maxes, &nulls, &rows)?;
        Some(coalesce(
            firsts
                .iter()
                .zip(&ends)
                .zip(skip)
                .filter(|(_, s)| !s)
                .map(|((s, e), _)| *s..*e)
                .collect(),
        ))
    }
}

/// One leaf's test against min/max/null-count statistics, literals in the column's Arrow type.
struct LeafTest {
    op: LeafOp,
    /// Literals as one-element arrays of the column's Arrow type; `None` for SQL NULL.
    literals: Vec<Option<ArrayRef>>,
    /// The `LIKE 'prefix%'` prefix.
    prefix: Option<String>,
}

impl LeafTest {
    /// The literals made as the exact filter makes them; `None` when it would fail.
    fn new(
        ty: &DataType,
        arrow_type: &arrow_schema::DataType,
        op: LeafOp,
        literals: &[Datum],
    ) -> Option<Self> {
        let mut lits = Vec::with_capacity(literals.len());
        for d in literals {
            if d.is_null() {
                lits.push(None);
                continue;
            }
            let a = datum_to_array(d, ty).ok()?;
            let a = if a.data_type() == arrow_type {
                a
            } else {
                cast(&a, arrow_type).ok()?
            };
            lits.push(Some(a));
        }
        let prefix = match op {
            LeafOp::StartsWith => {
                if !matches!(ty.kind, TypeKind::Char { .. } | TypeKind::VarChar { .. }) {
                    return None;
                }
                Some(literals.first()?.as_str()?.to_string())
            }
            _ => None,
        };
        Some(LeafTest {
            op,
            literals: lits,
            prefix,
        })
    }

    /// Per unit (row group or page) of `rows` rows, whether its statistics prove that no row
    /// matches. `None` when the statistics do not line up with the units.
    fn proves_no_match(
        &self,
        mins: &ArrayRef,
        maxes: &ArrayRef,
        nulls: &UInt64Array,
        rows: &[u64],
    ) -> Option<Vec<bool>> {
        let n = rows.len();
        if mins.len() != n || maxes.len() != n || nulls.len() != n {
            return None;
        }
        let known = |i: usize| nulls.is_valid(i).then(|| nulls.value(i));
        let all_null: Vec<bool> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| known(i) == Some(*r))
            .collect();
        // Every comparison with a null is unknown, so a unit of nulls matches nothing but IS
        // NULL.
        let proof = match self.op {
            LeafOp::IsNull => (0..n).map(|i| known(i) == Some(0)).collect(),
            LeafOp::IsNotNull | LeafOp::NotIn => all_null.clone(),
            LeafOp::StartsWith => self.prefix_proof(mins, maxes)?,
            LeafOp::Eq => self.one(n, |v| {
                Some(or(&cmp::gt(mins, v).ok()?, &cmp::lt(maxes, v).ok()?))
            })?,
            LeafOp::NotEq => self.one(n, |v| {
                Some(and(&cmp::eq(mins, v).ok()?, &cmp::eq(maxes, v).ok()?))
            })?,
            LeafOp::Lt => self.one(n, |v| Some(truth(&cmp::gt_eq(mins, v).ok()?)))?,
            LeafOp::LtEq => self.one(n, |v| Some(truth(&cmp::gt(mins, v).ok()?)))?,
            LeafOp::Gt => self.one(n, |v| Some(truth(&cmp::lt_eq(maxes, v).ok()?)))?,
            LeafOp::GtEq => self.one(n, |v| Some(truth(&cmp::lt(maxes, v).ok()?)))?,
            LeafOp::In => {
                // No listed value lies within [min, max]; NULLs in the list never match.
                let mut acc = vec![true; n];
                for v in self.literals.iter().flatten() {
                    let v = Scalar::new(v.clone());
                    let outside = or(&cmp::gt(mins, &v).ok()?, &cmp::lt(maxes, &v).ok()?);
                    acc = acc.iter().zip(outside).map(|(a, o)| *a && o).collect();
                }
                acc
            }
        };
        if proof.len() != n {
            return None;
        }
        if self.op == LeafOp::IsNull {
            return Some(proof);
        }
        Some(
            proof
                .into_iter()
                .zip(all_null)
                .map(|(p, a)| p || a)
                .collect(),
        )
    }

    /// The proof of a one-literal comparison; a NULL literal proves nothing here (the
    /// all-null test still applies).
    fn one(
        &self,
        n: usize,
        f: impl Fn(&Scalar<ArrayRef>) -> Option<Vec<bool>>,
    ) -> Option<Vec<bool>> {
        match self.literals.first()? {
            Some(v) => f(&Scalar::new(v.clone())),
            None => Some(vec![false; n]),
        }
    }

    /// `LIKE 'p%'`: no value in [min, max] starts with `p` when `max < p`, or when `min > p`
    /// without starting with `p` (then `min` exceeds every string starting with `p`).
    fn prefix_proof(&self, mins: &ArrayRef, maxes: &ArrayRef) -> Option<Vec<bool>> {
        let p = self.prefix.as_deref()?;
        let mins = mins.as_string_opt::<i32>()?;
        let maxes = maxes.as_string_opt::<i32>()?;
        Some(
            (0..mins.len())
                .map(|i| {
                    let below = maxes.is_valid(i) && maxes.value(i) < p;
                    let above = mins.is_valid(i) && {
                        let m = mins.value(i);
                        m > p && !m.starts_with(p)
                    };
                    below || above
                })
                .collect(),
        )
    }
}

/// Where `b` is true (null: unknown, not a proof).
fn truth(b: &BooleanArray) -> Vec<bool> {
    (0..b.len()).map(|i| b.is_valid(i) && b.value(i)).collect()
}

fn or(a: &BooleanArray, b: &BooleanArray) -> Vec<bool> {
    truth(a)
        .into_iter()
        .zip(truth(b))
        .map(|(x, y)| x || y)
        .collect()
}

fn and(a: &BooleanArray, b: &BooleanArray) -> Vec<bool> {
    truth(a)
        .into_iter()
        .zip(truth(b))
        .map(|(x, y)| x && y)
        .collect()
}

mod orc;
mod ranges;

pub(crate) use orc::prune_orc;

#[cfg(test)]
mod tests;
