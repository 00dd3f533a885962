//! Locating a split's files under the table directory.
//!
//! Splits carry absolute paths as the planner saw them (`bucket_path`, `DeletionFile.path`,
//! `_EXTERNAL_PATH`). A worker may see the table at another location (a copied table, another
//! mount), so each path is used as-is when it exists and otherwise re-rooted at the table path:
//! the bucket directory by its last `partition keys + 1` segments, index files under `index/`
//! or the bucket directory.

use paimon_io::{file_name, join, FileIO};

use crate::error::{Error, Result};

/// Strips `file:` / `file://` so local paths compare equal.
fn normalize(p: &str) -> &str {
    let p = p
        .strip_prefix("file://")
        .or_else(|| p.strip_prefix("file:"))
        .unwrap_or(p);
    p.trim_end_matches('/')
}

/// The bucket directory of a split under `table_path`.
///
/// # Errors
/// [`Error::Io`] when existence cannot be checked.
pub(crate) fn bucket_dir(
    io: &dyn FileIO,
    table_path: &str,
    bucket_path: &str,
    partition_keys: usize,
    path_directory: Option<&str>,
) -> Result<String> {
    let table = normalize(table_path);
    let bp = normalize(bucket_path);
    if bp.starts_with(table) && !table.is_empty() {
        return Ok(bucket_path.to_string());
    }
    if !bp.is_empty() && exists(io, bucket_path)? {
        return Ok(bucket_path.to_string());
    }
    let segs: Vec<&str> = bp.split('/').filter(|s| !s.is_empty()).collect();
    let keep = segs.len().min(partition_keys + 1);
    let mut dir = table_path.trim_end_matches('/').to_string();
    if let Some(d) = path_directory {
        dir = join(&dir, d);
    }
    for s in &segs[segs.len() - keep..] {
        dir = join(&dir, s);
    }
    Ok(dir)
}

/// A data file's path: its external path when that exists, else `bucket_dir/file_name`.
///
/// # Errors
/// [`Error::Io`] when existence cannot be checked.
pub(crate) fn data_file(
    io: &dyn FileIO,
    bucket_dir: &str,
    file: &str,
    external: Option<&str>,
) -> Result<String> {
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
/// [`Error::NotFound`] when none exists.
pub(crate) fn index_file(
    io: &dyn FileIO,
    table_path: &str,
    bucket_dir: &str,
    path: &str,
) -> Result<String> {
    let name = file_name(path);
    let candidates = [
        path.to_string(),
        join(&join(table_path, "index"), name),
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

fn exists(io: &dyn FileIO, path: &str) -> Result<bool> {
    io.exists(path).map_err(|e| Error::io(path, e))
}
