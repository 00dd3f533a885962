//! `paimon expire-snapshots|remove-orphan-files`: table maintenance (paimon-meta's
//! [`paimon_meta::maintenance`]).

use anyhow::{anyhow, Result};
use clap::Args;
use paimon_meta::maintenance::{ExpireConfig, RemoveOrphanFiles};
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
