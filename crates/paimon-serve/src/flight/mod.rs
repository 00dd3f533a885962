//! Arrow Flight SQL over the catalog: `paimon serve --flight-bind HOST:PORT`.
//!
//! Clients (ADBC's `adbc-driver-flightsql`, the Arrow Flight SQL JDBC driver, `pyarrow.flight`)
//! run our SQL (paimon-datafusion) over the warehouse's tables, named `db.table`:
//!
//! - `CommandStatementQuery`: `GetFlightInfo` plans the query as the caller. A scan-shaped
//!   query (projection, filter, limit over one table, nothing left to compute after the scan)
//!   gets **one endpoint per split group**: its ticket is a scan ticket ([`ticket`]), the
//!   scan node of paimon-datafusion (Java `SPLIT_V1` split bytes plus the read options), so a
//!   client reads the groups in parallel (ADBC `execute_partitions` / `read_partition`).
//!   Any other query gets one endpoint whose ticket holds the statement, run again at `DoGet`.
//! - Prepared statements without parameters (the JDBC driver prepares every statement): the
//!   handle is the statement's text, planned again as the caller at each call.
//! - `CommandStatementUpdate` (`DoPut`): `INSERT INTO` / `INSERT OVERWRITE`, one commit per
//!   statement, into tables the caller may write (`write` grant); the answer is the row count.
//! - Catalog metadata: `GetCatalogs` (one catalog, `paimon`), `GetDbSchemas` (databases),
//!   `GetTables` (with Arrow schemas on request), `GetTableTypes`, `GetPrimaryKeys`,
//!   `GetSqlInfo`.
//! - Auth ([`crate::auth`]): a bearer token in the `authorization` header, or the basic-auth
//!   handshake (user name and token as password), which answers with the bearer token. A
//!   query needs `read` on every table it scans; listings show only what the caller may
//!   read. Without `--auth` every caller reads and writes every table.
//! - Row filters and column masks ([`crate::policy`], [`FlightSqlServer::with_policies`]): a
//!   caller under a policy on a table gets scan tickets whose splits carry its rules (Java
//!   query-auth splits, applied by whichever reader reads them); a ticket without them and
//!   any query over the table that is not scan-shaped are refused.
//! - The SQL reads the warehouse and nothing else ([`paimon_datafusion::sql::SqlPolicy`]):
//!   `CREATE EXTERNAL TABLE`, `COPY` and file-reading table functions are refused, as is DDL;
//!   queries never write (only updates do).
//!
//! - Workers (`--workers URL,URL`, [`FlightSqlServer::with_workers`]): a scan-shaped query's
//!   endpoints name the workers round robin and carry split tickets ([`split_ticket`]: split
//!   bytes plus read options) that a worker ([`worker`], `paimon serve --worker-bind`) reads.
//!   The planner reads split tickets too.
//!
//! Tickets come back from clients: a scan ticket is decoded as untrusted bytes (its table
//! must lie in the warehouse, its splits' files in the table: the reader's path rules), and
//! a bad ticket is an error for that call only.

mod caller;
pub(crate) mod handle;
mod limits;
mod metadata;
mod query;
mod query_auth;
mod service;
pub mod split_ticket;
pub mod ticket;
pub mod worker;

use std::future::Future;

use arrow_flight::flight_service_server::FlightServiceServer;
use tokio::net::TcpListener;

use crate::tls::{serve_grpc, TlsConfig};

pub use limits::QueryLimits;
pub use service::FlightSqlServer;
pub use worker::{serve_worker, FlightWorker};

/// Serves Flight SQL on `listener`, over TLS with `tls` (`grpc+tls://`), until `shutdown`
/// completes (calls in flight finish).
///
/// # Errors
/// When the transport fails.
pub async fn serve_flight(
    server: FlightSqlServer,
    listener: TcpListener,
    tls: Option<&TlsConfig>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let router = tonic::transport::Server::builder().add_service(FlightServiceServer::new(server));
    serve_grpc(router, listener, tls, shutdown).await
}
