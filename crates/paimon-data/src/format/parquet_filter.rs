//! Late materialization of Parquet reads: the read's predicate as a `parquet` crate
//! [`RowFilter`], so the predicate's columns are decoded first and the other projected
//! columns only for the rows that pass (on top of the deletion vector's `RowSelection` and
//! statistics pruning).
//!
//! Like pruning, the pushed filter is an optimisation under the exact filter, which still runs
//! on every output row: it may keep rows that do not match, it must never drop one that does.
//! So only leaves on columns the file holds with the read's type and that decode to the Arrow
//! type the read's filter sees are evaluated ([`FilePredicate::for_row_filter`] plus the
//! decoded type checked here); every other leaf counts as true. The predicate has no NOT
//! ([`FilePredicate`] gives up on it), so AND/OR under SQL three-valued logic are monotone:
//! replacing a leaf by true can only turn a row's result from false or unknown towards true.
//! A row is dropped when the result is false or unknown, as the exact filter drops it; a
//! filter that fails to evaluate (a literal that cannot be cast) keeps the whole batch and
//! leaves the error to the exact filter.
//!
//! The filter's columns are decoded twice (once for the filter, once for the output), so it
//! is only used when the read projects other columns too, and only when it keeps few rows:
//! it is first evaluated on a sample of the file's rows ([`Pushed::selective`]).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, BooleanArray, RecordBatch};
use arrow_schema::{ArrowError, Schema};
use paimon_spec::predicate::Predicate;
use paimon_spec::types::DataType;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
    RowFilter, RowSelection,
};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;
use parquet::schema::types::SchemaDescriptor;

use super::FilePredicate;
use crate::arrow_schema::to_arrow_type;

/// Rows of the file decoded (filter columns only) to estimate how many rows the filter keeps.
const SAMPLE_ROWS: usize = 65_536;

/// The filter is pushed when it keeps at most this fraction of the sampled rows. Measured by
/// `benches/late_materialization.rs` (always pushed, against not at all): 0.60-0.84x the time
/// at 0.1% of the rows kept, 0.85-1.09x at 1%, 1.04-1.29x from 10% up, where decoding the
/// filter's columns twice costs more than the skipped rows save.
const MAX_KEPT: f64 = 0.005;

/// A filter that can be pushed into the decoder of one file.
pub(super) struct Pushed {
    predicate: Predicate,
    types: HashMap<String, DataType>,
    mask: ProjectionMask,
    /// The top-level columns the filter decodes.
    pub(super) roots: Vec<usize>,
}

/// The filter for `pred` on a file whose columns decode as `schema` (`descr` its Parquet
/// schema), when the read decodes the top-level columns `roots`; `None` when no leaf can be
/// evaluated or the filter would decode every projected column anyway.
pub(super) fn plan(
    pred: &FilePredicate,
    schema: &Schema,
    descr: &SchemaDescriptor,
    roots: &[usize],
) -> Option<Pushed> {
    let mut types = HashMap::new();
    let resolved = resolve(pred, schema, &mut types);
    if !resolved.can_prune() {
        return None;
    }
    let mut filter_roots: Vec<usize> = types
        .keys()
        .filter_map(|name| schema.index_of(name).ok())
        .collect();
    filter_roots.sort_unstable();
    if roots.iter().all(|r| filter_roots.contains(r)) {
        return None;
    }
    Some(Pushed {
        predicate: to_predicate(&resolved),
        types,
        mask: ProjectionMask::roots(descr, filter_roots.clone()),
        roots: filter_roots,
    })
}

impl Pushed {
    /// Whether the filter keeps few enough of the first [`SAMPLE_ROWS`] selected rows of the
    /// file (`meta` its metadata) to be worth pushing ([`super::LateMaterialization::Auto`]);
    /// any failure
    /// says no.
    pub(super) fn selective<R: ChunkReader + Clone + 'static>(
        &self,
        data: &R,
        meta: &Arc<ParquetMetaData>,
        row_groups: Option<Vec<usize>>,
        selection: Option<RowSelection>,
    ) -> bool {
        let Ok(meta) = ArrowReaderMetadata::try_new(meta.clone(), ArrowReaderOptions::new()) else {
            return false;
        };
        let mut builder = ParquetRecordBatchReaderBuilder::new_with_metadata(data.clone(), meta)
            .with_projection(self.mask.clone())
            .with_batch_size(SAMPLE_ROWS)
            .with_limit(SAMPLE_ROWS);
        if let Some(g) = row_groups {
            builder = builder.with_row_groups(g);
        }
        if let Some(s) = selection {
            builder = builder.with_row_selection(s);
        }
        let Ok(reader) = builder.build() else {
            return false;
        };
        let (mut kept, mut seen) = (0usize, 0usize);
        for batch in reader {
            let Ok(batch) = batch else {
                return false;
            };
            seen += batch.num_rows();
            kept += self.keep(&batch).true_count();
        }
        seen > 0 && (kept as f64) <= MAX_KEPT * seen as f64
    }

    /// Where the filter keeps rows of `batch` (its columns); every row when it cannot be
    /// evaluated.
    fn keep(&self, batch: &RecordBatch) -> BooleanArray {
        let type_of = |c: &str| self.types.get(c).cloned();
        match crate::filter::evaluate(&self.predicate, batch, &type_of) {
            // Unknown (null) drops the row, as the exact filter does.
            Ok(m) if m.len() == batch.num_rows() => {
                (0..m.len()).map(|i| m.is_valid(i) && m.value(i)).collect()
            }
            _ => BooleanArray::from(vec![true; batch.num_rows()]),
        }
    }

    /// The `parquet` crate's row filter.
    pub(super) fn into_row_filter(self) -> RowFilter {
        let mask = self.mask.clone();
        let f =
            move |batch: RecordBatch| -> Result<BooleanArray, ArrowError> { Ok(self.keep(&batch)) };
        RowFilter::new(vec![Box::new(ArrowPredicateFn::new(mask, f))])
    }
}

/// `pred` with every leaf the decoded file cannot judge exactly made [`FilePredicate::Unknown`];
/// `types` collects the Paimon type of each column a kept leaf reads.
fn resolve(
    pred: &FilePredicate,
    schema: &Schema,
    types: &mut HashMap<String, DataType>,
) -> FilePredicate {
    match pred {
        FilePredicate::And(c) => {
            FilePredicate::And(c.iter().map(|p| resolve(p, schema, types)).collect())
        }
        FilePredicate::Or(c) => {
            FilePredicate::Or(c.iter().map(|p| resolve(p, schema, types)).collect())
        }
        FilePredicate::Leaf { column, ty, .. } => {
            let decoded = schema.field_with_name(column).ok();
            let same = decoded.is_some_and(|f| f.data_type() == &to_arrow_type(ty));
            // One column read as two Paimon types cannot be (the file has one type per name).
            let consistent = types.get(column).is_none_or(|t| t.eq_ignore_nullable(ty));
            if same && consistent {
                types.insert(column.clone(), ty.clone());
                pred.clone()
            } else {
                FilePredicate::Unknown
            }
        }
        FilePredicate::Never | FilePredicate::Unknown => pred.clone(),
    }
}

/// The file predicate as a [`Predicate`] over the file's column names.
fn to_predicate(pred: &FilePredicate) -> Predicate {
    match pred {
        FilePredicate::And(c) => Predicate::And(c.iter().map(to_predicate).collect()),
        FilePredicate::Or(c) => Predicate::Or(c.iter().map(to_predicate).collect()),
        FilePredicate::Leaf {
            column,
            op,
            literals,
            ..
        } => Predicate::Leaf {
            column: column.clone(),
            op: *op,
            literals: literals.clone(),
        },
        FilePredicate::Never => Predicate::AlwaysFalse,
        FilePredicate::Unknown => Predicate::AlwaysTrue,
    }
}
