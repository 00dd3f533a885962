//! Reads a Java-written table of the bundled warehouse: the latest snapshot, a time travel,
//! and a projected, filtered read.
//!
//! `cargo run -p paimon-rs --example read [WAREHOUSE]` (default: `fixtures/warehouse`).

use paimon_rs::arrow_array::cast::AsArray;
use paimon_rs::arrow_array::types::Int32Type;
use paimon_rs::{Catalog, RecordBatch, Result};

fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

fn main() -> Result<()> {
    let warehouse = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/warehouse").to_string()
    });
    let table = Catalog::filesystem(&warehouse)?.table("pk.dedup_compacted")?;

    let latest = table.scan().to_arrow()?;
    println!("latest snapshot: {} rows", rows(&latest));

    let first = table.scan().with_snapshot(1).to_arrow()?;
    println!("snapshot 1: {} rows", rows(&first));

    let some = table
        .scan()
        .with_projection(["id", "v"])
        .with_filter("id >= 40 AND v IS NOT NULL")?
        .to_arrow()?;
    println!("id >= 40:");
    for b in &some {
        let id = b.column(0).as_primitive::<Int32Type>();
        let v = b.column(1).as_string::<i32>();
        for i in 0..b.num_rows() {
            println!("  {} {}", id.value(i), v.value(i));
        }
    }
    Ok(())
}
