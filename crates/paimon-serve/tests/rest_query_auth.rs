//! Row filters and column masks (`--policies`) through our REST server, read by clients that
//! ask the `auth` endpoint because the table carries `query-auth.enabled`: Java 1.4.2's
//! `RESTCatalog` (`scripts/java-oracle.sh rest-dump`) and our own REST client. A user under a
//! policy sees only the filtered rows with masked values; a user without one sees every row.

mod common;

use common::*;
use paimon_rs::split::Split;
use paimon_rs::Catalog;

const AUTH: &str = "tok-admin admin admin\n\
    tok-reader reader read:java_db\n\
    tok-plain plain read:java_db\n";

/// The reader sees rows with `id >= 3`, `v` upper-cased.
const POLICIES: &str = r#"{"policies": [{"user": "reader", "table": "java_db.t",
    "rowFilter": "id >= 3",
    "columnMasks": {"v": {"name": "UPPER", "inputs": [{"index": 1, "name": "v", "type": "STRING"}]}}}]}"#;

fn masked(from: i32, to: i32) -> std::collections::BTreeMap<i32, String> {
    (from..to).map(|i| (i, format!("JAVA-{i}"))).collect()
}

#[test]
fn java_reads_only_the_rows_and_values_the_policy_allows() {
    let server = start_with_policies(Some(AUTH), Some(POLICIES));
    oracle(&[
        "rest-write",
        &server.url,
        "java_db.t",
        "--from",
        "0",
        "--to",
        "7",
        "--token",
        "tok-admin",
    ]);
    // The table carries the option that makes clients ask.
    let (status, body) = http(
        &server.url,
        "GET",
        &format!("/v1/{WAREHOUSE}/databases/java_db/tables/t"),
        Some("tok-plain"),
        b"",
    );
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["schema"]["options"]["query-auth.enabled"], "true");

    let dumped = oracle(&[
        "rest-dump",
        &server.url,
        "java_db.t",
        "--token",
        "tok-reader",
    ]);
    assert_eq!(json_rows(&dumped), masked(3, 7));
    // Without a policy: every row, as written.
    let dumped = oracle(&[
        "rest-dump",
        &server.url,
        "java_db.t",
        "--token",
        "tok-plain",
    ]);
    assert_eq!(json_rows(&dumped), rows(0, 7, "java"));

    // Our REST client: the plan's splits carry the reader's rules, every read path applies
    // them (the facade's read, and a worker reading the split bytes).
    let reader = Catalog::open(client_options(&server.url, "tok-reader")).unwrap();
    let table = reader.table("java_db.t").unwrap();
    assert_eq!(batch_rows(&table.scan().to_arrow().unwrap()), masked(3, 7));
    let limited = table.scan().with_limit(2).to_arrow().unwrap();
    assert_eq!(limited.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
    assert!(batch_rows(&limited).keys().all(|id| *id >= 3));
    let plan = table.scan().plan().unwrap();
    assert!(!plan.splits.is_empty());
    assert!(plan
        .splits
        .iter()
        .all(|s| matches!(s, Split::QueryAuth { auth: Some(_), .. })));
    let worker = table.scan().split_reader().unwrap();
    let mut read = Vec::new();
    for bytes in plan.split_bytes().unwrap() {
        for b in worker.read_bytes(table.path(), &bytes).unwrap() {
            read.push(b.unwrap());
        }
    }
    assert_eq!(batch_rows(&read), masked(3, 7));
    let plain = Catalog::open(client_options(&server.url, "tok-plain")).unwrap();
    let table = plain.table("java_db.t").unwrap();
    assert_eq!(
        batch_rows(&table.scan().to_arrow().unwrap()),
        rows(0, 7, "java")
    );
    assert!(table
        .scan()
        .plan()
        .unwrap()
        .splits
        .iter()
        .all(|s| !matches!(s, Split::QueryAuth { .. })));
}

#[test]
fn the_auth_endpoint_answers_the_callers_rules() {
    let server = start_with_policies(Some(AUTH), Some(POLICIES));
    oracle(&[
        "rest-write",
        &server.url,
        "java_db.t",
        "--from",
        "0",
        "--to",
        "2",
        "--token",
        "tok-admin",
    ]);
    let path = format!("/v1/{WAREHOUSE}/databases/java_db/tables/t/auth");
    let (status, body) = http(
        &server.url,
        "POST",
        &path,
        Some("tok-reader"),
        br#"{"select": ["id", "v"]}"#,
    );
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let filter: serde_json::Value = serde_json::from_str(v["filter"][0].as_str().unwrap()).unwrap();
    assert_eq!(filter["function"], "GREATER_OR_EQUAL");
    assert_eq!(filter["transform"]["fieldRef"]["name"], "id");
    assert_eq!(filter["literals"], serde_json::json!([3]));
    let mask: serde_json::Value =
        serde_json::from_str(v["columnMasking"]["v"].as_str().unwrap()).unwrap();
    assert_eq!(mask["name"], "UPPER");
    let (status, body) = http(
        &server.url,
        "POST",
        &path,
        Some("tok-plain"),
        br#"{"select": null}"#,
    );
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v, serde_json::json!({"filter": null, "columnMasking": {}}));
    let (status, _) = http(&server.url, "POST", &path, Some("tok-reader"), b"{");
    assert_eq!(status, 400);
    let (status, _) = http(&server.url, "POST", &path, Some("wrong"), b"{}");
    assert_eq!(status, 401);
}
