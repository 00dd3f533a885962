//! The HTTP side of the REST catalog (Java `HttpClient` + `DefaultErrorHandler`): JSON
//! requests with the bearer token or a DLF signature and `header.*` headers, failures mapped
//! to typed errors,
//! idempotent calls (GET) retried on 5xx with a bounded backoff, connections that fail
//! reported at once (connect timeout of a few seconds).

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;

use super::dlf::{DlfAuth, SignRequest};
use crate::error::{CatalogFailure, Error, Result};

/// How long a connection may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one request may take in all.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// Attempts of an idempotent call that gets a 5xx.
const GET_ATTEMPTS: u32 = 3;

/// The object a call is about, for errors: `database db`, `table db.t`.
#[derive(Debug, Clone)]
pub(crate) struct Object {
    pub(crate) kind: &'static str,
    pub(crate) name: String,
}

impl Object {
    pub(crate) fn database(name: &str) -> Self {
        Object {
            kind: "database",
            name: name.to_string(),
        }
    }

    pub(crate) fn table(name: impl Into<String>) -> Self {
        Object {
            kind: "table",
            name: name.into(),
        }
    }

    /// A table's tag (`tag db.t:name`): a 404 about it is the tag missing.
    pub(crate) fn tag(table: &crate::catalog::Identifier, name: &str) -> Self {
        Object {
            kind: "tag",
            name: format!("{}:{name}", table.full_table_name()),
        }
    }

    /// A table's branch (`branch db.t:name`).
    pub(crate) fn branch(table: &crate::catalog::Identifier, name: &str) -> Self {
        Object {
            kind: "branch",
            name: format!("{}:{name}", table.full_table_name()),
        }
    }

    pub(crate) fn catalog() -> Self {
        Object {
            kind: "catalog",
            name: String::new(),
        }
    }
}

/// HTTP methods the API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// A REST catalog server's address, headers and HTTP client.
#[derive(Debug, Clone)]
pub(crate) struct RestClient {
    uri: String,
    headers: Vec<(String, String)>,
    /// Signs every request (`token.provider = dlf`); shared by the clones, which share its
    /// token.
    dlf: Option<Arc<DlfAuth>>,
    http: reqwest::Client,
}

impl RestClient {
    /// A client of `uri` sending `headers` (a bearer `Authorization` header among them), each
    /// request signed by `dlf` when given.
    ///
    /// # Errors
    /// [`CatalogFailure::InvalidOptions`] for a URI or header reqwest refuses.
    pub(crate) fn new(
        uri: &str,
        headers: BTreeMap<String, String>,
        dlf: Option<DlfAuth>,
    ) -> Result<Self> {
        let uri = uri.trim().trim_end_matches('/');
        let uri = if uri.contains("://") {
            uri.to_string()
        } else {
            format!("http://{uri}")
        };
        let invalid = |r: String| Error::catalog(&uri, CatalogFailure::InvalidOptions, "client", r);
        let http = http_client(CONNECT_TIMEOUT, REQUEST_TIMEOUT).map_err(invalid)?;
        Ok(RestClient {
            uri,
            headers: headers.into_iter().collect(),
            dlf: dlf.map(Arc::new),
            http,
        })
    }

    /// The server's base URI.
    pub(crate) fn uri(&self) -> &str {
        &self.uri
    }

    /// Adds headers (the server's `header.*` defaults after the handshake).
    pub(crate) fn add_headers(&mut self, headers: impl IntoIterator<Item = (String, String)>) {
        for (k, v) in headers {
            if !self.headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(&k)) {
                self.headers.push((k, v));
            }
        }
    }

    /// `GET path?query`, retried on 5xx and lost connections after the first answer.
    pub(crate) fn get(&self, path: &str, query: &[(&str, &str)], about: &Object) -> Result<Value> {
        self.call(Method::Get, path, query, None, about)
    }

    /// `POST path` with a JSON body (not retried: the outcome of a lost POST is unknown).
    pub(crate) fn post(&self, path: &str, body: &Value, about: &Object) -> Result<Value> {
        self.call(Method::Post, path, &[], Some(body), about)
    }

    /// `DELETE path`.
    pub(crate) fn delete(&self, path: &str, about: &Object) -> Result<Value> {
        self.call(Method::Delete, path, &[], None, about)
    }

    fn call(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&Value>,
        about: &Object,
    ) -> Result<Value> {
        let mut url = format!("{}{}", self.uri, path);
        for (i, (k, v)) in query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(&super::paths::encode(k));
            url.push('=');
            url.push_str(&super::paths::encode(v));
        }
        let what = format!("{} {}", method.name(), path);
        let attempts = if method == Method::Get {
            GET_ATTEMPTS
        } else {
            1
        };
        // Serialized once: the bytes sent are the bytes a DLF signature's Content-MD5 covers.
        let body = body.map(Value::to_string);
        let mut last = None;
        for attempt in 0..attempts {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(200 << attempt));
            }
            // Signed again for every attempt: the signature covers the time.
            let signed = match &self.dlf {
                Some(dlf) => dlf.headers(&SignRequest {
                    method: method.name(),
                    path,
                    query,
                    body: body.as_deref(),
                })?,
                None => Vec::new(),
            };
            match self.send(method, &url, body.clone(), &signed) {
                Err(reason) => {
                    // Nothing answered: report at once rather than after minutes of retries.
                    return Err(Error::catalog(
                        &self.uri,
                        CatalogFailure::Unreachable,
                        what,
                        reason,
                    ));
                }
                Ok((status, text)) if (200..300).contains(&status) => {
                    return parse_body(&self.uri, &what, &text);
                }
                Ok((status, text)) => {
                    let e = self.status_error(status, &text, &what, about);
                    if status < 500 || status == 501 {
                        return Err(e);
                    }
                    last = Some(e);
                }
            }
        }
        Err(last.unwrap_or_else(|| Error::Internal(format!("{what}: no attempt was made"))))
    }

    /// One request with the client's headers and `signed` (which win over `header.*`
    /// options of the same name): the status and body, or the transport's error text.
    fn send(
        &self,
        method: Method,
        url: &str,
        body: Option<String>,
        signed: &[(&str, String)],
    ) -> std::result::Result<(u16, String), String> {
        let m = match method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut req = self.http.request(m, url);
        let is_signed = |k: &str| signed.iter().any(|(s, _)| s.eq_ignore_ascii_case(k));
        for (k, v) in &self.headers {
            if !is_signed(k) {
                req = req.header(k.as_str(), v.as_str());
            }
        }
        for (k, v) in signed {
            req = req.header(*k, v.as_str());
        }
        if let Some(b) = body {
            if !is_signed("Content-Type") {
                req = req.header("Content-Type", "application/json");
            }
            req = req.body(b);
        }
        run(async move {
            let resp = req.send().await.map_err(|e| transport(&e))?;
            let status = resp.status().as_u16();
            let text = resp.text().await.map_err(|e| transport(&e))?;
            Ok((status, text))
        })?
    }

    /// The error for a non-2xx answer, from the API's `ErrorResponse` when there is one.
    fn status_error(&self, status: u16, text: &str, what: &str, about: &Object) -> Error {
        let body: Option<Value> = serde_json::from_str(text).ok();
        let field = |k: &str| {
            body.as_ref()
                .and_then(|b| b.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let message = field("message").unwrap_or_else(|| short(text));
        let object = match (field("resourceType").as_deref(), field("resourceName")) {
            (Some("DATABASE"), Some(n)) => Object::database(&n),
            (Some("TABLE"), Some(n)) if about.kind != "table" => Object::table(n),
            _ => about.clone(),
        };
        let described = if object.name.is_empty() {
            what.to_string()
        } else {
            format!("{what} ({} {})", object.kind, object.name)
        };
        let failure = match status {
            401 | 403 => CatalogFailure::NotAuthorized,
            404 if object.kind != "catalog" => {
                return Error::not_found_in(&self.uri, object.kind, object.name)
            }
            409 if object.kind != "catalog" => {
                return Error::exists_in(&self.uri, object.kind, object.name)
            }
            409 => CatalogFailure::Conflict,
            501 => CatalogFailure::NotImplemented,
            s if s >= 500 => CatalogFailure::ServerError,
            _ => CatalogFailure::Refused,
        };
        let reason = if message.trim().is_empty() {
            format!("HTTP {status}")
        } else {
            format!("HTTP {status}: {message}")
        };
        Error::catalog(&self.uri, failure, described, reason)
    }
}

/// A response body as JSON (an empty body is `null`).
fn parse_body(uri: &str, what: &str, text: &str) -> Result<Value> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(text).map_err(|e| {
        Error::catalog(
            uri,
            CatalogFailure::MalformedResponse,
            what,
            format!("{e} in {}", short(text)),
        )
    })
}

/// At most 200 characters of a body, for messages.
fn short(text: &str) -> String {
    let t: String = text.chars().take(200).collect();
    if t.len() < text.len() {
        format!("{t}...")
    } else {
        t
    }
}

/// A transport error with its causes (reqwest's own message is only `error sending request`).
fn transport(e: &reqwest::Error) -> String {
    let mut out = e.to_string();
    let mut cur = std::error::Error::source(e);
    while let Some(s) = cur {
        let m = s.to_string();
        if !out.contains(&m) {
            out.push_str(": ");
            out.push_str(&m);
        }
        cur = s.source();
    }
    if e.is_timeout() {
        out.push_str(" (timed out)");
    }
    out
}

/// An HTTP client with these timeouts.
pub(crate) fn http_client(
    connect: Duration,
    total: Duration,
) -> std::result::Result<reqwest::Client, String> {
    // reqwest is built without a TLS crypto provider; ring is the process default unless the
    // application installed one already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(connect)
        .timeout(total)
        .build()
        .map_err(|e| e.to_string())
}

/// The runtime that drives reqwest's futures.
fn runtime() -> std::result::Result<&'static tokio::runtime::Runtime, String> {
    static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> =
        OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("paimon-rest")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| format!("cannot start the HTTP runtime: {e}"))
}

/// Runs `fut` on the runtime and waits for it (from any thread, inside another runtime too).
pub(crate) fn run<T, F>(fut: F) -> std::result::Result<T, String>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let rt = runtime()?;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    rt.spawn(async move {
        // The receiver only goes away when the caller is gone; nothing is left to tell.
        let _ = tx.send(fut.await);
    });
    rx.recv()
        .map_err(|_| "the HTTP task stopped without a result".to_string())
}
