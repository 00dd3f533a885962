//! Index manifest entries (Java `IndexManifestEntry`, `IndexFileMeta`).

use super::{decode_records, Fields, FileKind};
use crate::error::Result;
use paimon_format::value::{Record, Value};

pub use paimon_spec::index_file::{GlobalIndexMeta, DELETION_VECTORS_INDEX};

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

/// An index file (Java `IndexFileMeta`).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexFileMeta {
    /// `DELETION_VECTORS`, `HASH` or a global index type.
    pub index_type: String,
    /// File name in `index/` (or the bucket directory).
    pub file_name: String,
    /// Size in bytes.
    pub file_size: i64,
    /// Number of entries (DVs for a DV file).
    pub row_count: i64,
    /// Deletion vectors in the file, in file order.
    pub dv_ranges: Option<Vec<DeletionVectorMeta>>,
    /// Absolute path when stored outside the table.
    pub external_path: Option<String>,
    /// Row range and field of a global index file (`_GLOBAL_INDEX`, 1.4+).
    pub global_index: Option<GlobalIndexMeta>,
}

impl IndexFileMeta {
    /// The same file as the format model (and commit messages) hold it; ranges beyond an
    /// `i32` offset or length, which Java cannot write, saturate.
    pub fn to_spec(&self) -> paimon_spec::index_file::IndexFileMeta {
        paimon_spec::index_file::IndexFileMeta {
            index_type: self.index_type.clone(),
            file_name: self.file_name.clone(),
            file_size: self.file_size,
            row_count: self.row_count,
            dv_ranges: self.dv_ranges.as_ref().map(|r| {
                r.iter()
                    .map(|d| paimon_spec::index_file::DeletionVectorMeta {
                        data_file_name: d.data_file_name.clone(),
                        offset: i32::try_from(d.offset).unwrap_or(i32::MAX),
                        length: i32::try_from(d.length).unwrap_or(i32::MAX),
                        cardinality: d.cardinality,
                    })
                    .collect()
            }),
            external_path: self.external_path.clone(),
            global_index: self.global_index.clone(),
        }
    }
}

/// One deletion vector inside an index file (Java `DeletionVectorMeta`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletionVectorMeta {
    /// The data file it applies to.
    pub data_file_name: String,
    /// Offset of its length prefix.
    pub offset: i64,
    /// Its length (see paimon-format.md §6).
    pub length: i64,
    /// Deleted rows, when known (1.0+).
    pub cardinality: Option<i64>,
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
    let one = |e: &Record, name: Option<&str>| -> Result<DeletionVectorMeta> {
        Ok(DeletionVectorMeta {
            data_file_name: match name {
                Some(n) => n.to_string(),
                None => f.string(e, "f0")?,
            },
            offset: f.long(e, if name.is_some() { "f0" } else { "f1" })?,
            length: f.long(e, if name.is_some() { "f1" } else { "f2" })?,
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
