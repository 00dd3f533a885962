//! Every path of a table, written once for both planes (Java `FileStorePathFactory`,
//! `DataFilePathFactory`, `SnapshotManager`, `SchemaManager`, `TagManager`, `ChangelogManager`,
//! `BranchManager`, `HintFileUtils`, `PartitionPathUtils`).
//!
//! Pure functions over path strings, no I/O. A table's data, manifest, index and statistics
//! directories sit at the table root and are shared by all branches; schemas, snapshots,
//! changelogs and tags belong to a branch ([`BranchLayout`]), whose root is the table root for
//! `main` and `<table>/branch/branch-<name>` otherwise.
//!
//! ```text
//! <table>/schema/schema-0                  <table>/manifest/manifest-<uuid>-<n>
//! <table>/snapshot/{snapshot-N,LATEST,EARLIEST}  <table>/manifest/manifest-list-<uuid>-<n>
//! <table>/changelog/changelog-N            <table>/manifest/index-manifest-<uuid>-<n>
//! <table>/tag/tag-T                        <table>/index/index-<uuid>-<n>
//! <table>/branch/branch-B/{schema,snapshot,tag,changelog}/...
//! <table>/[data-file.path-directory/]k1=v1/k2=v2/bucket-N/data-<uuid>-<n>.parquet
//! ```

mod confine;
mod format_table;
mod names;
mod partition;

pub use confine::{check_external_root, check_file_name, check_relative_dir, TableRoots};
pub use format_table::{
    format_partition_dir, is_format_data_dir, is_format_data_file, parse_format_partition_dir,
    FORMAT_TABLE_TEMP_DIR, PARTITION_PATH_ONLY_VALUE,
};

pub use names::{
    compression_extension, data_file_extension, data_file_index_name, index_file_name,
    index_manifest_file_name, manifest_file_name, manifest_list_file_name, statistics_file_name,
    DataFileNames,
};
pub use partition::{
    escape_path_name, local_date_time, partition_path, partition_path_of_text, partition_spec_text,
    partition_value_text,
};

/// `schema` directory of a branch.
pub const SCHEMA_DIR: &str = "schema";
/// Prefix of schema files (`schema-<id>`).
pub const SCHEMA_PREFIX: &str = "schema-";
/// `snapshot` directory of a branch.
pub const SNAPSHOT_DIR: &str = "snapshot";
/// Prefix of snapshot files (`snapshot-<id>`).
pub const SNAPSHOT_PREFIX: &str = "snapshot-";
/// Hint file holding the latest snapshot id.
pub const LATEST: &str = "LATEST";
/// Hint file holding the earliest snapshot id.
pub const EARLIEST: &str = "EARLIEST";
/// `changelog` directory of a branch (long-lived changelogs).
pub const CHANGELOG_DIR: &str = "changelog";
/// Prefix of long-lived changelog files (`changelog-<snapshot id>`).
pub const CHANGELOG_PREFIX: &str = "changelog-";
/// `tag` directory of a branch.
pub const TAG_DIR: &str = "tag";
/// Prefix of tag files (`tag-<name>`).
pub const TAG_PREFIX: &str = "tag-";
/// `consumer` directory of a branch.
pub const CONSUMER_DIR: &str = "consumer";
/// Prefix of consumer files (`consumer-<id>`, Java `ConsumerManager.CONSUMER_PREFIX`).
pub const CONSUMER_PREFIX: &str = "consumer-";
/// `branch` directory of a table.
pub const BRANCH_DIR: &str = "branch";
/// Prefix of branch directories (`branch-<name>`).
pub const BRANCH_PREFIX: &str = "branch-";
/// Name of the default branch (Java `Identifier.DEFAULT_MAIN_BRANCH`).
pub const MAIN_BRANCH: &str = "main";
/// `manifest` directory of a table.
pub const MANIFEST_DIR: &str = "manifest";
/// Prefix of manifest files.
pub const MANIFEST_PREFIX: &str = "manifest-";
/// Prefix of manifest lists.
pub const MANIFEST_LIST_PREFIX: &str = "manifest-list-";
/// Prefix of index manifests.
pub const INDEX_MANIFEST_PREFIX: &str = "index-manifest-";
/// `index` directory of a table (deletion vectors, hash indexes).
pub const INDEX_DIR: &str = "index";
/// Prefix of index files.
pub const INDEX_PREFIX: &str = "index-";
/// `statistics` directory of a table.
pub const STATISTICS_DIR: &str = "statistics";
/// Prefix of statistics files.
pub const STATISTICS_PREFIX: &str = "stat-";
/// Prefix of bucket directories.
pub const BUCKET_PREFIX: &str = "bucket-";
/// Bucket number of postpone-bucket tables (Java `BucketMode.POSTPONE_BUCKET`).
pub const POSTPONE_BUCKET: i32 = -2;
/// Default `data-file.prefix`.
pub const DATA_FILE_PREFIX: &str = "data-";
/// Default `changelog-file.prefix`.
pub const CHANGELOG_FILE_PREFIX: &str = "changelog-";
/// Suffix of a data file's sidecar file index (Java `DataFilePathFactory.INDEX_PATH_SUFFIX`).
pub const DATA_FILE_INDEX_SUFFIX: &str = ".index";
/// Default `partition.default-name`, the directory value of a null or blank partition value.
pub const DEFAULT_PARTITION_NAME: &str = "__DEFAULT_PARTITION__";

/// `dir/name`, with one `/` between them; `name` alone when `dir` is empty.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        return name.to_string();
    }
    format!(
        "{}/{}",
        dir.trim_end_matches('/'),
        name.trim_start_matches('/')
    )
}

/// The numeric id of a file named `<prefix><id>` (e.g. `snapshot-7` with [`SNAPSHOT_PREFIX`]).
pub fn parse_id(prefix: &str, file_name: &str) -> Option<i64> {
    let digits = file_name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The directory name of `bucket`: `bucket-N`, or `bucket-postpone` for [`POSTPONE_BUCKET`]
/// (Java `FileStorePathFactory.relativeBucketPath`).
pub fn bucket_dir_name(bucket: i32) -> String {
    if bucket == POSTPONE_BUCKET {
        format!("{BUCKET_PREFIX}postpone")
    } else {
        format!("{BUCKET_PREFIX}{bucket}")
    }
}

/// The bucket number of a bucket directory name (inverse of [`bucket_dir_name`]).
pub fn parse_bucket_dir_name(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(BUCKET_PREFIX)?;
    if rest == "postpone" {
        return Some(POSTPONE_BUCKET);
    }
    rest.parse().ok()
}

/// Root of `branch` of the table at `table_root` (Java `BranchManager.branchPath`): the table
/// root for `main` (or a blank name, which Java normalizes to `main`).
pub fn branch_root(table_root: &str, branch: &str) -> String {
    if branch.trim().is_empty() || branch == MAIN_BRANCH {
        table_root.to_string()
    } else {
        join(
            &join(table_root, BRANCH_DIR),
            &format!("{BRANCH_PREFIX}{branch}"),
        )
    }
}

/// The table-wide directories (shared by all branches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableLayout {
    root: String,
}

impl TableLayout {
    /// The layout of the table at `root` (a trailing `/` is dropped).
    pub fn new(root: &str) -> Self {
        let trimmed = root.trim_end_matches('/');
        TableLayout {
            root: if trimmed.is_empty() && !root.is_empty() {
                "/".to_string()
            } else {
                trimmed.to_string()
            },
        }
    }

    /// The table root.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The layout of `branch` (`main` gives the table root).
    pub fn branch(&self, branch: &str) -> BranchLayout {
        BranchLayout {
            root: branch_root(&self.root, branch),
        }
    }

    /// `branch/`, holding one directory per branch.
    pub fn branch_dir(&self) -> String {
        join(&self.root, BRANCH_DIR)
    }

    /// `manifest/`: manifests, manifest lists and index manifests of every branch.
    pub fn manifest_dir(&self) -> String {
        join(&self.root, MANIFEST_DIR)
    }

    /// `manifest/<name>` (a manifest, manifest list or index manifest).
    pub fn manifest_path(&self, name: &str) -> String {
        join(&self.manifest_dir(), name)
    }

    /// `index/`: index files (deletion vectors, hash indexes) unless
    /// `index-file-in-data-file-dir`.
    pub fn index_dir(&self) -> String {
        join(&self.root, INDEX_DIR)
    }

    /// `index/<name>`.
    pub fn index_path(&self, name: &str) -> String {
        join(&self.index_dir(), name)
    }

    /// `statistics/`.
    pub fn statistics_dir(&self) -> String {
        join(&self.root, STATISTICS_DIR)
    }

    /// `statistics/<name>`.
    pub fn statistics_path(&self, name: &str) -> String {
        join(&self.statistics_dir(), name)
    }

    /// Root of the data files: the table root, or `data-file.path-directory` under it.
    pub fn data_root(&self, data_file_path_directory: Option<&str>) -> String {
        match data_file_path_directory {
            Some(d) => join(&self.root, d),
            None => self.root.clone(),
        }
    }

    /// A bucket directory: `[data-dir/]<partition path>bucket-N`, where `partition_path` is
    /// [`partition_path`]'s `k=v/` text (empty for unpartitioned tables).
    pub fn bucket_dir(
        &self,
        data_file_path_directory: Option<&str>,
        partition_path: &str,
        bucket: i32,
    ) -> String {
        join(
            &self.data_root(data_file_path_directory),
            &relative_bucket_path(partition_path, bucket),
        )
    }
}

/// `<partition path>bucket-N`, the part of a bucket directory below the data root; also the
/// part below each external path (Java `relativeBucketPath`).
pub fn relative_bucket_path(partition_path: &str, bucket: i32) -> String {
    format!("{partition_path}{}", bucket_dir_name(bucket))
}

/// A data file's directory under an external path (`data-file.external-paths`): Java's
/// external path providers put `<partition path>bucket-N/` under the chosen external root.
pub fn external_bucket_dir(external_root: &str, partition_path: &str, bucket: i32) -> String {
    join(external_root, &relative_bucket_path(partition_path, bucket))
}

/// The per-branch directories: schemas, snapshots with their hints, changelogs, tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchLayout {
    root: String,
}

impl BranchLayout {
    /// The layout of a branch whose root directory is `branch_root` (see [`branch_root`]).
    pub fn at(branch_root: &str) -> Self {
        BranchLayout {
            root: branch_root.to_string(),
        }
    }

    /// The branch root.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// `schema/`.
    pub fn schema_dir(&self) -> String {
        join(&self.root, SCHEMA_DIR)
    }

    /// `schema/schema-<id>`.
    pub fn schema_path(&self, id: i64) -> String {
        join(&self.schema_dir(), &format!("{SCHEMA_PREFIX}{id}"))
    }

    /// `snapshot/`.
    pub fn snapshot_dir(&self) -> String {
        join(&self.root, SNAPSHOT_DIR)
    }

    /// `snapshot/snapshot-<id>`.
    pub fn snapshot_path(&self, id: i64) -> String {
        join(&self.snapshot_dir(), &format!("{SNAPSHOT_PREFIX}{id}"))
    }

    /// `snapshot/LATEST`.
    pub fn latest_hint(&self) -> String {
        join(&self.snapshot_dir(), LATEST)
    }

    /// `snapshot/EARLIEST`.
    pub fn earliest_hint(&self) -> String {
        join(&self.snapshot_dir(), EARLIEST)
    }

    /// `changelog/`.
    pub fn changelog_dir(&self) -> String {
        join(&self.root, CHANGELOG_DIR)
    }

    /// `changelog/changelog-<snapshot id>`.
    pub fn changelog_path(&self, id: i64) -> String {
        join(&self.changelog_dir(), &format!("{CHANGELOG_PREFIX}{id}"))
    }

    /// `changelog/LATEST`.
    pub fn changelog_latest_hint(&self) -> String {
        join(&self.changelog_dir(), LATEST)
    }

    /// `changelog/EARLIEST`.
    pub fn changelog_earliest_hint(&self) -> String {
        join(&self.changelog_dir(), EARLIEST)
    }

    /// `tag/`.
    pub fn tag_dir(&self) -> String {
        join(&self.root, TAG_DIR)
    }

    /// `tag/tag-<name>`.
    pub fn tag_path(&self, name: &str) -> String {
        join(&self.tag_dir(), &format!("{TAG_PREFIX}{name}"))
    }

    /// `consumer/`: one file per streaming consumer, `{"nextSnapshot": N}`.
    pub fn consumer_dir(&self) -> String {
        join(&self.root, CONSUMER_DIR)
    }

    /// `consumer/consumer-<id>`.
    pub fn consumer_path(&self, id: &str) -> String {
        join(&self.consumer_dir(), &format!("{CONSUMER_PREFIX}{id}"))
    }
}

#[cfg(test)]
mod tests;
