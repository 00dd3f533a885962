//! Row filters and column masks (`--policies`) through our REST server, read by clients that
//! ask the `auth` endpoint because the table carries `query-auth.enabled`: Java 1.4.2's
//! `RESTCatalog` (`scripts/java-oracle.sh rest-dump`), our own REST client, and SQL through
//! paimon-datafusion's catalog provider over it. A user under a policy sees only the filtered
//! rows with masked values; a user without one sees every row.

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

/// The rows of `sql` run through paimon-datafusion's catalog provider over `catalog` (SQL's
/// default catalog), or the error's text.
fn sql_over(catalog: &Catalog, sql: &str) -> Result<Vec<paimon_rs::RecordBatch>, String> {
    use paimon_datafusion::{sql, PaimonCatalogProvider};
    let provider = PaimonCatalogProvider::with_catalog(std::sync::Arc::clone(catalog.catalog()));
    let ctx = sql::session_with_catalog(provider, datafusion::prelude::SessionConfig::new());
    // Every grant (as `paimon sql` gives the local user): what is refused below is refused
    // for the table, not by the session.
    sql::set_policy(&ctx, sql::SqlPolicy::local_user(false));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let df = sql::query(&ctx, sql).await.map_err(|e| e.to_string())?;
        df.collect().await.map_err(|e| e.to_string())
    })
}

/// The single integer of a one-row, one-column answer.
fn one_number(batches: &[paimon_rs::RecordBatch]) -> i64 {
    let cast = datafusion::arrow::compute::cast(
        batches.iter().find(|b| b.num_rows() > 0).unwrap().column(0),
        &datafusion::arrow::datatypes::DataType::Int64,
    )
    .unwrap();
    cast.as_any()
        .downcast_ref::<datafusion::arrow::array::Int64Array>()
        .unwrap()
        .value(0)
}

/// SQL over the REST catalog (paimon-datafusion's provider over our REST client): a user
/// under a policy gets only the filtered rows with masked values from every query shape:
/// plain scans, `count(*)` and `min`/`max` (which the manifests' statistics would answer
/// with the unfiltered files' numbers), filters on masked columns (compared with the masked
/// values, never pushed to the files' own), limits; the table's system tables, which would
/// show the files' statistics, are refused by name. A user without a policy reads every row.
#[test]
fn sql_over_the_catalog_holds_the_row_filter_and_masks() {
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
    let reader = Catalog::open(client_options(&server.url, "tok-reader")).unwrap();
    let q = |sql: &str| sql_over(&reader, sql).unwrap_or_else(|e| panic!("{sql}: {e}"));

    assert_eq!(batch_rows(&q("SELECT id, v FROM java_db.t")), masked(3, 7));
    assert_eq!(one_number(&q("SELECT count(*) FROM java_db.t")), 4);
    assert_eq!(one_number(&q("SELECT min(id) FROM java_db.t")), 3);
    let max_v = q("SELECT max(v) AS m FROM java_db.t");
    let col = datafusion::arrow::compute::cast(
        max_v[0].column(0),
        &datafusion::arrow::datatypes::DataType::Utf8,
    )
    .unwrap();
    let text = col
        .as_any()
        .downcast_ref::<datafusion::arrow::array::StringArray>()
        .unwrap();
    assert_eq!(text.value(0), "JAVA-6");
    assert_eq!(
        batch_rows(&q("SELECT id, v FROM java_db.t WHERE v = 'JAVA-5'")),
        masked(5, 6)
    );
    assert!(batch_rows(&q("SELECT id, v FROM java_db.t WHERE v = 'java-5'")).is_empty());
    assert!(batch_rows(&q("SELECT id, v FROM java_db.t WHERE id < 3")).is_empty());
    let limited = q("SELECT id, v FROM java_db.t LIMIT 2");
    assert_eq!(limited.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
    assert!(batch_rows(&limited)
        .iter()
        .all(|(id, v)| *id >= 3 && *v == format!("JAVA-{id}")));
    for system in ["files", "snapshots", "partitions"] {
        let err =
            sql_over(&reader, &format!(r#"SELECT * FROM java_db."t${system}""#)).expect_err(system);
        assert!(
            err.contains("java_db.t") && err.contains("query auth") && err.contains(system),
            "{system}: {err}"
        );
    }
    // Rewriting rows read masked would write the masks into the table.
    let err = sql_over(&reader, "DELETE FROM java_db.t WHERE id = 3").expect_err("DELETE");
    assert!(err.contains("query auth"), "{err}");

    let plain = Catalog::open(client_options(&server.url, "tok-plain")).unwrap();
    assert_eq!(
        batch_rows(&sql_over(&plain, "SELECT id, v FROM java_db.t").unwrap()),
        rows(0, 7, "java")
    );
    assert_eq!(
        one_number(&sql_over(&plain, "SELECT count(*) FROM java_db.t").unwrap()),
        7
    );
}
