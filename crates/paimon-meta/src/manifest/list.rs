//! Manifest-list records (Java `ManifestFileMeta`).

use paimon_spec::stats::SimpleStats;

use super::{decode_records, Fields};
use crate::error::Result;
use paimon_format::value::{Record, Value};

/// One manifest file listed in a manifest list (Java `ManifestFileMeta`).
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestFileMeta {
    /// Manifest file name (in `manifest/`).
    pub file_name: String,
    /// Its size in bytes.
    pub file_size: i64,
    /// ADD entries in it.
    pub num_added_files: i64,
    /// DELETE entries in it.
    pub num_deleted_files: i64,
    /// Stats over the partition columns (all nullable).
    pub partition_stats: SimpleStats,
    /// Schema id when written.
    pub schema_id: i64,
    /// Smallest bucket (1.1+).
    pub min_bucket: Option<i32>,
    /// Largest bucket (1.1+).
    pub max_bucket: Option<i32>,
    /// Smallest level (1.1+).
    pub min_level: Option<i32>,
    /// Largest level (1.1+).
    pub max_level: Option<i32>,
    /// Smallest row id (1.4+).
    pub min_row_id: Option<i64>,
    /// Largest row id (1.4+).
    pub max_row_id: Option<i64>,
    /// Total buckets of the manifest's entries when they all agree (`_TOTAL_BUCKETS`, written
    /// by Java after 2.0 and paimon-rust 0.4; absent before). Carried unchanged.
    pub total_buckets: Option<i32>,
    /// Files that belong to the manifest, in `manifest/` beside it (`_EXTRA_FILES`, Java after
    /// 2.0 and paimon-rust 0.4: the manifest sidecar, a block index for pruning). We read the
    /// manifest itself, which is complete without them; they are carried unchanged, kept by
    /// orphan removal while the manifest is used and deleted with it when it expires.
    pub extra_files: Option<Vec<String>>,
}

/// `_VERSION` of manifest lists (Java `ManifestFileMetaSerializer`).
const FORMAT_IDENTIFIER: i64 = 2;

impl ManifestFileMeta {
    /// Decodes a manifest-list file.
    ///
    /// # Errors
    /// `Corrupt` naming `path` on malformed bytes or missing fields.
    pub fn decode_list(path: &str, bytes: bytes::Bytes) -> Result<Vec<ManifestFileMeta>> {
        let f = Fields {
            path,
            what: "manifest list",
        };
        decode_records(path, bytes)?
            .iter()
            .map(|r| {
                f.check_version(r, FORMAT_IDENTIFIER)?;
                Ok(ManifestFileMeta {
                    file_name: f.file_name(r, "_FILE_NAME")?,
                    file_size: f.long(r, "_FILE_SIZE")?,
                    num_added_files: f.long(r, "_NUM_ADDED_FILES")?,
                    num_deleted_files: f.long(r, "_NUM_DELETED_FILES")?,
                    partition_stats: f.stats(r, "_PARTITION_STATS")?,
                    schema_id: f.long(r, "_SCHEMA_ID")?,
                    min_bucket: f.opt_int(r, "_MIN_BUCKET")?,
                    max_bucket: f.opt_int(r, "_MAX_BUCKET")?,
                    min_level: f.opt_int(r, "_MIN_LEVEL")?,
                    max_level: f.opt_int(r, "_MAX_LEVEL")?,
                    min_row_id: f.opt_long(r, "_MIN_ROW_ID")?,
                    max_row_id: f.opt_long(r, "_MAX_ROW_ID")?,
                    total_buckets: f.opt_int(r, "_TOTAL_BUCKETS")?,
                    extra_files: extra_files(&f, r)?,
                })
            })
            .collect()
    }
}

/// `_EXTRA_FILES` of a manifest-list record: plain names (they are joined to `manifest/`).
fn extra_files(f: &Fields<'_>, r: &Record) -> Result<Option<Vec<String>>> {
    const FIELD: &str = "_EXTRA_FILES";
    match r.get(FIELD) {
        Value::Null => Ok(None),
        Value::Array(items) => items
            .iter()
            .map(|v| {
                let name = v
                    .as_str()
                    .ok_or_else(|| f.err(FIELD, "holds a non-string"))?;
                crate::file_name::check_plain_name(
                    f.path,
                    &format!("{} field {FIELD}", f.what),
                    name,
                )?;
                Ok(name.to_string())
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        _ => Err(f.err(FIELD, "not an array")),
    }
}
