//! Running a [`CompactTask`]: its input files read with paimon-data's split reader, the rows
//! written again with the table's writers, and a [`CommitMessage`] whose compact increment
//! retires the inputs (Java `AppendCompactTask.doCompact`, `BaseAppendFileStoreWrite
//! .compactRewrite`, `MergeTreeCompactTask`, `MergeTreeCompactRewriter`).
//!
//! ```text
//! append:      f1 f2 f3 (+ deletion vectors) ──read in order, DVs applied──▶ g1 g2 (level 0)
//! merge tree:  sections of sorted runs
//!              ┌ one run, file >= min size ──────────────────────────────▶ same file, level N
//!              └ overlapping runs / small files ──merge (engine, drop -D)──▶ new files, level N
//!              (a file with a deletion vector is always merged, its deleted rows skipped)
//! ```
//!
//! A worker never reads snapshots: everything it needs is in the task.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, Int8Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use paimon_data::merge::{
    merge_sorted_runs, with_level, with_level_field, MergeEngineSpec, MergeOptions, RowKindColumn,
    RunLayout, SortedRun,
};
use paimon_data::reader::{ROW_ID, SEQUENCE_NUMBER};
use paimon_data::SplitReader;
use paimon_io::FileIORef;
use paimon_spec::data_file::{DataFileMeta, DeletionFile, FILE_SOURCE_COMPACT};
use paimon_spec::index_file::IndexFileMeta;
use paimon_spec::layout::{self, DataFileNames, TableRoots};
use paimon_spec::options::{ChangelogProducer, CoreOptions, MergeEngine};
use paimon_spec::schema::TableSchema;
use paimon_spec::types::{DataField, DataType};
use paimon_split::commit::{CommitMessage, CompactIncrement};
use paimon_split::{CompactLookup, CompactRewrite, CompactTask, DataSplit};

use crate::compact_changelog::FullChangelog;
use crate::compact_lookup::{Found, KeyCodec, LookupState};
use crate::dv_index::BucketVectors;
use crate::error::{Error, Result};
use crate::paths::{bucket_dir_of, DataFilePathFactory};
use crate::rolling::{FileContextRef, RollingWriter};
use crate::table_write::TableWrite;

/// The row-kind column a read with row kinds leads with.
const ROW_KIND: &str = "_ROW_KIND";

/// Runs compaction tasks of one table; build once per table and schema.
#[derive(Debug)]
pub struct TableCompact {
    file_io: FileIORef,
    root: String,
    table: String,
    fields: Vec<DataField>,
    /// The partition columns, whose values name a task's bucket directory.
    partition_fields: Vec<DataField>,
    /// Where the table's files may lie: a task's paths must pass this rule.
    roots: TableRoots,
    core: CoreOptions,
    ctx: FileContextRef,
    /// Primary-key tables: the trimmed primary-key columns of the row.
    key_indices: Option<Vec<usize>>,
    batch_size: usize,
}

impl TableCompact {
    /// A compaction worker for the table at `root` with its current `schema`.
    ///
    /// # Errors
    /// As [`TableWrite::try_new`]: the table shapes the writers refuse cannot be compacted
    /// either.
    pub fn try_new(file_io: FileIORef, root: &str, schema: &TableSchema) -> Result<Self> {
        let write = TableWrite::for_compaction(file_io.clone(), root, schema)?;
        let roots = TableRoots::new(root).with_external(&write.core.data_file_external_paths);
        Ok(TableCompact {
            file_io,
            root: root.to_string(),
            table: write.table,
            fields: write.fields,
            partition_fields: schema.partition_fields(),
            roots,
            core: write.core,
            ctx: write.ctx,
            key_indices: write.pk.map(|p| p.key_indices),
            batch_size: paimon_data::reader::DEFAULT_BATCH_SIZE,
        })
    }

    /// Rows per batch read from the inputs. Default paimon-data's `DEFAULT_BATCH_SIZE`.
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows.max(1);
        self
    }

    /// Rewrites the files of `task` and returns the message that commits the result. A task
    /// without files gives an empty message. Files written by a failed run are deleted.
    ///
    /// The task's paths are not trusted: new files go to the bucket directory derived from
    /// the task's partition and bucket (its `bucket_path` is ignored), and every file name,
    /// external path and index file it names must pass the path rule of
    /// [`paimon_spec::layout::TableRoots`] before anything is read or written.
    ///
    /// # Errors
    /// [`Error::Spec`] ([`paimon_spec::Error::PathNotAllowed`]) when a path of the task is
    /// refused; [`Error::Read`] when an input cannot be read; [`Error::Unsupported`] for a
    /// task this worker cannot run (a merge-tree task on an append table or the other way
    /// round); storage and encoder errors.
    pub fn run(&self, task: &CompactTask) -> Result<CommitMessage> {
        let confined = self.confine(&task.split)?;
        let split = &confined;
        self.check_index_files(&task.deleted_index_files)?;
        let task_lookup = match &task.lookup {
            Some(l) => {
                self.check_index_files(&l.index_files)?;
                Some(CompactLookup {
                    higher_levels: self.confine(&l.higher_levels)?,
                    index_files: l.index_files.clone(),
                })
            }
            None => None,
        };
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut new_index = Vec::new();
        let mut deleted_index = task.deleted_index_files.clone();
        let mut changelog = Vec::new();
        match (&task.rewrite, self.key_indices.is_some()) {
            (CompactRewrite::Append, false) => {
                if let Some(first) = split.data_files.first() {
                    let start = first.min_sequence_number.saturating_sub(1);
                    let writer = self.writer(split, 0, start);
                    after = self.rewrite_append(split, writer)?;
                    before = split.data_files.clone();
                }
            }
            (
                CompactRewrite::MergeTree {
                    output_level,
                    max_level,
                    drop_delete,
                    min_file_size,
                },
                true,
            ) => {
                // Below the last level the older copies of the merged keys must be marked in
                // deletion vectors (lookup compaction), for which the task names them.
                let dv = self.core.deletion_vectors_enabled;
                let full = output_level == max_level && *drop_delete;
                let first_row = self.core.merge_engine == MergeEngine::FirstRow;
                // Java refuses deletion vectors beside the full-compaction producer
                // (`SchemaValidation`); `input` and `lookup` compact as without a producer
                // and with the lookup changelog.
                if dv && self.core.changelog_producer == ChangelogProducer::FullCompaction {
                    return Err(self.unsupported(
                        "compacting a table with deletion vectors and changelog-producer = \
                         full-compaction (Java does not allow them together)",
                    ));
                }
                if (dv && task.lookup.is_none() && !full)
                    || (dv && !drop_delete)
                    || (!dv && !first_row && task.lookup.is_some() && !self.core.lookup_merge())
                {
                    return Err(self.unsupported(&format!(
                        "a compaction into level {output_level} of {max_level} (dropping \
                         retractions: {drop_delete}, lookup: {}) of a table {} deletion vectors",
                        task.lookup.is_some(),
                        if dv { "with" } else { "without" }
                    )));
                }
                // Java's lookup producer writes a changelog for every key with a level-0
                // record when it compacts (`LookupChangelogMergeFunctionWrapper`), against the
                // key's copy in the inputs or, failing that, in the levels below the output:
                // below the last level the task must name those levels.
                if self.core.changelog_producer == ChangelogProducer::Lookup
                    && output_level != max_level
                    && task.lookup.is_none()
                    && split.data_files.iter().any(|f| f.level == 0)
                {
                    return Err(self.unsupported(
                        "compacting level-0 files of a table with changelog-producer = lookup \
                         below the last level without the levels under the output to look \
                         their keys up in",
                    ));
                }
                let plan = MergePlan {
                    output_level: *output_level,
                    max_level: *max_level,
                    min_file_size: *min_file_size,
                    drop_delete: *drop_delete,
                };
                let lookup = match &task_lookup {
                    Some(l) => Some(self.prepare_lookup(split, l)?),
                    None => None,
                };
                let (lookup, written_changelog) =
                    self.run_merge_tree(split, &plan, lookup, &mut before, &mut after)?;
                changelog = written_changelog;
                if let Some(mut lookup) = lookup {
                    lookup.retire(&before, &after);
                    if lookup.vectors.is_modified() {
                        new_index = lookup
                            .vectors
                            .write(
                                &self.file_io,
                                &self.root,
                                &self.table,
                                self.core.deletion_vectors_bitmap64,
                            )?
                            .into_iter()
                            .collect();
                        deleted_index = lookup.index_files;
                    }
                }
            }
            (rewrite, _) => {
                return Err(self.unsupported(&format!(
                    "a {rewrite:?} compaction task on a table {} a primary key",
                    if self.key_indices.is_some() {
                        "with"
                    } else {
                        "without"
                    }
                )))
            }
        }
        Ok(CommitMessage::new(split.partition.clone(), split.bucket)
            .with_total_buckets(split.total_buckets)
            .with_compact_increment(CompactIncrement {
                compact_before: before,
                compact_after: after,
                changelog_files: changelog,
                new_index_files: new_index,
                deleted_index_files: deleted_index,
            }))
    }

    /// `split` with the bucket directory derived from its partition and bucket, once its
    /// files' names and external paths pass the path rule.
    fn confine(&self, split: &DataSplit) -> Result<DataSplit> {
        for f in split.data_files.iter().chain(&split.before_files) {
            layout::check_file_name("DataFileMeta.fileName", &f.file_name)?;
            if let Some(p) = &f.external_path {
                self.roots.check("_EXTERNAL_PATH", p)?;
            }
        }
        Ok(DataSplit {
            bucket_path: self.output_dir(split)?,
            ..split.clone()
        })
    }

    /// The directory a task over `split` writes its files to: the bucket directory of the
    /// split's partition and bucket under the table, whatever its `bucket_path` says.
    ///
    /// # Errors
    /// As [`bucket_dir_of`]: the partition row does not decode or fit the table.
    pub fn output_dir(&self, split: &DataSplit) -> Result<String> {
        bucket_dir_of(
            &self.root,
            &self.table,
            &self.partition_fields,
            &self.core,
            &split.partition,
            split.bucket,
        )
    }

    /// Refuses index files whose name is not one plain name or whose external path lies
    /// outside the table's roots.
    fn check_index_files(&self, files: &[IndexFileMeta]) -> Result<()> {
        for f in files {
            layout::check_file_name("IndexFileMeta.fileName", &f.file_name)?;
            if let Some(p) = &f.external_path {
                self.roots.check("IndexFileMeta.externalPath", p)?;
            }
        }
        Ok(())
    }

    fn unsupported(&self, what: &str) -> Error {
        Error::Unsupported {
            feature: format!("table {}: {what}", self.table),
        }
    }

    fn writer(&self, split: &DataSplit, level: i32, restored_max_sequence: i64) -> RollingWriter {
        let paths = DataFilePathFactory::new(
            split.bucket_path.clone(),
            DataFileNames::from_options(&self.core),
        );
        RollingWriter::new(self.ctx.clone(), paths, restored_max_sequence)
            .with_level(level)
            .with_file_source(FILE_SOURCE_COMPACT)
    }

    fn reader(&self, with_sequence: bool) -> SplitReader {
        let mut names: Vec<String> = self.fields.iter().map(|f| f.name.clone()).collect();
        if self.row_tracked() {
            names.push(ROW_ID.to_string());
        }
        if with_sequence || self.row_tracked() {
            names.push(SEQUENCE_NUMBER.to_string());
        }
        SplitReader::builder(self.file_io.clone())
            .with_batch_size(self.batch_size)
            .with_projection(names)
            .with_row_kind(with_sequence)
            .build()
    }

    fn read_err(&self, source: paimon_data::Error) -> Error {
        Error::Read {
            table: self.table.clone(),
            source: Box::new(source),
        }
    }

    /// An append table whose rows keep their ids: its compacted files hold each row's
    /// `_ROW_ID` and `_SEQUENCE_NUMBER` as read ([`crate::rolling::FileKind::RowTracked`]).
    fn row_tracked(&self) -> bool {
        self.key_indices.is_none() && self.core.row_tracking_enabled
    }

    /// Writes every row of `split` (deletion vectors applied) through `writer`. The files of
    /// a row-tracked table are read in the order of their first row ids, so that the rows of
    /// adjacent files keep running on in one output file.
    fn rewrite_append(
        &self,
        split: &DataSplit,
        mut writer: RollingWriter,
    ) -> Result<Vec<DataFileMeta>> {
        let mut raw = split.clone();
        raw.raw_convertible = true;
        raw.is_streaming = false;
        if self.row_tracked() {
            order_by_first_row_id(&mut raw);
        }
        let result = (|| {
            let batches = self
                .reader(false)
                .read(&self.root, &raw)
                .map_err(|e| self.read_err(e))?;
            for batch in batches {
                let batch = batch.map_err(|e| self.read_err(e))?;
                let batch = self.to_file_schema(batch.columns().to_vec())?;
                writer.write(&batch)?;
            }
            writer.prepare_commit()
        })();
        if result.is_err() {
            writer.abort();
        }
        result
    }

    fn run_merge_tree(
        &self,
        split: &DataSplit,
        plan: &MergePlan,
        lookup: Option<LookupState>,
        before: &mut Vec<DataFileMeta>,
        after: &mut Vec<DataFileMeta>,
    ) -> Result<(Option<LookupState>, Vec<DataFileMeta>)> {
        let key_types = self.key_types();
        let sections = paimon_data::merge::interval_partition(&split.data_files, &key_types)
            .map_err(|e| {
                self.read_err(paimon_data::Error::Merge {
                    bucket: split.bucket_path.clone(),
                    source: e,
                })
            })?;
        let mut state = MergeState {
            split,
            plan,
            before,
            after,
            written: Vec::new(),
            lookup,
            changelog: Vec::new(),
        };
        let result = (|| {
            let mut candidate: Vec<Vec<Vec<usize>>> = Vec::new();
            for section in sections {
                if section.len() > 1 {
                    candidate.push(section);
                    continue;
                }
                for file in section.into_iter().flatten() {
                    if split.data_files[file].file_size < plan.min_file_size {
                        candidate.push(vec![vec![file]]);
                    } else {
                        self.rewrite_candidate(&mut state, &mut candidate)?;
                        self.upgrade(&mut state, file)?;
                    }
                }
            }
            self.rewrite_candidate(&mut state, &mut candidate)
        })();
        if result.is_err() {
            for path in &state.written {
                let _ = self.file_io.delete(path);
            }
        }
        result.map(|()| (state.lookup, state.changelog))
    }

    /// Restores the bucket's vectors and scans the levels above the output for the keys of
    /// the task's level-0 files ([`crate::compact_lookup`]).
    fn prepare_lookup(&self, split: &DataSplit, lookup: &CompactLookup) -> Result<LookupState> {
        // A vector of a file the task names must delete rows that file has.
        let rows: std::collections::HashMap<&str, u64> = split
            .data_files
            .iter()
            .chain(&lookup.higher_levels.data_files)
            .map(|f| {
                (
                    f.file_name.as_str(),
                    u64::try_from(f.row_count).unwrap_or(0),
                )
            })
            .collect();
        let vectors = BucketVectors::restore(
            &self.file_io,
            &self.roots,
            &self.table,
            &lookup.index_files,
            &|name| rows.get(name).copied(),
        )?;
        let (reader, schema) = self.record_reader()?;
        let codec = KeyCodec::try_new(&schema, self.key_indices.as_deref().unwrap_or(&[]))?;
        let read = |s: &DataSplit, i: usize, visit: &mut dyn FnMut(RecordBatch) -> Result<()>| {
            self.read_records(&reader, &schema, s, i, visit)
        };
        let found = if self.core.deletion_vectors_enabled {
            Found::Mark
        } else if self.core.merge_engine == MergeEngine::FirstRow {
            Found::DropNew
        } else {
            Found::Merge
        };
        LookupState::prepare(split, lookup, found, vectors, &codec, &read)
    }

    /// Java `MergeTreeCompactTask.rewrite`: a lone run of a lone section is upgraded file by
    /// file, anything else is merged.
    fn rewrite_candidate(
        &self,
        state: &mut MergeState<'_>,
        candidate: &mut Vec<Vec<Vec<usize>>>,
    ) -> Result<()> {
        if candidate.is_empty() {
            return Ok(());
        }
        if candidate.len() == 1 && candidate[0].len() <= 1 {
            let files: Vec<usize> = candidate.drain(..).flatten().flatten().collect();
            for f in files {
                self.upgrade(state, f)?;
            }
            return Ok(());
        }
        let files: Vec<usize> = candidate.drain(..).flatten().flatten().collect();
        self.merge_files(state, &files)
    }

    /// Java `MergeTreeCompactTask.upgrade`: a file with retractions going to the last level
    /// is rewritten alone; otherwise only its level changes.
    fn upgrade(&self, state: &mut MergeState<'_>, file: usize) -> Result<()> {
        let meta = &state.split.data_files[file];
        let has_deletes = meta.delete_row_count.is_none_or(|d| d > 0);
        let last = state.plan.output_level == state.plan.max_level;
        let rewrite = if state.lookup.is_some() {
            // Java `LookupMergeTreeCompactRewriter.upgradeStrategy`: a level-0 file moves up
            // as it is only when merging cannot change its rows (no retractions to drop, and
            // the last level or a plain deduplicate table); its keys' older copies are marked
            // either way. A file above level 0 keeps its vector.
            let marks = self.core.deletion_vectors_enabled
                || self.core.merge_engine == MergeEngine::FirstRow;
            (last && has_deletes)
                || (meta.level == 0
                    && ((marks && has_deletes)
                        || !(last
                            || (self.core.merge_engine == MergeEngine::Deduplicate
                                && self.core.sequence_fields.is_empty()))))
        } else {
            // Full compaction: a file with a deletion vector is rewritten without the deleted
            // rows, and the task retires the index file holding its vector.
            (last && has_deletes) || state.split.deletion_file(file).is_some()
        };
        if rewrite {
            return self.merge_files(state, &[file]);
        }
        if meta.level != state.plan.output_level {
            let changelog = match self.changelog_mode(state.plan) {
                Some(ChangelogMode::Full) => true,
                Some(ChangelogMode::Lookup) => meta.level == 0,
                None => false,
            };
            if changelog && state.lookup.is_some() && !last {
                // Java's `CHANGELOG_NO_REWRITE` below the last level: the changelog comes
                // from merging the file with its keys' copies below, the file only moves.
                return self.merge(state, &[file], false);
            }
            if changelog {
                self.upgrade_changelog(state, file)?;
            }
            let mut upgraded = meta.clone();
            upgraded.level = state.plan.output_level;
            state.before.push(meta.clone());
            state.after.push(upgraded);
        }
        Ok(())
    }

    /// A file moved up to the last level unchanged: each of its records is new there, so the
    /// changelog inserts it (Java's `FullChangelogMergeFunctionWrapper` over a lone record, or
    /// the lookup producer's upgrade of a level-0 file whose keys no other file holds; the
    /// file holds no retraction, or it would have been rewritten).
    fn upgrade_changelog(&self, state: &mut MergeState<'_>, file: usize) -> Result<()> {
        let split = state.split;
        let (reader, schema) = self.record_reader()?;
        let mut writer = self.changelog_writer(split, state.plan);
        let n = self.fields.len();
        let result = self
            .read_records(&reader, &schema, split, file, &mut |b| {
                let mut columns = b.columns().to_vec();
                columns[n + 1] = Arc::new(Int8Array::from(vec![0i8; b.num_rows()]));
                let inserts = RecordBatch::try_new(b.schema(), columns)
                    .map_err(|e| Error::Internal(format!("changelog rows: {e}")))?;
                writer.write(&self.to_key_value(&inserts)?)
            })
            .and_then(|()| writer.prepare_commit());
        match result {
            Ok(files) => {
                state.track(&files);
                state.changelog.extend(files);
                Ok(())
            }
            Err(e) => {
                writer.abort();
                Err(e)
            }
        }
    }

    /// Merges `files` into new files of the output level: each key-disjoint section's sorted
    /// runs are read as they are stored (a streaming read: records with their sequence numbers
    /// and kinds, unmerged) and merged with the table's merge engine, retractions dropped.
    fn merge_files(&self, state: &mut MergeState<'_>, files: &[usize]) -> Result<()> {
        self.merge(state, files, true)
    }

    /// As `merge_files`, or with `rewrite` false only the changelog of the merge, the files
    /// moving to the output level unchanged.
    fn merge(&self, state: &mut MergeState<'_>, files: &[usize], rewrite: bool) -> Result<()> {
        let split = state.split;
        let inputs: Vec<DataFileMeta> =
            files.iter().map(|i| split.data_files[*i].clone()).collect();
        let input_dvs: Vec<Option<DeletionFile>> = files
            .iter()
            .map(|i| split.deletion_file(*i).cloned())
            .collect();
        let mut writer = self.writer(split, state.plan.output_level, -1);
        let changelog_mode = self.changelog_mode(state.plan);
        let mut changelog_writer = changelog_mode.map(|_| self.changelog_writer(split, state.plan));
        let result = (|| {
            let merge_err = |source| {
                self.read_err(paimon_data::Error::Merge {
                    bucket: split.bucket_path.clone(),
                    source,
                })
            };
            let sections = paimon_data::merge::interval_partition(&inputs, &self.key_types())
                .map_err(merge_err)?;
            let (reader, schema) = self.record_reader()?;
            // Lookup tables merge a key's level-0 records with its shallowest copy only
            // (Java `LookupMergeFunction`): every record then carries its file's level.
            let levels = self.core.lookup_merge();
            let run_schema = match levels {
                true => with_level_field(&schema),
                false => schema.clone(),
            };
            let (layout, engine) = self.merge_setup(&run_schema).map_err(merge_err)?;
            let codec = match state.lookup.is_some() || changelog_mode.is_some() {
                true => Some(KeyCodec::try_new(
                    &schema,
                    self.key_indices.as_deref().unwrap_or(&[]),
                )?),
                false => None,
            };
            for section in sections {
                let mut changelog = match (&codec, changelog_mode) {
                    (Some(codec), Some(mode)) => {
                        let members: Vec<usize> = section.iter().flatten().copied().collect();
                        let start = ChangelogStart {
                            reader: &reader,
                            schema: &schema,
                            split,
                            inputs: &inputs,
                            input_dvs: &input_dvs,
                            plan: state.plan,
                            codec,
                            mode,
                        };
                        let mut cl = self.changelog_start(&start, &members)?;
                        // Keys with no copy among the inputs take theirs from the levels below.
                        if let Some((cl, lookup)) = cl.as_mut().zip(state.lookup.as_ref()) {
                            let in_split: Vec<usize> = members.iter().map(|i| files[*i]).collect();
                            for (level, older) in lookup.older_by_level(&in_split)? {
                                cl.add_old(older, codec, level)?;
                            }
                        }
                        cl
                    }
                    _ => None,
                };
                let mut runs: Vec<SortedRun<paimon_data::Error>> = Vec::new();
                if let Some(lookup) = &state.lookup {
                    let members: Vec<usize> = section.iter().flatten().map(|i| files[*i]).collect();
                    // The older copies sit in levels below the output, deeper than any input.
                    for older in lookup.older_runs(&members)? {
                        let older = match levels {
                            true => with_level(&older, state.plan.max_level)
                                .map_err(|e| self.read_err(paimon_data::Error::arrow("", e)))?,
                            false => older,
                        };
                        runs.push(Box::new(std::iter::once(Ok(older))));
                    }
                }
                for run in section {
                    runs.push(
                        self.read_run(&reader, &schema, split, &inputs, &input_dvs, run, levels)?,
                    );
                }
                // The merged records keep the sequence numbers Java's merged `KeyValue`s have.
                let options = MergeOptions::default()
                    .with_batch_size(self.batch_size)
                    .with_keep_deletes(!state.plan.drop_delete)
                    .with_sequence_number(true)
                    .with_row_kind(Some(RowKindColumn::Int8));
                let merged = merge_sorted_runs(runs, &run_schema, layout.clone(), &engine, options)
                    .map_err(merge_err)?;
                let merged_schema = merged.schema();
                for batch in merged {
                    let mut batch = batch.map_err(merge_err)?;
                    if let Some((lookup, codec)) = state.lookup.as_ref().zip(codec.as_ref()) {
                        batch = lookup.filter_merged(batch, codec)?;
                    }
                    if let Some((cl, codec)) = changelog.as_mut().zip(codec.as_ref()) {
                        cl.add_merged(&batch, codec)?;
                    }
                    if rewrite {
                        writer.write(&self.to_key_value(&batch)?)?;
                    }
                }
                if let Some((cl, w)) = changelog.zip(changelog_writer.as_mut()) {
                    if let Some(records) = cl.finish(&merged_schema)? {
                        w.write(&self.to_key_value(&records)?)?;
                    }
                }
            }
            let changelog = match changelog_writer.as_mut() {
                Some(w) => w.prepare_commit()?,
                None => Vec::new(),
            };
            Ok((writer.prepare_commit()?, changelog))
        })();
        match result {
            Ok((written, changelog)) => {
                state.track(&written);
                state.track(&changelog);
                if rewrite {
                    state.after.extend(written);
                } else {
                    state.after.extend(inputs.iter().map(|f| {
                        let mut moved = f.clone();
                        moved.level = state.plan.output_level;
                        moved
                    }));
                }
                state.before.extend(inputs);
                state.changelog.extend(changelog);
                Ok(())
            }
            Err(e) => {
                writer.abort();
                if let Some(w) = changelog_writer.as_mut() {
                    w.abort();
                }
                Err(e)
            }
        }
    }

    /// The records of one sorted run (`run` indexes `inputs`) as stored, in the merge input
    /// `schema`; with `levels`, read file by file and each record tagged with its file's
    /// level (a run may hold files of several levels).
    #[allow(clippy::too_many_arguments)]
    fn read_run(
        &self,
        reader: &SplitReader,
        schema: &SchemaRef,
        split: &DataSplit,
        inputs: &[DataFileMeta],
        input_dvs: &[Option<DeletionFile>],
        run: Vec<usize>,
        levels: bool,
    ) -> Result<SortedRun<paimon_data::Error>> {
        let parts: Vec<Vec<usize>> = match levels {
            true => run.into_iter().map(|i| vec![i]).collect(),
            false => vec![run],
        };
        let mut chained: Vec<SortedRun<paimon_data::Error>> = Vec::with_capacity(parts.len());
        for part in parts {
            let dvs: Vec<Option<DeletionFile>> =
                part.iter().map(|i| input_dvs[*i].clone()).collect();
            let level = inputs[part[0]].level;
            let part_split = as_stored(
                split,
                part.iter().map(|i| inputs[*i].clone()).collect(),
                dvs.iter().any(Option::is_some).then_some(dvs),
            );
            let batches = reader
                .read(&self.root, &part_split)
                .map_err(|e| self.read_err(e))?;
            let schema = schema.clone();
            chained.push(Box::new(batches.map(move |b| {
                let b = merge_input(&b?, &schema)?;
                match levels {
                    true => with_level(&b, level).map_err(|e| paimon_data::Error::arrow("", e)),
                    false => Ok(b),
                }
            })));
        }
        Ok(Box::new(chained.into_iter().flatten()))
    }

    /// Which changelog the task writes: Java's full-compaction one (when the output is the
    /// last level), or the lookup producer's (any output above level 0; each key's old row is
    /// its shallowest copy among the inputs or, failing that, in the levels below the output,
    /// which the task's lookup names).
    fn changelog_mode(&self, plan: &MergePlan) -> Option<ChangelogMode> {
        let last = plan.output_level == plan.max_level;
        match self.core.changelog_producer {
            ChangelogProducer::FullCompaction if last => Some(ChangelogMode::Full),
            // Java `rewriteLookupChangelog`: any compaction above level 0.
            ChangelogProducer::Lookup if plan.output_level > 0 => Some(ChangelogMode::Lookup),
            _ => None,
        }
    }

    /// With `changelog-producer.row-deduplicate`, the value columns a -U/+U pair is compared
    /// on (all but the ignored fields).
    fn changelog_compare(&self) -> Option<Vec<usize>> {
        let ignored = &self.core.changelog_row_deduplicate_ignore_fields;
        self.core.changelog_row_deduplicate.then(|| {
            self.fields
                .iter()
                .enumerate()
                .filter(|(_, f)| !ignored.contains(&f.name))
                .map(|(i, _)| i)
                .collect()
        })
    }

    /// Changelog files of the bucket: `changelog-<uuid>-<n>`, at the output level, marked as
    /// appended (Java `createRollingChangelogFileWriter`).
    fn changelog_writer(&self, split: &DataSplit, plan: &MergePlan) -> RollingWriter {
        let paths = DataFilePathFactory::new(
            split.bucket_path.clone(),
            DataFileNames::from_options(&self.core),
        )
        .for_changelog();
        RollingWriter::new(self.ctx.clone(), paths, -1).with_level(plan.output_level)
    }

    /// The keys of the section's newer records and the old rows of those keys
    /// ([`FullChangelog`]); `None` when the section has no newer record (the lookup producer
    /// writes no changelog for a section without level-0 files).
    fn changelog_start(
        &self,
        c: &ChangelogStart<'_>,
        members: &[usize],
    ) -> Result<Option<FullChangelog>> {
        let one = DataSplit {
            data_files: c.inputs.to_vec(),
            data_deletion_files: None,
            ..c.split.clone()
        };
        let newer_level = |level: i32| match c.mode {
            ChangelogMode::Full => level != c.plan.max_level,
            ChangelogMode::Lookup => level == 0,
        };
        let mut newer = std::collections::HashSet::new();
        for i in members.iter().filter(|i| newer_level(c.inputs[**i].level)) {
            self.read_records(c.reader, c.schema, &one, *i, &mut |b| {
                newer.extend(c.codec.keys(&b)?.iter().map(|k| k.as_ref().to_vec()));
                Ok(())
            })?;
        }
        if newer.is_empty() {
            return Ok(None);
        }
        let mut changelog = FullChangelog::new(newer, self.changelog_compare());
        // An old row a deletion vector marks is gone (Java's compaction reads its inputs with
        // their vectors applied).
        for i in members.iter().filter(|i| !newer_level(c.inputs[**i].level)) {
            let level = c.inputs[*i].level;
            let dv = c.input_dvs.get(*i).cloned().flatten();
            self.read_records_with(c.reader, c.schema, &one, *i, dv, &mut |b| {
                changelog.add_old(b, c.codec, level)
            })?;
        }
        Ok(Some(changelog))
    }

    /// The streaming reader of records as stored (sequence numbers and kinds, unmerged) and
    /// the merge input schema its batches are turned into ([`merge_schema`]).
    fn record_reader(&self) -> Result<(SplitReader, SchemaRef)> {
        let reader = self.reader(true);
        let out = reader
            .output_schema(&self.root)
            .map_err(|e| self.read_err(e))?;
        let schema = merge_schema(&out, self.fields.len()).map_err(|e| self.read_err(e))?;
        Ok((reader, schema))
    }

    /// The records of file `i` of `split` as stored (no vector applied) in the merge input
    /// `schema`, each batch handed to `visit`.
    fn read_records(
        &self,
        reader: &SplitReader,
        schema: &SchemaRef,
        split: &DataSplit,
        i: usize,
        visit: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        self.read_records_with(reader, schema, split, i, None, visit)
    }

    /// [`TableCompact::read_records`] with the file's deletion vector, if any, applied.
    fn read_records_with(
        &self,
        reader: &SplitReader,
        schema: &SchemaRef,
        split: &DataSplit,
        i: usize,
        dv: Option<DeletionFile>,
        visit: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let dvs = dv.map(|d| vec![Some(d)]);
        let one = as_stored(split, vec![split.data_files[i].clone()], dvs);
        let batches = reader
            .read(&self.root, &one)
            .map_err(|e| self.read_err(e))?;
        for b in batches {
            let b = b.map_err(|e| self.read_err(e))?;
            visit(merge_input(&b, schema).map_err(|e| self.read_err(e))?)?;
        }
        Ok(())
    }

    /// The merge's layout and engine over the merge input `schema`.
    fn merge_setup(
        &self,
        schema: &SchemaRef,
    ) -> std::result::Result<(RunLayout, MergeEngineSpec), paimon_data::merge::MergeError> {
        let pk: Vec<String> = self
            .key_indices
            .iter()
            .flatten()
            .map(|i| self.fields[*i].name.clone())
            .collect();
        let layout = RunLayout::from_schema(
            schema,
            &pk,
            &self.core.sequence_fields,
            self.core.sequence_field_descending,
        )?;
        let engine = MergeEngineSpec::try_new(&self.core, &pk, &layout.value_fields(schema)?)?;
        Ok((layout, engine))
    }

    fn key_types(&self) -> Vec<DataType> {
        let Some(keys) = &self.key_indices else {
            return Vec::new();
        };
        keys.iter()
            .map(|i| self.fields[*i].data_type.clone())
            .collect()
    }

    /// A merged batch (the table's columns, the winning record's sequence number, its Int8
    /// row kind) in the physical layout of primary-key files: `_KEY_*`, `_SEQUENCE_NUMBER`,
    /// `_VALUE_KIND`, the columns.
    fn to_key_value(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let n = self.fields.len();
        if batch.num_columns() != n + 2 {
            return Err(Error::Internal(format!(
                "merged compaction batch with {} columns for {n} fields",
                batch.num_columns()
            )));
        }
        let values = &batch.columns()[..n];
        let no_keys = Vec::new();
        let key_indices = self.key_indices.as_ref().unwrap_or(&no_keys);
        let mut columns: Vec<ArrayRef> = key_indices.iter().map(|i| values[*i].clone()).collect();
        columns.push(batch.column(n).clone());
        columns.push(batch.column(n + 1).clone());
        columns.extend(values.iter().cloned());
        self.to_file_schema(columns)
    }

    /// The columns as a batch of the files' Arrow schema (field ids of nested fields, the
    /// file types), cast where the read's types differ.
    fn to_file_schema(&self, columns: Vec<ArrayRef>) -> Result<RecordBatch> {
        let schema: &SchemaRef = &self.ctx.arrow_schema;
        let mismatch = |reason: String| Error::SchemaMismatch {
            table: self.table.clone(),
            reason,
        };
        if columns.len() != schema.fields().len() {
            return Err(mismatch(format!(
                "{} columns read, the files hold {}",
                columns.len(),
                schema.fields().len()
            )));
        }
        let columns = columns
            .into_iter()
            .zip(schema.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(c)
                } else {
                    arrow_cast::cast(&c, f.data_type()).map_err(|e| mismatch(e.to_string()))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        RecordBatch::try_new(schema.clone(), columns).map_err(|e| mismatch(e.to_string()))
    }
}

/// The files of `split` (with their deletion files) in the order of their first row ids,
/// when every file has one; otherwise as they are.
fn order_by_first_row_id(split: &mut DataSplit) {
    let Some(keys) = split
        .data_files
        .iter()
        .map(|f| f.first_row_id)
        .collect::<Option<Vec<i64>>>()
    else {
        return;
    };
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|i| keys[*i]);
    split.data_files = order.iter().map(|i| split.data_files[*i].clone()).collect();
    if let Some(dv) = &split.data_deletion_files {
        split.data_deletion_files = Some(
            order
                .iter()
                .map(|i| dv.get(*i).cloned().flatten())
                .collect(),
        );
    }
}

/// Which changelog a compaction writes ([`FullChangelog`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChangelogMode {
    /// `full-compaction`: records below the last level against the last level.
    Full,
    /// `lookup`: level-0 records against the shallowest level above 0.
    Lookup,
}

/// What a section's changelog is started from.
struct ChangelogStart<'a> {
    reader: &'a SplitReader,
    schema: &'a SchemaRef,
    split: &'a DataSplit,
    inputs: &'a [DataFileMeta],
    /// The deletion file of each input, if any.
    input_dvs: &'a [Option<DeletionFile>],
    plan: &'a MergePlan,
    codec: &'a KeyCodec,
    mode: ChangelogMode,
}

/// The merge-tree parameters of a task.
#[derive(Debug, Clone, Copy)]
struct MergePlan {
    output_level: i32,
    max_level: i32,
    min_file_size: i64,
    /// Retractions are dropped (Java `DropDeleteReader`); kept, with their kinds, when older
    /// levels the task does not take may still hold the keys.
    drop_delete: bool,
}

/// What a merge-tree task has produced so far.
struct MergeState<'a> {
    split: &'a DataSplit,
    plan: &'a MergePlan,
    before: &'a mut Vec<DataFileMeta>,
    after: &'a mut Vec<DataFileMeta>,
    /// Paths of the files written, deleted again if a later step fails.
    written: Vec<String>,
    /// Lookup compaction: the older copies of the level-0 keys and the bucket's vectors.
    lookup: Option<LookupState>,
    /// Changelog files written (`changelog-producer = full-compaction`).
    changelog: Vec<DataFileMeta>,
}

impl MergeState<'_> {
    /// Notes files written, to delete them again if a later step fails.
    fn track(&mut self, files: &[DataFileMeta]) {
        let dir = &self.split.bucket_path;
        self.written.extend(
            files
                .iter()
                .map(|f| paimon_spec::layout::join(dir, &f.file_name)),
        );
    }
}

/// `split` narrowed to `files` (with their deletion files) and read as stored: a streaming
/// read yields every record with its sequence number and kind, unmerged.
fn as_stored(
    split: &DataSplit,
    files: Vec<DataFileMeta>,
    deletion_files: Option<Vec<Option<DeletionFile>>>,
) -> DataSplit {
    DataSplit {
        data_files: files,
        data_deletion_files: deletion_files,
        before_files: Vec::new(),
        before_deletion_files: None,
        is_streaming: true,
        raw_convertible: false,
        ..split.clone()
    }
}

/// The merge input schema for a streaming read's output `out` (`_ROW_KIND` Utf8, the `n`
/// table columns, `_SEQUENCE_NUMBER`): the columns, then `_SEQUENCE_NUMBER` and
/// `_VALUE_KIND` (Int8).
fn merge_schema(out: &Schema, n: usize) -> paimon_data::Result<SchemaRef> {
    if out.fields().len() != n + 2 || out.field(0).name() != ROW_KIND {
        return Err(paimon_data::Error::Internal(format!(
            "compaction read schema with {} columns for {n} fields",
            out.fields().len()
        )));
    }
    let mut fields: Vec<Field> = out.fields()[1..=n]
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new(SEQUENCE_NUMBER, ArrowType::Int64, false));
    fields.push(Field::new(
        paimon_data::merge::VALUE_KIND,
        ArrowType::Int8,
        false,
    ));
    Ok(Arc::new(Schema::new(fields)))
}

/// A streaming read's batch as a batch of `schema` ([`merge_schema`]).
fn merge_input(batch: &RecordBatch, schema: &SchemaRef) -> paimon_data::Result<RecordBatch> {
    let bad = |what: String| paimon_data::Error::Internal(format!("compaction input: {what}"));
    let n = schema.fields().len() - 2;
    if batch.num_columns() != n + 2 {
        return Err(bad(format!("{} columns", batch.num_columns())));
    }
    let kinds = batch
        .column(0)
        .as_string_opt::<i32>()
        .ok_or_else(|| bad("_ROW_KIND is not Utf8".into()))?;
    let kinds = kinds
        .iter()
        .map(|k| match k {
            Some("+I") => Ok(0i8),
            Some("-U") => Ok(1),
            Some("+U") => Ok(2),
            Some("-D") => Ok(3),
            other => Err(bad(format!("row kind {other:?}"))),
        })
        .collect::<paimon_data::Result<Vec<i8>>>()?;
    let mut columns: Vec<ArrayRef> = batch.columns()[1..=n].to_vec();
    columns.push(batch.column(n + 1).clone());
    columns.push(Arc::new(Int8Array::from(kinds)));
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| bad(e.to_string()))
}
