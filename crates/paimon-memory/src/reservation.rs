//! [`MemoryReservation`]: bytes held from a pool by one consumer, given back on drop.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::{MemoryPool, Result};

/// Bytes one consumer holds from a [`MemoryPool`]; all of them go back to the pool when the
/// reservation is dropped, so an error path that drops its reservations leaves the pool as it
/// found it. Methods take `&self` (the size is atomic), so threads working for one consumer
/// share its reservation.
#[derive(Debug)]
pub struct MemoryReservation {
    pool: Arc<dyn MemoryPool>,
    size: AtomicUsize,
}

impl MemoryReservation {
    /// An empty reservation on `pool`.
    pub fn new(pool: Arc<dyn MemoryPool>) -> Self {
        MemoryReservation {
            pool,
            size: AtomicUsize::new(0),
        }
    }

    /// The pool reserved from.
    pub fn pool(&self) -> &Arc<dyn MemoryPool> {
        &self.pool
    }

    /// Bytes held.
    pub fn size(&self) -> usize {
        self.size.load(Ordering::Acquire)
    }

    /// Holds `bytes` more, or leaves everything as it was when the pool refuses.
    ///
    /// # Errors
    /// [`crate::Error::ResourcesExhausted`] from the pool.
    pub fn try_grow(&self, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.pool.try_grow(bytes)?;
        self.size.fetch_add(bytes, Ordering::AcqRel);
        Ok(())
    }

    /// Gives back `bytes` (at most what is held).
    pub fn shrink(&self, bytes: usize) {
        let mut taken = 0;
        let _ = self
            .size
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                taken = bytes.min(n);
                Some(n - taken)
            });
        if taken > 0 {
            self.pool.shrink(taken);
        }
    }

    /// Grows or shrinks to hold exactly `bytes`.
    ///
    /// # Errors
    /// [`crate::Error::ResourcesExhausted`] when growing is refused (the size is then
    /// unchanged).
    pub fn try_resize(&self, bytes: usize) -> Result<()> {
        let now = self.size();
        if bytes > now {
            self.try_grow(bytes - now)
        } else {
            self.shrink(now - bytes);
            Ok(())
        }
    }

    /// Gives everything back; returns the bytes freed.
    pub fn free(&self) -> usize {
        let n = self.size.swap(0, Ordering::AcqRel);
        if n > 0 {
            self.pool.shrink(n);
        }
        n
    }
}

impl Drop for MemoryReservation {
    fn drop(&mut self) {
        self.free();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, GreedyMemoryPool};

    #[test]
    fn grows_shrinks_resizes_and_releases_on_drop() {
        let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(100));
        let a = MemoryReservation::new(pool.clone());
        let b = MemoryReservation::new(pool.clone());
        a.try_grow(70).unwrap();
        let e = b.try_grow(40).unwrap_err();
        assert_eq!(
            e,
            Error::ResourcesExhausted {
                requested: 40,
                reserved: 70,
                limit: 100
            }
        );
        assert_eq!(
            (b.size(), pool.reserved()),
            (0, 70),
            "a refusal changes nothing"
        );
        a.shrink(200);
        assert_eq!((a.size(), pool.reserved()), (0, 0), "never below zero");
        a.try_resize(50).unwrap();
        b.try_resize(50).unwrap();
        assert!(a.try_resize(51).is_err());
        assert_eq!(a.size(), 50);
        a.try_resize(10).unwrap();
        assert_eq!(pool.reserved(), 60);
        assert_eq!(b.free(), 50);
        drop(a);
        assert_eq!(pool.reserved(), 0);
        assert_eq!(pool.peak(), 100);
    }
}
