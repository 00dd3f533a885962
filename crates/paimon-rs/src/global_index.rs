//! Building BTree and bitmap global indexes (Java `GlobalIndexBuilder`, pypaimon 2.1's
//! `create_global_index`): on a row-tracked table, the rows no index of the column and type
//! covers yet are read with their `_ROW_ID`, each contiguous row range of a partition becomes
//! index files (keys sorted, NULLs first, at most `sorted-index.records-per-file` x 1.2 rows
//! a file, row ids local to the range), and one commit adds them to the index manifest as
//! global index entries of bucket 0 with the range, the column's field id and the files'
//! first/last keys (`SortedIndexFileMeta`). A second build indexes only the rows added since.
//!
//! Dropping ([`DropGlobalIndex`]) commits the removal of every index file of one column and
//! type from the index manifest in one snapshot; the files stay until snapshot expiry and
//! orphan-file removal take them, as for any file a later snapshot no longer lists.

use std::collections::BTreeMap;

use arrow_array::{Array, Int64Array};
use paimon_format::global_index::{
    encode_scalar_index, sort_index_rows, IndexRow, IndexWriteOptions, BITMAP_INDEX, BTREE_INDEX,
};
use paimon_meta::manifest::{FileKind, IndexManifestEntry};
use paimon_spec::index_file::{GlobalIndexMeta, IndexFileMeta};
use paimon_spec::options::parse_memory_size;
use paimon_split::commit::CommitMessage;
use paimon_split::Split;

use crate::error::{Error, Result};
use crate::table::Table;

/// Java `BatchWriteBuilder.COMMIT_IDENTIFIER`.
const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;
/// pypaimon / Java: a sorted index file holds up to this factor times the records per file.
const RECORDS_PER_FILE_FLOATING: f64 = 1.2;
const DEFAULT_RECORDS_PER_FILE: i64 = 25_000_000;
const ARG: &str = "create_global_index";

/// What a build did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalIndexReport {
    /// Index files written and committed.
    pub files: usize,
    /// Rows indexed (NULL rows included).
    pub rows: u64,
    /// The inclusive row ranges indexed, per file.
    pub row_ranges: Vec<(i64, i64)>,
    /// The snapshots committed (empty when every row was already indexed).
    pub snapshots: Vec<i64>,
}

/// Builds a BTree or bitmap global index of one column: `table.create_global_index("id",
/// "btree").run()`.
#[derive(Debug, Clone)]
pub struct CreateGlobalIndex {
    table: Table,
    column: String,
    index_type: String,
    options: BTreeMap<String, String>,
    commit_user: String,
}

impl CreateGlobalIndex {
    /// A build of `index_type` (`btree` or `bitmap`) over `column` of `table`.
    pub fn new(table: &Table, column: impl Into<String>, index_type: impl Into<String>) -> Self {
        CreateGlobalIndex {
            table: table.clone(),
            column: column.into(),
            index_type: index_type.into().trim().to_ascii_lowercase(),
            options: BTreeMap::new(),
            commit_user: uuid::Uuid::new_v4().to_string(),
        }
    }

    /// An option for this build over the table's (`sorted-index.records-per-file`,
    /// `btree-index.block-size`, `bitmap-index.dictionary-block-size`).
    pub fn with_option(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.options.insert(key.into(), value.into());
        self
    }

    /// The commit user (a fresh UUID by default, as Java's batch writes: each build commits with
    /// the batch identifier, which one user commits once).
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = user.into();
        self
    }

    fn option(&self, key: &str) -> Option<&String> {
        self.options
            .get(key)
            .or_else(|| self.table.meta().options().raw.get(key))
    }

    fn memory_option(&self, key: &str, default: usize) -> Result<usize> {
        match self.option(key) {
            None => Ok(default),
            Some(v) => parse_memory_size(v)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    Error::invalid(ARG, format!("option {key} = '{v}' is not a positive size"))
                }),
        }
    }

    fn records_per_file(&self) -> Result<usize> {
        let key = [
            "sorted-index.records-per-file",
            "sorted-index.records-per-range",
            "btree-index.records-per-range",
        ]
        .into_iter()
        .find(|k| self.option(k).is_some());
        let n = match key {
            None => DEFAULT_RECORDS_PER_FILE,
            Some(k) => {
                let v = self.option(k).map(String::as_str).unwrap_or_default();
                v.trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| {
                        Error::invalid(ARG, format!("option {k} = '{v}' is not a positive count"))
                    })?
            }
        };
        Ok(((n as f64) * RECORDS_PER_FILE_FLOATING) as usize)
    }

    fn write_options(&self) -> Result<IndexWriteOptions> {
        if self
            .option("btree-index.bloom-filter.enabled")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        {
            return Err(Error::invalid(
                ARG,
                "btree-index.bloom-filter.enabled = true: BTree bloom filters are not written yet",
            ));
        }
        if let Some(c) = self
            .option("bitmap-index.compression")
            .filter(|c| !c.trim().eq_ignore_ascii_case("none"))
        {
            return Err(Error::invalid(
                ARG,
                format!("bitmap-index.compression = '{c}': only none is written"),
            ));
        }
        let d = IndexWriteOptions::default();
        Ok(IndexWriteOptions {
            btree_block_size: self.memory_option("btree-index.block-size", d.btree_block_size)?,
            bitmap_dictionary_block_size: self.memory_option(
                "bitmap-index.dictionary-block-size",
                d.bitmap_dictionary_block_size,
            )?,
        })
    }

    /// Builds and commits the index files for the rows of the latest snapshot not yet
    /// indexed by this column and type.
    ///
    /// # Errors
    /// An index type other than `btree`/`bitmap`, an unknown column, a table without row
    /// tracking, a column type the format does not index; read, storage and commit errors
    /// (the files written are deleted again when the commit fails).
    pub fn run(&self) -> Result<GlobalIndexReport> {
        if self.index_type != BTREE_INDEX && self.index_type != BITMAP_INDEX {
            return Err(Error::invalid(
                ARG,
                format!(
                    "index type '{}' (btree and bitmap are built)",
                    self.index_type
                ),
            ));
        }
        let meta = self.table.meta();
        if !meta.options().row_tracking_enabled {
            return Err(Error::invalid(
                ARG,
                format!(
                    "table {} must enable 'row-tracking.enabled=true' before creating a global index",
                    meta.path()
                ),
            ));
        }
        let field = meta.schema().field(&self.column).cloned().ok_or_else(|| {
            Error::invalid(
                ARG,
                format!("unknown column '{}' in {}", self.column, meta.path()),
            )
        })?;
        let options = self.write_options()?;
        let per_file = self.records_per_file()?;
        let Some(snapshot) = meta.snapshot_manager().latest()? else {
            return Ok(GlobalIndexReport::default());
        };
        let indexed = self.indexed_ranges(&snapshot, field.id)?;

        // Contiguous row ranges of each partition's files, less what is indexed.
        let plan = self.table.scan().with_snapshot(snapshot.id).plan()?;
        let mut by_partition: BTreeMap<Vec<u8>, Vec<(i64, i64)>> = BTreeMap::new();
        for split in &plan.splits {
            let data = match split {
                Split::Data(d) => d,
                Split::Indexed(i) => &i.split,
                _ => {
                    return Err(Error::invalid(
                        ARG,
                        "the table's plan holds a split of another kind",
                    ))
                }
            };
            for f in &data.data_files {
                let (Some(first), true) = (f.first_row_id, f.row_count > 0) else {
                    if f.row_count > 0 {
                        return Err(Error::invalid(
                            ARG,
                            format!("data file {} has no row id range", f.file_name),
                        ));
                    }
                    continue;
                };
                by_partition
                    .entry(data.partition.clone())
                    .or_default()
                    .push((first, first + f.row_count - 1));
            }
        }
        let mut ranges: Vec<(Vec<u8>, (i64, i64))> = Vec::new();
        for (partition, files) in by_partition {
            for r in subtract(&merge(files), &indexed) {
                ranges.push((partition.clone(), r));
            }
        }
        if ranges.is_empty() {
            return Ok(GlobalIndexReport::default());
        }

        // The column with its row ids, bucketed by range.
        let batches = self
            .table
            .scan()
            .with_snapshot(snapshot.id)
            .with_projection([self.column.as_str(), "_ROW_ID"])
            .to_arrow()?;
        let mut order: Vec<usize> = (0..ranges.len()).collect();
        order.sort_by_key(|i| ranges[*i].1 .0);
        let mut rows: Vec<Vec<IndexRow>> = vec![Vec::new(); ranges.len()];
        for b in &batches {
            let keys = b.column(0);
            let ids = b
                .column(1)
                .as_any()
                .downcast_ref::<Int64Array>()
                .ok_or_else(|| Error::invalid(ARG, "_ROW_ID is not a BIGINT column"))?;
            for i in 0..b.num_rows() {
                if ids.is_null(i) {
                    return Err(Error::invalid(
                        ARG,
                        "cannot build a global index: _ROW_ID is null",
                    ));
                }
                let id = ids.value(i);
                let at = order.partition_point(|r| ranges[*r].1 .0 <= id);
                let Some(slot) = at.checked_sub(1).map(|a| order[a]) else {
                    continue;
                };
                let (start, end) = ranges[slot].1;
                if id > end {
                    continue;
                }
                let key =
                    paimon_data::datum::datum_at(keys, i, &field.data_type).ok_or_else(|| {
                        Error::invalid(
                            ARG,
                            format!(
                                "column '{}' of type {:?} cannot be indexed",
                                self.column, field.data_type.kind
                            ),
                        )
                    })?;
                rows[slot].push((key, (id - start) as u64));
            }
        }

        let io = meta.file_io();
        let mut written: Vec<(Vec<u8>, IndexFileMeta)> = Vec::new();
        let mut report = GlobalIndexReport::default();
        let result = (|| -> Result<()> {
            for (slot, (partition, (start, end))) in ranges.iter().enumerate() {
                let mut range_rows = std::mem::take(&mut rows[slot]);
                if range_rows.is_empty() {
                    continue;
                }
                sort_index_rows(&mut range_rows);
                for chunk in range_rows.chunks(per_file.max(1)) {
                    let encoded =
                        encode_scalar_index(&self.index_type, chunk, &field.data_type, &options)
                            .map_err(|e| Error::invalid(ARG, e.to_string()))?;
                    let name = format!(
                        "{}-global-index-{}.index",
                        self.index_type,
                        uuid::Uuid::new_v4()
                    );
                    io.write_new(&meta.layout().index_path(&name), &encoded.bytes)?;
                    report.rows += encoded.row_count as u64;
                    report.row_ranges.push((*start, *end));
                    written.push((
                        partition.clone(),
                        IndexFileMeta {
                            index_type: self.index_type.clone(),
                            file_name: name,
                            file_size: encoded.bytes.len() as i64,
                            row_count: encoded.row_count,
                            dv_ranges: None,
                            external_path: None,
                            global_index: Some(GlobalIndexMeta {
                                row_range_start: *start,
                                row_range_end: *end,
                                index_field_id: field.id,
                                extra_field_ids: None,
                                index_meta: Some(encoded.meta),
                                source_meta: None,
                                build_schema_id: None,
                            }),
                        },
                    ));
                }
            }
            Ok(())
        })();
        let messages: Vec<CommitMessage> = written
            .iter()
            .map(|(partition, f)| {
                let mut m = CommitMessage::new(partition.clone(), 0);
                m.data_increment.new_index_files.push(f.clone());
                m
            })
            .collect();
        let commit = self.table.new_commit(&self.commit_user);
        if let Err(e) = result {
            let _ = commit.abort(&messages);
            return Err(e);
        }
        if messages.is_empty() {
            return Ok(report);
        }
        match commit.commit(BATCH_COMMIT_IDENTIFIER, &messages) {
            Ok(ids) => {
                report.files = messages.len();
                report.snapshots = ids;
                Ok(report)
            }
            Err(e) => {
                // A snapshot that may have landed references the files: keep them.
                if !e.keeps_commit_files() {
                    let _ = commit.abort(&messages);
                }
                Err(e)
            }
        }
    }

    /// Row ranges the snapshot's index files of this type and column already cover.
    fn indexed_ranges(
        &self,
        snapshot: &paimon_meta::Snapshot,
        field_id: i32,
    ) -> Result<Vec<(i64, i64)>> {
        let out = index_entries(&self.table, snapshot)?
            .iter()
            .filter(|e| is_index_of(e, &self.index_type, field_id))
            .filter_map(|e| e.index_file.global_index.as_ref())
            .map(|g| (g.row_range_start, g.row_range_end))
            .collect();
        Ok(merge(out))
    }
}

/// `ranges` sorted, with overlapping and adjacent ranges joined.
fn merge(mut ranges: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    ranges.sort_unstable();
    let mut out: Vec<(i64, i64)> = Vec::new();
    for (s, e) in ranges {
        match out.last_mut() {
            Some((_, last)) if s <= last.saturating_add(1) => *last = (*last).max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// The parts of the sorted, disjoint `ranges` outside the sorted, disjoint `minus`.
fn subtract(ranges: &[(i64, i64)], minus: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for &(s, e) in ranges {
        let mut from = s;
        for &(ms, me) in minus {
            if me < from || ms > e {
                continue;
            }
            if ms > from {
                out.push((from, ms - 1));
            }
            from = me.saturating_add(1);
            if from > e {
                break;
            }
        }
        if from <= e {
            out.push((from, e));
        }
    }
    out
}

/// What a drop did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DropGlobalIndexReport {
    /// Index files removed from the index manifest.
    pub files: usize,
    /// The snapshots committed (empty when the table held no such index).
    pub snapshots: Vec<i64>,
}

/// Drops the global index of one column and type: `table.drop_global_index("id",
/// "btree").run()`.
#[derive(Debug, Clone)]
pub struct DropGlobalIndex {
    table: Table,
    column: String,
    index_type: String,
    commit_user: String,
}

impl DropGlobalIndex {
    /// A drop of the `index_type` index over `column` of `table`.
    pub fn new(table: &Table, column: impl Into<String>, index_type: impl Into<String>) -> Self {
        DropGlobalIndex {
            table: table.clone(),
            column: column.into(),
            index_type: index_type.into(),
            commit_user: format!("drop-global-index-{}", uuid::Uuid::new_v4()),
        }
    }

    /// Commits as `user` instead of a fresh one.
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = user.into();
        self
    }

    /// Removes the index's entries from the latest snapshot's index manifest in one commit.
    ///
    /// # Errors
    /// An unknown column; read, storage and commit errors (nothing is committed then).
    pub fn run(&self) -> Result<DropGlobalIndexReport> {
        let meta = self.table.meta();
        let field = meta.schema().field(&self.column).ok_or_else(|| {
            Error::invalid(
                "drop_global_index",
                format!("unknown column '{}' in {}", self.column, meta.path()),
            )
        })?;
        let Some(snapshot) = meta.snapshot_manager().latest()? else {
            return Ok(DropGlobalIndexReport::default());
        };
        let mut by_bucket: BTreeMap<(Vec<u8>, i32), Vec<IndexFileMeta>> = BTreeMap::new();
        for e in index_entries(&self.table, &snapshot)? {
            if is_index_of(&e, &self.index_type, field.id) {
                by_bucket
                    .entry((e.partition, e.bucket))
                    .or_default()
                    .push(e.index_file);
            }
        }
        let messages: Vec<CommitMessage> = by_bucket
            .into_iter()
            .map(|((partition, bucket), files)| {
                let mut m = CommitMessage::new(partition, bucket);
                m.data_increment.deleted_index_files = files;
                m
            })
            .collect();
        if messages.is_empty() {
            return Ok(DropGlobalIndexReport::default());
        }
        let files = messages
            .iter()
            .map(|m| m.data_increment.deleted_index_files.len())
            .sum();
        let snapshots = self
            .table
            .new_commit(&self.commit_user)
            .commit(BATCH_COMMIT_IDENTIFIER, &messages)?;
        Ok(DropGlobalIndexReport { files, snapshots })
    }
}

/// The index manifest entries of `snapshot` (none without an index manifest).
fn index_entries(
    table: &Table,
    snapshot: &paimon_meta::Snapshot,
) -> Result<Vec<IndexManifestEntry>> {
    let Some(name) = &snapshot.index_manifest else {
        return Ok(Vec::new());
    };
    let meta = table.meta();
    let path = meta.layout().manifest_path(name);
    let bytes = meta.file_io().read(&path)?;
    Ok(IndexManifestEntry::decode_index_manifest(&path, bytes)?)
}

/// Whether `e` adds a global index file of `index_type` over the one field `field_id`.
fn is_index_of(e: &IndexManifestEntry, index_type: &str, field_id: i32) -> bool {
    let f = &e.index_file;
    f.global_index.as_ref().is_some_and(|g| {
        e.kind == FileKind::Add
            && f.index_type == index_type
            && g.index_field_id == field_id
            && g.extra_field_ids.as_ref().is_none_or(|x| x.is_empty())
    })
}

impl Table {
    /// A build of a BTree or bitmap global index over `column` (see [`CreateGlobalIndex`]).
    pub fn create_global_index(
        &self,
        column: impl Into<String>,
        index_type: impl Into<String>,
    ) -> CreateGlobalIndex {
        CreateGlobalIndex::new(self, column, index_type)
    }

    /// A drop of the global index of `index_type` over `column` (see [`DropGlobalIndex`]).
    pub fn drop_global_index(
        &self,
        column: impl Into<String>,
        index_type: impl Into<String>,
    ) -> DropGlobalIndex {
        DropGlobalIndex::new(self, column, index_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_subtract() {
        assert_eq!(
            merge(vec![(5, 9), (0, 4), (12, 20), (15, 16)]),
            vec![(0, 9), (12, 20)]
        );
        assert_eq!(
            subtract(&[(0, 9), (12, 20)], &[(0, 3), (8, 13), (20, 25)]),
            vec![(4, 7), (14, 19)]
        );
        assert_eq!(subtract(&[(0, 199)], &[(0, 199)]), Vec::<(i64, i64)>::new());
    }
}
