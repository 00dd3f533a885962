//! The catalog database connection: Java's `uri` (`jdbc:postgresql://host:port/db?k=v`) with
//! `jdbc.user` / `jdbc.password` (Java passes every `jdbc.*` option to the driver), one
//! connection reopened when it breaks, and PostgreSQL errors turned into typed catalog errors
//! that name the catalog (never the password).

use std::sync::Mutex;
use std::time::Duration;

use postgres::error::SqlState;
use postgres::{Client, NoTls};

use crate::error::{CatalogFailure, Error, Result};

/// How long opening a connection may take before the catalog is called unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A parsed `jdbc:postgresql://` URI with its credentials.
pub(super) struct ConnectionSpec {
    /// The URI with any `password=` query value blanked, for messages.
    pub(super) shown_uri: String,
    config: postgres::Config,
}

impl std::fmt::Debug for ConnectionSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionSpec")
            .field("uri", &self.shown_uri)
            .finish_non_exhaustive()
    }
}

impl ConnectionSpec {
    /// Parses `uri` (`jdbc:postgresql://host[:port][/database][?user=..&password=..]`);
    /// `user` and `password` (from `jdbc.user` / `jdbc.password`) win over the query's.
    pub(super) fn parse(uri: &str, user: Option<&str>, password: Option<&str>) -> Result<Self> {
        let shown_uri = redact(uri);
        let invalid = |reason: String| {
            Error::catalog(
                shown_uri.clone(),
                CatalogFailure::InvalidOptions,
                "option uri",
                reason,
            )
        };
        let rest = match uri.trim().strip_prefix("jdbc:") {
            Some(r) => r,
            None => return Err(invalid("a JDBC catalog uri starts with jdbc:".into())),
        };
        let rest = match rest.strip_prefix("postgresql://") {
            Some(r) => r,
            None => {
                let protocol = rest.split(':').next().unwrap_or_default();
                return Err(invalid(format!(
                    "JDBC protocol {protocol:?} is not supported by this build (supported: \
                     postgresql)"
                )));
            }
        };
        let (address, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (host_port, database) = address.split_once('/').unwrap_or((address, ""));
        let (host, port) = split_host_port(host_port)
            .ok_or_else(|| invalid(format!("bad host:port {host_port:?}")))?;
        let mut config = postgres::Config::new();
        config
            .host(if host.is_empty() { "localhost" } else { host })
            .port(port)
            .connect_timeout(CONNECT_TIMEOUT)
            .application_name("paimon-rs");
        if !database.is_empty() {
            config.dbname(database);
        }
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("user", v)) => {
                    config.user(v);
                }
                Some(("password", v)) => {
                    config.password(v);
                }
                // Driver settings of Java's (ssl, timeouts...) have no meaning here.
                _ => {}
            }
        }
        if let Some(u) = user {
            config.user(u);
        }
        if let Some(p) = password {
            config.password(p);
        }
        Ok(ConnectionSpec { shown_uri, config })
    }
}

fn split_host_port(text: &str) -> Option<(&str, u16)> {
    if let Some(v6) = text.strip_prefix('[') {
        let (host, rest) = v6.split_once(']')?;
        return match rest.strip_prefix(':') {
            Some(p) => Some((host, p.parse().ok()?)),
            None if rest.is_empty() => Some((host, 5432)),
            None => None,
        };
    }
    match text.rsplit_once(':') {
        Some((h, p)) => Some((h, p.parse().ok()?)),
        None => Some((text, 5432)),
    }
}

/// `uri` with the value of a `password=` query parameter replaced by `***`.
fn redact(uri: &str) -> String {
    let Some((head, query)) = uri.split_once('?') else {
        return uri.to_string();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => p.to_string(),
        })
        .collect();
    format!("{head}?{}", pairs.join("&"))
}

/// One connection to the catalog database, opened on first use and reopened when broken.
pub(super) struct Connection {
    spec: ConnectionSpec,
    client: Mutex<Option<Client>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("uri", &self.spec.shown_uri)
            .finish_non_exhaustive()
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        // Closing the client blocks on its runtime, which panics on a thread inside another
        // runtime (the catalog dropped with a DataFusion session): it closes on its own thread.
        if let Some(client) = self.client.get_mut().ok().and_then(Option::take) {
            let _ = std::thread::spawn(move || drop(client)).join();
        }
    }
}

impl Connection {
    pub(super) fn new(spec: ConnectionSpec) -> Self {
        Connection {
            spec,
            client: Mutex::new(None),
        }
    }

    /// The URI for messages (no password).
    pub(super) fn uri(&self) -> &str {
        &self.spec.shown_uri
    }

    /// Runs `f` on the connection; `what` names the call in errors.
    ///
    /// The sync `postgres` client drives its connection with a runtime of its own, which
    /// panics inside a thread that is already in a tokio runtime (a DataFusion planner or
    /// `spawn_blocking` task calling the catalog); so the call runs on a thread of its own.
    pub(super) fn run<T: Send>(
        &self,
        what: &str,
        f: impl FnOnce(&mut Client) -> std::result::Result<T, postgres::Error> + Send,
    ) -> Result<T> {
        std::thread::scope(|s| {
            s.spawn(|| self.run_here(what, f))
                .join()
                .unwrap_or_else(|_| {
                    Err(Error::Internal(format!(
                        "JDBC catalog call {what} panicked"
                    )))
                })
        })
    }

    /// [`Connection::run`] on the calling thread.
    fn run_here<T>(
        &self,
        what: &str,
        f: impl FnOnce(&mut Client) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        let mut guard = self
            .client
            .lock()
            .map_err(|_| Error::Internal("JDBC catalog connection lock poisoned".into()))?;
        if guard.as_ref().is_none_or(Client::is_closed) {
            let client = self
                .spec
                .config
                .connect(NoTls)
                .map_err(|e| self.error("connect", &e))?;
            *guard = Some(client);
        }
        let client = guard
            .as_mut()
            .ok_or_else(|| Error::Internal("JDBC catalog connection missing".into()))?;
        f(client).map_err(|e| self.error(what, &e))
    }

    /// Runs one statement; the number of rows it changed.
    pub(super) fn execute(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<u64> {
        self.run(sql, |c| c.execute(sql, params))
    }

    /// The first column (text) of every row `sql` returns.
    pub(super) fn strings(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<String>> {
        self.run(sql, |c| {
            c.query(sql, params)?
                .iter()
                .map(|r| r.try_get::<_, String>(0))
                .collect()
        })
    }

    /// A typed error for a failed call.
    pub(super) fn error(&self, what: &str, e: &postgres::Error) -> Error {
        let failure = match e.code() {
            Some(c) if c == &SqlState::INVALID_PASSWORD => CatalogFailure::NotAuthorized,
            Some(c) if c.code().starts_with("28") => CatalogFailure::NotAuthorized,
            Some(c) if c == &SqlState::UNIQUE_VIOLATION => CatalogFailure::Conflict,
            Some(_) => CatalogFailure::Refused,
            None => CatalogFailure::Unreachable,
        };
        let reason = match e.as_db_error() {
            Some(db) => format!(
                "{}: {} (SQLSTATE {})",
                db.severity(),
                db.message(),
                db.code().code()
            ),
            None => {
                let mut text = e.to_string();
                let mut source = std::error::Error::source(e);
                while let Some(s) = source {
                    text.push_str(&format!(": {s}"));
                    source = s.source();
                }
                text
            }
        };
        Error::catalog(
            self.spec.shown_uri.clone(),
            failure,
            what.to_string(),
            reason,
        )
    }
}

/// Whether `e` is a unique-key violation (the row exists already).
pub(super) fn is_conflict(e: &Error) -> bool {
    matches!(
        e,
        Error::Catalog {
            failure: CatalogFailure::Conflict,
            ..
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_forms_and_the_password_stays_out_of_messages() {
        let s = ConnectionSpec::parse(
            "jdbc:postgresql://127.0.0.1:5433/paimon?user=u&password=secret",
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            s.shown_uri,
            "jdbc:postgresql://127.0.0.1:5433/paimon?user=u&password=***"
        );
        assert_eq!(s.config.get_ports(), &[5433]);
        assert_eq!(s.config.get_dbname(), Some("paimon"));
        assert_eq!(s.config.get_user(), Some("u"));
        assert!(!format!("{s:?}").contains("secret"));
        let s = ConnectionSpec::parse("jdbc:postgresql://[::1]/db", Some("x"), Some("p")).unwrap();
        assert_eq!(s.config.get_ports(), &[5432]);
        assert_eq!(s.config.get_user(), Some("x"));
        assert_eq!(s.config.get_password(), Some(&b"p"[..]));
        let e = ConnectionSpec::parse("jdbc:sqlite:/tmp/x.db", None, None).unwrap_err();
        assert!(e.to_string().contains("\"sqlite\" is not supported"), "{e}");
        let e = ConnectionSpec::parse("postgresql://h/db", None, None).unwrap_err();
        assert!(e.to_string().contains("starts with jdbc:"), "{e}");
        let e = ConnectionSpec::parse("jdbc:postgresql://h:x/db", None, None).unwrap_err();
        assert!(e.to_string().contains("bad host:port"), "{e}");
    }
}
