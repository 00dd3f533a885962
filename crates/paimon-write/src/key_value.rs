//! The physical row of primary-key data files (Java `KeyValue.schema`, `SpecialFields`):
//! `_KEY_<k>...`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then the value fields; and the row of the
//! files a compaction of a row-tracked append table writes (the table's fields, `_ROW_ID`,
//! `_SEQUENCE_NUMBER`).

use paimon_spec::types::{DataField, DataType, TypeKind};

use crate::error::{Error, Result};

/// Prefix of key columns in primary-key data files (Java `SpecialFields.KEY_FIELD_PREFIX`).
pub const KEY_FIELD_PREFIX: &str = "_KEY_";
/// Java `SpecialFields.SYSTEM_FIELD_ID_START` (`Integer.MAX_VALUE / 2`); key field `k` has id
/// `KEY_FIELD_ID_START + id(k)`.
pub const KEY_FIELD_ID_START: i32 = i32::MAX / 2;
/// Name of the sequence-number column.
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
/// Id of the sequence-number column (`Integer.MAX_VALUE - 1`).
pub const SEQUENCE_NUMBER_ID: i32 = i32::MAX - 1;
/// Name of the row-kind column.
pub const VALUE_KIND: &str = "_VALUE_KIND";
/// Id of the row-kind column (`Integer.MAX_VALUE - 2`).
pub const VALUE_KIND_ID: i32 = i32::MAX - 2;

/// The key fields of a primary-key file: each trimmed primary key renamed `_KEY_<k>` with id
/// `KEY_FIELD_ID_START + id` (Java `KeyValueFieldsExtractor.keyFields`).
pub fn key_fields(trimmed_primary_keys: &[DataField]) -> Vec<DataField> {
    trimmed_primary_keys
        .iter()
        .map(|f| {
            DataField::new(
                KEY_FIELD_ID_START.saturating_add(f.id),
                format!("{KEY_FIELD_PREFIX}{}", f.name),
                f.data_type.clone(),
            )
        })
        .collect()
}

/// The whole row of a primary-key data file (Java `KeyValue.schema(keyType, valueType)`).
pub fn key_value_fields(key: &[DataField], value: &[DataField]) -> Vec<DataField> {
    let mut out = key.to_vec();
    out.push(DataField::new(
        SEQUENCE_NUMBER_ID,
        SEQUENCE_NUMBER,
        DataType::not_null(TypeKind::BigInt),
    ));
    out.push(DataField::new(
        VALUE_KIND_ID,
        VALUE_KIND,
        DataType::not_null(TypeKind::TinyInt),
    ));
    out.extend_from_slice(value);
    out
}

/// The row of a row-tracked append table's compacted files (Java `SpecialFields
/// .rowTypeWithRowTracking(rowType)`): `fields`, then `_ROW_ID` and `_SEQUENCE_NUMBER`, both
/// BIGINT NOT NULL.
///
/// # Errors
/// [`Error::SchemaMismatch`] when the table has a column of either name (Java refuses it
/// too).
pub fn with_row_tracking(table: &str, fields: &[DataField]) -> Result<Vec<DataField>> {
    use paimon_data::reader::{ROW_ID, ROW_ID_FIELD_ID};
    if let Some(f) = fields
        .iter()
        .find(|f| f.name == ROW_ID || f.name == SEQUENCE_NUMBER)
    {
        return Err(Error::SchemaMismatch {
            table: table.to_string(),
            reason: format!("column {} clashes with a row-tracking column", f.name),
        });
    }
    let mut out = fields.to_vec();
    out.push(DataField::new(
        ROW_ID_FIELD_ID,
        ROW_ID,
        DataType::not_null(TypeKind::BigInt),
    ));
    out.push(DataField::new(
        SEQUENCE_NUMBER_ID,
        SEQUENCE_NUMBER,
        DataType::not_null(TypeKind::BigInt),
    ));
    Ok(out)
}
