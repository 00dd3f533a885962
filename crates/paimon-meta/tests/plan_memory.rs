//! Planning a many-file table within a memory pool: what the pool is told planning holds is
//! what planning really allocates, measured by a counting global allocator.
//!
//! A binary of its own because the counting allocator serves the whole process; one test
//! function, so no other test allocates while it measures.
//!
//! Table: `PAIMON_PLANNING_TABLE` when set (e.g. the 100,000-file table `scripts/bench.sh`
//! writes into `.cache/bench/planning-100000`), else a 5,000-file table (50 commits x 100
//! partitions, Avro manifests) written once by the Java oracle
//! (`scripts/java-oracle.sh write-planning-table`) into the cargo target's tmp directory and
//! reused from there.
//!
//! Checks, on 1, 2 and 4 planning threads:
//! * with an unbounded (counting) pool, the pool's peak is within 25% of the heap's peak
//!   growth during `plan()`, and what the returned plan keeps reserved within 25% of the heap
//!   it keeps; the plan equals the plan made without a pool;
//! * with a pool limited to three quarters of that peak, planning fails with
//!   `ResourcesExhausted` every time, leaving the pool empty.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use paimon_memory::{GreedyMemoryPool, MemoryPool, UnboundedMemoryPool};
use paimon_meta::{Error, Table};
use peak_alloc::PeakAlloc;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

const FILES: usize = 5000;
const COMMITS: usize = 50;

/// The table planned: `PAIMON_PLANNING_TABLE`, or the generated one (and its file count).
fn table_path() -> (PathBuf, Option<usize>) {
    if let Some(p) = std::env::var_os("PAIMON_PLANNING_TABLE") {
        return (PathBuf::from(p), None);
    }
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("planning-{FILES}-{COMMITS}-avro"));
    if !dir.join(".done").is_file() {
        let _ = std::fs::remove_dir_all(&dir);
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/java-oracle.sh");
        let status = Command::new(&script)
            .arg("write-planning-table")
            .arg(&dir)
            .args([
                "--files",
                &FILES.to_string(),
                "--commits",
                &COMMITS.to_string(),
            ])
            .args(["--format", "avro"])
            .status()
            .unwrap_or_else(|e| {
                panic!(
                    "run {}: {e} (Java is needed to write the table)",
                    script.display()
                )
            });
        assert!(
            status.success(),
            "{} write-planning-table failed",
            script.display()
        );
        std::fs::write(dir.join(".done"), b"").unwrap();
    }
    (dir, Some(FILES))
}

fn open(path: &str) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), path).unwrap()
}

fn within(what: &str, tracked: usize, heap: usize) {
    let (t, h) = (tracked as f64, heap as f64);
    eprintln!(
        "{what}: pool {tracked} B, heap {heap} B, ratio {:.3}",
        t / h
    );
    assert!(
        (t - h).abs() <= 0.25 * h,
        "{what}: the pool counted {tracked} bytes, the heap grew {heap} bytes (more than 25% apart)"
    );
}

#[test]
fn the_pool_sees_what_planning_allocates() {
    let (path, files) = table_path();
    let path = path.to_string_lossy().into_owned();
    let table = open(&path);
    let expected = table.scan().plan().unwrap();
    let planned: usize = expected.splits.iter().map(|s| s.data_files.len()).sum();
    if let Some(n) = files {
        assert_eq!(planned, n, "every file of the table is planned");
    }
    let mut peaks = Vec::new();
    for threads in [1, 2, 4] {
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        workers.install(|| {
            // Warm up: the first plan on these threads sets up their allocator caches.
            drop(table.scan().plan().unwrap());
            let pool = Arc::new(UnboundedMemoryPool::new());
            let base = HEAP.current_usage();
            HEAP.reset_peak_usage();
            let plan = table
                .scan()
                .with_memory_pool(pool.clone() as Arc<dyn MemoryPool>)
                .plan()
                .unwrap();
            let heap_peak = HEAP.peak_usage().saturating_sub(base);
            let heap_kept = HEAP.current_usage().saturating_sub(base);
            assert!(
                plan == expected,
                "{threads} threads: the plan differs from the plan without a pool"
            );
            within(&format!("{threads} threads, peak"), pool.peak(), heap_peak);
            within(
                &format!("{threads} threads, plan kept"),
                plan.reserved_bytes(),
                heap_kept,
            );
            assert_eq!(pool.reserved(), plan.reserved_bytes());
            drop(plan);
            assert_eq!(
                pool.reserved(),
                0,
                "dropping the plan gives its memory back"
            );
            peaks.push(pool.peak());
        });
    }
    let limit = peaks.iter().copied().min().unwrap() / 4 * 3;
    for threads in [1, 2, 4] {
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        workers.install(|| {
            let pool = Arc::new(GreedyMemoryPool::new(limit));
            for _ in 0..3 {
                let got = table
                    .scan()
                    .with_memory_pool(pool.clone() as Arc<dyn MemoryPool>)
                    .plan();
                match got {
                    Err(Error::ResourcesExhausted { limit: l, what, .. }) => {
                        assert_eq!(l, limit);
                        assert!(what.contains(&path), "{what}");
                    }
                    other => panic!("{threads} threads, limit {limit}: {other:?}"),
                }
                assert_eq!(pool.reserved(), 0, "a refused plan leaves the pool empty");
                assert!(pool.peak() <= limit);
            }
        });
    }
}
