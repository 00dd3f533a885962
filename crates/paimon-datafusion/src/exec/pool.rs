//! The session's memory pool as the data plane's [`MemoryPool`]: what a scan partition's
//! reader holds is reserved from DataFusion's pool, so one limit bounds the whole query.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::TaskContext;
use paimon_memory::{Error as MemoryError, MemoryPool};

/// One scan partition's reservation in the session's pool.
#[derive(Debug)]
pub(crate) struct SessionPool {
    reservation: Mutex<MemoryReservation>,
    peak: AtomicUsize,
    limit: Option<usize>,
}

impl SessionPool {
    pub(crate) fn new(context: &Arc<TaskContext>, partition: usize) -> Self {
        let pool = context.memory_pool();
        let limit = match pool.memory_limit() {
            datafusion::execution::memory_pool::MemoryLimit::Finite(n) => Some(n),
            _ => None,
        };
        SessionPool {
            reservation: Mutex::new(
                MemoryConsumer::new(format!("PaimonScanExec[{partition}]")).register(pool),
            ),
            peak: AtomicUsize::new(0),
            limit,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryReservation> {
        self.reservation
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl MemoryPool for SessionPool {
    fn try_grow(&self, bytes: usize) -> paimon_memory::Result<()> {
        let r = self.lock();
        // DataFusion's refusal says which consumers hold the pool; Paimon's error carries the
        // numbers, which is what the reader reports.
        r.try_grow(bytes)
            .map_err(|_| MemoryError::ResourcesExhausted {
                requested: bytes,
                reserved: r.size(),
                limit: self.limit.unwrap_or(usize::MAX),
            })?;
        self.peak.fetch_max(r.size(), Ordering::Relaxed);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        let r = self.lock();
        r.shrink(bytes.min(r.size()));
    }

    fn reserved(&self) -> usize {
        self.lock().size()
    }

    fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    fn reset_peak(&self) {
        let now = self.reserved();
        self.peak.store(now, Ordering::Relaxed);
    }

    fn limit(&self) -> Option<usize> {
        self.limit
    }
}
