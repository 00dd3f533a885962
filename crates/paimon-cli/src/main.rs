//! `paimon`: inspect, plan and read Apache Paimon tables and splits.
//!
//! Every failure exits with code 1 and one line on stderr naming the file and the problem.

use clap::{Parser, Subcommand};
use paimon_cli::{read_cmd, split_cmd, table_cmd};

#[derive(Debug, Parser)]
#[command(
    name = "paimon",
    version,
    about = "Read Apache Paimon tables and splits"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Work with serialized DataSplits.
    #[command(subcommand)]
    Split(split_cmd::SplitCommand),
    /// List a table's snapshots.
    Snapshots(table_cmd::SnapshotsArgs),
    /// Print a table's schema.
    Schema(table_cmd::SchemaArgs),
    /// List the live data files of a snapshot.
    Files(table_cmd::FilesArgs),
    /// Plan a scan into splits (optionally written as Java-compatible split files).
    Plan(table_cmd::PlanArgs),
    /// Plan and read a table.
    Read(read_cmd::ReadArgs),
    /// Read split files (the worker command).
    ReadSplit(read_cmd::ReadSplitArgs),
    /// Compare two JSON-lines row files as multisets, typed by a table's schema (for scripts).
    CompareRows(read_cmd::CompareRowsArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Split(c) => split_cmd::run(c),
        Command::Snapshots(a) => table_cmd::snapshots(a),
        Command::Schema(a) => table_cmd::schema(a),
        Command::Files(a) => table_cmd::files(a),
        Command::Plan(a) => table_cmd::plan(a),
        Command::Read(a) => read_cmd::read(a),
        Command::ReadSplit(a) => read_cmd::read_split(a),
        Command::CompareRows(a) => read_cmd::compare_rows(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
