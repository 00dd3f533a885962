//! Times planning a local table in-process, like `paimon-bench plan` (which needs the whole
//! workspace to build): `cargo run --release -p paimon-meta --example plan_timing -- TABLE [R]`.
//! Run it under `/usr/bin/time -v` for the peak RSS; `PLAN_DROP_STATS=1` plans with
//! `ScanBuilder::with_drop_stats(true)`. Prints the time to plan (`ms`, what `paimon-bench plan`
//! times) and then to drop the plan (`drop_ms`; the criterion bench times both).

use std::sync::Arc;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let table = args.next().ok_or("usage: plan_timing TABLE [REPEAT]")?;
    let repeat: usize = args.next().map_or(Ok(1), |r| r.parse())?;
    let drop_stats = std::env::var_os("PLAN_DROP_STATS").is_some();
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        let t = paimon_meta::Table::open(Arc::new(paimon_io::LocalFileIO::new()), &table)?;
        let plan = t.scan().with_drop_stats(drop_stats).plan()?;
        let files: usize = plan.splits.iter().map(|s| s.data_files.len()).sum();
        let plan_splits = plan.splits.len();
        let planned = start.elapsed();
        drop(plan);
        println!(
            "splits={} files={} ms={:.1} drop_ms={:.1}",
            plan_splits,
            files,
            planned.as_secs_f64() * 1e3,
            (start.elapsed() - planned).as_secs_f64() * 1e3
        );
    }
    Ok(())
}
