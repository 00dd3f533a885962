//! The pools: [`GreedyMemoryPool`] (first come, first served up to a limit) and
//! [`UnboundedMemoryPool`] (never refuses), both counting what is reserved now and at most.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{Error, Result};

/// A thread-safe account of reserved bytes. Consumers go through
/// [`MemoryReservation`](crate::MemoryReservation), which pairs every grant with its release.
pub trait MemoryPool: Send + Sync + fmt::Debug {
    /// Grants `bytes` more, or refuses with [`Error::ResourcesExhausted`] leaving the pool as
    /// it was.
    ///
    /// # Errors
    /// [`Error::ResourcesExhausted`] when the bytes do not fit.
    fn try_grow(&self, bytes: usize) -> Result<()>;

    /// Gives back `bytes` granted earlier.
    fn shrink(&self, bytes: usize);

    /// Bytes reserved now.
    fn reserved(&self) -> usize;

    /// The most bytes reserved at once since the pool was made (or [`MemoryPool::reset_peak`]).
    fn peak(&self) -> usize;

    /// Starts counting the peak again from what is reserved now.
    fn reset_peak(&self);

    /// The limit, `None` for a pool that never refuses.
    fn limit(&self) -> Option<usize>;
}

/// Reserved and peak bytes, updated without locks.
#[derive(Debug, Default)]
struct Counters {
    reserved: AtomicUsize,
    peak: AtomicUsize,
}

impl Counters {
    /// Adds `bytes` when the sum stays within `limit`.
    fn try_add(&self, bytes: usize, limit: usize) -> Result<()> {
        let mut now = self.reserved.load(Ordering::Relaxed);
        loop {
            let next = match now.checked_add(bytes) {
                Some(n) if n <= limit => n,
                _ => {
                    return Err(Error::ResourcesExhausted {
                        requested: bytes,
                        reserved: now,
                        limit,
                    })
                }
            };
            match self.reserved.compare_exchange_weak(
                now,
                next,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::Relaxed);
                    return Ok(());
                }
                Err(seen) => now = seen,
            }
        }
    }

    fn sub(&self, bytes: usize) {
        // Saturating: a consumer giving back more than it holds must not wrap the count.
        let _ = self
            .reserved
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |n| {
                Some(n.saturating_sub(bytes))
            });
    }

    fn reserved(&self) -> usize {
        self.reserved.load(Ordering::Acquire)
    }

    fn peak(&self) -> usize {
        self.peak.load(Ordering::Acquire)
    }

    fn reset_peak(&self) {
        self.peak.store(self.reserved(), Ordering::Release);
    }
}

/// A pool granting requests in arrival order while they fit under its limit (DataFusion's
/// greedy pool has the same policy): no fairness between consumers, so one large consumer may
/// starve the others.
#[derive(Debug)]
pub struct GreedyMemoryPool {
    limit: usize,
    counters: Counters,
}

impl GreedyMemoryPool {
    /// A pool of `limit` bytes.
    pub fn new(limit: usize) -> Self {
        GreedyMemoryPool {
            limit,
            counters: Counters::default(),
        }
    }
}

impl MemoryPool for GreedyMemoryPool {
    fn try_grow(&self, bytes: usize) -> Result<()> {
        self.counters.try_add(bytes, self.limit)
    }

    fn shrink(&self, bytes: usize) {
        self.counters.sub(bytes);
    }

    fn reserved(&self) -> usize {
        self.counters.reserved()
    }

    fn peak(&self) -> usize {
        self.counters.peak()
    }

    fn reset_peak(&self) {
        self.counters.reset_peak();
    }

    fn limit(&self) -> Option<usize> {
        Some(self.limit)
    }
}

/// A pool that grants everything and only counts: the default of planning and reading, and
/// the way to measure what they hold (its [`MemoryPool::peak`]).
#[derive(Debug, Default)]
pub struct UnboundedMemoryPool {
    counters: Counters,
}

impl UnboundedMemoryPool {
    /// A pool without limit.
    pub fn new() -> Self {
        Self::default()
    }
}

impl MemoryPool for UnboundedMemoryPool {
    fn try_grow(&self, bytes: usize) -> Result<()> {
        self.counters.try_add(bytes, usize::MAX)
    }

    fn shrink(&self, bytes: usize) {
        self.counters.sub(bytes);
    }

    fn reserved(&self) -> usize {
        self.counters.reserved()
    }

    fn peak(&self) -> usize {
        self.counters.peak()
    }

    fn reset_peak(&self) {
        self.counters.reset_peak();
    }

    fn limit(&self) -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn greedy_refuses_past_its_limit_and_keeps_its_count() {
        let p = GreedyMemoryPool::new(100);
        p.try_grow(60).unwrap();
        p.try_grow(40).unwrap();
        assert_eq!(
            p.try_grow(1),
            Err(Error::ResourcesExhausted {
                requested: 1,
                reserved: 100,
                limit: 100
            })
        );
        assert_eq!(p.reserved(), 100);
        p.shrink(70);
        assert_eq!((p.reserved(), p.peak()), (30, 100));
        p.reset_peak();
        assert_eq!(p.peak(), 30);
        p.shrink(1000);
        assert_eq!(p.reserved(), 0, "saturates");
        assert!(p.try_grow(usize::MAX).is_err(), "no overflow");
    }

    #[test]
    fn unbounded_grants_and_counts() {
        let p = UnboundedMemoryPool::new();
        p.try_grow(1 << 40).unwrap();
        p.shrink(1 << 39);
        assert_eq!(
            (p.reserved(), p.peak(), p.limit()),
            (1 << 39, 1 << 40, None)
        );
    }

    /// Threads racing for a small pool: the count never passes the limit, and every grant
    /// given back leaves it at zero.
    #[test]
    fn racing_threads_stay_within_the_limit() {
        let p = Arc::new(GreedyMemoryPool::new(1000));
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let p = p.clone();
                std::thread::spawn(move || {
                    let mut granted = 0;
                    for i in 0..10_000 {
                        let n = 1 + (i * 7 + t) % 300;
                        if p.try_grow(n).is_ok() {
                            assert!(p.reserved() <= 1000);
                            p.shrink(n);
                            granted += 1;
                        }
                    }
                    granted
                })
            })
            .collect();
        let granted: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert!(granted > 0);
        assert_eq!(p.reserved(), 0);
        assert!(p.peak() <= 1000);
    }
}
