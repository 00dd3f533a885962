//! `paimon sql WAREHOUSE [QUERY]`: SQL over a warehouse with DataFusion (paimon-datafusion).
//! The warehouse is the default catalog, so tables are `db.table`; without QUERY, the
//! statements come from stdin, separated by `;`, each result printed in turn.
//!
//! The local user has every grant (views, in-memory tables, `SET`), but files outside the
//! warehouse only with `--allow-local-files` ([`paimon_datafusion::sql::SqlPolicy`]).

use std::io::Read;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use clap::Args;
use datafusion::prelude::SessionContext;
use paimon_datafusion::sql::SqlPolicy;
use paimon_spec::types::DataField;

use crate::read_cmd::{write_output, Format, LateMode, OutputArgs};
use paimon_data::arrow_schema::from_arrow_field;

/// `paimon sql WAREHOUSE [QUERY]`.
#[derive(Debug, Args)]
pub struct SqlArgs {
    /// Warehouse directory (`<warehouse>/<db>.db/<table>`).
    pub warehouse: String,
    /// One SQL statement; read statements from stdin when absent.
    pub query: Option<String>,
    /// Output format (`null` prints only the row count).
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Write here instead of stdout (required for parquet and arrow).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Partitions a scan is split into (default: the cores available).
    #[arg(long = "target-partitions")]
    pub target_partitions: Option<usize>,
    /// Run on a Ballista cluster: `df://HOST:PORT` of its scheduler (`paimon-ballista
    /// scheduler`); the query is planned here, its scans run on the cluster's executors.
    #[arg(long)]
    pub scheduler: Option<String>,
    /// Let statements reach files outside the warehouse: `CREATE EXTERNAL TABLE ... LOCATION`
    /// and `COPY ... TO` (refused by default: the SQL reads the warehouse only).
    #[arg(long = "allow-local-files")]
    pub allow_local_files: bool,
}

/// Runs `a`.
///
/// # Errors
/// Bad SQL, unknown tables or columns, and read errors, as one message.
pub fn sql(a: SqlArgs) -> Result<()> {
    let text = match &a.query {
        Some(q) => q.clone(),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("cannot read SQL from stdin")?;
            s
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let ctx = session(&a).await?;
        let statements = paimon_datafusion::sql::parse(&text).map_err(one_line)?;
        if statements.is_empty() {
            bail!("no SQL statement given");
        }
        if statements.len() > 1 && matches!(a.format, Format::Parquet | Format::Arrow) {
            bail!(
                "--format {:?} writes one result: give one statement",
                a.format
            );
        }
        for s in statements {
            let df = paimon_datafusion::sql::run(&ctx, s)
                .await
                .map_err(one_line)?;
            let schema: SchemaRef = std::sync::Arc::new(df.schema().as_arrow().clone());
            let batches: Vec<RecordBatch> = df.collect().await.map_err(one_line)?;
            print_result(&a, &schema, &batches)?;
        }
        Ok(())
    })
}

/// `e` on one line: DataFusion's messages may span several (the CLI reports one line).
fn one_line(e: impl std::fmt::Display) -> anyhow::Error {
    let text = e.to_string();
    anyhow!(
        "{}",
        text.split('\n')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// The session over the warehouse: local, or a Ballista client when `--scheduler` is given.
async fn session(a: &SqlArgs) -> Result<SessionContext> {
    if a.target_partitions == Some(0) {
        bail!("--target-partitions must be above zero");
    }
    let ctx = match &a.scheduler {
        Some(url) => remote_session(url, a).await?,
        None => {
            let mut config = datafusion::prelude::SessionConfig::new();
            if let Some(n) = a.target_partitions {
                config = config.with_target_partitions(n);
            }
            paimon_datafusion::sql::session_with_config(&a.warehouse, config).map_err(one_line)?
        }
    };
    let policy = SqlPolicy::local_user(a.allow_local_files)
        .with_local_files_hint("give `paimon sql --allow-local-files` to allow them");
    paimon_datafusion::sql::set_policy(&ctx, policy);
    Ok(ctx)
}

#[cfg(feature = "ballista")]
async fn remote_session(url: &str, a: &SqlArgs) -> Result<SessionContext> {
    paimon_ballista::remote_session_with(url, &a.warehouse, a.target_partitions)
        .await
        .map_err(|e| one_line(format!("--scheduler {url}: {e}")))
}

#[cfg(not(feature = "ballista"))]
async fn remote_session(url: &str, _a: &SqlArgs) -> Result<SessionContext> {
    bail!("--scheduler {url}: this paimon was built without the `ballista` feature")
}

/// Prints one statement's result; JSON lines in the oracle's row encoding when every column
/// has a Paimon type, as `paimon read` prints them.
fn print_result(a: &SqlArgs, schema: &SchemaRef, batches: &[RecordBatch]) -> Result<()> {
    let fields = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let ty = from_arrow_field(f)
                .map_err(|e| anyhow!("{e}"))
                .with_context(|| {
                    format!("result column '{}' has no JSON row encoding", f.name())
                })?;
            Ok(DataField::new(
                i32::try_from(i).unwrap_or(i32::MAX),
                f.name(),
                ty,
            ))
        })
        .collect::<Result<Vec<_>>>();
    let fields = match (a.format, fields) {
        (Format::Jsonl, Err(e)) => return Err(e),
        (_, f) => f.unwrap_or_default(),
    };
    let output = OutputArgs {
        format: a.format,
        out: a.out.clone(),
        limit: None,
        batch_size: None,
        threads: None,
        memory_budget: None,
        late_materialization: LateMode::Auto,
        blob_as_descriptor: None,
        blob_roots: Vec::new(),
        blob_descriptor_dirs: Vec::new(),
    };
    write_output(&output, schema, batches, &fields)
}
