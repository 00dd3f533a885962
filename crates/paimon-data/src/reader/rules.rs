//! What a split asks of the read beyond its files: the row ranges of an indexed split (Java
//! `IndexedSplit`) and the row filters and column masks of a query-auth split (Java
//! `QueryAuthSplit` / `TableQueryAuthResult`).
//!
//! Every kind of [`Split`] is matched here without a wildcard, so a new kind fails to compile
//! until it is either honoured or refused. A field that cannot be honoured is
//! [`Error::Unsupported`] naming it; nothing is read past it.
//!
//! Per batch, in Java's order:
//!
//! ```text
//! rows of the files ─> row ranges (_ROW_ID) ─> auth row filter + user conjuncts on unmasked
//!   columns (raw values) ─> column masks ─> user conjuncts on masked columns (masked values)
//! ```
//!
//! The user's predicate sees masked values, as Java applies `executeFilter` after `doAuth`;
//! conjuncts on masked columns are also kept out of file pruning, whose statistics hold raw
//! values.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{new_null_array, Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType as ArrowType;
use paimon_spec::predicate::Predicate;
use paimon_spec::predicate_json::{
    predicate_from_json, transform_from_json, StringInput, Transform,
};
use paimon_spec::schema::TableSchema;
use paimon_spec::types::TypeKind;
use paimon_split::frame::{IndexedSplit, QueryAuth};
use paimon_split::{DataSplit, Split};

use super::file::ROW_ID;
use crate::error::{Error, Result};

/// A split as a worker received it, taken apart: the files to read and what restricts them.
#[derive(Debug)]
pub(crate) struct WireSplit<'a> {
    /// The files.
    pub data: &'a DataSplit,
    /// Planned on the table's fallback branch (Java `FallbackSplit.isFallback`).
    pub fallback: bool,
    /// The indexed split around the files, if any.
    pub indexed: Option<&'a IndexedSplit>,
    /// The authorization result of a query-auth split, if any.
    pub auth: Option<&'a QueryAuth>,
}

impl<'a> WireSplit<'a> {
    /// Takes `split` apart; kinds without a single data split are refused.
    pub fn resolve(split: &'a Split, table: &str) -> Result<Self> {
        let refuse = |what: &str| {
            Err(Error::unsupported(format!(
                "reading {what} of {table} in the data plane"
            )))
        };
        match split {
            Split::Data(data) => Ok(WireSplit::plain(data, false)),
            Split::FallbackData { split, is_fallback } => Ok(WireSplit::plain(split, *is_fallback)),
            Split::Indexed(ix) => Ok(WireSplit {
                indexed: Some(ix),
                ..WireSplit::plain(&ix.split, false)
            }),
            Split::Fallback { is_fallback, split } => {
                let mut inner = WireSplit::resolve(split, table)?;
                inner.fallback = *is_fallback;
                Ok(inner)
            }
            Split::QueryAuth { split, auth } => {
                let inner = WireSplit::resolve(split, table)?;
                if inner.auth.is_some() {
                    return refuse("a query-auth split inside a query-auth split");
                }
                Ok(WireSplit {
                    auth: auth.as_ref(),
                    ..inner
                })
            }
            // Java 1.4 reads these with table context (bucket paths, branches) a worker does
            // not have: the caller converts an incremental split to a DataSplit first.
            Split::Incremental(_) => refuse("an incremental split (convert it to a DataSplit)"),
            Split::Chain(_) => refuse("a chain split (files from several branches)"),
        }
    }

    fn plain(data: &'a DataSplit, fallback: bool) -> Self {
        WireSplit {
            data,
            fallback,
            indexed: None,
            auth: None,
        }
    }
}

/// Sorted, disjoint inclusive row-id ranges.
#[derive(Debug, Clone)]
pub(crate) struct RowRanges(Vec<(i64, i64)>);

impl RowRanges {
    fn new(ranges: &[(i64, i64)], table: &str) -> Result<Self> {
        let mut v = ranges.to_vec();
        if let Some((from, to)) = v.iter().find(|(f, t)| f > t) {
            return Err(Error::corrupt(
                format!("<indexed split of {table}>"),
                format!("row range {from}..={to} ends before it starts"),
            ));
        }
        v.sort_unstable();
        let mut merged: Vec<(i64, i64)> = Vec::with_capacity(v.len());
        for (f, t) in v {
            match merged.last_mut() {
                Some(last) if f <= last.1.saturating_add(1) => last.1 = last.1.max(t),
                _ => merged.push((f, t)),
            }
        }
        Ok(RowRanges(merged))
    }

    fn contains(&self, id: i64) -> bool {
        let i = self.0.partition_point(|(_, t)| *t < id);
        self.0.get(i).is_some_and(|(f, _)| *f <= id)
    }

    fn intersects(&self, from: i64, to: i64) -> bool {
        let i = self.0.partition_point(|(_, t)| *t < from);
        self.0.get(i).is_some_and(|(f, _)| *f <= to)
    }

    /// `split` without the files none of whose rows lie in the ranges.
    pub fn prune(&self, split: &DataSplit) -> DataSplit {
        let keep: Vec<bool> = split
            .data_files
            .iter()
            .map(|f| match f.first_row_id {
                Some(first) => self.intersects(first, first.saturating_add(f.row_count.max(1) - 1)),
                None => true,
            })
            .collect();
        let mut out = split.clone();
        out.data_files = split
            .data_files
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(f, _)| f.clone())
            .collect();
        out.data_deletion_files = split.data_deletion_files.as_ref().map(|d| {
            d.iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(f, _)| f.clone())
                .collect()
        });
        out
    }
}

/// One column mask whose target the read returns (or filters on).
#[derive(Debug, Clone)]
struct Mask {
    target: String,
    transform: Transform,
}

/// What a split restricts or transforms; the default restricts nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct SplitRules {
    /// Only rows whose `_ROW_ID` lies in these.
    pub ranges: Option<RowRanges>,
    masks: Vec<Mask>,
    /// User conjuncts on masked columns, evaluated on masked values.
    pub post_predicate: Option<Predicate>,
    /// Columns the rules read beyond the output and the predicate.
    pub extra_columns: Vec<String>,
}

impl SplitRules {
    /// The rules of `wire` for a read of `table` with the user predicate `user`, and the
    /// predicate the read prunes and filters with before masking.
    pub fn new(
        wire: &WireSplit<'_>,
        table: &TableSchema,
        table_path: &str,
        user: Option<&Predicate>,
        output: &[String],
    ) -> Result<(SplitRules, Option<Predicate>)> {
        let mut rules = SplitRules::default();
        if let Some(ix) = wire.indexed {
            check_indexed(ix, table, table_path)?;
            rules.ranges = Some(RowRanges::new(&ix.row_ranges, table_path)?);
            rules.extra_columns.push(ROW_ID.to_string());
        }
        let Some(auth) = wire.auth else {
            return Ok((rules, user.cloned()));
        };
        let what = |e: paimon_spec::Error, rule: &str| match e {
            paimon_spec::Error::Unsupported { feature } => Error::unsupported(format!(
                "{feature}, in the {rule} of a query-auth split of {table_path}"
            )),
            other => Error::corrupt(
                format!("<query-auth split of {table_path}>"),
                format!("{rule}: {other}"),
            ),
        };
        let column = |c: &str, rule: &str| -> Result<()> {
            match table.field(c) {
                Some(_) => Ok(()),
                None => Err(Error::unsupported(format!(
                    "the {rule} of a query-auth split names {c}, which is not a column of {table_path} (schema {})",
                    table.id
                ))),
            }
        };
        let mut filters = Vec::new();
        for (i, json) in auth.filter.iter().flatten().enumerate() {
            let p = predicate_from_json(json).map_err(|e| what(e, &format!("row filter {i}")))?;
            for c in p.columns() {
                column(c, "row filter")?;
            }
            filters.push(p);
        }
        let mut masks: BTreeMap<String, Transform> = BTreeMap::new();
        for (target, json) in auth.column_masking.iter().flatten() {
            let rule = format!("column mask of {target}");
            if target.is_empty() {
                return Err(what(
                    paimon_spec::Error::corrupt("column mask", "empty target column"),
                    &rule,
                ));
            }
            let t = transform_from_json(json).map_err(|e| what(e, &rule))?;
            column(target, &rule)?;
            for c in t.columns() {
                column(c, &rule)?;
            }
            masks.insert(target.clone(), t);
        }
        for (target, t) in &masks {
            // A transform reads raw values: an input masked itself would leak through it.
            if let Some(c) = t
                .columns()
                .into_iter()
                .find(|c| c != target && masks.contains_key(*c))
            {
                return Err(Error::unsupported(format!(
                    "the column mask of {target} in a query-auth split of {table_path} reads {c}, which is masked too"
                )));
            }
            check_mask_type(target, t, table, table_path)?;
        }
        let (pre_user, post_user): (Vec<&Predicate>, Vec<&Predicate>) = user
            .map(Predicate::conjuncts)
            .unwrap_or_default()
            .into_iter()
            .partition(|p| p.columns().iter().all(|c| !masks.contains_key(*c)));
        let post = (!post_user.is_empty())
            .then(|| Predicate::and(post_user.into_iter().cloned().collect()));
        let visible = |c: &str| {
            output.iter().any(|o| o == c) || post.as_ref().is_some_and(|p| p.columns().contains(&c))
        };
        for (target, transform) in masks {
            if !visible(&target) {
                continue;
            }
            for c in transform.columns() {
                rules.extra_columns.push(c.to_string());
            }
            rules.masks.push(Mask { target, transform });
        }
        if let Some(p) = &post {
            rules
                .extra_columns
                .extend(p.columns().into_iter().map(String::from));
        }
        rules.post_predicate = post;
        let pre: Vec<Predicate> = filters
            .into_iter()
            .chain(pre_user.into_iter().cloned())
            .collect();
        let pre = (!pre.is_empty()).then(|| Predicate::and(pre));
        Ok((rules, pre))
    }

    /// Whether any rule applies per batch.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_none() && self.masks.is_empty() && self.post_predicate.is_none()
    }

    /// The rows of `batch` whose `_ROW_ID` lies in the ranges.
    pub fn keep_ranges(&self, batch: RecordBatch) -> Result<RecordBatch> {
        let Some(ranges) = &self.ranges else {
            return Ok(batch);
        };
        let ids = batch
            .column_by_name(ROW_ID)
            .and_then(|c| c.as_any().downcast_ref::<Int64Array>())
            .ok_or_else(|| {
                Error::Internal(format!("{ROW_ID} was not read for an indexed split"))
            })?;
        let keep: arrow_array::BooleanArray = ids
            .iter()
            .map(|id| Some(id.is_some_and(|id| ranges.contains(id))))
            .collect();
        arrow_select::filter::filter_record_batch(&batch, &keep)
            .map_err(|e| Error::arrow("<indexed split>", e))
    }

    /// `batch` with every masked column replaced by its mask computed from the raw row.
    pub fn mask(&self, batch: RecordBatch) -> Result<RecordBatch> {
        if self.masks.is_empty() {
            return Ok(batch);
        }
        let n = batch.num_rows();
        let schema = batch.schema();
        let mut cols: Vec<ArrayRef> = batch.columns().to_vec();
        let fields = schema.fields();
        for m in &self.masks {
            let Some(i) = schema.index_of(&m.target).ok() else {
                continue;
            };
            let target_type = fields[i].data_type().clone();
            let masked = match &m.transform {
                Transform::Null => new_null_array(&target_type, n),
                Transform::Field { column, .. } => column_of(&batch, column)?,
                Transform::Concat(inputs) => strings(&batch, inputs, concat)?,
                Transform::ConcatWs(inputs) => strings(&batch, inputs, concat_ws)?,
                Transform::Upper(input) => strings(&batch, std::slice::from_ref(input), |v| {
                    v[0].map(str::to_uppercase)
                })?,
                Transform::Lower(input) => strings(&batch, std::slice::from_ref(input), |v| {
                    v[0].map(str::to_lowercase)
                })?,
            };
            let masked = if masked.data_type() == &target_type {
                masked
            } else {
                arrow_cast::cast(&masked, &target_type)
                    .map_err(|e| Error::arrow(format!("<column mask of {}>", m.target), e))?
            };
            if !fields[i].is_nullable() && masked.null_count() > 0 {
                // The batch keeps the read's schema, which every split of a plan shares.
                return Err(Error::unsupported(format!(
                    "a column mask that yields null for the NOT NULL column {}",
                    m.target
                )));
            }
            cols[i] = masked;
        }
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(n));
        RecordBatch::try_new_with_options(schema, cols, &options)
            .map_err(|e| Error::arrow("<column mask>", e))
    }
}

fn check_indexed(ix: &IndexedSplit, table: &TableSchema, table_path: &str) -> Result<()> {
    if ix.scores.is_some() {
        // Java hands scores out beside the rows (`ScoreRecordIterator`); a batch has no place
        // for them, and dropping them would not be the split Java planned.
        return Err(Error::unsupported(format!(
            "the scores of an indexed split of {table_path} (per-row vector-search scores)"
        )));
    }
    if !table.primary_keys.is_empty() {
        return Err(Error::unsupported(format!(
            "an indexed split of the primary-key table {table_path}: row ids exist only in append tables with row tracking"
        )));
    }
    if let Some(f) = ix
        .split
        .data_files
        .iter()
        .find(|f| f.first_row_id.is_none())
    {
        return Err(Error::unsupported(format!(
            "an indexed split over {} of {table_path}, a file without a first row id (row tracking off)",
            f.file_name
        )));
    }
    Ok(())
}

/// A mask's value must be of its target's type: Java stores the transform's object in the
/// target's slot unchecked, so another type is not a read Java can do either.
fn check_mask_type(
    target: &str,
    t: &Transform,
    table: &TableSchema,
    table_path: &str,
) -> Result<()> {
    let Some(field) = table.field(target) else {
        return Ok(());
    };
    let is_string = matches!(
        field.data_type.kind,
        TypeKind::Char { .. } | TypeKind::VarChar { .. }
    );
    let fits = match t {
        Transform::Null => true,
        Transform::Field { column, .. } => table
            .field(column)
            .is_some_and(|c| c.data_type.eq_ignore_nullable(&field.data_type)),
        Transform::Concat(_)
        | Transform::ConcatWs(_)
        | Transform::Upper(_)
        | Transform::Lower(_) => is_string,
    };
    if fits {
        Ok(())
    } else {
        Err(Error::unsupported(format!(
            "the column mask of {target} ({}) in a query-auth split of {table_path}: its transform gives another type",
            field.data_type
        )))
    }
}

fn column_of(batch: &RecordBatch, column: &str) -> Result<ArrayRef> {
    batch
        .column_by_name(column)
        .cloned()
        .ok_or_else(|| Error::Internal(format!("mask input {column} was not read")))
}

/// Applies `f` row by row to the string inputs.
fn strings(
    batch: &RecordBatch,
    inputs: &[StringInput],
    f: impl Fn(&[Option<&str>]) -> Option<String>,
) -> Result<ArrayRef> {
    let cols = inputs
        .iter()
        .map(|i| match i {
            StringInput::Column(c) => {
                let a = arrow_cast::cast(&column_of(batch, c)?, &ArrowType::Utf8)
                    .map_err(|e| Error::arrow(format!("<mask input {c}>"), e))?;
                Ok(Some(a))
            }
            StringInput::Literal(_) => Ok(None),
        })
        .collect::<Result<Vec<Option<ArrayRef>>>>()?;
    let cols = cols
        .iter()
        .map(|c| match c {
            Some(a) => a
                .as_string_opt::<i32>()
                .map(Some)
                .ok_or_else(|| Error::Internal("mask input cast to Utf8".into())),
            None => Ok(None),
        })
        .collect::<Result<Vec<_>>>()?;
    let mut row: Vec<Option<&str>> = vec![None; inputs.len()];
    let mut out = Vec::with_capacity(batch.num_rows());
    for r in 0..batch.num_rows() {
        for (k, (input, col)) in inputs.iter().zip(&cols).enumerate() {
            row[k] = match (input, col) {
                (StringInput::Literal(l), _) => l.as_deref(),
                (StringInput::Column(_), Some(s)) => (!s.is_null(r)).then(|| s.value(r)),
                (StringInput::Column(_), None) => None,
            };
        }
        out.push(f(&row));
    }
    Ok(Arc::new(StringArray::from(out)))
}

/// Java `BinaryString.concat`: null when any input is null.
fn concat(v: &[Option<&str>]) -> Option<String> {
    v.iter()
        .copied()
        .collect::<Option<Vec<&str>>>()
        .map(|p| p.concat())
}

/// Java `BinaryString.concatWs`: null when the separator is; null inputs skipped.
fn concat_ws(v: &[Option<&str>]) -> Option<String> {
    let (sep, rest) = v.split_first()?;
    let sep = (*sep)?;
    Some(
        rest.iter()
            .flatten()
            .copied()
            .collect::<Vec<&str>>()
            .join(sep),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_contain() {
        let r = RowRanges::new(&[(10, 12), (0, 1), (2, 3), (20, 20)], "t").unwrap();
        assert_eq!(r.0, vec![(0, 3), (10, 12), (20, 20)]);
        let inside: Vec<i64> = (-1..=22).filter(|i| r.contains(*i)).collect();
        assert_eq!(inside, vec![0, 1, 2, 3, 10, 11, 12, 20]);
        assert!(r.intersects(4, 10));
        assert!(!r.intersects(4, 9));
        assert!(!r.intersects(21, 100));
        assert!(RowRanges::new(&[(3, 2)], "t").is_err());
    }

    #[test]
    fn concat_semantics_follow_binary_string() {
        assert_eq!(concat(&[Some("a"), Some("b")]), Some("ab".into()));
        assert_eq!(concat(&[Some("a"), None]), None);
        assert_eq!(
            concat_ws(&[Some(","), Some("a"), None, Some("c")]),
            Some("a,c".into())
        );
        assert_eq!(concat_ws(&[Some(","), None]), Some(String::new()));
        assert_eq!(concat_ws(&[None, Some("a")]), None);
    }
}
