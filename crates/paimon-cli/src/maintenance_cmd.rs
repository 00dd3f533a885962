//! `paimon expire-snapshots|expire-partitions|remove-orphan-files`: argument parsing and
//! output around paimon-rs's maintenance builders ([`paimon_rs::maintenance`]).

use std::time::Duration;

use anyhow::Result;
use clap::Args;
use paimon_spec::options::parse_duration_millis;

use crate::scan_args::ScanArgs;

/// `paimon expire-snapshots TABLE`.
#[derive(Debug, Args)]
pub struct ExpireArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// Keep at most this many snapshots (default: the table's `snapshot.num-retained.max`).
    #[arg(long = "retain-max")]
    pub retain_max: Option<i64>,
    /// Keep at least this many snapshots (default: the table's `snapshot.num-retained.min`).
    #[arg(long = "retain-min")]
    pub retain_min: Option<i64>,
    /// Keep snapshots younger than this, e.g. `1 h`, `30 min`, `0 s` (default: the table's
    /// `snapshot.time-retained`).
    #[arg(long = "older-than", value_parser = duration)]
    pub older_than: Option<i64>,
    /// Expire at most this many snapshots (default: the table's `snapshot.expire.limit`).
    #[arg(long = "max-deletes")]
    pub max_deletes: Option<i64>,
    /// List what would be deleted without deleting anything.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

/// `paimon expire-partitions TABLE`.
#[derive(Debug, Args)]
pub struct ExpirePartitionsArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// Partitions older than this expire, e.g. `7 d` (default: the table's
    /// `partition.expiration-time`, which must then be set).
    #[arg(long = "expiration-time", value_parser = duration)]
    pub expiration_time: Option<i64>,
    /// `values-time` or `update-time` (default: the table's `partition.expiration-strategy`).
    #[arg(long = "strategy")]
    pub strategy: Option<String>,
    /// Java `DateTimeFormatter` pattern of the partition time, e.g. `yyyyMMdd` (default: the
    /// table's `partition.timestamp-formatter`).
    #[arg(long = "timestamp-formatter")]
    pub formatter: Option<String>,
    /// How partition values make the time text, e.g. `$dt $hour:00:00` (default: the table's
    /// `partition.timestamp-pattern`).
    #[arg(long = "timestamp-pattern")]
    pub pattern: Option<String>,
    /// Expire at most this many partitions (default: `partition.expiration-max-num`, 100).
    #[arg(long = "max-expires")]
    pub max_expires: Option<usize>,
    /// List what would expire without dropping anything.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

/// `paimon remove-orphan-files TABLE`.
#[derive(Debug, Args)]
pub struct OrphanArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// Only files last modified longer ago than this are removed (default `1 d`).
    #[arg(long = "older-than", value_parser = duration, default_value = "1 d")]
    pub older_than: i64,
    /// List the orphan files without deleting them.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

pub(crate) fn duration(text: &str) -> std::result::Result<i64, String> {
    parse_duration_millis(text)
        .and_then(|ms| i64::try_from(ms).ok())
        .ok_or_else(|| format!("'{text}' is not a duration such as '1 h', '30 min' or '500 ms'"))
}

/// `ms` (parsed by [`duration`], never negative) as a [`Duration`].
fn millis(ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}

/// The table `table` names, in the facade.
pub(crate) fn open_table(table: &str) -> Result<paimon_rs::Table> {
    Ok(paimon_rs::Table::from_meta(
        ScanArgs::default().open(table)?.table,
    ))
}

pub fn expire_snapshots(a: ExpireArgs) -> Result<()> {
    let mut expire = open_table(&a.table)?
        .expire_snapshots()
        .with_dry_run(a.dry_run);
    if let Some(n) = a.retain_max {
        expire = expire.with_retain_max(n);
    }
    if let Some(n) = a.retain_min {
        expire = expire.with_retain_min(n);
    }
    if let Some(ms) = a.older_than {
        expire = expire.with_older_than(millis(ms));
    }
    if let Some(n) = a.max_deletes {
        expire = expire.with_max_deletes(n);
    }
    let r = expire.run()?;
    if a.dry_run {
        for f in r
            .data_files
            .iter()
            .chain(&r.metadata_files)
            .chain(&r.snapshot_files)
        {
            crate::outln!("{f}");
        }
    }
    let range = match (r.expired.first(), r.expired.last()) {
        (Some(f), Some(l)) => format!("snapshots {f}..={l}"),
        _ => "no snapshot".to_string(),
    };
    crate::outln!(
        "{} {range} ({} data, {} metadata, {} snapshot files); earliest {}",
        if a.dry_run { "would expire" } else { "expired" },
        r.data_files.len(),
        r.metadata_files.len(),
        r.snapshot_files.len(),
        r.earliest.map_or("none".to_string(), |e| e.to_string())
    );
    Ok(())
}

pub fn expire_partitions(a: ExpirePartitionsArgs) -> Result<()> {
    let table = open_table(&a.table)?;
    let mut expire = table.expire_partitions().with_dry_run(a.dry_run);
    if let Some(ms) = a.expiration_time {
        expire = expire.with_expiration_time(millis(ms));
    }
    if let Some(s) = &a.strategy {
        expire = expire.with_strategy(paimon_rs::maintenance::partition_expire_strategy(s)?);
    }
    if let Some(f) = &a.formatter {
        expire = expire.with_timestamp_formatter(f.clone());
    }
    if let Some(p) = &a.pattern {
        expire = expire.with_timestamp_pattern(p.clone());
    }
    if let Some(n) = a.max_expires {
        expire = expire.with_max_expires(n);
    }
    let r = expire.run()?;
    for p in &r.partitions {
        let spec: Vec<String> = table
            .schema()
            .partition_keys
            .iter()
            .filter_map(|k| p.get(k).map(|v| format!("{k}={v}")))
            .collect();
        crate::outln!("{}", spec.join(","));
    }
    crate::outln!(
        "{} {} partitions{}",
        if a.dry_run { "would expire" } else { "expired" },
        r.partitions.len(),
        match r.snapshots.as_slice() {
            [] => String::new(),
            ids => format!(
                " in snapshot{} {}",
                if ids.len() > 1 { "s" } else { "" },
                ids.iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    );
    Ok(())
}

pub fn remove_orphan_files(a: OrphanArgs) -> Result<()> {
    let r = open_table(&a.table)?
        .remove_orphan_files()
        .with_older_than(millis(a.older_than))
        .with_dry_run(a.dry_run)
        .run()?;
    for f in &r.files {
        crate::outln!("{f}");
    }
    crate::outln!(
        "{} {} orphan files ({} bytes)",
        if a.dry_run { "would delete" } else { "deleted" },
        r.files.len(),
        r.bytes
    );
    Ok(())
}
