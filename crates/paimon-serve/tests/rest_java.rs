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

/// Java 1.4.2's `RESTCatalog` lists partitions (paged too), tags and branches through our
/// server, and what it sees equals what Java's own `FileSystemCatalog` sees on the same
/// warehouse; tags and branches it creates through us are the table's own (our library and
/// Java's filesystem catalog see them; Java reads the branch's rows through us); missing and
/// existing tags and branches are the exceptions Java's client maps them to.
#[test]
fn java_lists_partitions_tags_and_branches_through_our_server() {
    let server = start(Some(AUTH));
    let rest = java_rest(&server.url, TOKEN);
    let fs = java_fs(&server.warehouse);
    // 20 rows in 2 commits (ids 0..10, 10..20), partitioned by id % 3.
    let mut write: Vec<&str> = vec!["catalog-write"];
    write.extend(rest.iter().map(String::as_str));
    write.extend([
        "java_db.parts",
        "--from",
        "0",
        "--to",
        "20",
        "--commits",
        "2",
        "--parts",
        "3",
    ]);
    oracle(&write);

    // Partitions: Java through us equals Java on the files; the counts are the rows written.
    let through_us = meta(&rest, &["java_db.parts", "partitions"]);
    let on_files = meta(&fs, &["java_db.parts", "partitions"]);
    assert_eq!(through_us, on_files);
    let counts = partition_counts(&through_us);
    // p=0: ids 0,3,..,18 (7); p=1: 1,..,19 (7); p=2: 2,..,17 (6); one file per commit each.
    assert_eq!(
        counts,
        vec![
            ("0".to_string(), 7, 2),
            ("1".to_string(), 7, 2),
            ("2".to_string(), 6, 2)
        ]
    );
    let pages = meta(&rest, &["java_db.parts", "partitions-paged", "--max", "2"]);
    assert_eq!(pages, vec![r#"[{"p":"0"},{"p":"1"}]"#, r#"[{"p":"2"}]"#]);
    let pages = meta(
        &rest,
        &["java_db.parts", "partitions-paged", "--pattern", "p=2%"],
    );
    assert_eq!(pages, vec![r#"[{"p":"2"}]"#]);

    // Tags created through us, listed in pages of one, read back by Java on the files.
    meta(
        &rest,
        &["java_db.parts", "create-tag", "t1", "--snapshot", "1"],
    );
    meta(
        &rest,
        &["java_db.parts", "create-tag", "t2", "--retained", "1 h"],
    );
    assert_eq!(
        meta(&rest, &["java_db.parts", "tags", "--max", "1"]),
        vec![r#"["t1"]"#, r#"["t2"]"#]
    );
    assert_eq!(
        meta(&fs, &["java_db.parts", "table-tags"]),
        vec![r#"["t1","t2"]"#]
    );
    for (tag, snapshot, retained) in [("t1", 1, None), ("t2", 2, Some("PT1H"))] {
        let got = json(&meta(&rest, &["java_db.parts", "get-tag", tag])[0]);
        let want = json(&meta(&fs, &["java_db.parts", "table-tag", tag])[0]);
        assert_eq!(got, want);
        assert_eq!(got["snapshotId"], snapshot);
        assert_eq!(got["tagTimeRetained"].as_str(), retained);
    }
    let err = meta_fails(&rest, &["java_db.parts", "get-tag", "nope"]);
    assert!(err.contains("TagNotExistException"), "{err}");
    let err = meta_fails(&rest, &["java_db.parts", "create-tag", "t1"]);
    assert!(err.contains("TagAlreadyExistException"), "{err}");

    // A branch from tag t1 through us: Java reads its rows (snapshot 1) through us.
    meta(
        &rest,
        &["java_db.parts", "create-branch", "b1", "--from-tag", "t1"],
    );
    assert_eq!(
        meta(&rest, &["java_db.parts", "branches"]),
        vec![r#"["b1"]"#]
    );
    assert_eq!(
        meta(&fs, &["java_db.parts", "table-branches"]),
        vec![r#"["b1"]"#]
    );
    let local = Catalog::filesystem(server.warehouse.to_str().unwrap()).unwrap();
    assert_eq!(
        local
            .table("java_db.parts")
            .unwrap()
            .meta()
            .branches()
            .unwrap(),
        vec!["b1".to_string()]
    );
    let dumped = oracle(&[
        "rest-dump",
        &server.url,
        "java_db.parts$branch_b1",
        "--token",
        TOKEN,
    ]);
    assert_eq!(json_rows(&dumped), rows(0, 10, "java"));
    let err = meta_fails(&rest, &["java_db.parts", "create-branch", "b1"]);
    assert!(err.contains("BranchAlreadyExistException"), "{err}");
    let err = meta_fails(
        &rest,
        &["java_db.parts", "create-branch", "b2", "--from-tag", "nope"],
    );
    assert!(err.contains("TagNotExistException"), "{err}");

    // Fast-forward main to the branch: main holds snapshot 1's rows again, and of its tags
    // only the branch's (t1) is left (t2 tagged a snapshot the branch replaced).
    meta(&rest, &["java_db.parts", "fast-forward", "b1"]);
    let dumped = oracle(&["rest-dump", &server.url, "java_db.parts", "--token", TOKEN]);
    assert_eq!(json_rows(&dumped), rows(0, 10, "java"));
    assert_eq!(
        meta(&fs, &["java_db.parts", "table-tags"]),
        vec![r#"["t1"]"#]
    );
    meta(&rest, &["java_db.parts", "drop-branch", "b1"]);
    assert_eq!(meta(&rest, &["java_db.parts", "branches"]), vec!["[]"]);
    let err = meta_fails(&rest, &["java_db.parts", "drop-branch", "b1"]);
    assert!(err.contains("BranchNotExistException"), "{err}");
    meta(&rest, &["java_db.parts", "delete-tag", "t1"]);
    assert_eq!(meta(&fs, &["java_db.parts", "table-tags"]), vec!["[]"]);
    assert_eq!(meta(&rest, &["java_db.parts", "tags"]), vec!["[]"]);

    // Tables in pages of one, and their details.
    let mut write: Vec<&str> = vec!["catalog-write"];
    write.extend(rest.iter().map(String::as_str));
    write.extend(["java_db.t2", "--from", "0", "--to", "1"]);
    oracle(&write);
    assert_eq!(
        meta(&rest, &["java_db.parts", "tables", "--max", "1"]),
        vec![r#"["parts"]"#, r#"["t2"]"#]
    );
    assert_eq!(
        meta(&rest, &["java_db.parts", "table-details"]),
        vec![r#"["parts","t2"]"#]
    );
}
