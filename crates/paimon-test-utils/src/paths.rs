//! Where the repository and the test data are. The shared test data (`../shared/testdata`,
//! beside the repository) is read in place, never copied; a missing directory is a panic
//! naming it, never a silent skip.

use std::path::{Path, PathBuf};

/// The repository's root directory.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root of crates/paimon-test-utils")
}

/// `../shared/testdata` beside the repository.
///
/// # Panics
/// When it does not exist: the tests need it.
pub fn shared_testdata() -> PathBuf {
    let p = repo().join("../shared/testdata");
    assert!(
        p.is_dir(),
        "test data {} is missing: these tests need ../shared/testdata beside the repository",
        p.display()
    );
    p
}

/// The Java-written tables of paimon-cpp's test data (`../shared/testdata/paimon-cpp`).
pub fn cpp_testdata() -> PathBuf {
    shared_testdata().join("paimon-cpp")
}

/// One of Java's golden files (`../shared/testdata/java-compat/<name>`).
pub fn java_compat(name: &str) -> PathBuf {
    shared_testdata().join("java-compat").join(name)
}

/// The repository's own fixtures (`fixtures/`), written by our scripts.
pub fn fixtures() -> PathBuf {
    repo().join("fixtures")
}

/// The committed inputs of the fuzz target `target`: every file of `fuzz/seeds/<target>/`
/// and `fuzz/regressions/<target>/` (either may be missing), with its path, sorted by path.
/// A crate's test replays them through the entry point the target drives, so the seeds stay
/// exercised by `cargo test` without a build of the fuzz crate.
///
/// # Panics
/// On an I/O error reading a file, naming it.
pub fn fuzz_inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for kind in ["seeds", "regressions"] {
        let dir = repo().join("fuzz").join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let path = e
                .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
                .path();
            if path.is_file() {
                let bytes =
                    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

/// Copies the directory tree `from` to `to` (a table, to change it in a test).
///
/// # Panics
/// On any I/O error, naming the path.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    let entries =
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display()));
    for e in entries {
        let p = e
            .unwrap_or_else(|e| panic!("read {}: {e}", from.display()))
            .path();
        let dst = to.join(p.file_name().expect("a directory entry has a name"));
        if p.is_dir() {
            copy_dir(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap_or_else(|e| panic!("copy {}: {e}", p.display()));
        }
    }
}

/// Every file below `root`, by its path relative to `root`, with its bytes.
///
/// # Panics
/// On any I/O error, naming the path.
pub fn tree_files(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
        for e in entries {
            let p = e
                .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
                .path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("below root");
                let bytes =
                    std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
                out.insert(rel.to_string_lossy().into_owned(), bytes);
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Asserts that the trees `ours` and `theirs` hold the same files with the same bytes (a
/// difference is shown as text), `step` naming the moment in the failure message.
///
/// # Panics
/// When they differ, or on any I/O error.
pub fn assert_same_tree(ours: &Path, theirs: &Path, step: &str) {
    let (a, b) = (tree_files(ours), tree_files(theirs));
    let names =
        |m: &std::collections::BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "files after {step}");
    for (k, v) in &a {
        assert_eq!(
            String::from_utf8_lossy(v),
            String::from_utf8_lossy(&b[k]),
            "{k} after {step}"
        );
    }
}
