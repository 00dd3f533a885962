//! Locating the shared test tables and the repository, running the Java oracle.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::Table;
pub use paimon_test_utils::copy_dir;
pub use paimon_test_utils::repo;

/// `../shared/testdata/paimon-cpp`, or a panic naming the missing path.
pub fn testdata() -> PathBuf {
    paimon_test_utils::cpp_testdata()
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

/// `scripts/java-oracle.sh ARGS`, its stdout lines; panics with stderr when Java fails.
pub fn oracle(args: &[&str]) -> Vec<String> {
    paimon_test_utils::oracle(args)
        .lines()
        .map(str::to_string)
        .collect()
}
