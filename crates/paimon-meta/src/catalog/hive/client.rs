//! A Hive Metastore Thrift client (binary protocol over a plain socket, as the metastore
//! serves by default): one connection, reopened when it breaks; each reply decoded with
//! bounds ([`super::thrift`]) and turned into typed catalog errors naming the metastore's URI.

use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Mutex;
use std::time::Duration;

use super::thrift::{self, ttype, DecodeError, Reader, Value, Writer};
use crate::error::{CatalogFailure, Error, Result};

/// How long connecting may take before the metastore is called unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one call may wait for its reply (Java's `hive.metastore.client.socket.timeout`
/// is 600 s; a metastore call that takes a minute is a failure here).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest reply accepted (a table with thousands of columns is well under it).
const MAX_REPLY_BYTES: u64 = 64 << 20;

/// Which declared exception a call failed with (the metastore's exception structs, field 1
/// of each is its message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Thrown {
    /// `NoSuchObjectException` (or `UnknownDBException` / `UnknownTableException`).
    NoSuchObject(String),
    /// `AlreadyExistsException`.
    AlreadyExists(String),
    /// `InvalidOperationException` / `InvalidObjectException`.
    Invalid(String),
    /// `MetaException` and anything else.
    Meta(String),
}

/// A call's outcome: its result value (field 0, absent for `void`), a declared exception, or a
/// transport / protocol error.
pub(super) type CallResult = Result<std::result::Result<Option<Value>, Thrown>>;

/// A metastore at `thrift://host:port`.
#[derive(Debug)]
pub(super) struct Client {
    uri: String,
    addrs: Vec<SocketAddr>,
    conn: Mutex<Option<(TcpStream, i32)>>,
}

impl Client {
    /// Parses `uri` (`thrift://host:port`, several comma-separated as Java takes them: the
    /// first that answers is used). Nothing is connected yet.
    ///
    /// # Errors
    /// [`CatalogFailure::InvalidOptions`] for a URI that is not `thrift://host:port`;
    /// [`CatalogFailure::Unreachable`] for a host that does not resolve.
    pub(super) fn new(uri: &str) -> Result<Self> {
        let mut addrs = Vec::new();
        for one in uri.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let hp = one.strip_prefix("thrift://").ok_or_else(|| {
                Error::catalog(
                    uri,
                    CatalogFailure::InvalidOptions,
                    "option uri",
                    format!("{one:?} is not a thrift://host:port metastore URI"),
                )
            })?;
            let hp = hp.trim_end_matches('/');
            let resolved = hp.to_socket_addrs().map_err(|e| {
                Error::catalog(
                    uri,
                    CatalogFailure::Unreachable,
                    "metastore",
                    format!("cannot resolve {hp:?}: {e}"),
                )
            })?;
            addrs.extend(resolved);
        }
        if addrs.is_empty() {
            return Err(Error::catalog(
                uri,
                CatalogFailure::InvalidOptions,
                "option uri",
                "no metastore address",
            ));
        }
        Ok(Client {
            uri: uri.to_string(),
            addrs,
            conn: Mutex::new(None),
        })
    }

    /// The URI, for messages.
    pub(super) fn uri(&self) -> &str {
        &self.uri
    }

    fn connect(&self) -> Result<TcpStream> {
        let mut last = String::new();
        for a in &self.addrs {
            match TcpStream::connect_timeout(a, CONNECT_TIMEOUT) {
                Ok(s) => {
                    let _ = s.set_read_timeout(Some(CALL_TIMEOUT));
                    let _ = s.set_write_timeout(Some(CALL_TIMEOUT));
                    let _ = s.set_nodelay(true);
                    return Ok(s);
                }
                Err(e) => last = format!("{a}: {e}"),
            }
        }
        Err(Error::catalog(
            self.uri.clone(),
            CatalogFailure::Unreachable,
            "metastore",
            last,
        ))
    }

    /// Calls `method` with the argument struct `args` writes (its fields, without the stop).
    /// `idempotent` calls are sent once more on a fresh connection when the first one broke.
    pub(super) fn call(
        &self,
        method: &str,
        idempotent: bool,
        args: impl Fn(&mut Writer),
    ) -> CallResult {
        let mut guard = self.conn.lock().map_err(|_| {
            Error::catalog(
                self.uri.clone(),
                CatalogFailure::Unreachable,
                method,
                "client lock poisoned",
            )
        })?;
        let attempts = if idempotent { 2 } else { 1 };
        let mut last = None;
        for _ in 0..attempts {
            let (stream, seq) = match guard.take() {
                Some(c) => c,
                None => (self.connect()?, 0),
            };
            let seq = seq.wrapping_add(1);
            let mut w = Writer::default();
            w.header(method, thrift::CALL, seq);
            args(&mut w);
            w.stop();
            match self.exchange(&stream, method, seq, &w.buf) {
                Ok(out) => {
                    *guard = Some((stream, seq));
                    return Ok(out);
                }
                // A broken connection is dropped; a reply that is not Thrift too (the stream
                // is out of step).
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| {
            Error::catalog(
                self.uri.clone(),
                CatalogFailure::Unreachable,
                method,
                "no attempt",
            )
        }))
    }

    fn exchange(&self, stream: &TcpStream, method: &str, seq: i32, request: &[u8]) -> CallResult {
        let io_err = |e: std::io::Error| {
            Error::catalog(
                self.uri.clone(),
                CatalogFailure::Unreachable,
                format!("metastore call {method}"),
                e.to_string(),
            )
        };
        (&*stream).write_all(request).map_err(io_err)?;
        (&*stream).flush().map_err(io_err)?;
        let mut reader = Reader::new(BufReader::new(stream), MAX_REPLY_BYTES);
        decode_reply(&mut reader, method, seq).map_err(|e| {
            let failure = match e {
                DecodeError::Io(_) => CatalogFailure::Unreachable,
                DecodeError::Malformed(_) => CatalogFailure::MalformedResponse,
            };
            Error::catalog(
                self.uri.clone(),
                failure,
                format!("metastore call {method}"),
                e.to_string(),
            )
        })
    }
}

/// Reads the reply to `method` (sequence `seq`): its result, a declared exception (a
/// `TApplicationException` is a [`Thrown::Meta`]).
pub(super) fn decode_reply<R: std::io::Read>(
    reader: &mut Reader<R>,
    method: &str,
    seq: i32,
) -> std::result::Result<std::result::Result<Option<Value>, Thrown>, DecodeError> {
    let header = reader.header()?;
    if header.name != method || header.seq != seq {
        return Err(DecodeError::Malformed(format!(
            "reply to {:?} #{} where {method:?} #{seq} was expected",
            header.name, header.seq
        )));
    }
    let body = reader.structure(0)?;
    match header.kind {
        thrift::REPLY => {}
        thrift::EXCEPTION => {
            return Ok(Err(Thrown::Meta(format!(
                "application exception: {}",
                message(&body)
            ))))
        }
        k => {
            return Err(DecodeError::Malformed(format!(
                "message type {k} where a reply was expected"
            )))
        }
    }
    let Value::Struct(fields) = body else {
        return Err(DecodeError::Malformed("reply is not a struct".into()));
    };
    let mut result = None;
    for (id, v) in fields {
        if id == 0 {
            result = Some(v);
            continue;
        }
        return Ok(Err(classify(method, id, &v)));
    }
    Ok(Ok(result))
}

/// The message of an exception struct (field 1).
fn message(v: &Value) -> String {
    match v.field(1) {
        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        _ => String::new(),
    }
}

/// Which exception field `id` of `method`'s result is (the IDL's `throws` order).
fn classify(method: &str, id: i16, v: &Value) -> Thrown {
    let m = message(v);
    match (method, id) {
        ("get_database", 1) | ("drop_database", 1) | ("create_table", 4) => Thrown::NoSuchObject(m),
        ("get_table_req", 2) | ("drop_table", 1) | ("drop_partition", 1) => Thrown::NoSuchObject(m),
        ("create_database", 1) | ("create_table", 1) | ("add_partitions_req", 2) => {
            Thrown::AlreadyExists(m)
        }
        ("create_database", 2) | ("create_table", 2) | ("drop_database", 2) => Thrown::Invalid(m),
        ("add_partitions_req", 1) => Thrown::Invalid(m),
        ("alter_table", 1) => Thrown::Invalid(m),
        _ => Thrown::Meta(m),
    }
}

/// A string of a decoded struct (field `id`), or `None` when absent.
pub(super) fn string_field(v: &Value, id: i16) -> Option<String> {
    match v.field(id) {
        Some(Value::Bytes(b)) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

/// A `map<string,string>` of a decoded struct (field `id`).
pub(super) fn string_map_field(v: &Value, id: i16) -> Vec<(String, String)> {
    match v.field(id) {
        Some(Value::Map(_, _, entries)) => entries
            .iter()
            .filter_map(|(k, v)| match (k, v) {
                (Value::Bytes(k), Value::Bytes(v)) => Some((
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A `list<string>` result.
pub(super) fn string_list(v: Option<Value>) -> Option<Vec<String>> {
    match v {
        Some(Value::List(_, ttype::STRING, items)) => Some(
            items
                .into_iter()
                .filter_map(|i| match i {
                    Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                    _ => None,
                })
                .collect(),
        ),
        Some(Value::List(_, _, items)) if items.is_empty() => Some(Vec::new()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(method: &str, kind: u8, seq: i32, body: impl Fn(&mut Writer)) -> Vec<u8> {
        let mut w = Writer::default();
        w.header(method, kind, seq);
        body(&mut w);
        w.stop();
        w.buf
    }

    fn decode(
        bytes: &[u8],
        method: &str,
        seq: i32,
    ) -> std::result::Result<std::result::Result<Option<Value>, Thrown>, DecodeError> {
        decode_reply(&mut Reader::new(bytes, bytes.len() as u64), method, seq)
    }

    #[test]
    fn replies_results_and_exceptions() {
        let ok = reply("get_all_databases", thrift::REPLY, 3, |w| {
            w.string_list_field(0, &["default".to_string()])
        });
        let v = decode(&ok, "get_all_databases", 3).unwrap().unwrap();
        assert_eq!(string_list(v), Some(vec!["default".to_string()]));
        // A reply out of step (another method, another sequence) is malformed.
        assert!(matches!(
            decode(&ok, "get_all_databases", 4),
            Err(DecodeError::Malformed(_))
        ));
        let missing = reply("get_table_req", thrift::REPLY, 1, |w| {
            w.field(ttype::STRUCT, 2);
            w.string_field(1, "Table hive.db.t not found");
            w.stop();
        });
        assert_eq!(
            decode(&missing, "get_table_req", 1).unwrap(),
            Err(Thrown::NoSuchObject("Table hive.db.t not found".into()))
        );
        let app = reply("get_table", thrift::EXCEPTION, 1, |w| {
            w.string_field(1, "Invalid method name: 'get_table'");
            w.i32_field(2, 1);
        });
        assert_eq!(
            decode(&app, "get_table", 1).unwrap(),
            Err(Thrown::Meta(
                "application exception: Invalid method name: 'get_table'".into()
            ))
        );
    }

    #[test]
    fn refuses_uris_that_are_not_thrift() {
        let e = Client::new("http://h:1").unwrap_err().to_string();
        assert!(
            e.contains("is not a thrift://host:port metastore URI"),
            "{e}"
        );
        assert!(Client::new("thrift://127.0.0.1:9083").is_ok());
    }

    /// A metastore that is not there: an error within the connect timeout naming the URI.
    #[test]
    fn unreachable_metastore_is_named() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let uri = format!("thrift://127.0.0.1:{port}");
        let c = Client::new(&uri).unwrap();
        let e = c.call("get_all_databases", true, |_| {}).unwrap_err();
        assert!(
            matches!(e, Error::Catalog { failure: CatalogFailure::Unreachable, ref uri, .. } if uri.contains(&port.to_string())),
            "{e}"
        );
    }
}
