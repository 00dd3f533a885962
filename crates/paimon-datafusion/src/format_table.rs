//! A format table (`type = format-table`, the facade's [`paimon_rs::FormatTable`]) as a
//! DataFusion table: `SELECT` reads its files (partition directories pruned by the filters
//! that translate to Paimon predicates, which DataFusion then applies again), `INSERT INTO`
//! writes new files and `INSERT OVERWRITE` replaces the partitions written (or the whole table
//! with `dynamic-partition-overwrite = false`, or the `PARTITION (...)` named), each statement
//! committed once through [`crate::insert::PaimonSink`].
//!
//! The rows are read when the scan is planned, into memory: a format table has no splits to
//! hand to DataFusion's partitions.

use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use paimon_rs::FormatTable;

use crate::insert::PaimonSink;
use crate::pushdown::{translate, translate_all};

/// A format table for DataFusion.
#[derive(Clone)]
pub struct FormatTableProvider {
    table: FormatTable,
    arrow: SchemaRef,
    static_partition: Option<Vec<(String, String)>>,
}

impl fmt::Debug for FormatTableProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FormatTableProvider")
            .field("path", &self.table.path())
            .finish_non_exhaustive()
    }
}

impl FormatTableProvider {
    /// The provider of `table`.
    pub fn new(table: FormatTable) -> Self {
        FormatTableProvider {
            arrow: table.arrow_schema(),
            table,
            static_partition: None,
        }
    }

    /// The table.
    pub fn table(&self) -> &FormatTable {
        &self.table
    }

    /// This provider with `INSERT OVERWRITE` replacing the partition `pairs` names (leading
    /// partition columns and their values) whatever the rows hold.
    pub fn with_static_partition(&self, pairs: Vec<(String, String)>) -> Self {
        FormatTableProvider {
            static_partition: Some(pairs),
            ..self.clone()
        }
    }
}

#[async_trait]
impl TableProvider for FormatTableProvider {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.arrow)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // Pushed filters prune partitions and rows; DataFusion filters again all the same.
        Ok(filters
            .iter()
            .map(|f| match translate(f, self.table.schema()) {
                Some(_) => TableProviderFilterPushDown::Inexact,
                None => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let predicate = translate_all(filters, self.table.schema());
        // DataFusion filters the rows again: a limit holds only without filters.
        let limit = limit.filter(|_| filters.is_empty());
        let table = self.table.clone();
        let path = table.path().to_string();
        let batches =
            tokio::task::spawn_blocking(move || table.read(predicate.as_ref(), None, limit))
                .await
                .map_err(|e| {
                    DataFusionError::Execution(format!("{path}: reader task failed: {e}"))
                })?
                .map_err(|e| DataFusionError::Execution(format!("{path}: {}", e.chain())))?;
        Ok(MemorySourceConfig::try_new_exec(
            &[batches],
            Arc::clone(&self.arrow),
            projection.cloned(),
        )?)
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let overwrite = match insert_op {
            InsertOp::Append => None,
            InsertOp::Overwrite => Some(match &self.static_partition {
                Some(pairs) => pairs.clone(),
                None => {
                    let dynamic = self
                        .table
                        .schema()
                        .options
                        .get("dynamic-partition-overwrite")
                        .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
                    if dynamic {
                        // The partitions written, decided by the rows.
                        return self.sink_exec(input, Some(None));
                    }
                    // The whole table: the partition of no partition column.
                    Vec::new()
                }
            }),
            InsertOp::Replace => {
                return Err(DataFusionError::Plan(format!(
                    "{}: REPLACE INTO is not supported on a format table",
                    self.table.path()
                )))
            }
        };
        self.sink_exec(input, overwrite.map(Some))
    }
}

impl FormatTableProvider {
    /// `overwrite`: `None` appends, `Some(None)` replaces the partitions written,
    /// `Some(Some(pairs))` the partition `pairs` names.
    fn sink_exec(
        &self,
        input: Arc<dyn ExecutionPlan>,
        overwrite: Option<Option<Vec<(String, String)>>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let sink = PaimonSink::format(self.table.clone(), Arc::clone(&self.arrow), overwrite);
        Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
    }
}
