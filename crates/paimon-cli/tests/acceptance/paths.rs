//! Where the suite's tables are.

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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
