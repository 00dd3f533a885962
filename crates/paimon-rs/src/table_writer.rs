//! A table's writer and what follows its commit, shared by [`crate::Table::write`],
//! `paimon write` and the Python package: the one place that decides which tables are
//! compacted right after a write, and how a writer continues a table.
//!
//! ```text
//! open_writer ──write──▶ messages ──commit (paimon-meta)──▶ APPEND snapshot
//!                                  └─ compacts_after_write? ──compact_written──▶ COMPACT snapshot
//! ```

use paimon_meta::Table;
use paimon_split::commit::CommitMessage;
use paimon_write::TableWrite;

use paimon_split::Split;

use crate::compaction::{compact_table, CompactReport};
use crate::error::{Error, Result};
use crate::scan::TableScan;
use crate::table::available_cores;

/// Whether a write to `table` is followed by a lookup compaction of the buckets it wrote, as
/// Java's writers compact before they commit: primary-key tables whose batch readers skip
/// level 0 (deletion vectors, first-row) and tables whose `lookup` changelog that compaction
/// writes; a `write-only` table leaves it to a dedicated compactor.
pub fn compacts_after_write(table: &Table) -> bool {
    table.compacts_after_write()
}

/// The writer of `table`'s current schema. A primary-key table's writer continues each
/// bucket's sequence numbers from the latest snapshot (so its rows win over those committed)
/// and finds existing keys of a dynamic-bucket table in the committed hash index, unless
/// `overwrite` says the rows replace the table's (Java then starts an empty index). With
/// `compact_after` the caller runs [`compact_written`] after committing (see
/// [`compacts_after_write`]). `threads` encode the columns of Parquet files
/// ([`TableWrite::with_threads`]).
///
/// The writer is built as a worker builds it from the planner's bytes
/// ([`Table::write_context`], [`TableWrite::from_context`]). A cross-partition upsert table's
/// writer ([`TableWrite::is_cross_partition`]) then gets its key index from the keys of the
/// latest snapshot ([`bootstrap_cross_partition`]), or an empty one for an overwrite.
///
/// # Errors
/// What [`TableWrite::try_new`] refuses; metadata and data read errors.
pub fn open_writer(
    table: &Table,
    overwrite: bool,
    compact_after: bool,
    threads: usize,
) -> Result<TableWrite> {
    let mut ctx = table.write_context(overwrite, None)?;
    ctx.compact_after = compact_after;
    let mut writer =
        TableWrite::from_context(table.file_io().clone(), &ctx)?.with_threads(threads)?;
    if writer.is_cross_partition() && !overwrite {
        bootstrap_cross_partition(table, &mut writer)?;
    }
    writer.finish_bootstrap();
    Ok(writer)
}

/// Fills a cross-partition upsert table's key index with the primary keys of its latest
/// snapshot, each with the partition and bucket that hold it (Java `IndexBootstrap`: the
/// table read projected to the primary key without partition columns, split by split, on
/// the calling thread). Other tables are left as they are.
///
/// # Errors
/// Metadata and data read errors; [`paimon_write::Error::Unsupported`] for a key the
/// snapshot holds in two partitions.
pub fn bootstrap_cross_partition(table: &Table, writer: &mut TableWrite) -> Result<()> {
    if !writer.is_cross_partition() {
        return Ok(());
    }
    // Batch reads of these tables skip level 0, which only the compaction after each write
    // empties: a `write-only` table's level-0 keys would be missed, and written twice.
    let opts = table.options();
    if opts.write_only && opts.batch_scan_skip_level0() {
        return Err(paimon_write::Error::Unsupported {
            feature: format!(
                "table {}: cross-partition upsert with write-only = true and deletion vectors \
                 or first-row (the key index is read from the snapshot, whose batch read skips \
                 the level-0 files a dedicated compactor has not compacted yet)",
                table.path()
            ),
        }
        .into());
    }
    let scan = TableScan::new(table.clone()).with_projection(writer.bootstrap_key_columns());
    let opened = scan.open()?;
    let plan = scan.plan()?;
    let reader = scan.reader_builder(&opened).build();
    for split in &plan.splits {
        let Split::Data(data) = split else {
            return Err(Error::invalid(
                "bootstrap_cross_partition",
                format!(
                    "the latest snapshot of {} planned a split that is not a plain data split",
                    table.path()
                ),
            ));
        };
        for batch in reader.read_any_splits(table.path(), std::slice::from_ref(split))? {
            writer.bootstrap_keys(&data.partition, data.bucket, &batch?)?;
        }
    }
    Ok(())
}

/// The lookup compaction after a commit of `messages` (see [`compacts_after_write`]): the
/// buckets they wrote, committed as `user` (a user commits each identifier once, so not the
/// writer's own), on every available core.
///
/// # Errors
/// As [`compact_table`]; the written rows stay committed in level 0 then.
pub fn compact_written(
    table: &Table,
    messages: &[CommitMessage],
    user: &str,
) -> Result<CompactReport> {
    let buckets = messages
        .iter()
        .map(|m| (m.partition.clone(), m.bucket))
        .collect();
    let planner = table.compact_planner().with_buckets(buckets);
    compact_table(table, &planner, user, available_cores())
}
