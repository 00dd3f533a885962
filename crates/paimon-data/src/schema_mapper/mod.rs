//! Schema evolution: reading a data file written with an older schema as the table's current
//! schema (Java `SchemaEvolutionUtil`, `CastedRow`, `ProjectedRow`).
//!
//! Columns are matched by **field id**; the physical column is looked up by the name the
//! *file's* schema gives that id, so renames work. Absent ids read as null, dropped ones are
//! never read, and changed types are cast with Java's rules ([`java_cast`]). Nested ROW fields
//! are matched by id recursively; ARRAY and MAP are cast element-wise.
//!
//! ```text
//!  file schema (schema-0)            table schema (schema-2)
//!  id 0  a  INT          ───────────▶ id 0  a      BIGINT   (cast)
//!  id 1  b  STRING       ──rename───▶ id 1  b_new  STRING
//!  id 2  c  DOUBLE       ✗ dropped
//!                                     id 3  d      INT      (null: not in file)
//! ```

mod cast;
mod text;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{new_null_array, Array, ArrayRef, ListArray, MapArray, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_cast::cast::{cast_with_options, CastOptions};
use arrow_schema::DataType as ArrowType;
use paimon_spec::types::{DataField, DataType, TypeKind};

pub use cast::java_cast;

use crate::arrow_schema::{to_arrow_fields, to_arrow_type};
use crate::error::{Error, Result};

/// Where one output column comes from in a given file.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnSource {
    /// The file column named `name`, of the file's type `file_type`.
    File {
        /// Physical column name (the file schema's name of the id).
        name: String,
        /// The type the file schema declares.
        file_type: DataType,
    },
    /// Not in the file: reads as null.
    Absent,
}

/// The id-based mapping of one file's fields onto the output fields.
#[derive(Debug, Clone)]
pub struct SchemaMapper {
    sources: Vec<(DataField, ColumnSource)>,
}

impl SchemaMapper {
    /// Maps `output` fields (table schema) onto `file_fields` (the file's schema, projected by
    /// `_WRITE_COLS` for data-evolution files) by field id.
    pub fn new(output: &[DataField], file_fields: &[DataField]) -> Self {
        let sources = output
            .iter()
            .map(|f| {
                let src = match file_fields.iter().find(|ff| ff.id == f.id) {
                    Some(ff) => ColumnSource::File {
                        name: ff.name.clone(),
                        file_type: ff.data_type.clone(),
                    },
                    None => ColumnSource::Absent,
                };
                (f.clone(), src)
            })
            .collect();
        SchemaMapper { sources }
    }

    /// The output fields with their sources.
    pub fn sources(&self) -> &[(DataField, ColumnSource)] {
        &self.sources
    }

    /// Physical column names to read from the file.
    pub fn file_columns(&self) -> Vec<String> {
        self.sources
            .iter()
            .filter_map(|(_, s)| match s {
                ColumnSource::File { name, .. } => Some(name.clone()),
                ColumnSource::Absent => None,
            })
            .collect()
    }

    /// One array per output field from a decoded file batch: found columns conformed to the
    /// output types, absent ones null. `path` names the file in errors.
    ///
    /// # Errors
    /// Cast errors as [`java_cast`].
    pub fn map_columns(
        &self,
        batch: &arrow_array::RecordBatch,
        path: &str,
    ) -> Result<Vec<ArrayRef>> {
        let rows = batch.num_rows();
        self.sources
            .iter()
            .map(|(field, src)| match src {
                ColumnSource::File { name, file_type } => match batch.column_by_name(name) {
                    Some(col) => {
                        conform(col, file_type, &field.data_type, path).map_err(|e| match e {
                            Error::TimestampOutOfRange {
                                path,
                                column,
                                value,
                            } if column.is_empty() => Error::TimestampOutOfRange {
                                path,
                                column: field.name.clone(),
                                value,
                            },
                            e => e,
                        })
                    }
                    None => Ok(new_null_array(&to_arrow_type(&field.data_type), rows)),
                },
                ColumnSource::Absent => Ok(new_null_array(&to_arrow_type(&field.data_type), rows)),
            })
            .collect()
    }
}

/// Converts a decoded column of Paimon type `from` into the Arrow form of Paimon type `to`:
/// normalizes the physical Arrow type (e.g. Avro ints to Int8, ORC nanosecond timestamps to
/// the precision's unit), matches nested ROW fields by id and applies Java casts.
///
/// # Errors
/// As [`java_cast`]; [`Error::Arrow`] when the decoded data has an unexpected shape.
pub fn conform(array: &ArrayRef, from: &DataType, to: &DataType, path: &str) -> Result<ArrayRef> {
    match (&from.kind, &to.kind) {
        (TypeKind::Row(ff), TypeKind::Row(tf)) => conform_struct(array, ff, tf, path),
        (TypeKind::Array(fe), TypeKind::Array(te)) => {
            let list = to_list(array, path)?;
            let values = conform(list.values(), fe, te, path)?;
            let field = match to_arrow_type(to) {
                ArrowType::List(f) => f,
                _ => return Err(Error::Internal("ARRAY not mapped to List".into())),
            };
            ListArray::try_new(field, list.offsets().clone(), values, list.nulls().cloned())
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(|e| Error::arrow(path, e))
        }
        (TypeKind::Map { key: fk, value: fv }, TypeKind::Map { key: tk, value: tv }) => {
            conform_map(array, (fk, fv), (tk, tv), to, path)
        }
        (TypeKind::Multiset(fe), TypeKind::Multiset(te)) => {
            let int = DataType::not_null(TypeKind::Int);
            conform_map(array, (fe, &int), (te, &int), to, path)
        }
        _ => {
            let from_arrow = to_arrow_type(from);
            let normalized = normalize(array, &from_arrow, path)?;
            if same_leaf(from, to) {
                let target = to_arrow_type(to);
                if normalized.data_type() == &target {
                    Ok(normalized)
                } else {
                    java_cast(&normalized, from, to, path)
                }
            } else {
                java_cast(&normalized, from, to, path)
            }
        }
    }
}

/// Whether two leaf types need no Java cast (equal ignoring nullability).
fn same_leaf(from: &DataType, to: &DataType) -> bool {
    from.eq_ignore_nullable(to)
}

fn normalize(array: &ArrayRef, target: &ArrowType, path: &str) -> Result<ArrayRef> {
    if array.data_type() == target {
        return Ok(array.clone());
    }
    // arrow-cast 59 casts a list to a fixed-size list from the start of its child values,
    // whatever its first offset: a sliced list (a batch cut in two) would take the wrong
    // values, or panic past their end. Such a list is copied to start at offset 0 first.
    let compacted;
    let array = match (target, array.as_list_opt::<i32>()) {
        (ArrowType::FixedSizeList(..), Some(list))
            if list.value_offsets().first().is_some_and(|o| *o != 0) =>
        {
            let all = arrow_array::UInt32Array::from_iter_values(0..list.len() as u32);
            compacted = arrow_select::take::take(array.as_ref(), &all, None)
                .map_err(|e| Error::arrow(path, e))?;
            &compacted
        }
        _ => array,
    };
    cast_with_options(array, target, &CastOptions::default()).map_err(|e| Error::arrow(path, e))
}

fn to_list(array: &ArrayRef, path: &str) -> Result<ListArray> {
    match array.data_type() {
        ArrowType::List(_) => Ok(array.as_list::<i32>().clone()),
        ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _) => {
            let c = cast_with_options(array, &ArrowType::List(f.clone()), &CastOptions::default())
                .map_err(|e| Error::arrow(path, e))?;
            Ok(c.as_list::<i32>().clone())
        }
        other => Err(Error::corrupt(
            path,
            format!("expected a list column, found {other}"),
        )),
    }
}

fn conform_struct(
    array: &ArrayRef,
    from: &[DataField],
    to: &[DataField],
    path: &str,
) -> Result<ArrayRef> {
    let s = array.as_struct_opt().ok_or_else(|| {
        Error::corrupt(
            path,
            format!("expected a struct column, found {}", array.data_type()),
        )
    })?;
    let len = s.len();
    let mut children = Vec::with_capacity(to.len());
    for tf in to {
        let child = match from.iter().position(|ff| ff.id == tf.id) {
            Some(i) => {
                let ff = &from[i];
                let col = s
                    .column_by_name(&ff.name)
                    .or_else(|| (i < s.num_columns()).then(|| s.column(i)));
                match col {
                    Some(c) => conform(c, &ff.data_type, &tf.data_type, path)?,
                    None => new_null_array(&to_arrow_type(&tf.data_type), len),
                }
            }
            None => new_null_array(&to_arrow_type(&tf.data_type), len),
        };
        children.push(child);
    }
    StructArray::try_new(to_arrow_fields(to), children, s.nulls().cloned())
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(|e| Error::arrow(path, e))
}

fn conform_map(
    array: &ArrayRef,
    from: (&DataType, &DataType),
    to_kv: (&DataType, &DataType),
    to: &DataType,
    path: &str,
) -> Result<ArrayRef> {
    let (offsets, stored_keys, stored_values, nulls) = map_parts(array, path)?;
    let keys = conform(&stored_keys, from.0, to_kv.0, path)?;
    let values = conform(&stored_values, from.1, to_kv.1, path)?;
    let ArrowType::Map(entries_field, sorted) = to_arrow_type(to) else {
        return Err(Error::Internal("MAP not mapped to Map".into()));
    };
    let ArrowType::Struct(kv_fields) = entries_field.data_type() else {
        return Err(Error::Internal("map entries not a struct".into()));
    };
    let entries = StructArray::try_new(kv_fields.clone(), vec![keys, values], None)
        .map_err(|e| Error::arrow(path, e))?;
    MapArray::try_new(entries_field, offsets, entries, nulls, sorted)
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(|e| Error::arrow(path, e))
}

/// The offsets, keys, values and nulls of a decoded map column.
///
/// Besides Arrow maps this accepts a list of `{key, value}` structs: Java's Avro writer
/// (`AvroSchemaConverter`) stores a MAP whose key is not a string as an array of records.
fn map_parts(
    array: &ArrayRef,
    path: &str,
) -> Result<(OffsetBuffer<i32>, ArrayRef, ArrayRef, Option<NullBuffer>)> {
    if let Some(m) = array.as_map_opt() {
        return Ok((
            m.offsets().clone(),
            m.keys().clone(),
            m.values().clone(),
            m.nulls().cloned(),
        ));
    }
    if let Some(list) = array.as_list_opt::<i32>() {
        if let Some(entries) = list.values().as_struct_opt() {
            if entries.num_columns() == 2 {
                return Ok((
                    list.offsets().clone(),
                    entries.column(0).clone(),
                    entries.column(1).clone(),
                    list.nulls().cloned(),
                ));
            }
        }
    }
    Err(Error::corrupt(
        path,
        format!("expected a map column, found {}", array.data_type()),
    ))
}

#[cfg(test)]
mod tests;
