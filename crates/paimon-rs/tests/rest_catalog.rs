//! The REST catalog against Java's own `RESTCatalogServer` (paimon-core 1.4.2's tests jar,
//! started on loopback by `scripts/java-oracle.sh rest-server`): Java creates and writes a
//! table through REST and we read Java's rows; we create a database and a table, write and
//! commit through REST and Java reads ours; a wrong token is an authorization error; a
//! stopped server is reported at once as unreachable. Run with the REST feature on, e.g.
//! `cargo test --workspace --test rest_catalog` (paimon-cli turns it on).
#![cfg(feature = "rest")]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use paimon_rs::meta::{CatalogFailure, Error as MetaError};
use paimon_rs::{Catalog, Error};
use paimon_test_utils::{batch_rows, id_v_batch, json_rows, oracle, rows, JavaRestServer};

const TOKEN: &str = "rest-test-token";

/// One server shared by the tests of this file (it exits when the test process does: its
/// stdin closes).
fn shared() -> &'static JavaRestServer {
    static SERVER: OnceLock<JavaRestServer> = OnceLock::new();
    SERVER.get_or_init(|| JavaRestServer::start(TOKEN))
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
        batch_rows(&table.scan().to_arrow().unwrap()),
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
    let batch = |from: i32, to: i32| id_v_batch(table.arrow_schema(), from, to, "rs");
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

    let java = json_rows(&oracle(&[
        "rest-dump",
        &server.url,
        "rs_db.t",
        "--token",
        TOKEN,
    ]));
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
    let server = JavaRestServer::start(TOKEN);
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
