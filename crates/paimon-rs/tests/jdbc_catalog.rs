//! The JDBC catalog against Java 1.4.2's `JdbcCatalog` on a real PostgreSQL (started by
//! `scripts/test-jdbc.sh`, which passes the connection in `PAIMON_JDBC_TEST_URI`, `_USER`,
//! `_PASSWORD`): Java registers and writes a table and we list and read it; we create, write
//! and rename, and Java lists and reads ours; Java drops and we see it gone; under
//! `lock.enabled` our commits wait for Java's lock row and Java's and ours, run at once, all
//! land once; a wrong password is a typed authorization error naming the catalog, not the
//! password. Without `PAIMON_JDBC_TEST_URI` the tests print why and return, unless
//! `PAIMON_JDBC_TEST_REQUIRED` is set (the script sets it), where they fail.
#![cfg(feature = "jdbc")]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use paimon_rs::meta::{CatalogFailure, Error as MetaError};
use paimon_rs::{Catalog, Error};
use paimon_test_utils::{batch_row_list, id_v_batch, json_row_list, repo, row_list};

/// The test database's connection, or `None` (after saying why) when none is configured.
struct Pg {
    uri: String,
    user: String,
    password: String,
}

fn pg() -> Option<Pg> {
    match std::env::var("PAIMON_JDBC_TEST_URI") {
        Ok(uri) => Some(Pg {
            uri,
            user: std::env::var("PAIMON_JDBC_TEST_USER").unwrap_or_default(),
            password: std::env::var("PAIMON_JDBC_TEST_PASSWORD").unwrap_or_default(),
        }),
        Err(_) => {
            assert!(
                std::env::var_os("PAIMON_JDBC_TEST_REQUIRED").is_none(),
                "PAIMON_JDBC_TEST_REQUIRED is set but PAIMON_JDBC_TEST_URI is not"
            );
            eprintln!(
                "skipped: PAIMON_JDBC_TEST_URI is not set (scripts/test-jdbc.sh starts a \
                 PostgreSQL and sets it)"
            );
            None
        }
    }
}

/// Catalog options of one test: its own `catalog-key` and warehouse, so tests sharing the
/// database never see each other's names.
fn options(pg: &Pg, key: &str, warehouse: &Path, lock: bool) -> BTreeMap<String, String> {
    [
        ("metastore", "jdbc"),
        ("uri", pg.uri.as_str()),
        ("jdbc.user", pg.user.as_str()),
        ("jdbc.password", pg.password.as_str()),
        ("warehouse", warehouse.to_str().unwrap()),
        ("lock.enabled", if lock { "true" } else { "false" }),
        ("lock-check-max-sleep", "200 ms"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .chain([(
        "catalog-key".to_string(),
        format!("{key}-{}", std::process::id()),
    )])
    .collect()
}

fn java_args(options: &BTreeMap<String, String>) -> Vec<String> {
    options
        .iter()
        .flat_map(|(k, v)| ["--catalog-option".to_string(), format!("{k}={v}")])
        .collect()
}

fn java(cmd: &str, options: &BTreeMap<String, String>, args: &[&str]) -> Command {
    let mut c = Command::new(repo().join("scripts/java-oracle.sh"));
    c.arg(cmd)
        .args(java_args(options))
        .args(args)
        .stdin(Stdio::null());
    c
}

fn oracle(cmd: &str, options: &BTreeMap<String, String>, args: &[&str]) -> String {
    let out = java(cmd, options, args)
        .output()
        .expect("run java-oracle.sh");
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn schema() -> paimon_rs::spec::schema::TableSchema {
    paimon_rs::spec::schema::TableSchema::from_json_str(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},
            {"id":1,"name":"v","type":"STRING"}],"highestFieldId":1,"partitionKeys":[],
            "primaryKeys":[],"options":{},"timeMillis":0}"#,
    )
    .unwrap()
}

#[test]
fn java_and_we_share_one_catalog() {
    let Some(pg) = pg() else { return };
    let wh = tempfile::tempdir().unwrap();
    let opts = options(&pg, "share", wh.path(), false);

    // Java registers a database and a table and writes; we list and read them.
    oracle(
        "catalog-write",
        &opts,
        &["jdb.t", "--from", "0", "--to", "5"],
    );
    let catalog = Catalog::open(opts.clone()).unwrap();
    assert_eq!(catalog.list_databases().unwrap(), vec!["jdb".to_string()]);
    assert_eq!(catalog.list_tables("jdb").unwrap(), vec!["t".to_string()]);
    let t = catalog.table("jdb.t").unwrap();
    assert_eq!(
        batch_row_list(&t.scan().to_arrow().unwrap()),
        row_list(0, 5, "java")
    );
    assert!(wh.path().join("jdb.db/t/snapshot/snapshot-1").exists());

    // We create, write and commit; Java lists and reads ours.
    catalog
        .create_database("rs_db", false, &BTreeMap::new())
        .unwrap();
    catalog.create_table("rs_db.a", schema(), false).unwrap();
    let e = catalog
        .create_table("rs_db.a", schema(), false)
        .unwrap_err();
    assert!(
        e.to_string().contains("table rs_db.a already exists"),
        "{e}"
    );
    let t = catalog.table("rs_db.a").unwrap();
    assert_eq!(
        t.write()
            .batches([id_v_batch(t.arrow_schema(), 0, 4, "rs")])
            .unwrap()
            .snapshots,
        vec![1]
    );
    assert_eq!(
        oracle("catalog-op", &opts, &["list-tables", "rs_db"]),
        "a\n"
    );
    assert_eq!(
        json_row_list(&oracle("catalog-dump", &opts, &["rs_db.a"])),
        row_list(0, 4, "rs")
    );

    // Our rename moves the row and the directory: Java reads the table by its new name.
    catalog.rename_table("rs_db.a", "rs_db.b", false).unwrap();
    assert!(!wh.path().join("rs_db.db/a").exists());
    assert_eq!(
        json_row_list(&oracle("catalog-dump", &opts, &["rs_db.b"])),
        row_list(0, 4, "rs")
    );

    // Java drops its table and renames ours back; we see both.
    oracle("catalog-op", &opts, &["drop-table", "jdb.t"]);
    let e = catalog.table("jdb.t").unwrap_err();
    let Error::Meta(m) = &e else { panic!("{e}") };
    assert!(
        matches!(**m, MetaError::CatalogObjectNotFound { kind: "table", .. }),
        "{e}"
    );
    assert!(!wh.path().join("jdb.db/t").exists());
    catalog.drop_table("rs_db.b", false).unwrap();
    assert_eq!(catalog.list_tables("rs_db").unwrap(), Vec::<String>::new());
    catalog.drop_database("rs_db", false, false).unwrap();
    assert_eq!(catalog.list_databases().unwrap(), vec!["jdb".to_string()]);
}

/// `psql` on the test database (the lock row is put there by hand, as Java would hold it).
fn psql(pg: &Pg, sql: &str) -> String {
    let rest = pg.uri.strip_prefix("jdbc:postgresql://").unwrap();
    let (hostport, db) = rest.split_once('/').unwrap();
    let (host, port) = hostport.split_once(':').unwrap();
    let out = Command::new("psql")
        .args([
            "-qtA", "-h", host, "-p", port, "-U", &pg.user, "-d", db, "-c", sql,
        ])
        .env("PGPASSWORD", &pg.password)
        .output()
        .expect("run psql");
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn commits_take_javas_lock_and_every_commit_lands_once() {
    let Some(pg) = pg() else { return };
    let wh = tempfile::tempdir().unwrap();
    let opts = options(&pg, "lock", wh.path(), true);
    let key = &opts["catalog-key"];
    oracle(
        "catalog-write",
        &opts,
        &["ldb.t", "--from", "0", "--to", "2"],
    );
    let catalog = Catalog::open(opts.clone()).unwrap();
    let t = catalog.table("ldb.t").unwrap();
    assert!(
        format!("{:?}", t.meta().snapshot_commit()).starts_with("JdbcSnapshotCommit"),
        "a JDBC table under lock.enabled publishes under the lock"
    );

    // Java's lock row for the table held (as Java holds it while it publishes): our commit
    // waits until it goes, then lands.
    psql(
        &pg,
        &format!(
            "INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) \
             VALUES ('{key}.ldb.t', 600)"
        ),
    );
    let writer = {
        let t = t.clone();
        std::thread::spawn(move || {
            t.write()
                .batches([id_v_batch(t.arrow_schema(), 10, 11, "rs")])
                .unwrap()
                .snapshots
        })
    };
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!writer.is_finished(), "the commit went on without the lock");
    assert!(!wh.path().join("ldb.db/t/snapshot/snapshot-2").exists());
    psql(
        &pg,
        &format!("DELETE FROM paimon_distributed_locks WHERE lock_id = '{key}.ldb.t'"),
    );
    assert_eq!(writer.join().unwrap(), vec![2]);

    // Java (another process, 6 commits) and we (6 commits) at once: all 12 land once.
    let mut java_child = java(
        "catalog-write",
        &opts,
        &["ldb.t", "--from", "100", "--to", "106", "--commits", "6"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let started = Instant::now();
    for i in 0..6 {
        t.write()
            .batches([id_v_batch(t.arrow_schema(), 20 + i, 21 + i, "rs")])
            .unwrap();
    }
    let status = java_child.wait().unwrap();
    assert!(status.success(), "Java's writes failed");
    let mut expected = row_list(0, 2, "java");
    expected.extend(row_list(10, 11, "rs"));
    expected.extend(row_list(20, 26, "rs"));
    expected.extend(row_list(100, 106, "java"));
    expected.sort();
    let t = catalog.table("ldb.t").unwrap();
    assert_eq!(batch_row_list(&t.scan().to_arrow().unwrap()), expected);
    assert_eq!(
        json_row_list(&oracle("catalog-dump", &opts, &["ldb.t"])),
        expected
    );
    let snapshots = std::fs::read_dir(wh.path().join("ldb.db/t/snapshot"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("snapshot-")
        })
        .count();
    assert_eq!(snapshots, 14, "1 + 1 + 6 + 6 commits");
    assert_eq!(
        psql(
            &pg,
            &format!("SELECT count(*) FROM paimon_distributed_locks WHERE lock_id LIKE '{key}.%'")
        )
        .trim(),
        "0",
        "no lock left behind"
    );
    eprintln!("concurrent commits took {:?}", started.elapsed());
}

#[test]
fn a_wrong_password_is_an_authorization_error_naming_the_catalog() {
    let Some(pg) = pg() else { return };
    let wh = tempfile::tempdir().unwrap();
    let mut opts = options(&pg, "pw", wh.path(), false);
    let wrong = "not-the-password-4711";
    opts.insert("jdbc.password".into(), wrong.into());
    let e = Catalog::open(opts).unwrap_err();
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
            "catalog {}: authorization failed for connect",
            pg.uri
        )),
        "{msg}"
    );
    assert!(!msg.contains(wrong), "{msg}");
    assert!(!format!("{e:?}").contains(wrong), "{e:?}");

    // Nothing listening: unreachable, at once.
    let mut opts = options(&pg, "pw", wh.path(), false);
    opts.insert("uri".into(), "jdbc:postgresql://127.0.0.1:1/x".into());
    let started = Instant::now();
    let e = Catalog::open(opts).unwrap_err().to_string();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        e.starts_with("catalog jdbc:postgresql://127.0.0.1:1/x: unreachable on connect"),
        "{e}"
    );
}
