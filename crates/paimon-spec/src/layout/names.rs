//! File names a writer creates (Java `FileStorePathFactory`, `DataFilePathFactory`,
//! `HadoopCompressionType`). Each factory instance in Java draws one random UUID and numbers
//! its files from 0; callers here pass that UUID and number.

use super::{
    DATA_FILE_INDEX_SUFFIX, INDEX_MANIFEST_PREFIX, INDEX_PREFIX, MANIFEST_LIST_PREFIX,
    MANIFEST_PREFIX, STATISTICS_PREFIX,
};

/// `manifest-<uuid>-<n>`.
pub fn manifest_file_name(uuid: &str, n: u64) -> String {
    format!("{MANIFEST_PREFIX}{uuid}-{n}")
}

/// `manifest-list-<uuid>-<n>`.
pub fn manifest_list_file_name(uuid: &str, n: u64) -> String {
    format!("{MANIFEST_LIST_PREFIX}{uuid}-{n}")
}

/// `index-manifest-<uuid>-<n>`.
pub fn index_manifest_file_name(uuid: &str, n: u64) -> String {
    format!("{INDEX_MANIFEST_PREFIX}{uuid}-{n}")
}

/// `index-<uuid>-<n>`: a deletion-vector or hash index file, in `index/` (or in the bucket
/// directory with `index-file-in-data-file-dir`).
pub fn index_file_name(uuid: &str, n: u64) -> String {
    format!("{INDEX_PREFIX}{uuid}-{n}")
}

/// `stat-<uuid>-<n>`.
pub fn statistics_file_name(uuid: &str, n: u64) -> String {
    format!("{STATISTICS_PREFIX}{uuid}-{n}")
}

/// `<data file name>.index`: a data file's sidecar file index (Java
/// `DataFilePathFactory.dataFileToFileIndexPath`).
pub fn data_file_index_name(data_file_name: &str) -> String {
    format!("{data_file_name}{DATA_FILE_INDEX_SUFFIX}")
}

/// The file-name extension of a compression (Java `compressFileExtension`): `None` for an
/// empty value or `none`, Hadoop's extension for the codecs Hadoop names (`gzip` -> `gz`,
/// `bzip2` -> `bz2`, `zstd` -> `zst`, `deflate`, `snappy`, `lz4`; case-insensitive), else the
/// value itself.
pub fn compression_extension(compression: &str) -> Option<String> {
    if compression.is_empty() {
        return None;
    }
    let hadoop = match compression.to_ascii_lowercase().as_str() {
        "none" => return None,
        "gzip" => "gz",
        "bzip2" => "bz2",
        "deflate" => "deflate",
        "snappy" => "snappy",
        "lz4" => "lz4",
        "zstd" => "zst",
        _ => return Some(compression.to_string()),
    };
    Some(hadoop.to_string())
}

/// The extension of a data file, leading dot included (Java `DataFilePathFactory.makeExtension`):
/// text formats (`csv`, `json`) always name their compression after the format
/// (`.csv.gz`), other formats before it (`.zst.parquet`) only with
/// `file.suffix.include.compression`; `.parquet` otherwise.
pub fn data_file_extension(
    format: &str,
    compression: &str,
    suffix_include_compression: bool,
) -> String {
    let text = format.eq_ignore_ascii_case("json") || format.eq_ignore_ascii_case("csv");
    match compression_extension(compression) {
        Some(c) if text => format!(".{format}.{c}"),
        Some(c) if suffix_include_compression => format!(".{c}.{format}"),
        _ => format!(".{format}"),
    }
}

/// Names of the data and changelog files one writer creates in one bucket (Java
/// `DataFilePathFactory`): `<prefix><uuid>-<n><extension>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFileNames {
    data_prefix: String,
    changelog_prefix: String,
    extension: String,
}

impl DataFileNames {
    /// Names with the default prefixes (`data-`, `changelog-`) and `extension` (see
    /// [`data_file_extension`]).
    pub fn new(extension: impl Into<String>) -> Self {
        DataFileNames {
            data_prefix: super::DATA_FILE_PREFIX.to_string(),
            changelog_prefix: super::CHANGELOG_FILE_PREFIX.to_string(),
            extension: extension.into(),
        }
    }

    /// Names for a table with `file.format`, `file.compression`,
    /// `file.suffix.include.compression`, `data-file.prefix` and `changelog-file.prefix`.
    pub fn from_options(o: &crate::options::CoreOptions) -> Self {
        DataFileNames {
            data_prefix: o.data_file_prefix.clone(),
            changelog_prefix: o.changelog_file_prefix.clone(),
            extension: data_file_extension(
                &o.file_format,
                &o.file_compression,
                o.file_suffix_include_compression,
            ),
        }
    }

    /// With `data-file.prefix`.
    pub fn with_data_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.data_prefix = prefix.into();
        self
    }

    /// With `changelog-file.prefix`.
    pub fn with_changelog_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.changelog_prefix = prefix.into();
        self
    }

    /// The extension, leading dot included.
    pub fn extension(&self) -> &str {
        &self.extension
    }

    /// `data-<uuid>-<n><ext>`.
    pub fn data_file(&self, uuid: &str, n: u64) -> String {
        format!("{}{uuid}-{n}{}", self.data_prefix, self.extension)
    }

    /// `changelog-<uuid>-<n><ext>`.
    pub fn changelog_file(&self, uuid: &str, n: u64) -> String {
        format!("{}{uuid}-{n}{}", self.changelog_prefix, self.extension)
    }

    /// `data-<uuid>-<n>.blob` (blob columns' files).
    pub fn blob_file(&self, uuid: &str, n: u64) -> String {
        format!("{}{uuid}-{n}.blob", self.data_prefix)
    }
}
