//! Altering tables: `schema/schema-(N+1)` from the latest schema and a list of changes, as
//! Java's `SchemaManager.commitChanges` makes it, for the changes Java allows that the readers
//! and writers here handle: options set and removed, columns added (nullable, at the end),
//! renamed, dropped, and widened to a type every old value casts to without loss. The new
//! schema's options pass the checks of Java's `SchemaValidation` (`super::schema_options`)
//! before anything is written. Two alters racing get one winner: the new schema file is
//! published with `publish_if_absent`.

use std::sync::Arc;

use paimon_spec::options::CoreOptions;
use paimon_spec::schema::TableSchema;
use paimon_spec::types::{DataField, DataType, TypeKind};

use crate::error::{Error, Result};
use crate::schema_manager::SchemaManager;
use crate::table::Table;

/// One change of [`Table::alter`] (Java `SchemaChange`).
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaChange {
    /// Sets an option.
    SetOption {
        /// Option key.
        key: String,
        /// Its new value.
        value: String,
    },
    /// Removes an option.
    RemoveOption {
        /// Option key.
        key: String,
    },
    /// Adds a nullable column (Java `SchemaChange.addColumn(name, type, comment, move)`).
    AddColumn {
        /// Column name.
        name: String,
        /// Its type (nullable).
        data_type: DataType,
        /// Its comment (the field's `description`).
        description: Option<String>,
        /// Where it goes; `None` is after the last column.
        position: Option<ColumnPosition>,
    },
    /// Renames a column (its id, and so its data, stays).
    RenameColumn {
        /// Current name.
        from: String,
        /// New name.
        to: String,
    },
    /// Drops a column.
    DropColumn {
        /// Column name.
        name: String,
    },
    /// Widens a column's type.
    UpdateColumnType {
        /// Column name.
        name: String,
        /// The wider type (the column keeps its nullability).
        data_type: DataType,
    },
}

/// Where [`SchemaChange::AddColumn`] puts the new column (Java `SchemaChange.Move`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnPosition {
    /// Before every other column.
    First,
    /// Right after the named column.
    After(String),
    /// Right before the named column.
    Before(String),
    /// After the last column.
    Last,
}

/// Options a table keeps from its creation (its layout and the meaning of its files).
const IMMUTABLE_OPTIONS: [&str; 9] = [
    "bucket",
    "bucket-key",
    "primary-key",
    "partition",
    "merge-engine",
    "sequence.field",
    "data-evolution.enabled",
    "row-tracking.enabled",
    "deletion-vectors.enabled",
];

impl Table {
    /// Applies `changes` to the latest schema and publishes it as the next schema; the new
    /// schema.
    ///
    /// # Errors
    /// [`Error::InvalidCommit`] naming the table for a change Java refuses or one not made here
    /// (nothing is written), or when another alter published the same schema id first;
    /// storage errors.
    pub fn alter(&self, changes: &[SchemaChange]) -> Result<TableSchema> {
        let root = self.path().to_string();
        let invalid = |reason: String| Error::InvalidCommit {
            table: root.clone(),
            reason,
        };
        let manager = SchemaManager::new(Arc::clone(self.file_io()), &root);
        let latest = manager
            .latest()?
            .ok_or_else(|| invalid("the table has no schema".into()))?;
        let mut next = latest.as_ref().clone();
        for change in changes {
            apply(&mut next, change).map_err(&invalid)?;
        }
        let options = CoreOptions::try_new(&next.options).map_err(|e| invalid(e.to_string()))?;
        crate::table::check_path_options(&options).map_err(|e| invalid(e.to_string()))?;
        super::schema_options::check(&next, &options).map_err(&invalid)?;
        next.id = latest.id + 1;
        next.version = 3;
        next.time_millis = super::now_millis();
        let path = manager.schema_path(next.id);
        let created = self
            .file_io()
            .publish_if_absent(&path, next.to_json_string().as_bytes())
            .map_err(Error::io)?;
        if !created {
            return Err(invalid(format!(
                "schema {} was published by another alter first ({path})",
                next.id
            )));
        }
        Ok(next)
    }
}

fn apply(s: &mut TableSchema, change: &SchemaChange) -> std::result::Result<(), String> {
    let position = |s: &TableSchema, name: &str| {
        s.fields
            .iter()
            .position(|f| f.name == name)
            .ok_or_else(|| format!("column {name:?} does not exist"))
    };
    let key_column = |s: &TableSchema, name: &str, what: &str| {
        if s.partition_keys.iter().any(|k| k == name) {
            return Err(format!("cannot {what} partition column {name:?}"));
        }
        if s.primary_keys.iter().any(|k| k == name) {
            return Err(format!("cannot {what} primary key column {name:?}"));
        }
        Ok(())
    };
    match change {
        SchemaChange::SetOption { key, .. } | SchemaChange::RemoveOption { key }
            if IMMUTABLE_OPTIONS.contains(&key.as_str()) =>
        {
            return Err(format!("option {key:?} cannot be changed after creation"));
        }
        SchemaChange::SetOption { key, value } => {
            s.options.insert(key.clone(), value.clone());
        }
        SchemaChange::RemoveOption { key } => {
            s.options.remove(key);
        }
        SchemaChange::AddColumn {
            name,
            data_type,
            description,
            position: place,
        } => {
            if name.is_empty() {
                return Err("a column needs a name".into());
            }
            if s.fields.iter().any(|f| &f.name == name) {
                return Err(format!("column {name:?} already exists"));
            }
            if !data_type.nullable {
                return Err(format!("column {name:?} cannot be added NOT NULL"));
            }
            let at = match place {
                None | Some(ColumnPosition::Last) => s.fields.len(),
                Some(ColumnPosition::First) => 0,
                Some(ColumnPosition::After(other)) => position(s, other)? + 1,
                Some(ColumnPosition::Before(other)) => position(s, other)?,
            };
            // Java `SchemaManager`: the column's id first, then its nested fields' ids.
            s.highest_field_id += 1;
            let id = s.highest_field_id;
            let mut data_type = data_type.clone();
            assign_nested_ids(&mut data_type, &mut s.highest_field_id);
            let mut field = DataField::new(id, name.clone(), data_type);
            field.description = description.clone();
            s.fields.insert(at, field);
        }
        SchemaChange::RenameColumn { from, to } => {
            let i = position(s, from)?;
            key_column(s, from, "rename")?;
            if s.fields.iter().any(|f| &f.name == to) {
                return Err(format!("column {to:?} already exists"));
            }
            if to.is_empty() {
                return Err("a column needs a name".into());
            }
            if let Some(f) = s.fields.get_mut(i) {
                f.name = to.clone();
            }
        }
        SchemaChange::DropColumn { name } => {
            let i = position(s, name)?;
            key_column(s, name, "drop")?;
            if s.fields.len() == 1 {
                return Err(format!("cannot drop {name:?}, the only column"));
            }
            s.fields.remove(i);
        }
        SchemaChange::UpdateColumnType { name, data_type } => {
            let i = position(s, name)?;
            key_column(s, name, "change the type of")?;
            let Some(f) = s.fields.get_mut(i) else {
                return Err(format!("column {name:?} does not exist"));
            };
            if !widens(&f.data_type.kind, &data_type.kind) {
                return Err(format!(
                    "column {name:?}: {} cannot become {} (only widening changes that keep \
                     every value are made here)",
                    f.data_type, data_type
                ));
            }
            f.data_type = data_type.with_nullable(f.data_type.nullable);
        }
    }
    Ok(())
}

/// Gives the fields of nested rows in `t` new ids above `highest` (Java `ReassignFieldId`).
fn assign_nested_ids(t: &mut DataType, highest: &mut i32) {
    match &mut t.kind {
        TypeKind::Row(fields) => {
            for f in fields {
                assign_nested_ids(&mut f.data_type, highest);
                *highest += 1;
                f.id = *highest;
            }
        }
        TypeKind::Array(e) | TypeKind::Multiset(e) | TypeKind::Vector { element: e, .. } => {
            assign_nested_ids(e, highest)
        }
        TypeKind::Map { key, value } => {
            assign_nested_ids(key, highest);
            assign_nested_ids(value, highest);
        }
        _ => {}
    }
}

/// Whether every value of `from` is a value of `to` (a subset of Java's implicit casts).
fn widens(from: &TypeKind, to: &TypeKind) -> bool {
    use TypeKind as K;
    let int_rank = |k: &K| match k {
        K::TinyInt => Some(1),
        K::SmallInt => Some(2),
        K::Int => Some(3),
        K::BigInt => Some(4),
        _ => None,
    };
    match (from, to) {
        (a, b) if a == b => true,
        (a, b) if int_rank(a).is_some() && int_rank(b).is_some() => int_rank(a) <= int_rank(b),
        (K::TinyInt | K::SmallInt | K::Int, K::Double) | (K::Float, K::Double) => true,
        (K::TinyInt | K::SmallInt, K::Float) => true,
        (K::Char { length: a } | K::VarChar { length: a }, K::VarChar { length: b }) => b >= a,
        (
            K::Decimal {
                precision: p1,
                scale: s1,
            },
            K::Decimal {
                precision: p2,
                scale: s2,
            },
        ) => s2 >= s1 && p2 - s2 >= p1 - s1,
        (K::Timestamp { precision: a }, K::Timestamp { precision: b }) => b >= a,
        (K::LocalZonedTimestamp { precision: a }, K::LocalZonedTimestamp { precision: b }) => {
            b >= a
        }
        _ => false,
    }
}
