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
