//! The paths a commit message names (issue 39): before anything is written, every data file,
//! extra file, changelog file and index file of every message must be one plain file name, and
//! every external path (`_EXTERNAL_PATH`) must lie below the table directory or one of the
//! table's `data-file.external-paths` roots ([`paimon_spec::layout::TableRoots`]). A file a
//! commit accepts is one that expiry, overwrite and abort may later delete, so a message naming
//! `../x` or `/elsewhere` is refused here, naming the field and the file.

use paimon_spec::data_file::DataFileMeta;
use paimon_spec::index_file::IndexFileMeta;
use paimon_spec::layout::{check_file_name, TableRoots};
use paimon_split::commit::CommitMessage;

/// Checks every path of every message against `roots`.
///
/// # Errors
/// [`paimon_spec::Error::PathNotAllowed`] for the first file name or external path that breaks
/// the rule, its field naming the message (by position and bucket), the increment and the file.
pub fn check_message_paths(
    roots: &TableRoots,
    messages: &[CommitMessage],
) -> paimon_spec::Result<()> {
    for (i, m) in messages.iter().enumerate() {
        let at = format!("commit message {i} (bucket {})", m.bucket);
        let d = &m.data_increment;
        let c = &m.compact_increment;
        let data: [(&str, &[DataFileMeta]); 5] = [
            ("newFiles", &d.new_files),
            ("deletedFiles", &d.deleted_files),
            ("changelogFiles", &d.changelog_files),
            ("compactBefore", &c.compact_before),
            ("compactAfter", &c.compact_after),
        ];
        for (field, files) in data {
            check_data_files(roots, &format!("{at} {field}"), files)?;
        }
        check_data_files(
            roots,
            &format!("{at} compactChangelogFiles"),
            &c.changelog_files,
        )?;
        let index: [(&str, &[IndexFileMeta]); 4] = [
            ("newIndexFiles", &d.new_index_files),
            ("deletedIndexFiles", &d.deleted_index_files),
            ("compactNewIndexFiles", &c.new_index_files),
            ("compactDeletedIndexFiles", &c.deleted_index_files),
        ];
        for (field, files) in index {
            check_index_files(roots, &format!("{at} {field}"), files)?;
        }
    }
    Ok(())
}

/// Checks the names, extra files and external path of data files listed under `field`.
///
/// # Errors
/// As [`check_message_paths`].
pub fn check_data_files(
    roots: &TableRoots,
    field: &str,
    files: &[DataFileMeta],
) -> paimon_spec::Result<()> {
    for (j, f) in files.iter().enumerate() {
        check_data_file(roots, &format!("{field}[{j}]"), f)?;
    }
    Ok(())
}

/// Checks one data file's name, extra files and external path; `field` names where it is.
///
/// # Errors
/// As [`check_message_paths`].
pub fn check_data_file(
    roots: &TableRoots,
    field: &str,
    f: &DataFileMeta,
) -> paimon_spec::Result<()> {
    check_file_name(&format!("{field}._FILE_NAME"), &f.file_name)?;
    for (k, x) in f.extra_files.iter().enumerate() {
        check_file_name(&format!("{field}._EXTRA_FILES[{k}]"), x)?;
    }
    if let Some(p) = &f.external_path {
        roots.check(&format!("{field}._EXTERNAL_PATH"), p)?;
    }
    Ok(())
}

/// Checks the names and external paths of index files listed under `field`, and the data file
/// names their deletion vectors are keyed by.
///
/// # Errors
/// As [`check_message_paths`].
pub fn check_index_files(
    roots: &TableRoots,
    field: &str,
    files: &[IndexFileMeta],
) -> paimon_spec::Result<()> {
    for (j, f) in files.iter().enumerate() {
        check_index_file(roots, &format!("{field}[{j}]"), f)?;
    }
    Ok(())
}

/// Checks one index file's name, external path and deletion-vector data file names.
///
/// # Errors
/// As [`check_message_paths`].
pub fn check_index_file(
    roots: &TableRoots,
    field: &str,
    f: &IndexFileMeta,
) -> paimon_spec::Result<()> {
    check_file_name(&format!("{field}._FILE_NAME"), &f.file_name)?;
    if let Some(p) = &f.external_path {
        roots.check(&format!("{field}._EXTERNAL_PATH"), p)?;
    }
    for (k, dv) in f.dv_ranges.iter().flatten().enumerate() {
        check_file_name(
            &format!("{field}._DELETIONS_VECTORS_RANGES[{k}].f0"),
            &dv.data_file_name,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
