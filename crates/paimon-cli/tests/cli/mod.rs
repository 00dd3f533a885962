//! Running the `paimon` binary from the standalone test files of this crate.

use std::path::Path;
use std::process::{Command, Output};

/// `paimon ARGS...`, its output whatever the exit status.
pub fn paimon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(args)
        .output()
        .expect("run paimon")
}

/// `paimon ARGS...`'s stdout; fails the test, with stderr, when the command fails.
pub fn ok(args: &[&str]) -> String {
    let out = paimon(args);
    assert!(
        out.status.success(),
        "paimon {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A path as the `&str` argument the CLI takes.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}
