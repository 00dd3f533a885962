//! Registers the bundled warehouse with DataFusion and runs SQL over a Java-written table: a
//! count, an aggregate with a filter (pushed into the scan) and an ordered projection.
//!
//! `cargo run -p paimon-datafusion --example datafusion_sql [WAREHOUSE]` (default:
//! `fixtures/warehouse`). scripts/test.sh runs it beside paimon-rs's examples.

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::error::Result;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let warehouse = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/warehouse").to_string()
    });
    // The warehouse's databases are the session's schemas: tables are named `db.table`.
    let ctx = paimon_datafusion::sql::session(&warehouse)?;

    for sql in [
        "SELECT count(*) AS rows FROM pk.dedup_compacted",
        "SELECT count(*) AS rows, min(id) AS lo, max(id) AS hi \
         FROM pk.dedup_compacted WHERE id >= 40 AND v IS NOT NULL",
        "SELECT id, v FROM pk.dedup_compacted ORDER BY id LIMIT 3",
    ] {
        let batches = paimon_datafusion::sql::query(&ctx, sql)
            .await?
            .collect()
            .await?;
        println!("{sql}\n{}", pretty_format_batches(&batches)?);
    }
    Ok(())
}
