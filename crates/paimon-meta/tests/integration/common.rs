//! Locating the shared test tables.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::Table;

/// `../shared/testdata/paimon-cpp`, or a panic naming the missing path.
pub fn testdata() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata/paimon-cpp");
    let p = p.canonicalize().unwrap_or(p);
    assert!(
        p.is_dir(),
        "test data missing: {} (the shared test tables must be present)",
        p.display()
    );
    p
}

/// Every table directory (has `schema/` and `snapshot/`), excluding branch directories.
pub fn all_tables() -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(&testdata(), &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("schema").is_dir() && dir.join("snapshot").is_dir() {
        out.push(dir.to_path_buf());
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() && name != "branch" && !name.starts_with("bucket-") && !name.contains('=') {
            walk(&p, out);
        }
    }
}

/// Path of a table relative to the test data root.
pub fn rel(p: &Path) -> String {
    p.strip_prefix(testdata())
        .unwrap_or(p)
        .display()
        .to_string()
}

/// Opens the table at `rel` under the test data root.
pub fn open(rel: &str) -> Table {
    let p = testdata().join(rel);
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap())
        .unwrap_or_else(|e| panic!("open {rel}: {e}"))
}
