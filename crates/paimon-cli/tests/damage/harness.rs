//! Running the real `paimon` binary under a time and memory bound, and judging its outcome.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use paimon_cli::compare::diff_rows;
use paimon_spec::schema::TableSchema;
use paimon_spec::types::DataField;
pub use paimon_test_utils::copy_dir;
pub use paimon_test_utils::repo;

/// Wall-clock bound of one run: a damaged input must never make the reader spin.
pub const TIMEOUT: Duration = Duration::from_secs(60);
/// Address-space bound of one run (KiB, for `ulimit -v`): a lying length must never make the
/// reader allocate gigabytes. Generous enough for a debug binary with its thread stacks.
pub const MEMORY_KIB: u64 = 3 * 1024 * 1024;

/// A finished (or killed) run of the binary.
#[derive(Debug)]
pub struct Run {
    /// Exit code; `None` when killed by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

/// Runs `paimon ARGS...` with the time and memory bounds.
pub fn run_paimon(args: &[String]) -> Run {
    let bin = env!("CARGO_BIN_EXE_paimon");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB}; exec \"$0\" \"$@\""))
        .arg(bin)
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn paimon");
    // Drain both pipes on threads so a large output cannot block the child.
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait after kill");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned(),
        timed_out,
    }
}

/// What a run amounted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 1, one stderr line naming the expected file, no stdout.
    Error(String),
    /// Exit 0 with exactly Java's rows.
    Exact,
    /// Anything else: a bug. The string says what went wrong.
    Bad(String),
}

impl Outcome {
    /// Short label for the report table.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Error(_) => "error",
            Outcome::Exact => "exact rows",
            Outcome::Bad(_) => "BAD",
        }
    }

    /// The message, for the report.
    pub fn detail(&self) -> &str {
        match self {
            Outcome::Error(m) | Outcome::Bad(m) => m,
            Outcome::Exact => "",
        }
    }
}

/// Judges an error run: exit 1, exactly one stderr line that mentions one of `names` (the
/// damaged file, or the missing file it points at), nothing on stdout. Panics, aborts, timeouts and everything else are `Bad`.
pub fn judge_error(run: &Run, names: &[&str]) -> Outcome {
    if let Some(bad) = judge_abnormal(run) {
        return bad;
    }
    if run.code != Some(1) {
        return Outcome::Bad(format!("exit code {:?}", run.code));
    }
    let lines: Vec<&str> = run.stderr.lines().collect();
    if lines.len() != 1 {
        return Outcome::Bad(format!(
            "{} stderr lines: {}",
            lines.len(),
            run.stderr.trim()
        ));
    }
    let line = lines[0];
    if !line.starts_with("error: ") {
        return Outcome::Bad(format!("stderr not an error line: {line}"));
    }
    if !run.stdout.is_empty() {
        return Outcome::Bad(format!(
            "printed {} bytes of stdout with the error {line}",
            run.stdout.len()
        ));
    }
    if !names.is_empty() && !names.iter().any(|n| line.contains(n)) {
        return Outcome::Bad(format!("message names none of {names:?}: {line}"));
    }
    Outcome::Error(line.to_string())
}

/// A panic (101), a signal (abort on allocation failure), or a timeout.
pub fn judge_abnormal(run: &Run) -> Option<Outcome> {
    if run.timed_out {
        return Some(Outcome::Bad(format!("timed out after {TIMEOUT:?}")));
    }
    match run.code {
        Some(101) => Some(Outcome::Bad(format!(
            "panicked: {}",
            run.stderr.lines().take(3).collect::<Vec<_>>().join(" | ")
        ))),
        None => Some(Outcome::Bad(format!(
            "killed by a signal (allocation failure?): {}",
            run.stderr.lines().take(3).collect::<Vec<_>>().join(" | ")
        ))),
        _ => None,
    }
}

/// Judges a `read --format jsonl` run against expected rows: exit 0 with exactly `expected`
/// is `Exact`; exit 1 naming `names` is `Error` when `allow_error`.
pub fn judge_read(
    run: &Run,
    expected: &[String],
    fields: &[DataField],
    names: &[&str],
    allow_error: bool,
) -> Outcome {
    if let Some(bad) = judge_abnormal(run) {
        return bad;
    }
    match run.code {
        Some(0) => {
            let got: Vec<String> = run.stdout.lines().map(str::to_string).collect();
            match diff_rows(expected, &got, fields) {
                None if run.stderr.trim().is_empty() => Outcome::Exact,
                None => Outcome::Bad(format!("exact rows but stderr: {}", run.stderr.trim())),
                Some(d) => Outcome::Bad(format!("silently wrong rows: {d}")),
            }
        }
        _ if allow_error => judge_error(run, names),
        _ => Outcome::Bad(format!(
            "expected Java's rows, got exit {:?}: {}",
            run.code,
            run.stderr.trim()
        )),
    }
}

/// Every file under `dir`, relative to it, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).expect("under root").to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The latest schema of a fixture table (its highest `schema/schema-N`).
pub fn latest_schema(table: &Path) -> TableSchema {
    let mut best: Option<(i64, PathBuf)> = None;
    for e in std::fs::read_dir(table.join("schema"))
        .expect("schema dir")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(id) = name.strip_prefix("schema-").and_then(|n| n.parse().ok()) {
            if best.as_ref().is_none_or(|(b, _)| id > *b) {
                best = Some((id, e.path()));
            }
        }
    }
    let (_, path) = best.expect("a schema file");
    TableSchema::from_json_str(&std::fs::read_to_string(path).expect("read schema"))
        .expect("parse schema")
}

/// Java's rows for the latest snapshot of `db/table`.
pub fn expected_latest(db: &str, table: &str) -> Vec<String> {
    let p = repo()
        .join("fixtures/expected")
        .join(db)
        .join(table)
        .join("latest.jsonl");
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(str::to_string)
        .collect()
}
