//! Starts the Flight SQL service alone until stdin closes (`paimon serve --flight-bind` runs the
//! same server beside the REST catalog):
//!
//! ```text
//! cargo run -p paimon-serve --example flight_server -- WAREHOUSE [--auth FILE]
//!     [--bind HOST:PORT] [--target-partitions N]
//! ```
//!
//! Prints `listening on HOST:PORT` once it accepts connections (`--bind` defaults to
//! `127.0.0.1:0`, a free port).

use std::io::Write as _;

use paimon_serve::auth::Users;
use paimon_serve::flight::{serve_flight, FlightSqlServer};
use tokio::io::AsyncReadExt as _;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut warehouse = None;
    let mut auth = None;
    let mut bind = "127.0.0.1:0".to_string();
    let mut partitions = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--auth" => auth = args.next(),
            "--bind" => bind = args.next().ok_or("--bind needs HOST:PORT")?,
            "--target-partitions" => {
                partitions = Some(args.next().ok_or("--target-partitions needs N")?.parse()?)
            }
            _ if warehouse.is_none() => warehouse = Some(a),
            other => return Err(format!("unexpected argument '{other}'").into()),
        }
    }
    let warehouse = warehouse.ok_or(
        "usage: flight_server WAREHOUSE [--auth FILE] [--bind HOST:PORT] [--target-partitions N]",
    )?;
    let users = match auth {
        Some(f) => Some(Users::load(std::path::Path::new(&f))?),
        None => None,
    };
    let mut server = FlightSqlServer::new(&warehouse, users)?;
    if let Some(n) = partitions {
        server = server.with_target_partitions(n);
    }
    let listener = tokio::net::TcpListener::bind(&bind).await?;
    println!("listening on {}", listener.local_addr()?);
    std::io::stdout().flush()?;
    let stdin_closed = async {
        let mut sink = Vec::new();
        let _ = tokio::io::stdin().read_to_end(&mut sink).await;
    };
    serve_flight(server, listener, None, stdin_closed).await?;
    Ok(())
}
