//! Paimon [`Datum`] values as Arrow arrays (partition values, Java `PartitionSettedRow`, and
//! predicate literals) and Arrow cells as Datums (a writer's keys, cast statistics).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use arrow_array::{
    new_null_array, Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array,
    Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, PrimitiveArray,
    StringArray, Time32MillisecondArray, UInt32Array,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};
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

/// The value at `row` of `array`, typed as Paimon `ty` (the inverse of [`datum_to_array`]);
/// `None` for an Arrow type this conversion does not cover (nested types).
pub fn datum_at(array: &ArrayRef, row: usize, ty: &DataType) -> Option<Datum> {
    if array.is_null(row) {
        return Some(Datum::Null);
    }
    let ltz = matches!(ty.kind, TypeKind::LocalZonedTimestamp { .. });
    let ts = |millis: i64, nanos: i32| {
        if ltz {
            Datum::LocalZonedTimestamp { millis, nanos }
        } else {
            Datum::Timestamp { millis, nanos }
        }
    };
    Some(match array.data_type() {
        ArrowType::Boolean => Datum::Boolean(array.as_boolean().value(row)),
        ArrowType::Int8 => Datum::TinyInt(array.as_primitive::<Int8Type>().value(row)),
        ArrowType::Int16 => Datum::SmallInt(array.as_primitive::<Int16Type>().value(row)),
        ArrowType::Int32 => Datum::Int(array.as_primitive::<Int32Type>().value(row)),
        ArrowType::Int64 => Datum::BigInt(array.as_primitive::<Int64Type>().value(row)),
        ArrowType::Float32 => Datum::Float(array.as_primitive::<Float32Type>().value(row)),
        ArrowType::Float64 => Datum::Double(array.as_primitive::<Float64Type>().value(row)),
        ArrowType::Date32 => Datum::Date(array.as_primitive::<Date32Type>().value(row)),
        ArrowType::Time32(TimeUnit::Millisecond) => {
            Datum::Time(array.as_primitive::<Time32MillisecondType>().value(row))
        }
        ArrowType::Decimal128(p, s) => Datum::Decimal {
            unscaled: array.as_primitive::<Decimal128Type>().value(row),
            precision: u32::from(*p),
            scale: u32::try_from(*s).ok()?,
        },
        ArrowType::Utf8 => Datum::String(array.as_string::<i32>().value(row).to_string()),
        ArrowType::Binary => Datum::Binary(array.as_binary::<i32>().value(row).to_vec()),
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => ts(
            array.as_primitive::<TimestampMillisecondType>().value(row),
            0,
        ),
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            let v = array.as_primitive::<TimestampMicrosecondType>().value(row);
            ts(v.div_euclid(1000), (v.rem_euclid(1000) * 1000) as i32)
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            let v = array.as_primitive::<TimestampNanosecondType>().value(row);
            ts(v.div_euclid(1_000_000), v.rem_euclid(1_000_000) as i32)
        }
        _ => return None,
    })
}
