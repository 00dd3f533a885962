//! Snapshot expiry, partition expiry and orphan-file cleanup as builders (paimon-meta's
//! [`paimon_meta::maintenance`] with plain values), each returning a report.

use std::time::Duration;

pub use chrono::NaiveDateTime;
use paimon_meta::maintenance::{
    ExpireConfig, ExpireReport, OrphanReport, PartitionExpireConfig, PartitionExpireReport,
    PartitionExpireStrategy,
};

use crate::error::{Error, Result};

/// Milliseconds of `d`, saturated at `i64::MAX`.
fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// `table.expire_snapshots()`: each value defaults to the table's `snapshot.*` option.
#[derive(Debug, Clone)]
pub struct ExpireSnapshots {
    table: paimon_meta::Table,
    retain_max: Option<i64>,
    retain_min: Option<i64>,
    older_than: Option<Duration>,
    max_deletes: Option<i64>,
    dry_run: bool,
}

impl ExpireSnapshots {
    pub(crate) fn new(table: paimon_meta::Table) -> Self {
        ExpireSnapshots {
            table,
            retain_max: None,
            retain_min: None,
            older_than: None,
            max_deletes: None,
            dry_run: false,
        }
    }

    /// Keep at most `n` snapshots (`snapshot.num-retained.max`).
    pub fn with_retain_max(mut self, n: i64) -> Self {
        self.retain_max = Some(n);
        self
    }

    /// Keep at least `n` snapshots (`snapshot.num-retained.min`).
    pub fn with_retain_min(mut self, n: i64) -> Self {
        self.retain_min = Some(n);
        self
    }

    /// Keep snapshots younger than `d` (`snapshot.time-retained`).
    pub fn with_older_than(mut self, d: Duration) -> Self {
        self.older_than = Some(d);
        self
    }

    /// Expire at most `n` snapshots (`snapshot.expire.limit`).
    pub fn with_max_deletes(mut self, n: i64) -> Self {
        self.max_deletes = Some(n);
        self
    }

    /// Report what would be deleted without deleting anything.
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Expires the snapshots.
    ///
    /// # Errors
    /// Malformed table options; storage errors.
    pub fn run(&self) -> Result<ExpireReport> {
        let mut config = ExpireConfig::from_options(self.table.options())?;
        if let Some(n) = self.retain_max {
            config = config.with_retain_max(n);
        }
        if let Some(n) = self.retain_min {
            config = config.with_retain_min(n);
        }
        if let Some(d) = self.older_than {
            config = config.with_time_retained_ms(millis(d));
        }
        if let Some(n) = self.max_deletes {
            config = config.with_max_deletes(n);
        }
        Ok(self
            .table
            .expire_snapshots(&config.with_dry_run(self.dry_run))?)
    }
}

/// `table.expire_partitions()`: each value defaults to the table's `partition.expiration-*`
/// option.
#[derive(Debug, Clone)]
pub struct ExpirePartitions {
    table: paimon_meta::Table,
    expiration_time: Option<Duration>,
    strategy: Option<PartitionExpireStrategy>,
    formatter: Option<String>,
    pattern: Option<String>,
    max_expires: Option<usize>,
    dry_run: bool,
    now: Option<NaiveDateTime>,
    commit_user: Option<String>,
}

/// The strategy named `name`: `values-time` or `update-time` (Java's
/// `partition.expiration-strategy` values).
///
/// # Errors
/// Any other name.
pub fn partition_expire_strategy(name: &str) -> Result<PartitionExpireStrategy> {
    match name {
        "values-time" => Ok(PartitionExpireStrategy::ValuesTime),
        "update-time" => Ok(PartitionExpireStrategy::UpdateTime),
        other => Err(Error::invalid(
            "strategy",
            format!("{other}: expected values-time or update-time"),
        )),
    }
}

impl ExpirePartitions {
    pub(crate) fn new(table: paimon_meta::Table) -> Self {
        ExpirePartitions {
            table,
            expiration_time: None,
            strategy: None,
            formatter: None,
            pattern: None,
            max_expires: None,
            dry_run: false,
            now: None,
            commit_user: None,
        }
    }

    /// Partitions older than `d` expire (`partition.expiration-time`, which must be set when
    /// this is not given).
    pub fn with_expiration_time(mut self, d: Duration) -> Self {
        self.expiration_time = Some(d);
        self
    }

    /// How a partition's age is known (`partition.expiration-strategy`).
    pub fn with_strategy(mut self, strategy: PartitionExpireStrategy) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// Java `DateTimeFormatter` pattern of the partition time, e.g. `yyyyMMdd`
    /// (`partition.timestamp-formatter`).
    pub fn with_timestamp_formatter(mut self, formatter: impl Into<String>) -> Self {
        self.formatter = Some(formatter.into());
        self
    }

    /// How partition values make the time text, e.g. `$dt $hour:00:00`
    /// (`partition.timestamp-pattern`).
    pub fn with_timestamp_pattern(mut self, pattern: impl Into<String>) -> Self {
        self.pattern = Some(pattern.into());
        self
    }

    /// Expire at most `n` partitions (`partition.expiration-max-num`).
    pub fn with_max_expires(mut self, n: usize) -> Self {
        self.max_expires = Some(n);
        self
    }

    /// Report what would expire without dropping anything.
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// The time partitions' ages are measured at (default: now, local time, as Java).
    pub fn with_now(mut self, now: NaiveDateTime) -> Self {
        self.now = Some(now);
        self
    }

    /// The commit user of the drop (default: a fresh one).
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = Some(user.into());
        self
    }

    /// The expiry this runs: the table's options, each overridden where given.
    ///
    /// # Errors
    /// No expiration time given nor `partition.expiration-time` set; an option that does not
    /// parse.
    pub fn config(&self) -> Result<PartitionExpireConfig> {
        let options = self.table.options();
        let configured = PartitionExpireConfig::from_options(options)?;
        let mut config = match (configured, self.expiration_time) {
            (Some(mut c), Some(d)) => {
                c.expiration_ms = millis(d);
                c
            }
            (Some(c), None) => c,
            (None, Some(d)) => PartitionExpireConfig::with_expiration(millis(d), options)?,
            (None, None) => {
                return Err(Error::invalid(
                    format!("expire-partitions {}", self.table.path()),
                    "give an expiration time or set partition.expiration-time",
                ))
            }
        };
        if let Some(s) = self.strategy {
            config.strategy = s;
        }
        if self.formatter.is_some() {
            config.formatter = self.formatter.clone();
        }
        if self.pattern.is_some() {
            config.pattern = self.pattern.clone();
        }
        if let Some(n) = self.max_expires {
            config.max_expires = n;
        }
        config.dry_run = self.dry_run;
        Ok(config)
    }

    /// Expires the partitions (one commit dropping them).
    ///
    /// # Errors
    /// As [`ExpirePartitions::config`]; a commit conflict; storage errors.
    pub fn run(&self) -> Result<PartitionExpireReport> {
        let config = self.config()?;
        let now = self
            .now
            .unwrap_or_else(|| chrono::Local::now().naive_local());
        let user = match &self.commit_user {
            Some(u) => u.clone(),
            None => paimon_meta::commit::fresh_commit_user("expire-partitions"),
        };
        Ok(self.table.expire_partitions(&config, now, &user)?)
    }
}

/// `table.remove_orphan_files()`: files under the table no snapshot, tag or branch uses.
#[derive(Debug, Clone)]
pub struct RemoveOrphanFiles {
    table: paimon_meta::Table,
    older_than: Duration,
    dry_run: bool,
}

impl RemoveOrphanFiles {
    pub(crate) fn new(table: paimon_meta::Table) -> Self {
        RemoveOrphanFiles {
            table,
            older_than: Duration::from_secs(24 * 3600),
            dry_run: false,
        }
    }

    /// Only files last modified longer ago than `d` are removed (default one day, so files
    /// of a write in progress are kept).
    pub fn with_older_than(mut self, d: Duration) -> Self {
        self.older_than = d;
        self
    }

    /// List the orphan files without deleting them.
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Removes the orphan files.
    ///
    /// # Errors
    /// Storage errors; unreadable metadata (nothing is deleted then).
    pub fn run(&self) -> Result<OrphanReport> {
        Ok(
            paimon_meta::maintenance::RemoveOrphanFiles::new(&self.table)
                .with_older_than_ms(millis(self.older_than))
                .with_dry_run(self.dry_run)
                .run()?,
        )
    }
}
