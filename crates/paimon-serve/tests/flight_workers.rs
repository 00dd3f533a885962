//! A planner and two workers on loopback, in process: a planner started with `--workers`
//! names the workers in its scan endpoints (round robin) with split tickets, and arrow-flight's
//! plain `FlightClient` reading every endpoint from the worker it names gets Java's rows
//! (`fixtures/expected`). Hostile tickets (bad bytes, a table outside the warehouse, a split
//! naming files outside its table) are errors, and the worker keeps serving good ones.

mod common;

use std::collections::BTreeSet;
use std::net::SocketAddr;

use arrow::array::RecordBatch;
use arrow_flight::sql::client::FlightSqlServiceClient;
use arrow_flight::{FlightClient, FlightInfo, Ticket};
use common::{java_rows, json_lines};
use futures::TryStreamExt;
use paimon_serve::flight::split_ticket::SplitTicket;
use paimon_serve::flight::{serve_flight, serve_worker, FlightSqlServer, FlightWorker};
use paimon_test_utils::repo;
use tonic::transport::Channel;

fn warehouse() -> String {
    repo().join("fixtures/warehouse").display().to_string()
}

async fn listener() -> (tokio::net::TcpListener, SocketAddr) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    (l, addr)
}

/// Two workers and a planner naming them; the planner's and the workers' addresses.
async fn start() -> (SocketAddr, Vec<SocketAddr>) {
    let mut urls = Vec::new();
    let mut workers = Vec::new();
    for _ in 0..2 {
        let (l, addr) = listener().await;
        let w = FlightWorker::new(&warehouse(), None).unwrap();
        tokio::spawn(serve_worker(w, l, None, std::future::pending()));
        urls.push(format!("grpc://{addr}"));
        workers.push(addr);
    }
    let planner = FlightSqlServer::new(&warehouse(), None)
        .unwrap()
        .with_target_partitions(4)
        .with_workers(urls);
    let (l, addr) = listener().await;
    tokio::spawn(serve_flight(planner, l, None, std::future::pending()));
    (addr, workers)
}

async fn channel(url: &str) -> Channel {
    let url = url.replace("grpc://", "http://");
    Channel::from_shared(url).unwrap().connect().await.unwrap()
}

async fn read(addr: &str, t: &Ticket) -> Result<Vec<RecordBatch>, String> {
    let mut c = FlightClient::new(channel(addr).await);
    let stream = c.do_get(t.clone()).await.map_err(|e| e.to_string())?;
    stream.try_collect().await.map_err(|e| e.to_string())
}

/// Every endpoint read from the worker it names.
async fn read_endpoints(info: &FlightInfo, workers: &[SocketAddr]) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    let mut used = BTreeSet::new();
    for e in &info.endpoint {
        assert_eq!(e.location.len(), 1, "one worker per endpoint");
        let url = &e.location[0].uri;
        assert!(
            workers.iter().any(|w| *url == format!("grpc://{w}")),
            "{url} is no worker"
        );
        used.insert(url.clone());
        out.extend(read(url, e.ticket.as_ref().unwrap()).await.unwrap());
    }
    if info.endpoint.len() >= 2 {
        assert_eq!(used.len(), 2, "round robin over both workers");
    }
    out
}

async fn execute(planner: SocketAddr, sql: &str) -> FlightInfo {
    let mut c = FlightSqlServiceClient::new(channel(&format!("http://{planner}")).await);
    c.execute(sql.to_string(), None).await.unwrap()
}

#[tokio::test]
async fn workers_serve_the_planners_endpoints_with_javas_rows() {
    let (planner, workers) = start().await;

    let info = execute(planner, "SELECT * FROM pk.partitioned").await;
    assert!(
        info.endpoint.len() >= 2,
        "{} endpoints",
        info.endpoint.len()
    );
    let rows = json_lines(&read_endpoints(&info, &workers).await);
    assert_eq!(rows, java_rows("pk/partitioned/latest.jsonl"));

    // The projection and the filter travel in the read options.
    let info = execute(planner, "SELECT id, name FROM append.unaware WHERE id < 10").await;
    let t = SplitTicket::decode(&info.endpoint[0].ticket.as_ref().unwrap().ticket).unwrap();
    assert_eq!(
        (t.database.as_str(), t.table.as_str()),
        ("append", "unaware")
    );
    let options = paimon_rs::split::decode_read_options(&t.options).unwrap();
    assert_eq!(options.projection, Some(vec!["id".into(), "name".into()]));
    assert!(options.filter.is_some());
    let rows = json_lines(&read_endpoints(&info, &workers).await);
    assert_eq!(
        rows,
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );

    // A ticket's split bytes and options are what a worker process reads: the facade's
    // read_split (what `paimon read-split --options` runs) gives the same rows.
    let path = format!("{}/append.db/unaware", warehouse());
    let mut batches = Vec::new();
    for e in &info.endpoint {
        let t = SplitTicket::decode(&e.ticket.as_ref().unwrap().ticket).unwrap();
        for split in &t.splits {
            let io = paimon_rs::io::file_io_for(&path).unwrap();
            for b in paimon_rs::read_split(io, &path, split, &t.options).unwrap() {
                batches.push(b.unwrap());
            }
        }
    }
    assert_eq!(
        json_lines(&batches),
        java_rows("append/unaware/q-select-id-name-lt10.jsonl")
    );

    // The planner reads split tickets too.
    let e = &info.endpoint[0];
    let from_planner = read(&format!("http://{planner}"), e.ticket.as_ref().unwrap())
        .await
        .unwrap();
    let from_worker = read(&e.location[0].uri, e.ticket.as_ref().unwrap())
        .await
        .unwrap();
    assert_eq!(json_lines(&from_planner), json_lines(&from_worker));
}

#[tokio::test]
async fn hostile_tickets_are_errors_and_the_worker_keeps_serving() {
    let (planner, workers) = start().await;
    let worker = format!("grpc://{}", workers[0]);
    let info = execute(planner, "SELECT * FROM pk.partitioned").await;
    let good = info.endpoint[0].ticket.clone().unwrap();
    let ticket = SplitTicket::decode(&good.ticket).unwrap();
    let want = read(&worker, &good).await.unwrap();
    assert!(want.iter().map(RecordBatch::num_rows).sum::<usize>() > 0);

    // Bytes that are no ticket.
    let err = read(&worker, &Ticket::new(b"\x00garbage".to_vec()))
        .await
        .unwrap_err();
    assert!(err.contains("split ticket"), "{err}");
    assert_eq!(read(&worker, &good).await.unwrap(), want);

    // A table outside the warehouse.
    let outside = SplitTicket {
        database: "..".into(),
        ..ticket.clone()
    };
    let err = read(&worker, &outside.encode().unwrap()).await.unwrap_err();
    assert!(err.contains("database"), "{err}");
    assert_eq!(read(&worker, &good).await.unwrap(), want);

    // A split whose files lie outside its table.
    let mut split = paimon_rs::split::decode_any(&ticket.splits[0])
        .unwrap()
        .split;
    let paimon_rs::Split::Data(d) = &mut split else {
        panic!("a data split")
    };
    // A bucket path outside the table is read inside it (not found there); a data file's
    // external path outside the table's roots is refused before anything is read.
    d.bucket_path = "/etc".into();
    d.data_files[0].external_path = Some("/etc/passwd".into());
    let frame = paimon_rs::split::encode_frame(&split, paimon_rs::split::CURRENT_VERSION).unwrap();
    let hostile = SplitTicket {
        splits: vec![frame],
        ..ticket.clone()
    };
    let err = read(&worker, &hostile.encode().unwrap()).await.unwrap_err();
    assert!(
        err.contains("/etc/passwd") && err.contains("not allowed"),
        "{err}"
    );
    assert!(!err.contains("root:"), "{err}");
    assert_eq!(read(&worker, &good).await.unwrap(), want);

    // Read options that do not decode.
    let bad_options = SplitTicket {
        options: br#"{"version":1,"limit":"all"}"#.to_vec(),
        ..ticket.clone()
    };
    let err = read(&worker, &bad_options.encode().unwrap())
        .await
        .unwrap_err();
    assert!(err.contains("limit"), "{err}");
    assert_eq!(read(&worker, &good).await.unwrap(), want);

    // A worker serves nothing but DoGet.
    let mut c = FlightClient::new(channel(&worker).await);
    let err = c
        .get_flight_info(arrow_flight::FlightDescriptor::new_cmd("SELECT 1"))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("only DoGet"), "{err}");
}
