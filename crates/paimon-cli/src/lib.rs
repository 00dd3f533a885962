//! # paimon-cli: the `paimon` command
//!
//! The `paimon` binary reads, plans, writes, commits, compacts and expires tables and runs SQL
//! over a warehouse (`docs/guide/cli.md` lists every subcommand). As a library it holds each
//! subcommand's arguments and entry point, so tests drive the same code the binary runs. Like an
//! engine it uses both planes (`paimon-meta` plans and commits, `paimon-data` and
//! `paimon-write` read and write) and `paimon-datafusion` for SQL; no library crate may depend
//! on it (`scripts/check-boundaries.sh`).
//!
//! ```text
//! paimon read fixtures/warehouse/pk.db/dedup_uncompacted --filter 'id <= 5'
//! paimon sql fixtures/warehouse "SELECT count(*) FROM append.unaware"
//! ```

pub mod alter_cmd;
pub mod catalog_cmd;
pub mod compact_cmd;
pub mod compare;
pub mod consumer_read;
pub mod create_cmd;
pub mod files_cmd;
pub mod filter;
pub mod format_table_cmd;
pub mod global_index_cmd;
pub mod incremental_split;
pub mod input;
pub mod maintenance_cmd;
pub mod progress;
pub mod read_cmd;
pub mod rows;
pub mod scan_args;
pub mod serve_cmd;
pub mod split_cmd;
pub mod sql_cmd;
pub mod table_cmd;
pub mod versions_cmd;
pub mod write_cmd;

/// Writes one line to stdout; a closed pipe (`paimon ... | head`) ends the process quietly
/// instead of panicking.
pub fn emit(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{args}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// `println!` that survives a closed pipe; see [`emit`].
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::emit(format_args!($($t)*))
    };
}
