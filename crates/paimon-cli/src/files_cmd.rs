//! `paimon files TABLE`: the data files a scan reads, one line (or JSON object) each.
//!
//! A snapshot scan lists the live files of that snapshot. A scan of what changed
//! (`--incremental A,B`, `--changes-since N`) lists the files of its plan instead: the delta
//! or changelog files of each snapshot, with the snapshot they come from, and for an
//! incremental diff (tags, or `--incremental-mode diff`) the files of both sides, marked
//! `"side": "before"` (only in the start snapshot's bucket) or `"after"`.

use anyhow::{anyhow, Result};
use clap::Args;
use paimon_spec::binary::json::datum_to_json;
use paimon_spec::binary::Datum;
use paimon_spec::data_file::{DataFileMeta, DeletionFile};
use paimon_spec::schema::TableSchema;
use paimon_split::DataSplit;
use serde_json::{json, Map, Value};

use crate::scan_args::{OpenedScan, ScanArgs};

/// `paimon files TABLE`.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// Table directory.
    pub table: String,
    #[command(flatten)]
    pub scan: ScanArgs,
    /// Print JSON lines.
    #[arg(long)]
    pub json: bool,
}

/// Runs `paimon files`.
///
/// # Errors
/// When the table cannot be opened or planned.
pub fn files(a: FilesArgs) -> Result<()> {
    let opened = a.scan.open(&a.table)?;
    let changes = a.scan.incremental.is_some() || a.scan.changes_since.is_some();
    for v in file_list(&opened, changes)? {
        if a.json {
            crate::outln!("{v}");
        } else {
            let side = match v["side"].as_str() {
                Some(s) => format!("  ({s})"),
                None => String::new(),
            };
            let snapshot = match v["snapshotId"].as_i64() {
                Some(id) => format!("snapshot {id}  "),
                None => String::new(),
            };
            crate::outln!(
                "{snapshot}{}  bucket {}  level {}  rows {}  {}{side}",
                v["partition"],
                v["bucket"],
                v["level"],
                v["rowCount"],
                v["path"].as_str().unwrap_or_default()
            );
        }
    }
    Ok(())
}

/// The files of `opened` as JSON objects: the live files of its snapshot, or with `changes`
/// the files of its plan (see the module doc).
///
/// # Errors
/// When planning fails or a split's partition row cannot be decoded.
pub fn file_list(opened: &OpenedScan, changes: bool) -> Result<Vec<Value>> {
    let part_fields = opened.schema.partition_fields();
    if !changes {
        let files = opened.scan.live_files().map_err(|e| anyhow!("{e}"))?;
        return Ok(files
            .iter()
            .map(|f| {
                file_json(
                    partition_json(&opened.schema, &f.partition),
                    f.bucket,
                    &f.bucket_path,
                    &f.file,
                    f.deletion_file.as_ref(),
                )
            })
            .collect());
    }
    let plan = opened.scan.plan().map_err(|e| anyhow!("{e}"))?;
    let types: Vec<_> = part_fields.iter().map(|f| f.data_type.clone()).collect();
    let mut out = Vec::new();
    for s in &plan.splits {
        let values = s
            .partition_row()
            .and_then(|r| r.to_datums(&types))
            .map_err(|e| anyhow!("partition of split at {}: {e}", s.bucket_path))?;
        let partition = partition_json(&opened.schema, &values);
        let diff = !s.before_files.is_empty();
        let side = |v: &mut Value, name: &str| {
            v["snapshotId"] = json!(s.snapshot_id);
            if diff {
                v["side"] = json!(name);
            }
        };
        for (i, f) in s.before_files.iter().enumerate() {
            let dv = before_deletion_file(s, i);
            let mut v = file_json(partition.clone(), s.bucket, &s.bucket_path, f, dv);
            side(&mut v, "before");
            out.push(v);
        }
        for (i, f) in s.data_files.iter().enumerate() {
            let dv = s.deletion_file(i);
            let mut v = file_json(partition.clone(), s.bucket, &s.bucket_path, f, dv);
            side(&mut v, "after");
            out.push(v);
        }
    }
    Ok(out)
}

fn before_deletion_file(split: &DataSplit, i: usize) -> Option<&DeletionFile> {
    split
        .before_deletion_files
        .as_ref()
        .and_then(|d| d.get(i))
        .and_then(Option::as_ref)
}

fn partition_json(schema: &TableSchema, values: &[Datum]) -> Value {
    let fields = schema.partition_fields();
    Value::Object(
        fields
            .iter()
            .zip(values)
            .map(|(field, d)| (field.name.clone(), datum_to_json(d, &field.data_type)))
            .collect::<Map<String, Value>>(),
    )
}

fn file_json(
    partition: Value,
    bucket: i32,
    bucket_path: &str,
    f: &DataFileMeta,
    deletion_file: Option<&DeletionFile>,
) -> Value {
    json!({
        "partition": partition,
        "bucket": bucket,
        "fileName": f.file_name,
        "level": f.level,
        "rowCount": f.row_count,
        "fileSize": f.file_size,
        "schemaId": f.schema_id,
        "minSequenceNumber": f.min_sequence_number,
        "maxSequenceNumber": f.max_sequence_number,
        "deleteRowCount": f.delete_row_count,
        "firstRowId": f.first_row_id,
        "path": f.external_path.clone().unwrap_or_else(|| format!("{bucket_path}/{}", f.file_name)),
        "deletionFile": deletion_file.map(|d| json!({"path": d.path, "offset": d.offset, "length": d.length, "cardinality": d.cardinality})),
    })
}

#[cfg(test)]
mod tests {
    //! The listings of change scans against Java's own plans of the same fixture tables:
    //! `fixtures/plans/changes/*.jsonl` (Java `newStreamScan`) and `fixtures/splits/*`
    //! (Java's `IncrementalSplit`s), both recorded by `scripts/gen-plans.sh`.

    use std::path::{Path, PathBuf};

    use paimon_split::{decode_any, Split};

    use super::*;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
    }

    fn listing(table: &str, scan: ScanArgs) -> Vec<Value> {
        let path = fixtures().join("warehouse").join(table);
        let opened = scan.open(path.to_str().unwrap()).unwrap();
        file_list(&opened, true).unwrap()
    }

    /// `(snapshot, bucket, side, file name, deletion file name)` of each listed file, sorted.
    fn keys(list: &[Value]) -> Vec<(i64, i64, String, String, Option<String>)> {
        let mut out: Vec<_> = list
            .iter()
            .map(|v| {
                (
                    v["snapshotId"].as_i64().unwrap(),
                    v["bucket"].as_i64().unwrap(),
                    v["side"].as_str().unwrap_or("").to_string(),
                    v["fileName"].as_str().unwrap().to_string(),
                    v["deletionFile"]["path"]
                        .as_str()
                        .map(|p| paimon_io::file_name(p).to_string()),
                )
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn changes_since_lists_the_files_of_javas_streaming_plans() {
        for (table, since) in [("many_snapshots", 10), ("partitioned", 0)] {
            let scan = ScanArgs {
                changes_since: Some(since),
                ..ScanArgs::default()
            };
            let ours = keys(&listing(&format!("pk.db/{table}"), scan));
            let java_plan = fixtures().join(format!("plans/changes/{table}-since-{since}.jsonl"));
            let mut java = Vec::new();
            for line in std::fs::read_to_string(java_plan).unwrap().lines() {
                let split: Value = serde_json::from_str(line).unwrap();
                for f in split["files"].as_array().unwrap() {
                    java.push((
                        split["snapshot"].as_i64().unwrap(),
                        split["bucket"].as_i64().unwrap(),
                        String::new(),
                        f["name"].as_str().unwrap().to_string(),
                        None,
                    ));
                }
            }
            java.sort();
            assert!(!java.is_empty(), "{table}: Java planned no files");
            assert_eq!(ours, java, "{table} since {since}");
        }
    }

    #[test]
    fn incremental_diff_lists_both_sides_of_javas_splits() {
        let scan = ScanArgs {
            incremental: Some("2,8".into()),
            incremental_mode: Some("diff".into()),
            ..ScanArgs::default()
        };
        let ours = keys(&listing("pk.db/dv32", scan));
        let mut java = Vec::new();
        let dir = fixtures().join("splits/pk_dv32_diff_2_8");
        for entry in std::fs::read_dir(dir).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            let Split::Incremental(s) = decode_any(&bytes).unwrap().split else {
                panic!("Java wrote an IncrementalSplit");
            };
            let sides = [
                ("before", &s.before_files, &s.before_deletion_files),
                ("after", &s.after_files, &s.after_deletion_files),
            ];
            for (side, files, dvs) in sides {
                for (i, f) in files.iter().enumerate() {
                    let dv = dvs
                        .as_ref()
                        .and_then(|d| d.get(i).cloned().flatten())
                        .map(|d| paimon_io::file_name(&d.path).to_string());
                    java.push((
                        s.snapshot_id,
                        i64::from(s.bucket),
                        side.to_string(),
                        f.file_name.clone(),
                        dv,
                    ));
                }
            }
        }
        java.sort();
        assert!(java.iter().any(|k| k.2 == "before") && java.iter().any(|k| k.4.is_some()));
        assert_eq!(ours, java);
    }
}
