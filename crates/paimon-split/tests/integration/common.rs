use std::path::PathBuf;

/// `../shared/testdata` from the repository root; panics with a clear message when absent.
pub fn testdata(rel: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata");
    let p = root.join(rel);
    assert!(
        p.exists(),
        "test data {} is missing: these tests need ../shared/testdata beside the repository",
        p.display()
    );
    p
}

pub fn read(rel: &str) -> Vec<u8> {
    std::fs::read(testdata(rel)).unwrap()
}
