//! One Arrow cell as a Paimon [`Datum`], for the columns a writer must see row by row:
//! partition values, bucket keys and primary keys.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use paimon_spec::binary::Datum;
use paimon_spec::types::{DataType, TypeKind};

/// The value at `row` of `array`, typed as Paimon `ty`; `None` for an Arrow type this
/// conversion does not cover (nested types, which cannot be keys).
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
