//! The schema a scan's rows are read with, and Java 1.4 `IncrementalSplit`s turned into the
//! `DataSplit`s a reader takes: knowledge every planner front end (CLI, Python, engines) needs.

use std::sync::Arc;

use paimon_spec::schema::TableSchemaRef;
use paimon_split::frame::IncrementalSplit;
use paimon_split::DataSplit;

use super::partition_path::bucket_path;
use super::{PartitionDecoder, ScanBuilder, SnapshotSelection};
use crate::error::{Error, Result};
use crate::table::Table;

impl ScanBuilder {
    /// The schema the planned rows are read with: Java reads the latest snapshot with the
    /// table's latest schema (an ALTER may have come after the last commit), and time travel
    /// (snapshot id, tag, timestamp, watermark) with the selected snapshot's own schema.
    ///
    /// # Errors
    /// As [`ScanBuilder::snapshot`], and when the snapshot's schema file cannot be read.
    pub fn rows_schema(&self) -> Result<TableSchemaRef> {
        let time_travel = !matches!(self.selection, SnapshotSelection::Latest);
        match self.snapshot()? {
            Some(s) if time_travel => self.table.schema_manager().schema(s.schema_id),
            _ => Ok(Arc::clone(self.table.schema())),
        }
    }
}

/// `split` (Java `IncrementalSplit`, which carries no bucket directory) as a `DataSplit` of
/// `table`, its bucket directory derived as Java's reader derives it
/// (`FileStorePathFactory.bucketPath`).
///
/// # Errors
/// [`Error::Corrupt`] when the split's partition row does not fit the table's partition
/// columns or names no directory.
pub fn incremental_as_data_split(table: &Table, split: IncrementalSplit) -> Result<DataSplit> {
    let corrupt = |reason: String| Error::Corrupt {
        path: table.path().to_string(),
        reason,
    };
    let values = PartitionDecoder::new(table.schema().partition_fields())
        .decode(&split.partition)
        .map_err(|e| corrupt(format!("an incremental split's partition row: {e}")))?;
    let path = bucket_path(table, &values, split.bucket).ok_or_else(|| {
        corrupt(format!(
            "no directory name for an incremental split's partition values {values:?}"
        ))
    })?;
    Ok(split.into_data_split(path))
}
