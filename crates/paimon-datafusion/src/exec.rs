//! [`PaimonScanExec`]: the physical scan, one DataFusion partition per group of splits.
//!
//! Everything a partition needs travels in the [`ScanNode`]: the table path, the read options
//! and the splits as Java `SPLIT_V1` bytes. A partition decodes its splits and reads them with
//! the data plane's async entry ([`paimon_data::SplitReader::read_async`]): storage is read through the
//! `FileIO`'s async calls, so DataFusion's threads never block on I/O, and batches are decoded
//! on the task that polls the stream, as DataFusion's own Parquet scan does; no thread is
//! started. What the reader holds is reserved from the session's memory pool.

use std::fmt;
use std::sync::Arc;

use arrow::array::RecordBatchOptions;
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Statistics;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use futures::StreamExt;
use paimon_data::reader::ROW_KIND;
use paimon_io::{file_io_for, FileIORef};
use paimon_spec::predicate::Predicate;

use crate::error::df_err;
use crate::pushdown::display;

mod pool;
mod split_input;

pub use split_input::{split_input_schema, PaimonSplitReadExec, SplitsAsInput, SPLIT_COLUMN};

/// The name of the row-kind column of `t$audit_log` (Java `AuditLogTable`).
pub const ROWKIND: &str = "rowkind";

/// What a scan partition needs to read its splits, in a form that can be shipped to another
/// process (a distributed engine's executors: [`ScanNode::encode`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ScanNode {
    /// The table directory (any FileIO scheme).
    pub table_path: String,
    /// The branch whose schema files describe the splits; `None` is main.
    pub branch: Option<String>,
    /// The schema the rows are read with.
    pub schema_id: i64,
    /// Output columns by name, in order; `None` is every column. May be empty (`count(*)`).
    pub projection: Option<Vec<String>>,
    /// A filter the reader applies exactly to every row.
    pub predicate: Option<Predicate>,
    /// At most this many rows per partition.
    pub limit: Option<usize>,
    /// A leading `rowkind` column with every row's kind, deletions kept.
    pub with_row_kind: bool,
    /// Per DataFusion partition, the splits it reads (`SPLIT_V1` frames).
    pub partitions: Vec<Vec<Vec<u8>>>,
}

/// The physical scan of a Paimon table.
#[derive(Debug, Clone)]
pub struct PaimonScanExec {
    node: ScanNode,
    schema: SchemaRef,
    /// The columns the reader is asked for.
    read_columns: Option<Vec<String>>,
    /// The output columns' positions in the reader's batches.
    indices: Vec<usize>,
    properties: Arc<PlanProperties>,
    statistics: Arc<Statistics>,
    /// Storage for the reads; `None` opens the table path's scheme ([`file_io_for`]), as a
    /// node decoded in another process does.
    io: Option<FileIORef>,
}

impl PaimonScanExec {
    /// A scan of `node`, reading the table's schema file for the output schema.
    ///
    /// # Errors
    /// When the schema file cannot be read or names no such column.
    pub fn try_new(node: ScanNode) -> Result<Self> {
        Self::try_new_with_io(node, None)
    }

    /// As [`PaimonScanExec::try_new`], reading through `io` (e.g. one that counts reads)
    /// instead of the storage the path's scheme names.
    ///
    /// # Errors
    /// As [`PaimonScanExec::try_new`].
    pub fn try_new_with_io(node: ScanNode, io: Option<FileIORef>) -> Result<Self> {
        let output_schema = |cols: Option<Vec<String>>| -> Result<SchemaRef> {
            base_reader(&node, io.as_ref(), cols)?
                .build()
                .output_schema(&node.table_path)
                .map_err(|e| df_err(&node.table_path, e))
        };
        // The reader's columns: the projection without `rowkind`, which the reader adds
        // itself; one column when nothing else is wanted (only row counts matter then).
        let mut read_columns = node.projection.as_ref().map(|p| {
            p.iter()
                .filter(|c| *c != ROWKIND)
                .cloned()
                .collect::<Vec<_>>()
        });
        if read_columns.as_ref().is_some_and(Vec::is_empty) {
            read_columns = output_schema(None)?
                .fields()
                .iter()
                .find(|f| f.name() != ROW_KIND)
                .map(|f| vec![f.name().clone()]);
        }
        let read = rename_row_kind(output_schema(read_columns.clone())?.as_ref());
        let indices = match &node.projection {
            None => (0..read.fields().len()).collect(),
            Some(p) => p
                .iter()
                .map(|c| {
                    read.index_of(c)
                        .map_err(|_| df_err(&node.table_path, format!("no column '{c}'")))
                })
                .collect::<Result<Vec<usize>>>()?,
        };
        let schema = Arc::new(read.project(&indices)?);
        let statistics = Arc::new(Statistics::new_unknown(&schema));
        Ok(PaimonScanExec {
            properties: Arc::new(properties(&schema, node.partitions.len())),
            node,
            schema,
            read_columns,
            indices,
            statistics,
            io,
        })
    }

    /// The node as it travels.
    pub fn node(&self) -> &ScanNode {
        &self.node
    }

    /// This scan with `statistics` (from the plan; not part of the node).
    pub fn with_statistics(mut self, statistics: Statistics) -> Self {
        self.statistics = Arc::new(statistics);
        self
    }

    /// This scan reading `partitions` (per partition, its `SPLIT_V1` frames) instead of its
    /// own; the table, columns, filter, limit and statistics stay.
    pub fn with_partitions(&self, partitions: Vec<Vec<Vec<u8>>>) -> Self {
        let mut exec = self.clone();
        exec.properties = Arc::new(properties(&exec.schema, partitions.len()));
        exec.node.partitions = partitions;
        exec
    }

    /// Splits in all partitions.
    pub fn split_count(&self) -> usize {
        self.node.partitions.iter().map(Vec::len).sum()
    }
}

fn properties(schema: &SchemaRef, partitions: usize) -> PlanProperties {
    exact_properties(schema, partitions.max(1))
}

/// The properties of a scan of exactly `partitions` partitions (none for a task that reads
/// no slice of a scan).
fn exact_properties(schema: &SchemaRef, partitions: usize) -> PlanProperties {
    PlanProperties::new(
        EquivalenceProperties::new(Arc::clone(schema)),
        Partitioning::UnknownPartitioning(partitions),
        EmissionType::Incremental,
        Boundedness::Bounded,
    )
}

/// `schema` with the reader's `_ROW_KIND` column named as Java's audit log names it.
pub(crate) fn rename_row_kind(schema: &Schema) -> Schema {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            if f.name() == ROW_KIND {
                f.as_ref().clone().with_name(ROWKIND)
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

/// A reader of `node`'s table with `columns`, without session settings.
fn base_reader(
    node: &ScanNode,
    io: Option<&FileIORef>,
    columns: Option<Vec<String>>,
) -> Result<paimon_data::SplitReaderBuilder> {
    let io = match io {
        Some(io) => Arc::clone(io),
        None => file_io_for(&node.table_path).map_err(|e| df_err(&node.table_path, e))?,
    };
    let options = paimon_split::SplitReadOptions {
        schema_id: Some(node.schema_id),
        branch: node.branch.clone(),
        projection: columns,
        filter: node.predicate.clone(),
        limit: node.limit.map(|l| u64::try_from(l).unwrap_or(u64::MAX)),
        batch_size: None,
        with_row_kind: node.with_row_kind,
    };
    Ok(paimon_rs::SplitRead::new(io, &node.table_path, options).reader_builder())
}

impl DisplayAs for PaimonScanExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let n = &self.node;
        write!(
            f,
            "PaimonScanExec: table={}, partitions={}, splits={}",
            n.table_path,
            n.partitions.len(),
            self.split_count()
        )?;
        if matches!(t, DisplayFormatType::TreeRender) {
            return Ok(());
        }
        fmt_details(n, f)
    }
}

/// The optional parts of a scan's one-line display: branch, projection, predicate, limit.
fn fmt_details(n: &ScanNode, f: &mut fmt::Formatter) -> fmt::Result {
    if let Some(b) = &n.branch {
        write!(f, ", branch={b}")?;
    }
    if let Some(p) = &n.projection {
        write!(f, ", projection=[{}]", p.join(", "))?;
    }
    if let Some(p) = &n.predicate {
        write!(f, ", predicate={}", display(p))?;
    }
    if let Some(l) = n.limit {
        write!(f, ", limit={l}")?;
    }
    Ok(())
}

impl ExecutionPlan for PaimonScanExec {
    fn name(&self) -> &str {
        "PaimonScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        Ok(match args.partition() {
            None => Arc::clone(&self.statistics),
            Some(_) => Arc::new(Statistics::new_unknown(&self.schema)),
        })
    }

    fn supports_limit_pushdown(&self) -> bool {
        true
    }

    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn ExecutionPlan>> {
        let mut node = self.node.clone();
        node.limit = match (node.limit, limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut exec = self.clone();
        exec.node = node;
        Some(Arc::new(exec))
    }

    fn fetch(&self) -> Option<usize> {
        self.node.limit
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let splits = self
            .node
            .partitions
            .get(partition)
            .cloned()
            .ok_or_else(|| {
                DataFusionError::Internal(format!(
                    "PaimonScanExec has {} partitions, asked for {partition}",
                    self.node.partitions.len()
                ))
            })?;
        let pool = pool::SessionPool::new(&context, partition);
        let reader = base_reader(&self.node, self.io.as_ref(), self.read_columns.clone())?
            .with_batch_size(context.session_config().batch_size())
            .with_memory_pool(Arc::new(pool))
            .build();
        let table = self.node.table_path.clone();
        let schema = Arc::clone(&self.schema);
        let limit = self.node.limit;
        let out_schema = Arc::clone(&schema);
        let indices = self.indices.clone();
        let batches = futures::stream::iter(splits)
            .flat_map(move |bytes| match paimon_split::decode_any(&bytes) {
                Ok(d) => {
                    let table = table.clone();
                    reader
                        .read_async(&table, &d.split)
                        .map(move |b| b.map_err(|e| df_err(&table, e)))
                        .left_stream()
                }
                Err(e) => {
                    let e = df_err(&table, format!("split bytes: {e}"));
                    futures::stream::once(async move { Err(e) }).right_stream()
                }
            })
            .map(move |b| b.and_then(|b| conform(&out_schema, &indices, &b)));
        // The stream ends after an error, or once the limit's rows are out.
        let limited = batches.scan(
            (limit.unwrap_or(usize::MAX), false),
            |(left, done), item| {
                if *done || *left == 0 {
                    return futures::future::ready(None);
                }
                match &item {
                    Ok(b) => *left = left.saturating_sub(b.num_rows()),
                    Err(_) => *done = true,
                }
                futures::future::ready(Some(item))
            },
        );
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            schema,
            limited.boxed(),
        )))
    }
}

/// The output columns of `batch` (at `indices`) as `schema`; only the row count when the
/// schema has no columns.
fn conform(schema: &SchemaRef, indices: &[usize], batch: &RecordBatch) -> Result<RecordBatch> {
    let columns = indices
        .iter()
        .map(|i| {
            batch.columns().get(*i).cloned().ok_or_else(|| {
                DataFusionError::Internal(format!("the reader returned no column {i}"))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(
        Arc::clone(schema),
        columns,
        &options,
    )?)
}
