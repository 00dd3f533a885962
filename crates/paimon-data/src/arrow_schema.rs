//! Paimon types to Arrow types: the one mapping every crate of paimon-rs uses.
//!
//! Mirrors what Java's Arrow bridge (`paimon-arrow` `ArrowUtils.toArrowType`) produces, with
//! timestamps mapped by precision:
//!
//! | Paimon | Arrow |
//! |---|---|
//! | BOOLEAN | Boolean |
//! | TINYINT / SMALLINT / INT / BIGINT | Int8 / Int16 / Int32 / Int64 |
//! | FLOAT / DOUBLE | Float32 / Float64 |
//! | CHAR / VARCHAR / STRING | Utf8 |
//! | BINARY / VARBINARY / BYTES / BLOB | Binary |
//! | DECIMAL(p, s) | Decimal128(p, s) |
//! | DATE | Date32 |
//! | TIME(p) | Time32(ms) (Paimon stores millis of day whatever p) |
//! | TIMESTAMP(p) | Timestamp(ms) for p <= 3, (us) for p <= 6, (ns) otherwise; no zone |
//! | TIMESTAMP(p) WITH LOCAL TIME ZONE | the same unit, zone `"UTC"` |
//! | `ARRAY<T>` / `MULTISET<T>` | `List<T>` (element field `element`) / `Map<T, INT>` |
//! | MAP<K, V> | Map (entries `entries { key, value }`, keys non-null) |
//! | ROW<...> | Struct |
//! | VARIANT | Struct { value: Binary, metadata: Binary } |
//! | GEOMETRY / GEOGRAPHY | Binary (WKB) |
//! | VECTOR<T, n> | FixedSizeList<T, n> |
//!
//! Precision 0 maps to milliseconds, not seconds, because Paimon's own files (Parquet
//! `TIMESTAMP_MILLIS`, ORC nanos) never carry a seconds unit and millis keep the values exact.

use std::collections::HashMap;
use std::sync::Arc;

use ::arrow_schema::{DataType as ArrowType, Field, FieldRef, Fields, Schema, TimeUnit};
use paimon_spec::types::{DataField, DataType, TypeKind};

use crate::error::{Error, Result};

/// Field-metadata key holding the Paimon field id on top-level Arrow fields.
pub const FIELD_ID_KEY: &str = "paimon.field.id";

/// Name of the element field of list types.
pub const LIST_ELEMENT_NAME: &str = "element";

/// The Arrow timezone used for `TIMESTAMP WITH LOCAL TIME ZONE`.
pub const LTZ_TIMEZONE: &str = "UTC";

/// The Arrow timestamp unit for a Paimon timestamp precision (see the module table).
pub fn timestamp_unit(precision: u32) -> TimeUnit {
    match precision {
        0..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

/// The Arrow type of a Paimon type.
pub fn to_arrow_type(ty: &DataType) -> ArrowType {
    match &ty.kind {
        TypeKind::Boolean => ArrowType::Boolean,
        TypeKind::TinyInt => ArrowType::Int8,
        TypeKind::SmallInt => ArrowType::Int16,
        TypeKind::Int => ArrowType::Int32,
        TypeKind::BigInt => ArrowType::Int64,
        TypeKind::Float => ArrowType::Float32,
        TypeKind::Double => ArrowType::Float64,
        TypeKind::Decimal { precision, scale } => {
            // Paimon bounds precision to 1..=38 and scale to 0..=precision when parsing.
            ArrowType::Decimal128(
                u8::try_from(*precision).unwrap_or(38),
                i8::try_from(*scale).unwrap_or(0),
            )
        }
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => ArrowType::Utf8,
        TypeKind::Binary { .. }
        | TypeKind::VarBinary { .. }
        | TypeKind::Blob
        | TypeKind::Spatial { .. } => ArrowType::Binary,
        TypeKind::Date => ArrowType::Date32,
        TypeKind::Time { .. } => ArrowType::Time32(TimeUnit::Millisecond),
        TypeKind::Timestamp { precision } => ArrowType::Timestamp(timestamp_unit(*precision), None),
        TypeKind::LocalZonedTimestamp { precision } => {
            ArrowType::Timestamp(timestamp_unit(*precision), Some(LTZ_TIMEZONE.into()))
        }
        TypeKind::Variant => ArrowType::Struct(Fields::from(vec![
            Field::new("value", ArrowType::Binary, false),
            Field::new("metadata", ArrowType::Binary, false),
        ])),
        TypeKind::Array(element) => ArrowType::List(list_element_field(element)),
        TypeKind::Vector { element, length } => ArrowType::FixedSizeList(
            list_element_field(element),
            i32::try_from(*length).unwrap_or(i32::MAX),
        ),
        TypeKind::Multiset(element) => map_type(element, &DataType::not_null(TypeKind::Int)),
        TypeKind::Map { key, value } => map_type(key, value),
        TypeKind::Row(fields) => ArrowType::Struct(to_arrow_fields(fields)),
        // Types added to the model later are carried as opaque bytes until mapped here.
        _ => ArrowType::Binary,
    }
}

/// The Arrow field of a Paimon field (nullability kept; no metadata, so nested types compare
/// equal to arrays built elsewhere).
pub fn to_arrow_field(field: &DataField) -> Field {
    Field::new(
        &field.name,
        to_arrow_type(&field.data_type),
        field.data_type.nullable,
    )
}

/// Arrow fields of a ROW's fields.
pub fn to_arrow_fields(fields: &[DataField]) -> Fields {
    fields.iter().map(to_arrow_field).collect()
}

/// The Arrow schema of a row of Paimon fields. Each top-level field carries its Paimon id in
/// its metadata under [`FIELD_ID_KEY`].
pub fn to_arrow_schema(fields: &[DataField]) -> Schema {
    Schema::new(
        fields
            .iter()
            .map(|f| {
                to_arrow_field(f).with_metadata(HashMap::from([(
                    FIELD_ID_KEY.to_string(),
                    f.id.to_string(),
                )]))
            })
            .collect::<Vec<_>>(),
    )
}

fn list_element_field(element: &DataType) -> FieldRef {
    Arc::new(Field::new(
        LIST_ELEMENT_NAME,
        to_arrow_type(element),
        element.nullable,
    ))
}

fn map_type(key: &DataType, value: &DataType) -> ArrowType {
    let entries = Field::new(
        "entries",
        ArrowType::Struct(Fields::from(vec![
            Field::new("key", to_arrow_type(key), false),
            Field::new("value", to_arrow_type(value), value.nullable),
        ])),
        false,
    );
    ArrowType::Map(Arc::new(entries), false)
}

/// The Paimon type of an Arrow field: the inverse of [`to_arrow_type`] where one exists, and
/// the nearest Paimon type for Arrow's other spellings (large and view strings and binaries,
/// seconds and nanoseconds, time zones other than UTC, large lists). A field's nullability
/// becomes the type's.
///
/// # Errors
/// [`Error::Unsupported`] for an Arrow type with no Paimon type (unsigned integers,
/// durations, unions, ...), naming the field.
pub fn from_arrow_field(field: &Field) -> Result<DataType> {
    let kind = match field.data_type() {
        ArrowType::Boolean => TypeKind::Boolean,
        ArrowType::Int8 => TypeKind::TinyInt,
        ArrowType::Int16 => TypeKind::SmallInt,
        ArrowType::Int32 => TypeKind::Int,
        ArrowType::Int64 => TypeKind::BigInt,
        ArrowType::Float32 => TypeKind::Float,
        ArrowType::Float64 => TypeKind::Double,
        ArrowType::Decimal128(p, s) if *s >= 0 => TypeKind::Decimal {
            precision: u32::from(*p),
            scale: u32::from(s.unsigned_abs()),
        },
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => TypeKind::VarChar {
            length: i32::MAX as u32,
        },
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => TypeKind::VarBinary {
            length: i32::MAX as u32,
        },
        ArrowType::FixedSizeBinary(n) if *n > 0 => TypeKind::Binary {
            length: n.unsigned_abs(),
        },
        ArrowType::Date32 => TypeKind::Date,
        ArrowType::Time32(_) => TypeKind::Time { precision: 3 },
        ArrowType::Time64(_) => TypeKind::Time { precision: 3 },
        ArrowType::Timestamp(unit, tz) => {
            let precision = match unit {
                TimeUnit::Second => 0,
                TimeUnit::Millisecond => 3,
                TimeUnit::Microsecond => 6,
                TimeUnit::Nanosecond => 9,
            };
            if tz.is_some() {
                TypeKind::LocalZonedTimestamp { precision }
            } else {
                TypeKind::Timestamp { precision }
            }
        }
        ArrowType::List(e) | ArrowType::LargeList(e) => {
            TypeKind::Array(Box::new(from_arrow_field(e)?))
        }
        ArrowType::Map(entries, _) => match entries.data_type() {
            ArrowType::Struct(kv) if kv.len() == 2 => TypeKind::Map {
                key: Box::new(from_arrow_field(&kv[0])?),
                value: Box::new(from_arrow_field(&kv[1])?),
            },
            other => {
                return Err(Error::Unsupported {
                    feature: format!("column {}: map entries of type {other}", field.name()),
                })
            }
        },
        ArrowType::Struct(fields) => TypeKind::Row(
            fields
                .iter()
                .map(|f| Ok(DataField::new(-1, f.name(), from_arrow_field(f)?)))
                .collect::<Result<Vec<_>>>()?,
        ),
        other => {
            return Err(Error::Unsupported {
                feature: format!(
                    "column {}: Arrow type {other} has no Paimon type",
                    field.name()
                ),
            })
        }
    };
    Ok(if field.is_nullable() {
        DataType::nullable(kind)
    } else {
        DataType::not_null(kind)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DataType {
        DataType::from_json_str(s).unwrap()
    }

    #[test]
    fn atomic_types() {
        assert_eq!(to_arrow_type(&t(r#""INT""#)), ArrowType::Int32);
        assert_eq!(to_arrow_type(&t(r#""TINYINT""#)), ArrowType::Int8);
        assert_eq!(to_arrow_type(&t(r#""STRING""#)), ArrowType::Utf8);
        assert_eq!(to_arrow_type(&t(r#""CHAR(3)""#)), ArrowType::Utf8);
        assert_eq!(to_arrow_type(&t(r#""BYTES""#)), ArrowType::Binary);
        assert_eq!(
            to_arrow_type(&t(r#""DECIMAL(10, 2)""#)),
            ArrowType::Decimal128(10, 2)
        );
        assert_eq!(to_arrow_type(&t(r#""DATE""#)), ArrowType::Date32);
        assert_eq!(
            to_arrow_type(&t(r#""TIME(3)""#)),
            ArrowType::Time32(TimeUnit::Millisecond)
        );
    }

    #[test]
    fn timestamps_by_precision() {
        let ts = |p: u32| to_arrow_type(&DataType::nullable(TypeKind::Timestamp { precision: p }));
        assert_eq!(ts(0), ArrowType::Timestamp(TimeUnit::Millisecond, None));
        assert_eq!(ts(3), ArrowType::Timestamp(TimeUnit::Millisecond, None));
        assert_eq!(ts(6), ArrowType::Timestamp(TimeUnit::Microsecond, None));
        assert_eq!(ts(9), ArrowType::Timestamp(TimeUnit::Nanosecond, None));
        assert_eq!(
            to_arrow_type(&t(r#""TIMESTAMP(3) WITH LOCAL TIME ZONE""#)),
            ArrowType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
        );
    }

    #[test]
    fn nested_types() {
        let ty =
            t(r#"{"type":"MAP","key":"STRING NOT NULL","value":{"type":"ARRAY","element":"INT"}}"#);
        let ArrowType::Map(entries, false) = to_arrow_type(&ty) else {
            panic!("not a map")
        };
        let ArrowType::Struct(kv) = entries.data_type() else {
            panic!("entries not a struct")
        };
        assert_eq!(kv[0].data_type(), &ArrowType::Utf8);
        assert!(!kv[0].is_nullable());
        assert!(matches!(kv[1].data_type(), ArrowType::List(_)));
        let row = t(r#"{"type":"ROW","fields":[{"id":1,"name":"a","type":"INT NOT NULL"}]}"#);
        assert_eq!(
            to_arrow_type(&row),
            ArrowType::Struct(Fields::from(vec![Field::new("a", ArrowType::Int32, false)]))
        );
    }

    #[test]
    fn schema_carries_field_ids() {
        let s = to_arrow_schema(&[DataField::new(7, "x", DataType::string())]);
        assert_eq!(
            s.field(0).metadata().get(FIELD_ID_KEY).map(String::as_str),
            Some("7")
        );
    }
}
