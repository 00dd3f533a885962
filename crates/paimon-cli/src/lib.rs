//! The `paimon` command as a library: each subcommand's arguments and entry point, so tests
//! drive the same code the binary runs.

pub mod compare;
pub mod filter;
pub mod read_cmd;
pub mod rows;
pub mod scan_args;
pub mod split_cmd;
pub mod table_cmd;
