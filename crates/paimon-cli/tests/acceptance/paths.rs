//! Where the suite's tables are.

pub use paimon_test_utils::repo;
use std::path::{Path, PathBuf};

/// Table directories (a `schema` and a `snapshot` directory) under `dir`, recursively, sorted.
pub fn table_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("schema").is_dir() && dir.join("snapshot").is_dir() {
        out.push(dir.to_path_buf());
        return;
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    for e in entries {
        table_dirs(&e, out);
    }
}
