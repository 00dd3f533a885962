//! Writing manifests, manifest lists and index manifests as Java 1.4.2 does (Java
//! `ManifestEntrySerializer`, `ManifestFileMetaSerializer`, `IndexManifestEntrySerializer` over
//! `AvroFileFormat`): the same row types, so the header schema equals Java's.

use std::sync::Arc;

use paimon_spec::data_file::DataFileMeta;
use paimon_spec::stats::SimpleStats;

use super::index::GlobalIndexMeta;
use super::{FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta};
use crate::error::{Error, Result};
use paimon_format::avro::encode::{codec_for, write_container, WriteType};
use paimon_format::value::{Record, Value};

use WriteType as T;

fn stats_type() -> WriteType {
    T::Record(vec![
        ("_MIN_VALUES", T::Bytes),
        ("_MAX_VALUES", T::Bytes),
        ("_NULL_COUNTS", T::nullable(T::array(T::nullable(T::Long)))),
    ])
}

fn strings() -> WriteType {
    T::array(T::String)
}

/// `DataFileMeta.SCHEMA` of 1.4.2 (20 fields); with `sequences`, the 21st field Java after 2.0,
/// pypaimon 2.1 and paimon-rust 0.4 write (`_WRITE_COLS_SEQUENCES`, per written column the
/// largest sequence number), only when an entry has one.
fn data_file_type(sequences: bool) -> WriteType {
    let mut fields = vec![
        ("_FILE_NAME", T::String),
        ("_FILE_SIZE", T::Long),
        ("_ROW_COUNT", T::Long),
        ("_MIN_KEY", T::Bytes),
        ("_MAX_KEY", T::Bytes),
        ("_KEY_STATS", stats_type()),
        ("_VALUE_STATS", stats_type()),
        ("_MIN_SEQUENCE_NUMBER", T::Long),
        ("_MAX_SEQUENCE_NUMBER", T::Long),
        ("_SCHEMA_ID", T::Long),
        ("_LEVEL", T::Int),
        ("_EXTRA_FILES", strings()),
        ("_CREATION_TIME", T::nullable(T::TimestampMillis)),
        ("_DELETE_ROW_COUNT", T::nullable(T::Long)),
        ("_EMBEDDED_FILE_INDEX", T::nullable(T::Bytes)),
        ("_FILE_SOURCE", T::nullable(T::TinyInt)),
        ("_VALUE_STATS_COLS", T::nullable(strings())),
        ("_EXTERNAL_PATH", T::nullable(T::String)),
        ("_FIRST_ROW_ID", T::nullable(T::Long)),
        ("_WRITE_COLS", T::nullable(strings())),
    ];
    if sequences {
        fields.push(("_WRITE_COLS_SEQUENCES", T::nullable(T::array(T::Long))));
    }
    T::Record(fields)
}

/// Java 1.4's `ManifestEntry.SCHEMA` with `_VERSION`.
pub fn manifest_entry_type() -> WriteType {
    manifest_entry_type_with(false)
}

fn manifest_entry_type_with(sequences: bool) -> WriteType {
    T::Record(vec![
        ("_VERSION", T::Int),
        ("_KIND", T::TinyInt),
        ("_PARTITION", T::Bytes),
        ("_BUCKET", T::Int),
        ("_TOTAL_BUCKETS", T::Int),
        ("_FILE", data_file_type(sequences)),
    ])
}

/// Java 1.4's `ManifestFileMeta.SCHEMA` with `_VERSION`.
pub fn manifest_file_meta_type() -> WriteType {
    manifest_file_meta_type_with(false)
}

/// With `v2x`, the two fields Java after 2.0 and paimon-rust 0.4 append (`_TOTAL_BUCKETS`,
/// `_EXTRA_FILES`, in their order); written only when a listed manifest carries one, so a list
/// of our own manifests keeps Java 1.4's schema.
fn manifest_file_meta_type_with(v2x: bool) -> WriteType {
    let mut fields = vec![
        ("_VERSION", T::Int),
        ("_FILE_NAME", T::String),
        ("_FILE_SIZE", T::Long),
        ("_NUM_ADDED_FILES", T::Long),
        ("_NUM_DELETED_FILES", T::Long),
        ("_PARTITION_STATS", stats_type()),
        ("_SCHEMA_ID", T::Long),
        ("_MIN_BUCKET", T::nullable(T::Int)),
        ("_MAX_BUCKET", T::nullable(T::Int)),
        ("_MIN_LEVEL", T::nullable(T::Int)),
        ("_MAX_LEVEL", T::nullable(T::Int)),
        ("_MIN_ROW_ID", T::nullable(T::Long)),
        ("_MAX_ROW_ID", T::nullable(T::Long)),
    ];
    if v2x {
        fields.push(("_TOTAL_BUCKETS", T::nullable(T::Int)));
        fields.push(("_EXTRA_FILES", T::nullable(strings())));
    }
    T::Record(fields)
}

fn has_v2x_fields(m: &ManifestFileMeta) -> bool {
    m.total_buckets.is_some() || m.extra_files.is_some()
}

/// Java `IndexManifestEntry.SCHEMA` with `_VERSION`.
pub fn index_manifest_entry_type() -> WriteType {
    T::Record(vec![
        ("_VERSION", T::Int),
        ("_KIND", T::TinyInt),
        ("_PARTITION", T::Bytes),
        ("_BUCKET", T::Int),
        ("_INDEX_TYPE", T::String),
        ("_FILE_NAME", T::String),
        ("_FILE_SIZE", T::Long),
        ("_ROW_COUNT", T::Long),
        (
            "_DELETIONS_VECTORS_RANGES",
            T::nullable(T::array(T::nullable(T::Record(vec![
                ("f0", T::String),
                ("f1", T::Int),
                ("f2", T::Int),
                ("_CARDINALITY", T::nullable(T::Long)),
            ])))),
        ),
        ("_EXTERNAL_PATH", T::nullable(T::String)),
        (
            "_GLOBAL_INDEX",
            T::nullable(global_index_type(GlobalFields::Java14)),
        ),
    ])
}

/// How many `GlobalIndexMeta` fields an index manifest is written with: Java 1.4's five, then
/// `_SOURCE_META` (Java 2.0, pypaimon 2.1), then `_BUILD_SCHEMA_ID` (Java after 2.0, paimon-rust
/// 0.4). The fewest that hold every entry's values, so a table only we and Java 1.4 wrote keeps
/// Java 1.4's schema and a 2.x entry keeps what its writer gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum GlobalFields {
    Java14,
    SourceMeta,
    BuildSchemaId,
}

impl GlobalFields {
    fn of(entries: &[IndexManifestEntry]) -> GlobalFields {
        entries
            .iter()
            .filter_map(|e| e.index_file.global_index.as_ref())
            .map(|g| {
                if g.build_schema_id.is_some() {
                    GlobalFields::BuildSchemaId
                } else if g.source_meta.is_some() {
                    GlobalFields::SourceMeta
                } else {
                    GlobalFields::Java14
                }
            })
            .max()
            .unwrap_or(GlobalFields::Java14)
    }
}

fn global_index_type(fields: GlobalFields) -> WriteType {
    let mut f = vec![
        ("_ROW_RANGE_START", T::Long),
        ("_ROW_RANGE_END", T::Long),
        ("_INDEX_FIELD_ID", T::Int),
        ("_EXTRA_FIELD_IDS", T::nullable(T::array(T::Int))),
        ("_INDEX_META", T::nullable(T::Bytes)),
    ];
    if fields >= GlobalFields::SourceMeta {
        f.push(("_SOURCE_META", T::nullable(T::Bytes)));
    }
    if fields >= GlobalFields::BuildSchemaId {
        f.push(("_BUILD_SCHEMA_ID", T::nullable(T::Long)));
    }
    T::Record(f)
}

fn index_manifest_entry_type_with(fields: GlobalFields) -> WriteType {
    let T::Record(mut all) = index_manifest_entry_type() else {
        unreachable!("index_manifest_entry_type is a record")
    };
    if let Some(g) = all.iter_mut().find(|(n, _)| *n == "_GLOBAL_INDEX") {
        g.1 = T::nullable(global_index_type(fields));
    }
    T::Record(all)
}

fn record(fields: Vec<(&str, Value)>) -> Value {
    let names: Arc<[String]> = fields.iter().map(|(n, _)| n.to_string()).collect();
    Value::Record(Record::new(
        names,
        fields.into_iter().map(|(_, v)| v).collect(),
    ))
}

fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> Value) -> Value {
    v.map_or(Value::Null, f)
}

fn string_array(v: &[String]) -> Value {
    Value::Array(v.iter().cloned().map(Value::String).collect())
}

fn stats_value(s: &SimpleStats) -> Value {
    record(vec![
        ("_MIN_VALUES", Value::Bytes(s.min_values.to_vec())),
        ("_MAX_VALUES", Value::Bytes(s.max_values.to_vec())),
        (
            "_NULL_COUNTS",
            opt(s.null_counts.as_ref(), |c| {
                Value::Array(c.iter().map(|n| opt(*n, Value::Long)).collect())
            }),
        ),
    ])
}

fn kind_value(k: FileKind) -> Value {
    Value::Int(match k {
        FileKind::Add => 0,
        FileKind::Delete => 1,
    })
}

fn data_file_value(f: &DataFileMeta, sequences: bool) -> Value {
    let mut fields = vec![
        ("_FILE_NAME", Value::String(f.file_name.clone())),
        ("_FILE_SIZE", Value::Long(f.file_size)),
        ("_ROW_COUNT", Value::Long(f.row_count)),
        ("_MIN_KEY", Value::Bytes(f.min_key.to_vec())),
        ("_MAX_KEY", Value::Bytes(f.max_key.to_vec())),
        ("_KEY_STATS", stats_value(&f.key_stats)),
        ("_VALUE_STATS", stats_value(&f.value_stats)),
        ("_MIN_SEQUENCE_NUMBER", Value::Long(f.min_sequence_number)),
        ("_MAX_SEQUENCE_NUMBER", Value::Long(f.max_sequence_number)),
        ("_SCHEMA_ID", Value::Long(f.schema_id)),
        ("_LEVEL", Value::Int(f.level)),
        ("_EXTRA_FILES", string_array(&f.extra_files)),
        ("_CREATION_TIME", opt(f.creation_time, Value::Long)),
        ("_DELETE_ROW_COUNT", opt(f.delete_row_count, Value::Long)),
        (
            "_EMBEDDED_FILE_INDEX",
            opt(f.embedded_index.clone(), Value::Bytes),
        ),
        (
            "_FILE_SOURCE",
            opt(f.file_source, |s| Value::Int(i32::from(s))),
        ),
        (
            "_VALUE_STATS_COLS",
            opt(f.value_stats_cols.as_deref(), string_array),
        ),
        (
            "_EXTERNAL_PATH",
            opt(f.external_path.clone(), Value::String),
        ),
        ("_FIRST_ROW_ID", opt(f.first_row_id, Value::Long)),
        ("_WRITE_COLS", opt(f.write_cols.as_deref(), string_array)),
    ];
    if sequences {
        fields.push((
            "_WRITE_COLS_SEQUENCES",
            opt(f.write_cols_sequences.as_deref(), |v| {
                Value::Array(v.iter().map(|x| Value::Long(*x)).collect())
            }),
        ));
    }
    record(fields)
}

/// The record of one manifest entry (Java 1.4's fields).
pub fn manifest_entry_value(e: &ManifestEntry) -> Value {
    manifest_entry_value_with(e, false)
}

fn manifest_entry_value_with(e: &ManifestEntry, sequences: bool) -> Value {
    record(vec![
        ("_VERSION", Value::Int(2)),
        ("_KIND", kind_value(e.kind)),
        ("_PARTITION", Value::Bytes(e.partition.clone())),
        ("_BUCKET", Value::Int(e.bucket)),
        ("_TOTAL_BUCKETS", Value::Int(e.total_buckets)),
        ("_FILE", data_file_value(&e.file, sequences)),
    ])
}

/// The record of one manifest-list entry (Java 1.4's fields).
pub fn manifest_file_meta_value(m: &ManifestFileMeta) -> Value {
    manifest_file_meta_value_with(m, false)
}

fn manifest_file_meta_value_with(m: &ManifestFileMeta, v2x: bool) -> Value {
    let mut fields = vec![
        ("_VERSION", Value::Int(2)),
        ("_FILE_NAME", Value::String(m.file_name.clone())),
        ("_FILE_SIZE", Value::Long(m.file_size)),
        ("_NUM_ADDED_FILES", Value::Long(m.num_added_files)),
        ("_NUM_DELETED_FILES", Value::Long(m.num_deleted_files)),
        ("_PARTITION_STATS", stats_value(&m.partition_stats)),
        ("_SCHEMA_ID", Value::Long(m.schema_id)),
        ("_MIN_BUCKET", opt(m.min_bucket, Value::Int)),
        ("_MAX_BUCKET", opt(m.max_bucket, Value::Int)),
        ("_MIN_LEVEL", opt(m.min_level, Value::Int)),
        ("_MAX_LEVEL", opt(m.max_level, Value::Int)),
        ("_MIN_ROW_ID", opt(m.min_row_id, Value::Long)),
        ("_MAX_ROW_ID", opt(m.max_row_id, Value::Long)),
    ];
    if v2x {
        fields.push(("_TOTAL_BUCKETS", opt(m.total_buckets, Value::Int)));
        fields.push(("_EXTRA_FILES", opt(m.extra_files.as_deref(), string_array)));
    }
    record(fields)
}

/// The record of one index-manifest entry.
///
/// # Errors
/// `Unsupported` when a deletion vector's offset or length does not fit Java's `int`.
pub fn index_manifest_entry_value(e: &IndexManifestEntry) -> Result<Value> {
    index_manifest_entry_value_with(e, GlobalFields::Java14)
}

fn global_index_value(g: &GlobalIndexMeta, fields: GlobalFields) -> Value {
    let mut f = vec![
        ("_ROW_RANGE_START", Value::Long(g.row_range_start)),
        ("_ROW_RANGE_END", Value::Long(g.row_range_end)),
        ("_INDEX_FIELD_ID", Value::Int(g.index_field_id)),
        (
            "_EXTRA_FIELD_IDS",
            opt(g.extra_field_ids.clone(), |ids| {
                Value::Array(ids.into_iter().map(Value::Int).collect())
            }),
        ),
        ("_INDEX_META", opt(g.index_meta.clone(), Value::Bytes)),
    ];
    if fields >= GlobalFields::SourceMeta {
        f.push(("_SOURCE_META", opt(g.source_meta.clone(), Value::Bytes)));
    }
    if fields >= GlobalFields::BuildSchemaId {
        f.push(("_BUILD_SCHEMA_ID", opt(g.build_schema_id, Value::Long)));
    }
    record(f)
}

fn index_manifest_entry_value_with(e: &IndexManifestEntry, fields: GlobalFields) -> Result<Value> {
    let f = &e.index_file;
    let ranges = match &f.dv_ranges {
        None => Value::Null,
        Some(r) => Value::Array(
            r.iter()
                .map(|d| {
                    record(vec![
                        ("f0", Value::String(d.data_file_name.clone())),
                        ("f1", Value::Int(d.offset)),
                        ("f2", Value::Int(d.length)),
                        ("_CARDINALITY", opt(d.cardinality, Value::Long)),
                    ])
                })
                .collect(),
        ),
    };
    let global = match &f.global_index {
        None => Value::Null,
        Some(g) => global_index_value(g, fields),
    };
    Ok(record(vec![
        ("_VERSION", Value::Int(1)),
        ("_KIND", kind_value(e.kind)),
        ("_PARTITION", Value::Bytes(e.partition.clone())),
        ("_BUCKET", Value::Int(e.bucket)),
        ("_INDEX_TYPE", Value::String(f.index_type.clone())),
        ("_FILE_NAME", Value::String(f.file_name.clone())),
        ("_FILE_SIZE", Value::Long(f.file_size)),
        ("_ROW_COUNT", Value::Long(f.row_count)),
        ("_DELETIONS_VECTORS_RANGES", ranges),
        (
            "_EXTERNAL_PATH",
            opt(f.external_path.clone(), Value::String),
        ),
        ("_GLOBAL_INDEX", global),
    ]))
}

/// How manifest-family files are written (`manifest.format`, `manifest.compression`).
#[derive(Debug, Clone)]
pub struct ManifestWriteOptions {
    format: ManifestFormat,
}

#[derive(Debug, Clone)]
enum ManifestFormat {
    Avro(paimon_format::avro::container::AvroCodec),
    Parquet(parquet::basic::Compression),
    Orc(paimon_format::orc::write::OrcCodec),
}

impl ManifestWriteOptions {
    /// For a table's `manifest.format` and `manifest.compression`.
    ///
    /// # Errors
    /// `Unsupported` for an unknown format, and for a compression the format has no codec for
    /// here.
    pub fn try_new(format: &str, compression: &str) -> Result<Self> {
        let format = match format.to_ascii_lowercase().as_str() {
            "avro" => ManifestFormat::Avro(
                codec_for(compression).map_err(|e| Error::unsupported(e.to_string()))?,
            ),
            "parquet" => ManifestFormat::Parquet(
                paimon_format::parquet::manifest_encode::parquet_codec(compression)
                    .map_err(|e| Error::unsupported(e.to_string()))?,
            ),
            "orc" => ManifestFormat::Orc(
                paimon_format::orc::manifest_encode::orc_codec(compression)
                    .map_err(|e| Error::unsupported(e.to_string()))?,
            ),
            _ => {
                return Err(Error::unsupported(format!(
                    "writing manifests in format {format:?} (avro, parquet or orc)"
                )))
            }
        };
        Ok(ManifestWriteOptions { format })
    }

    fn write(&self, path: &str, t: &WriteType, records: &[Value]) -> Result<Vec<u8>> {
        match &self.format {
            ManifestFormat::Avro(codec) => write_container(t, *codec, sync_marker(path), records),
            ManifestFormat::Parquet(codec) => {
                paimon_format::parquet::manifest_encode::write_parquet(t, *codec, records)
            }
            ManifestFormat::Orc(codec) => {
                paimon_format::orc::manifest_encode::write_orc(t, *codec, records)
            }
        }
        .map_err(|e| Error::Internal(format!("encoding {path}: {e}")))
    }

    /// Bytes of a data manifest holding `entries`; `path` names it in errors.
    ///
    /// # Errors
    /// `Internal` when an entry does not fit the schema.
    pub fn manifest(&self, path: &str, entries: &[ManifestEntry]) -> Result<Vec<u8>> {
        let sequences = entries
            .iter()
            .any(|e| e.file.write_cols_sequences.is_some());
        let recs: Vec<Value> = entries
            .iter()
            .map(|e| manifest_entry_value_with(e, sequences))
            .collect();
        self.write(path, &manifest_entry_type_with(sequences), &recs)
    }

    /// Bytes of a manifest list.
    ///
    /// # Errors
    /// `Internal` when an entry does not fit the schema.
    pub fn manifest_list(&self, path: &str, metas: &[ManifestFileMeta]) -> Result<Vec<u8>> {
        let v2x = metas.iter().any(has_v2x_fields);
        let recs: Vec<Value> = metas
            .iter()
            .map(|m| manifest_file_meta_value_with(m, v2x))
            .collect();
        self.write(path, &manifest_file_meta_type_with(v2x), &recs)
    }

    /// Bytes of an index manifest.
    ///
    /// # Errors
    /// `Unsupported` for offsets beyond Java's int; `Internal` when an entry does not fit.
    pub fn index_manifest(&self, path: &str, entries: &[IndexManifestEntry]) -> Result<Vec<u8>> {
        let fields = GlobalFields::of(entries);
        let recs = entries
            .iter()
            .map(|e| index_manifest_entry_value_with(e, fields))
            .collect::<Result<Vec<_>>>()?;
        self.write(path, &index_manifest_entry_type_with(fields), &recs)
    }
}

/// A per-file sync marker: the file's name is unique (it carries a random UUID), so hashing it
/// with the time gives a marker no other file shares.
fn sync_marker(path: &str) -> [u8; 16] {
    use std::hash::{Hash, Hasher};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut out = [0u8; 16];
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (path, nanos, i).hash(&mut h);
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}
