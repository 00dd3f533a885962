//! Field aggregators (Java `mergetree/compact/aggregate/Field*Agg`).
//!
//! An aggregator folds input cells into an accumulator cell. It never copies a value it can
//! point at: pickers (`last_value`, `max`, `bool_and`, ...) answer [`AggOut::KeepAcc`] or
//! [`AggOut::TakeInput`]; only computing functions (`sum`, `listagg`, `collect`, ...) build a
//! one-row array. Null and retraction rules follow each Java class; functions without a
//! retraction in Java fail on `-U`/`-D` input unless `fields.<f>.ignore-retract` is set.

use std::fmt;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, BooleanArray};
use arrow_schema::DataType;

use super::cell::{compare_cells, Cell};
use super::error::{invalid_option, merge_failed, unsupported, Result};
use super::{aggregate_collections as coll, aggregate_numeric as num};

/// What an aggregation step makes of the accumulator.
#[derive(Debug)]
pub(crate) enum AggOut {
    /// The accumulator is unchanged.
    KeepAcc,
    /// The accumulator becomes the input cell (possibly null).
    TakeInput,
    /// The accumulator becomes null.
    Null,
    /// The accumulator becomes this computed one-row array.
    Value(ArrayRef),
    /// The accumulator becomes this computed number.
    Num(super::aggregate_numeric::Num),
}

impl AggOut {
    fn swapped(self) -> Self {
        match self {
            AggOut::KeepAcc => AggOut::TakeInput,
            AggOut::TakeInput => AggOut::KeepAcc,
            other => other,
        }
    }
}

/// One column's aggregate function (Java `FieldAggregator`).
pub(crate) trait FieldAgg: Send + fmt::Debug {
    /// Clears per-key state (Java `reset`).
    fn reset(&mut self) {}
    /// `agg(accumulator, input)`; `None` is null.
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut>;
    /// Java `aggReversed`: `agg(input, accumulator)` unless overridden.
    fn agg_reversed(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        Ok(self.agg(input, acc)?.swapped())
    }
    /// Java `retract`; by default retraction is not supported.
    fn retract(&mut self, _acc: Option<Cell<'_>>, _input: Option<Cell<'_>>) -> Result<AggOut> {
        Err(no_retract(self.name()))
    }
    /// The function name, for messages.
    fn name(&self) -> &'static str;
}

pub(crate) fn no_retract(name: &str) -> super::error::MergeError {
    merge_failed(format!(
        "aggregate function '{name}' does not support retraction; set \
         'fields.<field>.ignore-retract'='true' to ignore retraction messages"
    ))
}

/// An aggregate function name as written in `fields.<f>.aggregate-function`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AggFunction {
    /// `primary-key`: the key columns, always the latest input.
    PrimaryKey,
    /// `sum`
    Sum,
    /// `product`
    Product,
    /// `max`
    Max,
    /// `min`
    Min,
    /// `last_value`
    LastValue,
    /// `last_non_null_value` (the default)
    LastNonNullValue,
    /// `first_value`
    FirstValue,
    /// `first_non_null_value` (legacy `first_not_null_value`)
    FirstNonNullValue,
    /// `bool_and`
    BoolAnd,
    /// `bool_or`
    BoolOr,
    /// `listagg`
    ListAgg,
    /// `collect`
    Collect,
    /// `merge_map`
    MergeMap,
}

impl AggFunction {
    /// Parses Java's factory identifier.
    ///
    /// # Errors
    /// [`super::MergeError::Unsupported`] for Java functions not implemented here (sketches,
    /// bitmaps, nested updates, `merge_map_with_keytime`), [`super::MergeError::InvalidOption`]
    /// for unknown names.
    pub fn parse(name: &str) -> Result<Self> {
        Ok(match name {
            "primary-key" => AggFunction::PrimaryKey,
            "sum" => AggFunction::Sum,
            "product" => AggFunction::Product,
            "max" => AggFunction::Max,
            "min" => AggFunction::Min,
            "last_value" => AggFunction::LastValue,
            "last_non_null_value" => AggFunction::LastNonNullValue,
            "first_value" => AggFunction::FirstValue,
            "first_non_null_value" | "first_not_null_value" => AggFunction::FirstNonNullValue,
            "bool_and" => AggFunction::BoolAnd,
            "bool_or" => AggFunction::BoolOr,
            "listagg" => AggFunction::ListAgg,
            "collect" => AggFunction::Collect,
            "merge_map" => AggFunction::MergeMap,
            "merge_map_with_keytime"
            | "nested_update"
            | "nested_partial_update"
            | "hll_sketch"
            | "theta_sketch"
            | "rbm32"
            | "rbm64"
            | "count"
            | "avg" => return Err(unsupported(format!("aggregate function '{name}'"))),
            other => {
                return Err(invalid_option(format!(
                    "unsupported aggregation '{other}' or misspelled aggregate function"
                )))
            }
        })
    }
}

/// A column's aggregate function with its per-field options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggSpec {
    /// The function.
    pub function: AggFunction,
    /// `fields.<f>.ignore-retract`: retractions leave the accumulator unchanged.
    pub ignore_retract: bool,
    /// `fields.<f>.list-agg-delimiter` (default `,`), used by `listagg`.
    pub delimiter: String,
    /// `fields.<f>.distinct`, used by `listagg` and `collect`.
    pub distinct: bool,
}

impl AggSpec {
    /// A spec with Java's per-field defaults.
    pub fn new(function: AggFunction) -> Self {
        AggSpec {
            function,
            ignore_retract: false,
            delimiter: ",".to_string(),
            distinct: false,
        }
    }

    /// Reads the per-field options of `field` from the table options.
    pub(crate) fn from_options(
        function: AggFunction,
        field: &str,
        options: &paimon_spec::options::CoreOptions,
    ) -> Result<Self> {
        let flag = |suffix: &str| -> Result<bool> {
            match options.field_option(field, suffix).map(str::trim) {
                None => Ok(false),
                Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
                Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
                Some(v) => Err(invalid_option(format!(
                    "'fields.{field}.{suffix}' must be true or false, not '{v}'"
                ))),
            }
        };
        Ok(AggSpec {
            function,
            ignore_retract: flag("ignore-retract")?,
            delimiter: options
                .field_option(field, "list-agg-delimiter")
                .unwrap_or(",")
                .to_string(),
            distinct: flag("distinct")?,
        })
    }

    /// Instantiates the aggregator for a column of `data_type`, checking the type as Java's
    /// factories do.
    pub(crate) fn create(&self, field: &str, data_type: &DataType) -> Result<Box<dyn FieldAgg>> {
        let bad_type = |what: &str| {
            Err(invalid_option(format!(
                "field '{field}' of type {data_type} cannot use '{what}'"
            )))
        };
        let inner: Box<dyn FieldAgg> = match self.function {
            AggFunction::PrimaryKey => Box::new(PrimaryKeyAgg),
            AggFunction::Sum | AggFunction::Product => {
                if !num::is_numeric(data_type) {
                    return bad_type(if self.function == AggFunction::Sum {
                        "sum"
                    } else {
                        "product"
                    });
                }
                if self.function == AggFunction::Sum {
                    Box::new(num::SumAgg)
                } else {
                    Box::new(num::ProductAgg)
                }
            }
            AggFunction::Max => Box::new(MaxMinAgg { max: true }),
            AggFunction::Min => Box::new(MaxMinAgg { max: false }),
            AggFunction::LastValue => Box::new(LastValueAgg),
            AggFunction::LastNonNullValue => Box::new(LastNonNullValueAgg),
            AggFunction::FirstValue => Box::new(FirstValueAgg { initialized: false }),
            AggFunction::FirstNonNullValue => Box::new(FirstNonNullValueAgg { initialized: false }),
            AggFunction::BoolAnd | AggFunction::BoolOr => {
                if data_type != &DataType::Boolean {
                    return bad_type("bool_and/bool_or");
                }
                Box::new(BoolAgg {
                    and: self.function == AggFunction::BoolAnd,
                })
            }
            AggFunction::ListAgg => {
                if !matches!(
                    data_type,
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                ) {
                    return bad_type("listagg");
                }
                Box::new(coll::ListAggAgg::new(
                    self.delimiter.clone(),
                    self.distinct,
                    data_type.clone(),
                ))
            }
            AggFunction::Collect => {
                if !matches!(data_type, DataType::List(_) | DataType::LargeList(_)) {
                    return bad_type("collect");
                }
                Box::new(coll::CollectAgg::new(self.distinct, data_type.clone()))
            }
            AggFunction::MergeMap => {
                if !matches!(data_type, DataType::Map(_, _)) {
                    return bad_type("merge_map");
                }
                Box::new(coll::MergeMapAgg::new(data_type.clone()))
            }
        };
        Ok(if self.ignore_retract {
            Box::new(IgnoreRetractAgg(inner))
        } else {
            inner
        })
    }
}

#[derive(Debug)]
struct PrimaryKeyAgg;

impl FieldAgg for PrimaryKeyAgg {
    fn agg(&mut self, _acc: Option<Cell<'_>>, _input: Option<Cell<'_>>) -> Result<AggOut> {
        Ok(AggOut::TakeInput)
    }
    fn retract(&mut self, _acc: Option<Cell<'_>>, _input: Option<Cell<'_>>) -> Result<AggOut> {
        Ok(AggOut::TakeInput)
    }
    fn name(&self) -> &'static str {
        "primary-key"
    }
}

#[derive(Debug)]
struct LastValueAgg;

impl FieldAgg for LastValueAgg {
    fn agg(&mut self, _acc: Option<Cell<'_>>, _input: Option<Cell<'_>>) -> Result<AggOut> {
        Ok(AggOut::TakeInput)
    }
    fn retract(&mut self, _acc: Option<Cell<'_>>, _input: Option<Cell<'_>>) -> Result<AggOut> {
        Ok(AggOut::Null)
    }
    fn name(&self) -> &'static str {
        "last_value"
    }
}

#[derive(Debug)]
struct LastNonNullValueAgg;

impl FieldAgg for LastNonNullValueAgg {
    fn agg(&mut self, _acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        Ok(if input.is_none() {
            AggOut::KeepAcc
        } else {
            AggOut::TakeInput
        })
    }
    fn retract(&mut self, _acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        Ok(if input.is_some() {
            AggOut::Null
        } else {
            AggOut::KeepAcc
        })
    }
    fn name(&self) -> &'static str {
        "last_non_null_value"
    }
}

#[derive(Debug)]
struct FirstValueAgg {
    initialized: bool,
}

impl FieldAgg for FirstValueAgg {
    fn reset(&mut self) {
        self.initialized = false;
    }
    fn agg(&mut self, _acc: Option<Cell<'_>>, _input: Option<Cell<'_>>) -> Result<AggOut> {
        if self.initialized {
            Ok(AggOut::KeepAcc)
        } else {
            self.initialized = true;
            Ok(AggOut::TakeInput)
        }
    }
    fn name(&self) -> &'static str {
        "first_value"
    }
}

#[derive(Debug)]
struct FirstNonNullValueAgg {
    initialized: bool,
}

impl FieldAgg for FirstNonNullValueAgg {
    fn reset(&mut self) {
        self.initialized = false;
    }
    fn agg(&mut self, _acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        if !self.initialized && input.is_some() {
            self.initialized = true;
            Ok(AggOut::TakeInput)
        } else {
            Ok(AggOut::KeepAcc)
        }
    }
    fn name(&self) -> &'static str {
        "first_non_null_value"
    }
}

#[derive(Debug)]
struct MaxMinAgg {
    max: bool,
}

impl FieldAgg for MaxMinAgg {
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let (Some(a), Some(i)) = (acc, input) else {
            return Ok(if acc.is_none() {
                AggOut::TakeInput
            } else {
                AggOut::KeepAcc
            });
        };
        let less = compare_cells(a, i)?.is_lt();
        // Java: max keeps the accumulator unless it is smaller; min keeps it only if smaller.
        Ok(if less == self.max {
            AggOut::TakeInput
        } else {
            AggOut::KeepAcc
        })
    }
    fn name(&self) -> &'static str {
        if self.max {
            "max"
        } else {
            "min"
        }
    }
}

#[derive(Debug)]
struct BoolAgg {
    and: bool,
}

fn bool_at(c: Cell<'_>) -> Result<bool> {
    let (array, row) = c.at()?;
    let a: &BooleanArray = array
        .as_boolean_opt()
        .ok_or_else(|| merge_failed(format!("bool_and/bool_or on {}", array.data_type())))?;
    Ok(a.value(row))
}

impl FieldAgg for BoolAgg {
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let (Some(a), Some(_)) = (acc, input) else {
            return Ok(if acc.is_none() {
                AggOut::TakeInput
            } else {
                AggOut::KeepAcc
            });
        };
        // a AND b is a when a is false, else b; a OR b is a when a is true, else b.
        Ok(if bool_at(a)? != self.and {
            AggOut::KeepAcc
        } else {
            AggOut::TakeInput
        })
    }
    fn name(&self) -> &'static str {
        if self.and {
            "bool_and"
        } else {
            "bool_or"
        }
    }
}

/// Java `FieldIgnoreRetractAgg`.
#[derive(Debug)]
struct IgnoreRetractAgg(Box<dyn FieldAgg>);

impl FieldAgg for IgnoreRetractAgg {
    fn reset(&mut self) {
        self.0.reset();
    }
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        self.0.agg(acc, input)
    }
    // Java's wrapper does not forward `aggReversed`: the default (swapped `agg`) applies.
    fn retract(&mut self, _acc: Option<Cell<'_>>, _input: Option<Cell<'_>>) -> Result<AggOut> {
        Ok(AggOut::KeepAcc)
    }
    fn name(&self) -> &'static str {
        self.0.name()
    }
}
