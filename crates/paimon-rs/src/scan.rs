//! [`TableScan`]: plan a table's splits and read them, the glue every reader needs (the
//! CLI's `read`, Python's `Scan`, benches) in one place.
//!
//! ```text
//! TableScan ──plan()──▶ ScanPlan (snapshot id + wire splits) ──▶ workers (split bytes)
//!     └──to_arrow() / to_stream()──▶ plan + SplitReader (paimon-data) ──▶ RecordBatch
//! ```

use std::sync::Arc;

use arrow_array::RecordBatch;
use futures::stream::{BoxStream, StreamExt};
use paimon_data::{PlanBatches, SplitReader, SplitReaderBuilder};
use paimon_io::FileIORef;
use paimon_memory::{GreedyMemoryPool, MemoryPool};
use paimon_meta::scan::IncrementalScanMode;
use paimon_meta::{ScanBuilder, ScanChoice};
use paimon_spec::predicate::sql::parse_sql_filter;
use paimon_spec::predicate::Predicate;
use paimon_spec::schema::{TableSchema, TableSchemaRef};
use paimon_split::read_options::MAX_BATCH_SIZE;
use paimon_split::{encode_read_options, Split, SplitReadOptions};

use crate::error::{Error, Result};
use crate::table::available_cores;

/// Columns a projection may name besides the table's (the row-tracking system columns).
const SYSTEM_COLUMNS: [&str; 2] = ["_ROW_ID", "_SEQUENCE_NUMBER"];

/// A scan of one table: which snapshot (or changes), which columns, which rows, how many; and
/// how to read them. Every `with_*` returns the scan; end with [`TableScan::plan`],
/// [`TableScan::to_arrow`], [`TableScan::to_batches`] or [`TableScan::to_stream`].
#[derive(Debug, Clone)]
pub struct TableScan {
    table: paimon_meta::Table,
    choice: ScanChoice,
    branch: Option<String>,
    projection: Option<Vec<String>>,
    filter: Option<Filter>,
    limit: Option<usize>,
    with_kind: bool,
    batch_size: Option<usize>,
    threads: Option<usize>,
    memory_limit: Option<usize>,
}

/// A filter as given: SQL text (typed against the snapshot read's schema at planning) or a
/// predicate.
#[derive(Debug, Clone)]
enum Filter {
    Sql(String),
    Predicate(Predicate),
}

/// What planning produced: the snapshot read and the splits, as they travel to workers
/// (`paimon_split::encode_split` turns one into bytes, [`TableScan::split_reader`] reads
/// them).
#[derive(Debug, Clone)]
pub struct ScanPlan {
    /// The snapshot planned (`None` for a table without snapshots).
    pub snapshot_id: Option<i64>,
    /// The splits.
    pub splits: Vec<Split>,
    /// The schema rows are read with (the snapshot's, for time travel).
    pub schema: TableSchemaRef,
    /// The control plane's plan (holds the scan's memory-pool reservation while alive).
    pub plan: paimon_meta::Plan,
}

impl ScanPlan {
    /// The rows the data splits hold before merging, deletions and filters (for progress).
    pub fn planned_rows(&self) -> u64 {
        self.splits
            .iter()
            .filter_map(Split::files_split)
            .map(|d| u64::try_from(d.row_count()).unwrap_or(0))
            .sum()
    }

    /// Each split as bytes for a worker: the `SPLIT_V1` cross-language frame (any split kind;
    /// data splits at [`paimon_split::CURRENT_VERSION`], as Java 1.4 writes them), which
    /// `SplitReader::read_bytes` and Java's reader take.
    ///
    /// # Errors
    /// A split the frame cannot carry.
    pub fn split_bytes(&self) -> Result<Vec<Vec<u8>>> {
        self.splits
            .iter()
            .map(|s| {
                Ok(paimon_split::encode_frame(
                    s,
                    paimon_split::CURRENT_VERSION,
                )?)
            })
            .collect()
    }
}

/// The batches of [`TableScan::to_stream`] (poll them with [`futures::StreamExt`], re-exported
/// as [`crate::StreamExt`]).
pub type BatchStream = BoxStream<'static, Result<RecordBatch>>;

/// A scan opened: snapshot chosen, filter typed, projection checked.
#[derive(Debug)]
pub struct OpenedScan {
    /// The control plane's scan.
    pub scan: ScanBuilder,
    /// The schema rows are read with.
    pub schema: TableSchemaRef,
    /// The typed filter.
    pub filter: Option<Predicate>,
    /// The pool of [`TableScan::with_memory_limit`], shared by planning and reading.
    pub pool: Option<Arc<dyn MemoryPool>>,
}

impl OpenedScan {
    /// Plans the opened scan: the snapshot read and its splits (what [`TableScan::plan`]
    /// returns, for callers that keep the opened scan to build its reader).
    ///
    /// # Errors
    /// Metadata read errors.
    pub fn plan(&self) -> Result<ScanPlan> {
        plan_opened(self)
    }
}

/// A planned read running: the plan and its batches (an iterator over the splits, read on
/// the scan's threads).
#[derive(Debug)]
pub struct ScanBatches {
    /// The plan being read.
    pub plan: ScanPlan,
    /// The batches, in split order.
    pub batches: PlanBatches,
}

impl TableScan {
    pub(crate) fn new(table: paimon_meta::Table) -> Self {
        TableScan {
            table,
            choice: ScanChoice::default(),
            branch: None,
            projection: None,
            filter: None,
            limit: None,
            with_kind: false,
            batch_size: None,
            threads: None,
            memory_limit: None,
        }
    }

    /// Only these columns, in this order (`_ROW_ID` and `_SEQUENCE_NUMBER` name the
    /// row-tracking columns).
    pub fn with_projection<S: Into<String>>(
        mut self,
        columns: impl IntoIterator<Item = S>,
    ) -> Self {
        self.projection = Some(columns.into_iter().map(Into::into).collect());
        self
    }

    /// Only rows matching the SQL predicate `filter`, e.g. `a > 5 AND dt = DATE '2024-01-01'`:
    /// used to skip files and row groups, then applied to the rows read.
    ///
    /// The filter is typed against the schema of the snapshot read (time travel over schema
    /// evolution reads a column by the name it had then), which is known only once the scan
    /// opens: [`TableScan::open`], [`TableScan::plan`] and the reads report a filter that
    /// does not parse or type as [`Error::Filter`], whatever order the `with_*` calls came in.
    ///
    /// # Errors
    /// None at this call; the `Result` lets callers chain it as they chain the scan's other
    /// fallible steps.
    pub fn with_filter(mut self, filter: &str) -> Result<Self> {
        self.filter = Some(Filter::Sql(filter.to_string()));
        Ok(self)
    }

    /// [`TableScan::with_filter`] of a predicate built in code (engines translating their
    /// own filters).
    pub fn with_filter_predicate(mut self, predicate: Predicate) -> Self {
        self.filter = Some(Filter::Predicate(predicate));
        self
    }

    /// Reads snapshot `id` (time travel).
    pub fn with_snapshot(mut self, id: i64) -> Self {
        self.choice.snapshot = Some(id);
        self
    }

    /// Reads the snapshot of tag `name`.
    pub fn with_tag(mut self, name: impl Into<String>) -> Self {
        self.choice.tag = Some(name.into());
        self
    }

    /// Reads the latest snapshot committed at or before `millis` (epoch milliseconds).
    pub fn with_timestamp_ms(mut self, millis: i64) -> Self {
        self.choice.timestamp_ms = Some(millis);
        self
    }

    /// Reads what changed between `start` and `end` (two snapshot ids or two tag names), as
    /// Java's `incremental-between`; `mode` as `incremental-between-scan-mode` (`None`: the
    /// table's option).
    pub fn with_incremental(
        mut self,
        start: impl Into<String>,
        end: impl Into<String>,
        mode: Option<IncrementalScanMode>,
    ) -> Self {
        self.choice.incremental = Some((start.into(), end.into()));
        self.choice.incremental_mode = mode;
        self
    }

    /// Reads what changed after snapshot `id`, as Java's streaming read restored at `id + 1`.
    pub fn with_changes_since(mut self, id: i64) -> Self {
        self.choice.changes_since = Some(id);
        self
    }

    /// Sets the whole snapshot selection at once (the CLI's and Python's arguments).
    pub fn with_choice(mut self, choice: ScanChoice) -> Self {
        self.choice = choice;
        self
    }

    /// Reads branch `name`.
    pub fn with_branch(mut self, name: impl Into<String>) -> Self {
        self.branch = Some(name.into());
        self
    }

    /// At most `n` rows.
    pub fn with_limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// A leading `_ROW_KIND` column (`+I`, `-U`, `+U`, `-D`).
    pub fn with_row_kind(mut self, on: bool) -> Self {
        self.with_kind = on;
        self
    }

    /// Rows per batch.
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = Some(rows);
        self
    }

    /// Threads decoding files at once for [`TableScan::to_arrow`] and
    /// [`TableScan::to_batches`] (default: the available cores).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Bound on the memory planning and reading hold, in bytes (one pool for both).
    pub fn with_memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = Some(bytes);
        self
    }

    /// The table scanned (on the branch of [`TableScan::with_branch`] once opened).
    pub fn table(&self) -> &paimon_meta::Table {
        &self.table
    }

    /// The projection given, if any.
    pub fn projection(&self) -> Option<&[String]> {
        self.projection.as_deref()
    }

    /// Opens the scan: the branch and snapshot chosen, the filter typed against the schema
    /// read, the projection checked.
    ///
    /// # Errors
    /// More than one snapshot selection; no such branch, snapshot or tag; a filter that does
    /// not type; an unknown column.
    pub fn open(&self) -> Result<OpenedScan> {
        self.choice.check()?;
        let table = match &self.branch {
            Some(b) => self.table.with_branch(b)?,
            None => self.table.clone(),
        };
        let mut scan = table.scan();
        let pool = self
            .memory_limit
            .map(|n| Arc::new(GreedyMemoryPool::new(n)) as Arc<dyn MemoryPool>);
        if let Some(p) = &pool {
            scan = scan.with_memory_pool(Arc::clone(p));
        }
        let mut scan = self.choice.apply(scan)?;
        let schema = scan.rows_schema()?;
        let filter = match &self.filter {
            Some(Filter::Sql(text)) => Some(parse_filter(text, &schema)?),
            Some(Filter::Predicate(p)) => Some(p.clone()),
            None => None,
        };
        if let Some(p) = &filter {
            scan = scan.with_filter(p.clone());
        }
        if let Some(cols) = &self.projection {
            for c in cols {
                if schema.field(c).is_none() && !SYSTEM_COLUMNS.contains(&c.as_str()) {
                    return Err(Error::invalid(
                        "with_projection",
                        format!("unknown column '{c}' in {}", table.path()),
                    ));
                }
            }
        }
        Ok(OpenedScan {
            scan,
            schema,
            filter,
            pool,
        })
    }

    /// Plans the scan: the snapshot read and its splits (for workers, who read their bytes).
    ///
    /// # Errors
    /// As [`TableScan::open`]; metadata read errors.
    pub fn plan(&self) -> Result<ScanPlan> {
        let opened = self.open()?;
        plan_opened(&opened)
    }

    /// The reader of this scan's splits (schema, projection, filter, branch, row kinds,
    /// limit, batch size; one thread): what a worker reads its splits with
    /// (`read_bytes(table_path, split_bytes)`).
    ///
    /// # Errors
    /// As [`TableScan::open`].
    pub fn split_reader(&self) -> Result<SplitReader> {
        let opened = self.open()?;
        Ok(self.reader_builder(&opened).build())
    }

    /// The reader of `opened`'s splits as this scan asks, on one thread.
    pub fn reader_builder(&self, opened: &OpenedScan) -> SplitReaderBuilder {
        self.reader_builder_on(Arc::clone(self.table.file_io()), opened)
    }

    /// [`TableScan::reader_builder`] reading through `io` instead of the table's storage (a
    /// wrapped `FileIO`: counting calls, adding credentials).
    pub fn reader_builder_on(&self, io: FileIORef, opened: &OpenedScan) -> SplitReaderBuilder {
        let mut b = SplitReader::builder(io).with_split_options(&self.read_options(opened));
        if let Some(p) = &opened.pool {
            b = b.with_memory_pool(Arc::clone(p));
        }
        b
    }

    /// How workers read `opened`'s splits (schema, branch, projection, filter, limit, batch
    /// size, row kinds): what [`TableScan::reader_builder`] reads with, and what
    /// [`TableScan::read_options_bytes`] sends.
    pub fn read_options(&self, opened: &OpenedScan) -> SplitReadOptions {
        SplitReadOptions {
            schema_id: Some(opened.schema.id),
            branch: self.branch.clone(),
            projection: self.projection.clone(),
            filter: opened.filter.clone(),
            limit: self.limit.map(|n| u64::try_from(n).unwrap_or(u64::MAX)),
            batch_size: self.batch_size,
            with_row_kind: self.with_kind,
        }
    }

    /// [`TableScan::read_options`] as the bytes of [`paimon_split::read_options`], which a
    /// worker reads its splits' bytes with ([`crate::read_split`], [`crate::SplitRead`]).
    ///
    /// # Errors
    /// As [`TableScan::open`]; a filter without Java's JSON form; a batch size out of range.
    pub fn read_options_bytes(&self) -> Result<Vec<u8>> {
        let opened = self.open()?;
        let mut options = self.read_options(&opened);
        options.batch_size = options.batch_size.map(|n| n.clamp(1, MAX_BATCH_SIZE));
        Ok(encode_read_options(&options, &opened.schema.fields)?)
    }

    /// Plans and starts reading on the scan's threads: the plan and an iterator of its
    /// batches (the limit is the reader's: the last batch may hold more rows than it).
    ///
    /// # Errors
    /// As [`TableScan::plan`]; the first split's open errors.
    pub fn to_batches(&self) -> Result<ScanBatches> {
        let opened = self.open()?;
        let plan = plan_opened(&opened)?;
        let threads = self.threads.unwrap_or_else(available_cores);
        let reader = self
            .reader_builder(&opened)
            .with_parallelism(threads)
            .build();
        let batches = reader.read_any_splits(self.table.path(), &plan.splits)?;
        Ok(ScanBatches { plan, batches })
    }

    /// Plans and reads every row into Arrow batches (at most the limit's rows).
    ///
    /// # Errors
    /// Any planning or reading error.
    pub fn to_arrow(&self) -> Result<Vec<RecordBatch>> {
        let read = self.to_batches()?;
        let mut left = self.limit.unwrap_or(usize::MAX);
        let mut out = Vec::new();
        for b in read.batches {
            if left == 0 {
                break;
            }
            let b = b?;
            let n = b.num_rows().min(left);
            left -= n;
            out.push(if n < b.num_rows() { b.slice(0, n) } else { b });
        }
        Ok(out)
    }

    /// Plans (on the calling thread) and reads as an async stream: storage is read through
    /// the `FileIO`'s async calls and batches are decoded while the stream is polled; no
    /// thread is started for the read. At most the limit's rows; the stream ends after an
    /// error.
    ///
    /// # Errors
    /// As [`TableScan::plan`].
    pub async fn to_stream(&self) -> Result<BatchStream> {
        let opened = self.open()?;
        let plan = plan_opened(&opened)?;
        let reader = self.reader_builder(&opened).build();
        let path = self.table.path().to_string();
        Ok(split_stream(reader, path, plan.splits, self.limit)
            .map(|r| r.map_err(Error::from))
            .boxed())
    }
}

/// The batches of `splits` read one after the other with paimon-data's async stream, at most
/// `limit` rows in all, ending after an error.
pub fn split_stream(
    reader: SplitReader,
    path: String,
    splits: Vec<Split>,
    limit: Option<usize>,
) -> BoxStream<'static, paimon_data::Result<RecordBatch>> {
    let batches =
        futures::stream::iter(splits).flat_map(move |s| reader.read_async(&path, &s).boxed());
    batches
        .scan(
            (limit.unwrap_or(usize::MAX), false),
            |(left, done), item| {
                if *done || *left == 0 {
                    return futures::future::ready(None);
                }
                let item = match item {
                    Ok(b) => {
                        let n = b.num_rows().min(*left);
                        *left -= n;
                        Ok(b.slice(0, n))
                    }
                    Err(e) => {
                        *done = true;
                        Err(e)
                    }
                };
                futures::future::ready(Some(item))
            },
        )
        .boxed()
}

fn plan_opened(opened: &OpenedScan) -> Result<ScanPlan> {
    let plan = opened.scan.plan()?;
    Ok(ScanPlan {
        snapshot_id: plan.snapshot_id,
        splits: plan.wire_splits(),
        schema: Arc::clone(&opened.schema),
        plan,
    })
}

/// Parses the SQL predicate `text` against `schema`'s columns.
///
/// # Errors
/// [`Error::Filter`] naming the unsupported construct, unknown column or ill-typed literal.
pub fn parse_filter(text: &str, schema: &TableSchema) -> Result<Predicate> {
    parse_sql_filter(text, schema).map_err(|e| Error::Filter {
        filter: text.to_string(),
        source: Box::new(e),
    })
}
