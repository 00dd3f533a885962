//! Row filters and column masks (`--policies`) in Flight SQL, through arrow-flight's own
//! Flight SQL client over a table the test writes: a user under a policy gets scan tickets
//! whose splits carry its rules (and a worker reading those split bytes applies them), a
//! ticket with them stripped and any query that would compute past them are refused; a user
//! without a policy reads every row.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;

use arrow::array::{Array, Int32Array, RecordBatch, StringArray};
use arrow_flight::sql::client::FlightSqlServiceClient;
use arrow_flight::sql::Any;
use arrow_flight::Ticket;
use futures::TryStreamExt;
use paimon_rs::arrow_array::ArrayRef;
use paimon_rs::split::{decode_any, encode_frame, Split, CURRENT_VERSION};
use paimon_serve::auth::Users;
use paimon_serve::flight::{serve_flight, ticket, FlightSqlServer};
use paimon_serve::policy::Policies;
use prost::Message;
use tonic::transport::Channel;

const DENIED: &str = "does not have permission";
const USERS: &str = "tok-reader reader read\ntok-plain plain read\n";
/// The reader sees rows with `id >= 3`, `v` as `#` + `v`.
const POLICIES: &str = r##"{"policies": [{"user": "reader", "table": "db.t",
    "rowFilter": "id >= 3",
    "columnMasks": {"v": {"name": "CONCAT", "inputs": ["#", {"index": 1, "name": "v", "type": "STRING"}]}}}]}"##;

/// A warehouse with `db.t` (id INT, v STRING) holding `(i, "rs-i")` for i in 0..6, written
/// in two commits (two files).
fn warehouse() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let catalog = paimon_rs::Catalog::filesystem(dir.path().to_str().unwrap()).unwrap();
    catalog
        .create_database("db", false, &BTreeMap::new())
        .unwrap();
    let schema = paimon_rs::spec::schema::TableSchema::from_json_str(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},
            {"id":1,"name":"v","type":"STRING"}],"highestFieldId":1,"partitionKeys":[],
            "primaryKeys":[],"options":{},"timeMillis":0}"#,
    )
    .unwrap();
    catalog.create_table("db.t", schema, false).unwrap();
    let table = catalog.table("db.t").unwrap();
    for (from, to) in [(0, 3), (3, 6)] {
        let ids: Vec<i32> = (from..to).collect();
        let v: Vec<String> = ids.iter().map(|i| format!("rs-{i}")).collect();
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(ids)),
            Arc::new(StringArray::from(v)),
        ];
        let batch = RecordBatch::try_new(table.arrow_schema(), cols).unwrap();
        table.write().batches([batch]).unwrap();
    }
    dir
}

async fn start(warehouse: &std::path::Path) -> SocketAddr {
    let users = Users::parse(USERS, "users").unwrap();
    let policies = Policies::parse(POLICIES, "policies", &users).unwrap();
    let server = FlightSqlServer::new(warehouse.to_str().unwrap(), Some(users))
        .unwrap()
        .with_target_partitions(2)
        .with_policies(policies);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve_flight(server, listener, None, std::future::pending()));
    addr
}

async fn client(addr: SocketAddr, token: &str) -> FlightSqlServiceClient<Channel> {
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut c = FlightSqlServiceClient::new(channel);
    c.set_token(token.to_string());
    c
}

async fn read(
    c: &mut FlightSqlServiceClient<Channel>,
    t: &Ticket,
) -> Result<Vec<RecordBatch>, String> {
    let stream = c.do_get(t.clone()).await.map_err(|e| e.to_string())?;
    stream.try_collect().await.map_err(|e| e.to_string())
}

/// The query's tickets and its rows, read ticket by ticket.
async fn query(
    c: &mut FlightSqlServiceClient<Channel>,
    sql: &str,
) -> Result<(Vec<Ticket>, Vec<RecordBatch>), String> {
    let info = c
        .execute(sql.to_string(), None)
        .await
        .map_err(|e| e.to_string())?;
    let tickets: Vec<Ticket> = info
        .endpoint
        .iter()
        .map(|e| e.ticket.clone().unwrap())
        .collect();
    let mut rows = Vec::new();
    for t in &tickets {
        rows.extend(read(c, t).await?);
    }
    Ok((tickets, rows))
}

fn rows(batches: &[RecordBatch]) -> BTreeMap<i32, String> {
    let mut out = BTreeMap::new();
    for b in batches {
        let id = b.column_by_name("id").unwrap();
        let id = id.as_any().downcast_ref::<Int32Array>().unwrap();
        let v = b.column_by_name("v").unwrap();
        let v = arrow::compute::cast(v, &arrow::datatypes::DataType::Utf8).unwrap();
        let v = v.as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.insert(id.value(i), v.value(i).to_string());
        }
    }
    out
}

fn expected(ids: std::ops::Range<i32>, prefix: &str) -> BTreeMap<i32, String> {
    ids.map(|i| (i, format!("{prefix}rs-{i}"))).collect()
}

fn is_scan_ticket(t: &Ticket) -> bool {
    Any::decode(t.ticket.as_ref()).unwrap().type_url == ticket::SCAN_TICKET_TYPE
}

#[tokio::test]
async fn a_user_under_a_policy_reads_only_filtered_masked_rows() {
    let dir = warehouse();
    let addr = start(dir.path()).await;
    let mut reader = client(addr, "tok-reader").await;

    let (tickets, batches) = query(&mut reader, "SELECT * FROM db.t").await.unwrap();
    assert_eq!(rows(&batches), expected(3..6, "#"));
    assert!(!tickets.is_empty() && tickets.iter().all(is_scan_ticket));
    // A filter and a projection keep the rules.
    let (_, batches) = query(&mut reader, "SELECT id, v FROM db.t WHERE id < 5")
        .await
        .unwrap();
    assert_eq!(rows(&batches), expected(3..5, "#"));

    // Every split of a ticket is a query-auth split, and a worker reading its bytes (as
    // `paimon read-split` does) applies the rules too.
    let table_path = dir.path().canonicalize().unwrap().join("db.db/t");
    let io = paimon_rs::io::file_io_for(table_path.to_str().unwrap()).unwrap();
    let worker = paimon_rs::data::SplitReader::builder(io).build();
    let mut read_by_worker = Vec::new();
    for t in &tickets {
        let node = ticket::node_of(&t.ticket).unwrap();
        for frame in node.partitions.iter().flatten() {
            let split = decode_any(frame).unwrap().split;
            assert!(
                matches!(split, Split::QueryAuth { auth: Some(_), .. }),
                "{split:?}"
            );
            for b in worker.read_bytes(&node.table_path, frame).unwrap() {
                read_by_worker.push(b.unwrap());
            }
        }
    }
    assert_eq!(rows(&read_by_worker), expected(3..6, "#"));

    // A ticket with the rules stripped is refused.
    let mut node = ticket::node_of(&tickets[0].ticket).unwrap();
    for frame in node.partitions.iter_mut().flatten() {
        let Split::QueryAuth { split, .. } = decode_any(frame).unwrap().split else {
            unreachable!()
        };
        *frame = encode_frame(&split, CURRENT_VERSION).unwrap();
    }
    let group = node.partitions[0].clone();
    let stripped = ticket::encode(&node, group).unwrap();
    let e = read(&mut reader, &stripped).await.unwrap_err();
    assert!(e.contains(DENIED) && e.contains("db.t"), "{e}");

    // Queries computed on the server from the table (or its statistics) are refused.
    for sql in [
        "SELECT count(*) FROM db.t",
        "SELECT max(v) FROM db.t",
        "SELECT a.id FROM db.t a JOIN db.t b ON a.id = b.id",
        "SELECT * FROM \"db\".\"t$files\"",
    ] {
        let e = query(&mut reader, sql).await.unwrap_err();
        assert!(e.contains(DENIED), "{sql}: {e}");
    }
    // The server keeps serving.
    let (_, batches) = query(&mut reader, "SELECT * FROM db.t").await.unwrap();
    assert_eq!(rows(&batches), expected(3..6, "#"));
}

#[tokio::test]
async fn a_user_without_a_policy_reads_every_row() {
    let dir = warehouse();
    let addr = start(dir.path()).await;
    let mut plain = client(addr, "tok-plain").await;
    let (tickets, batches) = query(&mut plain, "SELECT * FROM db.t").await.unwrap();
    assert_eq!(rows(&batches), expected(0..6, ""));
    for t in &tickets {
        for frame in ticket::node_of(&t.ticket)
            .unwrap()
            .partitions
            .iter()
            .flatten()
        {
            let split = decode_any(frame).unwrap().split;
            assert!(!matches!(split, Split::QueryAuth { .. }), "{split:?}");
        }
    }
    let (_, batches) = query(&mut plain, "SELECT count(*) AS n FROM db.t")
        .await
        .unwrap();
    let n = batches[0].column(0);
    let n = arrow::compute::cast(n, &arrow::datatypes::DataType::Int64).unwrap();
    assert_eq!(
        n.as_any()
            .downcast_ref::<arrow::array::Int64Array>()
            .unwrap()
            .value(0),
        6
    );
}
