//! `paimon snapshots|schema|plan`: the control plane's commands (`files` is in
//! [`crate::files_cmd`]).

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Args;
use paimon_meta::Snapshot;
use paimon_spec::binary::json::{datum_to_json, format_timestamp};
use paimon_spec::schema::TableSchemaRef;
use paimon_split::incremental::encode_incremental_java;
use paimon_split::{encode_decoded, Split, SplitEnvelope};
use serde_json::{json, Value};

use crate::scan_args::{table_location, ScanArgs};

/// `paimon snapshots TABLE`.
#[derive(Debug, Args)]
pub struct SnapshotsArgs {
    /// Table directory.
    pub table: String,
    /// Print JSON lines.
    #[arg(long)]
    pub json: bool,
}

/// `paimon schema TABLE`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Table directory.
    pub table: String,
    /// Schema id (default: latest).
    #[arg(long = "schema-id")]
    pub schema_id: Option<i64>,
    /// Print the schema JSON.
    #[arg(long)]
    pub json: bool,
}

/// `paimon plan TABLE`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Table directory.
    pub table: String,
    #[command(flatten)]
    pub scan: ScanArgs,
    /// DataSplit version of the written split files (default 9; 8 for Java 1.3-2.0).
    #[arg(long = "split-version", default_value_t = paimon_split::CURRENT_VERSION)]
    pub split_version: i32,
    /// Write one split file per split here (`split-0000.bin`, ...), raw DataSplit bytes
    /// (`FallbackDataSplit` bytes, with the `isFallback` flag, for a table read with its
    /// `scan.fallback-branch`; a Java `IncrementalSplit` object stream for each bucket of an
    /// incremental diff, as Java 1.4+ ships them).
    #[arg(long = "out-dir")]
    pub out_dir: Option<PathBuf>,
    /// Print the plan as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The JSON object `paimon snapshots --json` prints for one snapshot.
pub fn snapshot_json(s: &Snapshot) -> Value {
    json!({
        "id": s.id,
        "schemaId": s.schema_id,
        "commitKind": s.commit_kind,
        "timeMillis": s.time_millis,
        "time": format_timestamp(s.time_millis, 0, 3, true),
        "totalRecordCount": s.total_record_count,
        "deltaRecordCount": s.delta_record_count,
        "watermark": s.watermark,
        "commitUser": s.commit_user,
    })
}

pub fn snapshots(a: SnapshotsArgs) -> Result<()> {
    let opened = ScanArgs::default().open(&a.table)?;
    for s in opened.table.snapshots().map_err(|e| anyhow!("{e}"))? {
        let v = snapshot_json(&s);
        if a.json {
            crate::outln!("{v}");
        } else {
            crate::outln!(
                "{:>6}  {:<8} schema {:<3} {}  records {}",
                s.id,
                s.commit_kind,
                s.schema_id,
                format_timestamp(s.time_millis, 0, 3, true),
                s.total_record_count.map_or("?".into(), |c| c.to_string())
            );
        }
    }
    Ok(())
}

/// The schema `paimon schema` prints: `--schema-id`'s, else the latest.
///
/// # Errors
/// When the table or the schema cannot be read.
pub fn selected_schema(a: &SchemaArgs) -> Result<TableSchemaRef> {
    let opened = ScanArgs::default().open(&table_location(&a.table))?;
    Ok(match a.schema_id {
        Some(id) => opened
            .table
            .schema_manager()
            .schema(id)
            .map_err(|e| anyhow!("{e}"))?,
        None => opened.schema.clone(),
    })
}

pub fn schema(a: SchemaArgs) -> Result<()> {
    let path = table_location(&a.table);
    let schema = selected_schema(&a)?;
    if a.json {
        crate::outln!("{}", serde_json::to_string_pretty(&schema.to_json())?);
        return Ok(());
    }
    crate::outln!("schema {} of {path}", schema.id);
    for f in &schema.fields {
        let mut tags = Vec::new();
        if schema.primary_keys.contains(&f.name) {
            tags.push("primary key");
        }
        if schema.partition_keys.contains(&f.name) {
            tags.push("partition");
        }
        crate::outln!(
            "  {:>3} {:<24} {}{}",
            f.id,
            f.name,
            f.data_type,
            if tags.is_empty() {
                String::new()
            } else {
                format!("  ({})", tags.join(", "))
            }
        );
    }
    for (k, v) in &schema.options {
        crate::outln!("  option {k} = {v}");
    }
    Ok(())
}

pub fn plan(a: PlanArgs) -> Result<()> {
    let opened = a.scan.open(&a.table)?;
    let plan = opened.scan.plan().map_err(|e| anyhow!("{e}"))?;
    if let Some(dir) = &a.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| anyhow!("{}: {e}", dir.display()))?;
        let envelope = match plan.fallback {
            Some(_) => SplitEnvelope::RawFallback,
            None => SplitEnvelope::Raw,
        };
        for (i, s) in plan.wire_splits().iter().enumerate() {
            // Java 1.4+ ships an incremental diff as an `IncrementalSplit` object stream; it
            // rejects a DataSplit with before files.
            let bytes = match s {
                Split::Data(d) if d.is_incremental_diff() => {
                    encode_incremental_java(d, a.split_version)
                }
                _ => encode_decoded(s, envelope, a.split_version),
            }
            .map_err(|e| anyhow!("split {i}: {e}"))?;
            let p = dir.join(format!("split-{i:04}.bin"));
            std::fs::write(&p, bytes).map_err(|e| anyhow!("{}: {e}", p.display()))?;
        }
    }
    let part_fields = opened.schema.partition_fields();
    let part_types: Vec<_> = part_fields.iter().map(|f| f.data_type.clone()).collect();
    let partition = |s: &paimon_split::DataSplit| {
        s.partition_row()
            .and_then(|r| r.to_datums(&part_types))
            .map(|values| {
                Value::Object(
                    part_fields
                        .iter()
                        .zip(&values)
                        .map(|(f, d)| (f.name.clone(), datum_to_json(d, &f.data_type)))
                        .collect(),
                )
            })
            .unwrap_or(Value::Null)
    };
    if a.json {
        let splits: Vec<Value> = plan
            .splits
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut v = split_json(s, partition(s));
                // Row ranges of an indexed split (global indexes narrowed the plan).
                if let Some(r) = plan.row_ranges.as_ref().and_then(|r| r.get(i)) {
                    v["rowRanges"] = r
                        .iter()
                        .map(|(a, z)| json!([a, z]))
                        .collect::<Vec<_>>()
                        .into();
                }
                v
            })
            .collect();
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"snapshotId": plan.snapshot_id, "splits": splits})
            )?
        );
        return Ok(());
    }
    // The text summary: one line per split, written at once (a plan of 100,000 files has
    // thousands of splits; no per-file JSON is built for it).
    let mut text = format!(
        "snapshot {:?}: {} splits",
        plan.snapshot_id,
        plan.splits.len()
    );
    for (i, s) in plan.splits.iter().enumerate() {
        use std::fmt::Write;
        let _ = write!(
            text,
            "\n  split {i}: partition {} bucket {} rows {} raw {} files {}",
            partition(s),
            s.bucket,
            s.row_count(),
            s.raw_convertible,
            s.data_files.len()
        );
        // An incremental diff's files only in the start snapshot.
        if !s.before_files.is_empty() {
            let _ = write!(text, " before files {}", s.before_files.len());
        }
        // A changes scan's splits come from several snapshots.
        if Some(s.snapshot_id) != plan.snapshot_id {
            let _ = write!(text, " (snapshot {})", s.snapshot_id);
        }
    }
    crate::outln!("{text}");
    Ok(())
}

/// One split of `paimon plan --json`: its snapshot, partition, bucket, row count and files.
fn split_json(s: &paimon_split::DataSplit, partition: Value) -> Value {
    let file = |f: &paimon_spec::data_file::DataFileMeta,
                dv: Option<&paimon_spec::data_file::DeletionFile>| {
        json!({
            "name": f.file_name,
            "level": f.level,
            "rowCount": f.row_count,
            "deletionFile": dv.map(|d| json!({"path": d.path, "offset": d.offset, "length": d.length, "cardinality": d.cardinality})),
        })
    };
    let mut v = json!({
        "snapshotId": s.snapshot_id,
        "partition": partition,
        "bucket": s.bucket,
        "rawConvertible": s.raw_convertible,
        "rowCount": s.row_count(),
        "files": s.data_files.iter().enumerate().map(|(i, f)| file(f, s.deletion_file(i))).collect::<Vec<_>>(),
    });
    // An incremental diff's files only in the start snapshot.
    if !s.before_files.is_empty() {
        v["beforeFiles"] = s
            .before_files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let dv = s
                    .before_deletion_files
                    .as_ref()
                    .and_then(|d| d.get(i).cloned().flatten());
                file(f, dv.as_ref())
            })
            .collect::<Vec<_>>()
            .into();
    }
    v
}
