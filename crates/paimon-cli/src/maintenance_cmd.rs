//! `paimon expire-snapshots|expire-partitions|remove-orphan-files`: table maintenance (paimon-meta's
//! [`paimon_meta::maintenance`]).

use anyhow::{anyhow, Result};
use clap::Args;
use paimon_meta::maintenance::{
    ExpireConfig, PartitionExpireConfig, PartitionExpireStrategy, RemoveOrphanFiles,
};
use paimon_spec::options::parse_duration_millis;

use crate::scan_args::ScanArgs;

/// `paimon expire-snapshots TABLE`.
#[derive(Debug, Args)]
pub struct ExpireArgs {
    /// Table directory.
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
    /// Table directory.
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
    /// Table directory.
    pub table: String,
    /// Only files last modified longer ago than this are removed (default `1 d`).
    #[arg(long = "older-than", value_parser = duration, default_value = "1 d")]
    pub older_than: i64,
    /// List the orphan files without deleting them.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

fn duration(text: &str) -> std::result::Result<i64, String> {
    parse_duration_millis(text)
        .and_then(|ms| i64::try_from(ms).ok())
        .ok_or_else(|| format!("'{text}' is not a duration such as '1 h', '30 min' or '500 ms'"))
}

pub fn expire_snapshots(a: ExpireArgs) -> Result<()> {
    let table = ScanArgs::default().open(&a.table)?.table;
    let mut config = ExpireConfig::from_options(table.options()).map_err(|e| anyhow!("{e}"))?;
    if let Some(n) = a.retain_max {
        config = config.with_retain_max(n);
    }
    if let Some(n) = a.retain_min {
        config = config.with_retain_min(n);
    }
    if let Some(ms) = a.older_than {
        config = config.with_time_retained_ms(ms);
    }
    if let Some(n) = a.max_deletes {
        config = config.with_max_deletes(n);
    }
    let r = table
        .expire_snapshots(&config.with_dry_run(a.dry_run))
        .map_err(|e| anyhow!("{e}"))?;
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

/// The expiry `paimon expire-partitions` runs: the table's `partition.expiration-*` options,
/// each overridden where given (`strategy`: `values-time` or `update-time`).
///
/// # Errors
/// Neither `expiration_ms` nor `partition.expiration-time` given; an unknown strategy; an
/// option that does not parse.
pub fn partition_expire_config(
    table: &paimon_meta::Table,
    a: &ExpirePartitionsArgs,
) -> Result<PartitionExpireConfig> {
    let configured =
        PartitionExpireConfig::from_options(table.options()).map_err(|e| anyhow!("{e}"))?;
    let mut config = match (configured, a.expiration_time) {
        (Some(mut c), Some(ms)) => {
            c.expiration_ms = ms;
            c
        }
        (Some(c), None) => c,
        (None, Some(ms)) => PartitionExpireConfig::with_expiration(ms, table.options())
            .map_err(|e| anyhow!("{e}"))?,
        (None, None) => {
            return Err(anyhow!(
                "expire-partitions {}: give an expiration time or set partition.expiration-time",
                a.table
            ))
        }
    };
    if let Some(s) = &a.strategy {
        config.strategy = match s.as_str() {
            "values-time" => PartitionExpireStrategy::ValuesTime,
            "update-time" => PartitionExpireStrategy::UpdateTime,
            other => {
                return Err(anyhow!(
                    "strategy {other}: expected values-time or update-time"
                ))
            }
        };
    }
    if a.formatter.is_some() {
        config.formatter = a.formatter.clone();
    }
    if a.pattern.is_some() {
        config.pattern = a.pattern.clone();
    }
    if let Some(n) = a.max_expires {
        config.max_expires = n;
    }
    config.dry_run = a.dry_run;
    Ok(config)
}

/// Runs [`partition_expire_config`]'s expiry now (local time) as a fresh commit user.
///
/// # Errors
/// As [`partition_expire_config`]; the expiry's own errors.
pub fn run_partition_expire(
    table: &paimon_meta::Table,
    a: &ExpirePartitionsArgs,
) -> Result<paimon_meta::maintenance::PartitionExpireReport> {
    let config = partition_expire_config(table, a)?;
    table
        .expire_partitions(
            &config,
            chrono::Local::now().naive_local(),
            &paimon_meta::commit::fresh_commit_user("expire-partitions"),
        )
        .map_err(|e| anyhow!("expire-partitions {}: {e}", a.table))
}

pub fn expire_partitions(a: ExpirePartitionsArgs) -> Result<()> {
    let table = ScanArgs::default().open(&a.table)?.table;
    let r = run_partition_expire(&table, &a)?;
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
    let table = ScanArgs::default().open(&a.table)?.table;
    let r = RemoveOrphanFiles::new(&table)
        .with_older_than_ms(a.older_than)
        .with_dry_run(a.dry_run)
        .run()
        .map_err(|e| anyhow!("{e}"))?;
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
