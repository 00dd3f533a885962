//! The write-side table options (Java `CoreOptions`), parsed once when a writer is built.
//!
//! Options shared with the control plane live in [`paimon_spec::options::CoreOptions`]; the keys
//! only writers use are parsed here from its raw map, with Java 1.4's defaults.

use paimon_spec::options::{parse_memory_size, CoreOptions};

use crate::error::{Error, Result};
use crate::stats::StatsMode;

/// Default `write-buffer-size`.
pub const DEFAULT_WRITE_BUFFER_SIZE: u64 = 256 << 20;

/// Options a writer needs, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOptions {
    /// `target-file-size`: a data file is rolled once it reaches this size. Default 128 MiB for
    /// primary-key tables, 256 MiB for append tables, as Java.
    pub target_file_size: u64,
    /// `write-buffer-size`: memory a primary-key writer buffers before it flushes a sorted
    /// level-0 file. Default 256 MiB.
    pub write_buffer_size: u64,
    /// `file.compression.zstd-level`. Default 1.
    pub zstd_level: i32,
    /// `metadata.stats-mode`. Default `truncate(16)`.
    pub stats_mode: StatsMode,
    /// `metadata.stats-dense-store`: value stats keep only the columns that have stats, named in
    /// `_VALUE_STATS_COLS`. Default true.
    pub stats_dense_store: bool,
    /// `metadata.stats-keep-first-n-columns`; -1 keeps all. Default -1.
    pub stats_keep_first_n_columns: i32,
}

impl WriteOptions {
    /// Parses the write options of a table.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a malformed value.
    pub fn try_new(core: &CoreOptions, has_primary_key: bool) -> Result<Self> {
        let raw = &core.raw;
        let get = |k: &str| raw.get(k).map(String::as_str);
        let invalid = |k: &str, reason: &str| Error::InvalidOption {
            key: k.to_string(),
            value: get(k).unwrap_or_default().to_string(),
            reason: reason.to_string(),
        };
        let memory = |k: &str, default: u64| match get(k) {
            None => Ok(default),
            Some(v) => parse_memory_size(v).ok_or_else(|| invalid(k, "expected a memory size")),
        };
        let int = |k: &str, default: i32| match get(k) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| invalid(k, "expected an integer")),
        };
        let boolean = |k: &str, default: bool| match get(k).map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(default),
            Some(v) if v == "true" => Ok(true),
            Some(v) if v == "false" => Ok(false),
            Some(_) => Err(invalid(k, "expected true or false")),
        };
        let stats_mode = match get("metadata.stats-mode") {
            None => StatsMode::Truncate(16),
            Some(v) => StatsMode::parse(v).ok_or_else(|| {
                invalid(
                    "metadata.stats-mode",
                    "expected none, counts, full or truncate(N)",
                )
            })?,
        };
        let target_file_size = core.target_file_size(has_primary_key);
        if target_file_size == 0 {
            return Err(invalid("target-file-size", "must be positive"));
        }
        Ok(WriteOptions {
            target_file_size,
            write_buffer_size: memory("write-buffer-size", DEFAULT_WRITE_BUFFER_SIZE)?,
            zstd_level: int("file.compression.zstd-level", 1)?,
            stats_mode,
            stats_dense_store: boolean("metadata.stats-dense-store", true)?,
            stats_keep_first_n_columns: int("metadata.stats-keep-first-n-columns", -1)?,
        })
    }

    /// The stats mode of each field, as Java `StatsCollectorFactories.createStatsFactories`:
    /// `fields.<f>.stats-mode` first; system fields (`_KEY_*`, `_SEQUENCE_NUMBER`,
    /// `_VALUE_KIND`, ...) `truncate(128)`; otherwise the table mode for the first
    /// `stats-keep-first-n-columns` columns and none after them.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a malformed per-field mode.
    pub fn field_stats_modes(
        &self,
        core: &CoreOptions,
        fields: &[String],
    ) -> Result<Vec<StatsMode>> {
        let mut counted = 0i32;
        let mut out = Vec::with_capacity(fields.len());
        for f in fields {
            if let Some(v) = core.field_option(f, "stats-mode") {
                out.push(StatsMode::parse(v).ok_or_else(|| Error::InvalidOption {
                    key: format!("fields.{f}.stats-mode"),
                    value: v.to_string(),
                    reason: "expected none, counts, full or truncate(N)".into(),
                })?);
                counted += 1;
            } else if is_system_field(f) {
                out.push(StatsMode::Truncate(128));
            } else {
                let keep = self.stats_keep_first_n_columns;
                out.push(if keep >= 0 && counted >= keep {
                    StatsMode::None
                } else {
                    self.stats_mode
                });
                counted += 1;
            }
        }
        Ok(out)
    }
}

/// Java `SpecialFields.isSystemField`: the key prefix and the reserved column names.
fn is_system_field(name: &str) -> bool {
    name.starts_with(crate::key_value::KEY_FIELD_PREFIX)
        || matches!(
            name,
            "_SEQUENCE_NUMBER" | "_VALUE_KIND" | "_LEVEL" | "rowkind" | "_ROW_ID"
        )
}
