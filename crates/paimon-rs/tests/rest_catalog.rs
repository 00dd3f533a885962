//! The REST catalog against Java's own `RESTCatalogServer` (paimon-core 1.4.2's tests jar,
//! started on loopback by `scripts/java-oracle.sh rest-server`): Java creates and writes a
//! table through REST and we read Java's rows; we create a database and a table, write and
//! commit through REST and Java reads ours; a wrong token is an authorization error; a
//! stopped server is reported at once as unreachable. Run with the REST feature on, e.g.
//! `cargo test -p paimon-rs -p paimon-cli --test rest_catalog` (paimon-cli turns it on).
#![cfg(feature = "rest")]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use paimon_rs::arrow_array::{Array, ArrayRef, Int32Array, StringArray};
use paimon_rs::meta::{CatalogFailure, Error as MetaError};
use paimon_rs::{Catalog, Error, RecordBatch};

const TOKEN: &str = "rest-test-token";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A running `rest-server`: stops when its stdin closes (dropped with the child).
struct Server {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        let url_file = dir.path().join("url");
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        let child = Command::new(repo().join("scripts/java-oracle.sh"))
            .arg("rest-server")
            .arg(&data)
            .arg(&url_file)
            .args(["--token", TOKEN])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("run scripts/java-oracle.sh (needs java)");
        let started = Instant::now();
        while !url_file.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(600),
                "rest-server did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let url = std::fs::read_to_string(&url_file).unwrap();
        Server {
            child,
            url: url.trim().to_string(),
            _dir: dir,
        }
    }

    fn stop(mut self) {
        drop(self.child.stdin.take());
        self.child.wait().unwrap();
    }

    fn options(&self, token: &str) -> BTreeMap<String, String> {
        [
            ("metastore", "rest"),
            ("uri", self.url.as_str()),
            ("token.provider", "bear"),
            ("token", token),
            ("warehouse", "rest_warehouse"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }
}

/// One server shared by the tests of this file (it exits when the test process does: its
/// stdin closes).
fn shared() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(Server::start)
}

fn oracle(args: &[&str]) -> String {
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run scripts/java-oracle.sh");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn rows_of(batches: &[RecordBatch]) -> BTreeMap<i32, String> {
    let mut out = BTreeMap::new();
    for b in batches {
        let id = b.column_by_name("id").unwrap();
        let id = id.as_any().downcast_ref::<Int32Array>().unwrap();
        let v = b.column_by_name("v").unwrap();
        let v = v.as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            assert!(!v.is_null(i));
            out.insert(id.value(i), v.value(i).to_string());
        }
    }
    out
}

fn rows(from: i32, to: i32, tag: &str) -> BTreeMap<i32, String> {
    (from..to).map(|i| (i, format!("{tag}-{i}"))).collect()
}

#[test]
fn java_writes_through_rest_and_we_read_its_rows() {
    let server = shared();
    oracle(&[
        "rest-write",
        &server.url,
        "java_db.t",
        "--from",
        "0",
        "--to",
        "7",
        "--token",
        TOKEN,
    ]);
    let catalog = Catalog::open(server.options(TOKEN)).unwrap();
    assert!(catalog
        .list_databases()
        .unwrap()
        .contains(&"java_db".to_string()));
    assert_eq!(
        catalog.list_tables("java_db").unwrap(),
        vec!["t".to_string()]
    );
    let table = catalog.table("java_db.t").unwrap();
    assert_eq!(
        rows_of(&table.scan().to_arrow().unwrap()),
        rows(0, 7, "java")
    );
    // A table the server does not have is named in the error.
    let e = catalog.table("java_db.missing").unwrap_err().to_string();
    assert!(e.contains("table java_db.missing does not exist"), "{e}");
}

#[test]
fn we_create_write_and_commit_through_rest_and_java_reads_ours() {
    let server = shared();
    let catalog = Catalog::open(server.options(TOKEN)).unwrap();
    catalog
        .create_database("rs_db", false, &BTreeMap::new())
        .unwrap();
    let schema = paimon_rs::spec::schema::TableSchema::from_json_str(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},
            {"id":1,"name":"v","type":"STRING"}],"highestFieldId":1,"partitionKeys":[],
            "primaryKeys":[],"options":{},"timeMillis":0}"#,
    )
    .unwrap();
    catalog
        .create_table("rs_db.t", schema.clone(), false)
        .unwrap();
    let e = catalog.create_table("rs_db.t", schema, false).unwrap_err();
    assert!(
        e.to_string().contains("table rs_db.t already exists"),
        "{e}"
    );
    assert_eq!(catalog.list_tables("rs_db").unwrap(), vec!["t".to_string()]);

    let table = catalog.table("rs_db.t").unwrap();
    assert!(
        format!("{:?}", table.meta().snapshot_commit()).starts_with("RestSnapshotCommit"),
        "a REST table commits through the server"
    );
    let batch = |from: i32, to: i32| {
        let ids: Vec<i32> = (from..to).collect();
        let v: Vec<String> = ids.iter().map(|i| format!("rs-{i}")).collect();
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(ids)),
            Arc::new(StringArray::from(v)),
        ];
        RecordBatch::try_new(table.arrow_schema(), cols).unwrap()
    };
    let report = table.write().batches([batch(0, 4)]).unwrap();
    assert_eq!(report.snapshots, vec![1]);
    // A worker's messages committed twice with one identifier land once.
    let messages = table
        .new_write()
        .unwrap()
        .write(&batch(4, 6))
        .unwrap()
        .prepare_commit()
        .unwrap();
    assert_eq!(
        table.new_commit("rest-test").commit(7, &messages).unwrap(),
        vec![2]
    );
    assert!(table
        .new_commit("rest-test")
        .commit(7, &messages)
        .unwrap()
        .is_empty());

    let java: BTreeMap<i32, String> =
        oracle(&["rest-dump", &server.url, "rs_db.t", "--token", TOKEN])
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    i32::try_from(v["id"].as_i64().unwrap()).unwrap(),
                    v["v"].as_str().unwrap().to_string(),
                )
            })
            .collect();
    assert_eq!(java, rows(0, 6, "rs"));

    catalog.drop_table("rs_db.t", false).unwrap();
    let e = catalog.table("rs_db.t").unwrap_err().to_string();
    assert!(e.contains("table rs_db.t does not exist"), "{e}");
    catalog.drop_database("rs_db", false, false).unwrap();
    assert!(!catalog
        .list_databases()
        .unwrap()
        .contains(&"rs_db".to_string()));
}

#[test]
fn a_wrong_token_is_an_authorization_failure_naming_the_uri() {
    let server = shared();
    let e = Catalog::open(server.options("not-the-token")).unwrap_err();
    let Error::Meta(m) = &e else { panic!("{e}") };
    assert!(
        matches!(
            **m,
            MetaError::Catalog {
                failure: CatalogFailure::NotAuthorized,
                ..
            }
        ),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!(
            "catalog {}: authorization failed for GET /v1/config",
            server.url.trim_end_matches('/')
        )),
        "{msg}"
    );
    assert!(msg.contains("HTTP 401"), "{msg}");
}

#[test]
fn a_stopped_server_is_reported_unreachable_at_once() {
    let server = Server::start();
    let options = server.options(TOKEN);
    let catalog = Catalog::open(options.clone()).unwrap();
    catalog.list_databases().unwrap();
    server.stop();
    let started = Instant::now();
    let e = catalog.list_databases().unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let msg = e.to_string();
    assert!(
        msg.contains("unreachable on GET /v1/paimon/databases"),
        "{msg}"
    );
    assert!(msg.contains(options["uri"].trim_end_matches('/')), "{msg}");
    let _ = std::io::stderr().flush();
}
