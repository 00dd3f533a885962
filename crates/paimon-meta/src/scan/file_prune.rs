//! File pruning after the live files are grouped by bucket:
//!
//! * primary-key tables: key statistics, for the predicate's key columns (Java
//!   `KeyValueFileStoreScan` key filter); value statistics only where Java uses them, because
//!   before merging an old record of a key may not match while the merged one does, or the
//!   other way round ([`ValuePruning`]).
//! * append tables: file indexes (bloom filter, bitmap), embedded in the manifest
//!   (`_EMBEDDED_FILE_INDEX`, as Java `AppendOnlyFileStoreScan` does) or as `<file>.index`
//!   sidecars listed in `_EXTRA_FILES` (Java evaluates those when reading; we can at planning).

use paimon_spec::binary::BinaryRow;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::options::{ChangelogProducer, MergeEngine};
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::schema::TableSchema;
use paimon_spec::types::{DataField, DataType};

use super::prune::{may_match, ColumnStats};
use super::stats::file_may_match;
use super::BucketFiles;
use crate::error::{Error, Result};
use crate::table::Table;
use paimon_format::file_index::{self, FileIndexFile};

/// Where the value statistics of primary-key files may prune, as Java `KeyValueFileStoreScan`
/// decides from its scan mode (the key statistics always may).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValuePruning {
    /// Delta files of an incremental or streaming read (Java `ScanMode.DELTA`): never.
    Never,
    /// Changelog files (Java `ScanMode.CHANGELOG`): each file on its own when the table's
    /// changelog producer is `lookup` or `full-compaction`, else never.
    Changelog,
    /// The live files of a snapshot (Java `ScanMode.ALL`): whole buckets
    /// (`filterWholeBucketByStats`), and each file on its own on tables whose batch reads skip
    /// level 0 (deletion vectors or `first-row`: Java's batch scan `enableValueFilter`).
    Snapshot,
}

/// Drops the files of `buckets` that cannot hold a row matching `filter`, and buckets left
/// without files.
pub(super) fn prune_buckets(
    table: &Table,
    filter: &Predicate,
    sidecars: bool,
    buckets: Vec<BucketFiles>,
    values: ValuePruning,
) -> Result<Vec<BucketFiles>> {
    let opts = table.options();
    if opts.data_evolution_enabled {
        return Ok(buckets);
    }
    let pk = table.is_primary_key_table();
    let current = table.schema();
    let per_file_values = pk
        && match values {
            ValuePruning::Never => false,
            ValuePruning::Changelog => matches!(
                opts.changelog_producer,
                ChangelogProducer::Lookup | ChangelogProducer::FullCompaction
            ),
            ValuePruning::Snapshot => opts.batch_scan_skip_level0(),
        };
    let mut out = Vec::with_capacity(buckets.len());
    for mut b in buckets {
        let mut keep = Vec::with_capacity(b.files.len());
        for f in &b.files {
            let file_schema = table.schema_manager().schema(f.schema_id)?;
            let k = if pk {
                key_stats_may_match(filter, f, current, &file_schema)
                    && (!per_file_values
                        || value_may_match(table, filter, f, &b.bucket_path, &file_schema)?)
            } else {
                index_may_match(
                    table,
                    filter,
                    f,
                    &b.bucket_path,
                    current,
                    &file_schema,
                    sidecars,
                )?
            };
            keep.push(k);
        }
        retain_files(&mut b, &keep);
        // After the per-file value filter every file left may match, which keeps the bucket
        // whole: the whole-bucket test has nothing to add.
        if pk && values == ValuePruning::Snapshot && !per_file_values && !b.files.is_empty() {
            let keep = whole_bucket(table, filter, &b)?;
            retain_files(&mut b, &keep);
        }
        if !b.files.is_empty() {
            out.push(b);
        }
    }
    Ok(out)
}

/// Keeps the files (and their deletion files) of `b` whose flag in `keep` is set.
fn retain_files(b: &mut BucketFiles, keep: &[bool]) {
    if keep.iter().all(|k| *k) {
        return;
    }
    let mut it = keep.iter();
    b.files.retain(|_| it.next().copied().unwrap_or(true));
    if let Some(d) = b.deletion_files.as_mut() {
        let mut it = keep.iter();
        d.retain(|_| it.next().copied().unwrap_or(true));
    }
}

/// Java `KeyValueFileStoreScan.filterWholeBucketByStats` over the files of one bucket that
/// survived the per-file filters: when no two files can hold the same key (all on one level
/// above 0, or a single file), each file is judged by its value statistics on its own;
/// otherwise the bucket is kept whole if any file may match, and dropped whole if none may,
/// except that `partial-update` and `aggregation` tables without deletion vectors keep it
/// whole (their merged rows combine fields of several records, so no one file's statistics
/// bound them).
fn whole_bucket(table: &Table, filter: &Predicate, b: &BucketFiles) -> Result<Vec<bool>> {
    let mut matches = Vec::with_capacity(b.files.len());
    for f in &b.files {
        let file_schema = table.schema_manager().schema(f.schema_id)?;
        matches.push(value_may_match(
            table,
            filter,
            f,
            &b.bucket_path,
            &file_schema,
        )?);
    }
    if no_overlapping(&b.files) {
        return Ok(matches);
    }
    let opts = table.options();
    let combining = matches!(
        opts.merge_engine,
        MergeEngine::PartialUpdate | MergeEngine::Aggregation
    );
    let whole = (!opts.deletion_vectors_enabled && combining) || matches.iter().any(|m| *m);
    Ok(vec![whole; b.files.len()])
}

/// Java `KeyValueFileStoreScan.noOverlapping`: at most one file, or all files on one level
/// above 0.
fn no_overlapping(files: &[DataFileMeta]) -> bool {
    match files.first() {
        None => true,
        Some(_) if files.len() == 1 => true,
        Some(first) => first.level != 0 && files.iter().all(|f| f.level == first.level),
    }
}

/// Java `KeyValueFileStoreScan.filterByValueFilter`: whether a primary-key file may hold a
/// record matching `pred` by its value statistics (all columns of the row) and, unless
/// `file-index.read.enabled` is false, its embedded file index.
fn value_may_match(
    table: &Table,
    pred: &Predicate,
    file: &DataFileMeta,
    bucket_path: &str,
    file_schema: &TableSchema,
) -> Result<bool> {
    let current = table.schema();
    if !file_may_match(pred, file, current, file_schema) {
        return Ok(false);
    }
    let index_read = table
        .options()
        .raw
        .get("file-index.read.enabled")
        .is_none_or(|v| !v.eq_ignore_ascii_case("false"));
    if !index_read || file.embedded_index.is_none() {
        return Ok(true);
    }
    index_may_match(table, pred, file, bucket_path, current, file_schema, false)
}

/// Whether a primary-key file may hold a key matching `pred`, by its key statistics. Only
/// leaves on trimmed primary-key columns are judged; everything else may match.
pub(super) fn key_stats_may_match(
    pred: &Predicate,
    file: &DataFileMeta,
    current: &TableSchema,
    file_schema: &TableSchema,
) -> bool {
    let key_fields = file_schema.trimmed_primary_key_fields();
    let (Ok(min), Ok(max)) = (file.key_stats.min_row(), file.key_stats.max_row()) else {
        return true;
    };
    if min.arity() != key_fields.len() || max.arity() != key_fields.len() {
        return true;
    }
    let lookup = |column: &str| -> Option<ColumnStats> {
        let cur = current.field(column)?;
        let pos = key_fields.iter().position(|f| f.id == cur.id)?;
        let kf = &key_fields[pos];
        if !kf.data_type.eq_ignore_nullable(&cur.data_type) {
            return None;
        }
        let ty = kf.data_type.with_nullable(true);
        let get = |row: &BinaryRow<'_>| row.get(pos, &ty).ok().filter(|d| !d.is_null());
        Some(ColumnStats {
            min: get(&min),
            max: get(&max),
            null_count: file
                .key_stats
                .null_counts
                .as_ref()
                .and_then(|n| n.get(pos).copied().flatten()),
        })
    };
    may_match(&key_only(pred, current), file.row_count, &lookup)
}

/// `pred` with every leaf on a non-key column replaced by "true", so that only key columns
/// can prune (a NOT over a value leaf also becomes "true").
fn key_only(pred: &Predicate, current: &TableSchema) -> Predicate {
    let keys = current.trimmed_primary_keys();
    fn go(p: &Predicate, keys: &[String]) -> Predicate {
        match p {
            Predicate::And(c) => Predicate::And(c.iter().map(|q| go(q, keys)).collect()),
            Predicate::Or(c) => Predicate::Or(c.iter().map(|q| go(q, keys)).collect()),
            Predicate::Not(q) => {
                if only_keys(q, keys) {
                    p.clone()
                } else {
                    Predicate::AlwaysTrue
                }
            }
            Predicate::Leaf { column, .. } if !keys.contains(column) => Predicate::AlwaysTrue,
            _ => p.clone(),
        }
    }
    fn only_keys(p: &Predicate, keys: &[String]) -> bool {
        match p {
            Predicate::And(c) | Predicate::Or(c) => c.iter().all(|q| only_keys(q, keys)),
            Predicate::Not(q) => only_keys(q, keys),
            Predicate::Leaf { column, .. } => keys.contains(column),
            Predicate::AlwaysTrue | Predicate::AlwaysFalse => true,
        }
    }
    go(pred, &keys)
}

/// Whether an append file may hold a row matching `pred` by its embedded file index and, when
/// `sidecars` is set, its `.index` sidecar files.
fn index_may_match(
    table: &Table,
    pred: &Predicate,
    file: &DataFileMeta,
    bucket_path: &str,
    current: &TableSchema,
    file_schema: &TableSchema,
    sidecars: bool,
) -> Result<bool> {
    if !has_index_leaf(pred) {
        return Ok(true);
    }
    let column = |name: &str| -> Option<(String, DataType)> {
        let cur = current.field(name)?;
        let ff: &DataField = file_schema.fields.iter().find(|f| f.id == cur.id)?;
        ff.data_type
            .eq_ignore_nullable(&cur.data_type)
            .then(|| (ff.name.clone(), ff.data_type.clone()))
    };
    if let Some(bytes) = &file.embedded_index {
        let r =
            FileIndexFile::parse(bytes).and_then(|idx| file_index::may_match(pred, &idx, &column));
        match r {
            Ok(false) => return Ok(false),
            Ok(true) => {}
            Err(e) => {
                return Err(Error::corrupt(
                    format!("{bucket_path}/{} (embedded file index)", file.file_name),
                    e.reason,
                ))
            }
        }
    }
    if !sidecars {
        return Ok(true);
    }
    for extra in file.extra_files.iter().filter(|e| e.ends_with(".index")) {
        let dir = match &file.external_path {
            Some(p) => p
                .rsplit_once('/')
                .map_or(bucket_path.to_string(), |(d, _)| d.to_string()),
            None => bucket_path.to_string(),
        };
        let path = paimon_io::join(&dir, extra);
        let bytes = table.file_io().read(&path).map_err(Error::io)?;
        let r =
            FileIndexFile::parse(&bytes).and_then(|idx| file_index::may_match(pred, &idx, &column));
        match r {
            Ok(false) => return Ok(false),
            Ok(true) => {}
            Err(e) => return Err(Error::corrupt(path, e.reason)),
        }
    }
    Ok(true)
}

/// Whether any leaf is one a file index can decide (equality, IN, IS NULL), so files are not
/// read for predicates no index can use.
fn has_index_leaf(p: &Predicate) -> bool {
    match p {
        Predicate::And(c) | Predicate::Or(c) => c.iter().any(has_index_leaf),
        Predicate::Leaf { op, .. } => matches!(op, LeafOp::Eq | LeafOp::In | LeafOp::IsNull),
        _ => false,
    }
}
