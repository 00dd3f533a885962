//! The Java 1.4.2 oracle (`scripts/java-oracle.sh`, built from Maven Central on first use;
//! under `scripts/with-oracle.sh` one persistent JVM answers every call).

use std::process::{Command, Output, Stdio};

use crate::paths::repo;

/// Runs the oracle with `args`, whatever its exit status.
///
/// # Panics
/// When the script cannot be started.
pub fn oracle_output(args: &[&str]) -> Output {
    Command::new(repo().join("scripts/java-oracle.sh"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run scripts/java-oracle.sh (needs java)")
}

/// Runs the oracle with `args`, which must succeed; its standard output.
///
/// # Panics
/// When it fails (the message holds its standard error) or prints something not UTF-8.
pub fn oracle(args: &[&str]) -> String {
    let out = oracle_output(args);
    assert!(
        out.status.success(),
        "java-oracle {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the oracle prints UTF-8")
}
