use std::path::PathBuf;

/// `../shared/testdata` from the repository root; panics with a clear message when absent.
pub fn testdata(rel: &str) -> PathBuf {
    let p = paimon_test_utils::shared_testdata().join(rel);
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
