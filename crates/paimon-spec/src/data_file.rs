//! Data-file metadata (Java `DataFileMeta`) and deletion files (Java `DeletionFile`).
//!
//! The same ordered field list is used in manifests and in splits. Older Paimon releases wrote
//! fewer trailing fields: 15 in 0.8, 16 in 0.9, 17/18 in 1.0-1.2, 19/20 in 1.3-2.0, 21 on
//! master. A row of any of these arities decodes; missing trailing fields read as `None`.

use crate::binary::{encode_row, BinaryRow, Datum, RowKind};
use crate::error::{Error, Result};
use crate::stats::{row_bytes_from_vec, RowBytes, SimpleStats};
use crate::types::{DataType, TypeKind};

/// Smallest DataFileMeta arity ever written (Paimon 0.8).
pub const MIN_ARITY: usize = 15;
/// Arity written by master (2.1).
pub const MAX_ARITY: usize = 21;
/// Arity of Paimon 0.7's rows (no delete row count, no embedded index), found only in old
/// commit messages (Java `CommitMessageLegacyV2Serializer`).
pub const LEGACY_07_ARITY: usize = 13;

/// Names of the fields at positions 13.. (the ones older arities lack).
const TRAILING_FIELDS: [&str; 8] = [
    "_DELETE_ROW_COUNT",
    "_EMBEDDED_FILE_INDEX",
    "_FILE_SOURCE",
    "_VALUE_STATS_COLS",
    "_EXTERNAL_PATH",
    "_FIRST_ROW_ID",
    "_WRITE_COLS",
    "_WRITE_COLS_SEQUENCES",
];

/// `FileSource` of a data file.
pub const FILE_SOURCE_APPEND: i8 = 0;
/// `FileSource` of a compaction output.
pub const FILE_SOURCE_COMPACT: i8 = 1;

/// Metadata of one data file (Java `DataFileMeta`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DataFileMeta {
    /// File name only (no directory).
    pub file_name: String,
    /// Size in bytes.
    pub file_size: i64,
    /// Rows in the file (adds + deletes).
    pub row_count: i64,
    /// Serialized min key row (trimmed primary key); the empty row for append tables.
    pub min_key: RowBytes,
    /// Serialized max key row.
    pub max_key: RowBytes,
    /// Stats over key fields.
    pub key_stats: SimpleStats,
    /// Stats over value fields (dense: see `value_stats_cols`).
    pub value_stats: SimpleStats,
    /// Smallest sequence number.
    pub min_sequence_number: i64,
    /// Largest sequence number.
    pub max_sequence_number: i64,
    /// Id of the schema the file was written with.
    pub schema_id: i64,
    /// LSM level (0 for append tables).
    pub level: i32,
    /// Extra files such as file-index sidecars.
    pub extra_files: Vec<String>,
    /// Creation time, local wall-clock millis (`TIMESTAMP(3)`).
    pub creation_time: Option<i64>,
    /// Deleted rows in the file; `None` = unknown (0.8+).
    pub delete_row_count: Option<i64>,
    /// Embedded file index bytes (0.8+).
    pub embedded_index: Option<Vec<u8>>,
    /// 0 = APPEND, 1 = COMPACT (0.9+).
    pub file_source: Option<i8>,
    /// Columns the value stats cover; `None` = all (1.0+).
    pub value_stats_cols: Option<Vec<String>>,
    /// Absolute location outside the table directory (1.0+).
    pub external_path: Option<String>,
    /// First row id for row tracking (1.3+).
    pub first_row_id: Option<i64>,
    /// Columns physically in the file for data evolution; `None` = all (1.3+).
    pub write_cols: Option<Vec<String>>,
    /// Per-column max sequence after data-evolution compaction (2.1).
    pub write_cols_sequences: Option<Vec<i64>>,
}

impl DataFileMeta {
    /// Whether the file stores column `name` itself, by its `_WRITE_COLS` (a row-tracked
    /// file Java's compaction or update wrote holds `_ROW_ID` and `_SEQUENCE_NUMBER`).
    pub fn stores_column(&self, name: &str) -> bool {
        self.write_cols
            .as_ref()
            .is_some_and(|c| c.iter().any(|n| n == name))
    }

    /// Field types of the DataFileMeta row at `arity` (15..=21).
    pub fn row_types(arity: usize) -> Vec<DataType> {
        let string_list = |nullable| DataType {
            nullable,
            kind: TypeKind::Array(Box::new(DataType::string().with_nullable(false))),
        };
        let nn = |k| DataType::not_null(k);
        let all = vec![
            DataType::string().with_nullable(false),
            nn(TypeKind::BigInt),
            nn(TypeKind::BigInt),
            DataType::bytes().with_nullable(false),
            DataType::bytes().with_nullable(false),
            SimpleStats::row_type(),
            SimpleStats::row_type(),
            nn(TypeKind::BigInt),
            nn(TypeKind::BigInt),
            nn(TypeKind::BigInt),
            nn(TypeKind::Int),
            string_list(false),
            DataType::nullable(TypeKind::Timestamp { precision: 3 }),
            DataType::nullable(TypeKind::BigInt),
            DataType::bytes(),
            DataType::nullable(TypeKind::TinyInt),
            string_list(true),
            DataType::string(),
            DataType::nullable(TypeKind::BigInt),
            string_list(true),
            DataType::nullable(TypeKind::Array(Box::new(nn(TypeKind::BigInt)))),
        ];
        all.into_iter().take(arity).collect()
    }

    /// Decodes a DataFileMeta row of `arity` fields (15..=21).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the row is malformed or the arity unknown.
    pub fn from_row(row: &BinaryRow<'_>) -> Result<Self> {
        let arity = row.arity();
        if !(MIN_ARITY..=MAX_ARITY).contains(&arity) {
            return Err(Error::corrupt(
                "DataFileMeta",
                format!("unknown arity {arity}"),
            ));
        }
        let d = row.to_datums(&Self::row_types(arity))?;
        Self::from_datums(d)
    }

    /// Builds from decoded field values (15..=21 of them), as read from a manifest or a split.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when a required field is missing or has the wrong type.
    pub fn from_datums(d: Vec<Datum>) -> Result<Self> {
        let n = d.len();
        let mut it = d.into_iter();
        let mut next = || it.next().unwrap_or(Datum::Null);
        let bad = |field: &str| {
            Error::corrupt(
                "DataFileMeta",
                format!("field {field} is missing or ill-typed"),
            )
        };
        let string = |d: Datum, f: &str| match d {
            Datum::String(s) => Ok(s),
            _ => Err(bad(f)),
        };
        let long = |d: Datum, f: &str| d.as_i64().ok_or_else(|| bad(f));
        // A negative size or count is never written; readers size row selections from them.
        let non_negative = |v: i64, f: &str| {
            if v < 0 {
                Err(Error::corrupt(
                    "DataFileMeta",
                    format!("{f} is negative ({v})"),
                ))
            } else {
                Ok(v)
            }
        };
        let bytes = |d: Datum, f: &str| match d {
            Datum::Binary(b) => Ok(b),
            _ => Err(bad(f)),
        };
        let opt_strings = |d: Datum, f: &str| match d {
            Datum::Null => Ok(None),
            Datum::Array(a) => a
                .into_iter()
                .map(|x| match x {
                    Datum::String(s) => Ok(s),
                    _ => Err(bad(f)),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            _ => Err(bad(f)),
        };
        if n < MIN_ARITY {
            return Err(Error::corrupt(
                "DataFileMeta",
                format!("{n} fields, expected at least {MIN_ARITY}"),
            ));
        }
        Ok(DataFileMeta {
            file_name: string(next(), "_FILE_NAME")?,
            file_size: long(next(), "_FILE_SIZE").and_then(|v| non_negative(v, "_FILE_SIZE"))?,
            row_count: long(next(), "_ROW_COUNT").and_then(|v| non_negative(v, "_ROW_COUNT"))?,
            min_key: row_bytes_from_vec(bytes(next(), "_MIN_KEY")?),
            max_key: row_bytes_from_vec(bytes(next(), "_MAX_KEY")?),
            key_stats: SimpleStats::from_datum(&next())?,
            value_stats: SimpleStats::from_datum(&next())?,
            min_sequence_number: long(next(), "_MIN_SEQUENCE_NUMBER")?,
            max_sequence_number: long(next(), "_MAX_SEQUENCE_NUMBER")?,
            schema_id: long(next(), "_SCHEMA_ID")?,
            level: i32::try_from(long(next(), "_LEVEL")?).map_err(|_| bad("_LEVEL"))?,
            extra_files: opt_strings(next(), "_EXTRA_FILES")?.unwrap_or_default(),
            creation_time: match next() {
                Datum::Null => None,
                Datum::Timestamp { millis, .. } | Datum::LocalZonedTimestamp { millis, .. } => {
                    Some(millis)
                }
                Datum::BigInt(v) => Some(v),
                _ => return Err(bad("_CREATION_TIME")),
            },
            delete_row_count: next().as_i64(),
            embedded_index: match next() {
                Datum::Null => None,
                Datum::Binary(b) => Some(b),
                _ => return Err(bad("_EMBEDDED_FILE_INDEX")),
            },
            file_source: match next() {
                Datum::Null => None,
                d => Some(
                    i8::try_from(d.as_i64().ok_or_else(|| bad("_FILE_SOURCE"))?)
                        .map_err(|_| bad("_FILE_SOURCE"))?,
                ),
            },
            value_stats_cols: opt_strings(next(), "_VALUE_STATS_COLS")?,
            external_path: match next() {
                Datum::Null => None,
                Datum::String(s) => Some(s),
                _ => return Err(bad("_EXTERNAL_PATH")),
            },
            first_row_id: next().as_i64(),
            write_cols: opt_strings(next(), "_WRITE_COLS")?,
            write_cols_sequences: match next() {
                Datum::Null => None,
                Datum::Array(a) => Some(
                    a.iter()
                        .map(|x| x.as_i64().ok_or_else(|| bad("_WRITE_COLS_SEQUENCES")))
                        .collect::<Result<Vec<_>>>()?,
                ),
                _ => return Err(bad("_WRITE_COLS_SEQUENCES")),
            },
        })
    }

    /// Decodes a Paimon 0.7 row of [`LEGACY_07_ARITY`] fields; the fields it lacks read as
    /// `None`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the row is malformed.
    pub fn from_legacy_07_row(row: &BinaryRow<'_>) -> Result<Self> {
        if row.arity() != LEGACY_07_ARITY {
            return Err(Error::corrupt(
                "DataFileMeta",
                format!("0.7 row of arity {}", row.arity()),
            ));
        }
        let mut d = row.to_datums(&Self::row_types(LEGACY_07_ARITY))?;
        d.resize(MIN_ARITY, Datum::Null);
        Self::from_datums(d)
    }

    /// Checks that every field this file sets exists at `arity`, so that encoding at that
    /// arity loses nothing.
    ///
    /// # Errors
    /// [`Error::Encode`] naming the first set field the arity has no place for.
    pub fn check_arity(&self, arity: usize) -> Result<()> {
        let set = [
            self.delete_row_count.is_some(),
            self.embedded_index.is_some(),
            self.file_source.is_some(),
            self.value_stats_cols.is_some(),
            self.external_path.is_some(),
            self.first_row_id.is_some(),
            self.write_cols.is_some(),
            self.write_cols_sequences.is_some(),
        ];
        let first_missing = arity.saturating_sub(LEGACY_07_ARITY);
        match (first_missing..set.len()).find(|i| set[*i]) {
            Some(i) => Err(Error::Encode {
                what: format!("data file {}", self.file_name),
                reason: format!(
                    "{} is set but a DataFileMeta row of arity {arity} has no such field",
                    TRAILING_FIELDS[i]
                ),
            }),
            None => Ok(()),
        }
    }

    /// The field values, truncated to `arity` (15..=21).
    pub fn to_datums(&self, arity: usize) -> Vec<Datum> {
        let strings =
            |v: &[String]| Datum::Array(v.iter().map(|s| Datum::String(s.clone())).collect());
        let opt = |v: Option<Datum>| v.unwrap_or(Datum::Null);
        let all = vec![
            Datum::String(self.file_name.clone()),
            Datum::BigInt(self.file_size),
            Datum::BigInt(self.row_count),
            Datum::Binary(self.min_key.to_vec()),
            Datum::Binary(self.max_key.to_vec()),
            self.key_stats.to_datum(),
            self.value_stats.to_datum(),
            Datum::BigInt(self.min_sequence_number),
            Datum::BigInt(self.max_sequence_number),
            Datum::BigInt(self.schema_id),
            Datum::Int(self.level),
            strings(&self.extra_files),
            opt(self
                .creation_time
                .map(|millis| Datum::Timestamp { millis, nanos: 0 })),
            opt(self.delete_row_count.map(Datum::BigInt)),
            opt(self.embedded_index.clone().map(Datum::Binary)),
            opt(self.file_source.map(Datum::TinyInt)),
            opt(self.value_stats_cols.as_deref().map(strings)),
            opt(self.external_path.clone().map(Datum::String)),
            opt(self.first_row_id.map(Datum::BigInt)),
            opt(self.write_cols.as_deref().map(strings)),
            opt(self
                .write_cols_sequences
                .as_ref()
                .map(|v| Datum::Array(v.iter().map(|x| Datum::BigInt(*x)).collect()))),
        ];
        all.into_iter().take(arity).collect()
    }

    /// Encodes the BinaryRow of `arity` fields, as Java's serializer of that version does.
    ///
    /// # Errors
    /// [`Error::Encode`] should not happen for well-formed values.
    pub fn to_row_bytes(&self, arity: usize) -> Result<Vec<u8>> {
        encode_row(
            RowKind::Insert,
            &self.to_datums(arity),
            &Self::row_types(arity),
        )
    }

    /// Row count minus deletes where known (Java `DataFileMeta.getDeleteRowCount`).
    pub fn has_deletes(&self) -> bool {
        self.delete_row_count.is_some_and(|c| c > 0)
    }

    /// The row-id range `[first_row_id, first_row_id + row_count - 1]` if row tracking applies.
    pub fn row_id_range(&self) -> Option<(i64, i64)> {
        self.first_row_id
            .map(|f| (f, f.saturating_add(self.row_count).saturating_sub(1)))
    }

    /// Whether this is a blob file (`.blob` extension).
    pub fn is_blob_file(&self) -> bool {
        self.file_name.ends_with(".blob")
    }
}

/// A deletion vector's location in an index file (Java `DeletionFile`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DeletionFile {
    /// Full path of the index file.
    pub path: String,
    /// Offset of the DV's 4-byte length prefix.
    pub offset: i64,
    /// Length as the format defines it (see `docs/paimon-format.md` §6).
    pub length: i64,
    /// Number of deleted rows, when known.
    pub cardinality: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DataFileMeta {
        DataFileMeta {
            file_name: "data-abc-0.parquet".into(),
            file_size: 1024,
            row_count: 10,
            min_key: crate::stats::empty_row_bytes(),
            max_key: crate::stats::empty_row_bytes(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats {
                min_values: crate::stats::empty_row_bytes(),
                max_values: crate::stats::empty_row_bytes(),
                null_counts: Some(vec![Some(1), None].into()),
            },
            min_sequence_number: 0,
            max_sequence_number: 9,
            schema_id: 0,
            level: 0,
            extra_files: vec!["x.index".into()],
            creation_time: Some(1_700_000_000_000),
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: Some(FILE_SOURCE_APPEND),
            value_stats_cols: None,
            external_path: Some("/tmp/ext/data-abc-0.parquet".into()),
            first_row_id: Some(100),
            write_cols: Some(vec!["a".into()]),
            write_cols_sequences: Some(vec![3]),
        }
    }

    #[test]
    fn round_trips_at_every_arity() {
        for arity in MIN_ARITY..=MAX_ARITY {
            let m = sample();
            let bytes = m.to_row_bytes(arity).unwrap();
            let back = DataFileMeta::from_row(&BinaryRow::new(&bytes, arity).unwrap()).unwrap();
            let expected = DataFileMeta::from_datums(m.to_datums(arity)).unwrap();
            assert_eq!(back, expected, "arity {arity}");
        }
    }
}
