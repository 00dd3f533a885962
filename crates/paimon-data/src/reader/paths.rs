//! Locating a split's files under the table directory.
//!
//! Splits carry absolute paths as the planner saw them (`bucket_path`, `DeletionFile.path`,
//! `_EXTERNAL_PATH`). A worker may see the table at another location (a copied table, another
//! mount, another scheme), so a path under the table directory is used as-is and any other is
//! re-rooted at the table path: the bucket directory by its last `partition keys + 1` segments,
//! index files by name under `index/` or the bucket directory.
//!
//! Path policy: a split never makes the reader open a file outside the table directory, except
//! through an explicit path: a data file's `_EXTERNAL_PATH` (the table's
//! `data-file.external-paths`) or a deletion file's path (index files may sit beside external
//! data files). What the reader derives from the split must stay inside: a `..` segment in the
//! followed part of a bucket path, or a data or index file name that is not a single name, is
//! [`Error::InvalidPath`].

use paimon_io::{file_name, join, FileIO};
use paimon_spec::layout::TableLayout;
use paimon_spec::schema::TableSchema;

use crate::error::{Error, Result};

/// Strips `file:` / `file://` so local paths compare equal.
fn normalize(p: &str) -> &str {
    let p = p
        .strip_prefix("file://")
        .or_else(|| p.strip_prefix("file:"))
        .unwrap_or(p);
    p.trim_end_matches('/')
}

/// The bucket directory of a split under `table_path`, a table of schema `table` (its partition
/// keys and `data-file.path-directory`).
///
/// # Errors
/// [`Error::InvalidPath`] when the part of the bucket path that is followed has a `..` segment.
pub(crate) fn bucket_dir(
    table_path: &str,
    bucket_path: &str,
    table: &TableSchema,
) -> Result<String> {
    let partition_keys = table.partition_keys.len();
    let path_directory = table
        .options
        .get("data-file.path-directory")
        .map(String::as_str);
    let bp = normalize(bucket_path);
    if let Some(rest) = relative_to(table_path, bucket_path) {
        check_no_parent_segments(bucket_path, rest, "the bucket path")?;
        return Ok(bucket_path.to_string());
    }
    let segs: Vec<&str> = bp
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let keep = segs.len().min(partition_keys + 1);
    check_no_parent_segments(
        bucket_path,
        &segs[segs.len() - keep..].join("/"),
        "the bucket path",
    )?;
    let mut dir = TableLayout::new(table_path).data_root(path_directory);
    for s in &segs[segs.len() - keep..] {
        dir = join(&dir, s);
    }
    Ok(dir)
}

/// A data file's path: its external path when that exists, else `bucket_dir/file_name`.
///
/// # Errors
/// [`Error::InvalidPath`] when `file` is not a single name; [`Error::Io`] when existence cannot
/// be checked.
pub(crate) fn data_file(
    io: &dyn FileIO,
    bucket_dir: &str,
    file: &str,
    external: Option<&str>,
) -> Result<String> {
    check_file_name(file)?;
    if let Some(ext) = external {
        if exists(io, ext)? {
            return Ok(ext.to_string());
        }
    }
    Ok(join(bucket_dir, file))
}

/// A deletion-vector index file: as given, else `table/index/<name>`, else in the bucket dir.
///
/// # Errors
/// [`Error::InvalidPath`] when the file name is not a single name; [`Error::NotFound`] when
/// none exists.
pub(crate) fn index_file(
    io: &dyn FileIO,
    table_path: &str,
    bucket_dir: &str,
    path: &str,
) -> Result<String> {
    let name = file_name(path);
    check_file_name(name)?;
    // Like `_EXTERNAL_PATH`, a deletion file's path is explicit: index files may sit beside
    // external data files (and path rewrites may point there through `..`).
    let candidates = [
        path.to_string(),
        table_index_candidate(table_path, path),
        join(bucket_dir, name),
    ];
    for c in &candidates {
        if exists(io, c)? {
            return Ok(c.clone());
        }
    }
    Err(Error::NotFound {
        path: path.to_string(),
    })
}

/// The second place [`index_file`] looks for the index file `path`: the table's index
/// directory.
pub(crate) fn table_index_candidate(table_path: &str, path: &str) -> String {
    TableLayout::new(table_path).index_path(file_name(path))
}

/// The part of `path` inside `table`, when `path` is `table` or lies inside it (segment-wise:
/// `/t/ab` is not inside `/t/a`).
fn relative_to<'a>(table: &str, path: &'a str) -> Option<&'a str> {
    let table = normalize(table);
    let rest = normalize(path).strip_prefix(table)?;
    (!table.is_empty() && (rest.is_empty() || rest.starts_with('/'))).then_some(rest)
}

/// Rejects a `..` segment in `part`, the part of `path` the reader would follow: a split path
/// must not climb out of the table directory.
fn check_no_parent_segments(path: &str, part: &str, what: &str) -> Result<()> {
    if part.split('/').any(|s| s == "..") {
        return Err(Error::InvalidPath {
            path: path.to_string(),
            reason: format!("{what} has a '..' segment (it may escape the table directory)"),
        });
    }
    Ok(())
}

/// A data or index file name must be one plain name: no separator, not `.` or `..`.
fn check_file_name(name: &str) -> Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\']) {
        return Err(Error::InvalidPath {
            path: name.to_string(),
            reason: "a file name in a split must be a single name under the table directory".into(),
        });
    }
    Ok(())
}

fn exists(io: &dyn FileIO, path: &str) -> Result<bool> {
    io.exists(path).map_err(|e| Error::io(path, e))
}
