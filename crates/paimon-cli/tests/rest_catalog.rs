//! `paimon` under a REST catalog (`--catalog-option` / `--catalog-options`) against Java's own
//! `RESTCatalogServer` (`scripts/java-oracle.sh rest-server`): Java writes a table through
//! REST, the CLI lists and reads it, writes rows that Java reads back through REST, manages
//! databases and tables; a wrong token is one error line naming the URI.

use std::process::Output;

use paimon_test_utils::{oracle, JavaRestServer};

const TOKEN: &str = "cli-rest-token";

fn paimon(args: &[&str]) -> Output {
    paimon_test_utils::cli::run(env!("CARGO_BIN_EXE_paimon"), args)
}

fn ok(args: &[&str]) -> String {
    paimon_test_utils::cli::run_ok(env!("CARGO_BIN_EXE_paimon"), args)
}

#[test]
fn the_cli_reads_writes_and_manages_tables_through_rest() {
    let dir = tempfile::tempdir().unwrap();
    let server = JavaRestServer::start(TOKEN);
    let url = server.url.clone();
    oracle(&[
        "rest-write",
        &url,
        "jdb.t",
        "--from",
        "0",
        "--to",
        "3",
        "--token",
        TOKEN,
    ]);

    let props = dir.path().join("catalog.properties");
    std::fs::write(
        &props,
        format!("metastore=rest\nuri: {url}\ntoken {TOKEN}\n# comment\nwarehouse=rest_warehouse\n"),
    )
    .unwrap();
    let file = ["--catalog-options", props.to_str().unwrap()];
    let uri_opt = format!("uri={url}");
    let tok_opt = format!("token={TOKEN}");
    // Options before the command, one by one.
    let opts = [
        "--catalog-option",
        "metastore=rest",
        "--catalog-option",
        &uri_opt,
        "--catalog-option",
        &tok_opt,
        "--catalog-option",
        "warehouse=rest_warehouse",
    ];
    let mut a = opts.to_vec();
    a.push("databases");
    assert_eq!(ok(&a), "jdb\n");
    assert_eq!(ok(&[&["tables", "jdb"][..], &file].concat()), "t\n");
    let read = ok(&[&["read", "jdb.t", "--format", "csv"][..], &file].concat());
    assert_eq!(read, "id,v\n0,java-0\n1,java-1\n2,java-2\n");

    let rows = dir.path().join("rows.jsonl");
    std::fs::write(
        &rows,
        "{\"id\":10,\"v\":\"cli-10\"}\n{\"id\":11,\"v\":\"cli-11\"}\n",
    )
    .unwrap();
    ok(&[
        &["write", "jdb.t", "--from", rows.to_str().unwrap()][..],
        &file,
    ]
    .concat());
    let java = oracle(&["rest-dump", &url, "jdb.t", "--token", TOKEN]);
    assert_eq!(
        java,
        "{\"id\":0,\"v\":\"java-0\"}\n{\"id\":1,\"v\":\"java-1\"}\n{\"id\":10,\"v\":\"cli-10\"}\n\
         {\"id\":11,\"v\":\"cli-11\"}\n{\"id\":2,\"v\":\"java-2\"}\n"
    );

    ok(&[&["create-database", "cdb"][..], &file].concat());
    ok(&[&["create-database", "cdb", "--if-not-exists"][..], &file].concat());
    assert_eq!(ok(&[&["databases"][..], &file].concat()), "cdb\njdb\n");
    ok(&[&["drop-database", "cdb"][..], &file].concat());
    ok(&[&["drop-table", "jdb.t"][..], &file].concat());
    ok(&[&["drop-table", "jdb.t", "--if-exists"][..], &file].concat());
    let out = paimon(&[&["read", "jdb.t"][..], &file].concat());
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "table jdb.t does not exist in catalog {}",
            url.trim_end_matches('/')
        )),
        "{err}"
    );

    let out = paimon(&[
        "databases",
        "--catalog-option",
        "metastore=rest",
        "--catalog-option",
        &uri_opt,
        "--catalog-option",
        "token=wrong",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err.trim_end(),
        format!(
            "error: catalog {}: authorization failed for GET /v1/config: HTTP 401",
            url.trim_end_matches('/')
        )
    );
    server.stop();
}

/// `create-table`, `write`, `compact`, `expire-snapshots`, `alter-table` and a distributed
/// write (`write-context`, `write --context`, `commit`) by `db.table` through REST (their commits through the server); Java's `RESTCatalog` reads the rows after
/// each.
#[test]
fn the_cli_creates_compacts_and_expires_tables_by_name_through_rest() {
    let dir = tempfile::tempdir().unwrap();
    let server = JavaRestServer::start(TOKEN);
    let url = server.url.clone();
    let uri_opt = format!("uri={url}");
    let tok_opt = format!("token={TOKEN}");
    let cat = [
        "--catalog-option",
        "metastore=rest",
        "--catalog-option",
        &uri_opt,
        "--catalog-option",
        &tok_opt,
        "--catalog-option",
        "warehouse=rest_warehouse",
    ];
    let run = |args: &[&str]| ok(&[args, &cat[..]].concat());
    let dump = || oracle(&["rest-dump", &url, "cdb.t", "--token", TOKEN]);

    run(&["create-database", "cdb"]);
    let created = run(&[
        "create-table",
        "cdb.t",
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"v","type":"STRING"}],"primaryKeys":["id"],"options":{"bucket":"1"}}"#,
    ]);
    assert_eq!(
        created,
        "created cdb.t: 2 fields, primary keys [id], partition keys []\n"
    );
    assert_eq!(dump(), "");

    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n").unwrap();
    run(&["write", "cdb.t", "--from", rows.to_str().unwrap()]);
    assert_eq!(dump(), "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b\"}\n");
    std::fs::write(&rows, "{\"id\":2,\"v\":\"b2\"}\n{\"id\":3,\"v\":\"c\"}\n").unwrap();
    run(&["write", "cdb.t", "--from", rows.to_str().unwrap()]);
    let merged = "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b2\"}\n{\"id\":3,\"v\":\"c\"}\n";
    assert_eq!(dump(), merged);

    let compacted = run(&["compact", "cdb.t", "--full"]);
    assert_eq!(
        compacted,
        "1 tasks: 2 files compacted into 1; committed snapshot 3\n",
    );
    assert_eq!(dump(), merged);

    let expired = run(&[
        "expire-snapshots",
        "cdb.t",
        "--retain-max",
        "1",
        "--retain-min",
        "1",
    ]);
    assert!(expired.starts_with("expired snapshots 1..=2 "), "{expired}");
    assert!(expired.ends_with("; earliest 3\n"), "{expired}");
    assert_eq!(dump(), merged);
    let left: Vec<String> = run(&["snapshots", "cdb.t"])
        .lines()
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(left, ["3 COMPACT"]);

    let altered = run(&["alter-table", "cdb.t", "--add-column", "w INT"]);
    assert_eq!(altered, "altered cdb.t: schema 1 with 3 fields\n");
    assert_eq!(
        dump(),
        "{\"id\":1,\"v\":\"a\",\"w\":null}\n{\"id\":2,\"v\":\"b2\",\"w\":null}\n\
         {\"id\":3,\"v\":\"c\",\"w\":null}\n"
    );

    // A distributed write by name: the planner's context, a worker, the commit.
    let ctx = dir.path().join("ctx.bin");
    run(&["write-context", "cdb.t", "-o", ctx.to_str().unwrap()]);
    std::fs::write(&rows, "{\"id\":4,\"v\":\"d\",\"w\":40}\n").unwrap();
    let msgs = dir.path().join("msgs");
    run(&[
        "write",
        "cdb.t",
        "--from",
        rows.to_str().unwrap(),
        "--context",
        ctx.to_str().unwrap(),
        "--prepare-only",
        "--out-dir",
        msgs.to_str().unwrap(),
    ]);
    let msg = msgs.join("message-0000.bin");
    let committed = run(&["commit", "cdb.t", msg.to_str().unwrap()]);
    assert!(committed.contains("committed snapshot 4"), "{committed}");
    assert_eq!(
        dump(),
        "{\"id\":1,\"v\":\"a\",\"w\":null}\n{\"id\":2,\"v\":\"b2\",\"w\":null}\n\
         {\"id\":3,\"v\":\"c\",\"w\":null}\n{\"id\":4,\"v\":\"d\",\"w\":40}\n"
    );
    server.stop();
}

/// Under a catalog, TABLE is `db.table`: a path given together with catalog options is
/// refused with one line naming it, and nothing is created there or in the catalog.
#[test]
fn a_path_given_with_catalog_options_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("wh");
    let path = dir.path().join("elsewhere/t");
    let wh_opt = format!("warehouse={}", warehouse.display());
    let p = path.to_str().unwrap();
    for cmd in [
        &[
            "create-table",
            p,
            "--schema",
            r#"{"fields":[{"name":"id","type":"INT"}]}"#,
        ][..],
        &["compact", p][..],
        &["expire-snapshots", p, "--retain-max", "1"][..],
    ] {
        let out = paimon(
            &[
                cmd,
                &[
                    "--catalog-option",
                    "metastore=filesystem",
                    "--catalog-option",
                    &wh_opt,
                ][..],
            ]
            .concat(),
        );
        assert_eq!(out.status.code(), Some(1), "{cmd:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!(
                "{p}: a path, but a catalog is given (--catalog-option/--catalog-options): \
                 name the table as db.table, or drop the catalog options to open the path"
            )),
            "{cmd:?}: {err}"
        );
        assert!(!path.exists(), "{cmd:?} created {p}");
    }
}

/// The latest snapshot id Java's REST server recorded for `db.table` (`GET .../snapshot`,
/// which moves only for commits sent to the server's commit endpoint), by a plain HTTP/1.1
/// request on loopback.
fn server_snapshot_id(url: &str, db: &str, table: &str) -> i64 {
    use std::io::{Read as _, Write as _};
    let rest = url
        .trim_end_matches('/')
        .strip_prefix("http://")
        .expect("an http URL");
    let (authority, base) = rest.split_once('/').map_or((rest, ""), |(a, b)| (a, b));
    let base = if base.is_empty() {
        String::new()
    } else {
        format!("/{base}")
    };
    let mut s = std::net::TcpStream::connect(authority).unwrap();
    write!(
        s,
        "GET {base}/v1/paimon/databases/{db}/tables/{table}/snapshot HTTP/1.1\r\nHost: {authority}\r\n\
         Authorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // The server may keep the connection open: read until the JSON body is complete.
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&bytes).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            // The JSON object (a chunked body's first chunk starts after its size line).
            if let (Some(start), Some(end)) = (body.find('{'), body.rfind('}')) {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&body[start..=end]) {
                    return v["snapshot"]["snapshot"]["id"].as_i64().unwrap();
                }
            }
        }
        let n = s.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "the server closed before its answer was complete: {text}"
        );
        bytes.extend_from_slice(&buf[..n]);
    }
}

/// `paimon sql --catalog-option ...` over Java's REST catalog: the catalog is the default
/// catalog, SQL reads the rows Java wrote through REST, `INSERT` commits through the server's
/// commit endpoint (Java's server records the snapshot; Java's `RESTCatalog` reads our
/// rows), `CREATE DATABASE` / `CREATE TABLE` / `DROP` go to the server, and `SHOW DATABASES`
/// / `information_schema` list the server's names.
#[test]
fn sql_reads_writes_and_creates_tables_through_rest() {
    let server = JavaRestServer::start(TOKEN);
    let url = server.url.clone();
    oracle(&[
        "rest-write",
        &url,
        "jdb.t",
        "--from",
        "0",
        "--to",
        "3",
        "--token",
        TOKEN,
    ]);
    assert_eq!(server_snapshot_id(&url, "jdb", "t"), 1);
    let uri_opt = format!("uri={url}");
    let tok_opt = format!("token={TOKEN}");
    let cat = [
        "--catalog-option",
        "metastore=rest",
        "--catalog-option",
        &uri_opt,
        "--catalog-option",
        &tok_opt,
        "--catalog-option",
        "warehouse=rest_warehouse",
    ];
    let sql = |q: &str| ok(&[&["sql", q, "--format", "csv"][..], &cat[..]].concat());

    assert_eq!(sql("SHOW DATABASES"), "database_name\njdb\n");
    assert_eq!(
        sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'jdb'"),
        "table_name\nt\n"
    );
    assert_eq!(
        sql("SELECT id, v FROM jdb.t ORDER BY id"),
        "id,v\n0,java-0\n1,java-1\n2,java-2\n"
    );
    assert_eq!(
        sql("INSERT INTO jdb.t VALUES (10, 'sql-10'), (11, 'sql-11')"),
        "count\n2\n"
    );
    // The commit went to the server, and Java reads the rows.
    assert_eq!(server_snapshot_id(&url, "jdb", "t"), 2);
    assert_eq!(
        oracle(&["rest-dump", &url, "jdb.t", "--token", TOKEN]),
        "{\"id\":0,\"v\":\"java-0\"}\n{\"id\":1,\"v\":\"java-1\"}\n{\"id\":10,\"v\":\"sql-10\"}\n\
         {\"id\":11,\"v\":\"sql-11\"}\n{\"id\":2,\"v\":\"java-2\"}\n"
    );
    assert_eq!(sql("SELECT count(*) AS n FROM jdb.t"), "n\n5\n");

    // DDL through the catalog; Java sees the table and its rows.
    sql("CREATE DATABASE sdb");
    sql("CREATE TABLE sdb.k (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')");
    sql("INSERT INTO sdb.k VALUES (1, 'a'), (2, 'b')");
    sql("INSERT INTO sdb.k VALUES (2, 'b2')");
    assert_eq!(server_snapshot_id(&url, "sdb", "k"), 2);
    assert_eq!(
        oracle(&["rest-dump", &url, "sdb.k", "--token", TOKEN]),
        "{\"id\":1,\"v\":\"a\"}\n{\"id\":2,\"v\":\"b2\"}\n"
    );
    assert_eq!(sql("SHOW DATABASES"), "database_name\njdb\nsdb\n");
    assert_eq!(
        sql(r#"SELECT snapshot_id, commit_kind FROM sdb."k$snapshots" ORDER BY snapshot_id"#),
        "snapshot_id,commit_kind\n1,APPEND\n2,APPEND\n"
    );
    sql("DROP TABLE sdb.k");
    let out = paimon(&[&["sql", "SELECT * FROM sdb.k"][..], &cat[..]].concat());
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("sdb.k"), "{err}");
    sql("DROP DATABASE sdb");
    assert_eq!(sql("SHOW DATABASES"), "database_name\njdb\n");

    // With two positional arguments the first is the catalog's warehouse option.
    let two = ok(&[
        &[
            "sql",
            "rest_warehouse",
            "SELECT count(*) AS n FROM jdb.t",
            "--format",
            "csv",
        ][..],
        &cat[..6],
    ]
    .concat());
    assert_eq!(two, "n\n5\n");
    server.stop();
}
