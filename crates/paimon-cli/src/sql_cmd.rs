//! `paimon sql WAREHOUSE [QUERY]`: SQL over a warehouse with DataFusion (paimon-datafusion).
//! The warehouse is the default catalog, so tables are `db.table`; without QUERY, the
//! statements come from stdin, separated by `;`, each result printed in turn.
//!
//! `paimon sql [WAREHOUSE] [QUERY] --catalog-option ...`: the catalog the options name (REST,
//! JDBC, Hive, filesystem) is the default catalog instead; its tables commit as the catalog
//! decides (REST commit, the JDBC or Hive lock) and are read under its query auth. Under a
//! catalog a single positional argument is the QUERY; with two, the first is the catalog's
//! `warehouse` option.
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

/// `paimon sql [WAREHOUSE] [QUERY]`.
#[derive(Debug, Args)]
pub struct SqlArgs {
    /// Warehouse directory (`<warehouse>/<db>.db/<table>`); under `--catalog-option`s
    /// optional (then the catalog's `warehouse` option).
    pub warehouse: Option<String>,
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
    let (source, query) = source(&a)?;
    let text = match &query {
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
        let ctx = session(&a, source).await?;
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

/// Where the statements' tables are.
enum Source {
    /// A warehouse directory.
    Warehouse(String),
    /// The catalog the command line's options name.
    Catalog(paimon_rs::Catalog),
}

/// The session's tables and the QUERY argument, from the positional arguments and the
/// command line's catalog options.
fn source(a: &SqlArgs) -> Result<(Source, Option<String>)> {
    let mut options = crate::catalog_cmd::catalog_options()?;
    if options.is_empty() {
        let Some(w) = &a.warehouse else {
            bail!(
                "give a WAREHOUSE directory, or a catalog with --catalog-option/--catalog-options"
            );
        };
        return Ok((Source::Warehouse(w.clone()), a.query.clone()));
    }
    let query = match (&a.warehouse, &a.query) {
        (Some(w), Some(q)) => {
            let key = paimon_meta::catalog::keys::WAREHOUSE;
            match options.get(key) {
                Some(given) if given != w => bail!(
                    "WAREHOUSE {w} and the catalog option {key}={given} differ: give one of them"
                ),
                _ => options.insert(key.to_string(), w.clone()),
            };
            Some(q.clone())
        }
        // Under a catalog one positional argument is the QUERY.
        (q, None) => q.clone(),
        (None, Some(q)) => Some(q.clone()),
    };
    if a.scheduler.is_some() {
        bail!("--scheduler with a catalog (--catalog-option): not supported yet; Ballista sessions read a warehouse directory");
    }
    let catalog = paimon_rs::Catalog::open(options).map_err(|e| anyhow!("{}", e.chain()))?;
    Ok((Source::Catalog(catalog), query))
}

/// The session over the warehouse or catalog: local, or a Ballista client when
/// `--scheduler` is given.
async fn session(a: &SqlArgs, source: Source) -> Result<SessionContext> {
    if a.target_partitions == Some(0) {
        bail!("--target-partitions must be above zero");
    }
    let mut config = datafusion::prelude::SessionConfig::new();
    if let Some(n) = a.target_partitions {
        config = config.with_target_partitions(n);
    }
    let ctx = match (source, &a.scheduler) {
        (Source::Warehouse(w), Some(url)) => remote_session(url, &w, a).await?,
        (Source::Warehouse(w), None) => {
            paimon_datafusion::sql::session_with_config(&w, config).map_err(one_line)?
        }
        (Source::Catalog(c), _) => {
            let provider = match c.meta() {
                Some(fs) => paimon_datafusion::PaimonCatalogProvider::with_io(
                    std::sync::Arc::clone(fs.file_io()),
                    paimon_meta::catalog::Catalog::location(fs),
                ),
                None => paimon_datafusion::PaimonCatalogProvider::with_catalog(
                    std::sync::Arc::clone(c.catalog()),
                ),
            };
            paimon_datafusion::sql::session_with_catalog(provider, config)
        }
    };
    let policy = SqlPolicy::local_user(a.allow_local_files)
        .with_local_files_hint("give `paimon sql --allow-local-files` to allow them");
    paimon_datafusion::sql::set_policy(&ctx, policy);
    Ok(ctx)
}

#[cfg(feature = "ballista")]
async fn remote_session(url: &str, warehouse: &str, a: &SqlArgs) -> Result<SessionContext> {
    paimon_ballista::remote_session_with(url, warehouse, a.target_partitions)
        .await
        .map_err(|e| one_line(format!("--scheduler {url}: {e}")))
}

#[cfg(not(feature = "ballista"))]
async fn remote_session(url: &str, _warehouse: &str, _a: &SqlArgs) -> Result<SessionContext> {
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
