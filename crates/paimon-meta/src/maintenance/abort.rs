//! Deleting the files of commit messages that will not be committed (Java
//! `FileStoreCommitImpl.abort`): a writer or a compaction task that finished while another
//! failed leaves no orphans behind.

use paimon_spec::data_file::DataFileMeta;
use paimon_split::commit::CommitMessage;

use super::Files;
use crate::error::{Error, Result};
use crate::table::Table;

/// Deletes every file `messages` added: new data and changelog files (with their extra files),
/// compaction outputs and their changelog, and new index files. Files the messages delete or
/// compact away are committed files and are left alone, and so is a compaction output that
/// is also among its inputs (an upgrade moves a committed file to another level under the
/// same name). Returns how many files were removed; files already gone are skipped.
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
        let c = &m.compact_increment;
        let upgraded =
            |f: &&DataFileMeta| c.compact_before.iter().any(|b| b.file_name == f.file_name);
        let compacted = c.compact_after.iter().filter(|f| !upgraded(f));
        let data = m
            .data_increment
            .new_files
            .iter()
            .chain(&m.data_increment.changelog_files)
            .chain(compacted)
            .chain(&c.changelog_files);
        for f in data {
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
