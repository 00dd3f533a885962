//! Deleting the files of commit messages that will not be committed (Java
//! `FileStoreCommitImpl.abort`): a writer or a compaction task that finished while another
//! failed leaves no orphans behind.

use paimon_split::commit::CommitMessage;

use super::Files;
use crate::error::{Error, Result};
use crate::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
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
            let entry = ManifestEntry {
                kind: FileKind::Add,
                partition: m.partition.clone(),
                bucket: m.bucket,
                total_buckets: m.total_buckets.unwrap_or(0),
                file: Box::new(f.clone()),
            };
            let (path, extras) = files.data_paths(&entry, &context)?;
            paths.push(path);
            paths.extend(extras);
        }
        let index = [
            &m.data_increment.new_index_files,
            &m.compact_increment.new_index_files,
        ];
        for f in index.into_iter().flatten() {
            let entry = IndexManifestEntry {
                kind: FileKind::Add,
                partition: m.partition.clone(),
                bucket: m.bucket,
                index_file: crate::commit::index_file_meta(f),
            };
            paths.push(files.index_path(&entry, &context)?);
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
