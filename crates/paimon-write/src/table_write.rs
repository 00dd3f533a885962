//! [`TableWrite`]: Arrow batches in, data files and [`CommitMessage`]s out (Java
//! `TableWriteImpl` over `AppendOnlyFileStoreWrite`).
//!
//! ```text
//! batch ──check schema──> rows grouped by (partition, bucket), input order kept
//!                          │ partition: BinaryRow of the partition columns + k=v/ directory
//!                          │ bucket: -1 (unaware) or murmur(bucket-key row) % n
//!                          v
//!        one RollingWriter per (partition, bucket) ──> data-<uuid>-<n>.parquet ...
//! prepare_commit() ──> one CommitMessage per (partition, bucket) with its new files
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{RecordBatch, UInt32Array};
use arrow_schema::SchemaRef;
use paimon_data::arrow_schema::to_arrow_type;
use paimon_data::merge::{MergeEngineSpec, RunLayout};
use paimon_io::FileIORef;
use paimon_spec::binary::{Datum, RowKind};
use paimon_spec::layout::{self, DataFileNames, TableLayout};
use paimon_spec::options::{CoreOptions, MergeEngine};
use paimon_spec::schema::TableSchema;
use paimon_spec::stats::serialize_datums;
use paimon_spec::types::{DataField, TypeKind};
use paimon_split::commit::{CommitMessage, DataIncrement};
use paimon_split::WriteContext;

use crate::arrow_datum::datum_at;
use crate::bucket::{key_hashes, BucketAssigner};
use crate::cross_partition::{CrossPartitionIndex, Existing, Routed};
use crate::data_file::FileFormat;
use crate::dynamic_bucket::{BucketIndexFile, DynamicBuckets};
use crate::error::{Error, Result};
use crate::key_value::{key_fields, key_value_fields, KEY_FIELD_PREFIX, SEQUENCE_NUMBER};
use crate::kv_buffer::{EngineFlush, FlushMerge, KvBuffer, RawRecords};
use crate::options::WriteOptions;
use crate::parquet_file::{batch_arrow_schema, encoding_pool};
use crate::paths::DataFilePathFactory;
use crate::rolling::{FileContext, FileContextRef, FileKind, RollingWriter};
use crate::threads::run_each;

/// A serialized partition and a bucket.
type BucketKey = (Vec<u8>, i32);

/// How rows find their bucket.
#[derive(Debug)]
enum BucketMode {
    /// `bucket = -1` append table: Java puts every file in bucket 0 (`bucket-0`).
    Unaware,
    /// `bucket = N > 0`.
    Fixed(BucketAssigner),
    /// `bucket = -1` primary-key table: buckets found through the hash index, keyed by the
    /// trimmed primary key (with its column indices).
    Dynamic(Box<DynamicBuckets>, Vec<(usize, DataField)>),
    /// `bucket = -1` primary-key table whose key does not hold every partition column
    /// (cross-partition upsert): buckets and partitions of known keys from the key index.
    CrossPartition(Box<CrossPartitionIndex>),
    /// `bucket = -2` primary-key table: every row goes to the postpone bucket
    /// (`bucket-postpone`) until a postpone compaction redistributes it.
    Postpone,
}

#[derive(Debug)]
struct BucketWriter {
    writer: RollingWriter,
    /// The `input` changelog producer: every record of each flush, as it came.
    changelog: Option<RollingWriter>,
    /// Primary-key tables: records not yet flushed, and the next sequence number.
    buffer: KvBuffer,
    next_sequence: i64,
}

/// Who moves the level-0 files of a primary-key table with deletion vectors up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level0 {
    /// Only a `write-only` table is written: its compactor does.
    WriteOnly,
    /// The caller compacts after committing.
    CompactedAfter,
    /// A compaction: it writes above level 0, and no new records, so a changelog producer that
    /// writes beside new records does not refuse it (the compaction refuses what it cannot
    /// produce).
    Compaction,
}

/// What a primary-key table's writer needs beyond an append table's.
#[derive(Debug)]
pub(crate) struct PkSpec {
    /// Trimmed primary-key columns in the row.
    pub(crate) key_indices: Vec<usize>,
    merge: FlushMerge,
    /// The records each flush also writes as changelog (`changelog-producer = input`).
    raw: RawRecords,
    write_buffer_size: u64,
}

/// Writes batches of one table into data files and hands out commit messages.
#[derive(Debug)]
pub struct TableWrite {
    /// Roots new data files go under in turn (`data-file.external-paths` with a strategy that
    /// writes to them); empty: the table's own bucket directories.
    external_roots: Vec<String>,
    pub(crate) table: String,
    root: String,
    pub(crate) fields: Vec<DataField>,
    pub(crate) core: CoreOptions,
    /// The schema's own options (a postpone writer's are derived from them).
    schema_options: std::collections::BTreeMap<String, String>,
    pub(crate) ctx: FileContextRef,
    input_schema: SchemaRef,
    row_schema: SchemaRef,
    pub(crate) pk: Option<PkSpec>,
    partition_cols: Vec<(usize, DataField)>,
    bucket_mode: BucketMode,
    writers: HashMap<BucketKey, BucketWriter>,
    order: Vec<BucketKey>,
    restored: HashMap<BucketKey, i64>,
    /// The threads besides the caller's ([`TableWrite::with_threads`]).
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl TableWrite {
    /// A writer for the table at `root` with its current `schema`.
    ///
    /// A primary-key table with deletion vectors is written only with `write-only = true`:
    /// its readers skip level 0, so the rows become visible once a compactor (`paimon
    /// compact`, Java's dedicated compaction job) has moved them up by lookup compaction.
    /// [`TableWrite::try_new_compacted_after`] is for a caller that runs that compaction
    /// itself after each commit, as Java's own writers do.
    ///
    /// With `changelog-producer = input`, each flush of a bucket's buffer also writes every
    /// record it held, as it came, into changelog files (Java `MergeTreeWriter`).
    ///
    /// A primary-key table with postpone buckets (`bucket = -2`) is written as Java's
    /// `PostponeBucketFileStoreWrite` writes it (see [`TableWrite::with_commit_user`]).
    ///
    /// A dynamic-bucket primary-key table whose key does not hold every partition column
    /// (cross-partition upsert) is written as Java's `GlobalIndexAssigner` writes it: its
    /// writer needs the keys of the latest snapshot first ([`TableWrite::bootstrap_keys`],
    /// [`TableWrite::finish_bootstrap`]; paimon-rs's `open_writer` reads them).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for table shapes not written yet (deletion vectors
    /// or the `lookup` producer without `write-only`;
    /// data evolution; column types the table's file format cannot hold as Java writes
    /// them);
    /// [`Error::InvalidOption`] for malformed options.
    pub fn try_new(file_io: FileIORef, root: &str, schema: &TableSchema) -> Result<Self> {
        Self::build(file_io, root, schema, Level0::WriteOnly)
    }

    /// As [`TableWrite::try_new`], also for primary-key tables with deletion vectors or the
    /// `lookup` changelog producer without `write-only`: the caller promises to run a minor
    /// (lookup) compaction of the buckets written after committing them, without which their
    /// rows stay invisible to batch reads (deletion vectors) or their changelog unwritten
    /// (`lookup`).
    ///
    /// # Errors
    /// As [`TableWrite::try_new`].
    pub fn try_new_compacted_after(
        file_io: FileIORef,
        root: &str,
        schema: &TableSchema,
    ) -> Result<Self> {
        Self::build(file_io, root, schema, Level0::CompactedAfter)
    }

    /// The writer a planner's [`WriteContext`] describes (paimon-meta's
    /// `Table::write_context`), built from the context alone: the context's schema, with
    /// [`TableWrite::try_new_compacted_after`] when the committer compacts after the write
    /// (`compact_after`), else [`TableWrite::try_new`]; a primary-key table's writer
    /// continues each bucket's restored sequence numbers and assigns a dynamic-bucket
    /// table's keys from the context's hash index files (none for an overwrite). No schema,
    /// snapshot, manifest or index-manifest file is read. The context's paths are checked by
    /// paimon-spec's path rule ([`WriteContext::check_paths`]) first.
    ///
    /// # Errors
    /// [`Error::Spec`] ([`paimon_spec::Error::PathNotAllowed`]) for a path the context may
    /// not name; as [`TableWrite::try_new`].
    pub fn from_context(file_io: FileIORef, ctx: &WriteContext) -> Result<Self> {
        ctx.check_paths()?;
        let (root, schema) = (ctx.table_path.as_str(), &ctx.schema);
        let writer = match ctx.compact_after {
            true => Self::try_new_compacted_after(file_io, root, schema)?,
            false => Self::try_new(file_io, root, schema)?,
        };
        if schema.primary_keys.is_empty() {
            return Ok(writer);
        }
        let (restored, hash_index) = match ctx.overwrite {
            true => (Vec::new(), Vec::new()),
            false => (
                ctx.restored_sequence_numbers.clone(),
                ctx.hash_index_files.clone(),
            ),
        };
        Ok(writer
            .with_restored_max_sequence_numbers(restored)
            .with_hash_index(hash_index))
    }

    /// The writers of a compaction: as [`TableWrite::try_new_compacted_after`] (a compaction
    /// writes above level 0).
    pub(crate) fn for_compaction(
        file_io: FileIORef,
        root: &str,
        schema: &TableSchema,
    ) -> Result<Self> {
        Self::build(file_io, root, schema, Level0::Compaction)
    }

    fn build(file_io: FileIORef, root: &str, schema: &TableSchema, level0: Level0) -> Result<Self> {
        let table = root.to_string();
        let mut core = CoreOptions::try_new(&schema.options)?;
        let postpone = !schema.primary_keys.is_empty() && core.bucket == layout::POSTPONE_BUCKET;
        if postpone {
            if level0 == Level0::Compaction {
                return Err(Error::Unsupported {
                    feature: format!(
                        "table {table}: compacting the postpone bucket through a bucket's \
                         rewrite (the postpone compaction redistributes it)"
                    ),
                });
            }
            // Java `PostponeBucketFileStoreWrite`: Avro files without value stats, named
            // after the commit user and the writer ([`TableWrite::with_commit_user`]).
            let user = uuid::Uuid::new_v4().to_string();
            core = CoreOptions::try_new(&crate::postpone::writer_options(
                &schema.options,
                &user,
                crate::postpone::random_write_id(),
            ))?;
        }
        let unsupported = |what: &str| {
            Err(Error::Unsupported {
                feature: format!("table {table}: {what}"),
            })
        };
        let has_pk = !schema.primary_keys.is_empty();
        if has_pk && !postpone {
            if core.bucket == 0 || core.bucket < -1 {
                return unsupported(&format!(
                    "writing primary-key tables with bucket = {}{}",
                    core.bucket,
                    if core.bucket == -2 {
                        " (postpone buckets)"
                    } else {
                        ""
                    }
                ));
            }
            // Writers of a `full-compaction` producer write no changelog (full compaction
            // does), nor do those of the `lookup` producer: on a `write-only` table its
            // compactor writes it (Java's dedicated compaction), otherwise the lookup
            // compaction the caller runs after committing (as Java's writers compact before
            // their commit). `input` writers write changelog files beside the data.
            use paimon_spec::options::ChangelogProducer as P;
            let deferred = core.write_only || level0 != Level0::WriteOnly;
            if core.changelog_producer == P::Lookup && !deferred {
                return unsupported(
                    "writing primary-key tables with changelog-producer = lookup without                      write-only = true (the lookup compaction after each commit writes the                      changelog; `paimon write` runs one)",
                );
            }
            if core.deletion_vectors_enabled && !core.write_only && level0 == Level0::WriteOnly {
                return unsupported(
                    "writing primary-key tables with deletion vectors without write-only = true \
                     (their rows stay in level 0, which readers skip, until a lookup \
                     compaction; `paimon write` runs one after committing)",
                );
            }
        }
        // Appends to a data-evolution table are row-tracking appends (the commit gives the new
        // files their first row ids); its compaction, which merges the column files of a row
        // range, is Java's alone.
        if core.data_evolution_enabled && level0 == Level0::Compaction {
            return unsupported("compacting data-evolution tables");
        }
        if let Some(f) = schema
            .fields
            .iter()
            .find(|f| matches!(f.data_type.kind, TypeKind::Blob))
        {
            return unsupported(&format!(
                "writing BLOB column {} (Java keeps BLOB values in .blob files beside the data \
                 files)",
                f.name
            ));
        }
        if core.data_file_path_directory.is_some() {
            return unsupported("data-file.path-directory");
        }
        let external_roots = external_roots(&table, &core)?;
        if !external_roots.is_empty() && level0 == Level0::Compaction {
            return unsupported("compacting tables with external data paths");
        }
        let options = WriteOptions::try_new(&core, has_pk)?;
        let fields = schema.fields.clone();
        let trimmed = schema.trimmed_primary_key_fields();
        // A compaction of a row-tracked append table keeps each row's id and sequence number
        // in the files it writes, as Java's compactors do.
        let row_tracked = !has_pk && core.row_tracking_enabled && level0 == Level0::Compaction;
        let file_fields = if has_pk {
            key_value_fields(&key_fields(&trimmed), &fields)
        } else if row_tracked {
            crate::key_value::with_row_tracking(&table, &fields)?
        } else {
            fields.clone()
        };
        let names: Vec<String> = file_fields.iter().map(|f| f.name.clone()).collect();
        let stats_modes = options.field_stats_modes(&core, &names)?;
        let row_schema = batch_arrow_schema(&fields);
        let (format, arrow_schema) = FileFormat::try_new(
            &table,
            &core.file_format,
            &core.file_compression,
            options.zstd_level,
            options.target_file_size,
            &file_fields,
        )?;
        // Every record of a primary-key file has its own sequence number, and with a key of one
        // column its own key.
        let format = match trimmed.as_slice() {
            _ if !has_pk => format,
            [key] => format.with_distinct_columns(&[
                format!("{KEY_FIELD_PREFIX}{}", key.name),
                SEQUENCE_NUMBER.to_string(),
                key.name.clone(),
            ]),
            _ => format.with_distinct_columns(&[SEQUENCE_NUMBER.to_string()]),
        };
        let input_schema = Arc::new(arrow_schema::Schema::new(
            fields
                .iter()
                .map(|f| {
                    arrow_schema::Field::new(
                        &f.name,
                        to_arrow_type(&f.data_type),
                        f.data_type.nullable,
                    )
                })
                .collect::<Vec<_>>(),
        ));
        let col = |name: &str| -> Result<(usize, DataField)> {
            fields
                .iter()
                .position(|f| f.name == name)
                .map(|i| (i, fields[i].clone()))
                .ok_or_else(|| Error::SchemaMismatch {
                    table: table.clone(),
                    reason: format!("key column {name} is not a field of the table"),
                })
        };
        let partition_cols = schema
            .partition_keys
            .iter()
            .map(|k| col(k))
            .collect::<Result<Vec<_>>>()?;
        let cross_partition = has_pk
            && !schema
                .partition_keys
                .iter()
                .all(|p| schema.primary_keys.contains(p));
        let bucket_mode = match core.bucket {
            -1 if has_pk && cross_partition => {
                let keys = trimmed
                    .iter()
                    .map(|f| {
                        col(&f.name).map(|(i, _)| (i, row_schema.field(i).data_type().clone()))
                    })
                    .collect::<Result<Vec<_>>>()?;
                BucketMode::CrossPartition(Box::new(CrossPartitionIndex::try_new(
                    &table,
                    core.dynamic_bucket_target_row_num,
                    Existing::of(&core.merge_engine),
                    keys,
                )?))
            }
            -1 if has_pk => BucketMode::Dynamic(
                Box::new(DynamicBuckets::new(
                    &table,
                    root,
                    file_io.clone(),
                    core.dynamic_bucket_target_row_num,
                    core.dynamic_bucket_max_buckets,
                )),
                trimmed
                    .iter()
                    .map(|f| col(&f.name))
                    .collect::<Result<Vec<_>>>()?,
            ),
            -1 => BucketMode::Unaware,
            layout::POSTPONE_BUCKET if postpone => BucketMode::Postpone,
            n if n > 0 => {
                let keys = schema
                    .bucket_keys()
                    .iter()
                    .map(|k| col(k))
                    .collect::<Result<Vec<_>>>()?;
                BucketMode::Fixed(BucketAssigner::try_new(&table, n, keys)?)
            }
            n => return unsupported(&format!("writing with bucket = {n}")),
        };
        let pk = if has_pk {
            let merge = match core.merge_engine {
                _ if postpone => FlushMerge::AsTheyCame,
                MergeEngine::Deduplicate if core.sequence_fields.is_empty() => {
                    FlushMerge::Deduplicate {
                        ignore_delete: core.ignore_delete,
                    }
                }
                MergeEngine::FirstRow if core.sequence_fields.is_empty() => FlushMerge::FirstRow {
                    ignore_delete: core.ignore_delete,
                },
                _ => FlushMerge::Engine(Box::new(engine_flush(
                    &table,
                    &core,
                    &schema.trimmed_primary_keys(),
                    &arrow_schema,
                    |name| col(name).map(|(i, _)| i),
                )?)),
            };
            let key_indices = trimmed
                .iter()
                .map(|f| col(&f.name).map(|(i, _)| i))
                .collect::<Result<Vec<_>>>()?;
            // Java's writer drops what `ignore-delete` ignores before its buffer
            // (`RowKindFilter`), so the changelog never holds it.
            // A postpone writer writes no changelog (Java `PostponeBucketWriter`).
            let raw = match core.changelog_producer {
                _ if postpone => RawRecords::Skip,
                paimon_spec::options::ChangelogProducer::Input if core.ignore_delete => {
                    RawRecords::NoRetractions
                }
                paimon_spec::options::ChangelogProducer::Input => RawRecords::All,
                _ => RawRecords::Skip,
            };
            Some(PkSpec {
                key_indices,
                merge,
                raw,
                write_buffer_size: options.write_buffer_size,
            })
        } else {
            None
        };
        let kind = if has_pk {
            FileKind::KeyValue {
                keys: trimmed.len(),
            }
        } else if row_tracked {
            FileKind::RowTracked
        } else {
            FileKind::Append
        };
        let ctx = Arc::new(FileContext {
            table: table.clone(),
            file_io,
            fields: file_fields,
            arrow_schema,
            format,
            stats_modes,
            stats_dense: options.stats_dense_store,
            target_file_size: options.target_file_size,
            schema_id: schema.id,
            kind,
        });
        Ok(TableWrite {
            external_roots,
            table,
            root: root.to_string(),
            fields,
            core,
            schema_options: schema.options.clone(),
            ctx,
            input_schema,
            row_schema,
            pk,
            partition_cols,
            bucket_mode,
            writers: HashMap::new(),
            order: Vec::new(),
            restored: HashMap::new(),
            pool: None,
        })
    }

    /// Names the files of a postpone-bucket table's writer after `commit_user`, as Java's
    /// `data--u-<commit user>-s-<write id>-w-` prefix does (default: a fresh UUID in place of
    /// the user); other tables ignore it. Call it before writing.
    pub fn with_commit_user(mut self, commit_user: &str) -> Result<Self> {
        if !matches!(self.bucket_mode, BucketMode::Postpone) {
            return Ok(self);
        }
        let write_id = crate::postpone::random_write_id();
        let options = crate::postpone::writer_options(&self.schema_options, commit_user, write_id);
        self.core = CoreOptions::try_new(&options)?;
        Ok(self)
    }

    /// Sets the largest sequence number already committed in a bucket (from the latest
    /// snapshot, which the writer does not read); new rows continue after it. Buckets not given
    /// start at 0.
    pub fn with_restored_max_sequence_number(
        mut self,
        partition: Vec<u8>,
        bucket: i32,
        max_sequence_number: i64,
    ) -> Self {
        self.restored
            .insert((partition, bucket), max_sequence_number);
        self
    }

    /// [`TableWrite::with_restored_max_sequence_number`] for each `(partition, bucket,
    /// sequence number)`, as paimon-meta's `Table::max_sequence_numbers` lists them.
    pub fn with_restored_max_sequence_numbers(
        mut self,
        restored: impl IntoIterator<Item = (Vec<u8>, i32, i64)>,
    ) -> Self {
        for (partition, bucket, seq) in restored {
            self = self.with_restored_max_sequence_number(partition, bucket, seq);
        }
        self
    }

    /// Writes on `threads` threads (default 1: on the calling thread, for engines that run one
    /// writer per core): a primary-key table sorts and merges the buffers of several buckets
    /// side by side, and each Parquet data file encodes its columns side by side. Rows are
    /// then handed to the encoding threads 64K at a time, and a file rolls when its size, with
    /// the rows not encoded yet counted at the file's average, reaches `target-file-size`:
    /// where a file rolls may move by that estimate, what is written up to there is the same
    /// byte for byte. Applies to the files opened after the call, so call it before writing.
    ///
    /// # Errors
    /// [`Error::Internal`] when the threads cannot be started.
    pub fn with_threads(mut self, threads: usize) -> Result<Self> {
        self.pool = encoding_pool(threads)?;
        if let FileFormat::Parquet(p) = &self.ctx.format {
            let format =
                FileFormat::Parquet(Box::new(p.as_ref().clone().with_pool(self.pool.clone())));
            Arc::make_mut(&mut self.ctx).format = format;
        }
        Ok(self)
    }

    /// Sets the committed hash index files a dynamic-bucket table's writer assigns buckets
    /// from (paimon-meta's `Table::hash_index_files`; an empty list for an overwrite, which
    /// replaces them). A dynamic-bucket writer refuses to write before this is called; other
    /// tables ignore it.
    pub fn with_hash_index(mut self, files: impl IntoIterator<Item = BucketIndexFile>) -> Self {
        if let BucketMode::Dynamic(d, _) = &mut self.bucket_mode {
            d.set_committed(files);
        }
        self
    }

    /// Whether this table is written as a cross-partition upsert (`bucket = -1`, a primary
    /// key without every partition column): its writer needs the latest snapshot's keys
    /// ([`TableWrite::bootstrap_keys`]) and [`TableWrite::finish_bootstrap`] before it
    /// writes.
    pub fn is_cross_partition(&self) -> bool {
        matches!(self.bucket_mode, BucketMode::CrossPartition(_))
    }

    /// The columns [`TableWrite::bootstrap_keys`] takes, in order: the trimmed primary key
    /// (the primary key without partition columns).
    pub fn bootstrap_key_columns(&self) -> Vec<String> {
        match &self.pk {
            Some(pk) => pk
                .key_indices
                .iter()
                .map(|i| self.fields[*i].name.clone())
                .collect(),
            None => Vec::new(),
        }
    }

    /// Adds the keys the latest snapshot holds in one (serialized partition, bucket) to a
    /// cross-partition table's key index (Java `IndexBootstrap`: the table read projected to
    /// [`TableWrite::bootstrap_key_columns`], split by split); columns are cast to the key's
    /// types. Other tables ignore it.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] for columns that are not the key's;
    /// [`Error::Unsupported`] for a key the snapshot holds in two partitions.
    pub fn bootstrap_keys(
        &mut self,
        partition: &[u8],
        bucket: i32,
        keys: &RecordBatch,
    ) -> Result<()> {
        let BucketMode::CrossPartition(index) = &mut self.bucket_mode else {
            return Ok(());
        };
        let pk = self
            .pk
            .as_ref()
            .map(|p| p.key_indices.as_slice())
            .unwrap_or(&[]);
        if keys.num_columns() != pk.len() {
            return Err(Error::SchemaMismatch {
                table: self.table.clone(),
                reason: format!(
                    "{} bootstrap key columns, the trimmed primary key has {}",
                    keys.num_columns(),
                    pk.len()
                ),
            });
        }
        let columns = keys
            .columns()
            .iter()
            .zip(pk)
            .map(|(c, i)| {
                let want = self.row_schema.field(*i).data_type();
                match c.data_type() == want {
                    true => Ok(c.clone()),
                    false => arrow_cast::cast(c, want).map_err(|e| Error::SchemaMismatch {
                        table: self.table.clone(),
                        reason: format!("bootstrap key column {}: {e}", self.fields[*i].name),
                    }),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        index.bootstrap(partition, bucket, &columns)
    }

    /// Ends a cross-partition table's bootstrap: it writes from now on (an overwrite of the
    /// whole table ends it without keys, as Java starts an empty index then).
    pub fn finish_bootstrap(&mut self) {
        if let BucketMode::CrossPartition(index) = &mut self.bucket_mode {
            index.finish_bootstrap();
        }
    }

    /// A cross-partition table's key index: the keys it holds and an estimate of its heap
    /// bytes (`None` for other tables).
    pub fn cross_partition_index_size(&self) -> Option<(usize, usize)> {
        match &self.bucket_mode {
            BucketMode::CrossPartition(index) => Some((index.len(), index.memory_bytes())),
            _ => None,
        }
    }

    /// The Arrow schema batches must have (names and types; field metadata is ignored).
    pub fn input_schema(&self) -> &SchemaRef {
        &self.input_schema
    }

    /// Writes one batch.
    ///
    /// The whole batch is checked before anything is written: a batch whose columns do not
    /// match, a null in a NOT NULL column or a partition value Java cannot name fails without
    /// writing a row.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`], [`Error::NullValue`], [`Error::InvalidPartition`]; storage
    /// and encoder errors (the files of this writer are then unusable: call
    /// [`TableWrite::abort`]).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_with_row_kinds(batch, None)
    }

    /// Writes a batch from outside the table's own schema: columns matched by name in any
    /// order and cast to the table's types, and with `kind_column` each row's kind taken from
    /// that column (`+I`, `-U`, `+U`, `-D`), which is not written (see
    /// [`crate::conform::conform_batch`]).
    ///
    /// # Errors
    /// As [`TableWrite::write_with_row_kinds`]; [`Error::SchemaMismatch`] for a column that is
    /// missing, unknown or does not cast, or an unknown row kind.
    pub fn write_conformed(
        &mut self,
        batch: &RecordBatch,
        kind_column: Option<&str>,
    ) -> Result<()> {
        let (batch, kinds) =
            crate::conform::conform_batch(&self.table, batch, &self.input_schema, kind_column)?;
        self.write_with_row_kinds(&batch, kinds.as_deref())
    }

    /// Writes one batch whose rows carry a row kind each (`+I`, `-U`, `+U`, `-D`); `None`
    /// means all `+I`. Append tables take `+I` only, as Java.
    ///
    /// # Errors
    /// As [`TableWrite::write`]; [`Error::SchemaMismatch`] when `kinds` does not have one kind
    /// per row, or a retraction is given to an append table.
    pub fn write_with_row_kinds(
        &mut self,
        batch: &RecordBatch,
        kinds: Option<&[RowKind]>,
    ) -> Result<()> {
        let batch = self.conform(batch)?;
        let all_insert = vec![RowKind::Insert; batch.num_rows()];
        let kinds = kinds.unwrap_or(&all_insert);
        if kinds.len() != batch.num_rows() {
            return Err(Error::SchemaMismatch {
                table: self.table.clone(),
                reason: format!("{} row kinds for {} rows", kinds.len(), batch.num_rows()),
            });
        }
        if self.pk.is_none() && kinds.iter().any(|k| *k != RowKind::Insert) {
            return Err(Error::SchemaMismatch {
                table: self.table.clone(),
                reason: "an append table takes +I rows only".into(),
            });
        }
        let groups = match &self.bucket_mode {
            BucketMode::CrossPartition(_) => self.cross_partition_groups(&batch, kinds)?,
            _ => self
                .group_rows(&batch)?
                .into_iter()
                .map(|(key, rows)| RowGroup {
                    kinds: rows.iter().map(|r| kinds[*r as usize]).collect(),
                    key,
                    rows,
                    set_partition: false,
                })
                .collect(),
        };
        // Every partition is named before a row is written, so a bad one writes nothing.
        for g in &groups {
            self.writer_for(&g.key)?;
        }
        for g in groups {
            let RowGroup {
                key,
                rows,
                kinds: part_kinds,
                set_partition,
            } = g;
            let part = if rows.len() == batch.num_rows() {
                batch.clone()
            } else {
                let idx = UInt32Array::from(rows);
                arrow_select::take::take_record_batch(&batch, &idx)
                    .map_err(|e| Error::Internal(format!("selecting rows of one bucket: {e}")))?
            };
            let part = match set_partition {
                true => self.with_partition_values(&part, &key.0)?,
                false => part,
            };
            let is_pk = self.pk.is_some();
            let w = self.writer_for(&key)?;
            if is_pk {
                let n = part.num_rows() as i64;
                w.buffer.push(part, &part_kinds, w.next_sequence);
                w.next_sequence += n;
            } else {
                w.writer.write(&part)?;
            }
        }
        if let Some(pk) = &self.pk {
            let used: usize = self.writers.values().map(|w| w.buffer.memory()).sum();
            if used as u64 >= pk.write_buffer_size {
                self.flush_buffers()?;
            }
        }
        Ok(())
    }

    /// Writes every buffered primary-key record as level-0 files, one file set per bucket
    /// (Java `MergeTreeWriter.flushWriteBuffer`). With threads, the buffers of as many buckets
    /// as there are threads are sorted and merged side by side, then written one after the
    /// other, so that at most that many merged buffers are held besides the buffers.
    fn flush_buffers(&mut self) -> Result<()> {
        let Some(pk) = &self.pk else {
            return Ok(());
        };
        let threads = self
            .pool
            .as_ref()
            .map_or(1, |p| p.current_num_threads() + 1);
        let keys: Vec<&BucketKey> = self
            .order
            .iter()
            .filter(|k| self.writers.get(*k).is_some_and(|w| !w.buffer.is_empty()))
            .collect();
        for chunk in keys.chunks(threads) {
            let mut buffers: Vec<(&BucketKey, KvBuffer)> = Vec::with_capacity(chunk.len());
            for key in chunk {
                if let Some(w) = self.writers.get_mut(*key) {
                    buffers.push((*key, std::mem::take(&mut w.buffer)));
                }
            }
            let flushed = run_each(self.pool.as_deref(), buffers, |(key, mut buffer)| {
                let flushed = buffer.flush(
                    &self.table,
                    &pk.key_indices,
                    &pk.merge,
                    &self.ctx.arrow_schema,
                    pk.raw,
                );
                (key, flushed)
            })
            .ok_or_else(|| Error::Internal("a flush thread stopped".into()))?;
            for (key, flushed) in flushed {
                let flushed = flushed?;
                let Some(w) = self.writers.get_mut(key) else {
                    continue;
                };
                if let Some(kv) = flushed.merged {
                    w.writer.write(&kv)?;
                }
                w.writer.end_file()?;
                // Java `MergeTreeWriter.flushWriteBuffer`: one changelog file set per flush.
                if let (Some(raw), Some(changelog)) = (flushed.raw, w.changelog.as_mut()) {
                    changelog.write(&raw)?;
                    changelog.end_file()?;
                }
            }
        }
        Ok(())
    }

    /// Closes every open file and returns one message per partition and bucket that got new
    /// files since the last call (Java `prepareCommit`).
    ///
    /// # Errors
    /// Storage and encoder errors while closing files.
    pub fn prepare_commit(&mut self) -> Result<Vec<CommitMessage>> {
        self.flush_buffers()?;
        let mut out = Vec::new();
        for key in &self.order {
            let Some(w) = self.writers.get_mut(key) else {
                continue;
            };
            let files = w.writer.prepare_commit()?;
            let changelog = match w.changelog.as_mut() {
                Some(c) => c.prepare_commit()?,
                None => Vec::new(),
            };
            let index = match &mut self.bucket_mode {
                BucketMode::Dynamic(d, _) => d.prepare_commit(key)?,
                _ => None,
            };
            if files.is_empty() && changelog.is_empty() && index.is_none() {
                continue;
            }
            // Total buckets only for fixed buckets: an absent one means the table's bucket
            // option to Java's committers (`ManifestEntryChanges`), and pypaimon 2.1's and
            // paimon-rust 0.4's committers refuse one that is not positive.
            // A postpone writer's messages carry -2, as Java's do.
            let total_buckets = (self.core.bucket > 0
                || self.core.bucket == layout::POSTPONE_BUCKET)
                .then_some(self.core.bucket);
            out.push(
                CommitMessage::new(key.0.clone(), key.1)
                    .with_total_buckets(total_buckets)
                    .with_data_increment(DataIncrement {
                        new_files: files,
                        changelog_files: changelog,
                        new_index_files: index.into_iter().collect(),
                        ..DataIncrement::default()
                    }),
            );
        }
        if let BucketMode::Dynamic(d, _) = &mut self.bucket_mode {
            d.handed_out();
        }
        Ok(out)
    }

    /// Abandons everything not yet handed out by [`TableWrite::prepare_commit`]: open files
    /// are dropped and closed ones deleted (left as orphans where the storage cannot).
    pub fn abort(&mut self) {
        for w in self.writers.values_mut() {
            w.writer.abort();
            if let Some(c) = w.changelog.as_mut() {
                c.abort();
            }
        }
        if let BucketMode::Dynamic(d, _) = &mut self.bucket_mode {
            d.abort();
        }
    }

    /// The batch with the file schema's field ids, after checking names, types and
    /// nullability.
    fn conform(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let mismatch = |reason: String| Error::SchemaMismatch {
            table: self.table.clone(),
            reason,
        };
        let schema = batch.schema();
        if schema.fields().len() != self.fields.len() {
            return Err(mismatch(format!(
                "{} columns, the table has {}",
                schema.fields().len(),
                self.fields.len()
            )));
        }
        for ((got, want), column) in schema
            .fields()
            .iter()
            .zip(self.input_schema.fields())
            .zip(batch.columns())
        {
            if got.name() != want.name() {
                return Err(mismatch(format!(
                    "column {} where the table has {}",
                    got.name(),
                    want.name()
                )));
            }
            if got.data_type() != want.data_type() {
                return Err(mismatch(format!(
                    "column {} is {}, the table needs {}",
                    got.name(),
                    got.data_type(),
                    want.data_type()
                )));
            }
            if !want.is_nullable() && column.null_count() > 0 {
                return Err(Error::NullValue {
                    table: self.table.clone(),
                    column: want.name().clone(),
                });
            }
        }
        if let Some(pk) = &self.pk {
            for i in &pk.key_indices {
                if batch.column(*i).null_count() > 0 {
                    return Err(Error::NullValue {
                        table: self.table.clone(),
                        column: self.fields[*i].name.clone(),
                    });
                }
            }
        }
        // Nested ROW fields carry their field ids in the file schema: the columns take them on.
        let columns = batch
            .columns()
            .iter()
            .zip(self.row_schema.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(c.clone())
                } else {
                    arrow_cast::cast(c, f.data_type()).map_err(|e| mismatch(e.to_string()))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        RecordBatch::try_new(self.row_schema.clone(), columns).map_err(|e| mismatch(e.to_string()))
    }

    /// The rows of a cross-partition table routed through its key index
    /// ([`CrossPartitionIndex::route`]), grouped by (partition, bucket) in row order; a
    /// bucket's rows that take another partition's values, or become retractions, start a
    /// group of their own, and groups of one bucket keep the rows' order.
    fn cross_partition_groups(
        &mut self,
        batch: &RecordBatch,
        kinds: &[RowKind],
    ) -> Result<Vec<RowGroup>> {
        let partitions = self.partitions(batch)?;
        let of_row: Vec<&[u8]> = partitions
            .of_row()
            .map(|p| partitions.distinct[p].as_slice())
            .collect();
        let BucketMode::CrossPartition(index) = &mut self.bucket_mode else {
            return Err(Error::Internal("not a cross-partition writer".into()));
        };
        let routed = index.route(batch, &of_row)?;
        let mut groups: Vec<RowGroup> = Vec::new();
        let mut last: HashMap<(u32, i32), usize> = HashMap::new();
        for Routed {
            row,
            partition,
            bucket,
            retract,
            set_partition,
        } in routed
        {
            let kind = match retract {
                true => RowKind::Delete,
                false => kinds[row as usize],
            };
            let at = match last.get(&(partition, bucket)) {
                Some(at) if groups[*at].set_partition == set_partition => *at,
                _ => {
                    groups.push(RowGroup {
                        key: (index.partition(partition).to_vec(), bucket),
                        rows: Vec::new(),
                        kinds: Vec::new(),
                        set_partition,
                    });
                    last.insert((partition, bucket), groups.len() - 1);
                    groups.len() - 1
                }
            };
            groups[at].rows.push(row);
            groups[at].kinds.push(kind);
        }
        Ok(groups)
    }

    /// `batch` with its partition columns set to the values of `partition` (Java
    /// `ProjectToRowFunction`, for rows routed to a key's old partition).
    fn with_partition_values(&self, batch: &RecordBatch, partition: &[u8]) -> Result<RecordBatch> {
        let values = self.partition_values(partition)?;
        let mut columns = batch.columns().to_vec();
        let zeros = UInt32Array::from(vec![0u32; batch.num_rows()]);
        for ((i, f), value) in self.partition_cols.iter().zip(&values) {
            let one = paimon_data::datum::datum_to_array(value, &f.data_type).map_err(|e| {
                Error::InvalidPartition {
                    table: self.table.clone(),
                    column: f.name.clone(),
                    reason: e.to_string(),
                }
            })?;
            let one = match one.data_type() == columns[*i].data_type() {
                true => one,
                false => arrow_cast::cast(&one, columns[*i].data_type())
                    .map_err(|e| Error::Internal(format!("partition value as its column: {e}")))?,
            };
            columns[*i] = arrow_select::take::take(&one, &zeros, None)
                .map_err(|e| Error::Internal(format!("repeating a partition value: {e}")))?;
        }
        RecordBatch::try_new(batch.schema(), columns)
            .map_err(|e| Error::Internal(format!("setting partition values: {e}")))
    }

    /// Row indices per (serialized partition, bucket), in first-seen order, rows in input order.
    fn group_rows(&mut self, batch: &RecordBatch) -> Result<Vec<(BucketKey, Vec<u32>)>> {
        let rows = batch.num_rows() as u32;
        if self.partition_cols.is_empty() && matches!(self.bucket_mode, BucketMode::Unaware) {
            return Ok(vec![(
                (paimon_spec::stats::empty_serialized_row(), 0),
                (0..rows).collect(),
            )]);
        }
        let partitions = self.partitions(batch)?;
        let buckets = match &mut self.bucket_mode {
            // Unaware: one group per partition, built from the runs without a per-row lookup.
            BucketMode::Unaware => {
                let mut groups: Vec<Vec<u32>> = vec![Vec::new(); partitions.distinct.len()];
                for (range, p) in &partitions.runs {
                    groups[*p].extend(range.start as u32..range.end as u32);
                }
                return Ok(partitions
                    .distinct
                    .into_iter()
                    .zip(groups)
                    .map(|(p, rows)| ((p, 0), rows))
                    .collect());
            }
            BucketMode::Fixed(a) => a.assign(batch)?,
            BucketMode::Postpone => vec![layout::POSTPONE_BUCKET; rows as usize],
            BucketMode::CrossPartition(_) => {
                return Err(Error::Internal(
                    "a cross-partition table's rows are routed by its key index".into(),
                ))
            }
            BucketMode::Dynamic(d, keys) => {
                let hashes = key_hashes(&self.table, "primary-key", keys, batch)?;
                let of_row: Vec<&[u8]> = partitions
                    .of_row()
                    .map(|p| partitions.distinct[p].as_slice())
                    .collect();
                d.assign(&of_row, &hashes)?
            }
        };
        // Grouped by (partition index, bucket): no per-row copies of the partition bytes.
        let mut index: HashMap<(usize, i32), usize> = HashMap::new();
        let mut groups: Vec<((usize, i32), Vec<u32>)> = Vec::new();
        for (row, (bucket, p)) in buckets.into_iter().zip(partitions.of_row()).enumerate() {
            let key = (p, bucket);
            let at = *index.entry(key).or_insert_with(|| {
                groups.push((key, Vec::new()));
                groups.len() - 1
            });
            groups[at].1.push(row as u32);
        }
        Ok(groups
            .into_iter()
            .map(|((p, b), rows)| ((partitions.distinct[p].clone(), b), rows))
            .collect())
    }

    /// The partition of every row: the batch is cut into runs of equal partition values
    /// (compared column-wise by Arrow), and each run's first row alone is serialized and
    /// looked up, so a batch of one partition costs one serialization, not one per row.
    fn partitions(&self, batch: &RecordBatch) -> Result<Partitions> {
        if self.partition_cols.is_empty() {
            return Ok(Partitions {
                distinct: vec![paimon_spec::stats::empty_serialized_row()],
                runs: vec![(0..batch.num_rows(), 0)],
            });
        }
        let types: Vec<_> = self
            .partition_cols
            .iter()
            .map(|(_, f)| f.data_type.clone())
            .collect();
        let columns: Vec<_> = self
            .partition_cols
            .iter()
            .map(|(i, _)| batch.column(*i).clone())
            .collect();
        let ranges = arrow_ord::partition::partition(&columns)
            .map_err(|e| Error::Internal(format!("comparing partition values: {e}")))?
            .ranges();
        let mut distinct: Vec<Vec<u8>> = Vec::new();
        let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut runs = Vec::with_capacity(ranges.len());
        let mut values = Vec::with_capacity(types.len());
        for range in ranges {
            values.clear();
            for (i, f) in &self.partition_cols {
                values.push(
                    datum_at(batch.column(*i), range.start, &f.data_type).ok_or_else(|| {
                        Error::InvalidPartition {
                            table: self.table.clone(),
                            column: f.name.clone(),
                            reason: format!("type {} cannot be a partition", f.data_type),
                        }
                    })?,
                );
            }
            let bytes = serialize_datums(&values, &types).map_err(|source| Error::Encode {
                table: self.table.clone(),
                source,
            })?;
            let at = match seen.get(&bytes) {
                Some(at) => *at,
                None => {
                    seen.insert(bytes.clone(), distinct.len());
                    distinct.push(bytes);
                    distinct.len() - 1
                }
            };
            runs.push((range, at));
        }
        Ok(Partitions { distinct, runs })
    }

    fn writer_for(&mut self, key: &(Vec<u8>, i32)) -> Result<&mut BucketWriter> {
        if !self.writers.contains_key(key) {
            let values = self.partition_values(&key.0)?;
            let fields: Vec<DataField> =
                self.partition_cols.iter().map(|(_, f)| f.clone()).collect();
            let part_path = layout::partition_path(
                &fields,
                &values,
                &self.core.partition_default_name,
                self.core.partition_legacy_name,
            )
            .ok_or_else(|| Error::InvalidPartition {
                table: self.table.clone(),
                column: fields
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
                reason: format!("values {values:?} have no Java partition directory name"),
            })?;
            let dir = TableLayout::new(&self.root).bucket_dir(None, &part_path, key.1);
            let external = self
                .external_roots
                .iter()
                .map(|root| layout::external_bucket_dir(root, &part_path, key.1))
                .collect();
            let paths = DataFilePathFactory::new(dir, DataFileNames::from_options(&self.core))
                .with_external_dirs(external);
            let restored = self.restored.get(key).copied().unwrap_or(-1);
            // Changelog files share the writer's UUID (Java's one `DataFilePathFactory`).
            let changelog = match self.pk.as_ref().map(|p| p.raw) {
                Some(RawRecords::All | RawRecords::NoRetractions) => Some(RollingWriter::new(
                    self.ctx.clone(),
                    paths.clone().for_changelog(),
                    restored,
                )),
                _ => None,
            };
            self.writers.insert(
                key.clone(),
                BucketWriter {
                    changelog,
                    writer: RollingWriter::new(self.ctx.clone(), paths, restored),
                    buffer: KvBuffer::default(),
                    next_sequence: restored.saturating_add(1),
                },
            );
            self.order.push(key.clone());
        }
        self.writers
            .get_mut(key)
            .ok_or_else(|| Error::Internal("bucket writer vanished".into()))
    }

    fn partition_values(&self, serialized: &[u8]) -> Result<Vec<Datum>> {
        let types: Vec<_> = self
            .partition_cols
            .iter()
            .map(|(_, f)| f.data_type.clone())
            .collect();
        let row = paimon_spec::binary::BinaryRow::from_serialized(serialized)?;
        Ok(row.to_datums(&types)?)
    }
}

/// Rows of one batch bound for one bucket, with their row kinds; `set_partition`: their
/// partition columns take the bucket's partition values.
struct RowGroup {
    key: BucketKey,
    rows: Vec<u32>,
    kinds: Vec<RowKind>,
    set_partition: bool,
}

/// The distinct serialized partitions of a batch, and its runs of rows of one partition (by
/// index into `distinct`), in row order.
struct Partitions {
    distinct: Vec<Vec<u8>>,
    runs: Vec<(std::ops::Range<usize>, usize)>,
}

impl Partitions {
    /// The partition index of each row, in row order.
    fn of_row(&self) -> impl Iterator<Item = usize> + '_ {
        self.runs
            .iter()
            .flat_map(|(range, p)| std::iter::repeat_n(*p, range.len()))
    }
}

/// The merge engine of a primary-key table resolved against its file layout `kv_schema`, for
/// flushes through paimon-data's merge; `column` finds a table column's index in the row.
fn engine_flush(
    table: &str,
    core: &CoreOptions,
    primary_keys: &[String],
    kv_schema: &SchemaRef,
    column: impl Fn(&str) -> Result<usize>,
) -> Result<EngineFlush> {
    let merge_err = |source: paimon_data::merge::MergeError| match source {
        paimon_data::merge::MergeError::Unsupported { feature } => Error::Unsupported {
            feature: format!("table {table}: {feature}"),
        },
        source => Error::Merge {
            table: table.to_string(),
            source,
        },
    };
    let layout = RunLayout::from_schema(
        kv_schema,
        primary_keys,
        &core.sequence_fields,
        core.sequence_field_descending,
    )
    .map_err(merge_err)?;
    let value_fields = layout.value_fields(kv_schema).map_err(merge_err)?;
    let spec = MergeEngineSpec::try_new(core, primary_keys, &value_fields).map_err(merge_err)?;
    let sequence_fields = core
        .sequence_fields
        .iter()
        .map(|f| column(f))
        .collect::<Result<Vec<_>>>()?;
    Ok(EngineFlush {
        spec,
        layout,
        sequence_fields,
        sequence_descending: core.sequence_field_descending,
    })
}

/// The external roots new data files go under (Java `CoreOptions.createExternalPaths`):
/// none with the default strategy `none`, every `data-file.external-paths` entry with
/// `round-robin`, those of the `data-file.external-paths.specific-fs` scheme with
/// `specific-fs`.
///
/// # Errors
/// [`Error::InvalidOption`] for `specific-fs` without a matching path or scheme;
/// [`Error::Unsupported`] for another strategy.
fn external_roots(table: &str, core: &CoreOptions) -> Result<Vec<String>> {
    let paths = &core.data_file_external_paths;
    match core.data_file_external_paths_strategy.as_str() {
        "none" => Ok(Vec::new()),
        _ if paths.is_empty() => Ok(Vec::new()),
        "round-robin" => Ok(paths.clone()),
        "specific-fs" => {
            let scheme = core
                .data_file_external_paths_specific_fs
                .as_deref()
                .map(str::to_ascii_lowercase);
            let picked: Vec<String> = paths
                .iter()
                .filter(|p| paimon_io::scheme_of(p).map(str::to_ascii_lowercase) == scheme)
                .cloned()
                .collect();
            if picked.is_empty() {
                return Err(Error::InvalidOption {
                    key: "data-file.external-paths.specific-fs".into(),
                    value: scheme.unwrap_or_default(),
                    reason: format!(
                        "table {table}: no path of data-file.external-paths has this scheme"
                    ),
                });
            }
            Ok(picked)
        }
        other => Err(Error::Unsupported {
            feature: format!("table {table}: data-file.external-paths.strategy = {other}"),
        }),
    }
}
