//! Manifest-family files in Parquet (`manifest.format=parquet`), laid out as Java 1.4.2's
//! `ParquetWriterFactory` writes the same row types: root `paimon_schema`, `_VERSION` without a
//! field id, every other field with its row type's id (nested rows count from 0), TINYINT as
//! `INT32 (INT(8))`, `_CREATION_TIME` as `INT64 TIMESTAMP(MILLIS)`, lists in the three-level
//! `list` / `element` form with Java's element ids, and no Arrow schema in the footer.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, PrimitiveBuilder, StringBuilder};
use arrow_array::types::{Int32Type, Int64Type, Int8Type, TimestampMillisecondType};
use arrow_array::{ArrayRef, ArrowPrimitiveType, ListArray, RecordBatch, StructArray};
use arrow_schema::{Field, Fields, Schema};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::{ArrowWriter, PARQUET_FIELD_ID_META_KEY};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::avro::encode::WriteType;
use crate::value::Value;

/// The Parquet codec of a `manifest.compression`.
///
/// # Errors
/// A reason for a compression Parquet manifests are not written with here.
pub fn parquet_codec(compression: &str) -> Result<Compression> {
    match compression.to_ascii_lowercase().as_str() {
        "zstd" => Ok(Compression::ZSTD(ZstdLevel::default())),
        "snappy" => Ok(Compression::SNAPPY),
        "lz4" => Ok(Compression::LZ4_RAW),
        "none" | "uncompressed" => Ok(Compression::UNCOMPRESSED),
        other => Err(Error::unsupported(
            "Parquet manifest",
            format!("manifest compression {other:?} (it has zstd, snappy, lz4 or none)"),
        )),
    }
}

/// The id Java gives the element of a list field whose own id is `id` (Java
/// `SpecialFields.getArrayElementFieldId`).
fn element_id(id: i32) -> i32 {
    (1 << 29) + 1024 * id
}

fn with_id(field: Field, id: Option<i32>) -> Field {
    match id {
        Some(id) => field.with_metadata(HashMap::from([(
            PARQUET_FIELD_ID_META_KEY.to_string(),
            id.to_string(),
        )])),
        None => field,
    }
}

/// Encodes `records` (each a [`Value::Record`] of `schema`, a [`WriteType::Record`]) as one
/// Parquet file.
///
/// # Errors
/// A reason naming the field when a value does not fit its type, or the encoder fails.
pub fn write_parquet(
    schema: &WriteType,
    compression: Compression,
    records: &[Value],
) -> Result<Vec<u8>> {
    let WriteType::Record(fields) = schema else {
        return Err(misfit("a manifest schema must be a record"));
    };
    let rows: Vec<Option<&Value>> = records.iter().map(Some).collect();
    let mut arrow_fields = Vec::with_capacity(fields.len());
    let mut columns = Vec::with_capacity(fields.len());
    let mut next_id = 0;
    for (name, t) in fields {
        // Java's versioned serializers prepend `_VERSION` without a field id.
        let id = if *name == "_VERSION" {
            None
        } else {
            next_id += 1;
            Some(next_id - 1)
        };
        let values: Vec<Option<&Value>> = rows
            .iter()
            .map(|r| match r {
                Some(Value::Record(rec)) => Ok(Some(rec.get(name))),
                other => Err(misfit(format!("a manifest row is not a record: {other:?}"))),
            })
            .collect::<Result<_>>()?;
        let (field, column) = column(name, id, t, &values)?;
        arrow_fields.push(field);
        columns.push(column);
    }
    let batch = RecordBatch::try_new(Arc::new(Schema::new(arrow_fields)), columns)
        .map_err(|e| misfit(format!("building the manifest rows: {e}")))?;
    let props = WriterProperties::builder()
        .set_compression(compression)
        .build();
    let options = ArrowWriterOptions::new()
        .with_properties(props)
        .with_skip_arrow_metadata(true)
        .with_schema_root("paimon_schema".to_string());
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new_with_options(&mut out, batch.schema(), options)
        .map_err(|e| misfit(format!("Parquet: {e}")))?;
    writer
        .write(&batch)
        .map_err(|e| misfit(format!("Parquet: {e}")))?;
    writer
        .close()
        .map_err(|e| misfit(format!("Parquet: {e}")))?;
    Ok(out)
}

/// One column of `values` (None: a slot under a null parent) as field `name` of type `t`.
fn column(
    name: &str,
    id: Option<i32>,
    t: &WriteType,
    values: &[Option<&Value>],
) -> Result<(Field, ArrayRef)> {
    let (t, nullable, values): (&WriteType, bool, Vec<Option<&Value>>) = match t {
        WriteType::Nullable(inner) => (
            inner.as_ref(),
            true,
            values
                .iter()
                .map(|v| v.filter(|v| !matches!(v, Value::Null)))
                .collect(),
        ),
        t => {
            if values.iter().any(|v| matches!(v, Some(Value::Null))) {
                return Err(misfit(format!("field {name}: null in a NOT NULL field")));
            }
            (t, false, values.to_vec())
        }
    };
    let bad = |v: &Value| misfit(format!("field {name}: {v:?} does not fit {t:?}"));
    // An integer value of `v` that fits the column's native type.
    let int = |v: &Value| v.as_i64().ok_or_else(|| bad(v));
    let array: ArrayRef = match t {
        WriteType::Int => {
            integers::<Int32Type>(&values, |v| i32::try_from(int(v)?).map_err(|_| bad(v)))?
        }
        WriteType::TinyInt => {
            integers::<Int8Type>(&values, |v| i8::try_from(int(v)?).map_err(|_| bad(v)))?
        }
        WriteType::Long => integers::<Int64Type>(&values, int)?,
        WriteType::TimestampMillis => integers::<TimestampMillisecondType>(&values, int)?,
        WriteType::String => {
            let mut b = StringBuilder::new();
            for v in &values {
                match v {
                    Some(Value::String(s)) => b.append_value(s),
                    Some(v) => return Err(bad(v)),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        WriteType::Bytes => {
            let mut b = BinaryBuilder::new();
            for v in &values {
                match v {
                    Some(Value::Bytes(x)) => b.append_value(x),
                    Some(v) => return Err(bad(v)),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        WriteType::Array(element) => {
            let mut offsets = vec![0i32];
            let mut items: Vec<Option<&Value>> = Vec::new();
            let mut valid = Vec::with_capacity(values.len());
            for v in &values {
                match v {
                    Some(Value::Array(xs)) => items.extend(xs.iter().map(Some)),
                    Some(v) => return Err(bad(v)),
                    None => {}
                }
                valid.push(v.is_some());
                let end = i32::try_from(items.len())
                    .map_err(|_| misfit(format!("field {name}: too long")))?;
                offsets.push(end);
            }
            let element_id = id.map(element_id);
            let (item_field, item_values) = column("element", element_id, element, &items)?;
            ListArray::try_new(
                Arc::new(item_field),
                arrow_buffer_offsets(offsets),
                item_values,
                nulls(&valid),
            )
            .map(|a| Arc::new(a) as ArrayRef)
            .map_err(|e| misfit(format!("field {name}: {e}")))?
        }
        WriteType::Record(fields) => {
            let mut child_fields = Vec::with_capacity(fields.len());
            let mut children = Vec::with_capacity(fields.len());
            for (i, (child, ct)) in fields.iter().enumerate() {
                let child_values: Vec<Option<&Value>> = values
                    .iter()
                    .map(|v| match v {
                        Some(Value::Record(r)) => Ok(Some(r.get(child))),
                        Some(v) => Err(bad(v)),
                        None => Ok(None),
                    })
                    .collect::<Result<_>>()?;
                let child_id = i32::try_from(i).ok();
                let (f, a) = column(child, child_id, ct, &child_values)?;
                child_fields.push(f);
                children.push(a);
            }
            let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
            StructArray::try_new(Fields::from(child_fields), children, nulls(&valid))
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(|e| misfit(format!("field {name}: {e}")))?
        }
        WriteType::Nullable(_) => {
            return Err(misfit(format!("field {name}: a nullable nullable type")))
        }
    };
    let field = Field::new(name, array.data_type().clone(), nullable);
    Ok((with_id(field, id), array))
}

/// A primitive column of `values` (None: null), each converted by `native`.
fn integers<T: ArrowPrimitiveType>(
    values: &[Option<&Value>],
    native: impl Fn(&Value) -> Result<T::Native>,
) -> Result<ArrayRef> {
    let mut b = PrimitiveBuilder::<T>::with_capacity(values.len());
    for v in values {
        b.append_option(v.map(&native).transpose()?);
    }
    Ok(Arc::new(b.finish()))
}

fn arrow_buffer_offsets(offsets: Vec<i32>) -> arrow_buffer::OffsetBuffer<i32> {
    arrow_buffer::OffsetBuffer::new(arrow_buffer::ScalarBuffer::from(offsets))
}

fn nulls(valid: &[bool]) -> Option<arrow_buffer::NullBuffer> {
    if valid.iter().all(|v| *v) {
        None
    } else {
        Some(arrow_buffer::NullBuffer::from(valid.to_vec()))
    }
}

/// An [`Error::Encode`] of Parquet manifest: `reason` says what cannot be written.
fn misfit(reason: impl Into<String>) -> Error {
    Error::encode("Parquet manifest", reason)
}
