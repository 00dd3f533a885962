//! A planner and its workers: the planner plans a scan and writes each split as bytes (the
//! `SPLIT_V1` frame Java reads too); a worker, here this same program started again as
//! another process, reads a split's bytes with nothing but the table's location.
//!
//! `cargo run -p paimon-rs --example plan_and_read_split [WAREHOUSE]`.

use std::process::Command;

use paimon_rs::{Catalog, Table};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--worker") {
        return worker(&args[2], &args[3..]);
    }
    let warehouse = args.get(1).cloned().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/warehouse").to_string()
    });
    let table = Catalog::filesystem(&warehouse)?.table("pk.dedup_compacted")?;
    let plan = table.scan().plan()?;
    let dir = std::env::temp_dir().join(format!("paimon-rs-splits-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut files = Vec::new();
    for (i, bytes) in plan.split_bytes()?.iter().enumerate() {
        let f = dir.join(format!("split-{i}.bin"));
        std::fs::write(&f, bytes)?;
        files.push(f.display().to_string());
    }
    println!(
        "planned snapshot {:?}: {} splits, {} rows before merging",
        plan.snapshot_id,
        plan.splits.len(),
        plan.planned_rows()
    );
    let exe = std::env::current_exe()?;
    let out = Command::new(exe)
        .arg("--worker")
        .arg(table.path())
        .args(&files)
        .output()?;
    print!("{}", String::from_utf8_lossy(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        return Err(format!("worker failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(())
}

/// Reads each split file of `files` and prints its row count.
fn worker(table_path: &str, files: &[String]) -> Result<()> {
    let table = Table::open_path(table_path)?;
    let reader = table.scan().with_projection(["id", "v"]).split_reader()?;
    let mut total = 0;
    for f in files {
        let bytes = std::fs::read(f)?;
        let mut rows = 0;
        for batch in reader.read_bytes(table.path(), &bytes)? {
            rows += batch?.num_rows();
        }
        println!("worker {}: {f}: {rows} rows", std::process::id());
        total += rows;
    }
    println!("worker read {total} rows");
    Ok(())
}
