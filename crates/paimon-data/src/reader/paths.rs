//! Locating a split's files under the table directory.
//!
//! Splits carry absolute paths as the planner saw them (`bucket_path`, `DeletionFile.path`,
//! `_EXTERNAL_PATH`). A worker may see the table at another location (a copied table, another
//! mount, another scheme), so a path under the table directory is used as-is and any other is
//! re-rooted at the table path: the bucket directory by its last `partition keys + 1` segments,
//! index files by name under `index/` or the bucket directory.
//!
//! Path policy (the one rule of [`paimon_spec::layout::TableRoots`]): a split never makes the
//! reader open a file outside the table directory and the table's external roots
//! ([`roots`]: `data-file.external-paths` and the reader's path-rewrite targets). Checked
//! before any I/O, each refusal is [`paimon_spec::Error::PathNotAllowed`] naming the field:
//! - `DataSplit.bucket_path`: a path under the table must lie strictly below it with no `..`
//!   segment; any other is re-rooted by its last segments, each one plain name;
//! - `DataFileMeta.fileName`: one plain name in the bucket directory;
//! - `_EXTERNAL_PATH`: under the table or an external root, or the split is refused;
//! - `DeletionFile.path`: opened as given only under an external root (index files may sit
//!   beside external data files); otherwise looked up by name in the table's `index/`
//!   directory, then the bucket directory. A path with a `..` segment, or one outside every
//!   root whose name is not an index file's (`index-…`), is refused.

use paimon_io::{file_name, join, FileIO};
use paimon_spec::layout::{self, TableLayout, TableRoots};
use paimon_spec::options::CoreOptions;
use paimon_spec::schema::TableSchema;

use super::ReadOptions;
use crate::error::{Error, Result};

/// Field name of a split's bucket directory in refusals.
pub(crate) const BUCKET_PATH: &str = "DataSplit.bucket_path";
/// Field name of a data file's name in refusals.
pub(crate) const FILE_NAME: &str = "DataFileMeta.fileName";
/// Field name of a data file's external path in refusals (Java's `_EXTERNAL_PATH`).
pub(crate) const EXTERNAL_PATH: &str = "_EXTERNAL_PATH";
/// Field name of a deletion file's path in refusals.
pub(crate) const DELETION_FILE_PATH: &str = "DeletionFile.path";

/// Strips `file:` / `file://` so local paths compare equal.
fn normalize(p: &str) -> &str {
    let p = p
        .strip_prefix("file://")
        .or_else(|| p.strip_prefix("file:"))
        .unwrap_or(p);
    p.trim_end_matches('/')
}

/// A refusal of the path rule, reported against the table at `table_path`.
fn refused(table_path: &str, e: paimon_spec::Error) -> Error {
    Error::spec(table_path, e)
}

/// Where the files of a split of the table at `table_path` (schema `table`) may lie: the table
/// directory, its `data-file.external-paths`, and the targets of the reader's
/// [`ReadOptions::path_rewrites`] (the caller's own configuration).
///
/// # Errors
/// [`Error::Spec`] when the table's options do not parse.
pub(crate) fn roots(
    table_path: &str,
    table: &TableSchema,
    options: &ReadOptions,
) -> Result<TableRoots> {
    let core = CoreOptions::try_new(&table.options).map_err(|e| Error::spec(table_path, e))?;
    let mut external = core.data_file_external_paths;
    external.extend(
        options
            .path_rewrites
            .iter()
            .map(|(_, to)| resolve_parent_segments(to)),
    );
    Ok(TableRoots::new(&resolve_parent_segments(table_path)).with_external(&external))
}

/// `path` with its `..` segments resolved lexically, for the roots the caller gives (the
/// table path, path-rewrite targets): the rule refuses `..` in a root, but a caller's own
/// path (`crate/../testdata/t`) is trusted as it reads. Paths from splits are never resolved.
pub(crate) fn resolve_parent_segments(path: &str) -> String {
    if !path.split('/').any(|s| s == "..") {
        return path.to_string();
    }
    let start = match path.find("://") {
        Some(i) => path[i + 3..].find('/').map_or(path.len(), |j| i + 3 + j),
        None => 0,
    };
    let (prefix, rest) = path.split_at(start);
    let mut kept: Vec<&str> = Vec::new();
    for seg in rest.split('/') {
        match seg {
            ".." => {
                kept.pop();
            }
            "" | "." => {}
            s => kept.push(s),
        }
    }
    let lead = if rest.starts_with('/') { "/" } else { "" };
    let trail = if rest.ends_with('/') && !kept.is_empty() {
        "/"
    } else {
        ""
    };
    format!("{prefix}{lead}{}{trail}", kept.join("/"))
}

/// The bucket directory of a split under `table_path`, a table of schema `table` (its
/// partition keys and `data-file.path-directory`).
///
/// # Errors
/// [`paimon_spec::Error::PathNotAllowed`] (in [`Error::Spec`]) naming `DataSplit.bucket_path`
/// when a followed segment (below the table, or the last ones of another path) is not a plain
/// name: `..`, or one holding `\`.
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
    if let Some(rest) = relative_to(table_path, bucket_path) {
        if rest.is_empty() {
            let e = paimon_spec::Error::PathNotAllowed {
                field: BUCKET_PATH.into(),
                path: bucket_path.into(),
                reason: "the table directory itself is no bucket directory".into(),
            };
            return Err(refused(table_path, e));
        }
        for s in rest.split('/').filter(|s| !s.is_empty() && *s != ".") {
            check_segment(table_path, bucket_path, s)?;
        }
        return Ok(bucket_path.to_string());
    }
    if let Some(d) = path_directory {
        layout::check_relative_dir("data-file.path-directory", d)
            .map_err(|e| refused(table_path, e))?;
    }
    let segs: Vec<&str> = normalize(bucket_path)
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let keep = segs.len().min(partition_keys + 1);
    let mut dir = TableLayout::new(table_path).data_root(path_directory);
    for s in &segs[segs.len() - keep..] {
        check_segment(table_path, bucket_path, s)?;
        dir = join(&dir, s);
    }
    Ok(dir)
}

/// Refuses a followed segment of `bucket_path` that is not a plain name, naming the whole path.
fn check_segment(table_path: &str, bucket_path: &str, segment: &str) -> Result<()> {
    layout::check_file_name(BUCKET_PATH, segment).map_err(|_| {
        let e = paimon_spec::Error::PathNotAllowed {
            field: BUCKET_PATH.into(),
            path: bucket_path.into(),
            reason: format!("its segment {segment:?} is not a plain directory name"),
        };
        refused(table_path, e)
    })
}

/// A data file's path: its external path when that exists, else `bucket_dir/file_name`.
///
/// # Errors
/// [`paimon_spec::Error::PathNotAllowed`] (in [`Error::Spec`]) when `file` is not a single
/// name or `external` lies outside `roots`; [`Error::Io`] when existence cannot be checked.
pub(crate) fn data_file(
    io: &dyn FileIO,
    table_path: &str,
    roots: &TableRoots,
    bucket_dir: &str,
    file: &str,
    external: Option<&str>,
) -> Result<String> {
    layout::check_file_name(FILE_NAME, file).map_err(|e| refused(table_path, e))?;
    if let Some(ext) = external {
        check(table_path, roots, EXTERNAL_PATH, ext)?;
        if exists(io, ext)? {
            return Ok(ext.to_string());
        }
    }
    Ok(join(bucket_dir, file))
}

/// Where a deletion-vector index file named by a split may be, in the order they are tried:
/// the path as given when it lies under an external root, `table/index/<name>`, then
/// `bucket_dir/<name>` (see the module doc).
///
/// # Errors
/// [`paimon_spec::Error::PathNotAllowed`] (in [`Error::Spec`]) naming `DeletionFile.path`
/// when the name is not a single name, the path has a `..` segment, or it lies outside every
/// root with a name that is not an index file's.
pub(crate) fn index_candidates(
    table_path: &str,
    roots: &TableRoots,
    bucket_dir: &str,
    path: &str,
) -> Result<Vec<String>> {
    let name = file_name(path);
    layout::check_file_name(DELETION_FILE_PATH, name).map_err(|e| refused(table_path, e))?;
    let mut out = Vec::with_capacity(3);
    match check(table_path, roots, DELETION_FILE_PATH, path) {
        Ok(()) => {
            // Inside the table only the index and bucket directories hold index files.
            let in_table = relative_to(table_path, path).is_some()
                || roots.check_in_table(DELETION_FILE_PATH, path).is_ok();
            if !in_table {
                out.push(path.to_string());
            }
        }
        Err(e) => {
            let climbs = path.split(['/', '\\']).any(|s| s == "..") || path.contains('\0');
            if climbs || !name.starts_with(layout::INDEX_PREFIX) {
                return Err(e);
            }
        }
    }
    out.push(TableLayout::new(table_path).index_path(name));
    out.push(join(bucket_dir, name));
    Ok(out)
}

/// A deletion-vector index file: the first of [`index_candidates`] that exists.
///
/// # Errors
/// As [`index_candidates`]; [`Error::NotFound`] when none exists.
pub(crate) fn index_file(
    io: &dyn FileIO,
    table_path: &str,
    roots: &TableRoots,
    bucket_dir: &str,
    path: &str,
) -> Result<String> {
    for c in index_candidates(table_path, roots, bucket_dir, path)? {
        if exists(io, &c)? {
            return Ok(c);
        }
    }
    Err(Error::NotFound {
        path: path.to_string(),
    })
}

/// The part of `path` inside `table`, when `path` is `table` or lies inside it (segment-wise:
/// `/t/ab` is not inside `/t/a`).
fn relative_to<'a>(table: &str, path: &'a str) -> Option<&'a str> {
    let table = normalize(table);
    let rest = normalize(path).strip_prefix(table)?;
    (!table.is_empty() && (rest.is_empty() || rest.starts_with('/'))).then_some(rest)
}

/// Checks that `path` (from `field`) lies strictly below the table, as the caller wrote its
/// path (`table_path`) with no `..` below it, or under one of `roots` by the rule.
pub(crate) fn check(table_path: &str, roots: &TableRoots, field: &str, path: &str) -> Result<()> {
    let below = relative_to(table_path, path)
        .is_some_and(|rest| !rest.is_empty() && !rest.split('/').any(|s| s == ".."));
    if below && !path.contains('\0') {
        return Ok(());
    }
    roots.check(field, path).map_err(|e| refused(table_path, e))
}

fn exists(io: &dyn FileIO, path: &str) -> Result<bool> {
    io.exists(path).map_err(|e| Error::io(path, e))
}

/// The size of the data file at `path`, after its status shows a regular file with bytes: a
/// directory, and a path of size 0 (a FIFO or a device such as `/dev/zero` reports 0, and no
/// data file format fits in 0 bytes), is refused from its status, never opened (opening a
/// FIFO waits for a writer forever, a device never ends).
///
/// # Errors
/// [`Error::Io`] when the status cannot be read; [`Error::Corrupt`] naming `path` when it is
/// not a regular file with bytes.
pub(crate) fn data_file_size(io: &dyn FileIO, path: &str) -> Result<u64> {
    let status = io.status(path).map_err(|e| Error::io(path, e))?;
    if status.is_dir {
        return Err(Error::corrupt(
            path,
            "the data file is a directory, not a regular file",
        ));
    }
    if status.size == 0 {
        return Err(Error::corrupt(
            path,
            "the data file has 0 bytes: empty, or not a regular file (a FIFO or a device)",
        ));
    }
    Ok(status.size)
}
