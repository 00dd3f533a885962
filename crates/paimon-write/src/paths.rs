//! Where a bucket writer puts its files (Java `DataFilePathFactory`): one random UUID per
//! writer and a counter; names and directories come from [`paimon_spec::layout`]. With
//! external data paths, each new file goes under the next external root in turn (Java
//! `RoundRobinExternalPathProvider`, starting at a random root), in the bucket's directory below
//! it.

use paimon_spec::layout::{join, DataFileNames};

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
