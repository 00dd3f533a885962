//! Plans the ~100,000-file planning table (issue 4 goal: under 250 ms and 100 MB peak).
//!
//! The table is written by the Java oracle (`scripts/bench.sh` puts it in
//! `.cache/bench/planning-100000`; `PAIMON_PLANNING_TABLE` points elsewhere). Without it the
//! bench says so and measures nothing. The same files in one small manifest per commit (Java's
//! manifest merging held off, as streaming writers leave a table; `scripts/bench.sh` writes
//! `.cache/bench/planning-nomerge-100000`, `PAIMON_PLANNING_TABLE_UNMERGED` points elsewhere)
//! are planned as `unmerged_{files}_files`. Run: `cargo bench -p paimon-meta --bench plan`. It
//! prints the process's peak resident memory (`VmHWM`) twice: after the first plan (one plan's
//! peak, with the process's own few MB) and after all the timed plans, where each plan is
//! dropped before the next but the allocator keeps some of the freed memory mapped (glibc
//! raises its mmap threshold once large blocks are freed, so later plans grow their vectors in
//! the heap, where the holes stay).
//!
//! `{files}_files` plans as a caller without a pool does (an unbounded pool counts what the
//! plan holds); `{files}_files_bounded` plans within a `GreedyMemoryPool` with room for four
//! plans, the cost of the reservations under a limit.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use paimon_memory::{GreedyMemoryPool, MemoryPool, UnboundedMemoryPool};

fn table(var: &str, default: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../.cache/bench")
                .join(default)
        },
        PathBuf::from,
    );
    path.join("snapshot").is_dir().then_some(path)
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn plan(c: &mut Criterion) {
    let Some(path) = table("PAIMON_PLANNING_TABLE", "planning-100000") else {
        eprintln!(
            "plan bench: no planning table (run scripts/bench.sh, or set PAIMON_PLANNING_TABLE); \
             nothing measured"
        );
        return;
    };
    let path = path.to_string_lossy().into_owned();
    let io = Arc::new(paimon_io::LocalFileIO::new());
    let plan_once = || {
        let table = paimon_meta::Table::open(io.clone(), &path).expect("open the planning table");
        table.scan().plan().expect("plan the planning table")
    };
    let files: usize = plan_once().splits.iter().map(|s| s.data_files.len()).sum();
    if let Some(mb) = peak_rss_mb() {
        eprintln!(
            "plan bench: {files} files, one plan: process peak RSS {mb:.0} MB (goal < 100 MB)"
        );
    }
    let mut group = c.benchmark_group("plan");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(files as u64));
    group.bench_function(format!("{files}_files"), |b| b.iter(plan_once));
    let peak = {
        let pool = Arc::new(UnboundedMemoryPool::new());
        let table = paimon_meta::Table::open(io.clone(), &path).expect("open the planning table");
        let plan = table
            .scan()
            .with_memory_pool(pool.clone())
            .plan()
            .expect("plan the planning table");
        eprintln!(
            "plan bench: the pool's peak {:.1} MB, the plan holds {:.1} MB",
            pool.peak() as f64 / 1e6,
            plan.reserved_bytes() as f64 / 1e6
        );
        pool.peak()
    };
    let bounded: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(peak * 4));
    group.bench_function(format!("{files}_files_bounded"), |b| {
        b.iter(|| {
            let table =
                paimon_meta::Table::open(io.clone(), &path).expect("open the planning table");
            table
                .scan()
                .with_memory_pool(bounded.clone())
                .plan()
                .expect("plan within the pool")
        })
    });
    group.finish();
    if let Some(mb) = peak_rss_mb() {
        eprintln!("plan bench: {files} files, after every plan: process peak RSS {mb:.0} MB");
    }
}

fn plan_unmerged(c: &mut Criterion) {
    let Some(path) = table("PAIMON_PLANNING_TABLE_UNMERGED", "planning-nomerge-100000") else {
        eprintln!(
            "plan bench: no unmerged planning table (run scripts/bench.sh, or set \
             PAIMON_PLANNING_TABLE_UNMERGED); nothing measured"
        );
        return;
    };
    let path = path.to_string_lossy().into_owned();
    let io = Arc::new(paimon_io::LocalFileIO::new());
    let plan_once = || {
        let table = paimon_meta::Table::open(io.clone(), &path).expect("open the planning table");
        table
            .scan()
            .plan()
            .expect("plan the unmerged planning table")
    };
    let files: usize = plan_once().splits.iter().map(|s| s.data_files.len()).sum();
    let mut group = c.benchmark_group("plan");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(files as u64));
    group.bench_function(format!("unmerged_{files}_files"), |b| b.iter(plan_once));
    group.finish();
    if let Some(mb) = peak_rss_mb() {
        eprintln!("plan bench: after the unmerged plans: process peak RSS {mb:.0} MB");
    }
}

criterion_group!(benches, plan, plan_unmerged);
criterion_main!(benches);
