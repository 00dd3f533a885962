//! Bucket directories of a table's partitions (Java `FileStorePathFactory.bucketPath`); the
//! names themselves are [`paimon_spec::layout`]'s.

use paimon_spec::binary::Datum;
use paimon_spec::layout;

use crate::table::Table;

/// The directory of `bucket` in the partition with `values` (typed by the table's partition
/// columns). `None` when a value cannot be printed as Java would.
pub fn bucket_path(table: &Table, values: &[Datum], bucket: i32) -> Option<String> {
    let opts = table.options();
    let part = layout::partition_path(
        &table.schema().partition_fields(),
        values,
        &opts.partition_default_name,
        opts.partition_legacy_name,
    )?;
    Some(
        table
            .layout()
            .bucket_dir(opts.data_file_path_directory.as_deref(), &part, bucket),
    )
}
