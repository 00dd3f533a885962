//! Deleting the files of commit messages that will not be committed (Java
//! `FileStoreCommitImpl.abort`): a writer or a compaction task that finished while another
//! failed leaves no orphans behind.

use paimon_split::commit::CommitMessage;

use super::Files;
use crate::error::{Error, Result};
use crate::table::Table;

/// Deletes every file `messages` added: new data and changelog files (with their extra files),
/// compaction outputs and their changelog, and new index files. Files the messages delete or
/// compact away are committed files and are left alone. Returns how many files were removed;
/// files already gone are skipped.
///
/// The messages must never have been committed (as Java's `TableCommit.abort`): aborting a
/// committed message deletes files a snapshot references.
///
/// # Errors
/// A partition the table cannot name a directory for; storage errors other than not-found.
pub fn abort_messages(table: &Table, messages: &[CommitMessage]) -> Result<usize> {
    let files = Files::new(table);
    let mut paths = Vec::new();
    for m in messages {
        let context = format!("aborting a message of bucket {}", m.bucket);
        let data = [
            &m.data_increment.new_files,
            &m.data_increment.changelog_files,
            &m.compact_increment.compact_after,
            &m.compact_increment.changelog_files,
        ];
        for f in data.into_iter().flatten() {
            let (path, extras) = files.data_file_paths(&m.partition, m.bucket, f, &context)?;
            paths.push(path);
            paths.extend(extras);
        }
        let index = [
            &m.data_increment.new_index_files,
            &m.compact_increment.new_index_files,
        ];
        for f in index.into_iter().flatten() {
            let external = f.external_path.as_deref();
            paths.push(files.index_file_path(
                &m.partition,
                m.bucket,
                external,
                &f.file_name,
                &context,
            )?);
        }
    }
    let mut removed = 0;
    for p in paths {
        if table.file_io().delete(&p).map_err(Error::io)? {
            removed += 1;
        }
    }
    Ok(removed)
}
