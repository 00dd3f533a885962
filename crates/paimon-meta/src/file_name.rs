//! File names read from metadata (snapshots, manifest lists, manifests, index manifests) are
//! joined to table directories; a name that is not one plain name could make the planner read,
//! or hand a worker, a file outside its directory.

use crate::error::{Error, Result};

/// Checks that `name`, read from `field` of the metadata file `path`, is one plain file name:
/// not empty, not `.` or `..`, and without `/` or `\`.
///
/// # Errors
/// [`Error::Corrupt`] naming `path`, the field and the bad name.
pub(crate) fn check_plain_name(path: &str, field: &str, name: &str) -> Result<()> {
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.bytes().any(|b| b == b'/' || b == b'\\')
    {
        return Err(Error::corrupt(
            path,
            format!(
                "{field} {name:?} is not a plain file name (empty, '.', '..' or containing '/' \
                 or '\\'), so it cannot be joined to the table directory"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_pass() {
        for ok in ["manifest-list-1a2b-0", "index-x.index", "a..b", "..x", "x."] {
            check_plain_name("snap", "f", ok).unwrap();
        }
        for bad in [
            "",
            ".",
            "..",
            "../x",
            "a/b",
            "/abs",
            "a\\b",
            "..\\..\\x",
            "x/",
        ] {
            let e = check_plain_name("t/snapshot/snapshot-3", "baseManifestList", bad)
                .unwrap_err()
                .to_string();
            assert!(e.contains("t/snapshot/snapshot-3"), "{e}");
            assert!(e.contains("baseManifestList"), "{e}");
            assert!(e.contains(&format!("{bad:?}")), "{e}");
        }
    }
}
