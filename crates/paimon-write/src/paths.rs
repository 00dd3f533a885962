//! Where a bucket writer puts its files (Java `DataFilePathFactory`): one random UUID per
//! writer and a counter; names and directories come from [`paimon_spec::layout`].

use paimon_spec::layout::{join, DataFileNames};

/// Names the data files of one bucket writer.
#[derive(Debug, Clone)]
pub struct DataFilePathFactory {
    bucket_dir: String,
    names: DataFileNames,
    uuid: String,
    next: u64,
    changelog: bool,
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
        }
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
        join(&self.bucket_dir, &name)
    }

    /// The path of a file this factory named.
    pub fn path_of(&self, file_name: &str) -> String {
        join(&self.bucket_dir, file_name)
    }
}
