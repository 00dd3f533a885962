//! Planning with scalar global indexes (Java `DataEvolutionGlobalIndexScanner`,
//! `GlobalIndexEvaluator`): the BTree and bitmap index files of a row-tracked table answer a
//! scan's filter with the row ids that may match; planning then keeps only the files holding
//! such rows and gives each split the row ranges to read (an indexed split).
//!
//! A leaf on an indexed column yields the matching rows of the ranges the column's index
//! files cover plus every row they do not cover (rows written after the last build are never
//! skipped). AND intersects, OR unites, and whatever the indexes cannot answer (NOT, a column
//! without an index, `STARTS_WITH`, a literal of another type) leaves the rows unrestricted.
//! The reader still applies the whole filter to the rows it reads.

use std::collections::BTreeMap;
use std::ops::Bound;

use paimon_format::global_index::{decode_scalar_index, SortedIndex, BITMAP_INDEX, BTREE_INDEX};
use paimon_spec::binary::Datum;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::types::DataType;
use roaring::RoaringTreemap;

use crate::error::{Error, Result};
use crate::manifest::FileKind;
use crate::manifest::IndexManifestEntry;
use crate::snapshot::Snapshot;
use crate::table::Table;

/// One decoded index file: the first row id it covers, its last, and its keys.
struct Covered {
    start: u64,
    end: u64,
    index: SortedIndex,
}

/// The scalar index files of one column.
struct ColumnIndex {
    files: Vec<Covered>,
    covered: RoaringTreemap,
}

/// The inclusive row ids `(first, last)` of a file with row ids and rows.
pub(super) fn file_rows(f: &DataFileMeta) -> Option<(u64, u64)> {
    let first = u64::try_from(f.first_row_id?).ok()?;
    let n = u64::try_from(f.row_count).ok().filter(|n| *n > 0)?;
    Some((first, first.checked_add(n - 1)?))
}

/// Row ids of `files` (their `first_row_id .. + row_count`); files without row ids make the
/// table unindexable (`None`).
pub(super) fn row_universe<'a>(
    files: impl Iterator<Item = &'a DataFileMeta>,
) -> Option<RoaringTreemap> {
    let mut out = RoaringTreemap::new();
    for f in files {
        let first = u64::try_from(f.first_row_id?).ok()?;
        let n = u64::try_from(f.row_count).ok()?;
        if n > 0 {
            out.insert_range(first..first.checked_add(n)?);
        }
    }
    Some(out)
}

/// The rows of `universe` the snapshot's BTree / bitmap global indexes leave for `filter`;
/// `None` when they restrict nothing.
///
/// # Errors
/// Storage errors and `Spec`/`Corrupt` errors naming the index manifest or index file that
/// does not decode. An index file in a layout we do not read (`Unsupported`) is skipped: its
/// rows stay unrestricted.
pub(super) fn indexed_rows(
    table: &Table,
    snapshot: &Snapshot,
    filter: &Predicate,
    universe: &RoaringTreemap,
) -> Result<Option<RoaringTreemap>> {
    let Some(manifest) = &snapshot.index_manifest else {
        return Ok(None);
    };
    let schema = table.schema();
    let wanted: BTreeMap<i32, (String, DataType)> = filter
        .columns()
        .into_iter()
        .filter_map(|c| schema.fields.iter().find(|f| f.name == c))
        .map(|f| (f.id, (f.name.clone(), f.data_type.clone())))
        .collect();
    if wanted.is_empty() {
        return Ok(None);
    }
    let path = table.layout().manifest_path(manifest);
    let bytes = table.file_io().read(&path).map_err(Error::io)?;
    // Per column, the files of the first scalar index type met (a column may carry both).
    let mut by_column: BTreeMap<String, (String, ColumnIndex)> = BTreeMap::new();
    let roots = table.roots();
    for e in IndexManifestEntry::decode_index_manifest(&path, bytes)? {
        let f = &e.index_file;
        let Some(g) = &f.global_index else { continue };
        if e.kind != FileKind::Add
            || (f.index_type != BTREE_INDEX && f.index_type != BITMAP_INDEX)
            || g.extra_field_ids.as_ref().is_some_and(|x| !x.is_empty())
        {
            continue;
        }
        let Some((name, ty)) = wanted.get(&g.index_field_id) else {
            continue;
        };
        let slot = by_column.entry(name.clone()).or_insert_with(|| {
            (
                f.index_type.clone(),
                ColumnIndex {
                    files: Vec::new(),
                    covered: RoaringTreemap::new(),
                },
            )
        });
        if slot.0 != f.index_type {
            continue;
        }
        let file_path = match &f.external_path {
            Some(p) => {
                roots
                    .check("index file _EXTERNAL_PATH", p)
                    .map_err(|err| Error::spec(&path, err))?;
                p.clone()
            }
            None => table.layout().index_path(&f.file_name),
        };
        let data = table.file_io().read(&file_path).map_err(Error::io)?;
        let index = match decode_scalar_index(&f.index_type, &data, ty) {
            Ok(index) => index,
            // A layout we do not read (an older writer's): the file restricts nothing, so the
            // rows it covers stay in the plan and the reader's filter decides.
            Err(paimon_format::Error::Unsupported { .. }) => continue,
            Err(err) => return Err(Error::corrupt(&file_path, err.to_string())),
        };
        // Checked non-negative and ordered when the manifest was decoded.
        let (start, end) = (g.row_range_start as u64, g.row_range_end as u64);
        slot.1.covered.insert_range(start..=end);
        slot.1.files.push(Covered { start, end, index });
    }
    let columns: BTreeMap<String, ColumnIndex> =
        by_column.into_iter().map(|(k, (_, c))| (k, c)).collect();
    Ok(evaluate(filter, &columns, universe).filter(|rows| !universe.is_subset(rows)))
}

fn evaluate(
    p: &Predicate,
    columns: &BTreeMap<String, ColumnIndex>,
    universe: &RoaringTreemap,
) -> Option<RoaringTreemap> {
    match p {
        Predicate::AlwaysFalse => Some(RoaringTreemap::new()),
        Predicate::AlwaysTrue | Predicate::Not(_) => None,
        Predicate::And(children) => children
            .iter()
            .filter_map(|c| evaluate(c, columns, universe))
            .reduce(|a, b| a & b),
        Predicate::Or(children) => {
            let mut out = RoaringTreemap::new();
            for c in children {
                out |= evaluate(c, columns, universe)?;
            }
            Some(out)
        }
        Predicate::Leaf {
            column,
            op,
            literals,
        } => {
            let col = columns.get(column)?;
            let mut out = universe - &col.covered;
            for file in &col.files {
                let local = leaf(&file.index, *op, literals)?;
                let span = file.end - file.start;
                for r in local.iter().take_while(|r| *r <= span) {
                    out.insert(file.start + r);
                }
            }
            Some(out)
        }
    }
}

/// The local rows of one index file matching `column op literals`.
fn leaf(index: &SortedIndex, op: LeafOp, literals: &[Datum]) -> Option<RoaringTreemap> {
    let one = || match literals {
        [l] if !l.is_null() => Some(l),
        _ => None,
    };
    let any_of = || -> Option<RoaringTreemap> {
        let mut out = RoaringTreemap::new();
        for l in literals.iter().filter(|l| !l.is_null()) {
            out |= index.equal(l)?;
        }
        Some(out)
    };
    match op {
        LeafOp::Eq => index.equal(one()?),
        LeafOp::NotEq => Some(index.not_nulls() - index.equal(one()?)?),
        LeafOp::Lt => index.range(Bound::Unbounded, Bound::Excluded(one()?)),
        LeafOp::LtEq => index.range(Bound::Unbounded, Bound::Included(one()?)),
        LeafOp::Gt => index.range(Bound::Excluded(one()?), Bound::Unbounded),
        LeafOp::GtEq => index.range(Bound::Included(one()?), Bound::Unbounded),
        LeafOp::IsNull => Some(index.nulls().clone()),
        LeafOp::IsNotNull => Some(index.not_nulls()),
        LeafOp::In => any_of(),
        // NOT IN with a NULL literal matches nothing in SQL; leave that to the reader.
        LeafOp::NotIn if literals.iter().any(Datum::is_null) => None,
        LeafOp::NotIn => Some(index.not_nulls() - any_of()?),
        LeafOp::StartsWith => None,
    }
}

/// Inclusive `(from, to)` ranges of `rows` within `[first, last]`.
pub(super) fn ranges_within(rows: &RoaringTreemap, first: u64, last: u64) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut within = RoaringTreemap::new();
    within.insert_range(first..=last);
    for r in (rows & &within).iter() {
        let r = r as i64;
        match out.last_mut() {
            Some((_, to)) if *to + 1 == r => *to = r,
            _ => out.push((r, r)),
        }
    }
    out
}
