//! Bad requests get 4xx answers with Java's `ErrorResponse` JSON, never a 500 or a dropped
//! connection, and the server keeps serving.

mod common;

use common::*;

#[test]
fn bad_requests_are_4xx_and_the_server_keeps_serving() {
    let server = start(Some("tok admin admin\ntok-db reader read:db\n"));
    let url = &server.url;
    let p = |s: &str| format!("/v1/{WAREHOUSE}/{s}");
    let t = Some("tok");
    let ok = || {
        let (status, body) = http(
            url,
            "GET",
            &format!("/v1/config?warehouse={WAREHOUSE}"),
            t,
            b"",
        );
        assert_eq!(status, 200, "{body}");
        assert!(
            body.contains(&format!("\"prefix\":\"{WAREHOUSE}\"")),
            "{body}"
        );
    };
    ok();
    // Method, path, token, body, the status expected.
    type Case<'a> = (&'a str, String, Option<&'a str>, Vec<u8>, u16);
    let cases: Vec<Case> = vec![
        ("GET", p("databases"), None, vec![], 401),
        ("GET", p("databases"), Some("nope"), vec![], 401),
        ("POST", p("databases"), t, b"{\"name\": ".to_vec(), 400),
        ("POST", p("databases"), t, b"[1,2]".to_vec(), 400),
        ("POST", p("databases"), t, b"{\"name\": 5}".to_vec(), 400),
        ("GET", p("no/such/endpoint"), t, vec![], 404),
        ("GET", "/v2/anything".to_string(), t, vec![], 404),
        (
            "GET",
            "/v1/other_warehouse/databases".to_string(),
            t,
            vec![],
            404,
        ),
        ("GET", p("databases/missing"), t, vec![], 404),
        ("POST", p("databases"), t, vec![b' '; 9 << 20], 413),
        (
            "POST",
            p("databases"),
            t,
            b"{\"name\": \"../x\"}".to_vec(),
            400,
        ),
        ("GET", p("databases/%zz"), t, vec![], 400),
    ];
    for (method, path, token, body, want) in cases {
        let (status, answer) = http(url, method, &path, token, &body);
        assert_eq!(status, want, "{method} {path}: {answer}");
        ok();
    }
    // A table name climbing out of the warehouse.
    let (status, body) = http(url, "POST", &p("databases"), t, b"{\"name\": \"db\"}");
    assert_eq!(status, 200, "{body}");
    let create = |name: &str| {
        format!(
            r#"{{"identifier":{{"database":"db","object":"{name}"}},"schema":{{"fields":[{{"id":0,"name":"a","type":"INT"}}],"partitionKeys":[],"primaryKeys":[],"options":{{}},"comment":null}}}}"#
        )
    };
    for name in ["../x", "..", "a/b"] {
        let (status, body) = http(
            url,
            "POST",
            &p("databases/db/tables"),
            t,
            create(name).as_bytes(),
        );
        assert_eq!(status, 400, "{name}: {body}");
        ok();
    }
    for path in [
        "databases/db/tables/..%2Fx",
        "databases/..%2Fx/tables/t",
        "databases/..",
    ] {
        let (status, body) = http(url, "GET", &p(path), t, b"");
        assert_eq!(status, 400, "{path}: {body}");
    }
    // Nothing was created outside the database directory.
    let mut entries: Vec<String> = std::fs::read_dir(&server.warehouse)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    entries.sort();
    assert_eq!(entries, vec!["db.db".to_string()]);
    // A commit whose snapshot names files the table does not hold.
    let (status, body) = http(
        url,
        "POST",
        &p("databases/db/tables"),
        t,
        create("t").as_bytes(),
    );
    assert_eq!(status, 200, "{body}");
    let commit = r#"{"tableId":"db.t","snapshot":{"version":3,"id":1,"schemaId":0,"baseManifestList":"../../x","deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":1},"statistics":[]}"#;
    let (status, body) = http(
        url,
        "POST",
        &p("databases/db/tables/t/commit"),
        t,
        commit.as_bytes(),
    );
    assert_eq!(status, 400, "{body}");
    let missing = commit.replace("../../x", "manifest-list-missing");
    let (status, body) = http(
        url,
        "POST",
        &p("databases/db/tables/t/commit"),
        t,
        missing.as_bytes(),
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("does not hold"), "{body}");
    ok();

    // A reader of `db` cannot reach another database's table by climbing out of `db`.
    let (status, body) = http(url, "POST", &p("databases"), t, b"{\"name\": \"other\"}");
    assert_eq!(status, 200, "{body}");
    let other = create("t").replace("\"database\":\"db\"", "\"database\":\"other\"");
    let (status, body) = http(
        url,
        "POST",
        &p("databases/other/tables"),
        t,
        other.as_bytes(),
    );
    assert_eq!(status, 200, "{body}");
    let reader = Some("tok-db");
    let (status, body) = http(url, "GET", &p("databases/db/tables/t"), reader, b"");
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(url, "GET", &p("databases/other/tables/t"), reader, b"");
    assert_eq!(status, 403, "{body}");
    let climb = "databases/db/tables/..%2F..%2Fother.db%2Ft";
    let (status, body) = http(url, "GET", &p(climb), reader, b"");
    assert_eq!(status, 400, "{body}");
    // Listings show the reader only what it may read.
    let (status, body) = http(url, "GET", &p("databases"), reader, b"");
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"databases":["db"],"nextPageToken":null}"#)
    );
}

/// Paging, tags and branches refuse what is wrong with a 4xx naming it (a page token the
/// server never handed out, a count that is not one, a missing or existing tag or branch),
/// the server keeps serving, and `/metrics` counts the requests and the errors per endpoint.
#[test]
fn bad_pages_tags_and_branches_are_4xx_and_metrics_count_them() {
    let server = start(None);
    let url = &server.url;
    let p = |s: &str| format!("/v1/{WAREHOUSE}/{s}");
    let (status, body) = http(url, "POST", &p("databases"), None, b"{\"name\": \"db\"}");
    assert_eq!(status, 200, "{body}");
    let create = r#"{"identifier":{"database":"db","object":"t"},"schema":{"fields":[{"id":0,"name":"a","type":"INT"}],"partitionKeys":[],"primaryKeys":[],"options":{},"comment":null}}"#;
    let (status, body) = http(
        url,
        "POST",
        &p("databases/db/tables"),
        None,
        create.as_bytes(),
    );
    assert_eq!(status, 200, "{body}");
    // Method, path, body, the status expected, and a resource type the error must name.
    type Case<'a> = (&'a str, String, &'a [u8], u16, Option<&'a str>);
    let cases: Vec<Case> = vec![
        ("GET", p("databases?pageToken=garbage"), b"", 400, None),
        ("GET", p("databases?pageToken=n:zz"), b"", 400, None),
        (
            "GET",
            p("databases/db/tables?maxResults=ten"),
            b"",
            400,
            None,
        ),
        (
            "GET",
            p("databases/db/tables?maxResults=-1"),
            b"",
            400,
            None,
        ),
        (
            "GET",
            p("databases/db/tables/t/partitions?pageToken=x"),
            b"",
            400,
            None,
        ),
        (
            "GET",
            p("databases/db/tables/t/tags/nope"),
            b"",
            404,
            Some("TAG"),
        ),
        (
            "DELETE",
            p("databases/db/tables/t/tags/nope"),
            b"",
            404,
            Some("TAG"),
        ),
        (
            "GET",
            p("databases/db/tables/t/tags/..%2Fx"),
            b"",
            400,
            None,
        ),
        // The table has no snapshot to tag.
        (
            "POST",
            p("databases/db/tables/t/tags"),
            b"{\"tagName\": \"t1\"}",
            404,
            Some("SNAPSHOT"),
        ),
        (
            "POST",
            p("databases/db/tables/t/tags"),
            b"{\"tagName\": 1}",
            400,
            None,
        ),
        (
            "POST",
            p("databases/db/tables/t/tags"),
            b"{\"tagName\": \"t1\", \"timeRetained\": \"soon\"}",
            400,
            None,
        ),
        (
            "POST",
            p("databases/db/tables/t/branches"),
            b"{\"branch\": \"b\", \"fromTag\": \"nope\"}",
            404,
            Some("TAG"),
        ),
        (
            "POST",
            p("databases/db/tables/t/branches"),
            b"{\"branch\": \"main\"}",
            400,
            None,
        ),
        (
            "DELETE",
            p("databases/db/tables/t/branches/nope"),
            b"",
            404,
            Some("BRANCH"),
        ),
        (
            "POST",
            p("databases/db/tables/t/branches/nope/forward"),
            b"{}",
            404,
            Some("BRANCH"),
        ),
        (
            "POST",
            p("databases/db/tables/t/branches/nope/rename"),
            b"{\"toBranch\": \"other\"}",
            404,
            Some("BRANCH"),
        ),
        (
            "GET",
            p("databases/db/tables/t/snapshots?pageToken=garbage"),
            b"",
            400,
            None,
        ),
        (
            "POST",
            p("databases/db/tables/t/partitions/list-by-names"),
            b"{\"specs\": {\"a\": \"1\"}}",
            400,
            None,
        ),
        (
            "POST",
            p("databases/db/tables/t/partitions/list-by-names"),
            b"{\"specs\": [{\"a\": 1}]}",
            400,
            None,
        ),
        (
            "POST",
            p("databases/nope/tables/t/partitions/list-by-names"),
            b"{\"specs\": []}",
            404,
            Some("TABLE"),
        ),
        ("GET", p("databases/nope/views"), b"", 404, Some("DATABASE")),
        (
            "GET",
            p("databases/db/tables/nope/partitions"),
            b"",
            404,
            Some("TABLE"),
        ),
    ];
    for (method, path, body, want, kind) in &cases {
        let (status, answer) = http(url, method, path, None, body);
        assert_eq!(status, *want, "{method} {path}: {answer}");
        let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(v["code"], *want, "{answer}");
        if let Some(kind) = kind {
            assert_eq!(v["resourceType"], *kind, "{method} {path}: {answer}");
        }
    }
    // A branch twice is a 409; views and functions are empty lists.
    let (status, body) = http(
        url,
        "POST",
        &p("databases/db/tables/t/branches"),
        None,
        b"{\"branch\": \"b\"}",
    );
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(
        url,
        "POST",
        &p("databases/db/tables/t/branches"),
        None,
        b"{\"branch\": \"b\"}",
    );
    assert_eq!(status, 409, "{body}");
    // Renaming: no `toBranch` is a 400, onto an existing branch a 409, `main` is refused; a
    // rename that works moves the branch.
    let rename = |from: &str, body: &[u8]| {
        http(
            url,
            "POST",
            &p(&format!("databases/db/tables/t/branches/{from}/rename")),
            None,
            body,
        )
    };
    assert_eq!(rename("b", b"{}").0, 400);
    let (status, body) = http(
        url,
        "POST",
        &p("databases/db/tables/t/branches"),
        None,
        b"{\"branch\": \"c\"}",
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(rename("b", b"{\"toBranch\": \"c\"}").0, 409);
    assert_eq!(rename("b", b"{\"toBranch\": \"main\"}").0, 400);
    assert_eq!(rename("b", b"{\"toBranch\": \"d\"}").0, 200);
    let (status, body) = http(url, "GET", &p("databases/db/tables/t/branches"), None, b"");
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"branches":["c","d"],"nextPageToken":null}"#)
    );
    for (path, key) in [
        ("views", "views"),
        ("functions", "functions"),
        ("view-details", "viewDetails"),
    ] {
        let (status, body) = http(url, "GET", &p(&format!("databases/db/{path}")), None, b"");
        assert_eq!(status, 200, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v[key], serde_json::json!([]), "{body}");
    }
    let specs = format!("{{\"specs\": [{}]}}", vec!["{}"; 1001].join(","));
    let (status, body) = http(
        url,
        "POST",
        &p("databases/db/tables/t/partitions/list-by-names"),
        None,
        specs.as_bytes(),
    );
    assert_eq!(status, 400, "{body}");
    // The server still serves, and its metrics count what happened.
    let (status, body) = http(url, "GET", &p("databases"), None, b"");
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"databases":["db"],"nextPageToken":null}"#)
    );
    let (status, metrics) = http(url, "GET", "/metrics", None, b"");
    assert_eq!(status, 200, "{metrics}");
    let line = |name: &str, method: &str, path: &str| {
        let prefix = format!("{name}{{method=\"{method}\",path=\"{path}\"}} ");
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no {prefix} in {metrics}"))
            .to_string()
    };
    let tag = "/v1/{prefix}/databases/{database}/tables/{table}/tags/{tag}";
    assert_eq!(line("paimon_rest_requests_total", "GET", tag), "2");
    assert_eq!(line("paimon_rest_errors_total", "GET", tag), "2");
    let dbs = "/v1/{prefix}/databases";
    // Two bad page tokens and one listing; the POST creating `db` is another endpoint.
    assert_eq!(line("paimon_rest_requests_total", "GET", dbs), "3");
    assert_eq!(line("paimon_rest_errors_total", "GET", dbs), "2");
    assert!(
        line("paimon_rest_request_seconds_sum", "GET", dbs)
            .parse::<f64>()
            .unwrap()
            > 0.0
    );
}
