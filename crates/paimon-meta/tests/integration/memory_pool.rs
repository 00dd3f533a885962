//! Planning within a memory pool, on every shared table: the plan is the plan made without a
//! pool, it holds its reservation until dropped, and a pool too small for it refuses with
//! `ResourcesExhausted`, leaving the pool as it was. Concurrent plans on one pool stay within
//! its limit. (How close the pool's counts are to the real heap: `tests/plan_memory.rs`.)

use std::sync::Arc;

use paimon_memory::{GreedyMemoryPool, MemoryPool, UnboundedMemoryPool};
use paimon_meta::{Error, Plan, ScanBuilder, Table};

use crate::common;

fn open(t: &std::path::Path) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), t.to_str().unwrap()).unwrap()
}

/// The scans checked on a table: its latest snapshot and, with two snapshots or more, the
/// changes since the first.
fn scans(table: &Table) -> Vec<(String, ScanBuilder)> {
    let mut out = vec![("latest".to_string(), table.scan())];
    if let Ok(Some(latest)) = table.snapshot_manager().latest_id() {
        if latest >= 2 {
            out.push((
                format!("incremental 1..{latest}"),
                table.scan().with_incremental(1, latest),
            ));
        }
    }
    out
}

fn with_pool(scan: &ScanBuilder, pool: &Arc<dyn MemoryPool>) -> ScanBuilder {
    scan.clone().with_memory_pool(pool.clone())
}

#[test]
fn every_table_plans_within_a_pool_and_gives_it_back() {
    let mut checked = 0;
    let mut refused = 0;
    for t in common::all_tables() {
        let rel = common::rel(&t);
        let table = open(&t);
        for (name, scan) in scans(&table) {
            let plain = scan.plan();
            let counting = Arc::new(UnboundedMemoryPool::new());
            let pool: Arc<dyn MemoryPool> = counting.clone();
            let pooled = with_pool(&scan, &pool).plan();
            let (plain, plan) = match (plain, pooled) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "{rel} {name}");
                    assert_eq!(
                        pool.reserved(),
                        0,
                        "{rel} {name}: a failed plan holds nothing"
                    );
                    continue;
                }
                (a, b) => panic!("{rel} {name}: without a pool {a:?}, with one {b:?}"),
            };
            assert!(plain == plan, "{rel} {name}: the pool changed the plan");
            assert_eq!(pool.reserved(), plan.reserved_bytes(), "{rel} {name}");
            assert!(
                plan.splits.is_empty() || plan.reserved_bytes() > 0,
                "{rel} {name}: a plan with splits holds memory"
            );
            let clone = plan.clone();
            drop(plan);
            assert_eq!(
                pool.reserved(),
                clone.reserved_bytes(),
                "{rel} {name}: a clone shares it"
            );
            drop(clone);
            assert_eq!(
                pool.reserved(),
                0,
                "{rel} {name}: dropping the plan gives it back"
            );
            let peak = pool.peak();
            checked += 1;
            if peak < 2 {
                continue;
            }
            let limited: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(peak / 2));
            match with_pool(&scan, &limited).plan() {
                Err(Error::ResourcesExhausted {
                    requested,
                    limit,
                    what,
                }) => {
                    assert_eq!(limit, peak / 2, "{rel} {name}");
                    assert!(requested > 0, "{rel} {name}");
                    assert!(what.contains(t.to_str().unwrap()), "{rel} {name}: {what}");
                    refused += 1;
                }
                other => panic!("{rel} {name}: limit {} of peak {peak}: {other:?}", peak / 2),
            }
            assert_eq!(
                limited.reserved(),
                0,
                "{rel} {name}: a refused plan holds nothing"
            );
        }
    }
    assert!(checked > 100, "{checked} plans checked");
    assert!(refused > 100, "{refused} plans refused");
}

/// Four threads planning the shared table whose plan needs the most memory, each keeping its
/// last plan while it makes the next, on a pool with room for about three plannings: the pool never
/// holds more than its limit, every plan made is the plan made without a pool, every refusal
/// is `ResourcesExhausted`, and the pool is empty once all plans are dropped.
#[test]
fn concurrent_plans_share_one_pool_within_its_limit() {
    let (path, peak, expected) = common::all_tables()
        .into_iter()
        .map(|t| {
            let pool = Arc::new(UnboundedMemoryPool::new());
            let plan = open(&t)
                .scan()
                .with_memory_pool(pool.clone() as Arc<dyn MemoryPool>)
                .plan()
                .unwrap();
            (t, pool.peak(), plan)
        })
        .max_by_key(|(_, peak, _)| *peak)
        .unwrap();
    let limit = peak * 3;
    let pool = Arc::new(GreedyMemoryPool::new(limit));
    let results: Vec<(usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let pool = pool.clone() as Arc<dyn MemoryPool>;
                let table = open(&path);
                let expected = &expected;
                s.spawn(move || {
                    let (mut made, mut refused) = (0, 0);
                    let mut last: Option<Plan> = None;
                    for _ in 0..20 {
                        match table.scan().with_memory_pool(pool.clone()).plan() {
                            Ok(p) => {
                                assert!(&p == expected, "a plan under contention differs");
                                made += 1;
                                last = Some(p);
                            }
                            Err(Error::ResourcesExhausted { limit: l, .. }) => {
                                assert_eq!(l, limit);
                                refused += 1;
                                last = None;
                            }
                            Err(e) => panic!("{e}"),
                        }
                        assert!(pool.reserved() <= limit);
                    }
                    drop(last);
                    (made, refused)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let made: usize = results.iter().map(|r| r.0).sum();
    eprintln!(
        "concurrent plans of {}: {results:?} (made, refused)",
        path.display()
    );
    assert!(made > 0, "some plans fit");
    assert!(
        pool.peak() <= limit,
        "peak {} over limit {limit}",
        pool.peak()
    );
    assert_eq!(pool.reserved(), 0);
}
