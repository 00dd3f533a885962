//! Typed table options (Java `CoreOptions`), parsed once from the schema's option map.
//!
//! Unknown keys are kept in [`CoreOptions::raw`] and otherwise ignored; a malformed value of a
//! known key is an [`Error::InvalidOption`] naming the key.

use std::collections::{BTreeMap, HashMap};

use crate::error::{Error, Result};

/// `merge-engine` (Java `CoreOptions.MergeEngine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeEngine {
    /// Last record per key wins.
    Deduplicate,
    /// Non-null fields overwrite earlier ones.
    PartialUpdate,
    /// Per-field aggregate functions.
    Aggregation,
    /// First record per key wins.
    FirstRow,
}

/// `changelog-producer` (Java `CoreOptions.ChangelogProducer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangelogProducer {
    /// No changelog files.
    None,
    /// Input records double as the changelog.
    Input,
    /// Changelog produced by full compaction.
    FullCompaction,
    /// Changelog produced by lookup.
    Lookup,
}

/// Options a reader and planner need, with Java's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreOptions {
    /// `bucket`: >0 fixed, -1 dynamic/unaware, -2 postpone. Default -1.
    pub bucket: i32,
    /// `bucket-key`, empty when unset.
    pub bucket_key: Vec<String>,
    /// `file.format`, default `parquet`.
    pub file_format: String,
    /// `manifest.format`, default `avro`.
    pub manifest_format: String,
    /// `merge-engine`, default deduplicate.
    pub merge_engine: MergeEngine,
    /// `ignore-delete` (also the legacy per-engine keys).
    pub ignore_delete: bool,
    /// `partial-update.remove-record-on-delete`.
    pub partial_update_remove_record_on_delete: bool,
    /// `partial-update.remove-record-on-sequence-group`: the sequence fields whose retraction
    /// removes the whole record (a comma list in Java).
    pub partial_update_remove_record_on_sequence_group: Vec<String>,
    /// `sequence.field`: user sequence fields, in order.
    pub sequence_fields: Vec<String>,
    /// `sequence.field.sort-order` is `descending`.
    pub sequence_field_descending: bool,
    /// `deletion-vectors.enabled`.
    pub deletion_vectors_enabled: bool,
    /// `deletion-vectors.bitmap64`.
    pub deletion_vectors_bitmap64: bool,
    /// `deletion-vectors.merge-on-read`.
    pub deletion_vectors_merge_on_read: bool,
    /// `changelog-producer`, default none.
    pub changelog_producer: ChangelogProducer,
    /// `data-evolution.enabled`.
    pub data_evolution_enabled: bool,
    /// `row-tracking.enabled`.
    pub row_tracking_enabled: bool,
    /// `partition.default-name`, default `__DEFAULT_PARTITION__`.
    pub partition_default_name: String,
    /// `partition.legacy-name`, default true.
    pub partition_legacy_name: bool,
    /// `source.split.target-size` in bytes, default 128 MiB.
    pub split_target_size: u64,
    /// `source.split.open-file-cost` in bytes, default 4 MiB.
    pub split_open_file_cost: u64,
    /// `fields.default-aggregate-function`.
    pub default_aggregate_function: Option<String>,
    /// `data-file.external-paths`, empty when unset.
    pub data_file_external_paths: Vec<String>,
    /// `data-file.external-paths.strategy` in lower case: `none` (default: the external paths
    /// are not written to), `round-robin`, `specific-fs`, or another Java strategy.
    pub data_file_external_paths_strategy: String,
    /// `data-file.external-paths.specific-fs`: the file system scheme `specific-fs` picks.
    pub data_file_external_paths_specific_fs: Option<String>,
    /// `data-file.path-directory`.
    pub data_file_path_directory: Option<String>,
    /// `index-file-in-data-file-dir`.
    pub index_file_in_data_file_dir: bool,
    /// `scan.fallback-branch`.
    pub scan_fallback_branch: Option<String>,
    /// `file.compression`, default `zstd`.
    pub file_compression: String,
    /// `file.suffix.include.compression`, default false.
    pub file_suffix_include_compression: bool,
    /// `data-file.prefix`, default `data-`.
    pub data_file_prefix: String,
    /// `changelog-file.prefix`, default `changelog-`.
    pub changelog_file_prefix: String,
    /// `manifest.compression`, default `zstd`.
    pub manifest_compression: String,
    /// `manifest.target-file-size` in bytes, default 8 MiB.
    pub manifest_target_file_size: u64,
    /// `manifest.merge-min-count`, default 30.
    pub manifest_merge_min_count: i32,
    /// `manifest.full-compaction-threshold-size` in bytes, default 16 MiB.
    pub manifest_full_compaction_threshold_size: u64,
    /// `commit.max-retries`, default 10.
    pub commit_max_retries: i32,
    /// `commit.timeout` in millis, unbounded when unset.
    pub commit_timeout_millis: Option<u64>,
    /// `commit.min-retry-wait` in millis, default 10.
    pub commit_min_retry_wait_millis: u64,
    /// `commit.max-retry-wait` in millis, default 10 s.
    pub commit_max_retry_wait_millis: u64,
    /// `target-file-size` in bytes when set; see [`CoreOptions::target_file_size`].
    pub target_file_size_option: Option<u64>,
    /// `compaction.min.file-num`: fewest files an append compaction takes. Default 5.
    pub compaction_min_file_num: i32,
    /// `compaction.delete-ratio-threshold`: an append file whose deletion vector covers more
    /// than this share of its rows is compacted whatever its size. Default 0.2.
    pub compaction_delete_ratio_threshold: f64,
    /// `num-sorted-run.compaction-trigger`. Default 5.
    pub num_sorted_run_compaction_trigger: i32,
    /// `compaction.max-size-amplification-percent`. Default 200.
    pub compaction_max_size_amplification_percent: i32,
    /// `compaction.size-ratio` (percent). Default 1.
    pub compaction_size_ratio: i32,
    /// `compaction.force-up-level-0`: universal compaction always takes the level-0 files.
    /// Default false.
    pub compaction_force_up_level_0: bool,
    /// `num-levels` when set; see [`CoreOptions::num_levels`].
    pub num_levels_option: Option<i32>,
    /// `dynamic-partition-overwrite`: an overwrite without a partition replaces only the
    /// partitions written to. Default true.
    pub dynamic_partition_overwrite: bool,
    /// `write-only`: writers neither compact nor expire snapshots after committing. Default
    /// false.
    pub write_only: bool,
    /// `metastore.partitioned-table`: a catalog with a metastore (Hive) registers the table
    /// as partitioned there and adds each partition a commit writes to. Default false.
    pub metastore_partitioned_table: bool,
    /// `force-lookup`: compact and merge as a lookup table whatever the other options say.
    /// Default false.
    pub force_lookup: bool,
    /// `changelog-producer.row-deduplicate`: a compaction's changelog leaves out the -U/+U pair
    /// of a key whose value did not change. Default false.
    pub changelog_row_deduplicate: bool,
    /// `changelog-producer.row-deduplicate-ignore-fields`: columns that comparison ignores.
    pub changelog_row_deduplicate_ignore_fields: Vec<String>,
    /// `dynamic-bucket.target-row-num`: keys a dynamic bucket takes before a new bucket is
    /// opened. Default 2,000,000.
    pub dynamic_bucket_target_row_num: i64,
    /// `dynamic-bucket.max-buckets`: most buckets a partition of a dynamic-bucket table gets;
    /// -1 for no bound (Java's default).
    pub dynamic_bucket_max_buckets: i32,
    /// Every option as written.
    pub raw: BTreeMap<String, String>,
}

impl CoreOptions {
    /// Parses the options Java would read from `raw`.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when a known key has a malformed value.
    ///
    /// [`Error::Unsupported`] for a table that is not a Paimon file-store table (see
    /// [`check_table_type`]): every reader, writer and planner parses its options here, so
    /// none of them mistakes such a table's directory for a Paimon table.
    pub fn try_new(raw: &BTreeMap<String, String>) -> Result<Self> {
        check_table_type(raw)?;
        let r = Reader(raw);
        let merge_engine = match r
            .get("merge-engine")
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("deduplicate") => MergeEngine::Deduplicate,
            Some("partial-update") => MergeEngine::PartialUpdate,
            Some("aggregation") => MergeEngine::Aggregation,
            Some("first-row") => MergeEngine::FirstRow,
            Some(_) => {
                return Err(r.invalid(
                    "merge-engine",
                    "expected deduplicate, partial-update, aggregation or first-row",
                ))
            }
        };
        let changelog_producer = match r
            .get("changelog-producer")
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("none") => ChangelogProducer::None,
            Some("input") => ChangelogProducer::Input,
            Some("full-compaction") => ChangelogProducer::FullCompaction,
            Some("lookup") => ChangelogProducer::Lookup,
            Some(_) => {
                return Err(r.invalid(
                    "changelog-producer",
                    "expected none, input, full-compaction or lookup",
                ))
            }
        };
        let ignore_delete = r.bool("ignore-delete", false)?
            || r.bool("first-row.ignore-delete", false)?
            || r.bool("partial-update.ignore-delete", false)?
            || r.bool("deduplicate.ignore-delete", false)?;
        let sort_order = r
            .get("sequence.field.sort-order")
            .map(str::to_ascii_lowercase);
        let sequence_field_descending = match sort_order.as_deref() {
            None | Some("ascending") => false,
            Some("descending") => true,
            Some(_) => {
                return Err(r.invalid(
                    "sequence.field.sort-order",
                    "expected ascending or descending",
                ))
            }
        };
        Ok(CoreOptions {
            bucket: r.int("bucket", -1)?,
            bucket_key: r.list("bucket-key"),
            file_format: r
                .get("file.format")
                .unwrap_or("parquet")
                .to_ascii_lowercase(),
            manifest_format: r
                .get("manifest.format")
                .unwrap_or("avro")
                .to_ascii_lowercase(),
            merge_engine,
            ignore_delete,
            partial_update_remove_record_on_delete: r
                .bool("partial-update.remove-record-on-delete", false)?,
            partial_update_remove_record_on_sequence_group: r
                .list("partial-update.remove-record-on-sequence-group"),
            sequence_fields: r.list("sequence.field"),
            sequence_field_descending,
            deletion_vectors_enabled: r.bool("deletion-vectors.enabled", false)?,
            deletion_vectors_bitmap64: r.bool("deletion-vectors.bitmap64", false)?,
            deletion_vectors_merge_on_read: r.bool("deletion-vectors.merge-on-read", false)?,
            changelog_producer,
            data_evolution_enabled: r.bool("data-evolution.enabled", false)?,
            row_tracking_enabled: r.bool("row-tracking.enabled", false)?,
            partition_default_name: r
                .get("partition.default-name")
                .unwrap_or("__DEFAULT_PARTITION__")
                .to_string(),
            partition_legacy_name: r.bool("partition.legacy-name", true)?,
            split_target_size: r.memory("source.split.target-size", 128 << 20)?,
            split_open_file_cost: r.memory("source.split.open-file-cost", 4 << 20)?,
            default_aggregate_function: r
                .get("fields.default-aggregate-function")
                .map(str::to_string),
            data_file_external_paths: r.list("data-file.external-paths"),
            data_file_external_paths_strategy: r
                .get("data-file.external-paths.strategy")
                .unwrap_or("none")
                .to_ascii_lowercase(),
            data_file_external_paths_specific_fs: r
                .get("data-file.external-paths.specific-fs")
                .map(str::to_string),
            data_file_path_directory: r.get("data-file.path-directory").map(str::to_string),
            index_file_in_data_file_dir: r.bool("index-file-in-data-file-dir", false)?,
            scan_fallback_branch: r.get("scan.fallback-branch").map(str::to_string),
            file_compression: r.get("file.compression").unwrap_or("zstd").to_string(),
            file_suffix_include_compression: r.bool("file.suffix.include.compression", false)?,
            data_file_prefix: r.raw_or("data-file.prefix", "data-"),
            changelog_file_prefix: r.raw_or("changelog-file.prefix", "changelog-"),
            manifest_compression: r.get("manifest.compression").unwrap_or("zstd").to_string(),
            manifest_target_file_size: r.memory("manifest.target-file-size", 8 << 20)?,
            manifest_merge_min_count: r.int("manifest.merge-min-count", 30)?,
            manifest_full_compaction_threshold_size: r
                .memory("manifest.full-compaction-threshold-size", 16 << 20)?,
            commit_max_retries: r.int("commit.max-retries", 10)?,
            commit_timeout_millis: r.duration_millis("commit.timeout")?,
            commit_min_retry_wait_millis: r.duration_millis("commit.min-retry-wait")?.unwrap_or(10),
            commit_max_retry_wait_millis: r
                .duration_millis("commit.max-retry-wait")?
                .unwrap_or(10_000),
            target_file_size_option: match r.get("target-file-size") {
                None => None,
                Some(_) => Some(r.memory("target-file-size", 0)?),
            },
            compaction_min_file_num: r.int("compaction.min.file-num", 5)?,
            compaction_delete_ratio_threshold: r
                .double("compaction.delete-ratio-threshold", 0.2)?,
            num_sorted_run_compaction_trigger: r.int("num-sorted-run.compaction-trigger", 5)?,
            compaction_max_size_amplification_percent: r
                .int("compaction.max-size-amplification-percent", 200)?,
            compaction_size_ratio: r.int("compaction.size-ratio", 1)?,
            compaction_force_up_level_0: r.bool("compaction.force-up-level-0", false)?,
            num_levels_option: match r.get("num-levels") {
                None => None,
                Some(_) => Some(r.int("num-levels", 0)?),
            },
            dynamic_partition_overwrite: r.bool("dynamic-partition-overwrite", true)?,
            write_only: r.bool("write-only", false)?,
            metastore_partitioned_table: r.bool("metastore.partitioned-table", false)?,
            force_lookup: r.bool("force-lookup", false)?,
            changelog_row_deduplicate: r.bool("changelog-producer.row-deduplicate", false)?,
            changelog_row_deduplicate_ignore_fields: r
                .list("changelog-producer.row-deduplicate-ignore-fields"),
            dynamic_bucket_target_row_num: r.long("dynamic-bucket.target-row-num", 2_000_000)?,
            dynamic_bucket_max_buckets: r.int("dynamic-bucket.max-buckets", -1)?,
            raw: raw.clone(),
        })
    }

    /// `target-file-size`: 128 MiB for primary-key tables, 256 MiB for append tables unless
    /// set (Java `CoreOptions.targetFileSize`).
    pub fn target_file_size(&self, has_primary_key: bool) -> u64 {
        self.target_file_size_option.unwrap_or(if has_primary_key {
            128 << 20
        } else {
            256 << 20
        })
    }

    /// Files smaller than this take part in a compaction: 70% of the target file size, so a
    /// freshly compacted file a little under the target is not compacted again (Java
    /// `CoreOptions.compactionFileSize`).
    pub fn compaction_file_size(&self, has_primary_key: bool) -> u64 {
        self.target_file_size(has_primary_key) / 10 * 7
    }

    /// `num-levels`, default `num-sorted-run.compaction-trigger + 1` so that compaction never
    /// falls back to level 0 (Java `CoreOptions.numLevels`).
    pub fn num_levels(&self) -> i32 {
        self.num_levels_option
            .unwrap_or_else(|| self.num_sorted_run_compaction_trigger.saturating_add(1))
    }

    /// The per-field option `fields.<field>.<suffix>`.
    pub fn field_option(&self, field: &str, suffix: &str) -> Option<&str> {
        self.raw
            .get(&format!("fields.{field}.{suffix}"))
            .map(String::as_str)
    }

    /// `fields.<f>.aggregate-function` for every field that sets one.
    pub fn aggregate_functions(&self) -> HashMap<String, String> {
        self.per_field("aggregate-function")
    }

    /// Sequence groups: `fields.<a,b>.sequence-group = c,d` as (sequence fields, group fields).
    pub fn sequence_groups(&self) -> Vec<(Vec<String>, Vec<String>)> {
        self.per_field("sequence-group")
            .into_iter()
            .map(|(seq, group)| {
                (
                    seq.split(',').map(|s| s.trim().to_string()).collect(),
                    group.split(',').map(|s| s.trim().to_string()).collect(),
                )
            })
            .collect()
    }

    /// Whether Java keeps lookup structures over the levels of a primary-key bucket: the
    /// `lookup` changelog producer, deletion vectors, first-row or `force-lookup` (Java
    /// `CoreOptions.needLookup`).
    pub fn need_lookup(&self) -> bool {
        self.changelog_producer == ChangelogProducer::Lookup
            || self.deletion_vectors_enabled
            || self.merge_engine == MergeEngine::FirstRow
            || self.force_lookup
    }

    /// Whether a key's records merge as Java's `LookupMergeFunction` merges them, on read and
    /// in compaction: its level-0 records and its copy in the shallowest level above 0 only,
    /// the deeper copies being older results that copy already folded in. Lookup tables other
    /// than first-row (Java `PrimaryKeyFileStoreTable` wraps their merge function).
    pub fn lookup_merge(&self) -> bool {
        self.need_lookup() && self.merge_engine != MergeEngine::FirstRow
    }

    /// Whether the scan keeps level-0 files out of batch reads (Java `batchScanSkipLevel0`).
    pub fn batch_scan_skip_level0(&self) -> bool {
        (self.deletion_vectors_enabled && !self.deletion_vectors_merge_on_read)
            || self.merge_engine == MergeEngine::FirstRow
    }

    fn per_field(&self, suffix: &str) -> HashMap<String, String> {
        let tail = format!(".{suffix}");
        self.raw
            .iter()
            .filter_map(|(k, v)| {
                let name = k.strip_prefix("fields.")?.strip_suffix(tail.as_str())?;
                Some((name.to_string(), v.clone()))
            })
            .collect()
    }
}

/// The table option naming the kind of table (Java `CoreOptions.TYPE`, default `table`).
pub const TABLE_TYPE: &str = "type";

/// The message of the refusal of a format table by what only file-store tables have
/// (planning, splits, commits, compaction, maintenance, SQL, Python).
pub const FORMAT_TABLE_UNSUPPORTED: &str =
    "format tables (type = format-table) are only read and written (paimon read, paimon write, \
     paimon_rs::format_table), not planned, committed, compacted or maintained";

/// Whether `raw` are the options of a format table (`type = format-table`, Java
/// `FormatTable`: a Hive-style directory of plain Parquet / ORC / CSV / JSON files
/// partitioned by path, with no snapshots or manifests). Java spells the value in any case,
/// `-` or `_`.
pub fn is_format_table(raw: &BTreeMap<String, String>) -> bool {
    raw.get(TABLE_TYPE).is_some_and(|v| {
        v.trim()
            .replace('_', "-")
            .eq_ignore_ascii_case("format-table")
    })
}

/// Refuses options of a table paimon-rs cannot treat as a Paimon file-store table.
///
/// A format table ([`is_format_table`]) read as a Paimon table finds no snapshot (zero rows),
/// and written as one gets snapshots, manifests and buckets that Java and pypaimon ignore, so
/// everything that needs a file-store table refuses it; format tables are read and written
/// by their own path (the facade's `format_table` module).
///
/// # Errors
/// [`Error::Unsupported`] with [`FORMAT_TABLE_UNSUPPORTED`] for a format table.
pub fn check_table_type(raw: &BTreeMap<String, String>) -> Result<()> {
    if is_format_table(raw) {
        return Err(Error::unsupported(FORMAT_TABLE_UNSUPPORTED));
    }
    Ok(())
}

struct Reader<'a>(&'a BTreeMap<String, String>);

impl Reader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(|s| s.trim())
    }

    fn invalid(&self, key: &str, reason: &str) -> Error {
        Error::InvalidOption {
            key: key.to_string(),
            value: self.0.get(key).cloned().unwrap_or_default(),
            reason: reason.to_string(),
        }
    }

    fn bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(_) => Err(self.invalid(key, "expected true or false")),
        }
    }

    fn int(&self, key: &str, default: i32) -> Result<i32> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| self.invalid(key, "expected an integer")),
        }
    }

    fn long(&self, key: &str, default: i64) -> Result<i64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| self.invalid(key, "expected an integer")),
        }
    }

    fn double(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| self.invalid(key, "expected a number")),
        }
    }

    fn list(&self, key: &str) -> Vec<String> {
        self.get(key)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A value taken as written (file-name prefixes keep their spaces, as Java's do).
    fn raw_or(&self, key: &str, default: &str) -> String {
        self.0
            .get(key)
            .map_or_else(|| default.to_string(), String::clone)
    }

    fn duration_millis(&self, key: &str) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => parse_duration_millis(v)
                .map(Some)
                .ok_or_else(|| self.invalid(key, "expected a duration such as '10 s' or '500ms'")),
        }
    }

    fn memory(&self, key: &str, default: u64) -> Result<u64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => parse_memory_size(v)
                .ok_or_else(|| self.invalid(key, "expected a memory size such as '128 mb'")),
        }
    }
}

/// Parses Java `TimeUtils.parseDuration` text into millis: a number and an optional unit
/// (`ns`, `us`, `ms` (the default), `s`, `min`/`m`, `h`, `d`, and their long forms).
pub fn parse_duration_millis(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let number: u64 = t[..split].parse().ok()?;
    let unit = t[split..].trim().to_ascii_lowercase();
    let nanos: u64 = match unit.as_str() {
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => 1,
        "us" | "µs" | "micro" | "micros" | "microsecond" | "microseconds" => 1_000,
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1_000_000,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000_000_000,
        "m" | "min" | "mins" | "minute" | "minutes" => 60_000_000_000,
        "h" | "hour" | "hours" => 3_600_000_000_000,
        "d" | "day" | "days" => 86_400_000_000_000,
        _ => return None,
    };
    Some(number.checked_mul(nanos)? / 1_000_000)
}

/// Parses Java `MemorySize` text: a number and an optional unit (b, k/kb, m/mb, g/gb, t/tb).
pub fn parse_memory_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let number: u64 = t[..split].parse().ok()?;
    let unit = t[split..].trim().to_ascii_lowercase();
    let mult: u64 = match unit.as_str() {
        "" | "b" | "bytes" => 1,
        "k" | "kb" | "kibibytes" => 1 << 10,
        "m" | "mb" | "mebibytes" => 1 << 20,
        "g" | "gb" | "gibibytes" => 1 << 30,
        "t" | "tb" | "tebibytes" => 1 << 40,
        _ => return None,
    };
    number.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> Result<CoreOptions> {
        CoreOptions::try_new(
            &pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn defaults() {
        let o = opts(&[]).unwrap();
        assert_eq!(o.bucket, -1);
        assert_eq!(o.merge_engine, MergeEngine::Deduplicate);
        assert_eq!(o.split_target_size, 128 * 1024 * 1024);
        assert_eq!(o.split_open_file_cost, 4 * 1024 * 1024);
        assert_eq!(o.partition_default_name, "__DEFAULT_PARTITION__");
    }

    /// Java 1.4.2 `CoreOptions`: target 128 MiB (primary key) / 256 MiB (append), compaction
    /// size 70% of it, `compaction.min.file-num` 5, delete ratio 0.2, `num-levels` =
    /// `num-sorted-run.compaction-trigger` (5) + 1.
    #[test]
    fn compaction_defaults_and_overrides() {
        let o = opts(&[]).unwrap();
        assert_eq!(o.target_file_size(true), 128 << 20);
        assert_eq!(o.target_file_size(false), 256 << 20);
        assert_eq!(o.compaction_file_size(false), (256 << 20) / 10 * 7);
        assert_eq!(o.compaction_min_file_num, 5);
        assert_eq!(o.compaction_delete_ratio_threshold, 0.2);
        assert_eq!(o.num_levels(), 6);
        let o = opts(&[
            ("target-file-size", "10 mb"),
            ("num-sorted-run.compaction-trigger", "3"),
            ("compaction.delete-ratio-threshold", "0.5"),
        ])
        .unwrap();
        assert_eq!(o.target_file_size(true), 10 << 20);
        assert_eq!(o.target_file_size(false), 10 << 20);
        assert_eq!(o.num_levels(), 4);
        assert_eq!(o.compaction_delete_ratio_threshold, 0.5);
        assert_eq!(opts(&[("num-levels", "3")]).unwrap().num_levels(), 3);
        assert!(opts(&[("compaction.delete-ratio-threshold", "x")]).is_err());
        assert!(opts(&[("target-file-size", "big")]).is_err());
    }

    #[test]
    fn malformed_known_option_names_the_key() {
        let e = opts(&[("bucket", "four")]).unwrap_err();
        assert!(e.to_string().contains("'bucket'"), "{e}");
        assert!(opts(&[("deletion-vectors.enabled", "yes")]).is_err());
        assert!(opts(&[("some.unknown", "x")]).is_ok());
    }

    #[test]
    fn memory_sizes() {
        assert_eq!(parse_memory_size("128 mb"), Some(128 << 20));
        assert_eq!(parse_memory_size("4MB"), Some(4 << 20));
        assert_eq!(parse_memory_size("100"), Some(100));
        assert_eq!(parse_memory_size("1 zb"), None);
    }

    #[test]
    fn sequence_groups_and_aggregates() {
        let o = opts(&[
            ("fields.g1.sequence-group", "a,b"),
            ("fields.x.aggregate-function", "sum"),
        ])
        .unwrap();
        assert_eq!(
            o.sequence_groups(),
            vec![(
                vec!["g1".to_string()],
                vec!["a".to_string(), "b".to_string()]
            )]
        );
        assert_eq!(
            o.aggregate_functions().get("x").map(String::as_str),
            Some("sum")
        );
    }
}
