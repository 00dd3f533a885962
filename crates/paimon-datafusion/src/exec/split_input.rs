//! [`PaimonSplitReadExec`]: a Paimon scan whose splits arrive as rows of its input.
//!
//! A distributed engine hands each task a slice of a stage's partitions by rewriting the
//! stage's leaves, and it knows how to slice only its own leaf types (Ballista 55: file scans,
//! in-memory sources, shuffle readers). A [`PaimonScanExec`] keeps its splits in its own node,
//! so every task of such a stage would read all of them. This node puts the splits where the
//! engine can slice them: its input is an in-memory source with one partition per split group,
//! each a batch with one binary column of `SPLIT_V1` frames, one row per split. Partition `i`
//! of this node reads the splits of its input's partition `i`.
//!
//! However the input's partitions are regrouped or sliced, every split is one row and is read
//! by whichever partition receives it, so each split is read exactly once.

use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, BinaryArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Statistics;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use futures::{StreamExt, TryStreamExt};

use super::{exact_properties, fmt_details, PaimonScanExec};

/// The name of the input's one column.
pub const SPLIT_COLUMN: &str = "split";

/// Marks a session whose Paimon scans put their splits into their input
/// ([`PaimonSplitReadExec`]), for engines that slice a stage's leaves into tasks. Set with
/// `SessionConfig::with_extension(Arc::new(SplitsAsInput))`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SplitsAsInput;

/// Reads the Paimon splits that its input yields (see the module documentation).
#[derive(Debug, Clone)]
pub struct PaimonSplitReadExec {
    /// What every partition reads with; its own split list is empty.
    scan: PaimonScanExec,
    input: Arc<dyn ExecutionPlan>,
    properties: Arc<PlanProperties>,
}

/// The schema of the input: one non-null binary column of split frames.
pub fn split_input_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        SPLIT_COLUMN,
        DataType::Binary,
        false,
    )]))
}

impl PaimonSplitReadExec {
    /// `scan` with its split groups moved into an in-memory input, one partition per group.
    ///
    /// # Errors
    /// Never for a well-formed scan; an Arrow error if the batches cannot be built.
    pub fn from_scan(scan: &PaimonScanExec) -> Result<Self> {
        let schema = split_input_schema();
        let mut partitions = Vec::with_capacity(scan.node().partitions.len());
        for group in &scan.node().partitions {
            let column = BinaryArray::from_iter_values(group.iter());
            partitions.push(vec![RecordBatch::try_new(
                Arc::clone(&schema),
                vec![Arc::new(column)],
            )?]);
        }
        let source = MemorySourceConfig::try_new(&partitions, schema, None)?;
        let input = DataSourceExec::from_data_source(source);
        Self::try_new(scan.clone(), input)
    }

    /// A read of the splits `input` yields with `scan`'s table, columns, filter and limit
    /// (its own splits are ignored).
    ///
    /// # Errors
    /// When `input` does not have the one binary column [`split_input_schema`] names.
    pub fn try_new(scan: PaimonScanExec, input: Arc<dyn ExecutionPlan>) -> Result<Self> {
        let wanted = split_input_schema();
        if input.schema().fields() != wanted.fields() {
            return Err(DataFusionError::Plan(format!(
                "{}: the input of a Paimon split read must have one column `{SPLIT_COLUMN}` \
                 of binary split frames, it has {}",
                scan.node().table_path,
                input.schema()
            )));
        }
        let partitions = input.properties().output_partitioning().partition_count();
        let properties = Arc::new(exact_properties(&scan.schema(), partitions));
        Ok(PaimonSplitReadExec {
            scan: scan.with_partitions(Vec::new()),
            input,
            properties,
        })
    }

    /// The scan every partition reads with (its split list is empty).
    pub fn scan(&self) -> &PaimonScanExec {
        &self.scan
    }

    /// The input that yields the splits.
    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        &self.input
    }

    /// Splits the input holds, when it is an in-memory source (as built by
    /// [`PaimonSplitReadExec::from_scan`] and as an engine's slice of it arrives); `None` for
    /// any other input.
    pub fn input_split_count(&self) -> Option<usize> {
        let exec = self.input.downcast_ref::<DataSourceExec>()?;
        let source: &dyn std::any::Any = exec.data_source().as_ref();
        let memory = source.downcast_ref::<MemorySourceConfig>()?;
        Some(
            memory
                .partitions()
                .iter()
                .flatten()
                .map(RecordBatch::num_rows)
                .sum(),
        )
    }
}

impl DisplayAs for PaimonSplitReadExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let node = self.scan.node();
        write!(
            f,
            "PaimonSplitReadExec: table={}, partitions={}",
            node.table_path,
            self.properties.output_partitioning().partition_count()
        )?;
        if matches!(t, DisplayFormatType::TreeRender) {
            return Ok(());
        }
        fmt_details(node, f)
    }
}

impl ExecutionPlan for PaimonSplitReadExec {
    fn name(&self) -> &str {
        "PaimonSplitReadExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [input] = <[_; 1]>::try_from(children).map_err(|c| {
            DataFusionError::Internal(format!(
                "PaimonSplitReadExec has one input, given {}",
                c.len()
            ))
        })?;
        Ok(Arc::new(Self::try_new(self.scan.clone(), input)?))
    }

    fn statistics_from_inputs(
        &self,
        input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        // The table's statistics, as the scan it stands for has them; not the input's.
        self.scan.statistics_from_inputs(input_stats, args)
    }

    fn supports_limit_pushdown(&self) -> bool {
        true
    }

    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn ExecutionPlan>> {
        let scan = self.scan.with_fetch(limit)?;
        let scan = scan.downcast_ref::<PaimonScanExec>()?.clone();
        let mut exec = self.clone();
        exec.scan = scan;
        Some(Arc::new(exec))
    }

    fn fetch(&self) -> Option<usize> {
        self.scan.fetch()
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let splits = self.input.execute(partition, Arc::clone(&context))?;
        let scan = self.scan.clone();
        let table = scan.node().table_path.clone();
        let schema = scan.schema();
        let stream = futures::stream::once(async move {
            let batches: Vec<RecordBatch> = splits.try_collect().await?;
            let mut frames = Vec::new();
            for b in &batches {
                let column = b
                    .column(0)
                    .as_any()
                    .downcast_ref::<BinaryArray>()
                    .ok_or_else(|| {
                        DataFusionError::Internal(format!(
                            "{table}: the split input yielded a {} column",
                            b.column(0).data_type()
                        ))
                    })?;
                if column.null_count() > 0 {
                    return Err(DataFusionError::Internal(format!(
                        "{table}: the split input yielded a null split"
                    )));
                }
                frames.extend(column.iter().flatten().map(<[u8]>::to_vec));
            }
            scan.with_partitions(vec![frames]).execute(0, context)
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            schema,
            stream.boxed(),
        )))
    }
}
