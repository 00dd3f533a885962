//! A Ballista scheduler and executor that know Paimon's plan nodes, and the client session.

use std::net::SocketAddr;
use std::sync::Arc;

use ballista::prelude::SessionContextExt;
use ballista_core::error::BallistaError;
use ballista_core::extension::SessionConfigExt;
use ballista_core::JobId;
use ballista_executor::execution_engine::{
    DefaultExecutionEngine, ExecutionEngine, QueryStageExecutor,
};
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SessionStateBuilder;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::{SessionConfig, SessionContext};
use paimon_datafusion::sql::{register, CATALOG};
use paimon_datafusion::{
    PaimonCatalogProvider, PaimonScanExec, PaimonSplitReadExec, SplitsAsInput,
};

use crate::codec::{codecs, warehouse_codecs};
use crate::executor_plan::check_executor_plan;

/// A Ballista session configuration carrying Paimon's codecs (what schedulers and executors
/// build every job's session from, and what the client plans with), whose scans put their
/// splits into an input the scheduler can slice ([`SplitsAsInput`]).
///
/// Jobs use Ballista's static planner. With the adaptive one (Ballista 55's default), a query
/// whose executor was killed mid-job hung in 2 of 4 runs of the cluster test (the lost tasks
/// were never rerun); with the static one it gave the right rows in 6 of 6.
pub fn session_config() -> SessionConfig {
    let (logical, physical) = codecs();
    SessionConfig::new_with_ballista()
        .with_ballista_logical_extension_codec(logical)
        .with_ballista_physical_extension_codec(physical)
        .with_extension(Arc::new(SplitsAsInput))
        .with_ballista_adaptive_query_planner(false)
}

/// A client session against the Ballista scheduler at `scheduler_url` (`df://host:port`)
/// whose default catalog is the warehouse, as [`paimon_datafusion::sql::session`] gives
/// locally: tables are `db.table`, queries plan here and run on the cluster.
///
/// # Errors
/// A malformed URL, or no storage serving the warehouse's scheme. The scheduler is first
/// contacted when a query runs.
pub async fn remote_session(scheduler_url: &str, warehouse: &str) -> Result<SessionContext> {
    remote_session_with(scheduler_url, warehouse, None).await
}

/// [`remote_session`] with a partition count for every scan and shuffle (`None`: Ballista's
/// default).
///
/// Each scan's split groups travel as the rows of an in-memory input
/// ([`PaimonSplitReadExec`]), which Ballista's scheduler slices into its tasks like its own
/// scans, so the tasks of one scan run on different executors and each reads its own splits.
///
/// # Errors
/// As [`remote_session`].
pub async fn remote_session_with(
    scheduler_url: &str,
    warehouse: &str,
    target_partitions: Option<usize>,
) -> Result<SessionContext> {
    let catalog = Arc::new(PaimonCatalogProvider::new(warehouse)?);
    let mut config = session_config();
    if let Some(n) = target_partitions {
        config = config.with_target_partitions(n);
    }
    let config = config
        .with_create_default_catalog_and_schema(false)
        .with_default_catalog_and_schema(CATALOG, "default")
        .with_information_schema(true);
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let ctx = SessionContext::remote_with_state(scheduler_url, state).await?;
    register(&ctx, catalog);
    Ok(ctx)
}

/// How a scheduler runs.
#[derive(Debug, Clone)]
pub struct SchedulerOptions {
    /// Address of the gRPC service.
    pub bind: SocketAddr,
    /// An executor without a heartbeat for this long is dead and its tasks run elsewhere
    /// (Ballista's default is 180 s).
    pub executor_timeout_secs: u64,
    /// `GET /readyz` on the gRPC port answers 200 once this many executors are registered.
    pub min_ready_executors: usize,
    /// The warehouse whose tables clients query, spelled as they spell it (the same absolute
    /// path or URL): a client's plan naming a table outside it is refused before the table is
    /// opened ([`warehouse_codecs`]).
    pub warehouse: String,
}

/// Runs a scheduler until the process ends.
///
/// # Errors
/// When the address cannot be bound.
pub async fn run_scheduler(opts: SchedulerOptions) -> Result<()> {
    let (logical, physical) = warehouse_codecs(&opts.warehouse);
    let mut config = SchedulerConfig::default()
        .with_hostname(opts.bind.ip().to_string())
        .with_port(opts.bind.port())
        .with_override_config_producer(Arc::new(session_config));
    config.bind_host = opts.bind.ip().to_string();
    config.override_logical_codec = Some(logical);
    config.override_physical_codec = Some(physical);
    config.executor_timeout_seconds = opts.executor_timeout_secs;
    config.min_ready_executors = opts.min_ready_executors;
    config.no_executors_grace_period_seconds = opts.executor_timeout_secs;
    config.expire_dead_executor_interval_seconds = opts.executor_timeout_secs.clamp(1, 15);
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(ballista_err)?;
    eprintln!(
        "paimon-ballista scheduler listening on {}, warehouse {}",
        opts.bind, opts.warehouse
    );
    start_server(cluster, opts.bind, Arc::new(config))
        .await
        .map_err(ballista_err)
}

/// How an executor runs.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// The scheduler's gRPC address.
    pub scheduler: SocketAddr,
    /// Address of the executor's Flight service (shuffle data).
    pub bind: SocketAddr,
    /// Port of the executor's gRPC service, on the same host.
    pub grpc_port: u16,
    /// Tasks run at once.
    pub concurrent_tasks: usize,
    /// Seconds between heartbeats to the scheduler.
    pub heartbeat_secs: u64,
    /// Where shuffle files go (a temporary directory when `None`).
    pub work_dir: Option<String>,
    /// The warehouse the executor reads: it runs only Paimon scans of tables under it, spelled
    /// as the clients spell it (the same absolute path or URL), and no other file scan or
    /// sink ([`check_executor_plan`]).
    pub warehouse: String,
}

/// Runs an executor until the process ends. Every task that scans a Paimon table prints one
/// line `paimon-ballista executor <id>: job .. stage .. task .. scans <table> (<n> splits)` on
/// stderr, `n` being the splits the task reads. A task whose plan [`check_executor_plan`]
/// refuses (a file scan or sink, a table outside [`ExecutorOptions::warehouse`]) fails
/// with that error before it opens anything.
///
/// # Errors
/// When the scheduler cannot be reached or the addresses cannot be bound, and whenever the
/// executor stops: Ballista's returns `Ok` both for a signal and for a server of its that
/// ended (its port taken), and an executor is meant to run until it is killed.
pub async fn run_executor(opts: ExecutorOptions) -> Result<()> {
    let (logical, physical) = warehouse_codecs(&opts.warehouse);
    let defaults = ExecutorProcessConfig::default();
    let id = defaults.executor_id.clone();
    let host = opts.bind.ip().to_string();
    let config = ExecutorProcessConfig {
        bind_host: host.clone(),
        external_host: Some(host),
        port: opts.bind.port(),
        grpc_port: opts.grpc_port,
        scheduler_host: opts.scheduler.ip().to_string(),
        scheduler_port: opts.scheduler.port(),
        scheduler_connect_timeout_seconds: 30,
        vcores: opts.concurrent_tasks,
        work_dir: opts.work_dir,
        executor_heartbeat_interval_seconds: opts.heartbeat_secs,
        override_logical_codec: Some(logical),
        override_physical_codec: Some(physical),
        override_config_producer: Some(Arc::new(session_config)),
        override_execution_engine: Some(Arc::new(ScanLoggingEngine {
            executor_id: id.clone(),
            warehouse: opts.warehouse.clone(),
            inner: DefaultExecutionEngine::new(),
        })),
        ..defaults
    };
    eprintln!(
        "paimon-ballista executor {id} on {} (gRPC port {}), scheduler {}, warehouse {}",
        opts.bind, opts.grpc_port, opts.scheduler, opts.warehouse
    );
    start_executor_process(Arc::new(config))
        .await
        .map_err(ballista_err)?;
    Err(DataFusionError::Execution(format!(
        "executor {id} stopped: by a signal, or a server of its ended (is port {} or {} in use?)",
        opts.bind.port(),
        opts.grpc_port
    )))
}

fn ballista_err(e: BallistaError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// Ballista's execution engine, refusing the plans [`check_executor_plan`] refuses and
/// naming each task that scans a Paimon table.
struct ScanLoggingEngine {
    executor_id: String,
    warehouse: String,
    inner: DefaultExecutionEngine,
}

impl ExecutionEngine for ScanLoggingEngine {
    fn create_query_stage_exec(
        &self,
        job_id: JobId,
        stage_id: usize,
        task_id: usize,
        global_output_partition_ids: Vec<usize>,
        plan: Arc<dyn ExecutionPlan>,
        work_dir: &str,
        config: &SessionConfig,
    ) -> Result<Arc<dyn QueryStageExecutor>> {
        if let Err(e) = check_executor_plan(&plan, &self.warehouse) {
            eprintln!(
                "paimon-ballista executor {}: job {job_id} stage {stage_id} task {task_id} \
                 refused: {e}",
                self.executor_id
            );
            return Err(e);
        }
        let mut scans = Vec::new();
        plan.apply(|p| {
            if let Some(read) = p.downcast_ref::<PaimonSplitReadExec>() {
                let splits = read
                    .input_split_count()
                    .map_or("?".into(), |n| n.to_string());
                scans.push((read.scan().node().table_path.clone(), splits));
                return Ok(TreeNodeRecursion::Jump);
            }
            if let Some(scan) = p.downcast_ref::<PaimonScanExec>() {
                scans.push((
                    scan.node().table_path.clone(),
                    scan.split_count().to_string(),
                ));
            }
            Ok(TreeNodeRecursion::Continue)
        })?;
        for (table, splits) in scans {
            eprintln!(
                "paimon-ballista executor {}: job {job_id} stage {stage_id} task {task_id} \
                 scans {table} ({splits} splits)",
                self.executor_id
            );
        }
        self.inner.create_query_stage_exec(
            job_id,
            stage_id,
            task_id,
            global_output_partition_ids,
            plan,
            work_dir,
            config,
        )
    }
}
