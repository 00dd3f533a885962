//! `paimon` under a JDBC catalog (`--catalog-option metastore=jdbc --catalog-option uri=...`)
//! on the PostgreSQL that `scripts/test-jdbc.sh` starts (`PAIMON_JDBC_TEST_URI`, `_USER`,
//! `_PASSWORD`): databases and tables created, listed, written, read, renamed and dropped by
//! name, the rows in Java's `paimon_tables`; a wrong password is one error line naming the
//! catalog, never the password. Without `PAIMON_JDBC_TEST_URI` the test prints why and
//! returns, unless `PAIMON_JDBC_TEST_REQUIRED` is set (the script sets it), where it fails.
#![cfg(feature = "jdbc")]

use std::process::{Command, Output};

fn paimon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = paimon(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
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
