//! Creating tables: `schema/schema-0` as Java's `SchemaManager.createTable` writes it, after the
//! checks of Java's `Schema` normalization and `SchemaValidation` that apply to what we support.

use std::collections::HashSet;
use std::sync::Arc;

use paimon_io::FileIORef;
use paimon_spec::layout::TableLayout;
use paimon_spec::options::CoreOptions;
use paimon_spec::schema::TableSchema;
use paimon_spec::types::{DataField, TypeKind};

use crate::error::{Error, Result};
use crate::table::{Catalog, Table};

impl Catalog {
    /// Creates `database.table` with `schema` (ids, versions and time are assigned here); with
    /// `ignore_if_exists` an existing table is opened instead.
    ///
    /// # Errors
    /// [`Error::InvalidCommit`] when the schema is invalid or the table exists (and
    /// `ignore_if_exists` is false); storage errors.
    pub fn create_table(
        &self,
        database: &str,
        table: &str,
        schema: TableSchema,
        ignore_if_exists: bool,
    ) -> Result<Table> {
        create_table_at(
            self.file_io().clone(),
            &self.table_path(database, table),
            schema,
            ignore_if_exists,
        )
    }
}

/// Creates the table at `path` (see [`Catalog::create_table`]). Two creators racing get one
/// winner: `schema-0` is published with `publish_if_absent`.
///
/// # Errors
/// As [`Catalog::create_table`].
pub fn create_table_at(
    io: FileIORef,
    path: &str,
    schema: TableSchema,
    ignore_if_exists: bool,
) -> Result<Table> {
    let layout = TableLayout::new(path);
    let invalid = |reason: String| Error::InvalidCommit {
        table: layout.root().to_string(),
        reason,
    };
    let schema = normalize(schema).map_err(invalid)?;
    let file = layout
        .branch(paimon_spec::layout::MAIN_BRANCH)
        .schema_path(0);
    let created = io
        .publish_if_absent(&file, schema.to_json_string().as_bytes())
        .map_err(Error::io)?;
    if !created && !ignore_if_exists {
        return Err(invalid(format!("table exists ({file})")));
    }
    Table::open(Arc::clone(&io), layout.root())
}

/// [`normalize`] for a catalog that creates `table` elsewhere (REST: the client assigns the
/// field ids, as Java's `Schema` does, and the server stores the schema as sent); a refused
/// schema is [`Error::InvalidCommit`] naming `table`.
#[cfg(feature = "rest")]
pub(crate) fn normalized(table: &str, schema: TableSchema) -> Result<TableSchema> {
    normalize(schema).map_err(|reason| Error::InvalidCommit {
        table: table.to_string(),
        reason,
    })
}

/// Java `Schema`'s normalization (primary-key columns become NOT NULL, ids assigned) and
/// `SchemaValidation.validateTableSchema` for the options we read.
fn normalize(mut s: TableSchema) -> std::result::Result<TableSchema, String> {
    let mut names = HashSet::new();
    for f in &s.fields {
        if f.name.is_empty() {
            return Err("a field has an empty name".into());
        }
        if !names.insert(f.name.as_str()) {
            return Err(format!("field name {:?} appears twice", f.name));
        }
    }
    let check_keys = |keys: &[String], what: &str| -> std::result::Result<(), String> {
        let mut seen = HashSet::new();
        for k in keys {
            let f = s
                .fields
                .iter()
                .find(|f| &f.name == k)
                .ok_or_else(|| format!("{what} {k:?} is not a field"))?;
            if !seen.insert(k) {
                return Err(format!("{what} {k:?} is listed twice"));
            }
            if matches!(
                f.data_type.kind,
                TypeKind::Array(_)
                    | TypeKind::Map { .. }
                    | TypeKind::Multiset(_)
                    | TypeKind::Row(_)
            ) {
                return Err(format!(
                    "the {what} field {k:?} has the nested type {}; only primitive types are \
                     allowed",
                    f.data_type
                ));
            }
        }
        Ok(())
    };
    check_keys(&s.partition_keys, "partition key")?;
    check_keys(&s.primary_keys, "primary key")?;
    let o = CoreOptions::try_new(&s.options).map_err(|e| e.to_string())?;
    if !s.primary_keys.is_empty() {
        // A primary key without every partition column is Java's cross-partition upsert,
        // written with dynamic buckets only (`bucket = -1`).
        if let Some(p) = s
            .partition_keys
            .iter()
            .find(|p| !s.primary_keys.contains(p))
        {
            if o.bucket != -1 {
                return Err(format!(
                    "primary key {:?} must include all partition fields (missing {p:?}) unless \
                     bucket = -1 (cross-partition upsert)",
                    s.primary_keys
                ));
            }
            if !o.sequence_fields.is_empty() {
                return Err(format!(
                    "sequence.field cannot be used when the primary key {:?} does not include \
                     all partition fields {:?} (cross-partition upsert), as Java refuses it",
                    s.primary_keys, s.partition_keys
                ));
            }
        }
        if s.primary_keys.iter().all(|k| s.partition_keys.contains(k)) {
            return Err("the primary key must contain fields besides the partition fields".into());
        }
    }
    crate::table::check_path_options(&o).map_err(|e| e.to_string())?;
    let bucket_keys = &o.bucket_key;
    match o.bucket {
        -1 => {
            if !bucket_keys.is_empty() {
                return Err("cannot define 'bucket-key' with bucket = -1".into());
            }
        }
        -2 if !s.primary_keys.is_empty() => {}
        b if b < 1 => return Err("the number of buckets needs to be greater than 0".into()),
        _ => {
            if s.primary_keys.is_empty() && bucket_keys.is_empty() {
                return Err("a bucketed append table needs a 'bucket-key'".into());
            }
        }
    }
    check_keys(bucket_keys, "bucket key")?;
    if let Some(k) = bucket_keys.iter().find(|k| s.partition_keys.contains(k)) {
        return Err(format!("bucket key {k:?} must not be a partition key"));
    }
    if !s.primary_keys.is_empty() {
        if let Some(k) = bucket_keys.iter().find(|k| !s.primary_keys.contains(k)) {
            return Err(format!("bucket key {k:?} must be part of the primary key"));
        }
    }
    for f in &o.sequence_fields {
        if !names.contains(f.as_str()) {
            return Err(format!("sequence.field {f:?} is not a field"));
        }
    }
    super::schema_options::check(&s, &o)?;
    let pk: HashSet<String> = s.primary_keys.iter().cloned().collect();
    let mut next_id = highest_id(&s.fields);
    let mut ids = HashSet::new();
    let mut fields: Vec<DataField> = Vec::with_capacity(s.fields.len());
    for mut f in std::mem::take(&mut s.fields) {
        if !ids.insert(f.id) || f.id < 0 {
            next_id += 1;
            f.id = next_id;
        }
        // Java's `Schema.Builder.column`: the column's id, then its nested fields' ids.
        number_nested(&mut f.data_type, &mut next_id);
        if pk.contains(&f.name) {
            f.data_type = f.data_type.with_nullable(false);
        }
        fields.push(f);
    }
    s.highest_field_id = highest_id(&fields).max(next_id);
    s.fields = fields;
    s.id = 0;
    s.version = 3;
    if s.time_millis == 0 {
        s.time_millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
    }
    Ok(s)
}

/// Gives the nested row fields of `t` that have no id yet (a negative one) the ids after
/// `next`; a nested field's own fields come before it, as Java's `ReassignFieldId` numbers
/// them (`c ROW<a INT, r ROW<x INT>>` created as column 0: a 1, x 2, r 3).
fn number_nested(t: &mut paimon_spec::types::DataType, next: &mut i32) {
    match &mut t.kind {
        TypeKind::Row(fields) => {
            for f in fields {
                number_nested(&mut f.data_type, next);
                if f.id < 0 {
                    *next += 1;
                    f.id = *next;
                }
            }
        }
        TypeKind::Array(e) | TypeKind::Multiset(e) | TypeKind::Vector { element: e, .. } => {
            number_nested(e, next)
        }
        TypeKind::Map { key, value } => {
            number_nested(key, next);
            number_nested(value, next);
        }
        _ => {}
    }
}

/// The highest field id, nested row fields included (Java `RowType.currentHighestFieldId`).
fn highest_id(fields: &[DataField]) -> i32 {
    fn of_type(t: &paimon_spec::types::DataType) -> i32 {
        match &t.kind {
            TypeKind::Row(fs) => highest_id(fs),
            TypeKind::Array(e) | TypeKind::Multiset(e) => of_type(e),
            TypeKind::Map { key, value } => of_type(key).max(of_type(value)),
            _ => -1,
        }
    }
    fields
        .iter()
        .map(|f| f.id.max(of_type(&f.data_type)))
        .max()
        .unwrap_or(-1)
}
