//! The REST endpoints beyond tables and versions, against clients nobody here wrote: Java
//! 1.4.2's `RESTCatalog` (the oracle's `catalog-meta`) lists and resets consumers, lists
//! tables across databases, marks partitions done and drops partitions through our server;
//! the endpoints no runnable client calls (`partitions/drop`, `partitions/list-by-filter`)
//! get bodies shaped as the open API and Java's request classes say, and what they change is
//! checked on the files by Java's own `FileSystemCatalog` and `ConsumerManager`.

mod common;

use common::*;
use serde_json::json;

const TOKEN: &str = "tok-admin";
const AUTH: &str = "tok-admin admin admin\ntok-reader reader read:ops\n";

fn path(rest: &str) -> String {
    format!("/v1/{WAREHOUSE}/{rest}")
}

/// `catalog-write` of the oracle through `catalog`.
fn java_write(catalog: &[String], args: &[&str]) {
    let mut all: Vec<&str> = vec!["catalog-write"];
    all.extend(catalog.iter().map(String::as_str));
    all.extend(args);
    oracle(&all);
}

/// Java's partitions of a table on the files: (p, recordCount, fileCount) per partition.
fn java_partitions(server: &Running, table: &str) -> Vec<(String, i64, i64)> {
    partition_counts(&meta(&java_fs(&server.warehouse), &[table, "partitions"]))
}

/// `partitions/drop` (raw HTTP, Java `DropPartitionsRequest`) removes the rows Java's
/// filesystem catalog and Java's reads then miss; Java 1.4.2's own `dropPartitions` (a
/// truncate commit through our commit endpoint) and `markDonePartitions` work through us;
/// `list-by-filter` (raw HTTP, a filter Java serialized) answers the partitions Java's
/// catalog reports; bad bodies are 400s and the server keeps serving.
#[test]
fn partitions_are_dropped_marked_and_listed_by_filter() {
    let server = start(Some(AUTH));
    let rest = java_rest(&server.url, TOKEN);
    // 30 rows in 2 commits, partitioned by p = id % 4.
    java_write(
        &rest,
        &[
            "ops.parts",
            "--from",
            "0",
            "--to",
            "30",
            "--commits",
            "2",
            "--parts",
            "4",
        ],
    );
    let all = java_partitions(&server, "ops.parts");
    assert_eq!(
        all,
        vec![
            ("0".to_string(), 8, 2),
            ("1".to_string(), 8, 2),
            ("2".to_string(), 7, 2),
            ("3".to_string(), 7, 2)
        ]
    );

    // list-by-filter with Java's own JSON of `p >= 2`, in pages of one.
    let table_dir = server.warehouse.join("ops.db/parts");
    let filter = oracle(&[
        "predicate-json",
        table_dir.to_str().unwrap(),
        "--filter",
        "p >= 2",
    ]);
    let filter = filter.lines().next().unwrap().to_string();
    let by_filter = path("databases/ops/tables/parts/partitions/list-by-filter");
    let mut token: Option<String> = None;
    let mut seen = Vec::new();
    loop {
        let body = json!({"filter": filter, "maxResults": 1, "pageToken": token});
        let (status, answer) = http(
            &server.url,
            "POST",
            &by_filter,
            Some("tok-reader"),
            body.to_string().as_bytes(),
        );
        assert_eq!(status, 200, "{answer}");
        let v = json(&answer);
        for p in v["partitions"].as_array().unwrap() {
            seen.push((
                p["spec"]["p"].as_str().unwrap().to_string(),
                p["recordCount"].as_i64().unwrap(),
                p["fileCount"].as_i64().unwrap(),
            ));
        }
        match v["nextPageToken"].as_str() {
            Some(t) => token = Some(t.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, all[2..].to_vec());
    // With a name pattern as well.
    let body = json!({"filter": filter, "partitionNamePattern": "p=3%"});
    let (status, answer) = http(
        &server.url,
        "POST",
        &by_filter,
        Some(TOKEN),
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(json(&answer)["partitions"][0]["spec"], json!({"p": "3"}));
    assert_eq!(json(&answer)["partitions"].as_array().unwrap().len(), 1);
    for bad in [
        r#"{}"#.to_string(),
        r#"{"filter": "not json"}"#.to_string(),
        json!({"filter": filter, "maxResults": "x"}).to_string(),
        json!({"filter": filter, "pageToken": "garbage"}).to_string(),
    ] {
        let (status, answer) = http(&server.url, "POST", &by_filter, Some(TOKEN), bad.as_bytes());
        assert_eq!(status, 400, "{bad}: {answer}");
    }

    // Drop p=1 and a partition that does not exist: a reader may not; the admin may.
    let drop = path("databases/ops/tables/parts/partitions/drop");
    let body = br#"{"partitionSpecs":[{"p":"1"},{"p":"9"}],"ignoreIfNotExists":true}"#;
    let (status, answer) = http(&server.url, "POST", &drop, Some("tok-reader"), body);
    assert_eq!(status, 403, "{answer}");
    let (status, answer) = http(&server.url, "POST", &drop, Some(TOKEN), body);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        json(&answer),
        json!({"dropped": [{"p": "1"}], "missing": [{"p": "9"}]})
    );
    let left: Vec<_> = all.iter().filter(|p| p.0 != "1").cloned().collect();
    assert_eq!(java_partitions(&server, "ops.parts"), left);
    let dumped = oracle(&["rest-dump", &server.url, "ops.parts", "--token", TOKEN]);
    let mut ids: Vec<i64> = dumped
        .lines()
        .map(|l| json(l)["id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    let expected: Vec<i64> = (0..30).filter(|i| i % 4 != 1).collect();
    assert_eq!(ids, expected);

    // A missing partition with ignoreIfNotExists false: 404 PARTITION, nothing dropped.
    let body = br#"{"partitionSpecs":[{"p":"0"},{"p":"9"}],"ignoreIfNotExists":false}"#;
    let (status, answer) = http(&server.url, "POST", &drop, Some(TOKEN), body);
    assert_eq!(status, 404, "{answer}");
    assert_eq!(json(&answer)["resourceType"], "PARTITION");
    assert_eq!(java_partitions(&server, "ops.parts"), left);
    // Bodies that are not a DropPartitionsRequest.
    for bad in [
        &b"{not json"[..],
        br#"{}"#,
        br#"{"partitionSpecs":"p=0"}"#,
        br#"{"partitionSpecs":[{"p":0}]}"#,
        br#"{"partitionSpecs":[{}]}"#,
        br#"{"partitionSpecs":[{"v":"x"}]}"#,
        br#"{"partitionSpecs":[{"p":"zero"}]}"#,
        br#"{"partitionSpecs":[{"p":"0"}],"ignoreIfNotExists":"no"}"#,
    ] {
        let (status, answer) = http(&server.url, "POST", &drop, Some(TOKEN), bad);
        assert_eq!(status, 400, "{}: {answer}", String::from_utf8_lossy(bad));
    }
    assert_eq!(java_partitions(&server, "ops.parts"), left);

    // Java 1.4.2's dropPartitions through us (its truncate commit) and markDonePartitions.
    meta(&rest, &["ops.parts", "drop-partitions", "--specs", "p=3"]);
    assert_eq!(
        java_partitions(&server, "ops.parts"),
        vec![("0".to_string(), 8, 2), ("2".to_string(), 7, 2)]
    );
    meta(&rest, &["ops.parts", "mark-done", "--specs", "p=0;p=2"]);
    let mark = path("databases/ops/tables/parts/partitions/mark");
    let (status, answer) = http(
        &server.url,
        "POST",
        &mark,
        Some(TOKEN),
        br#"{"specs":[{"q":"0"}]}"#,
    );
    assert_eq!(status, 400, "{answer}");
    let (status, answer) = http(
        &server.url,
        "POST",
        &mark,
        Some("tok-reader"),
        br#"{"specs":[{"p":"0"}]}"#,
    );
    assert_eq!(status, 403, "{answer}");
    let err = meta_fails(&rest, &["ops.nope", "mark-done", "--specs", "p=0"]);
    assert!(err.contains("TableNotExistException"), "{err}");
    // Marking records nothing: the partitions and their statistics are unchanged.
    assert_eq!(
        java_partitions(&server, "ops.parts"),
        vec![("0".to_string(), 8, 2), ("2".to_string(), 7, 2)]
    );
}

/// Java 1.4.2's `listConsumersPaged` and `resetConsumer` through our server: the consumer
/// files are the ones Java's `ConsumerManager` reads on the table; a missing snapshot, a
/// hostile consumer id and a small grant are refused.
#[test]
fn consumers_are_listed_and_reset() {
    let server = start(Some(AUTH));
    let rest = java_rest(&server.url, TOKEN);
    java_write(
        &rest,
        &["ops.t", "--from", "0", "--to", "3", "--commits", "3"],
    );
    let table_dir = server.warehouse.join("ops.db/t");
    let java_consumers = || {
        oracle(&["table-op", table_dir.to_str().unwrap(), "consumers"])
            .lines()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(meta(&rest, &["ops.t", "consumers"]), vec!["[]"]);
    meta(&rest, &["ops.t", "reset-consumer", "c1", "--snapshot", "2"]);
    meta(&rest, &["ops.t", "reset-consumer", "c2", "--snapshot", "3"]);
    assert_eq!(java_consumers(), vec!["c1=2", "c2=3"]);
    let reader = java_rest(&server.url, "tok-reader");
    assert_eq!(
        meta(&reader, &["ops.t", "consumers", "--max", "1"]),
        vec![
            r#"[{"consumerId":"c1","nextSnapshot":2}]"#,
            r#"[{"consumerId":"c2","nextSnapshot":3}]"#
        ]
    );
    let err = meta_fails(
        &reader,
        &["ops.t", "reset-consumer", "c1", "--snapshot", "1"],
    );
    assert!(err.contains("TableNoPermissionException"), "{err}");
    // A snapshot the table does not have: refused, the consumer unchanged.
    let err = meta_fails(
        &rest,
        &["ops.t", "reset-consumer", "c1", "--snapshot", "99"],
    );
    assert!(err.contains("TableNotExistException"), "{err}");
    assert_eq!(java_consumers(), vec!["c1=2", "c2=3"]);
    // Reset back, then delete (no snapshot).
    meta(&rest, &["ops.t", "reset-consumer", "c1", "--snapshot", "1"]);
    assert_eq!(java_consumers(), vec!["c1=1", "c2=3"]);
    meta(&rest, &["ops.t", "reset-consumer", "c2"]);
    assert_eq!(java_consumers(), vec!["c1=1"]);
    let err = meta_fails(&rest, &["ops.nope", "consumers"]);
    assert!(err.contains("TableNotExistException"), "{err}");

    // Raw ResetConsumerRequest bodies that are wrong: 400, nothing written.
    let reset = path("databases/ops/tables/t/consumers/reset");
    for bad in [
        &b"[1]"[..],
        br#"{"nextSnapshotId":1}"#,
        br#"{"consumerId":7}"#,
        br#"{"consumerId":"../escape","nextSnapshotId":1}"#,
        br#"{"consumerId":"c3","nextSnapshotId":"one"}"#,
    ] {
        let (status, answer) = http(&server.url, "POST", &reset, Some(TOKEN), bad);
        assert_eq!(status, 400, "{}: {answer}", String::from_utf8_lossy(bad));
    }
    assert_eq!(java_consumers(), vec!["c1=1"]);
    let (status, answer) = http(
        &server.url,
        "GET",
        &path("databases/ops/tables/t/consumers?maxResults=x"),
        Some(TOKEN),
        b"",
    );
    assert_eq!(status, 400, "{answer}");
}

/// Java 1.4.2's `listTablesPagedGlobally` through our server: pages, both name patterns, and
/// only what the caller may read; `alterDatabase` over a filesystem warehouse is refused as
/// Java's own filesystem catalog refuses it, and bad bodies are 400s.
#[test]
fn tables_are_listed_across_databases_and_database_options_are_not_kept() {
    let server = start(Some(AUTH));
    let rest = java_rest(&server.url, TOKEN);
    for t in ["ops.a", "ops.b", "other.c"] {
        java_write(&rest, &[t, "--from", "0", "--to", "1"]);
    }
    assert_eq!(
        meta(&rest, &["ops.a", "tables-globally", "--max", "2"]),
        vec![r#"["ops.a","ops.b"]"#, r#"["other.c"]"#]
    );
    assert_eq!(
        meta(&rest, &["ops.a", "tables-globally", "--db-pattern", "oth%"]),
        vec![r#"["other.c"]"#]
    );
    assert_eq!(
        meta(&rest, &["ops.a", "tables-globally", "--pattern", "b%"]),
        vec![r#"["ops.b"]"#]
    );
    let reader = java_rest(&server.url, "tok-reader");
    assert_eq!(
        meta(&reader, &["ops.a", "tables-globally"]),
        vec![r#"["ops.a","ops.b"]"#]
    );
    let (status, answer) = http(
        &server.url,
        "GET",
        &path("tables?pageToken=garbage"),
        Some(TOKEN),
        b"",
    );
    assert_eq!(status, 400, "{answer}");

    // alterDatabase: the filesystem catalog keeps no database options (Java's refuses too).
    let err = meta_fails(&rest, &["ops.a", "alter-database", "--set", "k=v"]);
    assert!(err.contains("NotImplementedException"), "{err}");
    let err = meta_fails(&reader, &["ops.a", "alter-database", "--set", "k=v"]);
    assert!(err.contains("DatabaseNoPermissionException"), "{err}");
    let err = meta_fails(&rest, &["nope.a", "alter-database", "--set", "k=v"]);
    assert!(err.contains("DatabaseNotExistException"), "{err}");
    let alter = path("databases/ops");
    for bad in [
        &b"{"[..],
        br#"{"removals":"k"}"#,
        br#"{"removals":[1]}"#,
        br#"{"updates":{"k":1}}"#,
    ] {
        let (status, answer) = http(&server.url, "POST", &alter, Some(TOKEN), bad);
        assert_eq!(status, 400, "{}: {answer}", String::from_utf8_lossy(bad));
    }
}
