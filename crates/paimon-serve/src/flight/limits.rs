//! Bounds on the queries a Flight service runs ([`QueryLimits`]): memory per query for
//! DataFusion's operators (sorts, joins, aggregations: a query over the limit fails with
//! `RESOURCE_EXHAUSTED`, or spills where the operator can), and how many queries run at once,
//! with a bounded queue of those waiting for a slot: a request beyond the queue is refused at
//! once with `RESOURCE_EXHAUSTED` rather than held. A query holds its slot until its result
//! stream ends or its client goes away.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use datafusion::execution::memory_pool::{GreedyMemoryPool, TrackConsumersPool};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use futures::{Stream, StreamExt};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;

/// How many consumers a memory error names (the largest first).
const CONSUMERS_NAMED: usize = 3;

/// The bounds of a Flight service's queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryLimits {
    /// The memory each query's DataFusion operators may hold, in bytes; `None`: unbounded.
    pub memory_per_query: Option<usize>,
    /// How many queries run at once.
    pub concurrent: usize,
    /// How many more wait for a slot; a query beyond them is refused.
    pub queued: usize,
}

impl Default for QueryLimits {
    /// No memory bound, 64 queries at once, 1024 waiting.
    fn default() -> Self {
        QueryLimits {
            memory_per_query: None,
            concurrent: 64,
            queued: 1024,
        }
    }
}

/// The slots of running queries and the count of those waiting, shared by a service's
/// clones.
#[derive(Debug)]
pub(crate) struct Admission {
    limits: QueryLimits,
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
}

/// One waiter counted while it waits, uncounted when it stops (served or gone).
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Admission {
    pub(crate) fn new(limits: QueryLimits) -> Self {
        let limits = QueryLimits {
            concurrent: limits.concurrent.max(1),
            ..limits
        };
        Admission {
            slots: Arc::new(Semaphore::new(limits.concurrent)),
            waiting: AtomicUsize::new(0),
            limits,
        }
    }

    pub(crate) fn limits(&self) -> QueryLimits {
        self.limits
    }

    /// A slot to run one query in, waiting for one when all are taken and fewer than
    /// `queued` others wait.
    ///
    /// # Errors
    /// `RESOURCE_EXHAUSTED` when the queue is full.
    pub(crate) async fn admit(&self) -> Result<OwnedSemaphorePermit, Status> {
        if let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned() {
            return Ok(slot);
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.limits.queued {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(Status::resource_exhausted(format!(
                "the server is busy: {} queries run and {} wait, the most it takes \
                 (--max-concurrent-queries, --query-queue); try again later",
                self.limits.concurrent, self.limits.queued
            )));
        }
        let _counted = Waiting(&self.waiting);
        Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .map_err(|_| Status::unavailable("the server is shutting down"))
    }

    /// The runtime of one query: a memory pool of its own under `memory_per_query`.
    pub(crate) fn runtime(&self) -> Option<Arc<RuntimeEnv>> {
        let limit = self.limits.memory_per_query?;
        let pool = TrackConsumersPool::new(
            GreedyMemoryPool::new(limit),
            std::num::NonZeroUsize::new(CONSUMERS_NAMED)?,
        );
        RuntimeEnvBuilder::new()
            .with_memory_pool(Arc::new(pool))
            .build_arc()
            .ok()
    }
}

/// `stream`, holding `slot` until it ends or is dropped.
pub(crate) fn holding<S: Stream + Send + 'static>(
    stream: S,
    slot: OwnedSemaphorePermit,
) -> impl Stream<Item = S::Item> + Send + 'static {
    stream.map(move |item| {
        let _held = &slot;
        item
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_queue_refuses_and_a_freed_slot_admits() {
        let admission = Arc::new(Admission::new(QueryLimits {
            memory_per_query: None,
            concurrent: 1,
            queued: 1,
        }));
        let first = admission.admit().await.unwrap();
        // The second waits in the queue; a third finds it full.
        let waiter = {
            let a = Arc::clone(&admission);
            tokio::spawn(async move { a.admit().await.map(drop) })
        };
        while admission.waiting.load(Ordering::Acquire) == 0 {
            tokio::task::yield_now().await;
        }
        let refused = admission.admit().await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(refused.message().contains("busy"), "{}", refused.message());
        drop(first);
        waiter.await.unwrap().unwrap();
        assert_eq!(admission.waiting.load(Ordering::Acquire), 0);
        // A waiter that goes away leaves the count.
        let held = admission.admit().await.unwrap();
        let gone = {
            let a = Arc::clone(&admission);
            tokio::spawn(async move { a.admit().await.map(drop) })
        };
        while admission.waiting.load(Ordering::Acquire) == 0 {
            tokio::task::yield_now().await;
        }
        gone.abort();
        let _ = gone.await;
        assert_eq!(admission.waiting.load(Ordering::Acquire), 0);
        drop(held);
    }
}
