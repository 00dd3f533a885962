//! Where a bucket writer puts its files (Java `DataFilePathFactory`): one random UUID per
//! writer and a counter; names and directories come from [`paimon_spec::layout`]. With
//! external data paths, each new file goes under the next external root in turn (Java
//! `RoundRobinExternalPathProvider`, starting at a random root), in the bucket's directory below
//! it.

use paimon_spec::binary::BinaryRow;
use paimon_spec::layout::{join, partition_path, DataFileNames, TableLayout};
use paimon_spec::options::CoreOptions;
use paimon_spec::types::DataField;

use crate::error::{Error, Result};

/// The directory of `bucket` of the partition whose serialized row is `partition` (of the
/// partition `fields`), in the table at `root` (`table` names it in errors): derived from the
/// values as the table writer derives it (Java `FileStorePathFactory.bucketPath`), never
/// taken from a path in a message or task.
///
/// # Errors
/// [`Error::Spec`] when the row does not decode; [`Error::InvalidPartition`] when its values
/// do not match `fields` or have no Java partition directory name.
pub fn bucket_dir_of(
    root: &str,
    table: &str,
    fields: &[DataField],
    core: &CoreOptions,
    partition: &[u8],
    bucket: i32,
) -> Result<String> {
    let types: Vec<_> = fields.iter().map(|f| f.data_type.clone()).collect();
    let row = BinaryRow::from_serialized(partition)?;
    let invalid = |reason: String| Error::InvalidPartition {
        table: table.to_string(),
        column: fields
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(","),
        reason,
    };
    if row.arity() != types.len() {
        return Err(invalid(format!(
            "the partition row has {} fields, the table {}",
            row.arity(),
            types.len()
        )));
    }
    let values = row.to_datums(&types)?;
    let part = partition_path(
        fields,
        &values,
        &core.partition_default_name,
        core.partition_legacy_name,
    )
    .ok_or_else(|| {
        invalid(format!(
            "values {values:?} have no Java partition directory name"
        ))
    })?;
    Ok(TableLayout::new(root).bucket_dir(None, &part, bucket))
}

/// Names the data files of one bucket writer.
#[derive(Debug, Clone)]
pub struct DataFilePathFactory {
    bucket_dir: String,
    names: DataFileNames,
    uuid: String,
    next: u64,
    changelog: bool,
    /// The bucket's directory under each external root, and the root last used.
    external: Option<(Vec<String>, usize)>,
}

impl DataFilePathFactory {
    /// A factory for files in `bucket_dir` named by `names`.
    pub fn new(bucket_dir: String, names: DataFileNames) -> Self {
        DataFilePathFactory {
            bucket_dir,
            names,
            uuid: uuid::Uuid::new_v4().to_string(),
            next: 0,
            changelog: false,
            external: None,
        }
    }

    /// Puts new files in `dirs` (the bucket's directory under each external root) in turn.
    pub fn with_external_dirs(mut self, dirs: Vec<String>) -> Self {
        if !dirs.is_empty() {
            let start = uuid::Uuid::new_v4().as_u128() as usize % dirs.len();
            self.external = Some((dirs, start));
        }
        self
    }

    /// Whether new files go to external roots (their metadata then carries the full path).
    pub fn is_external(&self) -> bool {
        self.external.is_some()
    }

    /// Names changelog files (`changelog-<uuid>-<n>`) instead of data files.
    pub fn for_changelog(mut self) -> Self {
        self.changelog = true;
        self
    }

    /// The next file's path.
    pub fn new_path(&mut self) -> String {
        let name = if self.changelog {
            self.names.changelog_file(&self.uuid, self.next)
        } else {
            self.names.data_file(&self.uuid, self.next)
        };
        self.next += 1;
        let external = self.external.as_mut().and_then(|(dirs, position)| {
            *position = (*position + 1) % dirs.len().max(1);
            dirs.get(*position)
        });
        join(external.unwrap_or(&self.bucket_dir), &name)
    }

    /// The path of a file this factory named.
    pub fn path_of(&self, file_name: &str) -> String {
        join(&self.bucket_dir, file_name)
    }
}
