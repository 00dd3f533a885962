//! `paimon serve`: the service of `paimon-serve` over a warehouse (or the catalog of
//! `--catalog-option`). It serves Paimon's REST catalog on `--rest-bind` and, with
//! `--flight-bind`, Arrow Flight SQL beside it; it prints the bound REST URL on stdout when it is
//! ready (so `--rest-bind 127.0.0.1:0` works), then the Flight SQL one (`grpc://HOST:PORT`;
//! with `--tls-cert`/`--tls-key`, `https://` and `grpc+tls://`; `--tls-client-ca` makes it
//! mutual TLS), reads its TLS files again on SIGHUP, and shuts down gracefully on SIGTERM or ctrl-c (requests in flight finish, new connections are
//! refused).

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use paimon_rs::meta::catalog::Identifier;
use paimon_rs::Catalog;
use paimon_serve::auth::Users;
use paimon_serve::flight::{serve_flight, FlightSqlServer, FlightWorker, QueryLimits};
use paimon_serve::policy::Policies;
use paimon_serve::rest::{default_warehouse_name, RestConfig, RestServer};
use paimon_serve::tls::{TlsConfig, TlsFiles};

use crate::catalog_cmd;

/// `paimon serve [WAREHOUSE] [--warehouse-name NAME] [--rest-bind HOST:PORT] [--flight-bind
/// HOST:PORT] [--auth FILE] [--policies FILE] [--tls-cert FILE --tls-key FILE
/// [--tls-client-ca FILE]]`.
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
    /// Row filters and column masks per user and table (JSON, see paimon_serve::policy;
    /// needs --auth): the tables they name carry `query-auth.enabled`, REST clients get the
    /// caller's rules from the `auth` endpoint, Flight SQL applies them to every scan.
    #[arg(long, value_name = "FILE")]
    pub policies: Option<PathBuf>,
    /// Where Arrow Flight SQL listens (port 0: any free port; its `grpc://` URL is printed after
    /// the REST one). Without it, no Flight SQL. Flight SQL serves a WAREHOUSE (a filesystem
    /// catalog), not a catalog given by options.
    #[arg(long, value_name = "HOST:PORT")]
    pub flight_bind: Option<String>,
    /// How many split groups (Flight SQL endpoints, read in parallel) a scan is planned into at
    /// most (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub flight_target_partitions: Option<usize>,
    /// Flight URLs of workers (`grpc://HOST:PORT,...`, started with `--worker-bind`): the
    /// endpoints of scan-shaped queries name them, round robin, with split tickets.
    #[arg(
        long,
        value_name = "URL,URL",
        value_delimiter = ',',
        requires = "flight_bind"
    )]
    pub workers: Vec<String>,
    /// Runs a worker instead: an Arrow Flight service on HOST:PORT that serves only `DoGet` of
    /// split tickets over WAREHOUSE's tables (no REST, no Flight SQL); its `grpc://` URL is
    /// printed when it is ready.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["flight_bind", "workers"])]
    pub worker_bind: Option<String>,
    /// Serve over TLS with this certificate chain (PEM; the server's certificate first): REST
    /// at `https://`, Flight SQL and workers at `grpc+tls://`. Needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Mutual TLS: accept only clients presenting a certificate issued by one of the
    /// authorities in FILE (PEM). Needs --tls-cert. On SIGHUP the server reads --tls-cert,
    /// --tls-key and this file again, for the connections it accepts afterwards.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
    /// Flight SQL: the memory each query's sorts, joins and aggregations may hold (e.g.
    /// 512MiB); a query over it fails with RESOURCE_EXHAUSTED (or spills where it can).
    /// Default: unbounded.
    #[arg(long, value_name = "SIZE", value_parser = crate::read_cmd::parse_memory_budget)]
    pub memory_limit: Option<usize>,
    /// Flight SQL and workers: how many queries (a worker: split tickets) run at once; more
    /// wait in the queue.
    #[arg(long, value_name = "N", default_value_t = QueryLimits::default().concurrent,
          value_parser = at_least_one)]
    pub max_concurrent_queries: usize,
    /// Flight SQL and workers: how many queries may wait for a slot; one more is refused at
    /// once with RESOURCE_EXHAUSTED.
    #[arg(long, value_name = "N", default_value_t = QueryLimits::default().queued)]
    pub query_queue: usize,
}

/// A count of at least one.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{text}' is not a count of at least 1")),
    }
}

impl ServeArgs {
    /// The bounds of Flight SQL's queries.
    fn limits(&self) -> QueryLimits {
        QueryLimits {
            memory_per_query: self.memory_limit,
            concurrent: self.max_concurrent_queries,
            queued: self.query_queue,
        }
    }

    /// The TLS configuration of --tls-cert / --tls-key, read now so a bad file stops the
    /// server before it binds.
    fn tls(&self) -> Result<Option<TlsConfig>> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Ok(Some(
                TlsConfig::load(TlsFiles {
                    cert: cert.clone(),
                    key: key.clone(),
                    client_ca: self.tls_client_ca.clone(),
                })
                .map_err(|e| anyhow!("serve: {e}"))?,
            )),
            _ => Ok(None),
        }
    }
}

/// Runs the service until SIGTERM or ctrl-c.
///
/// # Errors
/// No catalog (or two), an unreadable auth or policies file, a policy that does not fit its
/// table, a bind that fails.
pub fn serve(a: ServeArgs) -> Result<()> {
    if let Some(bind) = &a.worker_bind {
        return serve_worker(&a, bind);
    }
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
    let tls = a.tls()?;
    let mut config = RestConfig::new(name);
    config.tls = tls.clone();
    if let Some(f) = &a.auth {
        config.users = Users::load(f)?;
    }
    if let Some(f) = &a.policies {
        let policies = Policies::load(f, &config.users)?;
        policies
            .check(|db, t| {
                catalog
                    .get_table(&Identifier::new(db, t))
                    .ok()
                    .map(|t| t.schema().as_ref().clone())
            })
            .with_context(|| format!("serve: policies file {}", f.display()))?;
        config.policies = policies;
    }
    let flight = match (&a.flight_bind, &a.warehouse) {
        (None, _) => None,
        (Some(bind), Some(w)) => {
            let users = a.auth.as_ref().map(|_| config.users.clone());
            let mut server = FlightSqlServer::new(w, users)
                .map_err(|e| anyhow!("serve: Flight SQL over {w}: {e}"))?;
            if let Some(n) = a.flight_target_partitions {
                server = server.with_target_partitions(n);
            }
            if !a.workers.is_empty() {
                server = server.with_workers(a.workers.clone());
            }
            server = server
                .with_policies(config.policies.clone())
                .with_limits(a.limits());
            Some((bind.clone(), server))
        }
        (Some(_), None) => bail!(
            "serve: --flight-bind serves a WAREHOUSE directory (a filesystem catalog), not a \
             catalog given by --catalog-option"
        ),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("serve: starting the runtime")?;
    rt.block_on(async {
        let server = RestServer::bind(&a.rest_bind, catalog, config)
            .await
            .with_context(|| format!("serve: binding --rest-bind {}", a.rest_bind))?;
        let flight = match flight {
            None => None,
            Some((bind, f)) => {
                let listener = tokio::net::TcpListener::bind(&bind)
                    .await
                    .with_context(|| format!("serve: binding --flight-bind {bind}"))?;
                Some((listener, f))
            }
        };
        let signal = shutdown_signal()?;
        reload_on_sighup(tls.as_ref())?;
        let mut out = std::io::stdout();
        writeln!(out, "{}", server.url()?)?;
        if let Some((listener, _)) = &flight {
            writeln!(out, "{}://{}", grpc_scheme(&tls), listener.local_addr()?)?;
        }
        out.flush()?;
        // One signal stops both servers.
        let (stop, stopped) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            signal.await;
            let _ = stop.send(true);
        });
        let until_stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|s| *s).await;
        };
        let rest = server.serve(until_stopped(stopped.clone()));
        match flight {
            None => rest.await?,
            Some((listener, f)) => {
                let flight = serve_flight(f, listener, tls.as_ref(), until_stopped(stopped));
                let (r, f) = tokio::join!(rest, flight);
                r?;
                f.context("serve: Flight SQL")?;
            }
        }
        Ok(())
    })
}

/// `paimon serve WAREHOUSE --worker-bind HOST:PORT`: a Flight worker until SIGTERM or ctrl-c.
fn serve_worker(a: &ServeArgs, bind: &str) -> Result<()> {
    let Some(w) = &a.warehouse else {
        bail!("serve: --worker-bind serves a WAREHOUSE directory: give it")
    };
    let tls = a.tls()?;
    let users = a.auth.as_deref().map(Users::load).transpose()?;
    let policies = match (&a.policies, &users) {
        (Some(f), Some(u)) => {
            Policies::load(f, u).with_context(|| format!("serve: policies file {}", f.display()))?
        }
        (Some(_), None) => bail!("serve: --policies needs --auth (policies name its users)"),
        (None, _) => Policies::default(),
    };
    let worker = FlightWorker::new(w, users)
        .map_err(|e| anyhow!("serve: worker over {w}: {}", e.chain()))?
        .with_policies(policies)
        .with_limits(a.limits());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("serve: starting the runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(bind)
            .await
            .with_context(|| format!("serve: binding --worker-bind {bind}"))?;
        let signal = shutdown_signal()?;
        reload_on_sighup(tls.as_ref())?;
        let mut out = std::io::stdout();
        writeln!(out, "{}://{}", grpc_scheme(&tls), listener.local_addr()?)?;
        out.flush()?;
        paimon_serve::flight::serve_worker(worker, listener, tls.as_ref(), signal)
            .await
            .context("serve: worker")
    })
}

/// The scheme of the Flight URLs printed: `grpc+tls` with TLS.
fn grpc_scheme(tls: &Option<TlsConfig>) -> &'static str {
    if tls.is_some() {
        "grpc+tls"
    } else {
        "grpc"
    }
}

/// With TLS, reads the certificate, key and client CA files again on each SIGHUP (installed
/// now, before the URL is printed), saying on stderr what happened: a renewed certificate is
/// served to new connections without a restart, and files that cannot be served leave the
/// old ones in place.
fn reload_on_sighup(tls: Option<&TlsConfig>) -> Result<()> {
    #[cfg(unix)]
    if let Some(tls) = tls {
        use tokio::signal::unix::{signal, SignalKind};
        let mut hup = signal(SignalKind::hangup()).context("serve: installing SIGHUP")?;
        let tls = tls.clone();
        tokio::spawn(async move {
            while hup.recv().await.is_some() {
                let cert = tls.files().cert.display().to_string();
                match tls.reload() {
                    Ok(()) => eprintln!("serve: TLS reloaded from {cert} (SIGHUP)"),
                    Err(e) => {
                        eprintln!("serve: TLS not reloaded, still serving the old files: {e}")
                    }
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = tls;
    Ok(())
}

/// Installs the SIGTERM and ctrl-c handlers now and returns what completes on either. Called
/// before the URL is printed: a parent that signals as soon as it reads the URL must find the
/// handlers in place, or the default action kills the process with a failing status.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).context("serve: installing SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("serve: installing SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}
