//! Flight SQL over the bundled fixtures warehouse, through arrow-flight's own Flight SQL
//! client: rows equal Java's (`fixtures/expected`), scans come back as one ticket per split
//! group, tokens and grants hold, hostile tickets are errors and the server keeps serving.

mod common;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow_flight::sql::client::FlightSqlServiceClient;
use arrow_flight::sql::{Any, CommandGetDbSchemas, CommandGetPrimaryKeys, CommandGetTables};
use arrow_flight::{FlightInfo, Ticket};
use common::{java_rows, json_lines};
use futures::TryStreamExt;
use paimon_serve::auth::Users;
use paimon_serve::flight::{serve_flight, ticket, FlightSqlServer, QueryLimits};
use paimon_test_utils::copy_dir;
use paimon_test_utils::repo;
use prost::Message;
use tonic::transport::Channel;

// How tonic's errors name the codes.
const UNAUTHENTICATED: &str = "does not have valid authentication credentials";
const DENIED: &str = "does not have permission";
const INVALID: &str = "invalid argument";

const USERS: &str = "tok-alice alice read\ntok-bob bob read:pk\n";

/// A server on a free loopback port, for the test's lifetime.
async fn start(users: Option<&str>, partitions: usize) -> SocketAddr {
    let warehouse = repo().join("fixtures/warehouse");
    let users = users.map(|u| Users::parse(u, "users").unwrap());
    let server = FlightSqlServer::new(warehouse.to_str().unwrap(), users)
        .unwrap()
        .with_target_partitions(partitions);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve_flight(server, listener, None, std::future::pending()));
    addr
}

async fn client(addr: SocketAddr, token: Option<&str>) -> FlightSqlServiceClient<Channel> {
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut c = FlightSqlServiceClient::new(channel);
    if let Some(t) = token {
        c.set_token(t.to_string());
    }
    c
}

async fn read(
    c: &mut FlightSqlServiceClient<Channel>,
    t: &Ticket,
) -> Result<Vec<RecordBatch>, String> {
    let stream = c.do_get(t.clone()).await.map_err(|e| e.to_string())?;
    stream.try_collect().await.map_err(|e| e.to_string())
}

async fn read_all(c: &mut FlightSqlServiceClient<Channel>, info: &FlightInfo) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    for e in &info.endpoint {
        out.extend(read(c, e.ticket.as_ref().unwrap()).await.unwrap());
    }
    out
}

async fn query(
    c: &mut FlightSqlServiceClient<Channel>,
    sql: &str,
) -> Result<Vec<RecordBatch>, String> {
    let info = c
        .execute(sql.to_string(), None)
        .await
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for e in &info.endpoint {
        out.extend(read(c, e.ticket.as_ref().unwrap()).await?);
    }
    Ok(out)
}

fn is_scan_ticket(t: &Ticket) -> bool {
    Any::decode(t.ticket.as_ref()).unwrap().type_url == ticket::SCAN_TICKET_TYPE
}

#[tokio::test]
async fn scan_queries_are_one_ticket_per_split_group_with_javas_rows() {
    let addr = start(None, 4).await;
    let mut c = client(addr, None).await;

    let info = c
        .execute("SELECT * FROM pk.partitioned".into(), None)
        .await
        .unwrap();
    assert!(
        info.endpoint.len() >= 2,
        "{} endpoints",
        info.endpoint.len()
    );
    assert!(info
        .endpoint
        .iter()
        .all(|e| is_scan_ticket(e.ticket.as_ref().unwrap())));
    let rows = json_lines(&read_all(&mut c, &info).await);
    assert_eq!(rows, java_rows("pk/partitioned/latest.jsonl"));

    // A projection and a filter travel in the ticket.
    let info = c
        .execute(
            "SELECT id, name FROM append.unaware WHERE id < 10".into(),
            None,
        )
        .await
        .unwrap();
    assert!(info
        .endpoint
        .iter()
        .all(|e| is_scan_ticket(e.ticket.as_ref().unwrap())));
    let rows = json_lines(&read_all(&mut c, &info).await);
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );

    // Every split of a ticket is a Java SPLIT_V1 frame paimon-split decodes.
    let node = ticket::node_of(&info.endpoint[0].ticket.as_ref().unwrap().ticket).unwrap();
    assert_eq!(
        node.projection,
        Some(vec!["id".to_string(), "name".to_string()])
    );
    assert!(node.predicate.is_some());
    for split in &node.partitions[0] {
        assert!(split.starts_with(b"SPLIT_V1"), "not a SPLIT_V1 frame");
    }

    // A query computing over the rows: one ticket that runs it.
    let info = c
        .execute("SELECT count(*) AS n FROM pk.partitioned".into(), None)
        .await
        .unwrap();
    assert_eq!(info.endpoint.len(), 1);
    assert!(!is_scan_ticket(info.endpoint[0].ticket.as_ref().unwrap()));
    let rows = json_lines(&read_all(&mut c, &info).await);
    assert_eq!(rows, BTreeSet::from(["{\"n\":40}".to_string()]));
}

#[tokio::test]
async fn tokens_and_grants_hold() {
    let addr = start(Some(USERS), 2).await;
    let sql = "SELECT id, v FROM pk.partitioned WHERE id = 2";

    let err = query(&mut client(addr, None).await, sql).await.unwrap_err();
    assert!(err.contains(UNAUTHENTICATED), "{err}");
    let err = query(&mut client(addr, Some("tok-alicex")).await, sql)
        .await
        .unwrap_err();
    assert!(
        err.contains(UNAUTHENTICATED) && err.contains("unknown token"),
        "{err}"
    );

    let mut bob = client(addr, Some("tok-bob")).await;
    assert_eq!(
        query(&mut bob, sql)
            .await
            .unwrap()
            .iter()
            .map(RecordBatch::num_rows)
            .sum::<usize>(),
        1
    );
    let err = query(&mut bob, "SELECT * FROM append.unaware")
        .await
        .unwrap_err();
    assert!(
        err.contains(DENIED) && err.contains("append.unaware"),
        "{err}"
    );
    // Not through a subquery, nor through paimon_incremental('db.t', ..).
    let err = query(
        &mut bob,
        "SELECT * FROM pk.partitioned WHERE id IN (SELECT id FROM append.unaware)",
    )
    .await
    .unwrap_err();
    assert!(err.contains(DENIED), "{err}");
    let err = query(
        &mut bob,
        "SELECT * FROM paimon_incremental('append.unaware', '1', '2')",
    )
    .await
    .unwrap_err();
    assert!(err.contains("paimon_incremental"), "{err}");

    // Bob lists only what he reads.
    let info = bob
        .get_tables(CommandGetTables {
            include_schema: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let batches = read_all(&mut bob, &info).await;
    let dbs = arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap();
    let names = dbs.column_by_name("db_schema_name").unwrap();
    let names = names
        .as_any()
        .downcast_ref::<arrow::array::StringArray>()
        .unwrap();
    assert!(
        arrow::array::Array::len(names) > 3 && names.iter().all(|n| n == Some("pk")),
        "{names:?}"
    );

    // A scan ticket of a table bob may not read is refused too.
    let mut alice = client(addr, Some("tok-alice")).await;
    let info = alice
        .execute("SELECT * FROM append.unaware".into(), None)
        .await
        .unwrap();
    let t = info.endpoint[0].ticket.clone().unwrap();
    assert!(is_scan_ticket(&t));
    let err = read(&mut bob, &t).await.unwrap_err();
    assert!(err.contains(DENIED), "{err}");
    assert!(!read(&mut alice, &t).await.unwrap().is_empty());

    // The basic-auth handshake: user name, token as password.
    let mut hs = client(addr, None).await;
    assert!(hs.handshake("bob", "tok-alice").await.is_err());
    assert!(hs.handshake("bob", "nope").await.is_err());
    hs.handshake("bob", "tok-bob").await.unwrap();
    assert_eq!(hs.token().map(String::as_str), Some("tok-bob"));
    assert!(query(&mut hs, sql).await.is_ok());
}

#[tokio::test]
async fn files_outside_the_catalog_and_writes_are_refused() {
    let addr = start(None, 2).await;
    let mut c = client(addr, None).await;
    for sql in [
        "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION '/etc/passwd'",
        "SELECT * FROM '/etc/passwd'",
        "SELECT * FROM read_csv('/etc/passwd')",
        "COPY (SELECT 1) TO '/tmp/paimon-flight-copy.csv'",
        "INSERT INTO pk.partitioned VALUES ('x', 1, 1, 'v')",
        "DROP TABLE pk.partitioned",
    ] {
        let err = query(&mut c, sql).await.unwrap_err();
        assert!(err.contains(INVALID), "{sql}: {err}");
    }
    assert!(!Path::new("/tmp/paimon-flight-copy.csv").exists());
    assert_eq!(
        json_lines(
            &query(&mut c, "SELECT count(*) AS n FROM pk.partitioned")
                .await
                .unwrap()
        )
        .len(),
        1
    );
}

#[tokio::test]
async fn hostile_tickets_are_errors_and_the_server_keeps_serving() {
    let addr = start(None, 2).await;
    let mut c = client(addr, None).await;
    let info = c
        .execute("SELECT * FROM append.unaware".into(), None)
        .await
        .unwrap();
    let good = ticket::node_of(&info.endpoint[0].ticket.as_ref().unwrap().ticket).unwrap();
    let any = |value: Vec<u8>| {
        Ticket::new(
            Any {
                type_url: ticket::SCAN_TICKET_TYPE.into(),
                value: value.into(),
            }
            .encode_to_vec(),
        )
    };
    let with_split = |split: Vec<u8>| {
        let mut n = good.clone();
        n.partitions = vec![vec![split]];
        any(n.encode().unwrap())
    };
    let with_path = |path: &str| {
        let mut n = good.clone();
        n.table_path = path.to_string();
        any(n.encode().unwrap())
    };

    // Refused outright.
    let mut must_fail = vec![
        Ticket::new(b"garbage".to_vec()),
        Ticket::new(vec![0xff; 64]),
        Ticket::new(
            Any {
                type_url: "type.googleapis.com/nope".into(),
                value: b"{}".to_vec().into(),
            }
            .encode_to_vec(),
        ),
        any(b"not json".to_vec()),
        any(b"{\"version\":1}".to_vec()),
        with_split(b"SPLIT_V1 and then nothing".to_vec()),
        with_path("/etc"),
        with_path(&format!("{}/../..", good.table_path)),
        with_path(&format!("{}/x", good.table_path)),
    ];
    // The split decoder's fuzz seeds that name files outside their table.
    let seeds = repo().join("fuzz/seeds/split_decode");
    for name in [
        "paths-absolute-deletion-file",
        "paths-dotdot-bucket",
        "paths-dotdot-file-name",
        "paths-file-scheme-external",
        "paths-other-bucket-external",
    ] {
        must_fail.push(with_split(std::fs::read(seeds.join(name)).unwrap()));
    }
    for t in &must_fail {
        assert!(
            read(&mut c, t).await.is_err(),
            "{:?} was read",
            &t.ticket[..t.ticket.len().min(40)]
        );
    }

    // Every seed of the split and scan-node fuzz corpora, as a split and as a node: an error
    // or no rows (a seed may be a split of no files), never rows of another table.
    let mut corpus = Vec::new();
    for dir in [
        "fuzz/seeds/split_decode",
        "fuzz/regressions/split_decode",
        "fuzz/seeds/scan_node_decode",
    ] {
        for e in std::fs::read_dir(repo().join(dir)).unwrap() {
            corpus.push(std::fs::read(e.unwrap().path()).unwrap());
        }
    }
    assert!(corpus.len() > 20);
    for bytes in corpus {
        for t in [
            with_split(bytes.clone()),
            any(bytes.clone()),
            Ticket::new(bytes),
        ] {
            if let Ok(batches) = read(&mut c, &t).await {
                assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 0);
            }
        }
    }

    // Still serving.
    let rows = json_lines(
        &query(&mut c, "SELECT id, name FROM append.unaware WHERE id < 10")
            .await
            .unwrap(),
    );
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );
}

#[tokio::test]
async fn prepared_statements_run_as_their_caller() {
    let addr = start(Some(USERS), 2).await;
    let mut bob = client(addr, Some("tok-bob")).await;
    let err = bob
        .prepare(
            "SELECT id, name FROM append.unaware WHERE id < 10".into(),
            None,
        )
        .await
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains(DENIED), "{err}");

    let mut alice = client(addr, Some("tok-alice")).await;
    let mut prepared = alice
        .prepare(
            "SELECT id, name FROM append.unaware WHERE id < 10".into(),
            None,
        )
        .await
        .unwrap();
    let cols: Vec<String> = prepared
        .dataset_schema()
        .unwrap()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(cols, ["id", "name"]);
    let info = prepared.execute().await.unwrap();
    let rows = json_lines(&read_all(&mut alice, &info).await);
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );
    prepared.close().await.unwrap();
}

#[tokio::test]
async fn inserts_need_the_write_grant() {
    let tmp = tempfile::tempdir().unwrap();
    let warehouse = tmp.path().join("wh");
    copy_dir(
        &repo().join("fixtures/warehouse/append.db/unaware"),
        &warehouse.join("append.db/unaware"),
    );
    let users = Users::parse(
        "tok-w writer write:append.unaware\ntok-r reader read\ntok-o other read,write:append.other\n",
        "users",
    )
    .unwrap();
    let server = FlightSqlServer::new(warehouse.to_str().unwrap(), Some(users)).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve_flight(server, listener, None, std::future::pending()));
    let insert = "INSERT INTO append.unaware SELECT * FROM append.unaware WHERE id < 3";
    let count = "SELECT count(*) AS n FROM append.unaware";

    let mut reader = client(addr, Some("tok-r")).await;
    let err = reader
        .execute_update(insert.into(), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("write"), "{err}");
    assert_eq!(
        json_lines(&query(&mut reader, count).await.unwrap()),
        BTreeSet::from(["{\"n\":90}".to_string()])
    );

    // A write grant on another table does not cover this one.
    let mut other = client(addr, Some("tok-o")).await;
    let err = other
        .execute_update(insert.into(), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(DENIED) && err.contains("append.unaware"),
        "{err}"
    );

    let mut writer = client(addr, Some("tok-w")).await;
    let err = writer
        .execute_update(count.into(), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("an update must write"), "{err}");
    let err = writer
        .execute_update("DROP TABLE append.unaware".into(), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains(INVALID), "{err}");
    assert_eq!(writer.execute_update(insert.into(), None).await.unwrap(), 3);
    assert_eq!(
        json_lines(&query(&mut reader, count).await.unwrap()),
        BTreeSet::from(["{\"n\":93}".to_string()])
    );
    // Queries still may not write.
    let err = query(&mut writer, insert).await.unwrap_err();
    assert!(err.contains("write"), "{err}");
    assert_eq!(
        json_lines(&query(&mut reader, count).await.unwrap()),
        BTreeSet::from(["{\"n\":93}".to_string()])
    );
}

#[tokio::test]
async fn metadata_calls_answer() {
    let addr = start(None, 2).await;
    let mut c = client(addr, None).await;

    let info = c.get_catalogs().await.unwrap();
    let b = read_all(&mut c, &info).await;
    assert_eq!(
        json_lines(&b),
        BTreeSet::from(["{\"catalog_name\":\"paimon\"}".to_string()])
    );

    let info = c
        .get_db_schemas(CommandGetDbSchemas::default())
        .await
        .unwrap();
    let dbs = json_lines(&read_all(&mut c, &info).await);
    for db in ["append", "evolution", "pk"] {
        assert!(
            dbs.contains(&format!(
                "{{\"catalog_name\":\"paimon\",\"db_schema_name\":\"{db}\"}}"
            )),
            "{dbs:?}"
        );
    }

    let info = c
        .get_tables(CommandGetTables {
            db_schema_filter_pattern: Some("pk".into()),
            table_name_filter_pattern: Some("partition%".into()),
            include_schema: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let b = read_all(&mut c, &info).await;
    let b = arrow::compute::concat_batches(&b[0].schema(), &b).unwrap();
    assert_eq!(b.num_rows(), 1);
    let bytes = b.column_by_name("table_schema").unwrap();
    let bytes = bytes
        .as_any()
        .downcast_ref::<arrow::array::BinaryArray>()
        .unwrap()
        .value(0);
    let schema = arrow::ipc::convert::try_schema_from_ipc_buffer(bytes).unwrap();
    let cols: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(cols, ["dt", "hr", "id", "v"]);

    let info = c
        .get_primary_keys(CommandGetPrimaryKeys {
            db_schema: Some("pk".into()),
            table: "partitioned".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let keys = json_lines(&read_all(&mut c, &info).await);
    let schema_json = std::fs::read_to_string(
        repo().join("fixtures/warehouse/pk.db/partitioned/schema/schema-0"),
    )
    .unwrap();
    let java: serde_json::Value = serde_json::from_str(&schema_json).unwrap();
    let expected: BTreeSet<String> = java["primaryKeys"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{{\"catalog_name\":\"paimon\",\"db_schema_name\":\"pk\",\"table_name\":\"partitioned\",\"column_name\":{k},\"key_name\":null,\"key_sequence\":{}}}", i + 1))
        .collect();
    assert_eq!(keys, expected);

    let info = c
        .get_sql_info(vec![arrow_flight::sql::SqlInfo::FlightSqlServerName])
        .await
        .unwrap();
    assert_eq!(read_all(&mut c, &info).await[0].num_rows(), 1);
}

/// A server bounded by `limits`, on a free loopback port.
async fn start_limited(limits: QueryLimits) -> SocketAddr {
    let warehouse = repo().join("fixtures/warehouse");
    let server = FlightSqlServer::new(warehouse.to_str().unwrap(), None)
        .unwrap()
        .with_target_partitions(2)
        .with_limits(limits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve_flight(server, listener, None, std::future::pending()));
    addr
}

/// A query runs on the server (no scan tickets): sorting needs the memory pool.
const SORTED: &str = "SELECT id, name FROM append.unaware WHERE id < 10 ORDER BY name DESC, id";

/// A result of 729,000 rows, run on the server: more than the transport buffers, so a client
/// that does not read it keeps the server's stream (and its slot) open.
const LARGE: &str = "SELECT a.id, b.name, c.id AS c FROM append.unaware a, append.unaware b, \
                     append.unaware c";

#[tokio::test]
async fn a_query_over_its_memory_limit_is_resource_exhausted_and_the_server_serves_on() {
    let limits = QueryLimits {
        memory_per_query: Some(64 * 1024),
        ..QueryLimits::default()
    };
    let bounded = start_limited(limits).await;
    let mut c = client(bounded, None).await;
    let err = query(&mut c, SORTED).await.unwrap_err();
    assert!(
        err.contains("resource has been exhausted") && err.contains("Resources exhausted"),
        "{err}"
    );
    // Small queries still run, and a scan reads Java's rows.
    let rows = json_lines(
        &query(&mut c, "SELECT id, name FROM append.unaware WHERE id < 10")
            .await
            .unwrap(),
    );
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );
    // Unbounded, the same sort returns Java's rows.
    let unbounded = start_limited(QueryLimits::default()).await;
    let rows = json_lines(
        &query(&mut client(unbounded, None).await, SORTED)
            .await
            .unwrap(),
    );
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );
}

/// A server with one query slot and `queued` places in its queue, whose slot a client
/// holds with an open, unread stream of [`LARGE`]; and the ticket of [`SORTED`], planned.
async fn one_slot_held(
    queued: usize,
) -> (
    SocketAddr,
    arrow_flight::decode::FlightRecordBatchStream,
    Ticket,
) {
    let addr = start_limited(QueryLimits {
        memory_per_query: None,
        concurrent: 1,
        queued,
    })
    .await;
    let mut a = client(addr, None).await;
    let large = a.execute(LARGE.to_string(), None).await.unwrap();
    let held = a
        .do_get(large.endpoint[0].ticket.clone().unwrap())
        .await
        .unwrap();
    let info = a.execute(SORTED.to_string(), None).await.unwrap();
    (addr, held, info.endpoint[0].ticket.clone().unwrap())
}

#[tokio::test]
async fn queries_beyond_the_slots_and_the_queue_are_refused_until_a_slot_frees() {
    let (addr, held, ticket) = one_slot_held(0).await;
    let mut b = client(addr, None).await;
    let err = read(&mut b, &ticket).await.unwrap_err();
    assert!(
        err.contains("resource has been exhausted") && err.contains("busy"),
        "{err}"
    );
    // Planning is not a query: B still gets its FlightInfo.
    b.execute("SELECT count(*) AS n FROM append.unaware".into(), None)
        .await
        .unwrap();
    drop(held);
    // The slot frees once the server sees A's stream cancelled.
    let mut rows = None;
    for _ in 0..100 {
        match read(&mut b, &ticket).await {
            Ok(batches) => {
                rows = Some(json_lines(&batches));
                break;
            }
            Err(e) => {
                assert!(e.contains("busy"), "{e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
    assert_eq!(
        rows.expect("the slot was never freed"),
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );
}

#[tokio::test]
async fn a_queued_query_runs_when_the_slot_frees() {
    let (addr, held, ticket) = one_slot_held(1).await;
    let waiting = {
        let mut b = client(addr, None).await;
        let ticket = ticket.clone();
        tokio::spawn(async move { read(&mut b, &ticket).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!waiting.is_finished(), "B ran while A held the only slot");
    // A third finds the queue full.
    let err = read(&mut client(addr, None).await, &ticket)
        .await
        .unwrap_err();
    assert!(err.contains("busy"), "{err}");
    drop(held);
    let rows = json_lines(&waiting.await.unwrap().unwrap());
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );
}

#[tokio::test]
async fn prepared_statements_bind_parameters_and_damaged_handles_are_refused() {
    use arrow::array::{Int32Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use arrow_flight::sql::{ProstMessageExt as _, TicketStatementQuery};

    let addr = start(None, 2).await;
    let mut c = client(addr, None).await;
    // JDBC's `?`, numbered in order; the second is typed from its comparison.
    let mut prepared = c
        .prepare(
            "SELECT id, name FROM append.unaware WHERE id < ? AND (name <> ? OR name IS NULL) \
             ORDER BY id"
                .into(),
            None,
        )
        .await
        .unwrap();
    let parameters = prepared.parameter_schema().unwrap().clone();
    let names: Vec<&str> = parameters
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["$1", "$2"]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("$1", DataType::Int32, true),
        Field::new("$2", DataType::Utf8, true),
    ]));
    let bind = |id: i32, name: &str| {
        RecordBatch::try_new(
            Arc::clone(&schema),
            vec![
                Arc::new(Int32Array::from(vec![id])),
                Arc::new(StringArray::from(vec![name])),
            ],
        )
        .unwrap()
    };
    prepared.set_parameters(bind(10, "none")).unwrap();
    let info = prepared.execute().await.unwrap();
    let rows = json_lines(&read_all(&mut c, &info).await);
    // No name is 'none': Java's rows of `id < 10`.
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );
    // Bound again, the same statement gives the new values' rows.
    prepared.set_parameters(bind(3, "name-1")).unwrap();
    let info = prepared.execute().await.unwrap();
    let ids: Vec<String> = json_lines(&read_all(&mut c, &info).await)
        .into_iter()
        .collect();
    assert_eq!(
        ids,
        [r#"{"id":0,"name":"name-0"}"#, r#"{"id":2,"name":"name-2"}"#]
    );
    // Two rows bind nothing.
    let two = RecordBatch::try_new(
        Arc::clone(&schema),
        vec![
            Arc::new(Int32Array::from(vec![1, 2])),
            Arc::new(StringArray::from(vec!["a", "b"])),
        ],
    )
    .unwrap();
    prepared.set_parameters(two).unwrap();
    let err = prepared.execute().await.unwrap_err().to_string();
    assert!(err.contains("one row"), "{err}");

    // Damaged handles in statement tickets: refused, and the server serves on.
    let statement = |handle: Vec<u8>| {
        Ticket::new(
            TicketStatementQuery {
                statement_handle: handle.into(),
            }
            .as_any()
            .encode_to_vec(),
        )
    };
    let mut bound = b"\xffPRS-PARAMS1".to_vec();
    bound.extend_from_slice(&8u32.to_le_bytes());
    bound.extend_from_slice(b"SELECT 1");
    for bad in [
        vec![0xff, 0xfe],
        b"\xffPRS-PARAMS1\xff\xff\xff\x7f".to_vec(),
        bound.clone(),
        [bound.as_slice(), b"garbage ipc"].concat(),
    ] {
        let err = read(&mut c, &statement(bad.clone())).await.unwrap_err();
        assert!(
            err.contains(INVALID) && err.contains("statement handle"),
            "{bad:?}: {err}"
        );
    }
    let rows = json_lines(
        &query(&mut c, "SELECT id, name FROM append.unaware WHERE id < 10")
            .await
            .unwrap(),
    );
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );
}
