//! ORC manifests (tables written with the old `manifest.format=orc`), read through `orc-rust`
//! into Arrow and converted to the same [`Value`] records as Avro manifests.

use crate::error::{Error, Result};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, TimeUnit};

use crate::value::{Record, Value};

/// The ORC file magic.
pub const MAGIC: &[u8; 3] = b"ORC";

/// Decodes every row of an ORC file into records named by the file's columns.
///
/// # Errors
/// A reason string when the file cannot be decoded; callers add the path.
pub fn read_orc(bytes: bytes::Bytes) -> Result<Vec<Value>> {
    // orc-rust 0.9 recurses without end on a footer whose types form a cycle (a stack overflow
    // no catch_unwind can catch), so the type tree is checked first.
    super::tail::check_type_tree(&bytes).map_err(|e| bad(e.to_string()))?;
    // orc-rust 0.9 panics on some corrupt inputs (unwrapped decompression errors, lying stream
    // lengths); a damaged manifest must be an error, not a crash.
    std::panic::catch_unwind(move || read_orc_inner(bytes))
        .unwrap_or_else(|_| Err(bad("the decoder failed on corrupt data")))
}

fn read_orc_inner(bytes: bytes::Bytes) -> Result<Vec<Value>> {
    let reader = orc_rust::ArrowReaderBuilder::try_new(bytes)
        .map_err(|e| bad(e.to_string()))?
        .build();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| bad(e.to_string()))?;
        batch_to_records(&batch, &mut out)?;
    }
    Ok(out)
}

/// Appends each row of an Arrow batch (from an ORC or Parquet manifest) as a record.
pub(crate) fn batch_to_records(batch: &RecordBatch, out: &mut Vec<Value>) -> Result<()> {
    let schema = batch.schema();
    let names: Arc<[String]> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let columns = batch.columns();
    for row in 0..batch.num_rows() {
        let mut vals = Vec::with_capacity(columns.len());
        for c in columns {
            vals.push(cell(c.as_ref(), row)?);
        }
        out.push(Value::Record(Record::new(names.clone(), vals)));
    }
    Ok(())
}

/// The value at `row` of an Arrow array.
fn cell(a: &dyn Array, row: usize) -> Result<Value> {
    if a.is_null(row) {
        return Ok(Value::Null);
    }
    Ok(match a.data_type() {
        ArrowType::Null => Value::Null,
        ArrowType::Boolean => Value::Boolean(a.as_boolean().value(row)),
        ArrowType::Int8 => Value::Int(i32::from(a.as_primitive::<Int8Type>().value(row))),
        ArrowType::Int16 => Value::Int(i32::from(a.as_primitive::<Int16Type>().value(row))),
        ArrowType::Int32 => Value::Int(a.as_primitive::<Int32Type>().value(row)),
        ArrowType::Int64 => Value::Long(a.as_primitive::<Int64Type>().value(row)),
        ArrowType::Float32 => Value::Float(a.as_primitive::<Float32Type>().value(row)),
        ArrowType::Float64 => Value::Double(a.as_primitive::<Float64Type>().value(row)),
        ArrowType::Date32 => Value::Int(a.as_primitive::<Date32Type>().value(row)),
        ArrowType::Timestamp(unit, _) => {
            let millis = match unit {
                TimeUnit::Second => a
                    .as_primitive::<TimestampSecondType>()
                    .value(row)
                    .saturating_mul(1000),
                TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().value(row),
                TimeUnit::Microsecond => a
                    .as_primitive::<TimestampMicrosecondType>()
                    .value(row)
                    .div_euclid(1000),
                TimeUnit::Nanosecond => a
                    .as_primitive::<TimestampNanosecondType>()
                    .value(row)
                    .div_euclid(1_000_000),
            };
            Value::Long(millis)
        }
        ArrowType::Utf8 => Value::String(a.as_string::<i32>().value(row).to_string()),
        ArrowType::LargeUtf8 => Value::String(a.as_string::<i64>().value(row).to_string()),
        ArrowType::Binary => Value::Bytes(a.as_binary::<i32>().value(row).to_vec()),
        ArrowType::LargeBinary => Value::Bytes(a.as_binary::<i64>().value(row).to_vec()),
        ArrowType::List(_) => {
            let l = a.as_list::<i32>();
            list_values(l.value(row).as_ref())?
        }
        ArrowType::LargeList(_) => {
            let l = a.as_list::<i64>();
            list_values(l.value(row).as_ref())?
        }
        ArrowType::Map(_, _) => {
            let m = a.as_map();
            let entries = m.value(row);
            let keys = entries.column(0);
            let vals = entries.column(1);
            let mut out = Vec::with_capacity(entries.len());
            for i in 0..entries.len() {
                let k = match cell(keys.as_ref(), i)? {
                    Value::String(s) => s,
                    other => {
                        return Err(bad(format!("manifest map key is not a string: {other:?}")))
                    }
                };
                out.push((k, cell(vals.as_ref(), i)?));
            }
            Value::Map(out)
        }
        ArrowType::Struct(fields) => {
            let s = a.as_struct();
            let names: Arc<[String]> = fields.iter().map(|f| f.name().clone()).collect();
            let mut vals = Vec::with_capacity(fields.len());
            for c in s.columns() {
                vals.push(cell(c.as_ref(), row)?);
            }
            Value::Record(Record::new(names, vals))
        }
        other => return Err(bad(format!("unsupported manifest column type {other}"))),
    })
}

fn list_values(a: &dyn Array) -> Result<Value> {
    let mut out = Vec::with_capacity(a.len());
    for i in 0..a.len() {
        out.push(cell(a, i)?);
    }
    Ok(Value::Array(out))
}

/// An [`Error`] of ORC file: `reason` says what is wrong.
fn bad(reason: impl Into<String>) -> Error {
    Error::corrupt("ORC file", reason)
}
