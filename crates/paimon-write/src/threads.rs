//! Running work on the calling thread and a writer's encoding threads together (the pool
//! holds the threads besides the caller's, so that `n` threads are the caller and `n - 1` pool
//! threads, and a caller never sits idle while the pool works).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use parquet::errors::ParquetError;

type Result<T> = std::result::Result<T, ParquetError>;

/// Runs `f` on every item, the calling thread and each pool thread taking the next item not
/// taken yet; the results in item order (`None` if one was lost, which only a panic in `f`
/// could do). Without a pool the caller runs them all in order.
pub(crate) fn run_each<T: Send, R: Send>(
    pool: Option<&rayon::ThreadPool>,
    items: Vec<T>,
    f: impl Fn(T) -> R + Sync,
) -> Option<Vec<R>> {
    let Some(pool) = pool.filter(|_| items.len() > 1) else {
        return Some(items.into_iter().map(f).collect());
    };
    let n = items.len();
    let items: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let results: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let drain = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = items.get(i) else { return };
        let item = slot.lock().ok().and_then(|mut s| s.take());
        if let (Some(item), Some(out)) = (item, results.get(i)) {
            let r = f(item);
            if let Ok(mut out) = out.lock() {
                *out = Some(r);
            }
        }
    };
    let drain = &drain;
    pool.in_place_scope(|s| {
        for _ in 0..pool.current_num_threads().min(n - 1) {
            s.spawn(move |_| drain());
        }
        drain();
    });
    results
        .into_iter()
        .map(|r| r.into_inner().ok().flatten())
        .collect()
}

/// Runs `f` over the items of each group: the first group on the calling thread, the others
/// on the pool's threads; the first error, if any.
pub(crate) fn run_groups<T: Send>(
    pool: &rayon::ThreadPool,
    work: Vec<Vec<T>>,
    f: impl Fn(T) -> Result<()> + Sync,
) -> Result<()> {
    let error: Mutex<Option<ParquetError>> = Mutex::new(None);
    let run = |items: Vec<T>| {
        for item in items {
            if let Err(e) = f(item) {
                if let Ok(mut first) = error.lock() {
                    first.get_or_insert(e);
                }
                return;
            }
        }
    };
    let run = &run;
    let mut groups = work.into_iter();
    let own = groups.next().unwrap_or_default();
    pool.in_place_scope(|s| {
        for g in groups {
            s.spawn(move |_| run(g));
        }
        run(own);
    });
    match error.into_inner() {
        Ok(None) => Ok(()),
        Ok(Some(e)) => Err(e),
        Err(_) => Err(ParquetError::General(
            "a column encoding thread panicked".into(),
        )),
    }
}
