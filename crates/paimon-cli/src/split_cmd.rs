//! `paimon split inspect|convert`.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use clap::{Subcommand, ValueEnum};
use paimon_spec::binary::json::datum_to_json;
use paimon_spec::binary::BinaryRow;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::schema::TableSchema;
use paimon_spec::types::DataType;
use paimon_split::{decode_any, encode_frame, encode_split, DataSplit, Split, SplitEnvelope};
use serde_json::{json, Value};

#[derive(Debug, Subcommand)]
pub enum SplitCommand {
    /// Print every field of a split file (raw DataSplit, SPLIT_V1 frame or Java object stream).
    Inspect {
        /// The split file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Table directory whose schema types the partition and key values.
        #[arg(long)]
        table: Option<PathBuf>,
    },
    /// Re-encode a split at another DataSplit version or envelope.
    Convert {
        /// The split file.
        file: PathBuf,
        /// DataSplit version to write (1..=9).
        #[arg(long = "to-version")]
        to_version: i32,
        /// Envelope of the output.
        #[arg(long, value_enum, default_value = "raw")]
        frame: Frame,
        /// Output file.
        #[arg(long)]
        out: PathBuf,
    },
}

/// Output envelope.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Frame {
    /// Plain `DataSplit.serialize` bytes.
    Raw,
    /// The cross-language `SPLIT_V1` frame.
    SplitV1,
    /// A Java object-serialization image.
    JavaObject,
}

pub fn run(cmd: SplitCommand) -> Result<()> {
    match cmd {
        SplitCommand::Inspect { file, json, table } => inspect(&file, json, table.as_deref()),
        SplitCommand::Convert {
            file,
            to_version,
            frame,
            out,
        } => convert(&file, to_version, frame, &out),
    }
}

fn read_split_file(file: &Path) -> Result<paimon_split::DecodedSplit> {
    let bytes = std::fs::read(file).with_context(|| format!("{}: cannot read", file.display()))?;
    decode_any(&bytes).map_err(|e| anyhow!("{}: {e}", file.display()))
}

fn convert(file: &Path, version: i32, frame: Frame, out: &Path) -> Result<()> {
    let decoded = read_split_file(file)?;
    let bytes = match (frame, &decoded.split) {
        (Frame::SplitV1, s) => encode_frame(s, version),
        (f, s) => {
            let data = s.data_split().ok_or_else(|| {
                anyhow!(
                    "{}: a {} split only fits a SPLIT_V1 frame",
                    file.display(),
                    s.kind_name()
                )
            })?;
            let env = match f {
                Frame::JavaObject => SplitEnvelope::JavaObject,
                _ => SplitEnvelope::Raw,
            };
            encode_split(data, version, env)
        }
    }
    .map_err(|e| anyhow!("{}: {e}", file.display()))?;
    std::fs::write(out, bytes).with_context(|| format!("{}: cannot write", out.display()))?;
    Ok(())
}

/// Schemas of a table directory, by id.
struct TableTypes {
    schemas: Vec<TableSchema>,
}

impl TableTypes {
    fn load(table: &Path) -> Result<Self> {
        let dir = table.join("schema");
        let mut schemas = Vec::new();
        for e in
            std::fs::read_dir(&dir).with_context(|| format!("{}: cannot list", dir.display()))?
        {
            let p = e?.path();
            if p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("schema-"))
            {
                let text = std::fs::read_to_string(&p)
                    .with_context(|| format!("{}: cannot read", p.display()))?;
                schemas.push(
                    TableSchema::from_json_str(&text)
                        .map_err(|e| anyhow!("{}: {e}", p.display()))?,
                );
            }
        }
        schemas.sort_by_key(|s| s.id);
        if schemas.is_empty() {
            return Err(anyhow!("{}: no schema files", dir.display()));
        }
        Ok(TableTypes { schemas })
    }

    fn latest(&self) -> &TableSchema {
        &self.schemas[self.schemas.len() - 1]
    }

    fn by_id(&self, id: i64) -> &TableSchema {
        self.schemas
            .iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| self.latest())
    }
}

fn typed_row(serialized: &[u8], types: &[DataType], names: &[String]) -> Value {
    match BinaryRow::from_serialized(serialized).and_then(|r| {
        if r.arity() != types.len() {
            return Ok(None);
        }
        r.to_datums(types).map(Some)
    }) {
        Ok(Some(values)) => {
            let mut m = serde_json::Map::new();
            for ((n, t), v) in names.iter().zip(types).zip(&values) {
                m.insert(n.clone(), datum_to_json(v, t));
            }
            Value::Object(m)
        }
        Ok(None) | Err(_) => untyped_row(serialized),
    }
}

fn untyped_row(serialized: &[u8]) -> Value {
    match BinaryRow::from_serialized(serialized) {
        Ok(r) => json!({"arity": r.arity(), "hex": paimon_spec::binary::json::to_hex(r.bytes())}),
        Err(e) => json!({"error": e.to_string()}),
    }
}

fn file_json(
    f: &DataFileMeta,
    dv: Option<&paimon_spec::data_file::DeletionFile>,
    types: Option<&TableTypes>,
) -> Value {
    let key = |bytes: &[u8]| match types {
        Some(t) => {
            let schema = t.by_id(f.schema_id);
            let fields = schema.trimmed_primary_key_fields();
            let tys: Vec<DataType> = fields.iter().map(|f| f.data_type.clone()).collect();
            let names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
            typed_row(bytes, &tys, &names)
        }
        None => untyped_row(bytes),
    };
    json!({
        "fileName": f.file_name,
        "fileSize": f.file_size,
        "rowCount": f.row_count,
        "minKey": key(&f.min_key),
        "maxKey": key(&f.max_key),
        "keyStatsNullCounts": f.key_stats.null_counts,
        "valueStatsNullCounts": f.value_stats.null_counts,
        "minSequenceNumber": f.min_sequence_number,
        "maxSequenceNumber": f.max_sequence_number,
        "schemaId": f.schema_id,
        "level": f.level,
        "extraFiles": f.extra_files,
        "creationTime": f.creation_time.map(|m| paimon_spec::binary::json::format_timestamp(m, 0, 3, false)),
        "deleteRowCount": f.delete_row_count,
        "embeddedIndexBytes": f.embedded_index.as_ref().map(Vec::len),
        "fileSource": f.file_source.map(|s| if s == 0 { "APPEND" } else { "COMPACT" }),
        "valueStatsCols": f.value_stats_cols,
        "externalPath": f.external_path,
        "firstRowId": f.first_row_id,
        "writeCols": f.write_cols,
        "writeColsSequences": f.write_cols_sequences,
        "deletionFile": dv.map(|d| json!({"path": d.path, "offset": d.offset, "length": d.length, "cardinality": d.cardinality})),
    })
}

fn data_split_json(s: &DataSplit, types: Option<&TableTypes>) -> Value {
    let partition = match types {
        Some(t) => {
            let fields = t.latest().partition_fields();
            let tys: Vec<DataType> = fields.iter().map(|f| f.data_type.clone()).collect();
            let names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
            typed_row(&s.partition, &tys, &names)
        }
        None => untyped_row(&s.partition),
    };
    let files: Vec<Value> = s
        .data_files
        .iter()
        .enumerate()
        .map(|(i, f)| file_json(f, s.deletion_file(i), types))
        .collect();
    json!({
        "snapshotId": s.snapshot_id,
        "partition": partition,
        "bucket": s.bucket,
        "bucketPath": s.bucket_path,
        "totalBuckets": s.total_buckets,
        "isStreaming": s.is_streaming,
        "rawConvertible": s.raw_convertible,
        "beforeFiles": s.before_files.iter().map(|f| file_json(f, None, types)).collect::<Vec<_>>(),
        "dataFiles": files,
        "hasDeletionFiles": s.data_deletion_files.is_some(),
    })
}

fn split_json(split: &Split, types: Option<&TableTypes>) -> Value {
    match split {
        Split::Data(s) => data_split_json(s, types),
        Split::FallbackData { split, is_fallback } => {
            json!({"isFallback": is_fallback, "split": data_split_json(split, types)})
        }
        Split::Indexed(ix) => json!({
            "split": data_split_json(&ix.split, types),
            "rowRanges": ix.row_ranges,
            "scores": ix.scores,
        }),
        Split::QueryAuth { split, auth } => json!({
            "split": split_json(split, types),
            "auth": auth.as_ref().map(|a| json!({"filter": a.filter, "columnMasking": a.column_masking})),
        }),
        Split::Fallback { is_fallback, split } => {
            json!({"isFallback": is_fallback, "split": split_json(split, types)})
        }
        Split::Incremental(s) => json!({
            "snapshotId": s.snapshot_id,
            "partition": untyped_row(&s.partition),
            "bucket": s.bucket,
            "totalBuckets": s.total_buckets,
            "beforeFiles": s.before_files.iter().map(|f| file_json(f, None, types)).collect::<Vec<_>>(),
            "afterFiles": s.after_files.iter().map(|f| file_json(f, None, types)).collect::<Vec<_>>(),
            "isStreaming": s.is_streaming,
        }),
        Split::Chain(c) => json!({
            "logicalPartition": untyped_row(&c.logical_partition),
            "dataFiles": c.data_files.iter().map(|f| file_json(f, None, types)).collect::<Vec<_>>(),
            "fileBucketPathMapping": c.file_bucket_path_mapping,
            "fileBranchMapping": c.file_branch_mapping,
        }),
    }
}

fn inspect(file: &Path, as_json: bool, table: Option<&Path>) -> Result<()> {
    let decoded = read_split_file(file)?;
    let types = table.map(TableTypes::load).transpose()?;
    let body = split_json(&decoded.split, types.as_ref());
    let out = json!({
        "file": file.display().to_string(),
        "envelope": format!("{:?}", decoded.envelope),
        "kind": decoded.split.kind_name(),
        "version": decoded.version,
        "split": body,
    });
    if as_json {
        crate::outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&out, 0);
    }
    Ok(())
}

fn print_text(v: &Value, indent: usize) {
    let pad = "  ".repeat(indent);
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match v {
                    Value::Object(_) => {
                        crate::outln!("{pad}{k}:");
                        print_text(v, indent + 1);
                    }
                    Value::Array(a) if a.iter().any(|x| x.is_object()) => {
                        crate::outln!("{pad}{k}: ({} entries)", a.len());
                        for (i, x) in a.iter().enumerate() {
                            crate::outln!("{pad}  [{i}]");
                            print_text(x, indent + 2);
                        }
                    }
                    other => crate::outln!("{pad}{k}: {other}"),
                }
            }
        }
        other => crate::outln!("{pad}{other}"),
    }
}
