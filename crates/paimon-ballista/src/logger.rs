//! A logger for Ballista's `log` records on stderr, at the level `RUST_LOG` names (`error`,
//! `warn`, `info`, `debug`, `trace`; default `warn`). Ballista's binaries bring their own; ours
//! has this one so that scheduling and fault recovery can be followed in an executor's or the
//! scheduler's log.

use log::{LevelFilter, Log, Metadata, Record};

struct Stderr;

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record) {
        if self.enabled(record.metadata()) {
            eprintln!("[{} {}] {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

/// Installs the logger; the level comes from `RUST_LOG` (an unknown value is `warn`).
pub fn init() {
    let level = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| v.parse::<LevelFilter>().ok())
        .unwrap_or(LevelFilter::Warn);
    if log::set_logger(&Stderr).is_ok() {
        log::set_max_level(level);
    }
}
