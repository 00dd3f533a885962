//! The REST catalog client against Java's own `RESTCatalogServer` (paimon-core 1.4.2's tests
//! jar on okhttp's mockwebserver, started on loopback by `scripts/java-oracle.sh
//! rest-server`): Java creates and writes a table through REST and we find it, load it and
//! plan Java's rows; we create a database and a table through REST, commit Java-written files
//! through the server's commit endpoint (exactly once per identifier) and Java reads the rows
//! through REST; alter, rename and drop go through the server; a wrong token is an
//! authorization failure naming the URI; a stopped server is reported unreachable at once.
#![cfg(feature = "rest")]

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use paimon_meta::catalog::{open_catalog, BranchStart, Catalog, Identifier};
use paimon_meta::commit::SchemaChange;
use paimon_meta::{CatalogFailure, Error};
use paimon_spec::schema::TableSchema;
use paimon_test_utils::{oracle, JavaRestServer};

const TOKEN: &str = "rest-test-token";

/// Our REST client of `server`.
fn catalog(server: &JavaRestServer) -> Arc<dyn Catalog> {
    open_catalog(&server.options(TOKEN)).unwrap()
}

/// One server for the tests of this file (it exits with the test process: its stdin closes).
fn shared() -> &'static JavaRestServer {
    static SERVER: OnceLock<JavaRestServer> = OnceLock::new();
    SERVER.get_or_init(|| JavaRestServer::start(TOKEN))
}

fn schema(id_type: &str) -> TableSchema {
    TableSchema::from_json_str(&format!(
        r#"{{"version":3,"id":0,"fields":[{{"id":0,"name":"id","type":"{id_type}"}},
            {{"id":1,"name":"v","type":"STRING"}}],"highestFieldId":1,"partitionKeys":[],
            "primaryKeys":[],"options":{{}},"timeMillis":0}}"#
    ))
    .unwrap()
}

fn planned_rows(c: &dyn Catalog, id: &Identifier) -> (Option<i64>, i64) {
    let plan = c.get_table(id).unwrap().scan().plan().unwrap();
    let rows = plan
        .splits
        .iter()
        .flat_map(|s| s.data_files.iter())
        .map(|f| f.row_count)
        .sum();
    (plan.snapshot_id, rows)
}

#[test]
fn java_writes_through_rest_and_we_load_and_plan_its_table() {
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
    oracle(&[
        "rest-write",
        &server.url,
        "java_db.t",
        "--from",
        "7",
        "--to",
        "10",
        "--token",
        TOKEN,
    ]);
    let c = catalog(server);
    assert!(c.list_databases().unwrap().contains(&"java_db".to_string()));
    assert_eq!(c.list_tables("java_db").unwrap(), vec!["t".to_string()]);
    let id = Identifier::parse("java_db.t").unwrap();
    let t = c.get_table(&id).unwrap();
    assert_eq!(
        t.schema()
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>(),
        ["id", "v"]
    );
    assert_eq!(planned_rows(c.as_ref(), &id), (Some(2), 10));
    let e = c
        .get_table(&Identifier::parse("java_db.missing").unwrap())
        .unwrap_err();
    assert!(
        matches!(e, Error::CatalogObjectNotFound { kind: "table", .. }),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("table java_db.missing does not exist"),
        "{e}"
    );
    let e = c.list_tables("no_db").unwrap_err();
    assert!(
        e.to_string().starts_with("database no_db does not exist"),
        "{e}"
    );
}

#[test]
fn we_create_and_commit_through_rest_and_java_reads_the_rows() {
    let server = shared();
    let c = catalog(server);
    c.create_database("rs_db", false, &BTreeMap::new()).unwrap();
    let e = c
        .create_database("rs_db", false, &BTreeMap::new())
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::CatalogObjectExists {
                kind: "database",
                ..
            }
        ),
        "{e}"
    );
    c.create_database("rs_db", true, &BTreeMap::new()).unwrap();
    let id = Identifier::parse("rs_db.t").unwrap();
    c.create_table(&id, schema("BIGINT"), false).unwrap();
    let e = c.create_table(&id, schema("BIGINT"), false).unwrap_err();
    assert!(
        e.to_string().starts_with("table rs_db.t already exists"),
        "{e}"
    );
    c.create_table(&id, schema("BIGINT"), true).unwrap();

    let table = c.get_table(&id).unwrap();
    assert!(format!("{:?}", table.snapshot_commit()).starts_with("RestSnapshotCommit"));
    // Java writes the files and commits nothing; we commit them through the server.
    let msgs_dir = tempfile::tempdir().unwrap();
    let out = oracle(&[
        "prepare-messages",
        table.path(),
        msgs_dir.path().to_str().unwrap(),
        "--from",
        "0",
        "--to",
        "6",
    ]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let version = i32::try_from(v["version"].as_i64().unwrap()).unwrap();
    let mut messages = Vec::new();
    for e in std::fs::read_dir(msgs_dir.path()).unwrap() {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        messages.push(paimon_split::commit::decode_commit_message(&bytes, version).unwrap());
    }
    assert!(!messages.is_empty());
    let commit = table.new_commit("rest-test");
    assert_eq!(commit.commit(5, &messages).unwrap(), vec![1]);
    // The same identifier again lands nothing.
    assert!(commit.commit(5, &messages).unwrap().is_empty());
    assert_eq!(planned_rows(c.as_ref(), &id), (Some(1), 6));
    let java = oracle(&["rest-dump", &server.url, "rs_db.t", "--token", TOKEN]);
    let want: String = (0..6)
        .map(|i| format!("{{\"id\":{i},\"v\":\"java-{i}\"}}\n"))
        .collect();
    assert_eq!(java, want);

    // Alter, rename and drop through the server.
    let set = SchemaChange::SetOption {
        key: "snapshot.num-retained.max".into(),
        value: "90".into(),
    };
    c.alter_table(&id, &[set], false).unwrap();
    let t = c.get_table(&id).unwrap();
    assert_eq!(t.schema().id, 1);
    assert_eq!(t.schema().options["snapshot.num-retained.max"], "90");
    let renamed = Identifier::parse("rs_db.t2").unwrap();
    c.rename_table(&id, &renamed, false).unwrap();
    assert_eq!(c.list_tables("rs_db").unwrap(), vec!["t2".to_string()]);
    // (Java's test server keeps the old path in the renamed table's metadata while it moves
    // the directory, so the renamed table is not opened here.)
    let e = c.drop_database("rs_db", false, false).unwrap_err();
    assert!(e.to_string().contains("drop it with cascade"), "{e}");
    c.drop_table(&renamed, false).unwrap();
    let e = c.drop_table(&renamed, false).unwrap_err();
    assert!(matches!(e, Error::CatalogObjectNotFound { .. }), "{e}");
    c.drop_table(&renamed, true).unwrap();
    c.drop_database("rs_db", false, false).unwrap();
    assert!(!c.list_databases().unwrap().contains(&"rs_db".to_string()));
}

#[test]
fn a_wrong_token_is_an_authorization_failure_naming_the_uri() {
    let server = shared();
    let e = open_catalog(&server.options("not-the-token")).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Catalog {
                failure: CatalogFailure::NotAuthorized,
                ..
            }
        ),
        "{e}"
    );
    let msg = e.to_string();
    let uri = server.url.trim_end_matches('/');
    assert!(
        msg.starts_with(&format!(
            "catalog {uri}: authorization failed for GET /v1/config"
        )),
        "{msg}"
    );
    assert!(msg.contains("HTTP 401"), "{msg}");
}

#[test]
fn a_stopped_server_is_reported_unreachable_at_once() {
    let server = JavaRestServer::start(TOKEN);
    let options = server.options(TOKEN);
    let c = open_catalog(&options).unwrap();
    c.list_databases().unwrap();
    server.stop();
    let started = Instant::now();
    let e = c.list_databases().unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(
            e,
            Error::Catalog {
                failure: CatalogFailure::Unreachable,
                ..
            }
        ),
        "{e}"
    );
    let msg = e.to_string();
    let uri = options["uri"].trim_end_matches('/');
    assert!(
        msg.starts_with(&format!(
            "catalog {uri}: unreachable on GET /v1/paimon/databases"
        )),
        "{msg}"
    );
}

/// `catalog-meta` of the oracle through Java's REST client of `server`, its output lines.
fn java_meta(server: &JavaRestServer, args: &[&str]) -> Vec<String> {
    let options = [
        "metastore=rest".to_string(),
        format!("uri={}", server.url),
        "token.provider=bear".to_string(),
        format!("token={TOKEN}"),
        "warehouse=rest_warehouse".to_string(),
    ];
    let mut all: Vec<&str> = vec!["catalog-meta"];
    for o in &options {
        all.extend(["--catalog-option", o.as_str()]);
    }
    all.extend(args);
    oracle(&all).lines().map(str::to_string).collect()
}

/// Our client's partitions, tags and branches against Java's own `RESTCatalogServer`: the
/// partitions it lists equal what Java's client lists from the same server; tags and branches
/// we create through it are what Java's client then lists (and the reverse); a missing tag is
/// a missing `tag` object naming the table and the tag.
#[test]
fn partitions_tags_and_branches_against_javas_server() {
    let server = shared();
    let write = [
        "catalog-write",
        "--catalog-option",
        "metastore=rest",
        "--catalog-option",
        &format!("uri={}", server.url),
        "--catalog-option",
        "token.provider=bear",
        "--catalog-option",
        &format!("token={TOKEN}"),
        "--catalog-option",
        "warehouse=rest_warehouse",
        "meta_db.parts",
        "--from",
        "0",
        "--to",
        "20",
        "--commits",
        "2",
        "--parts",
        "3",
    ];
    oracle(&write);
    let c = catalog(server);
    let id = Identifier::parse("meta_db.parts").unwrap();

    // Partitions: ours equal Java's, field by field.
    let ours = c.list_partitions(&id).unwrap();
    let java: Vec<serde_json::Value> = java_meta(server, &["meta_db.parts", "partitions"])
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ours.len(), 3);
    assert_eq!(ours.len(), java.len());
    for (p, j) in ours.iter().zip(&java) {
        let spec: BTreeMap<String, String> = serde_json::from_value(j["spec"].clone()).unwrap();
        assert_eq!(p.spec, spec);
        assert_eq!(p.record_count, j["recordCount"].as_i64().unwrap());
        assert_eq!(p.file_size_in_bytes, j["fileSizeInBytes"].as_i64().unwrap());
        assert_eq!(p.file_count, j["fileCount"].as_i64().unwrap());
        assert_eq!(
            p.last_file_creation_time,
            j["lastFileCreationTime"].as_i64().unwrap()
        );
        assert_eq!(
            i64::from(p.total_buckets),
            j["totalBuckets"].as_i64().unwrap()
        );
    }
    // p=0: 7 rows, p=1: 7, p=2: 6 (ids 0..20 by id % 3).
    assert_eq!(
        ours.iter().map(|p| p.record_count).collect::<Vec<_>>(),
        [7, 7, 6]
    );

    // Tags: ours listed by Java, Java's listed by us.
    c.create_tag(&id, "ours", Some(1), None).unwrap();
    java_meta(server, &["meta_db.parts", "create-tag", "javas"]);
    assert_eq!(c.list_tags(&id).unwrap(), ["javas", "ours"]);
    assert_eq!(
        java_meta(server, &["meta_db.parts", "tags"]),
        vec![r#"["javas","ours"]"#]
    );
    assert_eq!(c.get_tag(&id, "ours").unwrap().snapshot.id, 1);
    assert_eq!(c.get_tag(&id, "javas").unwrap().snapshot.id, 2);
    let e = c.get_tag(&id, "nope").unwrap_err();
    assert!(
        matches!(&e, Error::CatalogObjectNotFound { kind: "tag", name, .. } if name == "meta_db.parts:nope"),
        "{e}"
    );

    // Branches: ours from a tag, listed by Java; dropped by us, gone for Java.
    c.create_branch(&id, "b1", &BranchStart::Tag("ours".into()))
        .unwrap();
    assert_eq!(c.list_branches(&id).unwrap(), ["b1"]);
    assert_eq!(
        java_meta(server, &["meta_db.parts", "branches"]),
        vec![r#"["b1"]"#]
    );
    let branch = Identifier::parse("meta_db.parts$branch_b1").unwrap();
    assert_eq!(planned_rows(c.as_ref(), &branch), (Some(1), 10));
    c.drop_branch(&id, "b1").unwrap();
    assert_eq!(
        java_meta(server, &["meta_db.parts", "branches"]),
        vec!["[]"]
    );
    c.delete_tag(&id, "ours").unwrap();
    assert_eq!(
        java_meta(server, &["meta_db.parts", "tags"]),
        vec![r#"["javas"]"#]
    );
}

/// DLF credentials Java's server is started with (`rest-server --dlf-*`): it checks every
/// request's `Authorization` with Java's own signer over the headers we sent, the security
/// token, and the `Content-MD5` of the body it received; anything else is a 401.
const DLF: [(&str, &str); 4] = [
    ("dlf.access-key-id", "rs-access-key"),
    ("dlf.access-key-secret", "rs-secret"),
    ("dlf.security-token", "rs-sts-token"),
    ("dlf.region", "cn-hangzhou"),
];

fn dlf_server(algorithm: &str) -> JavaRestServer {
    // `dlf.access-key-id` is the server's `--dlf-access-key-id`, and so on.
    let mut args = vec!["--dlf-signing-algorithm".to_string(), algorithm.to_string()];
    for (k, v) in DLF {
        args.push(format!("--{}", k.replace('.', "-")));
        args.push(v.to_string());
    }
    JavaRestServer::start_with(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn dlf_options(server: &JavaRestServer, extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    [
        ("metastore", "rest"),
        ("uri", server.url.as_str()),
        ("warehouse", paimon_test_utils::java_rest::WAREHOUSE),
        ("token.provider", "dlf"),
    ]
    .into_iter()
    .chain(extra.iter().copied())
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// `token.provider = dlf` with static keys and a security token, the default v4-style
/// signer: every call (the handshake, GETs with and without a query, POSTs with bodies,
/// DELETEs) passes Java's signature check, and Java's own DLF client sees what we made.
/// A wrong secret or security token is an authorization failure. (Before DLF signing, the
/// client refused `token.provider = dlf`.)
#[test]
fn dlf_signed_requests_pass_javas_signer() {
    let server = dlf_server("default");
    let c = open_catalog(&dlf_options(&server, &DLF)).unwrap();
    c.create_database(
        "dlf_db",
        false,
        &BTreeMap::from([("k".into(), "v w".into())]),
    )
    .unwrap();
    let id = Identifier::parse("dlf_db.t").unwrap();
    c.create_table(&id, schema("INT"), false).unwrap();
    assert_eq!(c.list_tables("dlf_db").unwrap(), vec!["t".to_string()]);
    assert_eq!(c.get_table(&id).unwrap().schema().fields.len(), 2);
    assert_eq!(c.get_database("dlf_db").unwrap().options["k"], "v w");

    // Java's DLF client (RESTCatalog with the same options) lists what we created.
    let mut args = vec!["catalog-op".to_string()];
    for (k, v) in dlf_options(&server, &DLF) {
        args.push("--catalog-option".into());
        args.push(format!("{k}={v}"));
    }
    args.extend(["list-tables".to_string(), "dlf_db".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(oracle(&args).trim(), "t");

    c.drop_table(&id, false).unwrap();
    c.drop_database("dlf_db", false, false).unwrap();
    assert!(!c.list_databases().unwrap().contains(&"dlf_db".to_string()));

    for wrong in [
        ("dlf.access-key-secret", "not-the-secret"),
        ("dlf.security-token", "not-the-token"),
    ] {
        let mut extra = DLF.to_vec();
        extra.retain(|(k, _)| *k != wrong.0);
        extra.push(wrong);
        let e = open_catalog(&dlf_options(&server, &extra)).unwrap_err();
        assert!(
            matches!(&e, Error::Catalog { failure: CatalogFailure::NotAuthorized, uri, .. }
                if uri.starts_with(server.url.trim_end_matches('/'))),
            "{wrong:?}: {e}"
        );
    }
    // Without a region (none in a loopback URI) the options are refused, naming it.
    let mut extra = DLF.to_vec();
    extra.retain(|(k, _)| *k != "dlf.region");
    let e = open_catalog(&dlf_options(&server, &extra)).unwrap_err();
    assert!(e.to_string().contains("option dlf.region"), "{e}");
    server.stop();
}

/// The OpenAPI signer (`dlf.signing-algorithm = openapi`) with the keys in a token file
/// (`dlf.token-path`, Java's `DLFToken` JSON): Java's `DLFOpenApiSigner` accepts the calls.
#[test]
fn dlf_openapi_signer_with_a_token_file_passes_javas_signer() {
    let server = dlf_server("openapi");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dlf-token.json");
    std::fs::write(
        &file,
        r#"{"AccessKeyId":"rs-access-key","AccessKeySecret":"rs-secret",
            "SecurityToken":"rs-sts-token","Expiration":"2099-01-01T00:00:00Z"}"#,
    )
    .unwrap();
    let c = open_catalog(&dlf_options(
        &server,
        &[
            ("dlf.signing-algorithm", "openapi"),
            ("dlf.token-path", file.to_str().unwrap()),
        ],
    ))
    .unwrap();
    c.create_database("dlf_oa", false, &BTreeMap::new())
        .unwrap();
    assert!(c.list_databases().unwrap().contains(&"dlf_oa".to_string()));
    let id = Identifier::parse("dlf_oa.t").unwrap();
    c.create_table(&id, schema("INT"), false).unwrap();
    assert_eq!(c.list_tables("dlf_oa").unwrap(), vec!["t".to_string()]);
    c.drop_table(&id, false).unwrap();
    c.drop_database("dlf_oa", false, false).unwrap();
    server.stop();
}
