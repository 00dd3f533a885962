//! `paimon` under a JDBC catalog (`--catalog-option metastore=jdbc --catalog-option uri=...`)
//! on the PostgreSQL that `scripts/test-jdbc.sh` starts (`PAIMON_JDBC_TEST_URI`, `_USER`,
//! `_PASSWORD`): databases and tables created, listed, written, read, renamed and dropped by
//! name, the rows in Java's `paimon_tables`; a wrong password is one error line naming the
//! catalog, never the password. Without `PAIMON_JDBC_TEST_URI` the test prints why and
//! returns, unless `PAIMON_JDBC_TEST_REQUIRED` is set (the script sets it), where it fails.
#![cfg(feature = "jdbc")]

use std::process::{Command, Output};

use paimon_test_utils::oracle;

fn paimon(args: &[&str]) -> Output {
    paimon_test_utils::cli::run(env!("CARGO_BIN_EXE_paimon"), args)
}

fn ok(args: &[&str]) -> String {
    paimon_test_utils::cli::run_ok(env!("CARGO_BIN_EXE_paimon"), args)
}

#[test]
fn the_cli_manages_reads_and_writes_tables_through_jdbc() {
    let Ok(uri) = std::env::var("PAIMON_JDBC_TEST_URI") else {
        assert!(
            std::env::var_os("PAIMON_JDBC_TEST_REQUIRED").is_none(),
            "PAIMON_JDBC_TEST_REQUIRED is set but PAIMON_JDBC_TEST_URI is not"
        );
        eprintln!("skipped: PAIMON_JDBC_TEST_URI is not set (scripts/test-jdbc.sh sets it)");
        return;
    };
    let user = std::env::var("PAIMON_JDBC_TEST_USER").unwrap_or_default();
    let password = std::env::var("PAIMON_JDBC_TEST_PASSWORD").unwrap_or_default();
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let opts: Vec<String> = [
        "metastore=jdbc".to_string(),
        format!("uri={uri}"),
        format!("jdbc.user={user}"),
        format!("jdbc.password={password}"),
        format!("warehouse={}", wh.display()),
        format!("catalog-key=cli-{}", std::process::id()),
    ]
    .into_iter()
    .flat_map(|o| ["--catalog-option".to_string(), o])
    .collect();
    let cat: Vec<&str> = opts.iter().map(String::as_str).collect();
    let run = |args: &[&str]| ok(&[args, &cat[..]].concat());

    assert_eq!(run(&["databases"]), "");
    run(&["create-database", "cdb"]);
    run(&["create-database", "cdb", "--if-not-exists"]);
    assert_eq!(run(&["databases"]), "cdb\n");
    run(&[
        "create-table",
        "cdb.t",
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT"},{"name":"v","type":"STRING"}]}"#,
    ]);
    assert_eq!(run(&["tables", "cdb"]), "t\n");
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n").unwrap();
    run(&["write", "cdb.t", "--from", rows.to_str().unwrap()]);
    assert_eq!(
        run(&["read", "cdb.t", "--format", "csv"]),
        "id,v\n1,a\n2,b\n"
    );
    assert!(wh.join("cdb.db/t/snapshot/snapshot-1").exists());
    run(&["rename-table", "cdb.t", "cdb.u"]);
    assert_eq!(run(&["tables", "cdb"]), "u\n");
    assert_eq!(
        run(&["read", "cdb.u", "--format", "csv"]),
        "id,v\n1,a\n2,b\n"
    );
    let out = paimon(&[&["read", "cdb.t"][..], &cat].concat());
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err.trim_end(),
        format!("error: table cdb.t does not exist in catalog {uri}")
    );
    run(&["drop-table", "cdb.u"]);
    run(&["drop-database", "cdb"]);
    assert_eq!(run(&["databases"]), "");

    let wrong: Vec<String> = opts
        .iter()
        .map(|o| {
            if o.starts_with("jdbc.password=") {
                "jdbc.password=wrong-pw-0815".to_string()
            } else {
                o.clone()
            }
        })
        .collect();
    let wrong: Vec<&str> = wrong.iter().map(String::as_str).collect();
    let out = paimon(&[&["databases"][..], &wrong].concat());
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "error: catalog {uri}: authorization failed for connect: FATAL: password \
             authentication failed"
        )),
        "{err}"
    );
    assert!(!err.contains("wrong-pw-0815"), "{err}");
}

/// `psql -c sql` on the test's PostgreSQL (`uri` as Java's `jdbc:postgresql://host:port/db`).
fn psql(uri: &str, user: &str, password: &str, sql: &str) -> String {
    let rest = uri.strip_prefix("jdbc:postgresql://").unwrap();
    let (hostport, db) = rest.split_once('/').unwrap();
    let (host, port) = hostport.split_once(':').unwrap();
    let out = Command::new("psql")
        .args([
            "-qtA", "-h", host, "-p", port, "-U", user, "-d", db, "-c", sql,
        ])
        .env("PGPASSWORD", password)
        .output()
        .expect("run psql");
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `paimon sql` under a JDBC catalog with `lock.enabled`: SQL reads the rows Java's
/// `JdbcCatalog` wrote; an `INSERT` takes Java's JDBC lock for its commit (while Java's lock
/// row for the table is held, the statement waits and publishes nothing; once it goes, the
/// commit lands), and Java reads the rows.
#[test]
fn sql_commits_through_jdbc_under_javas_lock() {
    let Ok(uri) = std::env::var("PAIMON_JDBC_TEST_URI") else {
        assert!(
            std::env::var_os("PAIMON_JDBC_TEST_REQUIRED").is_none(),
            "PAIMON_JDBC_TEST_REQUIRED is set but PAIMON_JDBC_TEST_URI is not"
        );
        eprintln!("skipped: PAIMON_JDBC_TEST_URI is not set (scripts/test-jdbc.sh sets it)");
        return;
    };
    let user = std::env::var("PAIMON_JDBC_TEST_USER").unwrap_or_default();
    let password = std::env::var("PAIMON_JDBC_TEST_PASSWORD").unwrap_or_default();
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let key = format!("sql-{}", std::process::id());
    let opts: Vec<String> = [
        "metastore=jdbc".to_string(),
        format!("uri={uri}"),
        format!("jdbc.user={user}"),
        format!("jdbc.password={password}"),
        format!("warehouse={}", wh.display()),
        format!("catalog-key={key}"),
        "lock.enabled=true".to_string(),
        "lock-check-max-sleep=200 ms".to_string(),
    ]
    .into_iter()
    .flat_map(|o| ["--catalog-option".to_string(), o])
    .collect();
    let cat: Vec<&str> = opts.iter().map(String::as_str).collect();
    oracle(
        &[
            &["catalog-write"][..],
            &cat,
            &["sdb.t", "--from", "0", "--to", "2"],
        ]
        .concat(),
    );
    let sql = |q: &str| ok(&[&["sql", q, "--format", "csv"][..], &cat].concat());
    assert_eq!(
        sql("SELECT id, v FROM sdb.t ORDER BY id"),
        "id,v\n0,java-0\n1,java-1\n"
    );

    psql(
        &uri,
        &user,
        &password,
        &format!(
            "INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) \
             VALUES ('{key}.sdb.t', 600)"
        ),
    );
    let mut insert = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(
            [
                &[
                    "sql",
                    "INSERT INTO sdb.t VALUES (10, 'sql-10')",
                    "--format",
                    "csv",
                ][..],
                &cat,
            ]
            .concat(),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert!(
        insert.try_wait().unwrap().is_none(),
        "the INSERT committed without Java's lock"
    );
    assert!(!wh.join("sdb.db/t/snapshot/snapshot-2").exists());
    psql(
        &uri,
        &user,
        &password,
        &format!("DELETE FROM paimon_distributed_locks WHERE lock_id = '{key}.sdb.t'"),
    );
    let out = insert.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "count\n1\n");
    assert!(wh.join("sdb.db/t/snapshot/snapshot-2").exists());
    let mut java: Vec<String> = oracle(&[&["catalog-dump"][..], &cat, &["sdb.t"]].concat())
        .lines()
        .map(str::to_string)
        .collect();
    java.sort();
    assert_eq!(
        java,
        [
            "{\"id\":0,\"v\":\"java-0\"}",
            "{\"id\":1,\"v\":\"java-1\"}",
            "{\"id\":10,\"v\":\"sql-10\"}"
        ]
    );
}
