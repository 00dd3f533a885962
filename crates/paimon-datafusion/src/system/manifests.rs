//! The system tables over the latest snapshot's manifests: `manifests` (Java
//! `ManifestsTable`), `partitions` (`PartitionsTable`) and `buckets` (`BucketsTable`).
//!
//! The sums per partition and bucket are paimon-meta's ([`paimon_meta::partition_stats`]).

use std::collections::HashSet;

use paimon_meta::manifest::ManifestFileMeta;
use paimon_meta::partition_stats::PartitionEntry;
use paimon_meta::scan::PartitionDecoder;
use paimon_meta::{Error, Result, Table};
use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::types::DataType;

use super::columns::{local_millis, Columns};
use super::java_text::{cast_to_string, row_string};

/// Every manifest of the latest snapshot (base, delta, then changelog).
pub fn manifests(table: &Table) -> Result<Columns> {
    let metas = table.latest_manifests(true)?;
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
    let mut totals = table.partition_entries()?;
    // Java `FallbackReadFileStoreTable`: partitions this branch lacks are listed from
    // `scan.fallback-branch`.
    if let Some(fallback) = table
        .options()
        .scan_fallback_branch
        .as_deref()
        .filter(|b| *b != table.branch())
    {
        let other = table.with_branch(fallback)?.partition_entries()?;
        let own: HashSet<Vec<u8>> = totals.iter().map(|t| t.partition.clone()).collect();
        totals.extend(other.into_iter().filter(|t| !own.contains(&t.partition)));
    }
    let fields = table.schema().partition_fields();
    let default_name = &table.options().partition_default_name;
    let mut rows: Vec<(String, PartitionEntry)> = totals
        .into_iter()
        .map(|totals| {
            let name = fields
                .iter()
                .zip(&totals.values)
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
            rows.iter().map(|(_, t)| Some(t.record_count)),
        )
        .bigint(
            "file_size_in_bytes",
            false,
            rows.iter().map(|(_, t)| Some(t.file_size_in_bytes)),
        )
        .bigint(
            "file_count",
            false,
            rows.iter().map(|(_, t)| Some(t.file_count)),
        )
        .timestamp(
            "last_update_time",
            true,
            rows.iter().map(|(_, t)| last_update(t)),
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
    let mut rows: Vec<(String, i32, PartitionEntry)> = table
        .bucket_entries()?
        .into_iter()
        .map(|g| (row_string(&g.values, &types), g.bucket, g))
        .collect();
    rows.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()).then(a.1.cmp(&b.1)));
    Ok(Columns::new()
        .string("partition", true, rows.iter().map(|r| Some(&r.0)))
        .int("bucket", false, rows.iter().map(|r| Some(r.1)))
        .bigint(
            "record_count",
            false,
            rows.iter().map(|r| Some(r.2.record_count)),
        )
        .bigint(
            "file_size_in_bytes",
            false,
            rows.iter().map(|r| Some(r.2.file_size_in_bytes)),
        )
        .bigint(
            "file_count",
            false,
            rows.iter().map(|r| Some(r.2.file_count)),
        )
        .timestamp(
            "last_update_time",
            true,
            rows.iter().map(|r| last_update(&r.2)),
        ))
}

fn partition_types(table: &Table) -> Vec<DataType> {
    PartitionDecoder::new(table.schema().partition_fields())
        .fields()
        .iter()
        .map(|f| f.data_type.with_nullable(true))
        .collect()
}

/// The last update time of sums: the newest creation time as wall-clock millis.
fn last_update(e: &PartitionEntry) -> Option<i64> {
    e.last_file_creation_time.map(local_millis)
}
