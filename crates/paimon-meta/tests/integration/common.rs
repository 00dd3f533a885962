//! Locating the shared test tables and the repository, running the Java oracle.

use std::path::{Path, PathBuf};
use std::process::Command;
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

/// The repository root (for `fixtures/` and `scripts/`).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `scripts/java-oracle.sh ARGS`, its stdout lines; panics with stderr when Java fails.
pub fn oracle(args: &[&str]) -> Vec<String> {
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(args)
        .output()
        .expect("run scripts/java-oracle.sh (needs java)");
    assert!(
        out.status.success(),
        "java-oracle {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Copies a directory tree (a table, to change it in a test).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
