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

use crate::compaction::{compact_table, CompactReport};
use crate::error::Result;
use crate::table::available_cores;

/// Whether a write to `table` is followed by a lookup compaction of the buckets it wrote, as
/// Java's writers compact before they commit: primary-key tables whose batch readers skip
/// level 0 (deletion vectors, first-row) and tables whose `lookup` changelog that compaction
/// writes; a `write-only` table leaves it to a dedicated compactor.
pub fn compacts_after_write(table: &Table) -> bool {
    use paimon_spec::options::{ChangelogProducer, MergeEngine};
    let opts = table.options();
    table.is_primary_key_table()
        && !opts.write_only
        && (opts.deletion_vectors_enabled
            || opts.merge_engine == MergeEngine::FirstRow
            || opts.changelog_producer == ChangelogProducer::Lookup)
}

/// The writer of `table`'s current schema. A primary-key table's writer continues each
/// bucket's sequence numbers from the latest snapshot (so its rows win over those committed)
/// and finds existing keys of a dynamic-bucket table in the committed hash index, unless
/// `overwrite` says the rows replace the table's (Java then starts an empty index). With
/// `compact_after` the caller runs [`compact_written`] after committing (see
/// [`compacts_after_write`]). `threads` encode the columns of Parquet files
/// ([`TableWrite::with_threads`]).
///
/// # Errors
/// What [`TableWrite::try_new`] refuses; metadata read errors.
pub fn open_writer(
    table: &Table,
    overwrite: bool,
    compact_after: bool,
    threads: usize,
) -> Result<TableWrite> {
    let (io, path, schema) = (table.file_io().clone(), table.path(), table.schema());
    let mut writer = match compact_after {
        true => TableWrite::try_new_compacted_after(io, path, schema)?,
        false => TableWrite::try_new(io, path, schema)?,
    }
    .with_threads(threads)?;
    if !table.is_primary_key_table() {
        return Ok(writer);
    }
    if overwrite {
        return Ok(writer.with_hash_index(Vec::new()));
    }
    writer = writer
        .with_restored_max_sequence_numbers(table.max_sequence_numbers()?)
        .with_hash_index(table.hash_index_files()?);
    Ok(writer)
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
