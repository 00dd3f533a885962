//! [`PaimonTableProvider`]: one Paimon table as a DataFusion table.
//!
//! `scan` plans with the control plane (off DataFusion's async threads), with the filters
//! that translate ([`crate::pushdown`]) pruning partitions, buckets and files, then deals the
//! splits into partitions of about equal bytes and hands them to [`PaimonScanExec`] as Java
//! split bytes.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use paimon_data::reader::{ROW_ID, SEQUENCE_NUMBER};
use paimon_data::SplitReader;
use paimon_io::{file_io_for, FileIORef};
use paimon_meta::Table;
use paimon_rs::{Overwrite, ScanPlan};
use paimon_spec::predicate::Predicate;
use paimon_spec::schema::TableSchemaRef;
use paimon_split::{DataSplit, Split};

use crate::error::df_err;
use crate::exec::{rename_row_kind, PaimonScanExec, PaimonSplitReadExec, ScanNode, SplitsAsInput};
use crate::insert::PaimonSink;
use crate::pushdown::{pushdown_kind, translate_all};
use crate::scan_spec::ScanSpec;
use crate::stats::{scan_statistics, ScanFacts};

/// One Paimon table at the snapshot, tag, time or branch of its [`ScanSpec`].
#[derive(Debug, Clone)]
pub struct PaimonTableProvider {
    path: String,
    io: FileIORef,
    table: Table,
    spec: ScanSpec,
    /// The schema rows are read with (the selected snapshot's for time travel).
    rows_schema: TableSchemaRef,
    arrow: SchemaRef,
    /// The partition an `INSERT OVERWRITE ... PARTITION (k = v)` replaces
    /// ([`crate::partition_insert`]).
    static_partition: Option<Vec<(String, String)>>,
}

impl PaimonTableProvider {
    /// The table at `path`, latest snapshot of its main branch.
    ///
    /// # Errors
    /// When the table cannot be opened.
    pub fn open(path: &str) -> Result<Self> {
        Self::open_with(path, ScanSpec::default())
    }

    /// The table at `path` as `spec` selects it.
    ///
    /// # Errors
    /// When the table, branch, snapshot or tag does not exist.
    pub fn open_with(path: &str, spec: ScanSpec) -> Result<Self> {
        let path = path.trim_end_matches('/').to_string();
        let io = file_io_for(&path).map_err(|e| df_err(&path, e))?;
        Self::open_io(io, &path, spec)
    }

    /// As [`PaimonTableProvider::open_with`] on storage `io`.
    ///
    /// # Errors
    /// As [`PaimonTableProvider::open_with`].
    pub fn open_io(io: FileIORef, path: &str, spec: ScanSpec) -> Result<Self> {
        let table = Table::open(Arc::clone(&io), path).map_err(|e| df_err(path, e))?;
        Self::assemble(table, io, path, spec)
    }

    /// `table` as opened (through a catalog: it keeps the catalog's commit and query auth) as
    /// `spec` selects it, on the table's own storage.
    ///
    /// # Errors
    /// When the branch, snapshot or tag does not exist.
    pub fn from_table(table: Table, spec: ScanSpec) -> Result<Self> {
        let path = table.path().trim_end_matches('/').to_string();
        let io = Arc::clone(table.file_io());
        Self::assemble(table, io, &path, spec)
    }

    /// The provider of `table` (at `path`, on `io`) as `spec` selects it.
    fn assemble(mut table: Table, io: FileIORef, path: &str, spec: ScanSpec) -> Result<Self> {
        if let Some(b) = &spec.branch {
            table = table.with_branch(b).map_err(|e| df_err(path, e))?;
        }
        let rows_schema = spec
            .apply(table.scan())?
            .rows_schema()
            .map_err(|e| df_err(path, e))?;
        let mut reader = SplitReader::builder(Arc::clone(&io))
            .with_schema_id(rows_schema.id)
            .with_row_kind(spec.with_row_kind);
        if spec.with_row_tracking {
            if !table.options().row_tracking_enabled {
                return Err(df_err(
                    path,
                    "the table does not track rows (row-tracking.enabled is false): no $row_tracking",
                ));
            }
            reader = reader.with_projection(row_tracking_columns(&rows_schema));
        }
        if let Some(b) = &spec.branch {
            reader = reader.with_branch(b.clone());
        }
        let arrow = reader
            .build()
            .output_schema(path)
            .map_err(|e| df_err(path, e))?;
        Ok(PaimonTableProvider {
            path: path.to_string(),
            io,
            table,
            spec,
            rows_schema,
            arrow: Arc::new(rename_row_kind(&arrow)),
            static_partition: None,
        })
    }

    /// The table directory.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The table (on the spec's branch).
    pub(crate) fn meta(&self) -> &Table {
        &self.table
    }

    /// Whether the table is under query auth ([`paimon_meta::query_auth`]): its scans carry
    /// the catalog's row filters and column masks in every split, so nothing may be answered
    /// or pruned from the files' unmasked values: no filter is pushed into planning or
    /// reading (DataFusion filters the masked rows), and the scan claims no statistics (no
    /// `count(*)`, `min` or `max` answered from the manifests).
    pub fn under_query_auth(&self) -> bool {
        self.table.query_auth().is_some()
    }

    /// What the provider reads.
    pub fn spec(&self) -> &ScanSpec {
        &self.spec
    }

    /// The Paimon schema the rows are read with.
    pub fn table_schema(&self) -> &TableSchemaRef {
        &self.rows_schema
    }

    /// This provider with `pairs` (`column = value`) as the partition an `INSERT OVERWRITE`
    /// replaces, instead of what the table's `dynamic-partition-overwrite` decides.
    pub fn with_static_partition(&self, pairs: Vec<(String, String)>) -> Self {
        PaimonTableProvider {
            static_partition: Some(pairs),
            ..self.clone()
        }
    }

    /// The sink of an `INSERT` into this table (`overwrite` as [`PaimonSink::new`]); only the
    /// latest snapshot of the main branch takes rows.
    ///
    /// # Errors
    /// When the provider reads a snapshot, tag, time, branch, changes or extra columns.
    pub fn sink(&self, overwrite: Option<Overwrite>) -> Result<PaimonSink> {
        if self.spec != ScanSpec::default() {
            return Err(DataFusionError::Plan(format!(
                "{}: rows can only be written to a table's latest snapshot on its main branch, not to {}",
                self.path,
                not_writable(&self.spec)
            )));
        }
        Ok(PaimonSink::new(
            self.table.clone(),
            &self.path,
            Arc::clone(&self.arrow),
            overwrite,
        ))
    }

    /// Plans the scan with `filter` through the facade's [`paimon_rs::TableScan`] (blocking
    /// I/O: call it off async threads). The table is already on the spec's branch.
    fn plan(&self, filter: Option<&Predicate>) -> Result<ScanPlan> {
        let mut scan = paimon_rs::Table::from_meta(self.table.clone())
            .scan()
            .with_choice(self.spec.choice());
        if let Some(p) = filter {
            scan = scan.with_filter_predicate(p.clone());
        }
        scan.plan().map_err(|e| df_err(&self.path, e))
    }

    /// The scan node for `plan` read into `partitions` partitions.
    fn scan_exec(
        &self,
        plan: &ScanPlan,
        projection: Option<Vec<String>>,
        predicate: Option<Predicate>,
        limit: Option<usize>,
        partitions: usize,
    ) -> Result<PaimonScanExec> {
        // Change reads may drop or keep retractions by row kind: their counts are not the
        // files' either.
        let rows_narrowed = predicate.is_some()
            || limit.is_some()
            || self.spec.with_row_kind
            || self.spec.incremental.is_some()
            || self.spec.changes_since.is_some();
        let groups = deal(plan.splits.clone(), partitions.max(1));
        let mut encoded = Vec::with_capacity(groups.len());
        for g in groups {
            let mut bytes = Vec::with_capacity(g.len());
            for s in &g {
                // DataSplit v9 dropped the before files of incremental splits; v8 is the last
                // version that carries them (Java `DataSplit.serialize`).
                let version = match s.files_split() {
                    Some(d) if !d.before_files.is_empty() || d.before_deletion_files.is_some() => 8,
                    _ => paimon_split::CURRENT_VERSION,
                };
                bytes.push(
                    paimon_split::encode_frame(s, version).map_err(|e| df_err(&self.path, e))?,
                );
            }
            encoded.push(bytes);
        }
        let node = ScanNode {
            table_path: self.path.clone(),
            branch: self.spec.branch.clone(),
            schema_id: self.rows_schema.id,
            projection,
            predicate,
            limit,
            with_row_kind: self.spec.with_row_kind,
            partitions: encoded,
        };
        let exec = PaimonScanExec::try_new_with_io(node, Some(Arc::clone(&self.io)))?;
        let facts = ScanFacts {
            splits: &plan.plan.splits,
            schema: &self.rows_schema,
            rows_narrowed,
        };
        if self.under_query_auth() || plan.plan.auth.is_some() {
            let unknown = datafusion::common::Statistics::new_unknown(&exec.schema());
            return Ok(exec.with_statistics(unknown));
        }
        let stats = scan_statistics(&facts, &exec.schema());
        Ok(exec.with_statistics(stats))
    }
}

/// What `spec` selects besides the latest snapshot of the main branch, for an INSERT's refusal.
fn not_writable(spec: &ScanSpec) -> String {
    let mut what = Vec::new();
    if let Some(s) = spec.snapshot {
        what.push(format!("snapshot {s}"));
    }
    if let Some(t) = &spec.tag {
        what.push(format!("tag '{t}'"));
    }
    if let Some(t) = spec.timestamp_ms {
        what.push(format!("the time {t} ms"));
    }
    if let Some(b) = &spec.branch {
        what.push(format!("branch '{b}'"));
    }
    if spec.incremental.is_some() || spec.changes_since.is_some() {
        what.push("a change read".to_string());
    }
    if spec.with_row_kind || spec.with_row_tracking {
        what.push("a system table".to_string());
    }
    what.join(", ")
}

/// The columns of `t$row_tracking`: the table's, then `_ROW_ID` and `_SEQUENCE_NUMBER`
/// (Java `SpecialFields.rowTypeWithRowTracking`).
fn row_tracking_columns(schema: &TableSchemaRef) -> Vec<String> {
    schema
        .fields
        .iter()
        .map(|f| f.name.clone())
        .chain([ROW_ID.to_string(), SEQUENCE_NUMBER.to_string()])
        .collect()
}

/// `splits` dealt into at most `n` groups of about equal bytes (largest first, each to the
/// lightest group), keeping every group non-empty; one empty group for no splits.
fn deal(splits: Vec<Split>, n: usize) -> Vec<Vec<Split>> {
    let weight = |s: &Split| -> i64 {
        s.files_split().map_or(1, |d: &DataSplit| {
            d.data_files.iter().map(|f| f.file_size.max(1)).sum()
        })
    };
    let mut weighted: Vec<(i64, Split)> = splits.into_iter().map(|s| (weight(&s), s)).collect();
    weighted.sort_by_key(|w| std::cmp::Reverse(w.0));
    let n = n.min(weighted.len()).max(1);
    let mut groups: Vec<(i64, Vec<Split>)> = (0..n).map(|_| (0, Vec::new())).collect();
    for (w, s) in weighted {
        if let Some(g) = groups.iter_mut().min_by_key(|g| g.0) {
            g.0 = g.0.saturating_add(w);
            g.1.push(s);
        }
    }
    groups.into_iter().map(|g| g.1).collect()
}

/// Runs blocking `f` on the runtime's blocking threads when there is a runtime.
pub(crate) async fn off_runtime<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    match tokio::runtime::Handle::try_current() {
        Ok(h) => h
            .spawn_blocking(f)
            .await
            .map_err(|e| DataFusionError::Execution(format!("planning task failed: {e}")))?,
        Err(_) => f(),
    }
}

#[async_trait]
impl TableProvider for PaimonTableProvider {
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
        if self.under_query_auth() {
            return Ok(vec![
                TableProviderFilterPushDown::Unsupported;
                filters.len()
            ]);
        }
        Ok(filters
            .iter()
            // `rowkind` and the row-tracking columns are not Paimon columns: filters on them
            // do not translate and stay with DataFusion.
            .map(|f| pushdown_kind(f, &self.rows_schema))
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        // `t$row_tracking` reads its extra columns only when asked for by name.
        let all_columns: Vec<usize> = (0..self.arrow.fields().len()).collect();
        let names = match projection.or(self.spec.with_row_tracking.then_some(&all_columns)) {
            Some(p) => Some(
                p.iter()
                    .map(|i| {
                        self.arrow
                            .fields()
                            .get(*i)
                            .map(|f| f.name().clone())
                            .ok_or_else(|| {
                                DataFusionError::Internal(format!(
                                    "{}: no column {i} in the table's schema",
                                    self.path
                                ))
                            })
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            None => None,
        };
        // Under query auth the user's filters compare masked values: they never reach the
        // planner or reader, which see the files' own values.
        let predicate = match self.under_query_auth() {
            true => None,
            false => translate_all(filters, &self.rows_schema),
        };
        let partitions = state.config().target_partitions();
        let splits_as_input = state.config().get_extension::<SplitsAsInput>().is_some();
        let this = self.clone();
        let exec = off_runtime(move || {
            let plan = this.plan(predicate.as_ref())?;
            this.scan_exec(&plan, names, predicate, limit, partitions)
        })
        .await?;
        if splits_as_input {
            return Ok(Arc::new(PaimonSplitReadExec::from_scan(&exec)?));
        }
        Ok(Arc::new(exec))
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
                Some(pairs) => Overwrite::Partition(pairs.clone()),
                None => Overwrite::AsConfigured,
            }),
            InsertOp::Replace => {
                return Err(DataFusionError::Plan(format!(
                    "{}: REPLACE INTO is not supported (a primary-key table's INSERT INTO replaces rows of the same key)",
                    self.path
                )))
            }
        };
        Ok(Arc::new(DataSinkExec::new(
            input,
            Arc::new(self.sink(overwrite)?),
            None,
        )))
    }

    async fn delete_from(
        &self,
        state: &dyn Session,
        filters: Vec<Expr>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(why) = crate::row_level::refusal(&self.table, &self.path, "DELETE") {
            return Err(DataFusionError::Plan(why));
        }
        let sink = self.sink(None)?;
        if self.table.schema().primary_keys.is_empty() {
            return crate::append_dml::delete_plan(
                state,
                &self.table,
                &self.path,
                &self.arrow,
                filters,
            );
        }
        let scan = self.scan(state, None, &filters, None).await?;
        crate::row_level::delete_plan(state, scan, filters, sink)
    }

    async fn update(
        &self,
        state: &dyn Session,
        assignments: Vec<(String, Expr)>,
        filters: Vec<Expr>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(why) = crate::row_level::refusal(&self.table, &self.path, "UPDATE") {
            return Err(DataFusionError::Plan(why));
        }
        let sink = self.sink(None)?;
        if self.table.schema().primary_keys.is_empty() {
            return crate::append_dml::update_plan(
                state,
                &self.table,
                &self.path,
                &self.arrow,
                assignments,
                filters,
            );
        }
        let scan = self.scan(state, None, &filters, None).await?;
        let keys = self.table.schema().primary_keys.clone();
        crate::row_level::update_plan(state, scan, &keys, assignments, filters, sink)
    }
}
