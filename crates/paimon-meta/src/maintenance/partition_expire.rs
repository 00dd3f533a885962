//! Partition expiry (Java `PartitionExpire`, `PartitionValuesTimeExpireStrategy`,
//! `PartitionUpdateTimeExpireStrategy`).
//!
//! A partition expires when the time it stands for is older than `now - expiration-time`:
//! - `values-time` (the default): the time its values name, through
//!   `partition.timestamp-pattern` / `partition.timestamp-formatter`
//!   ([`PartitionTimeExtractor`]); partitions whose values hold a null or do not parse are
//!   kept, as Java keeps them;
//! - `update-time`: the creation time of its newest live file.
//!
//! The expired partitions are ordered by their values joined with `,` (as text), at most
//! `partition.expiration-max-num` of them are taken, and they are dropped in one OVERWRITE
//! snapshot, or one per `partition.expiration-batch-size` of them. Times are wall-clock times
//! of the local time zone, as Java's `LocalDateTime.now()` and file creation times are.

use std::collections::BTreeMap;

use chrono::NaiveDateTime;
use paimon_spec::binary::Datum;
use paimon_spec::options::{parse_duration_millis, CoreOptions};
use paimon_spec::partition_time::PartitionTimeExtractor;
use paimon_spec::stats::serialize_datums;

use super::invalid_option as invalid;
use crate::commit::{PartitionSpec, BATCH_COMMIT_IDENTIFIER};
use crate::error::{Error, Result};
use crate::table::Table;

const EXPIRATION_TIME: &str = "partition.expiration-time";
const CHECK_INTERVAL: &str = "partition.expiration-check-interval";
const STRATEGY: &str = "partition.expiration-strategy";
const MAX_NUM: &str = "partition.expiration-max-num";
const BATCH_SIZE: &str = "partition.expiration-batch-size";
const FORMATTER: &str = "partition.timestamp-formatter";
const PATTERN: &str = "partition.timestamp-pattern";
const END_INPUT_CHECK: &str = "end-input.check-partition-expire";

/// How a partition's time is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionExpireStrategy {
    /// From the partition's values (`values-time`).
    ValuesTime,
    /// From the creation time of its newest file (`update-time`).
    UpdateTime,
}

/// What a partition expiry removes (Java's `partition.expiration-*` options).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionExpireConfig {
    /// Partitions older than this many milliseconds expire.
    pub expiration_ms: i64,
    /// How their time is found.
    pub strategy: PartitionExpireStrategy,
    /// `partition.timestamp-formatter`.
    pub formatter: Option<String>,
    /// `partition.timestamp-pattern`.
    pub pattern: Option<String>,
    /// At most this many partitions per run (`partition.expiration-max-num`, default 100).
    pub max_expires: usize,
    /// Partitions per drop commit, `None` for one commit (`partition.expiration-batch-size`).
    pub batch_size: Option<usize>,
    /// List what would expire, change nothing.
    pub dry_run: bool,
}

/// What an expiry found and did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PartitionExpireReport {
    /// The expired partitions as `column -> value` text (nulls as the default partition
    /// name), in the order they were dropped.
    pub partitions: Vec<BTreeMap<String, String>>,
    /// The OVERWRITE snapshots made (none on a dry run).
    pub snapshots: Vec<i64>,
}

impl PartitionExpireConfig {
    /// The table's options; `None` when `partition.expiration-time` is not set (Java then
    /// expires nothing).
    ///
    /// # Errors
    /// `Spec` (invalid option) for values that do not parse or an unknown strategy.
    pub fn from_options(options: &CoreOptions) -> Result<Option<Self>> {
        match options.raw.get(EXPIRATION_TIME) {
            None => Ok(None),
            Some(time) => {
                Self::with_expiration(duration(EXPIRATION_TIME, time)?, options).map(Some)
            }
        }
    }

    /// Expire partitions older than `expiration_ms`, with the table's other
    /// `partition.*` options (whether or not `partition.expiration-time` is set).
    ///
    /// # Errors
    /// As [`PartitionExpireConfig::from_options`].
    pub fn with_expiration(expiration_ms: i64, options: &CoreOptions) -> Result<Self> {
        let raw = &options.raw;
        let mut c = PartitionExpireConfig::new(expiration_ms);
        if let Some(s) = raw.get(STRATEGY) {
            c.strategy = match s.trim() {
                "values-time" => PartitionExpireStrategy::ValuesTime,
                "update-time" => PartitionExpireStrategy::UpdateTime,
                other => {
                    return Err(invalid(
                        STRATEGY,
                        other,
                        "expected values-time or update-time",
                    ))
                }
            };
        }
        c.formatter = raw.get(FORMATTER).cloned();
        c.pattern = raw.get(PATTERN).cloned();
        if let Some(v) = raw.get(MAX_NUM) {
            c.max_expires = count(MAX_NUM, v)?;
        }
        if let Some(v) = raw.get(BATCH_SIZE) {
            c.batch_size = Some(count(BATCH_SIZE, v)?).filter(|n| *n > 0);
        }
        Ok(c)
    }

    /// Expire partitions older than `expiration_ms`, with Java's other defaults.
    pub fn new(expiration_ms: i64) -> Self {
        PartitionExpireConfig {
            expiration_ms,
            strategy: PartitionExpireStrategy::ValuesTime,
            formatter: None,
            pattern: None,
            max_expires: 100,
            batch_size: None,
            dry_run: false,
        }
    }

    /// Whether Java's committer would expire right after a commit with `identifier`: with a
    /// check interval of zero, or at the end of a batch commit with
    /// `end-input.check-partition-expire`. (Otherwise Java checks at most once per interval
    /// of a long-running writer, starting a random part of an interval after it starts,
    /// which a one-shot commit never reaches.)
    pub fn after_commit(options: &CoreOptions, identifier: i64) -> bool {
        let raw = &options.raw;
        let zero_interval = raw
            .get(CHECK_INTERVAL)
            .and_then(|v| parse_duration_millis(v))
            == Some(0);
        let end_input = raw
            .get(END_INPUT_CHECK)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        zero_interval || (end_input && identifier == BATCH_COMMIT_IDENTIFIER)
    }
}

impl Table {
    /// Drops the partitions that expired by `now` (a local wall-clock time; see
    /// [`PartitionExpireConfig`]) in OVERWRITE snapshots committed as `commit_user`.
    ///
    /// # Errors
    /// `Unsupported` for a table without partitions or a formatter this extractor does not
    /// parse; metadata and commit errors.
    pub fn expire_partitions(
        &self,
        config: &PartitionExpireConfig,
        now: NaiveDateTime,
        commit_user: &str,
    ) -> Result<PartitionExpireReport> {
        let fields = self.schema().partition_fields();
        if fields.is_empty() {
            return Err(Error::unsupported(format!(
                "partition expiry of {}: the table has no partitions",
                self.path()
            )));
        }
        let keys: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
        let extractor =
            PartitionTimeExtractor::try_new(config.pattern.as_deref(), config.formatter.as_deref())
                .map_err(|e| Error::spec(self.path(), e))?;
        let expire_before = now - chrono::Duration::milliseconds(config.expiration_ms);
        // Each live partition (by its serialized row) with the creation time of its newest
        // file.
        let types = self.partition_types();
        let mut partitions: BTreeMap<Vec<u8>, (Vec<Datum>, i64)> = BTreeMap::new();
        for f in self.live_files(None)? {
            let key =
                serialize_datums(&f.partition, &types).map_err(|e| Error::spec(self.path(), e))?;
            let created = f.file.creation_time.unwrap_or(i64::MIN);
            let e = partitions
                .entry(key)
                .or_insert_with(|| (f.partition.clone(), i64::MIN));
            e.1 = e.1.max(created);
        }
        let default_name = &self.options().partition_default_name;
        let mut expired: Vec<(String, Vec<Datum>, Vec<String>)> = Vec::new();
        for (values, newest) in partitions.into_values() {
            let text: Vec<Option<String>> = values.iter().map(internal_text).collect();
            let old = match config.strategy {
                PartitionExpireStrategy::ValuesTime => {
                    let Some(text) = text.iter().cloned().collect::<Option<Vec<String>>>() else {
                        continue;
                    };
                    extractor
                        .extract(&keys, &text)
                        .is_some_and(|t| expire_before > t)
                }
                PartitionExpireStrategy::UpdateTime => {
                    expire_before.and_utc().timestamp_millis() > newest
                }
            };
            if old {
                let shown: Vec<String> = text
                    .into_iter()
                    .map(|t| t.unwrap_or_else(|| default_name.clone()))
                    .collect();
                expired.push((shown.join(","), values, shown));
            }
        }
        expired.sort_by(|a, b| a.0.cmp(&b.0));
        expired.truncate(config.max_expires);
        let mut report = PartitionExpireReport {
            partitions: expired
                .iter()
                .map(|(_, _, shown)| keys.iter().cloned().zip(shown.iter().cloned()).collect())
                .collect(),
            snapshots: Vec::new(),
        };
        if config.dry_run || expired.is_empty() {
            return Ok(report);
        }
        let specs: Vec<PartitionSpec> = expired
            .into_iter()
            .map(|(_, values, _)| keys.iter().cloned().zip(values).collect())
            .collect();
        let commit = self.new_commit(commit_user).without_partition_expiry();
        let batch = config.batch_size.unwrap_or(specs.len()).max(1);
        for chunk in specs.chunks(batch) {
            // The drop removes the partitions from the catalog's record too; Java's expiry
            // also removes their `.done` partitions (the last value with `.done`) there.
            if let Some(modification) = self.partition_modification() {
                let mut done = Vec::with_capacity(chunk.len());
                for spec in chunk {
                    let values: Vec<Datum> = spec.iter().map(|(_, v)| v.clone()).collect();
                    let mut named = self.partition_values_text(&values)?;
                    if let Some((_, last)) = named.last_mut() {
                        last.push_str(".done");
                    }
                    done.push(named);
                }
                modification.drop_partitions(&done)?;
            }
            report
                .snapshots
                .extend(commit.drop_partitions(BATCH_COMMIT_IDENTIFIER, chunk.to_vec())?);
        }
        Ok(report)
    }
}

/// The text Java's expiry gives a partition value (`toString` of its internal object: a
/// DATE is its day number); `None` for a null, and for types whose internal text this
/// expiry does not reproduce (they never parse as a time in Java either).
fn internal_text(d: &Datum) -> Option<String> {
    match d {
        Datum::String(s) => Some(s.clone()),
        Datum::TinyInt(v) => Some(v.to_string()),
        Datum::SmallInt(v) => Some(v.to_string()),
        Datum::Int(v) => Some(v.to_string()),
        Datum::BigInt(v) => Some(v.to_string()),
        Datum::Date(v) => Some(v.to_string()),
        Datum::Boolean(v) => Some(v.to_string()),
        _ => None,
    }
}

fn duration(key: &str, value: &str) -> Result<i64> {
    parse_duration_millis(value)
        .and_then(|v| i64::try_from(v).ok())
        .ok_or_else(|| invalid(key, value, "expected a duration such as '7 d' or '12 h'"))
}

fn count(key: &str, value: &str) -> Result<usize> {
    value
        .trim()
        .parse()
        .map_err(|_| invalid(key, value, "expected a non-negative integer"))
}
