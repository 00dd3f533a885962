//! # paimon-memory: the caller's memory pool
//!
//! A [`MemoryPool`] bounds the memory that planning (paimon-meta) and reading (paimon-data)
//! hold, the role of the pool an application passes to paimon-cpp's planner
//! (`ScanContextBuilder::WithMemoryPool`). Nothing is allocated through the pool: a consumer
//! estimates the bytes it is about to hold and asks a [`MemoryReservation`] for them; the pool
//! grants or refuses, and the reservation gives its bytes back when shrunk or dropped.
//!
//! ```
//! use std::sync::Arc;
//! use paimon_memory::{GreedyMemoryPool, MemoryPool, MemoryReservation};
//!
//! let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(1000));
//! let r = MemoryReservation::new(pool.clone());
//! r.try_grow(600).unwrap();
//! assert!(r.try_grow(600).is_err(), "over the limit");
//! assert_eq!(pool.reserved(), 600);
//! drop(r);
//! assert_eq!(pool.reserved(), 0);
//! assert_eq!(pool.peak(), 600);
//! ```
//!
//! Pools are shared between threads (`Arc<dyn MemoryPool>`); a pool must outlive what holds its
//! reservations, which the `Arc` inside each reservation guarantees. Both planes use it, so it
//! depends on no other paimon crate (`scripts/check-boundaries.sh`).

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod pool;
mod reservation;

pub use pool::{GreedyMemoryPool, MemoryPool, UnboundedMemoryPool};
pub use reservation::MemoryReservation;

/// Errors of a memory pool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The pool cannot grant a reservation this many more bytes.
    #[error(
        "memory pool exhausted: {requested} more bytes requested with {reserved} of {limit} \
         bytes reserved"
    )]
    ResourcesExhausted {
        /// Bytes asked for.
        requested: usize,
        /// Bytes the pool had reserved when it refused.
        reserved: usize,
        /// The pool's limit.
        limit: usize,
    },
}

/// Result with [`Error`] as default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
