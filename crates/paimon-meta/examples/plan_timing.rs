//! Times planning a local table in-process, like `paimon-bench plan` (which needs the whole
//! workspace to build): `cargo run --release -p paimon-meta --example plan_timing -- TABLE [R]`.
//! Run it under `/usr/bin/time -v` for the peak RSS; `PLAN_DROP_STATS=1` plans with
//! `ScanBuilder::with_drop_stats(true)`.

use std::sync::Arc;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let table = args.next().ok_or("usage: plan_timing TABLE [REPEAT]")?;
    let repeat: usize = args.next().map_or(Ok(1), |r| r.parse())?;
    let drop = std::env::var_os("PLAN_DROP_STATS").is_some();
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        let t = paimon_meta::Table::open(Arc::new(paimon_io::LocalFileIO::new()), &table)?;
        let plan = t.scan().with_drop_stats(drop).plan()?;
        let files: usize = plan.splits.iter().map(|s| s.data_files.len()).sum();
        println!(
            "splits={} files={} ms={:.1}",
            plan.splits.len(),
            files,
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}
