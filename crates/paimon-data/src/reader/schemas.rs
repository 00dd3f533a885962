//! Table schema files (`<table>/schema/schema-N`), read once per id (Java `SchemaManager`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use paimon_io::{join, FileIO, FileStatus};
use paimon_spec::layout::{self, TableLayout};
use paimon_spec::schema::{TableSchema, TableSchemaRef};

use crate::error::{Error, Result};

/// Caches parsed schema files by (schema directory, id).
#[derive(Debug, Default)]
pub(crate) struct SchemaCache {
    schemas: Mutex<HashMap<(String, i64), TableSchemaRef>>,
}

impl SchemaCache {
    /// `<table>/schema` or the branch's schema directory.
    pub(crate) fn schema_dir(table_path: &str, branch: Option<&str>) -> String {
        TableLayout::new(table_path)
            .branch(branch.unwrap_or(layout::MAIN_BRANCH))
            .schema_dir()
    }

    /// The schema with `id`.
    ///
    /// # Errors
    /// [`Error::NotFound`] when the file is absent, [`Error::Spec`] when it does not parse.
    pub(crate) fn get(&self, io: &dyn FileIO, dir: &str, id: i64) -> Result<TableSchemaRef> {
        let key = (dir.to_string(), id);
        if let Some(s) = self.schemas.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(s);
        }
        let path = Self::schema_path(dir, id);
        let bytes = io.read(&path).map_err(|e| Error::io(&path, e))?;
        let text = std::str::from_utf8(&bytes).map_err(|e| Error::corrupt(&path, e.to_string()))?;
        let schema = Arc::new(TableSchema::from_json_str(text).map_err(|e| Error::spec(&path, e))?);
        if let Ok(mut m) = self.schemas.lock() {
            m.insert(key, schema.clone());
        }
        Ok(schema)
    }

    /// Whether the schema `id` of `dir` was read already.
    pub(crate) fn contains(&self, dir: &str, id: i64) -> bool {
        self.schemas
            .lock()
            .is_ok_and(|m| m.contains_key(&(dir.to_string(), id)))
    }

    /// The schema with the highest id in `dir`.
    ///
    /// # Errors
    /// [`Error::NotFound`] when the directory holds no schema file.
    pub(crate) fn latest(&self, io: &dyn FileIO, dir: &str) -> Result<TableSchemaRef> {
        let entries = io.list(dir).map_err(|e| Error::io(dir, e))?;
        let id = Self::latest_id(&entries).ok_or_else(|| Error::NotFound {
            path: join(dir, &format!("{}*", layout::SCHEMA_PREFIX)),
        })?;
        self.get(io, dir, id)
    }

    /// The file of schema `id` in `dir`.
    pub(crate) fn schema_path(dir: &str, id: i64) -> String {
        join(dir, &format!("{}{id}", layout::SCHEMA_PREFIX))
    }

    /// The highest schema id among the `entries` of a schema directory.
    pub(crate) fn latest_id(entries: &[FileStatus]) -> Option<i64> {
        entries
            .iter()
            .filter_map(|e| layout::parse_id(layout::SCHEMA_PREFIX, e.name()))
            .max()
    }
}
