//! Table schemas of one branch (Java `SchemaManager`) and tags (Java `TagManager`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use paimon_io::FileIORef;
use paimon_spec::layout::{self, BranchLayout};
use paimon_spec::schema::{TableSchema, TableSchemaRef};

use crate::error::{Error, Result};
use crate::snapshot::Snapshot;

pub use layout::{SCHEMA_PREFIX, TAG_PREFIX};

/// Reads `schema/schema-N` files, caching each parsed schema.
#[derive(Debug)]
pub struct SchemaManager {
    file_io: FileIORef,
    layout: BranchLayout,
    dir: String,
    cache: Mutex<HashMap<i64, TableSchemaRef>>,
}

impl SchemaManager {
    /// Schemas under `branch_root/schema`.
    pub fn new(file_io: FileIORef, branch_root: &str) -> Self {
        let layout = BranchLayout::at(branch_root);
        SchemaManager {
            file_io,
            dir: layout.schema_dir(),
            layout,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Path of `schema-<id>`.
    pub fn schema_path(&self, id: i64) -> String {
        self.layout.schema_path(id)
    }

    /// Every schema id present, ascending.
    ///
    /// # Errors
    /// Storage errors; a missing directory gives an empty list.
    pub fn schema_ids(&self) -> Result<Vec<i64>> {
        let entries = match self.file_io.list(&self.dir) {
            Ok(e) => e,
            Err(e) if e.is_not_found() => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(e)),
        };
        let mut ids: Vec<i64> = entries
            .iter()
            .filter(|e| !e.is_dir)
            .filter_map(|e| layout::parse_id(SCHEMA_PREFIX, e.name()))
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// Schema `id`.
    ///
    /// # Errors
    /// [`Error::NotFound`] when absent, [`Error::Spec`] when malformed.
    pub fn schema(&self, id: i64) -> Result<TableSchemaRef> {
        if let Some(s) = self.cache.lock().ok().and_then(|c| c.get(&id).cloned()) {
            return Ok(s);
        }
        let path = self.layout.schema_path(id);
        let bytes = self.file_io.read(&path).map_err(Error::io)?;
        let text = std::str::from_utf8(&bytes).map_err(|e| Error::corrupt(&path, e.to_string()))?;
        let schema = Arc::new(TableSchema::from_json_str(text).map_err(|e| Error::spec(&path, e))?);
        if let Ok(mut c) = self.cache.lock() {
            c.insert(id, schema.clone());
        }
        Ok(schema)
    }

    /// The newest schema, if any.
    ///
    /// # Errors
    /// Storage or decoding errors.
    pub fn latest(&self) -> Result<Option<TableSchemaRef>> {
        self.schema_ids()?
            .last()
            .map(|id| self.schema(*id))
            .transpose()
    }
}

/// Reads `tag/tag-NAME` files (Java `TagManager`); a tag is a snapshot plus tag metadata.
#[derive(Debug, Clone)]
pub struct TagManager {
    file_io: FileIORef,
    layout: BranchLayout,
    dir: String,
}

impl TagManager {
    /// Tags under `branch_root/tag`.
    pub fn new(file_io: FileIORef, branch_root: &str) -> Self {
        let layout = BranchLayout::at(branch_root);
        TagManager {
            file_io,
            dir: layout.tag_dir(),
            layout,
        }
    }

    /// The snapshot a tag points at.
    ///
    /// # Errors
    /// [`Error::TagNotFound`] when absent; `Corrupt` when malformed.
    pub fn tag(&self, name: &str) -> Result<Snapshot> {
        let path = self.layout.tag_path(name);
        let bytes = self.file_io.read(&path).map_err(|e| {
            if e.is_not_found() {
                Error::TagNotFound {
                    name: name.to_string(),
                    path: self.dir.clone(),
                }
            } else {
                Error::io(e)
            }
        })?;
        let text = std::str::from_utf8(&bytes).map_err(|e| Error::corrupt(&path, e.to_string()))?;
        Snapshot::from_json_str(&path, text)
    }

    /// Tag names, sorted.
    ///
    /// # Errors
    /// Storage errors; a missing directory gives an empty list.
    pub fn tag_names(&self) -> Result<Vec<String>> {
        match self.file_io.list(&self.dir) {
            Ok(e) => Ok(e
                .iter()
                .filter(|e| !e.is_dir)
                .filter_map(|e| e.name().strip_prefix(TAG_PREFIX).map(str::to_string))
                .collect()),
            Err(e) if e.is_not_found() => Ok(Vec::new()),
            Err(e) => Err(Error::io(e)),
        }
    }
}
