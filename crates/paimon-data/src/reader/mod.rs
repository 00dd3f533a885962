//! [`SplitReader`]: one `DataSplit` in, Arrow `RecordBatch`es out (Java `TableRead` /
//! `SplitRead` family).
//!
//! Everything comes from the split, the table's schema files and the [`ReadOptions`]; the
//! reader never opens snapshots or manifests. Per split it picks the Java read path:
//!
//! | split | path (Java) |
//! |---|---|
//! | append table, or raw-convertible / streaming primary-key split | files read one by one with their deletion vectors (`RawFileSplitRead`) |
//! | primary-key split that is not raw-convertible | merge-on-read over sorted runs (`MergeFileSplitRead`, [`crate::merge`]) |
//! | primary-key incremental diff (before files, not streaming) | both sides merged, the after rows that changed (`IncrementalDiffSplitRead`) |
//! | data-evolution split that is not raw-convertible | column-wise union of the files of each row-id range (`DataEvolutionSplitRead`) |
//!
//! Then the predicate is applied exactly, the projection taken and the limit enforced. What a
//! split carries beyond its files (an indexed split's row ranges, a query-auth split's row
//! filters and column masks) is applied per batch, or the split is refused
//! ([`SplitReader::read_any`]).

mod blob_descriptors;
mod budget;
mod context;
mod data_evolution;
mod diff_read;
mod file;
mod merge_read;
mod options;
mod parallel;
mod paths;
mod rules;
mod schemas;
mod staged;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use paimon_io::FileIORef;
use paimon_spec::options::CoreOptions;
use paimon_spec::predicate::Predicate;
use paimon_spec::schema::{TableSchema, TableSchemaRef};
use paimon_spec::types::{DataField, DataType, TypeKind};
use paimon_split::{DataSplit, Split};

pub use file::{
    ROW_ID, ROW_ID_FIELD_ID, SEQUENCE_NUMBER, SEQUENCE_NUMBER_FIELD_ID, VALUE_KIND,
    VALUE_KIND_FIELD_ID,
};
pub use options::{ReadOptions, DEFAULT_BATCH_SIZE};
pub use parallel::PlanBatches;

use crate::arrow_schema::to_arrow_schema;
use crate::error::{Error, Result};
use crate::format::BatchIter;
use budget::BatchSizer;
use rules::{SplitRules, WireSplit};
use schemas::SchemaCache;

pub(crate) use context::SplitContext;

/// Name of the leading row-kind column ([`ReadOptions::with_row_kind`]).
pub const ROW_KIND: &str = "_ROW_KIND";

/// Builds a [`SplitReader`].
#[derive(Debug)]
pub struct SplitReaderBuilder {
    io: FileIORef,
    options: ReadOptions,
}

impl SplitReaderBuilder {
    /// Rows per output batch ([`ReadOptions::batch_size`]).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.options.batch_size = batch_size.max(1);
        self
    }

    /// Output columns by name ([`ReadOptions::projection`]).
    pub fn with_projection<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.options.projection = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Output columns by field id ([`ReadOptions::projection_ids`]).
    pub fn with_projection_ids(mut self, ids: impl IntoIterator<Item = i32>) -> Self {
        self.options.projection_ids = Some(ids.into_iter().collect());
        self
    }

    /// Row filter ([`ReadOptions::predicate`]), the name the facade's scan gives it.
    pub fn with_filter(mut self, predicate: Predicate) -> Self {
        self.options.predicate = Some(predicate);
        self
    }

    /// The read options a planner sent as bytes ([`paimon_split::read_options`]): schema,
    /// branch, projection, filter, limit, batch size and row kinds, each one given set on this
    /// builder (the others keep this builder's values).
    pub fn with_split_options(mut self, options: &paimon_split::SplitReadOptions) -> Self {
        if let Some(id) = options.schema_id {
            self = self.with_schema_id(id);
        }
        if let Some(b) = &options.branch {
            self = self.with_branch(b.clone());
        }
        if let Some(cols) = &options.projection {
            self = self.with_projection(cols.clone());
        }
        if let Some(p) = &options.filter {
            self = self.with_filter(p.clone());
        }
        if let Some(n) = options.limit {
            self = self.with_limit(usize::try_from(n).unwrap_or(usize::MAX));
        }
        if let Some(n) = options.batch_size {
            self = self.with_batch_size(n);
        }
        self.with_row_kind(options.with_row_kind)
    }

    /// A leading `_ROW_KIND` column ([`ReadOptions::with_row_kind`]).
    pub fn with_row_kind(mut self, on: bool) -> Self {
        self.options.with_row_kind = on;
        self
    }

    /// Maximum number of rows ([`ReadOptions::limit`]).
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.options.limit = Some(limit);
        self
    }

    /// Read as schema `id` ([`ReadOptions::schema_id`]).
    pub fn with_schema_id(mut self, id: i64) -> Self {
        self.options.schema_id = Some(id);
        self
    }

    /// Schema files of a branch ([`ReadOptions::branch`]).
    pub fn with_branch(mut self, branch: impl Into<String>) -> Self {
        self.options.branch = Some(branch.into());
        self
    }

    /// Adds a path prefix rewrite ([`ReadOptions::path_rewrites`]).
    pub fn with_path_rewrite(mut self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.options.path_rewrites.push((from.into(), to.into()));
        self
    }

    /// Bounds the decoded data the read keeps in flight by `pool`
    /// ([`ReadOptions::memory_pool`], which says what it covers); the pool may be shared with
    /// planning and other reads.
    pub fn with_memory_pool(mut self, pool: Arc<dyn paimon_memory::MemoryPool>) -> Self {
        self.options.memory_pool = Some(pool);
        self
    }

    /// [`SplitReaderBuilder::with_memory_pool`] with a pool of its own of `bytes`.
    pub fn with_memory_budget(self, bytes: usize) -> Self {
        self.with_memory_pool(Arc::new(paimon_memory::GreedyMemoryPool::new(bytes)))
    }

    /// When the predicate is pushed into the Parquet decoder
    /// ([`ReadOptions::late_materialization`]).
    pub fn with_late_materialization(mut self, mode: crate::format::LateMaterialization) -> Self {
        self.options.late_materialization = mode;
        self
    }

    /// Returns BLOB descriptors as they are (`true`) or the bytes they point to (`false`)
    /// ([`ReadOptions::blob_as_descriptor`]).
    pub fn with_blob_as_descriptor(mut self, on: bool) -> Self {
        self.options.blob_as_descriptor = Some(on);
        self
    }

    /// Adds a root BLOB descriptors may point under ([`ReadOptions::blob_roots`]).
    pub fn with_blob_root(mut self, root: impl Into<String>) -> Self {
        self.options.blob_roots.push(root.into());
        self
    }

    /// Adds a directory name BLOB descriptor URIs are redirected into the table by
    /// ([`ReadOptions::blob_descriptor_dirs`], read option `blob.descriptor-path-rewrite`).
    pub fn with_blob_descriptor_dir(mut self, dir: impl Into<String>) -> Self {
        self.options.blob_descriptor_dirs.push(dir.into());
        self
    }

    /// Replaces all options.
    pub fn with_options(mut self, options: ReadOptions) -> Self {
        self.options = options;
        self
    }

    /// The reader.
    pub fn build(self) -> SplitReader {
        SplitReader {
            io: self.io,
            options: Arc::new(self.options),
            schemas: Arc::new(SchemaCache::default()),
            sizer: None,
            stage: None,
        }
    }
}

/// Reads splits of one or more tables; cheap to clone, safe to share across threads.
#[derive(Debug, Clone)]
pub struct SplitReader {
    io: FileIORef,
    options: Arc<ReadOptions>,
    schemas: Arc<SchemaCache>,
    /// Batch sizes under the memory budget, shared by the splits of one
    /// [`SplitReader::read_splits`]; `None` = one per split read.
    sizer: Option<Arc<BatchSizer>>,
    /// Under [`SplitReader::read_async`]: the storage view whose bytes are fetched ahead.
    stage: Option<Arc<staged::StagedIO>>,
}

impl SplitReader {
    /// A builder over `io` with default [`ReadOptions`].
    pub fn builder(io: FileIORef) -> SplitReaderBuilder {
        SplitReaderBuilder {
            io,
            options: ReadOptions::default(),
        }
    }

    /// The options in effect.
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The schema of the table as this reader reads it (latest, or the configured id).
    ///
    /// # Errors
    /// [`Error::NotFound`] when the table has no schema file.
    pub fn table_schema(&self, table_path: &str) -> Result<TableSchemaRef> {
        let dir = SchemaCache::schema_dir(table_path, self.options.branch.as_deref());
        match self.options.schema_id {
            Some(id) => self.schemas.get(self.io.as_ref(), &dir, id),
            None => self.schemas.latest(self.io.as_ref(), &dir),
        }
    }

    /// The Arrow schema of the batches [`SplitReader::read`] returns for `table_path`.
    ///
    /// # Errors
    /// As [`SplitReader::table_schema`]; [`Error::NotFound`] for an unknown projected column.
    pub fn output_schema(&self, table_path: &str) -> Result<SchemaRef> {
        let table = self.table_schema(table_path)?;
        Ok(output_schema(
            &output_fields(&table, &self.options)?,
            &self.options,
        ))
    }

    /// Reads `split` of the table at `table_path`, as a blocking iterator of batches.
    ///
    /// # Errors
    /// Setup errors (schemas, paths) here; per-file errors come out of the iterator.
    pub fn read(&self, table_path: &str, split: &DataSplit) -> Result<SplitBatches> {
        self.read_from(table_path, split, false, &SplitRules::default())
    }

    /// Reads `split` as a worker receives it from [`paimon_split::decode_any`]. A split of a
    /// table with `scan.fallback-branch` (Java `FallbackDataSplit` / `FallbackSplit`) that was
    /// planned on the fallback branch has its files read with that branch's schemas and
    /// options, and its rows come out in the table's schema, as Java
    /// `FallbackReadFileStoreTable` reads them:
    ///
    /// ```text
    ///  fallback split, file schema 1 of branch `b`    table schema (main, latest)
    ///  <table>/branch/branch-b/schema/schema-1        <table>/schema/schema-2
    ///  pt | value | value2                   ──>      pt | value | value2
    /// ```
    ///
    /// Every other field of a split is honoured or the split is refused:
    ///
    /// | split (Java class) | read |
    /// |---|---|
    /// | `DataSplit` | as [`SplitReader::read`] |
    /// | `FallbackDataSplit`, `FallbackSplit` | with the fallback branch's schemas when `isFallback` |
    /// | `IndexedSplit` | only rows whose `_ROW_ID` lies in its inclusive row ranges; files outside them are not opened. Refused: a split with scores, a primary-key table, a file without a first row id |
    /// | `QueryAuthSplit` | its row filters (ANDed, on raw values) and column masks applied as Java's `TableQueryAuthResult.doAuth`; the read's own predicate then sees masked values. Refused: a rule [`paimon_spec::predicate_json`] cannot express exactly, a rule naming a column the table does not have, a mask reading another masked column, a mask of another type than its column |
    /// | `IncrementalSplit`, `ChainSplit` | refused (they need the table's metadata; convert an incremental split to a DataSplit first) |
    ///
    /// # Errors
    /// [`Error::Unsupported`] naming the kind or field that cannot be honoured; otherwise as
    /// [`SplitReader::read`].
    pub fn read_any(&self, table_path: &str, split: &Split) -> Result<SplitBatches> {
        let wire = WireSplit::resolve(split, table_path)?;
        if wire.indexed.is_none() && wire.auth.is_none() {
            return self.read_from(table_path, wire.data, wire.fallback, &SplitRules::default());
        }
        let table = self.table_schema(table_path)?;
        let output: Vec<String> = output_fields(&table, &self.options)?
            .into_iter()
            .map(|f| f.name)
            .collect();
        let (rules, pre) = SplitRules::new(
            &wire,
            &table,
            table_path,
            self.options.predicate.as_ref(),
            &output,
        )?;
        // The read prunes and filters with the auth filter and the user's conjuncts on
        // unmasked columns; conjuncts on masked columns wait for the masks.
        let mut options = (*self.options).clone();
        options.predicate = pre;
        let reader = SplitReader {
            options: Arc::new(options),
            ..self.clone()
        };
        reader.read_from(table_path, wire.data, wire.fallback, &rules)
    }

    /// [`SplitReader::read`]; with `fallback`, the files are those of the table's
    /// `scan.fallback-branch` (when it has one other than the branch read).
    fn read_from(
        &self,
        table_path: &str,
        split: &DataSplit,
        fallback: bool,
        rules: &SplitRules,
    ) -> Result<SplitBatches> {
        let table = self.table_schema(table_path)?;
        let out = output_fields(&table, &self.options)?;
        let mut read = out.clone();
        let predicate_columns = self.options.predicate.iter().flat_map(|p| p.columns());
        for c in predicate_columns.chain(rules.extra_columns.iter().map(String::as_str)) {
            if !read.iter().any(|f| f.name == c) {
                let f = if c == ROW_ID {
                    DataField::new(
                        ROW_ID_FIELD_ID,
                        ROW_ID,
                        DataType::nullable(TypeKind::BigInt),
                    )
                } else {
                    table.field(c).cloned().ok_or_else(|| Error::NotFound {
                        path: format!("column {c} of {table_path}"),
                    })?
                };
                read.push(f);
            }
        }
        let core = CoreOptions::try_new(&table.options).map_err(|e| Error::spec(table_path, e))?;
        // The schemas the split's files were written with, and the options they are read with:
        // the fallback branch's for a fallback split, else the table's.
        let (files_table, schema_dir) = match self.fallback_branch(&core, fallback) {
            Some(branch) => {
                let dir = SchemaCache::schema_dir(table_path, Some(branch));
                (self.schemas.latest(self.io.as_ref(), &dir)?, dir)
            }
            None => (
                table.clone(),
                SchemaCache::schema_dir(table_path, self.options.branch.as_deref()),
            ),
        };
        let core = if Arc::ptr_eq(&files_table, &table) {
            core
        } else {
            CoreOptions::try_new(&files_table.options)
                .map_err(|e| Error::spec(schema_dir.as_str(), e))?
        };
        // Files none of whose rows an indexed split wants are not opened; a data-evolution
        // merge keeps its groups whole (their files cover one row-id range together).
        let pruned;
        let split = match &rules.ranges {
            Some(r) if !core.data_evolution_enabled || split.raw_convertible => {
                pruned = r.prune(split);
                &pruned
            }
            _ => split,
        };
        let sizer = self.sizer.clone().or_else(|| {
            let budget = self.options.budget_bytes()?;
            Some(Arc::new(BatchSizer::new(budget, 1)))
        });
        let ctx = Arc::new(SplitContext::new(
            self,
            table_path,
            split,
            files_table.clone(),
            schema_dir,
            sizer.map(|s| (s, read.as_slice())),
        )?);
        let pk = !files_table.primary_keys.is_empty();
        let tasks = if core.data_evolution_enabled && !split.raw_convertible {
            data_evolution::tasks(&ctx, &read)?
        } else if pk && split.is_incremental_diff() {
            diff_read::tasks(&ctx, &core)?
        } else if pk && !split.raw_convertible && !split.is_streaming {
            merge_read::tasks(&ctx, &read, &core)?
        } else {
            // Java reads a raw-convertible batch split as plain rows (`RawFileSplitRead`):
            // every row is +I. Only streaming splits replay the files' own value kinds.
            let kinds = self.options.with_row_kind && pk && split.is_streaming;
            raw_tasks(&ctx, &read, kinds)?
        };
        let types: HashMap<String, DataType> = read
            .iter()
            .map(|f| (f.name.clone(), f.data_type.clone()))
            .collect();
        let data_paths = match &self.stage {
            Some(_) => ctx
                .split
                .data_files
                .iter()
                .chain(&ctx.split.before_files)
                .filter_map(|m| Some((ctx.file_path(m).ok()?, u64::try_from(m.file_size).ok()?)))
                .collect(),
            None => Vec::new(),
        };
        Ok(SplitBatches {
            data_paths,
            tasks: tasks.into(),
            current: None,
            schema: output_schema(&out, &self.options),
            out_fields: out,
            predicate: self.options.predicate.clone(),
            types,
            remaining: self.options.limit,
            rules: (!rules.is_empty()).then(|| Arc::new(rules.clone())),
        })
    }

    /// Decodes a Java-serialized split (`DataSplit.serialize`, `FallbackDataSplit.serialize`,
    /// the `SPLIT_V1` frame or a Java object stream) and reads it with
    /// [`SplitReader::read_any`].
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the bytes are not a split; otherwise as
    /// [`SplitReader::read_any`].
    pub fn read_bytes(&self, table_path: &str, split: &[u8]) -> Result<SplitBatches> {
        let split = paimon_split::decode_any(split)
            .map_err(|e| Error::corrupt("<split bytes>", e.to_string()))?;
        self.read_any(table_path, &split.split)
    }

    /// The branch whose files a split is read from when it is a `fallback` split: the table's
    /// `scan.fallback-branch`, unless it is the branch this reader reads (Java wraps a table in
    /// `FallbackReadFileStoreTable` only then). `None` reads the split as the table's own.
    fn fallback_branch<'a>(&self, core: &'a CoreOptions, fallback: bool) -> Option<&'a str> {
        let branch = core.scan_fallback_branch.as_deref().filter(|_| fallback)?;
        let own = self.options.branch.as_deref().unwrap_or("main");
        (branch != own).then_some(branch)
    }

    /// Reads `split` (any kind, as [`SplitReader::read_any`]) as an async stream, for async
    /// callers: no thread is started and no runtime entered. What the read will ask of storage
    /// is fetched ahead through the `FileIO`'s async calls (schema and index files, each data
    /// file's footer, then before each batch the column chunks of the row group being decoded
    /// and of the next one), and decoding runs on the polling task between awaits. The rows
    /// are those of [`SplitReader::read_any`]. With [`LateMaterialization::Auto`] the filter is
    /// applied after decoding (late materialization would read the filter's columns of every
    /// row group while opening a file, before they could be fetched). What the staging failed
    /// to fetch is read by the blocking calls on the polling thread (which then report the
    /// error).
    ///
    /// [`LateMaterialization::Auto`]: crate::format::LateMaterialization::Auto
    ///
    /// # Errors
    /// As [`SplitReader::read_any`], as the stream's items; the stream ends after an error.
    pub fn read_async(
        &self,
        table_path: &str,
        split: &Split,
    ) -> impl futures::Stream<Item = Result<RecordBatch>> + Send + 'static {
        staged::read_async(self, table_path, split)
    }

    /// [`SplitReader::read_async`] of a plain `DataSplit`.
    pub fn read_stream(
        &self,
        table_path: &str,
        split: &DataSplit,
    ) -> impl futures::Stream<Item = Result<RecordBatch>> + Send + 'static {
        staged::read_async(self, table_path, &Split::Data(split.clone()))
    }
}

/// The Arrow schema of the output: `out` after a leading `_ROW_KIND` when asked for.
fn output_schema(out: &[DataField], options: &ReadOptions) -> SchemaRef {
    let schema = to_arrow_schema(out);
    if !options.with_row_kind {
        return Arc::new(schema);
    }
    let mut fields = vec![Arc::new(Field::new(ROW_KIND, ArrowType::Utf8, false))];
    fields.extend(schema.fields().iter().cloned());
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The output fields: the projection resolved against the table schema, system columns
/// included.
fn output_fields(table: &TableSchema, options: &ReadOptions) -> Result<Vec<DataField>> {
    let bigint = || DataType::nullable(TypeKind::BigInt);
    if let Some(ids) = &options.projection_ids {
        if options.projection.is_some() {
            return Err(Error::unsupported(
                "a projection by column names and one by field ids in the same read",
            ));
        }
        return ids
            .iter()
            .map(|&id| match id {
                ROW_ID_FIELD_ID => Ok(DataField::new(ROW_ID_FIELD_ID, ROW_ID, bigint())),
                SEQUENCE_NUMBER_FIELD_ID => Ok(DataField::new(
                    SEQUENCE_NUMBER_FIELD_ID,
                    SEQUENCE_NUMBER,
                    bigint(),
                )),
                _ => table
                    .fields
                    .iter()
                    .find(|f| f.id == id)
                    .cloned()
                    .ok_or_else(|| Error::NotFound {
                        path: format!("field id {id} (schema {})", table.id),
                    }),
            })
            .collect();
    }
    match &options.projection {
        None => Ok(table.fields.clone()),
        Some(names) => names
            .iter()
            .map(|n| match n.as_str() {
                ROW_ID => Ok(DataField::new(ROW_ID_FIELD_ID, ROW_ID, bigint())),
                SEQUENCE_NUMBER => Ok(DataField::new(
                    SEQUENCE_NUMBER_FIELD_ID,
                    SEQUENCE_NUMBER,
                    bigint(),
                )),
                _ => table.field(n).cloned().ok_or_else(|| Error::NotFound {
                    path: format!("column {n} (schema {})", table.id),
                }),
            })
            .collect(),
    }
}

/// A unit of work producing batches that contain (at least) the read columns by name.
pub(crate) type Task = Box<dyn FnOnce() -> Result<BatchIter> + Send>;

/// One task per file, read independently with its deletion vector; `with_value_kind` keeps
/// each primary-key row's `_VALUE_KIND`.
fn raw_tasks(
    ctx: &Arc<SplitContext>,
    read: &[DataField],
    with_value_kind: bool,
) -> Result<Vec<Task>> {
    let mut out = ctx.file_output(read, with_value_kind);
    // Each file row is an output row, so rows the predicate rules out may be skipped unread.
    out.prune = ctx.options.predicate.clone();
    Ok((0..ctx.split.data_files.len())
        .map(|i| {
            let ctx = ctx.clone();
            let out = out.clone();
            Box::new(move || {
                let task = ctx.file_task(i)?;
                file::read_file(&ctx.io, &task, &out)
            }) as Task
        })
        .collect())
}

/// The batches of one split, filtered, projected and limited.
pub struct SplitBatches {
    /// The paths and sizes of the split's data files (then its before-files), in split
    /// order, under [`SplitReader::read_async`].
    data_paths: Vec<(String, u64)>,
    tasks: VecDeque<Task>,
    current: Option<BatchIter>,
    schema: SchemaRef,
    out_fields: Vec<DataField>,
    predicate: Option<Predicate>,
    types: HashMap<String, DataType>,
    remaining: Option<usize>,
    rules: Option<Arc<SplitRules>>,
}

impl std::fmt::Debug for SplitBatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitBatches")
            .field("pending_tasks", &self.tasks.len())
            .field("schema", &self.schema)
            .field("remaining", &self.remaining)
            .finish()
    }
}

impl SplitBatches {
    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn finish(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let type_of = |c: &str| self.types.get(c).cloned();
        let batch = match &self.rules {
            Some(r) => r.keep_ranges(batch.clone())?,
            None => batch.clone(),
        };
        let batch = match &self.predicate {
            Some(p) => crate::filter::filter_batch(p, &batch, &type_of)?,
            None => batch,
        };
        let batch = match &self.rules {
            Some(r) => {
                let masked = r.mask(batch)?;
                match &r.post_predicate {
                    Some(p) => crate::filter::filter_batch(p, &masked, &type_of)?,
                    None => masked,
                }
            }
            None => batch,
        };
        let n = batch.num_rows();
        // A schema one field wider than the output fields leads with `_ROW_KIND`.
        let with_kind = self.schema.fields().len() == self.out_fields.len() + 1;
        let mut cols = Vec::with_capacity(self.schema.fields().len());
        if with_kind {
            cols.push(row_kinds(batch.column_by_name(VALUE_KIND), n)?);
        }
        let value_fields = self.schema.fields().iter().skip(usize::from(with_kind));
        cols.extend(self.out_fields.iter().zip(value_fields).map(|(f, af)| {
            match batch.column_by_name(&f.name) {
                Some(c) => c.clone(),
                None => new_null_array(af.data_type(), n),
            }
        }));
        let options = RecordBatchOptions::new().with_row_count(Some(n));
        RecordBatch::try_new_with_options(self.schema.clone(), cols, &options)
            .map_err(|e| Error::arrow("<output batch>", e))
    }
}

impl SplitBatches {
    /// Opens the next task when none is open (its files' footers are read, its ranges
    /// planned, nothing decoded yet): `None` when the read is done.
    fn open_next(&mut self) -> Option<Result<()>> {
        if self.remaining == Some(0) {
            return None;
        }
        if self.current.is_none() {
            let task = self.tasks.pop_front()?;
            match task() {
                Ok(it) => self.current = Some(it),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(()))
    }

    /// The next output batch of the open task: `None` when it has no more (and it is closed).
    fn next_of_open(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            match self.current.as_mut()?.next() {
                None => {
                    self.current = None;
                    return None;
                }
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok(b)) => {
                    let out = match self.finish(&b) {
                        Ok(o) => o,
                        Err(e) => return Some(Err(e)),
                    };
                    if out.num_rows() == 0 {
                        continue;
                    }
                    let out = match &mut self.remaining {
                        Some(r) => {
                            let take = (*r).min(out.num_rows());
                            *r -= take;
                            out.slice(0, take)
                        }
                        None => out,
                    };
                    return Some(Ok(out));
                }
            }
        }
    }
}

impl Iterator for SplitBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Err(e) = self.open_next()? {
                return Some(Err(e));
            }
            if let Some(b) = self.next_of_open() {
                return Some(b);
            }
        }
    }
}

/// Java `RowKind.shortString` of each row: from the `_VALUE_KIND` byte codes of primary-key
/// files (`RowKind.toByteValue`: 0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`), `+I` when there is none.
fn row_kinds(value_kind: Option<&ArrayRef>, n: usize) -> Result<ArrayRef> {
    let Some(kinds) = value_kind else {
        return Ok(Arc::new(StringArray::from(vec!["+I"; n])));
    };
    let kinds = kinds
        .as_primitive_opt::<Int8Type>()
        .ok_or_else(|| Error::Internal(format!("{VALUE_KIND} decoded as {}", kinds.data_type())))?;
    let out = kinds
        .iter()
        .map(|k| match k {
            Some(0) => Ok("+I"),
            Some(1) => Ok("-U"),
            Some(2) => Ok("+U"),
            Some(3) => Ok("-D"),
            other => Err(Error::corrupt(
                "<primary-key file>",
                format!("{VALUE_KIND} {other:?} is not a row kind"),
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(StringArray::from(out)))
}
