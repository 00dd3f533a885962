//! `paimon`: inspect, plan and read Apache Paimon tables and splits.
//!
//! Every failure exits with code 1 and one line on stderr naming the file and the problem.

mod split_cmd;

use clap::{Parser, Subcommand};

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
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Split(c) => split_cmd::run(c),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
