//! Index manifest entries (Java `IndexManifestEntry`, `IndexFileMeta`).

use super::{decode_records, Fields, FileKind};
use crate::error::Result;
use paimon_format::value::{Record, Value};

// One type for an index file wherever it travels: manifests, commit messages, splits.
pub use paimon_spec::index_file::{
    DeletionVectorMeta, GlobalIndexMeta, IndexFileMeta, DELETION_VECTORS_INDEX,
};

/// One entry of an index manifest (Java `IndexManifestEntry`).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexManifestEntry {
    /// ADD or DELETE (index manifests normally hold only ADDs).
    pub kind: FileKind,
    /// Partition row, serialized with its arity prefix.
    pub partition: Vec<u8>,
    /// Bucket.
    pub bucket: i32,
    /// The index file.
    pub index_file: IndexFileMeta,
}

/// `_VERSION` of index manifests (Java `IndexManifestEntrySerializer`).
const FORMAT_IDENTIFIER: i64 = 1;

impl IndexManifestEntry {
    /// Decodes an index manifest file.
    ///
    /// # Errors
    /// `Corrupt` naming `path` on malformed bytes or fields.
    pub fn decode_index_manifest(
        path: &str,
        bytes: bytes::Bytes,
    ) -> Result<Vec<IndexManifestEntry>> {
        let f = Fields {
            path,
            what: "index manifest entry",
        };
        decode_records(path, bytes)?
            .iter()
            .map(|r| {
                f.check_version(r, FORMAT_IDENTIFIER)?;
                Ok(IndexManifestEntry {
                    kind: FileKind::from_i64(f.long(r, "_KIND")?)
                        .ok_or_else(|| f.err("_KIND", "not 0 or 1"))?,
                    partition: f.bytes(r, "_PARTITION")?,
                    bucket: f.int(r, "_BUCKET")?,
                    index_file: IndexFileMeta {
                        index_type: f.string(r, "_INDEX_TYPE")?,
                        file_name: f.file_name(r, "_FILE_NAME")?,
                        file_size: f.long(r, "_FILE_SIZE")?,
                        row_count: f.long(r, "_ROW_COUNT")?,
                        dv_ranges: dv_ranges(&f, r)?,
                        external_path: f.opt_string(r, "_EXTERNAL_PATH")?,
                        global_index: global_index(&f, r)?,
                    },
                })
            })
            .collect()
    }
}

/// `_GLOBAL_INDEX` (Java `GlobalIndexMeta`): absent or null for other index types.
fn global_index(f: &Fields<'_>, r: &Record) -> Result<Option<GlobalIndexMeta>> {
    const FIELD: &str = "_GLOBAL_INDEX";
    let g = match r.get(FIELD) {
        Value::Null => return Ok(None),
        Value::Record(g) => g,
        _ => return Err(f.err(FIELD, "not a record")),
    };
    let opt_bytes = |name: &str| match g.get(name) {
        Value::Null => Ok(None),
        Value::Bytes(b) => Ok(Some(b.clone())),
        _ => Err(f.err(FIELD, &format!("{name} is not bytes"))),
    };
    let extra_field_ids = match g.get("_EXTRA_FIELD_IDS") {
        Value::Null => None,
        Value::Array(items) => Some(
            items
                .iter()
                .map(|v| {
                    v.as_i64()
                        .and_then(|i| i32::try_from(i).ok())
                        .ok_or_else(|| f.err(FIELD, "_EXTRA_FIELD_IDS holds a non-int"))
                })
                .collect::<Result<Vec<_>>>()?,
        ),
        _ => return Err(f.err(FIELD, "_EXTRA_FIELD_IDS is not an array")),
    };
    let meta = GlobalIndexMeta {
        row_range_start: f.long(g, "_ROW_RANGE_START")?,
        row_range_end: f.long(g, "_ROW_RANGE_END")?,
        index_field_id: f.int(g, "_INDEX_FIELD_ID")?,
        extra_field_ids,
        index_meta: opt_bytes("_INDEX_META")?,
        source_meta: opt_bytes("_SOURCE_META")?,
        build_schema_id: f
            .opt_long(g, "_BUILD_SCHEMA_ID")
            .map_err(|_| f.err(FIELD, "_BUILD_SCHEMA_ID is not a long"))?,
    };
    if meta.row_range_start < 0 || meta.row_range_end < meta.row_range_start {
        return Err(f.err(
            FIELD,
            &format!(
                "row range [{}, {}] is empty or negative",
                meta.row_range_start, meta.row_range_end
            ),
        ));
    }
    Ok(Some(meta))
}

fn dv_ranges(f: &Fields<'_>, r: &Record) -> Result<Option<Vec<DeletionVectorMeta>>> {
    const FIELD: &str = "_DELETIONS_VECTORS_RANGES";
    // Java's `DeletionVectorMeta` holds the offset and length as ints.
    let int = |e: &Record, name: &str| -> Result<i32> {
        let v = f.long(e, name)?;
        i32::try_from(v).map_err(|_| f.err(FIELD, &format!("{name} {v} is not an int")))
    };
    let one = |e: &Record, name: Option<&str>| -> Result<DeletionVectorMeta> {
        Ok(DeletionVectorMeta {
            data_file_name: match name {
                Some(n) => n.to_string(),
                None => f.string(e, "f0")?,
            },
            offset: int(e, if name.is_some() { "f0" } else { "f1" })?,
            length: int(e, if name.is_some() { "f1" } else { "f2" })?,
            cardinality: f.opt_long(e, "_CARDINALITY")?,
        })
    };
    match r.get(FIELD) {
        Value::Null => Ok(None),
        Value::Array(items) => items
            .iter()
            .filter_map(|v| match v {
                Value::Null => None,
                Value::Record(e) => Some(one(e, None)),
                _ => Some(Err(f.err(FIELD, "element is not a record"))),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        // Older layout: a map from data file name to (offset, length).
        Value::Map(entries) => entries
            .iter()
            .map(|(k, v)| match v {
                Value::Record(e) => one(e, Some(k)),
                _ => Err(f.err(FIELD, "map value is not a record")),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        _ => Err(f.err(FIELD, "not an array")),
    }
}
