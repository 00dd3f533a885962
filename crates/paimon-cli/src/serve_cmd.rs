//! `paimon serve`: the service of `paimon-serve` over a warehouse (or the catalog of
//! `--catalog-option`). Today it serves Paimon's REST catalog on `--rest-bind`; it prints the
//! bound URL on stdout when it is ready (so `--rest-bind 127.0.0.1:0` works) and shuts down
//! gracefully on SIGTERM or ctrl-c (requests in flight finish, new connections are refused).

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use paimon_rs::Catalog;
use paimon_serve::auth::Users;
use paimon_serve::rest::{default_warehouse_name, RestConfig, RestServer};

use crate::catalog_cmd;

/// `paimon serve [WAREHOUSE] [--warehouse-name NAME] [--rest-bind HOST:PORT] [--auth FILE]`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The warehouse directory or URL to serve (a filesystem catalog); without it, the catalog
    /// of `--catalog-option` / `--catalog-options`.
    pub warehouse: Option<String>,
    /// The name REST clients give as `warehouse` (default: the warehouse's last path
    /// component).
    #[arg(long, value_name = "NAME")]
    pub warehouse_name: Option<String>,
    /// Where the REST catalog listens (port 0: any free port; the URL is printed).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8181")]
    pub rest_bind: String,
    /// Users and grants, one `TOKEN USER GRANTS` line each (see paimon_serve::auth); without
    /// it, requests are not authenticated.
    #[arg(long, value_name = "FILE")]
    pub auth: Option<PathBuf>,
    // `--flight-bind HOST:PORT` (Arrow Flight SQL, crates/paimon-serve/src/flight/) joins here
    // and starts beside the REST server in `serve`.
}

/// Runs the service until SIGTERM or ctrl-c.
///
/// # Errors
/// No catalog (or two), an unreadable auth file, a bind that fails.
pub fn serve(a: ServeArgs) -> Result<()> {
    let catalog = match (&a.warehouse, catalog_cmd::catalog()?) {
        (Some(w), None) => Catalog::filesystem(w).map_err(|e| anyhow!("{}", e.chain()))?,
        (None, Some(c)) => c,
        (Some(w), Some(_)) => {
            bail!("serve: both a WAREHOUSE ({w}) and catalog options given: give one of them")
        }
        (None, None) => {
            bail!("serve: give a WAREHOUSE directory or the catalog's --catalog-option KEY=VALUE")
        }
    };
    let catalog = Arc::clone(catalog.catalog());
    let name = a.warehouse_name.clone().unwrap_or_else(|| {
        default_warehouse_name(a.warehouse.as_deref().unwrap_or(catalog.location()))
    });
    let mut config = RestConfig::new(name);
    if let Some(f) = &a.auth {
        config.users = Users::load(f)?;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("serve: starting the runtime")?;
    rt.block_on(async {
        let server = RestServer::bind(&a.rest_bind, catalog, config)
            .await
            .with_context(|| format!("serve: binding --rest-bind {}", a.rest_bind))?;
        let mut out = std::io::stdout();
        writeln!(out, "{}", server.url()?)?;
        out.flush()?;
        server.serve(shutdown_signal()).await?;
        Ok(())
    })
}

/// Completes on SIGTERM or ctrl-c.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
