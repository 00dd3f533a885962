//! Arrow batches as Paimon values: for the JSON row encoding and for tests that compare rows.

use anyhow::{anyhow, Result};
use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Date32Array, Decimal128Array,
    FixedSizeListArray, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array,
    LargeBinaryArray, LargeStringArray, ListArray, MapArray, StringArray, StructArray,
    Time32MillisecondArray,
};
use arrow::datatypes::{DataType as ArrowType, TimeUnit};
use arrow::record_batch::RecordBatch;
use paimon_spec::binary::json::datum_to_json;
use paimon_spec::binary::Datum;
use paimon_spec::types::{DataField, DataType, TypeKind};
use serde_json::{Map, Value};

/// The value at `row` of `array`, read as Paimon type `ty`.
///
/// # Errors
/// When the Arrow type does not fit the Paimon type.
pub fn datum_at(array: &ArrayRef, row: usize, ty: &DataType) -> Result<Datum> {
    if array.is_null(row) {
        return Ok(Datum::Null);
    }
    let bad = || anyhow!("Arrow {} cannot hold Paimon {ty}", array.data_type());
    macro_rules! prim {
        ($t:ty, $variant:expr) => {
            $variant(
                array
                    .as_any()
                    .downcast_ref::<$t>()
                    .ok_or_else(bad)?
                    .value(row),
            )
        };
    }
    Ok(match &ty.kind {
        TypeKind::Boolean => prim!(BooleanArray, Datum::Boolean),
        TypeKind::TinyInt => prim!(Int8Array, Datum::TinyInt),
        TypeKind::SmallInt => prim!(Int16Array, Datum::SmallInt),
        TypeKind::Int => prim!(Int32Array, Datum::Int),
        TypeKind::BigInt => prim!(Int64Array, Datum::BigInt),
        TypeKind::Float => prim!(Float32Array, Datum::Float),
        TypeKind::Double => prim!(Float64Array, Datum::Double),
        TypeKind::Date => prim!(Date32Array, Datum::Date),
        TypeKind::Time { .. } => prim!(Time32MillisecondArray, Datum::Time),
        TypeKind::Decimal { precision, scale } => Datum::Decimal {
            unscaled: array
                .as_any()
                .downcast_ref::<Decimal128Array>()
                .ok_or_else(bad)?
                .value(row),
            precision: *precision,
            scale: *scale,
        },
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => match array.data_type() {
            ArrowType::Utf8 => Datum::String(
                array
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .ok_or_else(bad)?
                    .value(row)
                    .to_string(),
            ),
            ArrowType::LargeUtf8 => Datum::String(
                array
                    .as_any()
                    .downcast_ref::<LargeStringArray>()
                    .ok_or_else(bad)?
                    .value(row)
                    .to_string(),
            ),
            ArrowType::Utf8View => Datum::String(array.as_string_view().value(row).to_string()),
            _ => return Err(bad()),
        },
        TypeKind::Binary { .. }
        | TypeKind::VarBinary { .. }
        | TypeKind::Blob
        | TypeKind::Spatial { .. } => match array.data_type() {
            ArrowType::Binary => Datum::Binary(
                array
                    .as_any()
                    .downcast_ref::<BinaryArray>()
                    .ok_or_else(bad)?
                    .value(row)
                    .to_vec(),
            ),
            ArrowType::LargeBinary => Datum::Binary(
                array
                    .as_any()
                    .downcast_ref::<LargeBinaryArray>()
                    .ok_or_else(bad)?
                    .value(row)
                    .to_vec(),
            ),
            ArrowType::FixedSizeBinary(_) => {
                Datum::Binary(array.as_fixed_size_binary().value(row).to_vec())
            }
            ArrowType::BinaryView => Datum::Binary(array.as_binary_view().value(row).to_vec()),
            _ => return Err(bad()),
        },
        TypeKind::Timestamp { .. } | TypeKind::LocalZonedTimestamp { .. } => {
            let (millis, nanos) = match array.data_type() {
                ArrowType::Timestamp(TimeUnit::Second, _) => (
                    array
                        .as_primitive::<arrow::datatypes::TimestampSecondType>()
                        .value(row)
                        .saturating_mul(1000),
                    0,
                ),
                ArrowType::Timestamp(TimeUnit::Millisecond, _) => (
                    array
                        .as_primitive::<arrow::datatypes::TimestampMillisecondType>()
                        .value(row),
                    0,
                ),
                ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
                    let v = array
                        .as_primitive::<arrow::datatypes::TimestampMicrosecondType>()
                        .value(row);
                    (v.div_euclid(1000), (v.rem_euclid(1000) * 1000) as i32)
                }
                ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
                    let v = array
                        .as_primitive::<arrow::datatypes::TimestampNanosecondType>()
                        .value(row);
                    (v.div_euclid(1_000_000), v.rem_euclid(1_000_000) as i32)
                }
                _ => return Err(bad()),
            };
            if matches!(ty.kind, TypeKind::Timestamp { .. }) {
                Datum::Timestamp { millis, nanos }
            } else {
                Datum::LocalZonedTimestamp { millis, nanos }
            }
        }
        TypeKind::Array(elem) | TypeKind::Vector { element: elem, .. } => {
            let values = match array.data_type() {
                ArrowType::List(_) => array
                    .as_any()
                    .downcast_ref::<ListArray>()
                    .ok_or_else(bad)?
                    .value(row),
                ArrowType::FixedSizeList(_, _) => array
                    .as_any()
                    .downcast_ref::<FixedSizeListArray>()
                    .ok_or_else(bad)?
                    .value(row),
                ArrowType::LargeList(_) => array.as_list::<i64>().value(row),
                _ => return Err(bad()),
            };
            Datum::Array(
                (0..values.len())
                    .map(|i| datum_at(&values, i, elem))
                    .collect::<Result<_>>()?,
            )
        }
        TypeKind::Map { key, value } => map_pairs(array, row, key, value)?,
        TypeKind::Multiset(elem) => {
            map_pairs(array, row, elem, &DataType::nullable(TypeKind::Int))?
        }
        TypeKind::Row(fields) => {
            let s = array
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or_else(bad)?;
            Datum::Row(
                fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| datum_at(s.column(i), row, &f.data_type))
                    .collect::<Result<_>>()?,
            )
        }
        TypeKind::Variant => {
            let s = array
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or_else(bad)?;
            let get = |i: usize| -> Result<Vec<u8>> {
                Ok(s.column(i)
                    .as_any()
                    .downcast_ref::<BinaryArray>()
                    .ok_or_else(bad)?
                    .value(row)
                    .to_vec())
            };
            Datum::Variant {
                value: get(0)?,
                metadata: get(1)?,
            }
        }
        _ => return Err(bad()),
    })
}

fn map_pairs(array: &ArrayRef, row: usize, key: &DataType, value: &DataType) -> Result<Datum> {
    let m = array
        .as_any()
        .downcast_ref::<MapArray>()
        .ok_or_else(|| anyhow!("Arrow {} is not a map", array.data_type()))?;
    let entries = m.value(row);
    let (k, v) = (entries.column(0).clone(), entries.column(1).clone());
    Ok(Datum::Map(
        (0..entries.len())
            .map(|i| Ok((datum_at(&k, i, key)?, datum_at(&v, i, value)?)))
            .collect::<Result<_>>()?,
    ))
}

/// Each row of `batch` as a JSON object in the oracle's row encoding; `fields` give the Paimon
/// types of the batch's columns, by position.
///
/// # Errors
/// When a column does not fit its type.
pub fn batch_to_json_rows(batch: &RecordBatch, fields: &[DataField]) -> Result<Vec<Value>> {
    let mut rows = Vec::with_capacity(batch.num_rows());
    for r in 0..batch.num_rows() {
        let mut m = Map::new();
        for (i, f) in fields.iter().enumerate() {
            let col = batch.column(i);
            let d = datum_at(col, r, &f.data_type)?;
            m.insert(
                batch.schema().field(i).name().clone(),
                datum_to_json(&d, &f.data_type),
            );
        }
        rows.push(Value::Object(m));
    }
    Ok(rows)
}
