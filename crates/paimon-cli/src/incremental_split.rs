//! Java 1.4+ incremental splits (`IncrementalSplit`) handed to `read-split`: read in their
//! `DataSplit` form ([`paimon_meta::scan::incremental_as_data_split`]).

use std::sync::Arc;

use anyhow::{anyhow, Result};
use paimon_io::FileIORef;
use paimon_meta::scan::incremental_as_data_split as to_data_split;
use paimon_meta::Table;
use paimon_split::frame::IncrementalSplit;
use paimon_split::DataSplit;

/// `split` as a `DataSplit` of the table at `table_path` (on `branch`, if given).
///
/// # Errors
/// When the table cannot be opened or the split's partition does not fit its schema.
pub fn incremental_as_data_split(
    io: &FileIORef,
    table_path: &str,
    branch: Option<&str>,
    split: IncrementalSplit,
) -> Result<DataSplit> {
    let table = Table::open(Arc::clone(io), table_path).map_err(|e| anyhow!("{e}"))?;
    let table = match branch {
        Some(b) => table.with_branch(b).map_err(|e| anyhow!("{e}"))?,
        None => table,
    };
    to_data_split(&table, split).map_err(|e| anyhow!("{e}"))
}
