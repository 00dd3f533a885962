//! Where a writer puts its files (Java `DataFilePathFactory`): one random UUID per bucket
//! writer and a counter, `<prefix><uuid>-<n>.<ext>` inside the bucket directory.

use paimon_io::join;

/// Names the data files of one bucket writer.
#[derive(Debug, Clone)]
pub struct DataFilePathFactory {
    bucket_dir: String,
    prefix: String,
    uuid: String,
    extension: String,
    next: u64,
}

impl DataFilePathFactory {
    /// A factory for files in `bucket_dir` named `<prefix><uuid>-<n>.<extension>`.
    pub fn new(bucket_dir: String, prefix: &str, extension: &str) -> Self {
        DataFilePathFactory {
            bucket_dir,
            prefix: prefix.to_string(),
            uuid: uuid::Uuid::new_v4().to_string(),
            extension: extension.to_string(),
            next: 0,
        }
    }

    /// The next file's path.
    pub fn new_path(&mut self) -> String {
        let name = format!(
            "{}{}-{}.{}",
            self.prefix, self.uuid, self.next, self.extension
        );
        self.next += 1;
        join(&self.bucket_dir, &name)
    }

    /// The path of a file this factory named.
    pub fn path_of(&self, file_name: &str) -> String {
        join(&self.bucket_dir, file_name)
    }
}
