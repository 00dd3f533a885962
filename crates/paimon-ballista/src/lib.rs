//! # paimon-ballista: Paimon tables on a Ballista cluster
//!
//! paimon-datafusion's scan node carries everything a worker needs (table path, read options,
//! Java `DataSplit` bytes), so distributing a query only takes codecs. It is an engine
//! integration (both planes, through `paimon-datafusion`); it never depends on `paimon-cli`,
//! whose `ballista` feature depends on it (`scripts/check-boundaries.sh`):
//!
//! - [`PaimonLogicalCodec`] ships a [`paimon_datafusion::PaimonTableProvider`] from the client
//!   to the scheduler as its table path and `ScanSpec`; the scheduler plans the splits;
//! - [`PaimonPhysicalCodec`] ships a [`paimon_datafusion::PaimonScanExec`] to the executors as
//!   its `ScanNode`; each executor reads its partitions' splits;
//! - [`run_scheduler`] / [`run_executor`]: Ballista's scheduler and executor with both codecs
//!   (the `paimon-ballista scheduler|executor` binary); an executor runs only Paimon scans
//!   of its warehouse's tables, shuffles and in-memory nodes ([`check_executor_plan`]);
//! - [`remote_session`]: a client `SessionContext` over a warehouse, queries run on the
//!   cluster.
//!
//! ```no_run
//! # async fn demo() -> datafusion::error::Result<()> {
//! let ctx = paimon_ballista::remote_session("df://127.0.0.1:50050", "fixtures/warehouse").await?;
//! ctx.sql("SELECT count(*) FROM append.fmt_orc_zlib").await?.show().await?;
//! # Ok(()) }
//! ```
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod cluster;
mod codec;
mod executor_plan;
pub mod logger;

pub use cluster::{
    remote_session, remote_session_with, run_executor, run_scheduler, session_config,
    ExecutorOptions, SchedulerOptions,
};
pub use codec::{
    codecs, warehouse_codecs, PaimonLogicalCodec, PaimonPhysicalCodec, SCAN_TAG, SPLIT_READ_TAG,
    TABLE_TAG,
};
pub use executor_plan::check_executor_plan;
