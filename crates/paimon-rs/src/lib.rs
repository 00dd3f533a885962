//! # paimon-rs
//!
//! Apache Paimon tables in Rust: read, write, commit, compact and maintain them, byte for
//! byte as Java Paimon does. This crate is the one dependency a Rust user adds; it ties the
//! control plane (planning, commits, maintenance: [`meta`]) to the data plane (reading and
//! writing files: [`data`], [`write`](mod@write)) behind a [`Table`] whose every operation is a builder
//! that ends in one call.
//!
//! ```
//! use paimon_rs::{Catalog, Result};
//!
//! # fn main() -> Result<()> {
//! # let warehouse = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/warehouse");
//! let table = Catalog::filesystem(warehouse)?.table("pk.dedup_compacted")?;
//! let batches = table
//!     .scan()
//!     .with_projection(["id", "v"])
//!     .with_filter("id < 12")?
//!     .to_arrow()?;
//! let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
//! assert_eq!(rows, 8); // ids 3, 5..=11 (fixtures/expected/pk/dedup_compacted/latest.jsonl)
//! # Ok(())
//! # }
//! ```
//!
//! Writing, committing and maintaining (on a copy of a table):
//!
//! ```no_run
//! use std::time::Duration;
//! use paimon_rs::{Overwrite, Result, Table};
//!
//! # fn main() -> Result<()> {
//! # let batches: Vec<paimon_rs::RecordBatch> = Vec::new();
//! let table = Table::open_path("/tmp/wh/db.db/t")?;
//! // Write and commit in one call (plus the lookup compaction where Java's writers run one).
//! let report = table.write().batches(batches.clone())?;
//! println!("{} rows in snapshots {:?}", report.rows, report.all_snapshots());
//! // Or replace the partitions written.
//! table.write().with_overwrite(Overwrite::AsConfigured).batches(batches.clone())?;
//!
//! // A worker prepares commit messages; the driver commits them.
//! let messages = table.new_write()?.write(&batches[0])?.prepare_commit()?;
//! table.new_commit("my-job").commit(1, &messages)?;
//!
//! table.compact().with_full(true).run()?;
//! table.expire_snapshots().with_retain_max(5).run()?;
//! table.remove_orphan_files().with_older_than(Duration::from_secs(3600)).with_dry_run(true).run()?;
//! # Ok(())
//! # }
//! ```
//!
//! Planner/worker services that want only one side use the plane crates, re-exported as
//! [`spec`] (the format as data), [`split`] (splits, commit messages and compaction tasks as
//! bytes), [`io`] (storage), [`memory`], [`meta`] (control plane), [`data`] (reading) and
//! [`write`](mod@write) (writing).
//!
//! ## Features
//! The object stores of [`io`]: `s3`, `oss`, `gcs`, `azblob`, `hdfs-native` (and `hdfs`, the
//! same). None is on by default; local paths always work.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod catalog;
pub mod compaction;
pub mod error;
pub mod format_table;
pub mod global_index;
pub mod maintenance;
pub mod postpone_compaction;
pub mod row_change;
pub mod scan;
pub mod split_read;
pub mod table;
pub mod table_writer;
pub mod versions;
pub mod write_context;
pub mod writing;

pub use paimon_data as data;
pub use paimon_io as io;
pub use paimon_memory as memory;
pub use paimon_meta as meta;
pub use paimon_spec as spec;
pub use paimon_split as split;
pub use paimon_write as write;

pub use arrow_array;
pub use arrow_array::RecordBatch;
pub use arrow_schema;
pub use catalog::Catalog;
pub use compaction::{CompactBuilder, CompactReport};
pub use error::{Error, Result};
pub use format_table::{FormatTable, FormatWrite, FormatWriteReport};
pub use futures::StreamExt;
pub use maintenance::{ExpirePartitions, ExpireSnapshots, RemoveOrphanFiles};
pub use paimon_meta::branch::BranchStart;
pub use paimon_meta::maintenance::{ExpireReport, OrphanReport, PartitionExpireReport};
pub use paimon_meta::maintenance::{RollbackReport, TagDeleteReport};
pub use paimon_split::commit::CommitMessage;
pub use paimon_split::{Split, SplitReadOptions};
pub use row_change::{change_append_rows, RowChangeReport, Touched};
pub use scan::{BatchStream, ScanPlan, TableScan};
pub use split_read::{read_split, SplitRead};
pub use table::{Table, TableCommit};
pub use versions::RollbackTarget;
pub use writing::{BatchWrite, Overwrite, PendingWrite, WriteBuilder, WriteReport};
