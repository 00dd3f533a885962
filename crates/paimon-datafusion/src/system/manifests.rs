//! The system tables over the latest snapshot's manifests: `manifests` (Java
//! `ManifestsTable`), `partitions` (`PartitionsTable`) and `buckets` (`BucketsTable`).
//!
//! Java sums partitions and buckets over the manifest entries without reconciling them: ADD
//! entries count, DELETE entries subtract, and the last update time is the newest creation
//! time of any entry, deleted files included. The same is done here.

use std::collections::{HashMap, HashSet};

use paimon_meta::manifest::{FileKind, ManifestEntry, ManifestFileMeta};
use paimon_meta::scan::PartitionDecoder;
use paimon_meta::{Error, Result, Table};
use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::types::DataType;

use super::columns::{epoch_millis_of_local, local_millis, Columns};
use super::java_text::{cast_to_string, row_string};

/// Every manifest of the latest snapshot (base, delta, then changelog).
pub fn manifests(table: &Table) -> Result<Columns> {
    let metas = snapshot_manifests(table, true)?;
    let types = partition_types(table);
    let stats = |bytes: &[u8], m: &ManifestFileMeta| -> Result<String> {
        let row = BinaryRow::from_serialized(bytes)
            .and_then(|r| r.to_datums(&types))
            .map_err(|e| Error::spec(table.layout().manifest_path(&m.file_name), e))?;
        Ok(row_string(&row, &types))
    };
    let mins = metas
        .iter()
        .map(|m| stats(&m.partition_stats.min_values, m))
        .collect::<Result<Vec<_>>>()?;
    let maxs = metas
        .iter()
        .map(|m| stats(&m.partition_stats.max_values, m))
        .collect::<Result<Vec<_>>>()?;
    Ok(Columns::new()
        .string("file_name", false, metas.iter().map(|m| Some(&m.file_name)))
        .bigint("file_size", false, metas.iter().map(|m| Some(m.file_size)))
        .bigint(
            "num_added_files",
            false,
            metas.iter().map(|m| Some(m.num_added_files)),
        )
        .bigint(
            "num_deleted_files",
            false,
            metas.iter().map(|m| Some(m.num_deleted_files)),
        )
        .bigint("schema_id", false, metas.iter().map(|m| Some(m.schema_id)))
        .string("min_partition_stats", true, mins.iter().map(Some))
        .string("max_partition_stats", true, maxs.iter().map(Some))
        .bigint("min_row_id", true, metas.iter().map(|m| m.min_row_id))
        .bigint("max_row_id", true, metas.iter().map(|m| m.max_row_id)))
}

/// Record count, size and file count of each partition with files, by partition name.
pub fn partitions(table: &Table) -> Result<Columns> {
    let mut totals = partition_totals(table)?;
    // Java `FallbackReadFileStoreTable`: partitions this branch lacks are listed from
    // `scan.fallback-branch`.
    if let Some(fallback) = table
        .options()
        .scan_fallback_branch
        .as_deref()
        .filter(|b| *b != table.branch())
    {
        let other = partition_totals(&table.with_branch(fallback)?)?;
        let own: HashSet<Vec<u8>> = totals.iter().map(|t| t.partition.clone()).collect();
        totals.extend(other.into_iter().filter(|t| !own.contains(&t.partition)));
    }
    let fields = table.schema().partition_fields();
    let default_name = &table.options().partition_default_name;
    let mut rows: Vec<(String, Totals)> = totals
        .into_iter()
        .map(|Group { values, totals, .. }| {
            let name = fields
                .iter()
                .zip(&values)
                .map(|(f, d)| {
                    let text = match d {
                        Datum::Null => None,
                        // Java names a blank value by the default name, which reads back as null.
                        Datum::String(s) if s.trim().is_empty() => None,
                        d => Some(cast_to_string(d, &f.data_type)),
                    };
                    format!("{}={}", f.name, text.as_deref().unwrap_or(default_name))
                })
                .collect::<Vec<_>>()
                .join("/");
            (name, totals)
        })
        .collect();
    rows.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let none = || rows.iter().map(|_| None::<String>);
    Ok(Columns::new()
        .string("partition", true, rows.iter().map(|(n, _)| Some(n)))
        .bigint(
            "record_count",
            false,
            rows.iter().map(|(_, t)| Some(t.records)),
        )
        .bigint(
            "file_size_in_bytes",
            false,
            rows.iter().map(|(_, t)| Some(t.bytes)),
        )
        .bigint("file_count", false, rows.iter().map(|(_, t)| Some(t.files)))
        .timestamp(
            "last_update_time",
            true,
            rows.iter().map(|(_, t)| t.last_update()),
        )
        // A filesystem catalog keeps no partition metadata.
        .timestamp("created_at", true, rows.iter().map(|_| None))
        .string("created_by", true, none())
        .string("updated_by", true, none())
        .string("options", true, none()))
}

/// Record count, size and file count of each bucket with files, by partition and bucket.
pub fn buckets(table: &Table) -> Result<Columns> {
    let types = partition_types(table);
    let mut rows: Vec<(String, i32, Totals)> = totals(table, |_| true, true)?
        .into_iter()
        .map(|g| (row_string(&g.values, &types), g.bucket, g.totals))
        .collect();
    rows.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()).then(a.1.cmp(&b.1)));
    Ok(Columns::new()
        .string("partition", true, rows.iter().map(|r| Some(&r.0)))
        .int("bucket", false, rows.iter().map(|r| Some(r.1)))
        .bigint(
            "record_count",
            false,
            rows.iter().map(|r| Some(r.2.records)),
        )
        .bigint(
            "file_size_in_bytes",
            false,
            rows.iter().map(|r| Some(r.2.bytes)),
        )
        .bigint("file_count", false, rows.iter().map(|r| Some(r.2.files)))
        .timestamp(
            "last_update_time",
            true,
            rows.iter().map(|r| r.2.last_update()),
        ))
}

fn partition_types(table: &Table) -> Vec<DataType> {
    PartitionDecoder::new(table.schema().partition_fields())
        .fields()
        .iter()
        .map(|f| f.data_type.with_nullable(true))
        .collect()
}

/// Java `PartitionEntry` / `BucketEntry` sums.
#[derive(Debug, Default, Clone, Copy)]
struct Totals {
    records: i64,
    bytes: i64,
    files: i64,
    /// Newest creation time, epoch millis.
    created: Option<i64>,
}

impl Totals {
    fn add(&mut self, e: &ManifestEntry) {
        let sign = match e.kind {
            FileKind::Add => 1,
            FileKind::Delete => -1,
        };
        self.records += sign * e.file.row_count;
        self.bytes += sign * e.file.file_size;
        self.files += sign;
        if let Some(t) = e.file.creation_time {
            let t = epoch_millis_of_local(t);
            self.created = Some(self.created.map_or(t, |c| c.max(t)));
        }
    }

    fn last_update(&self) -> Option<i64> {
        self.created.map(local_millis)
    }
}

/// The sums of one partition, or of one bucket of it.
struct Group {
    /// The serialized partition row.
    partition: Vec<u8>,
    values: Vec<Datum>,
    bucket: i32,
    totals: Totals,
}

/// The partitions of `table`'s latest snapshot as Java's batch scan lists them (a
/// postpone-bucket table's real buckets only).
fn partition_totals(table: &Table) -> Result<Vec<Group>> {
    let real_buckets_only = table.options().bucket == paimon_spec::layout::POSTPONE_BUCKET;
    totals(table, |e| !real_buckets_only || e.bucket >= 0, false)
}

/// The sums per partition (and per bucket when `by_bucket`) over the entries `keep` accepts,
/// in the order each key first appears; keys left without files are dropped.
fn totals(
    table: &Table,
    keep: impl Fn(&ManifestEntry) -> bool,
    by_bucket: bool,
) -> Result<Vec<Group>> {
    let decoder = PartitionDecoder::new(table.schema().partition_fields());
    let mut index: HashMap<(Vec<u8>, i32), usize> = HashMap::new();
    let mut out: Vec<(Vec<u8>, i32, Totals)> = Vec::new();
    for m in snapshot_manifests(table, false)? {
        let path = table.layout().manifest_path(&m.file_name);
        let bytes = table.file_io().read(&path).map_err(Error::io)?;
        for e in ManifestEntry::decode_manifest(&path, bytes)? {
            if !keep(&e) {
                continue;
            }
            let bucket = if by_bucket { e.bucket } else { 0 };
            let i = *index
                .entry((e.partition.clone(), bucket))
                .or_insert_with(|| {
                    out.push((e.partition.clone(), bucket, Totals::default()));
                    out.len() - 1
                });
            out[i].2.add(&e);
        }
    }
    out.into_iter()
        .filter(|(_, _, t)| t.files > 0)
        .map(|(partition, bucket, totals)| {
            let values = decoder
                .decode(&partition)
                .map_err(|e| Error::spec(table.layout().manifest_dir(), e))?;
            Ok(Group {
                partition,
                values,
                bucket,
                totals,
            })
        })
        .collect()
}

/// The manifests of the latest snapshot: its base list, then its delta list (Java
/// `ManifestList.readDataManifests`), then with `changelog` its changelog list
/// (`readAllManifests`); none without a snapshot.
fn snapshot_manifests(table: &Table, changelog: bool) -> Result<Vec<ManifestFileMeta>> {
    let Some(snapshot) = table.snapshot_manager().latest()? else {
        return Ok(Vec::new());
    };
    let mut lists = vec![&snapshot.base_manifest_list, &snapshot.delta_manifest_list];
    if let Some(c) = snapshot
        .changelog_manifest_list
        .as_ref()
        .filter(|_| changelog)
    {
        lists.push(c);
    }
    let mut out = Vec::new();
    for list in lists {
        let path = table.layout().manifest_path(list);
        let bytes = table.file_io().read(&path).map_err(Error::io)?;
        out.extend(ManifestFileMeta::decode_list(&path, bytes)?);
    }
    Ok(out)
}
