//! The REST catalog server: Paimon's REST API 1.0 as Java's `RESTCatalog` and pypaimon's
//! REST catalog speak it, over any catalog paimon-rs opens.
//!
//! Clients name the warehouse by its name (`GET /v1/config?warehouse=NAME`), which the
//! server returns as the `prefix` of every other path. Bearer tokens come from
//! [`crate::auth::Users`] (none configured: no authentication); a missing or unknown token
//! is a 401, a grant too small a 403. Errors are Java's `ErrorResponse` JSON with the status
//! codes Java's client maps to its exceptions; malformed JSON is a 400 and bodies are bounded
//! (413 beyond [`RestConfig::max_body_bytes`]). Catalog calls run on tokio's blocking pool.
//! `GET /metrics` (no token needed; it names endpoints, never objects) counts requests, errors
//! and latency per endpoint in Prometheus' text format.

mod error;
mod metrics;
mod paging;
mod request;
mod routes;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use paimon_rs::meta::catalog::Catalog;

pub use error::ApiError;
pub use routes::Service;

use crate::auth::Users;
use crate::policy::Policies;
use crate::tls::{Alpn, TlsConfig, TlsListener};
use request::Request;

/// How the REST server runs.
#[derive(Debug, Clone)]
pub struct RestConfig {
    /// The warehouse's name: what clients send as `warehouse` and the paths' prefix.
    pub warehouse_name: String,
    /// Who may do what; empty: no authentication.
    pub users: Users,
    /// The largest request body accepted.
    pub max_body_bytes: usize,
    /// Row filters and column masks per user and table (the `auth` endpoint).
    pub policies: Policies,
    /// Serve HTTPS with this certificate; `None`: plain HTTP.
    pub tls: Option<TlsConfig>,
}

impl RestConfig {
    /// A configuration without authentication and with an 8 MiB body bound.
    pub fn new(warehouse_name: impl Into<String>) -> Self {
        RestConfig {
            warehouse_name: warehouse_name.into(),
            users: Users::default(),
            max_body_bytes: 8 << 20,
            policies: Policies::default(),
            tls: None,
        }
    }
}

/// The default warehouse name: the last component of the warehouse location
/// (`/data/wh/` and `s3://b/wh` both give `wh`); `warehouse` when there is none.
pub fn default_warehouse_name(location: &str) -> String {
    location
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty() && !s.ends_with(':'))
        .unwrap_or("warehouse")
        .to_string()
}

struct Shared {
    service: Service,
    users: Users,
    metrics: metrics::Metrics,
}

/// A bound REST server, not yet serving.
pub struct RestServer {
    listener: tokio::net::TcpListener,
    router: Router,
    tls: Option<TlsConfig>,
}

impl std::fmt::Debug for RestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestServer")
            .field("addr", &self.listener.local_addr().ok())
            .finish()
    }
}

impl RestServer {
    /// Binds `addr` (`HOST:PORT`; port 0 picks a free one) for `catalog`.
    ///
    /// # Errors
    /// The bind's I/O error.
    pub async fn bind(
        addr: &str,
        catalog: Arc<dyn Catalog>,
        config: RestConfig,
    ) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let shared = Arc::new(Shared {
            service: Service::new(catalog, config.warehouse_name).with_policies(config.policies),
            users: config.users,
            metrics: metrics::Metrics::default(),
        });
        let router = Router::new()
            .fallback(handle)
            .with_state(shared)
            .layer(DefaultBodyLimit::max(config.max_body_bytes));
        Ok(RestServer {
            listener,
            router,
            tls: config.tls,
        })
    }

    /// The address bound.
    ///
    /// # Errors
    /// The socket's I/O error.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The URL clients use (`uri` of a REST catalog): `https://` with TLS.
    ///
    /// # Errors
    /// The socket's I/O error.
    pub fn url(&self) -> std::io::Result<String> {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        Ok(format!("{scheme}://{}", self.local_addr()?))
    }

    /// Serves until `shutdown` completes, then finishes the requests in flight.
    ///
    /// # Errors
    /// The server's I/O error.
    pub async fn serve(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        match self.tls {
            None => {
                axum::serve(self.listener, self.router)
                    .with_graceful_shutdown(shutdown)
                    .await
            }
            Some(tls) => {
                let listener = TlsListener::new(self.listener, tls, Alpn::Http);
                axum::serve(listener, self.router)
                    .with_graceful_shutdown(shutdown)
                    .await
            }
        }
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if uri.path() == "/metrics" && method == Method::GET {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
            shared.metrics.render(),
        )
            .into_response();
    }
    let started = std::time::Instant::now();
    let answer = match request(&shared, &method, &uri, &headers, body) {
        Ok(req) => {
            let shared = Arc::clone(&shared);
            match tokio::task::spawn_blocking(move || shared.service.handle(&req)).await {
                Ok(a) => a,
                Err(e) => Err(ApiError::new(500, format!("the request failed: {e}"))),
            }
        }
        Err(e) => Err(e),
    };
    let (status, body) = match answer {
        Ok(v) => (200, v),
        Err(e) => (e.status, e.body()),
    };
    shared
        .metrics
        .record(method.as_str(), uri.path(), status, started.elapsed());
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The request as the handlers see it, after authentication.
fn request(
    shared: &Shared,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Bytes,
) -> Result<Request, ApiError> {
    let user = if shared.users.is_empty() {
        None
    } else {
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or_else(|| ApiError::new(401, "no bearer token"))?;
        let user = shared
            .users
            .authenticate(token)
            .ok_or_else(|| ApiError::new(401, "unknown bearer token"))?;
        Some(user.clone())
    };
    parts(
        method.as_str(),
        uri.path(),
        uri.query(),
        user,
        body.to_vec(),
    )
}

/// A request from its parts as they arrive: the path (`/v1/...`) and query still
/// percent-encoded.
fn parts(
    method: &str,
    path: &str,
    query: Option<&str>,
    user: Option<crate::auth::User>,
    body: Vec<u8>,
) -> Result<Request, ApiError> {
    let Some(rest) = path.strip_prefix("/v1/") else {
        return Err(ApiError::new(404, format!("no resource {path}")));
    };
    Ok(Request {
        method: method.to_string(),
        segments: rest
            .split('/')
            .map(request::decode)
            .collect::<Result<_, _>>()?,
        query: request::parse_query(query)?,
        user,
        body,
    })
}

/// Answers one request given as its parts (the path `/v1/...` and the query still
/// percent-encoded, the body's bytes) as the server answers it without `--auth`: the JSON of
/// a 200, or the error. What the fuzz crate (`fuzz/fuzz_targets/rest_request.rs`) drives.
///
/// # Errors
/// The error the server would answer with.
pub fn answer(
    service: &Service,
    method: &str,
    path: &str,
    query: Option<&str>,
    body: Vec<u8>,
) -> Result<serde_json::Value, ApiError> {
    service.handle(&parts(method, path, query, None, body)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warehouse_names() {
        assert_eq!(default_warehouse_name("/data/wh/"), "wh");
        assert_eq!(default_warehouse_name("s3://b/wh"), "wh");
        assert_eq!(default_warehouse_name("/"), "warehouse");
        assert_eq!(default_warehouse_name("s3://"), "warehouse");
    }
}
