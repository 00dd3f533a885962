//! The one rule for paths that arrive as bytes (commit messages, splits, compaction tasks,
//! manifests, table options): every file a table touches lies under the table's directory or
//! under one of the table's configured external roots (`data-file.external-paths`).
//!
//! Checks are lexical and strict, done before any I/O:
//! - a file name is one plain name (no `/`, `\`, NUL, not `.` or `..`);
//! - a path is compared segment by segment with the roots after dropping empty and `.`
//!   segments; a `..` segment below the root is refused outright (Java's writers never produce
//!   one, and resolving it lexically would still follow a symbolic link out of the root). The
//!   table root itself comes from the local user or catalog, not from bytes, so it may hold
//!   `..` (`../wh/db.db/t`): its segments are matched as written;
//! - scheme and bucket (the URL authority) must be the root's: `s3://other-bucket/t/x` is not
//!   under `s3://bucket/t`; `file:///t`, `file:/t` and `/t` are the same local path, and `s3a`
//!   and `s3n` are `s3`;
//! - a relative local path is only under a relative root, an absolute one only under an
//!   absolute root.
//!
//! Violations are [`Error::PathNotAllowed`], naming the field the path came from.

use crate::error::{Error, Result};

/// A path split into scheme, authority and plain segments.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Normalized {
    /// Lower-case scheme, `file` for local paths.
    scheme: String,
    /// The URL authority (an object store's bucket); empty for local paths.
    authority: String,
    /// Whether a local path starts at `/` (URLs are always absolute).
    absolute: bool,
    segments: Vec<String>,
}

/// `path` split into its parts, or why it cannot be.
fn normalize(path: &str) -> std::result::Result<Normalized, String> {
    normalize_with(path, false)
}

/// [`normalize`], keeping `..` segments as written when `keep_parent` (for a trusted root).
fn normalize_with(path: &str, keep_parent: bool) -> std::result::Result<Normalized, String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    if path.contains('\0') {
        return Err("the path holds a NUL byte".into());
    }
    let (scheme, authority, rest, absolute) = if let Some(i) = path.find("://") {
        let scheme = &path[..i];
        if scheme.is_empty()
            || !scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.')
        {
            return Err("the path has a malformed URL scheme".into());
        }
        let after = &path[i + 3..];
        let (authority, rest) = match after.find('/') {
            Some(j) => (&after[..j], &after[j..]),
            None => (after, ""),
        };
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "s3a" | "s3n" => "s3".to_string(),
            s => s.to_string(),
        };
        let authority = if scheme == "file" && authority == "localhost" {
            ""
        } else {
            authority
        };
        (scheme, authority.to_string(), rest, true)
    } else if let Some(rest) = path
        .get(..5)
        .filter(|p| p.eq_ignore_ascii_case("file:"))
        .map(|_| &path[5..])
    {
        (
            "file".to_string(),
            String::new(),
            rest,
            rest.starts_with('/'),
        )
    } else {
        (
            "file".to_string(),
            String::new(),
            path,
            path.starts_with('/'),
        )
    };
    let mut segments = Vec::new();
    for s in rest.split('/') {
        match s {
            "" | "." => {}
            ".." if !keep_parent => return Err("the path has a '..' segment".into()),
            s => segments.push(s.to_string()),
        }
    }
    Ok(Normalized {
        scheme,
        authority,
        absolute,
        segments,
    })
}

impl Normalized {
    /// Whether `self` lies strictly below `root`, with no `..` segment below it.
    fn is_below(&self, root: &Normalized) -> bool {
        self.scheme == root.scheme
            && self.authority == root.authority
            && self.absolute == root.absolute
            && self.segments.len() > root.segments.len()
            && self.segments.starts_with(&root.segments)
            && !self.segments[root.segments.len()..]
                .iter()
                .any(|s| s == "..")
    }
}

fn not_allowed(field: &str, path: &str, reason: impl Into<String>) -> Error {
    Error::PathNotAllowed {
        field: field.to_string(),
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Checks that `name` (from `field`) is one plain file name: not empty, not `.` or `..`, with no
/// `/`, `\` or NUL.
///
/// # Errors
/// [`Error::PathNotAllowed`] otherwise.
pub fn check_file_name(field: &str, name: &str) -> Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(not_allowed(
            field,
            name,
            "a file name must be one plain name inside its directory",
        ));
    }
    Ok(())
}

/// Checks a directory below the table root named by an option (`data-file.path-directory`):
/// relative, not empty, with no `..` segment.
///
/// # Errors
/// [`Error::PathNotAllowed`] otherwise.
pub fn check_relative_dir(field: &str, dir: &str) -> Result<()> {
    let n = normalize(dir).map_err(|r| not_allowed(field, dir, r))?;
    if n.absolute || dir.contains("://") || dir.starts_with("file:") || n.segments.is_empty() {
        return Err(not_allowed(
            field,
            dir,
            "must be a relative directory below the table",
        ));
    }
    Ok(())
}

/// Checks a configured external root (`data-file.external-paths`): an absolute path or URL
/// with at least one segment below the file system root or bucket, and no `..` segment.
///
/// # Errors
/// [`Error::PathNotAllowed`] otherwise.
pub fn check_external_root(field: &str, root: &str) -> Result<()> {
    let n = normalize(root).map_err(|r| not_allowed(field, root, r))?;
    if !n.absolute || (n.scheme == "file" && n.segments.is_empty()) {
        return Err(not_allowed(
            field,
            root,
            "an external root must be an absolute path or URL below the file system root",
        ));
    }
    Ok(())
}

/// The roots a table's files may lie under: the table directory and its configured external
/// roots. Build with [`TableRoots::new`], add roots with [`TableRoots::with_external`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRoots {
    table: std::result::Result<Normalized, String>,
    table_text: String,
    external: Vec<Normalized>,
    /// Configured external roots that break [`check_external_root`], with the reason: files
    /// under them are refused, naming the root.
    refused: Vec<(String, String)>,
}

impl TableRoots {
    /// The roots of the table at `table_root`, with no external roots.
    pub fn new(table_root: &str) -> Self {
        TableRoots {
            table: normalize_with(table_root, true),
            table_text: table_root.to_string(),
            external: Vec::new(),
            refused: Vec::new(),
        }
    }

    /// With the external roots `roots` (the `data-file.external-paths` values). A root that
    /// fails [`check_external_root`] is not a root: files under it are refused.
    pub fn with_external<S: AsRef<str>>(mut self, roots: &[S]) -> Self {
        for r in roots {
            let r = r.as_ref().trim();
            if r.is_empty() {
                continue;
            }
            match check_external_root("data-file.external-paths", r)
                .ok()
                .and_then(|()| normalize(r).ok())
            {
                Some(n) => self.external.push(n),
                None => self.refused.push((
                    r.to_string(),
                    "not an absolute path or URL without '..'".into(),
                )),
            }
        }
        self
    }

    /// `path` split into its parts: `..` segments are kept only when the path starts with
    /// the table root as written (a root given as `../wh/t`), and are then refused below it by
    /// [`Normalized::is_below`].
    fn candidate(&self, field: &str, path: &str) -> Result<Normalized> {
        let keep = matches!(&self.table, Ok(t) if t.segments.iter().any(|s| s == ".."));
        normalize_with(path, keep).map_err(|r| not_allowed(field, path, r))
    }

    /// The table root as given.
    pub fn table_root(&self) -> &str {
        &self.table_text
    }

    /// Checks that `path` (from `field`) names a file strictly below the table directory.
    ///
    /// # Errors
    /// [`Error::PathNotAllowed`] otherwise.
    pub fn check_in_table(&self, field: &str, path: &str) -> Result<()> {
        let n = self.candidate(field, path)?;
        match &self.table {
            Ok(t) if n.is_below(t) => Ok(()),
            Ok(_) => Err(not_allowed(
                field,
                path,
                format!("not under the table directory {}", self.table_text),
            )),
            Err(r) => Err(not_allowed(
                field,
                path,
                format!("the table root {:?} is unusable: {r}", self.table_text),
            )),
        }
    }

    /// Checks that `path` (from `field`) names a file strictly below the table directory or
    /// one of the external roots.
    ///
    /// # Errors
    /// [`Error::PathNotAllowed`] otherwise.
    pub fn check(&self, field: &str, path: &str) -> Result<()> {
        let n = self.candidate(field, path)?;
        if matches!(&self.table, Ok(t) if n.is_below(t))
            || self.external.iter().any(|r| n.is_below(r))
        {
            return Ok(());
        }
        let mut reason = format!(
            "not under the table directory {} or its data-file.external-paths",
            self.table_text
        );
        if !self.refused.is_empty() {
            let names: Vec<&str> = self.refused.iter().map(|(r, _)| r.as_str()).collect();
            reason.push_str(&format!(
                " (refused as roots: {names:?}: {})",
                self.refused[0].1
            ));
        }
        Err(not_allowed(field, path, reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        for ok in ["data-1.parquet", "index-x-0", "a..b", ".hidden"] {
            check_file_name("f", ok).unwrap();
        }
        for bad in ["", ".", "..", "a/b", "../x", "/etc/passwd", "a\\b", "a\0b"] {
            let e = check_file_name("fileName", bad).unwrap_err();
            assert!(e.to_string().contains("fileName"), "{e}");
        }
    }

    #[test]
    fn inside_the_table() {
        let r = TableRoots::new("/w/db.db/t/");
        r.check_in_table("f", "/w/db.db/t/bucket-0/data-1.orc")
            .unwrap();
        r.check_in_table("f", "file:///w/db.db/t/index/index-1")
            .unwrap();
        r.check_in_table("f", "file:/w/db.db/t/index/index-1")
            .unwrap();
        r.check_in_table("f", "/w//db.db/./t/x").unwrap();
        // Java's test tables write `FILE:/...`.
        r.check_in_table("f", "FILE:/w/db.db/t/x").unwrap();
        for bad in [
            "/w/db.db/t",
            "/w/db.db/t2/x",
            "/w/db.db/tx",
            "/w/db.db/t/../../etc/passwd",
            "/w/db.db/t/a/../b",
            "w/db.db/t/x",
            "s3://w/db.db/t/x",
            "/etc/passwd",
            "/dev/zero",
            "",
        ] {
            assert!(r.check_in_table("f", bad).is_err(), "{bad}");
            assert!(r.check("f", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn object_store_buckets_and_schemes() {
        let r = TableRoots::new("s3://bucket/wh/t").with_external(&["oss://ext/root/"]);
        r.check("f", "s3://bucket/wh/t/bucket-0/f").unwrap();
        r.check("f", "s3a://bucket/wh/t/bucket-0/f").unwrap();
        r.check("f", "oss://ext/root/p=1/bucket-0/f").unwrap();
        for bad in [
            "s3://other/wh/t/bucket-0/f",
            "s3://bucket/wh/t2/f",
            "oss://ext/rootx/f",
            "oss://other/root/f",
            "gs://bucket/wh/t/f",
            "/wh/t/f",
        ] {
            assert!(r.check("f", bad).is_err(), "{bad}");
        }
        assert!(r.check_in_table("f", "oss://ext/root/f").is_err());
    }

    #[test]
    fn external_roots_must_be_absolute() {
        check_external_root("k", "/data/ext").unwrap();
        check_external_root("k", "s3://b/ext").unwrap();
        check_external_root("k", "s3://b").unwrap();
        for bad in ["../B", "B", "/", "file:///", "/data/../B", ""] {
            assert!(check_external_root("k", bad).is_err(), "{bad}");
        }
        let r = TableRoots::new("/w/A").with_external(&["../B"]);
        let e = r.check("_EXTERNAL_PATH", "../B/bucket-0/f").unwrap_err();
        assert!(e.to_string().contains("../B"), "{e}");
        assert!(r.check("f", "/w/B/bucket-0/f").is_err());
    }

    #[test]
    fn relative_dirs() {
        check_relative_dir("k", "data").unwrap();
        check_relative_dir("k", "a/b").unwrap();
        for bad in ["../B", "/abs", "a/../../b", "", ".", "s3://b/x", "file:x"] {
            assert!(check_relative_dir("k", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_root_may_climb_but_nothing_below_it() {
        let r = TableRoots::new("../wh/db.db/t");
        r.check("f", "../wh/db.db/t/index/index-1").unwrap();
        r.check_in_table("f", "../wh/db.db/t/bucket-0/x").unwrap();
        for bad in [
            "../wh/db.db/t/../u/x",
            "../wh/db.db/u/x",
            "../../x",
            "../wh/db.db/t",
        ] {
            assert!(r.check("f", bad).is_err(), "{bad}");
        }
        // Without `..` in the root, a `..` anywhere is refused.
        let r = TableRoots::new("/wh/t");
        assert!(r.check("f", "/wh/t/../t/x").is_err());
    }

    #[test]
    fn relative_tables_compare_with_relative_paths() {
        let r = TableRoots::new("wh/db.db/t");
        r.check("f", "wh/db.db/t/bucket-0/x").unwrap();
        r.check("f", "./wh/db.db/t/bucket-0/x").unwrap();
        assert!(r.check("f", "/wh/db.db/t/bucket-0/x").is_err());
    }
}
