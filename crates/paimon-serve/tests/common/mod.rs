//! Shared by the REST server's tests: our server started in-process on a loopback port, the
//! Java oracle (`scripts/java-oracle.sh`), raw HTTP requests, rows as maps.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use paimon_rs::arrow_array::{Array, Int32Array, StringArray};
use paimon_rs::RecordBatch;
use paimon_serve::auth::Users;
use paimon_serve::policy::Policies;
use paimon_serve::rest::{RestConfig, RestServer};

/// The warehouse name the Java oracle's REST client asks for.
pub const WAREHOUSE: &str = "rest_warehouse";

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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

/// Runs the Java oracle.
pub fn oracle_output(args: &[&str]) -> Output {
    Command::new(repo().join("scripts/java-oracle.sh"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run scripts/java-oracle.sh (needs java)")
}

/// Runs the Java oracle, which must succeed; its stdout.
pub fn oracle(args: &[&str]) -> String {
    let out = oracle_output(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `(id, v)` rows of the oracle's JSON lines.
pub fn json_rows(text: &str) -> BTreeMap<i32, String> {
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                i32::try_from(v["id"].as_i64().unwrap()).unwrap(),
                v["v"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `(id, v)` rows of batches.
pub fn batch_rows(batches: &[RecordBatch]) -> BTreeMap<i32, String> {
    let mut out = BTreeMap::new();
    for b in batches {
        let id = b.column_by_name("id").unwrap();
        let id = id.as_any().downcast_ref::<Int32Array>().unwrap();
        let v = b.column_by_name("v").unwrap();
        let v = v.as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.insert(id.value(i), v.value(i).to_string());
        }
    }
    out
}

pub fn rows(from: i32, to: i32, tag: &str) -> BTreeMap<i32, String> {
    (from..to).map(|i| (i, format!("{tag}-{i}"))).collect()
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
    [
        ("metastore", "rest"),
        ("uri", url),
        ("token.provider", "bear"),
        ("token", token),
        ("warehouse", WAREHOUSE),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}
