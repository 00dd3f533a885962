//! # paimon-meta: the control plane of paimon-rs
//!
//! Reads a table's metadata and plans scans into [`paimon_split::DataSplit`]s exactly as Java
//! Paimon does; it never reads data files. It also commits writers' `CommitMessage`s into
//! snapshots (conflict checks, exactly once per commit user), creates and alters tables, and
//! expires snapshots and partitions. It never depends on the data plane (`paimon-data`) nor on
//! an engine crate (`scripts/check-boundaries.sh`): what it hands workers travels as
//! `paimon-split` bytes.
//!
//! ```text
//! Catalog -> Table -> Snapshot -> ScanBuilder -> Plan { DataSplit* }
//! ```
//!
//! * [`catalog`]: the [`catalog::Catalog`] trait, the filesystem catalog ([`Catalog`]) and
//!   (feature `rest`) the REST catalog; how a table opened through one commits.
//! * [`table`]: [`Table`] (schema, options, branches).
//! * [`snapshot`], [`schema_manager`]: snapshot discovery with hint fallbacks, time travel,
//!   schemas and tags.
//! * [`manifest`]: manifest lists, data manifests and index manifests, decoded from Avro
//!   ([`paimon_format::avro`], our own container reader) or ORC ([`paimon_format::orc`]).
//! * [`scan`]: ADD/DELETE reconciliation, pruning, deletion vectors and split generation;
//!   incremental scans (delta, changelog, diff) and streaming changes ([`ChangeScan`]);
//!   [`paimon_format::file_index`]: the bloom-filter and bitmap file indexes pruning reads.
//!
//! ```no_run
//! use std::sync::Arc;
//! use paimon_meta::Table;
//! let io = Arc::new(paimon_io::LocalFileIO::new());
//! let table = Table::open(io, "/warehouse/db.db/t")?;
//! let plan = table.scan().with_snapshot(3).plan()?;
//! println!("{} splits from snapshot {:?}", plan.splits.len(), plan.snapshot_id);
//! # Ok::<(), paimon_meta::Error>(())
//! ```
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod branch;
pub mod catalog;
pub mod commit;
pub mod consumer;
pub mod error;
mod file_name;
pub mod java_time;
pub mod maintenance;
pub mod manifest;
pub mod partition_stats;
pub mod query_auth;
pub mod scan;
pub mod schema_manager;
pub mod snapshot;
pub mod table;
mod tag_write;

pub use error::{CatalogFailure, Error, Result};
pub use scan::{
    ChangePlan, ChangeScan, LiveFile, Plan, ScanBuilder, ScanChoice, SnapshotSelection,
};
pub use snapshot::{Snapshot, SnapshotManager};
pub use table::{Catalog, Table};
