//! Running a command-line binary of the workspace (the `paimon` CLI) from a test: the test
//! passes its `env!("CARGO_BIN_EXE_...")`, which only the binary's own crate can name.

use std::process::{Command, Output, Stdio};

/// Runs `bin` with `args` and no standard input, whatever its exit status.
///
/// # Panics
/// When the binary cannot be started.
pub fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {bin}: {e}"))
}

/// Runs `bin` with `args`, which must succeed; its standard output.
///
/// # Panics
/// When it fails (the message holds the arguments and its standard error) or prints
/// something not UTF-8.
pub fn run_ok(bin: &str, args: &[&str]) -> String {
    let out = run(bin, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the binary prints UTF-8")
}
