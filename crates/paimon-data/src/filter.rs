//! Exact row filtering with a [`Predicate`] (Java `PredicateFilter` over read rows).
//!
//! Leaves compare a column of the output batch with literals cast to the column's Arrow type;
//! comparisons with null are unknown (SQL three-valued logic) and unknown rows are dropped.

use arrow::compute::kernels::boolean::{and_kleene, not, or_kleene};
use arrow::compute::kernels::comparison::starts_with;
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, Scalar, StringArray};
use arrow_cast::cast::cast;
use arrow_ord::cmp;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::types::DataType;

use crate::datum::datum_to_array;
use crate::error::{Error, Result};

/// Evaluates `pred` on `batch`; `types` gives the Paimon type of every referenced column.
///
/// # Errors
/// [`Error::Unsupported`] for a literal that cannot be compared with its column.
pub fn evaluate(
    pred: &Predicate,
    batch: &RecordBatch,
    type_of: &dyn Fn(&str) -> Option<DataType>,
) -> Result<BooleanArray> {
    let n = batch.num_rows();
    let arrow = |e| Error::arrow("<filter>", e);
    Ok(match pred {
        Predicate::AlwaysTrue => BooleanArray::from(vec![true; n]),
        Predicate::AlwaysFalse => BooleanArray::from(vec![false; n]),
        Predicate::And(c) => {
            let mut acc = BooleanArray::from(vec![true; n]);
            for p in c {
                acc = and_kleene(&acc, &evaluate(p, batch, type_of)?).map_err(arrow)?;
            }
            acc
        }
        Predicate::Or(c) => {
            let mut acc = BooleanArray::from(vec![false; n]);
            for p in c {
                acc = or_kleene(&acc, &evaluate(p, batch, type_of)?).map_err(arrow)?;
            }
            acc
        }
        Predicate::Not(p) => not(&evaluate(p, batch, type_of)?).map_err(arrow)?,
        Predicate::Leaf {
            column,
            op,
            literals,
        } => {
            let col = batch
                .column_by_name(column)
                .ok_or_else(|| Error::Internal(format!("filter column {column} was not read")))?;
            let ty = type_of(column)
                .ok_or_else(|| Error::unsupported(format!("filter on unknown column {column}")))?;
            let lit = |i: usize| -> Result<Option<ArrayRef>> {
                let Some(d) = literals.get(i) else {
                    return Err(Error::unsupported(format!(
                        "{op:?} on {column} without a literal"
                    )));
                };
                if d.is_null() {
                    return Ok(None);
                }
                let a = datum_to_array(d, &ty)?;
                let a = if a.data_type() == col.data_type() {
                    a
                } else {
                    cast(&a, col.data_type()).map_err(arrow)?
                };
                Ok(Some(a))
            };
            let unknown = || BooleanArray::from(vec![None; n]);
            let compare = |i: usize,
                           f: fn(
                &dyn arrow_array::Datum,
                &dyn arrow_array::Datum,
            )
                -> std::result::Result<BooleanArray, arrow_schema::ArrowError>|
             -> Result<BooleanArray> {
                match lit(i)? {
                    None => Ok(unknown()),
                    Some(l) => f(col, &Scalar::new(l)).map_err(arrow),
                }
            };
            match op {
                LeafOp::IsNull => arrow::compute::is_null(col).map_err(arrow)?,
                LeafOp::IsNotNull => arrow::compute::is_not_null(col).map_err(arrow)?,
                LeafOp::Eq => compare(0, cmp::eq)?,
                LeafOp::NotEq => compare(0, cmp::neq)?,
                LeafOp::Lt => compare(0, cmp::lt)?,
                LeafOp::LtEq => compare(0, cmp::lt_eq)?,
                LeafOp::Gt => compare(0, cmp::gt)?,
                LeafOp::GtEq => compare(0, cmp::gt_eq)?,
                LeafOp::In => {
                    let mut acc = BooleanArray::from(vec![false; n]);
                    for i in 0..literals.len() {
                        acc = or_kleene(&acc, &compare(i, cmp::eq)?).map_err(arrow)?;
                    }
                    acc
                }
                LeafOp::NotIn => {
                    let mut acc = BooleanArray::from(vec![true; n]);
                    for i in 0..literals.len() {
                        acc = and_kleene(&acc, &compare(i, cmp::neq)?).map_err(arrow)?;
                    }
                    acc
                }
                LeafOp::StartsWith => {
                    let prefix = literals.first().and_then(|d| d.as_str()).ok_or_else(|| {
                        Error::unsupported(format!("LIKE on {column} without a string"))
                    })?;
                    let strings = cast(col, &arrow_schema::DataType::Utf8).map_err(arrow)?;
                    let s = strings
                        .as_any()
                        .downcast_ref::<StringArray>()
                        .ok_or_else(|| Error::Internal("string cast".into()))?;
                    starts_with(s, &Scalar::new(StringArray::from(vec![prefix]))).map_err(arrow)?
                }
            }
        }
    })
}

/// Rows of `batch` for which `pred` is true.
///
/// # Errors
/// As [`evaluate`].
pub fn filter_batch(
    pred: &Predicate,
    batch: &RecordBatch,
    type_of: &dyn Fn(&str) -> Option<DataType>,
) -> Result<RecordBatch> {
    let mask = evaluate(pred, batch, type_of)?;
    arrow_select::filter::filter_record_batch(batch, &mask).map_err(|e| Error::arrow("<filter>", e))
}
