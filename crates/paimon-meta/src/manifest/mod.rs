//! Manifest files: manifest lists, data manifests and index manifests.
//!
//! Each reader is a pure function from file bytes to typed entries. The container format is
//! detected from the magic (Avro `Obj\x01`, ORC `ORC` or Parquet `PAR1`), not from table
//! options, and fields are mapped by name so that every layout Java has written (0.8 .. 2.x)
//! decodes.

pub mod encode;
mod entry;
mod entry_decoder;
mod index;
mod list;

pub(crate) use entry::ManifestBlocks;
pub use entry::{FileKind, ManifestEntry};
pub use entry_decoder::DecodeOptions;
pub use index::{DeletionVectorMeta, IndexFileMeta, IndexManifestEntry, DELETION_VECTORS_INDEX};
pub use list::ManifestFileMeta;

use paimon_spec::stats::{null_counts_from_vec, row_bytes_from_vec, SimpleStats};

use crate::error::{Error, Result};
use paimon_format::value::{Record, Value};

/// Decodes the records of a manifest-family file, Avro, ORC or Parquet by magic.
///
/// # Errors
/// [`Error::Corrupt`] naming `path` when the bytes are not a valid Avro, ORC or Parquet file.
pub fn decode_records(path: &str, bytes: bytes::Bytes) -> Result<Vec<Record>> {
    let budget = paimon_format::avro::InflateBudget::for_file(bytes.len());
    decode_records_within(path, bytes, &budget)
}

/// [`decode_records`] with an Avro file's inflated blocks taken from `budget`.
///
/// # Errors
/// As [`decode_records`]; [`Error::ResourcesExhausted`] when the budget, bounded by a memory
/// pool, is exceeded ([`avro_error`]).
pub(crate) fn decode_records_within(
    path: &str,
    bytes: bytes::Bytes,
    budget: &paimon_format::avro::InflateBudget,
) -> Result<Vec<Record>> {
    let values = if bytes.starts_with(paimon_format::avro::MAGIC) {
        paimon_format::avro::read_container_within(&bytes, budget)
            .map_err(|r| avro_error(path, budget, r))?
    } else if bytes.starts_with(paimon_format::orc::MAGIC) {
        paimon_format::orc::read_orc(bytes).map_err(|r| Error::corrupt(path, r.to_string()))?
    } else if bytes.starts_with(paimon_format::parquet::MAGIC) {
        paimon_format::parquet::read_parquet(bytes)
            .map_err(|r| Error::corrupt(path, r.to_string()))?
    } else {
        return Err(Error::corrupt(
            path,
            "neither an Avro container nor an ORC or Parquet file (unknown magic)",
        ));
    };
    values
        .into_iter()
        .map(|v| match v {
            Value::Record(r) => Ok(r),
            other => Err(Error::corrupt(
                path,
                format!("top-level value is not a record: {other:?}"),
            )),
        })
        .collect()
}

/// The error of decoding the Avro file `path` with `budget`: [`Error::ResourcesExhausted`]
/// when the blocks inflated beyond a budget the memory pool bounded (the pool, not the file,
/// is short), else `Corrupt` naming the file with `reason`.
pub(crate) fn avro_error(
    path: &str,
    budget: &paimon_format::avro::InflateBudget,
    reason: impl std::fmt::Display,
) -> Error {
    match budget.pool_free() {
        Some(free) if budget.exhausted() => Error::ResourcesExhausted {
            requested: free.saturating_add(1),
            limit: free,
            what: format!("inflating the Avro blocks of {path}: {}", budget.reason()),
        },
        _ => Error::corrupt(path, reason.to_string()),
    }
}

/// Field access helpers that produce `Corrupt` errors naming the file and field.
pub(crate) struct Fields<'a> {
    pub path: &'a str,
    pub what: &'static str,
}

impl Fields<'_> {
    pub fn err(&self, field: &str, why: &str) -> Error {
        Error::corrupt(self.path, format!("{} field {field}: {why}", self.what))
    }

    pub fn long(&self, r: &Record, f: &str) -> Result<i64> {
        r.get(f)
            .as_i64()
            .ok_or_else(|| self.err(f, "missing or not an integer"))
    }

    pub fn int(&self, r: &Record, f: &str) -> Result<i32> {
        i32::try_from(self.long(r, f)?).map_err(|_| self.err(f, "out of int range"))
    }

    pub fn opt_long(&self, r: &Record, f: &str) -> Result<Option<i64>> {
        match r.get(f) {
            Value::Null => Ok(None),
            v => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.err(f, "not an integer")),
        }
    }

    pub fn opt_int(&self, r: &Record, f: &str) -> Result<Option<i32>> {
        self.opt_long(r, f)?
            .map(|v| i32::try_from(v).map_err(|_| self.err(f, "out of int range")))
            .transpose()
    }

    pub fn string(&self, r: &Record, f: &str) -> Result<String> {
        r.get(f)
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| self.err(f, "missing or not a string"))
    }

    /// A string field holding a file name that will be joined to a table directory.
    pub fn file_name(&self, r: &Record, f: &str) -> Result<String> {
        let name = self.string(r, f)?;
        crate::file_name::check_plain_name(self.path, &format!("{} field {f}", self.what), &name)?;
        Ok(name)
    }

    pub fn opt_string(&self, r: &Record, f: &str) -> Result<Option<String>> {
        match r.get(f) {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            _ => Err(self.err(f, "not a string")),
        }
    }

    pub fn bytes(&self, r: &Record, f: &str) -> Result<Vec<u8>> {
        match r.get(f) {
            Value::Bytes(b) => Ok(b.clone()),
            _ => Err(self.err(f, "missing or not bytes")),
        }
    }

    pub fn stats(&self, r: &Record, f: &str) -> Result<SimpleStats> {
        let s = r
            .get(f)
            .as_record()
            .ok_or_else(|| self.err(f, "missing or not a record"))?;
        self.stats_record(s, f)
    }

    pub fn stats_record(&self, s: &Record, f: &str) -> Result<SimpleStats> {
        Ok(SimpleStats {
            min_values: row_bytes_from_vec(self.bytes(s, "_MIN_VALUES")?),
            max_values: row_bytes_from_vec(self.bytes(s, "_MAX_VALUES")?),
            null_counts: match s.get("_NULL_COUNTS") {
                Value::Null => None,
                Value::Array(a) => {
                    Some(null_counts_from_vec(a.iter().map(Value::as_i64).collect()))
                }
                _ => return Err(self.err(f, "_NULL_COUNTS is not an array")),
            },
        })
    }

    pub fn check_version(&self, r: &Record, expected: i64) -> Result<()> {
        if !r.has("_VERSION") {
            return Ok(());
        }
        let v = self.long(r, "_VERSION")?;
        if v != expected {
            return Err(Error::unsupported(format!(
                "{} format identifier {v} in {} (expected {expected}; please recreate the table)",
                self.what, self.path
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod avro_bomb_tests;
#[cfg(test)]
mod encode_tests;
#[cfg(test)]
mod tests;
