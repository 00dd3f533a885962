//! Java 1.4+ incremental splits (`IncrementalSplit`) handed to `read-split`: they carry no
//! bucket directory, so it is derived from the table as Java's reader derives it
//! (`FileStorePathFactory.bucketPath`), and the split read in its `DataSplit` form.

use std::sync::Arc;

use anyhow::{anyhow, Result};
use paimon_io::FileIORef;
use paimon_meta::scan::partition_path::bucket_path;
use paimon_meta::scan::PartitionDecoder;
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
    let values = PartitionDecoder::new(table.schema().partition_fields())
        .decode(&split.partition)
        .map_err(|e| anyhow!("the split's partition row: {e}"))?;
    let path = bucket_path(&table, &values, split.bucket)
        .ok_or_else(|| anyhow!("no directory name for the split's partition values {values:?}"))?;
    Ok(split.into_data_split(path))
}
