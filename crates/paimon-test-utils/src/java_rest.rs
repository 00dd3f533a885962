//! Java's own REST catalog server (`RESTCatalogServer` of paimon-core 1.4.2's tests jar, on
//! okhttp's mockwebserver), started on loopback by `scripts/java-oracle.sh rest-server`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::paths::repo;

/// The warehouse name Java's server serves (and its clients ask for).
pub const WAREHOUSE: &str = "rest_warehouse";

/// How long a first start may take: the oracle may be built from Maven Central first.
const START_TIMEOUT: Duration = Duration::from_secs(900);

/// A running server; it stops when its standard input closes ([`JavaRestServer::stop`], or
/// the test process exiting).
#[derive(Debug)]
pub struct JavaRestServer {
    child: Child,
    /// The server's base URL (`http://127.0.0.1:PORT`).
    pub url: String,
    /// Where the server keeps its tables.
    pub data: PathBuf,
    _dir: tempfile::TempDir,
}

impl JavaRestServer {
    /// Starts a server over a fresh temporary directory that accepts the bearer `token`.
    ///
    /// # Panics
    /// When the oracle cannot be run or the server does not start in time.
    pub fn start(token: &str) -> JavaRestServer {
        JavaRestServer::start_with(&["--token", token])
    }

    /// Starts a server with `rest-server`'s options `args` (`--token T`, or `--dlf-*`: DLF
    /// signatures checked by Java's own signers).
    ///
    /// # Panics
    /// When the oracle cannot be run or the server does not start in time.
    pub fn start_with(args: &[&str]) -> JavaRestServer {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let url_file = dir.path().join("url");
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).expect("the server's data directory");
        let child = Command::new(repo().join("scripts/java-oracle.sh"))
            .arg("rest-server")
            .arg(&data)
            .arg(&url_file)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("run scripts/java-oracle.sh (needs java)");
        let started = Instant::now();
        while !url_file.exists() {
            assert!(
                started.elapsed() < START_TIMEOUT,
                "Java's rest-server did not start in {START_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let url = std::fs::read_to_string(&url_file).expect("the server's URL file");
        JavaRestServer {
            child,
            url: url.trim().to_string(),
            data,
            _dir: dir,
        }
    }

    /// Stops the server and waits for it to exit.
    pub fn stop(mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }

    /// Our REST client's options for this server with the bearer `token`.
    pub fn options(&self, token: &str) -> BTreeMap<String, String> {
        client_options(&self.url, token, WAREHOUSE)
    }
}

/// Our REST client's options for the server at `url`: bearer `token`, `warehouse` by name.
pub fn client_options(url: &str, token: &str, warehouse: &str) -> BTreeMap<String, String> {
    [
        ("metastore", "rest"),
        ("uri", url),
        ("token.provider", "bear"),
        ("token", token),
        ("warehouse", warehouse),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}
