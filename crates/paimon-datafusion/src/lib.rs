//! # paimon-datafusion: Paimon tables in DataFusion
//!
//! An engine integration: it plans with the control plane (`paimon-meta`) and reads with the
//! data plane (`paimon-data`), and the two meet in [`PaimonScanExec`] only through Java
//! `DataSplit` bytes, so a physical plan can be shipped to other processes (Ballista) as is.
//! No library crate depends on it, and it depends on neither `paimon-ballista` nor
//! `paimon-cli` (`scripts/check-boundaries.sh`).
//!
//! - [`PaimonTableProvider`]: one table at one snapshot / tag / time / branch ([`ScanSpec`]);
//!   projection, filter and limit pushdown, statistics from the manifests;
//! - [`PaimonScanExec`]: one DataFusion partition per group of splits; each partition reads
//!   its splits with the data plane's async stream (storage read through async calls, batches
//!   decoded on the polling task, as DataFusion's own scans do; no thread of its own);
//! - [`PaimonCatalogProvider`]: a filesystem warehouse, `<warehouse>/<db>.db/<table>`, or any
//!   paimon-meta catalog (REST, JDBC, Hive; its tables commit and are read through it), with
//!   `t$branch_<name>` and Java's system tables (`t$snapshots`, `t$files`, ...);
//! - [`sql`]: a `SessionContext` over a warehouse with Paimon's time-travel spellings
//!   (`VERSION AS OF`, `TIMESTAMP AS OF`) and `paimon_incremental(...)`, and `INSERT INTO` /
//!   `INSERT OVERWRITE [PARTITION (..)]` ([`insert`]: one commit per statement), and
//!   `CREATE|DROP DATABASE`, `CREATE|DROP TABLE` on the warehouse;
//! - [`policy`]: what a session's SQL may do ([`policy::SqlPolicy`]: grants, local files).
//!
//! ```no_run
//! # async fn demo() -> datafusion::error::Result<()> {
//! let ctx = paimon_datafusion::sql::session("fixtures/warehouse")?;
//! let df = paimon_datafusion::sql::query(&ctx, "SELECT count(*) FROM pk.dedup_uncompacted").await?;
//! df.show().await?;
//! # Ok(()) }
//! ```
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod append_dml;
pub mod call;
pub mod catalog;
mod ddl;
mod ddl_spelling;
mod error;
pub mod exec;
pub mod format_table;
pub mod insert;
mod merge;
mod merge_append;
pub mod node_codec;
mod partition_insert;
pub mod policy;
pub mod pushdown;
pub mod row_level;
pub mod scan_spec;
mod show_create;
mod show_tags;
pub mod sql;
mod stats;
pub mod system;
pub mod table;

pub use catalog::PaimonCatalogProvider;
pub use exec::{PaimonScanExec, PaimonSplitReadExec, ScanNode, SplitsAsInput};
pub use scan_spec::{ScanSpec, TableName};
pub use table::PaimonTableProvider;
