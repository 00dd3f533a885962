//! [`FlightWorker`]: `paimon serve WAREHOUSE --worker-bind HOST:PORT`, an Arrow Flight service
//! that serves only `DoGet(split ticket)` ([`super::split_ticket`]): the rows of a split group
//! of a table of its warehouse, read with the ticket's read options through the facade's
//! [`SplitRead`]. A planner started with `--workers URL,URL` names workers in its scan
//! endpoints (round robin), so clients read the groups from the workers.
//!
//! Tickets come from clients: a worker decodes each as untrusted bytes, reads only
//! `<warehouse>/<database>.db/<table>` and, in it, only files inside the table's roots (the
//! reader's path rule); a bad ticket is an error for that call only and the worker keeps
//! serving. With `--auth`, a caller needs the `read` grant on the ticket's table (bearer
//! token).

use std::pin::Pin;
use std::sync::Arc;

use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::error::FlightError;
use arrow_flight::flight_service_server::{FlightService, FlightServiceServer};
use arrow_flight::{
    Action, ActionType, Criteria, Empty, FlightData, FlightDescriptor, FlightInfo,
    HandshakeRequest, HandshakeResponse, PollInfo, PutResult, SchemaResult, Ticket,
};
use futures::{Stream, TryStreamExt};
use paimon_rs::io::FileIORef;
use paimon_rs::SplitRead;
use tokio::net::TcpListener;
use tonic::{Request, Response, Status, Streaming};

use super::caller::{self, Caller};
use super::limits::{self, Admission, QueryLimits};
use super::query::DENIED;
use super::split_ticket::SplitTicket;
use crate::auth::Users;
use crate::policy::Policies;
use crate::tls::{serve_grpc, TlsConfig};

type Boxed<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// A worker over one warehouse: it reads split tickets' splits of the warehouse's tables.
#[derive(Debug, Clone)]
pub struct FlightWorker {
    warehouse: String,
    io: FileIORef,
    users: Option<Arc<Users>>,
    policies: Arc<Policies>,
    /// The slots of the split tickets read at once (memory is bounded by the reader's own).
    admission: Arc<Admission>,
}

impl FlightWorker {
    /// The worker over the warehouse at `warehouse` (a local directory is made absolute), for
    /// `users` (`None`: everyone reads everything).
    ///
    /// # Errors
    /// When no storage serves the warehouse's scheme.
    pub fn new(warehouse: &str, users: Option<Users>) -> Result<Self, paimon_rs::Error> {
        let warehouse = absolute(warehouse);
        Ok(FlightWorker {
            io: paimon_rs::io::file_io_for(&warehouse)?,
            warehouse,
            users: users.map(Arc::new),
            policies: Arc::new(Policies::default()),
            admission: Arc::new(Admission::new(QueryLimits::default())),
        })
    }

    /// This worker reading at most `limits.concurrent` split tickets at once, with
    /// `limits.queued` more waiting (`memory_per_query` does not apply: a split's read is
    /// bounded by the reader's own memory bounds).
    pub fn with_limits(mut self, limits: QueryLimits) -> Self {
        self.admission = Arc::new(Admission::new(limits));
        self
    }

    /// This worker knowing `policies`: it refuses split tickets of a table under the caller's
    /// policy (those are read through the planner's scan tickets, which carry the rules).
    pub fn with_policies(mut self, policies: Policies) -> Self {
        self.policies = Arc::new(policies);
        self
    }

    /// The warehouse served.
    pub fn warehouse(&self) -> &str {
        &self.warehouse
    }
}

/// `warehouse` as the Flight services name it: a local directory made absolute.
pub(crate) fn absolute(warehouse: &str) -> String {
    match (
        warehouse.contains("://"),
        std::fs::canonicalize(std::path::Path::new(warehouse)),
    ) {
        (false, Ok(abs)) => abs.to_string_lossy().into_owned(),
        _ => warehouse.trim_end_matches('/').to_string(),
    }
}

/// The rows of `ticket`'s splits of a table of `warehouse` as Flight data, read as `caller`.
///
/// # Errors
/// `INVALID_ARGUMENT` for a ticket or read options that do not decode, or a split that is
/// not one; `PERMISSION_DENIED` without the read grant; `INVALID_ARGUMENT` when the table's
/// schema cannot give the output (no such table, an unknown column). Errors while reading
/// (a file outside the table, damaged files) end the stream with an error.
pub(crate) fn read_ticket(
    warehouse: &str,
    io: &FileIORef,
    caller: &Caller,
    policies: &Policies,
    ticket: &SplitTicket,
) -> Result<Boxed<FlightData>, Status> {
    if !caller.may_read(&ticket.database, &ticket.table) {
        return Err(Status::permission_denied(format!(
            "{DENIED} reading {}.{} needs the read grant on it",
            ticket.database, ticket.table
        )));
    }
    // Split tickets carry no proof of the caller's row filters and column masks: a table under
    // the caller's policy is read only through the planner's checked scan tickets.
    if let Some(user) = caller.name() {
        if policies
            .policy(user, &ticket.database, &ticket.table)
            .is_some()
        {
            return Err(Status::permission_denied(format!(
                "{DENIED} {}.{} is read under row filters and column masks: read it through \
                 the planner's scan tickets, not a split ticket",
                ticket.database, ticket.table
            )));
        }
    }
    let path = format!("{warehouse}/{}.db/{}", ticket.database, ticket.table);
    let invalid = |e: paimon_rs::Error| Status::invalid_argument(one_line(&e.chain()));
    let read = SplitRead::from_bytes(Arc::clone(io), &path, &ticket.options).map_err(invalid)?;
    let schema = read.output_schema().map_err(invalid)?;
    let rows = read.stream_bytes(&ticket.splits).map_err(invalid)?;
    let rows = rows.map_err(|e| FlightError::ExternalError(Box::new(e)));
    Ok(Box::pin(
        FlightDataEncoderBuilder::new()
            .with_schema(schema)
            .build(rows)
            .map_err(|e| match e {
                FlightError::ExternalError(e) => {
                    Status::internal(one_line(&paimon_rs::error::chain_of(e.as_ref())))
                }
                other => Status::from(other),
            }),
    ))
}

fn one_line(text: &str) -> String {
    text.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn only_do_get<T>(call: &str) -> Result<T, Status> {
    Err(Status::unimplemented(format!(
        "{call}: a paimon worker serves only DoGet of split tickets; ask the planner \
         (paimon serve --flight-bind) for the rest"
    )))
}

#[tonic::async_trait]
impl FlightService for FlightWorker {
    type HandshakeStream = Boxed<HandshakeResponse>;
    type ListFlightsStream = Boxed<FlightInfo>;
    type DoGetStream = Boxed<FlightData>;
    type DoPutStream = Boxed<PutResult>;
    type DoExchangeStream = Boxed<FlightData>;
    type DoActionStream = Boxed<arrow_flight::Result>;
    type ListActionsStream = Boxed<ActionType>;

    async fn handshake(
        &self,
        _request: Request<Streaming<HandshakeRequest>>,
    ) -> Result<Response<Self::HandshakeStream>, Status> {
        only_do_get("Handshake (a worker takes the bearer token of `authorization`)")
    }

    async fn list_flights(
        &self,
        _request: Request<Criteria>,
    ) -> Result<Response<Self::ListFlightsStream>, Status> {
        only_do_get("ListFlights")
    }

    async fn get_flight_info(
        &self,
        _request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        only_do_get("GetFlightInfo")
    }

    async fn poll_flight_info(
        &self,
        _request: Request<FlightDescriptor>,
    ) -> Result<Response<PollInfo>, Status> {
        only_do_get("PollFlightInfo")
    }

    async fn get_schema(
        &self,
        _request: Request<FlightDescriptor>,
    ) -> Result<Response<SchemaResult>, Status> {
        only_do_get("GetSchema")
    }

    async fn do_get(
        &self,
        request: Request<Ticket>,
    ) -> Result<Response<Self::DoGetStream>, Status> {
        let caller = caller::caller(self.users.as_deref(), request.metadata())?;
        let ticket = SplitTicket::decode(&request.get_ref().ticket)
            .map_err(|e| Status::invalid_argument(e.to_string()))?;
        let slot = self.admission.admit().await?;
        let rows = read_ticket(&self.warehouse, &self.io, &caller, &self.policies, &ticket)?;
        Ok(Response::new(Box::pin(limits::holding(rows, slot))))
    }

    async fn do_put(
        &self,
        _request: Request<Streaming<FlightData>>,
    ) -> Result<Response<Self::DoPutStream>, Status> {
        only_do_get("DoPut")
    }

    async fn do_exchange(
        &self,
        _request: Request<Streaming<FlightData>>,
    ) -> Result<Response<Self::DoExchangeStream>, Status> {
        only_do_get("DoExchange")
    }

    async fn do_action(
        &self,
        _request: Request<Action>,
    ) -> Result<Response<Self::DoActionStream>, Status> {
        only_do_get("DoAction")
    }

    async fn list_actions(
        &self,
        _request: Request<Empty>,
    ) -> Result<Response<Self::ListActionsStream>, Status> {
        Ok(Response::new(Box::pin(futures::stream::empty())))
    }
}

/// Serves the worker on `listener`, over TLS with `tls` (`grpc+tls://`), until `shutdown`
/// completes (calls in flight finish).
///
/// # Errors
/// When the transport fails.
pub async fn serve_worker(
    worker: FlightWorker,
    listener: TcpListener,
    tls: Option<&TlsConfig>,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let router = tonic::transport::Server::builder().add_service(FlightServiceServer::new(worker));
    serve_grpc(router, listener, tls, shutdown).await
}
