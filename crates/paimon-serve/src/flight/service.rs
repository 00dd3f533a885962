//! [`FlightSqlServer`]: the Flight SQL service (arrow-flight's [`FlightSqlService`]).

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::error::FlightError;
use arrow_flight::flight_service_server::FlightService;
use arrow_flight::sql::server::{FlightSqlService, PeekableFlightDataStream};
use arrow_flight::sql::{
    ActionClosePreparedStatementRequest, ActionCreatePreparedStatementRequest,
    ActionCreatePreparedStatementResult, Any, CommandGetCatalogs, CommandGetDbSchemas,
    CommandGetPrimaryKeys, CommandGetSqlInfo, CommandGetTableTypes, CommandGetTables,
    CommandPreparedStatementQuery, CommandStatementQuery, CommandStatementUpdate,
    DoPutPreparedStatementResult, ProstMessageExt, SqlInfo, TicketStatementQuery,
};
use arrow_flight::{
    Action, FlightDescriptor, FlightEndpoint, FlightInfo, HandshakeRequest, HandshakeResponse,
    IpcMessage, SchemaAsIpc, Ticket,
};
use datafusion::error::DataFusionError;
use datafusion::physical_plan::{ExecutionPlan, SendableRecordBatchStream};
use futures::{Stream, StreamExt, TryStreamExt};
use paimon_datafusion::sql::CATALOG;
use paimon_datafusion::{PaimonCatalogProvider, PaimonScanExec};
use prost::bytes::Bytes;
use prost::Message;
use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status, Streaming};

use super::caller::{self, Caller};
use super::handle;
use super::limits::{self, Admission, QueryLimits};
use super::metadata::{self, SQL_INFO, TABLE_TYPE};
use super::query::{self, DENIED};
use super::split_ticket::{self, SplitTicket};
use super::worker::read_ticket;
use super::{query_auth, ticket};
use crate::auth::Users;
use crate::policy::Policies;

type DoGetStream = <FlightSqlServer as FlightService>::DoGetStream;

/// The Flight SQL service over one warehouse: its tables, the users who may read them
/// (`None`: everyone reads everything), and how many split groups a scan is planned into.
#[derive(Debug, Clone)]
pub struct FlightSqlServer {
    catalog: PaimonCatalogProvider,
    /// The warehouse's storage.
    io: paimon_rs::io::FileIORef,
    users: Option<Arc<Users>>,
    target_partitions: usize,
    /// Worker URLs scan endpoints name (round robin from `next_worker`); empty: none.
    workers: Arc<[String]>,
    next_worker: Arc<AtomicUsize>,
    policies: Arc<Policies>,
    /// The slots and memory of the queries run here.
    admission: Arc<Admission>,
}

impl FlightSqlServer {
    /// The service over the warehouse at `warehouse` (a local directory is made absolute, so
    /// scan tickets name absolute table directories), for `users`.
    ///
    /// # Errors
    /// When no storage serves the warehouse's scheme.
    pub fn new(warehouse: &str, users: Option<Users>) -> Result<Self, DataFusionError> {
        let local = std::path::Path::new(warehouse);
        let warehouse = match (warehouse.contains("://"), std::fs::canonicalize(local)) {
            (false, Ok(abs)) => abs.to_string_lossy().into_owned(),
            _ => warehouse.to_string(),
        };
        let io = paimon_rs::io::file_io_for(&warehouse)
            .map_err(|e| DataFusionError::Execution(format!("{warehouse}: {e}")))?;
        Ok(FlightSqlServer {
            catalog: PaimonCatalogProvider::with_io(Arc::clone(&io), &warehouse),
            io,
            users: users.map(Arc::new),
            target_partitions: std::thread::available_parallelism().map_or(4, |n| n.get()),
            workers: Arc::from(Vec::new()),
            next_worker: Arc::new(AtomicUsize::new(0)),
            policies: Arc::new(Policies::default()),
            admission: Arc::new(Admission::new(QueryLimits::default())),
        })
    }

    /// This service bounding its queries by `limits` (default [`QueryLimits::default`]).
    pub fn with_limits(mut self, limits: QueryLimits) -> Self {
        self.admission = Arc::new(Admission::new(limits));
        self
    }

    /// The bounds of this service's queries.
    pub fn limits(&self) -> QueryLimits {
        self.admission.limits()
    }

    /// This service applying `policies` (row filters and column masks per user and table)
    /// to every read.
    pub fn with_policies(mut self, policies: Policies) -> Self {
        self.policies = Arc::new(policies);
        self
    }

    /// This service planning scans into at most `n` split groups (endpoints); default: the
    /// cores available.
    pub fn with_target_partitions(mut self, n: usize) -> Self {
        self.target_partitions = n.max(1);
        self
    }

    /// This service naming `workers` (Flight URLs such as `grpc://host:port` of
    /// `paimon serve --worker-bind`) in scan endpoints, round robin, with split tickets
    /// ([`super::split_ticket`]) instead of scan tickets.
    pub fn with_workers(mut self, workers: Vec<String>) -> Self {
        self.workers = Arc::from(workers);
        self
    }

    /// The warehouse served.
    pub fn warehouse(&self) -> &str {
        self.catalog.warehouse()
    }

    fn caller<T>(&self, request: &Request<T>) -> Result<Caller, Status> {
        let c = caller::caller(self.users.as_deref(), request.metadata())?;
        let restricted = c.name().is_some_and(|u| self.policies.has_user(u));
        Ok(c.under_policy(restricted))
    }

    fn session(&self, caller: &Caller) -> datafusion::prelude::SessionContext {
        query::session(
            &self.catalog,
            caller,
            self.target_partitions,
            false,
            self.admission.runtime(),
        )
    }

    /// A scan-shaped query's node with the caller's rules in its splits; `None` (the query
    /// then runs on the server) unless it is scan-shaped, which a query over a table under
    /// the caller's policy must be.
    fn restricted_scan(
        &self,
        caller: &Caller,
        plan: &datafusion::logical_expr::LogicalPlan,
        shaped: Option<paimon_datafusion::ScanNode>,
    ) -> Result<Option<paimon_datafusion::ScanNode>, Status> {
        let shaped = shaped
            .filter(|_| !query_auth::scans_restricted_system_table(&self.policies, caller, plan));
        let Some(node) = shaped else {
            query_auth::refuse_unshaped(&self.policies, caller, plan).map_err(status)?;
            return Ok(None);
        };
        let (db, table) =
            ticket::table_of(self.catalog.warehouse(), &node.table_path).ok_or_else(|| {
                Status::internal(format!(
                    "the scan of {} is not of a table of the warehouse",
                    node.table_path
                ))
            })?;
        query_auth::restrict(&self.policies, caller, &self.io, node, &db, &table)
            .map(Some)
            .map_err(status)
    }

    /// The `FlightInfo` of the query of `handle` (its SQL, or its SQL and bound parameters:
    /// [`handle`]): one endpoint per split group when it is
    /// scan-shaped, else one that runs it again.
    async fn statement_info(
        &self,
        caller: &Caller,
        handle: Bytes,
        descriptor: FlightDescriptor,
    ) -> Result<FlightInfo, Status> {
        let ctx = self.session(caller);
        let df = plan_handle(&ctx, caller, &handle).await?;
        let schema = df.schema().as_arrow().clone();
        let physical = df.create_physical_plan().await.map_err(status)?;
        let shaped = query::scan_shaped(&physical, &Arc::new(schema.clone()));
        let node = self.restricted_scan(caller, df.logical_plan(), shaped)?;
        // A caller under a policy reads through this service's scan tickets, whose splits are
        // checked to carry the rules: workers refuse them (worker::read_ticket).
        let restricted = caller.name().is_some_and(|u| self.policies.has_user(u));
        if !restricted {
            if let Some(endpoints) = self.worker_endpoints(node.as_ref())? {
                return info_of_endpoints(&schema, descriptor, endpoints);
            }
        }
        let scan_tickets = node.and_then(|node| {
            node.partitions
                .iter()
                .filter(|g| !g.is_empty())
                .map(|g| ticket::encode(&node, g.clone()))
                .collect::<Result<Vec<_>, _>>()
                .ok()
        });
        let tickets = match scan_tickets {
            Some(t) => t,
            None => vec![command_ticket(TicketStatementQuery {
                statement_handle: handle,
            })],
        };
        info(&schema, descriptor, tickets)
    }

    /// The endpoints of a scan-shaped query's `node` on the workers (round robin), or `None`
    /// without workers or when the node cannot travel as split tickets.
    fn worker_endpoints(
        &self,
        node: Option<&paimon_datafusion::ScanNode>,
    ) -> Result<Option<Vec<FlightEndpoint>>, Status> {
        let Some(node) = node.filter(|_| !self.workers.is_empty()) else {
            return Ok(None);
        };
        let Some(tickets) = split_ticket::tickets_of_node(node, self.warehouse(), &self.io)
            .map_err(Status::internal)?
        else {
            return Ok(None);
        };
        let mut endpoints = Vec::with_capacity(tickets.len());
        for t in tickets {
            let i = self.next_worker.fetch_add(1, Ordering::Relaxed) % self.workers.len();
            let url = self.workers.get(i).cloned().unwrap_or_default();
            endpoints.push(
                FlightEndpoint::new()
                    .with_ticket(t.encode().map_err(|e| Status::internal(e.to_string()))?)
                    .with_location(url),
            );
        }
        Ok(Some(endpoints))
    }

    /// The rows of the query of `handle`, run as `caller`.
    async fn run(&self, caller: &Caller, handle: &[u8]) -> Result<DoGetStream, Status> {
        let slot = self.admission.admit().await?;
        let ctx = self.session(caller);
        let df = plan_handle(&ctx, caller, handle).await?;
        query_auth::refuse_unshaped(&self.policies, caller, df.logical_plan()).map_err(status)?;
        let stream = df.execute_stream().await.map_err(status)?;
        Ok(Box::pin(limits::holding(encode_stream(stream), slot)))
    }

    /// The rows of a scan ticket.
    async fn scan(&self, caller: &Caller, any: &Any) -> Result<DoGetStream, Status> {
        let slot = self.admission.admit().await?;
        let (node, db, table) = ticket::decode(any, self.catalog.warehouse()).map_err(status)?;
        if !caller.may_read(&db, &table) {
            return Err(Status::permission_denied(format!(
                "{DENIED} reading {db}.{table} needs the read grant on it"
            )));
        }
        query_auth::check_ticket(&self.policies, caller, &self.io, &node, &db, &table)
            .map_err(status)?;
        let groups = node.partitions.len();
        let exec =
            PaimonScanExec::try_new_with_io(node, Some(Arc::clone(&self.io))).map_err(status)?;
        let task = self.session(caller).task_ctx();
        let streams = (0..groups)
            .map(|i| exec.execute(i, Arc::clone(&task)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(status)?;
        let schema = exec.schema();
        let rows = futures::stream::iter(streams).flatten();
        Ok(Box::pin(limits::holding(
            encode(schema, Box::pin(rows)),
            slot,
        )))
    }
}

/// `status` for a DataFusion error: refusals for want of a grant are `PERMISSION_DENIED`,
/// a query over its memory `RESOURCE_EXHAUSTED`, planning errors (bad SQL, unknown tables, refused statements, bad tickets)
/// `INVALID_ARGUMENT`, the rest `INTERNAL`; the message on one line.
fn status(e: DataFusionError) -> Status {
    let text = e
        .to_string()
        .split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let root = e.find_root();
    if text.contains(DENIED) {
        Status::permission_denied(text)
    } else if matches!(root, DataFusionError::ResourcesExhausted(_))
        || text.contains("Resources exhausted")
    {
        Status::resource_exhausted(text)
    } else if matches!(
        root,
        DataFusionError::Plan(_)
            | DataFusionError::SQL(..)
            | DataFusionError::SchemaError(..)
            | DataFusionError::NotImplemented(_)
    ) {
        Status::invalid_argument(text)
    } else {
        Status::internal(text)
    }
}

/// The Flight data of `rows` (schema first).
fn encode(
    schema: SchemaRef,
    rows: Pin<Box<dyn Stream<Item = datafusion::error::Result<RecordBatch>> + Send>>,
) -> DoGetStream {
    // Errors keep their status (a query over its memory is RESOURCE_EXHAUSTED mid-stream too).
    let rows = rows.map_err(|e| FlightError::Tonic(Box::new(status(e))));
    Box::pin(
        FlightDataEncoderBuilder::new()
            .with_schema(schema)
            .build(rows)
            .map_err(Status::from),
    )
}

/// The Flight data of one batch.
fn encode_batch(batch: RecordBatch) -> DoGetStream {
    let schema = batch.schema();
    encode(schema, Box::pin(futures::stream::once(async { Ok(batch) })))
}

/// A record stream of a query as Flight data.
fn encode_stream(stream: SendableRecordBatchStream) -> DoGetStream {
    let schema = stream.schema();
    encode(schema, Box::pin(stream))
}

/// A `FlightInfo` of `schema` read through `tickets`.
fn info(
    schema: &arrow::datatypes::Schema,
    descriptor: FlightDescriptor,
    tickets: Vec<Ticket>,
) -> Result<FlightInfo, Status> {
    let endpoints = tickets
        .into_iter()
        .map(|t| FlightEndpoint::new().with_ticket(t))
        .collect();
    info_of_endpoints(schema, descriptor, endpoints)
}

/// A `FlightInfo` of `schema` read through `endpoints`.
fn info_of_endpoints(
    schema: &arrow::datatypes::Schema,
    descriptor: FlightDescriptor,
    endpoints: Vec<FlightEndpoint>,
) -> Result<FlightInfo, Status> {
    let mut info = FlightInfo::new()
        .try_with_schema(schema)
        .map_err(|e| Status::internal(format!("cannot encode the result schema: {e}")))?
        .with_descriptor(descriptor)
        .with_total_records(-1)
        .with_total_bytes(-1)
        .with_ordered(false);
    for e in endpoints {
        info = info.with_endpoint(e);
    }
    Ok(info)
}

/// The parameters `$1`, `$2`, ... of `plan` as a schema, in order, typed where DataFusion
/// infers a type (`Null` where it does not).
fn parameter_schema(
    plan: &datafusion::logical_expr::LogicalPlan,
) -> datafusion::error::Result<arrow::datatypes::Schema> {
    let types = plan.get_parameter_types()?;
    let mut named: Vec<(usize, String, arrow::datatypes::DataType)> = types
        .into_iter()
        .map(|(name, t)| {
            let position = name
                .strip_prefix('$')
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(usize::MAX);
            (
                position,
                name,
                t.unwrap_or(arrow::datatypes::DataType::Null),
            )
        })
        .collect();
    named.sort();
    Ok(arrow::datatypes::Schema::new(
        named
            .into_iter()
            .map(|(_, name, t)| arrow::datatypes::Field::new(name, t, true))
            .collect::<Vec<_>>(),
    ))
}

/// Plans the statement of `handle` as `caller`, with the parameters bound to it.
async fn plan_handle(
    ctx: &datafusion::prelude::SessionContext,
    caller: &Caller,
    handle: &[u8],
) -> Result<datafusion::prelude::DataFrame, Status> {
    let h = handle::decode(handle)?;
    let df = query::plan(ctx, caller, &h.sql).await.map_err(status)?;
    match h.parameters {
        None => Ok(df),
        Some(values) => df.with_param_values(values).map_err(status),
    }
}

/// The ticket that runs a Flight SQL command (a metadata call) again at `DoGet`.
fn command_ticket(command: impl ProstMessageExt) -> Ticket {
    Ticket::new(command.as_any().encode_to_vec())
}

type HandshakeStream = Pin<Box<dyn Stream<Item = Result<HandshakeResponse, Status>> + Send>>;

#[tonic::async_trait]
impl FlightSqlService for FlightSqlServer {
    type FlightService = FlightSqlServer;

    async fn do_handshake(
        &self,
        request: Request<Streaming<HandshakeRequest>>,
    ) -> Result<Response<HandshakeStream>, Status> {
        let token = caller::handshake(self.users.as_deref(), request.metadata())?;
        let reply = HandshakeResponse {
            protocol_version: 0,
            payload: token.clone().into(),
        };
        let mut response: Response<HandshakeStream> =
            Response::new(Box::pin(futures::stream::iter([Ok(reply)])));
        if !token.is_empty() {
            let value = MetadataValue::try_from(format!("Bearer {token}"))
                .map_err(|_| Status::unauthenticated("a token that is no header value"))?;
            response.metadata_mut().insert("authorization", value);
        }
        Ok(response)
    }

    async fn get_flight_info_statement(
        &self,
        query: CommandStatementQuery,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let caller = self.caller(&request)?;
        let info = self
            .statement_info(
                &caller,
                query.query.into_bytes().into(),
                request.into_inner(),
            )
            .await?;
        Ok(Response::new(info))
    }

    async fn get_flight_info_prepared_statement(
        &self,
        query: CommandPreparedStatementQuery,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let caller = self.caller(&request)?;
        let info = self
            .statement_info(
                &caller,
                query.prepared_statement_handle,
                request.into_inner(),
            )
            .await?;
        Ok(Response::new(info))
    }

    async fn do_get_prepared_statement(
        &self,
        query: CommandPreparedStatementQuery,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        let caller = self.caller(&request)?;
        Ok(Response::new(
            self.run(&caller, &query.prepared_statement_handle).await?,
        ))
    }

    async fn do_action_create_prepared_statement(
        &self,
        query: ActionCreatePreparedStatementRequest,
        request: Request<Action>,
    ) -> Result<ActionCreatePreparedStatementResult, Status> {
        let caller = self.caller(&request)?;
        let ctx = self.session(&caller);
        let df = query::plan(&ctx, &caller, &query.query)
            .await
            .map_err(status)?;
        let message: IpcMessage = SchemaAsIpc::new(
            df.schema().as_arrow(),
            &arrow::ipc::writer::IpcWriteOptions::default(),
        )
        .try_into()
        .map_err(|e| Status::internal(format!("cannot encode the result schema: {e}")))?;
        let IpcMessage(dataset_schema) = message;
        let parameters = parameter_schema(df.logical_plan()).map_err(status)?;
        let parameter_schema = if parameters.fields().is_empty() {
            Default::default()
        } else {
            let IpcMessage(p) =
                SchemaAsIpc::new(&parameters, &arrow::ipc::writer::IpcWriteOptions::default())
                    .try_into()
                    .map_err(|e| {
                        Status::internal(format!("cannot encode the parameter schema: {e}"))
                    })?;
            p
        };
        Ok(ActionCreatePreparedStatementResult {
            prepared_statement_handle: query.query.into_bytes().into(),
            dataset_schema,
            parameter_schema,
        })
    }

    async fn do_action_close_prepared_statement(
        &self,
        _query: ActionClosePreparedStatementRequest,
        request: Request<Action>,
    ) -> Result<(), Status> {
        // A handle is its statement: nothing is held for it.
        self.caller(&request)?;
        Ok(())
    }

    async fn do_get_statement(
        &self,
        ticket: TicketStatementQuery,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        let caller = self.caller(&request)?;
        Ok(Response::new(
            self.run(&caller, &ticket.statement_handle).await?,
        ))
    }

    async fn do_get_fallback(
        &self,
        request: Request<Ticket>,
        message: Any,
    ) -> Result<Response<DoGetStream>, Status> {
        let caller = self.caller(&request)?;
        if message.type_url == split_ticket::SPLIT_TICKET_TYPE {
            let ticket = SplitTicket::decode_any(&message)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
            let slot = self.admission.admit().await?;
            let rows = read_ticket(self.warehouse(), &self.io, &caller, &self.policies, &ticket)?;
            return Ok(Response::new(Box::pin(limits::holding(rows, slot))));
        }
        Ok(Response::new(self.scan(&caller, &message).await?))
    }

    async fn get_flight_info_catalogs(
        &self,
        query: CommandGetCatalogs,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.caller(&request)?;
        let schema = query.into_builder().schema();
        let t = command_ticket(query);
        Ok(Response::new(info(&schema, request.into_inner(), vec![t])?))
    }

    async fn do_get_catalogs(
        &self,
        query: CommandGetCatalogs,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.caller(&request)?;
        let mut builder = query.into_builder();
        builder.append(CATALOG);
        let batch = builder
            .build()
            .map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(encode_batch(batch)))
    }

    async fn get_flight_info_schemas(
        &self,
        query: CommandGetDbSchemas,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.caller(&request)?;
        let schema = query.clone().into_builder().schema();
        let t = command_ticket(query);
        Ok(Response::new(info(&schema, request.into_inner(), vec![t])?))
    }

    async fn do_get_schemas(
        &self,
        query: CommandGetDbSchemas,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        let caller = self.caller(&request)?;
        let batch = metadata::db_schemas(&self.catalog, &caller, query).map_err(status)?;
        Ok(Response::new(encode_batch(batch)))
    }

    async fn get_flight_info_tables(
        &self,
        query: CommandGetTables,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.caller(&request)?;
        let schema = query.clone().into_builder().schema();
        let t = command_ticket(query);
        Ok(Response::new(info(&schema, request.into_inner(), vec![t])?))
    }

    async fn do_get_tables(
        &self,
        query: CommandGetTables,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        let caller = self.caller(&request)?;
        let batch = metadata::tables(&self.catalog, &caller, query)
            .await
            .map_err(status)?;
        Ok(Response::new(encode_batch(batch)))
    }

    async fn get_flight_info_table_types(
        &self,
        query: CommandGetTableTypes,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.caller(&request)?;
        let schema = query.into_builder().schema();
        let t = command_ticket(query);
        Ok(Response::new(info(&schema, request.into_inner(), vec![t])?))
    }

    async fn do_get_table_types(
        &self,
        query: CommandGetTableTypes,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.caller(&request)?;
        let mut builder = query.into_builder();
        builder.append(TABLE_TYPE);
        let batch = builder
            .build()
            .map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(encode_batch(batch)))
    }

    async fn get_flight_info_sql_info(
        &self,
        query: CommandGetSqlInfo,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.caller(&request)?;
        let data = SQL_INFO.as_ref().map_err(|e| Status::internal(e.clone()))?;
        let schema = query.clone().into_builder(data).schema();
        let t = command_ticket(query);
        Ok(Response::new(info(&schema, request.into_inner(), vec![t])?))
    }

    async fn do_get_sql_info(
        &self,
        query: CommandGetSqlInfo,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.caller(&request)?;
        let data = SQL_INFO.as_ref().map_err(|e| Status::internal(e.clone()))?;
        let batch = query
            .into_builder(data)
            .build()
            .map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(encode_batch(batch)))
    }

    async fn get_flight_info_primary_keys(
        &self,
        query: CommandGetPrimaryKeys,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.caller(&request)?;
        let schema = metadata::primary_keys_schema();
        let t = command_ticket(query);
        Ok(Response::new(info(&schema, request.into_inner(), vec![t])?))
    }

    async fn do_get_primary_keys(
        &self,
        query: CommandGetPrimaryKeys,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        let caller = self.caller(&request)?;
        let batch = metadata::primary_keys(&self.catalog, &caller, &query).map_err(status)?;
        Ok(Response::new(encode_batch(batch)))
    }

    async fn do_put_statement_update(
        &self,
        query: CommandStatementUpdate,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<i64, Status> {
        let caller = self.caller(&request)?;
        let _slot = self.admission.admit().await?;
        let ctx = query::session(
            &self.catalog,
            &caller,
            self.target_partitions,
            true,
            self.admission.runtime(),
        );
        let df = query::plan_update(&ctx, &caller, &query.query)
            .await
            .map_err(status)?;
        query_auth::refuse_unshaped(&self.policies, &caller, df.logical_plan()).map_err(status)?;
        let batches = df.collect().await.map_err(status)?;
        let mut rows: i64 = 0;
        for b in &batches {
            if let Some(col) = b.column_by_name("count") {
                let counts = arrow::compute::cast(col, &arrow::datatypes::DataType::Int64)
                    .map_err(|e| Status::internal(e.to_string()))?;
                if let Some(c) = counts.as_any().downcast_ref::<arrow::array::Int64Array>() {
                    rows = rows.saturating_add(c.iter().flatten().sum::<i64>());
                }
            }
        }
        Ok(rows)
    }

    async fn do_put_prepared_statement_query(
        &self,
        query: CommandPreparedStatementQuery,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<DoPutPreparedStatementResult, Status> {
        self.caller(&request)?;
        let h = handle::decode(&query.prepared_statement_handle)?;
        let batch = handle::read_parameters(request.into_inner()).await?;
        handle::parameter_values(&batch)?;
        Ok(DoPutPreparedStatementResult {
            prepared_statement_handle: Some(handle::encode(&h.sql, &batch)?.into()),
        })
    }

    async fn register_sql_info(&self, _id: i32, _result: &SqlInfo) {}
}
