//! Shared by the REST server's tests: our server started in-process on a loopback port, the
//! Java oracle (`scripts/java-oracle.sh`), raw HTTP requests, rows as maps.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;

use paimon_rs::RecordBatch;
use paimon_serve::auth::Users;
use paimon_serve::policy::Policies;
use paimon_serve::rest::{RestConfig, RestServer};

/// The warehouse name the Java oracle's REST client asks for.
pub use paimon_test_utils::java_rest::WAREHOUSE;
#[allow(unused_imports)]
pub use paimon_test_utils::{batch_rows, json_rows, oracle, oracle_output, repo, rows};

/// Our REST server over a fresh filesystem warehouse, serving until dropped.
pub struct Running {
    pub url: String,
    pub warehouse: PathBuf,
    _dir: tempfile::TempDir,
    rt: Option<tokio::runtime::Runtime>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// Starts the server on `127.0.0.1:0`; `auth`: the text of an auth file.
pub fn start(auth: Option<&str>) -> Running {
    start_with_policies(auth, None)
}

/// [`start`] with `policies`, the text of a policies file.
pub fn start_with_policies(auth: Option<&str>, policies: Option<&str>) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join(WAREHOUSE);
    std::fs::create_dir_all(&warehouse).unwrap();
    let catalog = paimon_rs::Catalog::filesystem(warehouse.to_str().unwrap()).unwrap();
    let mut config = RestConfig::new(WAREHOUSE);
    if let Some(text) = auth {
        config.users = Users::parse(text, "auth").unwrap();
    }
    if let Some(text) = policies {
        config.policies = Policies::parse(text, "policies", &config.users).unwrap();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(RestServer::bind(
            "127.0.0.1:0",
            Arc::clone(catalog.catalog()),
            config,
        ))
        .unwrap();
    let url = server.url().unwrap();
    rt.spawn(server.serve(std::future::pending()));
    Running {
        url,
        warehouse,
        _dir: dir,
        rt: Some(rt),
    }
}

/// One raw HTTP/1.1 request; the status and body of the answer.
pub fn http(
    url: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &[u8],
) -> (u16, String) {
    let addr = url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) and close before it has read all of an oversize body.
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
    let body = text
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

/// Our REST client's options for `url`.
pub fn client_options(url: &str, token: &str) -> BTreeMap<String, String> {
    paimon_test_utils::java_rest::client_options(url, token, WAREHOUSE)
}

/// Rows as sorted JSON lines (arrow's JSON writer, nulls written as Java's dump writes them).
pub fn json_lines(batches: &[RecordBatch]) -> BTreeSet<String> {
    let mut buf = Vec::new();
    let mut w = arrow::json::WriterBuilder::new()
        .with_explicit_nulls(true)
        .build::<_, arrow::json::writer::LineDelimited>(&mut buf);
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    String::from_utf8(buf)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Java's rows of a fixture query (`fixtures/expected/<file>`), as JSON lines.
pub fn java_rows(file: &str) -> BTreeSet<String> {
    std::fs::read_to_string(repo().join("fixtures/expected").join(file))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Java's catalog options for our server with bearer `token` (`--catalog-option` pairs of
/// `catalog-meta`).
pub fn java_rest(url: &str, token: &str) -> Vec<String> {
    [
        "metastore=rest".to_string(),
        format!("uri={url}"),
        "token.provider=bear".to_string(),
        format!("token={token}"),
        format!("warehouse={WAREHOUSE}"),
    ]
    .into_iter()
    .flat_map(|o| ["--catalog-option".to_string(), o])
    .collect()
}

/// Java's own `FileSystemCatalog` over the warehouse our server serves.
pub fn java_fs(warehouse: &std::path::Path) -> Vec<String> {
    vec![
        "--catalog-option".to_string(),
        format!("warehouse={}", warehouse.display()),
    ]
}

/// `catalog-meta` of the oracle through `catalog` (its options), its output lines.
pub fn meta(catalog: &[String], args: &[&str]) -> Vec<String> {
    let mut all: Vec<&str> = vec!["catalog-meta"];
    all.extend(catalog.iter().map(String::as_str));
    all.extend(args);
    oracle(&all).lines().map(str::to_string).collect()
}

/// `catalog-meta` expected to fail: its stderr.
pub fn meta_fails(catalog: &[String], args: &[&str]) -> String {
    let mut all: Vec<&str> = vec!["catalog-meta"];
    all.extend(catalog.iter().map(String::as_str));
    all.extend(args);
    let out = oracle_output(&all);
    assert!(!out.status.success(), "{args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// One line of JSON.
pub fn json(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap()
}

/// `(p, recordCount, fileCount)` of each partition line Java's `meta ... partitions` printed
/// (a table partitioned by `p`).
pub fn partition_counts(lines: &[String]) -> Vec<(String, i64, i64)> {
    lines
        .iter()
        .map(|l| {
            let v = json(l);
            (
                v["spec"]["p"].as_str().unwrap().to_string(),
                v["recordCount"].as_i64().unwrap(),
                v["fileCount"].as_i64().unwrap(),
            )
        })
        .collect()
}
