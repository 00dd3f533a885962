//! Our REST server against clients nobody here wrote: Java 1.4.2's `RESTCatalog` (through
//! `scripts/java-oracle.sh rest-write` / `rest-dump`) creates, writes, commits and reads
//! tables through it, our own REST client reads Java's rows and Java reads ours; two Java
//! writers committing at once both land, once each; a wrong token and a grant too small are
//! refused; a rollback through the server is what Java then reads.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::*;
use paimon_rs::arrow_array::{ArrayRef, Int32Array, StringArray};
use paimon_rs::{Catalog, RecordBatch};

const TOKEN: &str = "tok-admin";
const AUTH: &str = "tok-admin admin admin\ntok-reader reader read:java_db\n";

#[test]
fn java_writes_through_our_server_and_both_clients_read_the_rows() {
    let server = start(Some(AUTH));
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
    let dumped = oracle(&["rest-dump", &server.url, "java_db.t", "--token", TOKEN]);
    assert_eq!(json_rows(&dumped), rows(0, 7, "java"));
    // The reader may read what the admin wrote.
    let dumped = oracle(&[
        "rest-dump",
        &server.url,
        "java_db.t",
        "--token",
        "tok-reader",
    ]);
    assert_eq!(json_rows(&dumped), rows(0, 7, "java"));

    // Our REST client through our server.
    let catalog = Catalog::open(client_options(&server.url, TOKEN)).unwrap();
    assert_eq!(
        catalog.list_databases().unwrap(),
        vec!["java_db".to_string()]
    );
    assert_eq!(
        catalog.list_tables("java_db").unwrap(),
        vec!["t".to_string()]
    );
    let table = catalog.table("java_db.t").unwrap();
    assert_eq!(
        batch_rows(&table.scan().to_arrow().unwrap()),
        rows(0, 7, "java")
    );

    // We write and commit through the server; Java reads both commits.
    let batch = |from: i32, to: i32| {
        let ids: Vec<i32> = (from..to).collect();
        let v: Vec<String> = ids.iter().map(|i| format!("rs-{i}")).collect();
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(ids)),
            Arc::new(StringArray::from(v)),
        ];
        RecordBatch::try_new(table.arrow_schema(), cols).unwrap()
    };
    let report = table.write().batches([batch(10, 13)]).unwrap();
    assert_eq!(report.snapshots, vec![2]);
    let mut expected = rows(0, 7, "java");
    expected.extend(rows(10, 13, "rs"));
    let dumped = oracle(&["rest-dump", &server.url, "java_db.t", "--token", TOKEN]);
    assert_eq!(json_rows(&dumped), expected);
    // The files are the warehouse's own: the filesystem catalog reads the same rows.
    let local = Catalog::filesystem(server.warehouse.to_str().unwrap()).unwrap();
    assert_eq!(
        batch_rows(&local.table("java_db.t").unwrap().scan().to_arrow().unwrap()),
        expected
    );

    // Rollback to Java's snapshot (Java `RollbackTableRequest`): Java reads Java's rows only.
    let path = format!("/v1/{WAREHOUSE}/databases/java_db/tables/t/rollback");
    let body = br#"{"instant":{"type":"snapshot","snapshotId":1},"fromSnapshot":null}"#;
    let (status, answer) = http(&server.url, "POST", &path, Some("tok-reader"), body);
    assert_eq!(status, 403, "a reader may not roll back: {answer}");
    let (status, answer) = http(&server.url, "POST", &path, Some(TOKEN), body);
    assert_eq!(status, 200, "{answer}");
    let dumped = oracle(&["rest-dump", &server.url, "java_db.t", "--token", TOKEN]);
    assert_eq!(json_rows(&dumped), rows(0, 7, "java"));
}

#[test]
fn a_wrong_token_and_a_small_grant_are_refused_by_javas_client() {
    let server = start(Some(AUTH));
    let out = oracle_output(&[
        "rest-dump",
        &server.url,
        "java_db.t",
        "--token",
        "not-a-token",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("NotAuthorizedException"), "{err}");

    // The reader may not create databases (403: Java's DatabaseNoPermissionException).
    let out = oracle_output(&[
        "rest-write",
        &server.url,
        "java_db.t",
        "--from",
        "0",
        "--to",
        "1",
        "--token",
        "tok-reader",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("DatabaseNoPermissionException"), "{err}");
    assert!(std::fs::read_dir(&server.warehouse)
        .unwrap()
        .next()
        .is_none());
}

#[test]
fn two_java_writers_commit_at_once_and_every_commit_lands_once() {
    let server = start(None);
    // The table exists before the race (each writer would create it otherwise).
    oracle(&[
        "rest-write",
        &server.url,
        "race.t",
        "--from",
        "0",
        "--to",
        "1",
    ]);
    let writers: Vec<_> = [(100, 110), (200, 210)]
        .into_iter()
        .map(|(from, to)| {
            let url = server.url.clone();
            std::thread::spawn(move || {
                oracle(&[
                    "rest-write",
                    &url,
                    "race.t",
                    "--from",
                    &from.to_string(),
                    "--to",
                    &to.to_string(),
                ])
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let local = Catalog::filesystem(server.warehouse.to_str().unwrap()).unwrap();
    let table = local.table("race.t").unwrap();
    let snapshots = table.meta().snapshots().unwrap();
    assert_eq!(
        snapshots.iter().map(|s| s.id).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    let mut expected: BTreeMap<i32, String> = rows(0, 1, "java");
    expected.extend(rows(100, 110, "java"));
    expected.extend(rows(200, 210, "java"));
    let dumped = oracle(&["rest-dump", &server.url, "race.t"]);
    assert_eq!(json_rows(&dumped), expected);
}
