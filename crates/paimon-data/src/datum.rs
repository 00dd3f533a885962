//! Paimon [`Datum`] values as Arrow arrays: partition values (Java `PartitionSettedRow`) and
//! predicate literals.

use std::sync::Arc;

use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{
    new_null_array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array,
    Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, PrimitiveArray,
    StringArray, Time32MillisecondArray, UInt32Array,
};
use arrow_schema::TimeUnit;
use paimon_spec::binary::Datum;
use paimon_spec::types::{DataType, TypeKind};

use crate::arrow_schema::{timestamp_unit, to_arrow_type, LTZ_TIMEZONE};
use crate::error::{Error, Result};

/// A one-element array holding `datum` as Paimon type `ty`.
///
/// # Errors
/// [`Error::Unsupported`] for nested values and a datum that does not fit `ty`.
pub fn datum_to_array(datum: &Datum, ty: &DataType) -> Result<ArrayRef> {
    let bad = || Error::unsupported(format!("value {datum:?} as a constant of type {ty}"));
    Ok(match (datum, &ty.kind) {
        (Datum::Null, _) => new_null_array(&to_arrow_type(ty), 1),
        (Datum::Boolean(v), TypeKind::Boolean) => Arc::new(BooleanArray::from(vec![*v])),
        (Datum::String(s), TypeKind::Char { .. } | TypeKind::VarChar { .. }) => {
            Arc::new(StringArray::from(vec![s.as_str()]))
        }
        (Datum::Binary(b), _) if matches!(to_arrow_type(ty), arrow_schema::DataType::Binary) => {
            Arc::new(BinaryArray::from(vec![b.as_slice()]))
        }
        (Datum::Float(v), TypeKind::Float) => Arc::new(Float32Array::from(vec![*v])),
        (Datum::Double(v), TypeKind::Double) => Arc::new(Float64Array::from(vec![*v])),
        (Datum::Float(v), TypeKind::Double) => Arc::new(Float64Array::from(vec![f64::from(*v)])),
        (Datum::Decimal { unscaled, .. }, TypeKind::Decimal { precision, scale }) => Arc::new(
            Decimal128Array::from(vec![*unscaled])
                .with_precision_and_scale(
                    u8::try_from(*precision).map_err(|_| bad())?,
                    i8::try_from(*scale).map_err(|_| bad())?,
                )
                .map_err(|_| bad())?,
        ),
        (
            Datum::Timestamp { millis, nanos } | Datum::LocalZonedTimestamp { millis, nanos },
            TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision },
        ) => {
            let tz =
                matches!(ty.kind, TypeKind::LocalZonedTimestamp { .. }).then_some(LTZ_TIMEZONE);
            let n = i128::from(*millis) * 1_000_000 + i128::from(*nanos);
            match timestamp_unit(*precision) {
                TimeUnit::Millisecond => Arc::new(
                    PrimitiveArray::<TimestampMillisecondType>::from(vec![*millis])
                        .with_timezone_opt(tz),
                ),
                TimeUnit::Microsecond => Arc::new(
                    PrimitiveArray::<TimestampMicrosecondType>::from(vec![i64::try_from(
                        n.div_euclid(1000),
                    )
                    .map_err(|_| bad())?])
                    .with_timezone_opt(tz),
                ),
                _ => Arc::new(
                    PrimitiveArray::<TimestampNanosecondType>::from(vec![
                        i64::try_from(n).map_err(|_| bad())?
                    ])
                    .with_timezone_opt(tz),
                ),
            }
        }
        (d, kind) => {
            let v = d.as_i64().ok_or_else(bad)?;
            match kind {
                TypeKind::TinyInt => {
                    Arc::new(Int8Array::from(vec![i8::try_from(v).map_err(|_| bad())?]))
                }
                TypeKind::SmallInt => {
                    Arc::new(Int16Array::from(vec![i16::try_from(v).map_err(|_| bad())?]))
                }
                TypeKind::Int => {
                    Arc::new(Int32Array::from(vec![i32::try_from(v).map_err(|_| bad())?]))
                }
                TypeKind::BigInt => Arc::new(Int64Array::from(vec![v])),
                TypeKind::Date => {
                    Arc::new(Date32Array::from(
                        vec![i32::try_from(v).map_err(|_| bad())?],
                    ))
                }
                TypeKind::Time { .. } => Arc::new(Time32MillisecondArray::from(vec![
                    i32::try_from(v).map_err(|_| bad())?,
                ])),
                TypeKind::Float => Arc::new(Float32Array::from(vec![v as f32])),
                TypeKind::Double => Arc::new(Float64Array::from(vec![v as f64])),
                _ => return Err(bad()),
            }
        }
    })
}

/// `value` repeated `n` times.
///
/// # Errors
/// [`Error::Arrow`] if the repetition fails (it cannot for a one-element input).
pub fn repeat(value: &ArrayRef, n: usize) -> Result<ArrayRef> {
    let idx = UInt32Array::from(vec![0u32; n]);
    arrow_select::take::take(value.as_ref(), &idx, None).map_err(|e| Error::arrow("<constant>", e))
}
