//! The memory budget of a read (the free bytes of [`ReadOptions::memory_pool`]): how batches
//! are sized and how many decoded bytes may wait between the workers of
//! [`SplitReader::read_splits`] and their consumer (reserved from the pool while they wait).
//!
//! ```text
//!  budget B, n threads, T = B / (8 x (n + 1)) bytes per batch
//!
//!  workers (n)                           buffered for the consumer     consumer
//!  task: one file, or one merge          (plan order)
//!  section of k runs                     ┌──────────────────────┐
//!  holds ~1 batch of T (a file), or  ──> │ at most B / 2 bytes  │ ──> next()
//!  k run batches of T / k, the merged    └──────────────────────┘
//!  output (T) and its pinned inputs
//!  (<= T + k x T / k)
//! ```
//!
//! With `n` tasks of at most about `3 T` each, the working set stays under `3/8 B`, the buffer
//! under `B / 2`. Rows per batch come from bytes per row: measured on the batches of the read
//! so far (per set of columns), or, before any, estimated from the file (see
//! [`estimate_row_bytes`]).
//!
//! [`ReadOptions::memory_pool`]: super::ReadOptions::memory_pool
//! [`SplitReader::read_splits`]: super::SplitReader::read_splits

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};

use arrow_array::RecordBatch;
use paimon_memory::{MemoryPool, MemoryReservation};
use paimon_spec::types::DataField;

use crate::arrow_schema::to_arrow_type;
use crate::error::{Error, Result};

/// Parts of the budget one batch may take, per thread plus one: a batch is `1 / (8 (n + 1))`
/// of the budget, so `n` tasks holding about three batches each and the buffer's half fit.
const BATCHES_PER_BUDGET: usize = 8;

/// Compression assumed for variable-width data before a file's first batch is measured:
/// columnar files commonly shrink strings and nested values about this much.
const ASSUMED_COMPRESSION: usize = 4;

/// How the files of one reader are cut under a memory budget: batches of `1 / parts` of a
/// batch's bytes (`parts` batches, one per sorted run of a merge, are held at once).
#[derive(Debug, Clone)]
pub(crate) struct BatchBudget {
    pub sizer: Arc<BatchSizer>,
    pub parts: usize,
}

/// Sizes the batches of one read under a memory budget; shared by its tasks.
#[derive(Debug)]
pub(crate) struct BatchSizer {
    /// Bytes one decoded batch should take.
    target: usize,
    /// Largest bytes per row seen so far, per set of columns (the field ids of a file read).
    seen: Mutex<HashMap<Vec<i32>, usize>>,
}

impl BatchSizer {
    /// A sizer for a read within `budget` bytes on `threads` threads.
    pub(crate) fn new(budget: usize, threads: usize) -> Self {
        let parts = BATCHES_PER_BUDGET.saturating_mul(threads.max(1).saturating_add(1));
        BatchSizer {
            target: (budget / parts).max(1),
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// Bytes one decoded batch should take.
    pub(crate) fn target(&self) -> usize {
        self.target
    }

    /// Rows per batch for rows of `columns` when one of `parts` batches held at once shares a
    /// batch's bytes: from the bytes per row measured for `columns`, else `estimate`; at least
    /// 1, at most `max_rows`.
    pub(crate) fn rows(
        &self,
        columns: &[i32],
        estimate: usize,
        parts: usize,
        max_rows: usize,
    ) -> usize {
        let row_bytes = self
            .seen
            .lock()
            .ok()
            .and_then(|m| m.get(columns).copied())
            .unwrap_or(estimate)
            .max(1);
        (self.target / parts.max(1) / row_bytes).clamp(1, max_rows.max(1))
    }

    /// Records the bytes per row of a decoded batch of `columns`.
    pub(crate) fn observe(&self, columns: &[i32], batch: &RecordBatch) {
        let rows = batch.num_rows();
        if rows == 0 {
            return;
        }
        let per_row = batch.get_array_memory_size().div_ceil(rows);
        if let Ok(mut m) = self.seen.lock() {
            let e = m.entry(columns.to_vec()).or_insert(0);
            *e = (*e).max(per_row);
        }
    }
}

/// Bytes a decoded row of `fields` of a file takes, guessed before decoding it from the file's
/// size and row count (`DataFileMeta`): fixed-width columns their width, every other column an
/// offset plus the file's bytes per row times [`ASSUMED_COMPRESSION`]. Only the first batches
/// of a read use it.
pub(crate) fn estimate_row_bytes(fields: &[DataField], file_size: i64, row_count: i64) -> usize {
    let file_row = usize::try_from(file_size / row_count.max(1)).unwrap_or(0);
    let variable = 8 + file_row.saturating_mul(ASSUMED_COMPRESSION);
    fields
        .iter()
        .map(|f| {
            to_arrow_type(&f.data_type)
                .primitive_width()
                .unwrap_or(variable)
        })
        .sum::<usize>()
        .max(1)
}

/// Back-pressure by bytes between the workers of a parallel read and its consumer: a worker
/// decodes its task's next batch only while the batches buffered for the consumer leave room
/// for it, except that the task the consumer is draining may always have one batch buffered
/// (so one batch larger than the whole budget still flows).
///
/// With a pool, the buffered batches are reserved from it, and a batch also waits for room in
/// the pool, which other consumers (planning, other reads) may share.
#[derive(Debug)]
pub(crate) struct ByteGate {
    limit: usize,
    /// A first guess of a batch's bytes, before a task has produced one.
    first_batch: usize,
    state: Mutex<GateState>,
    changed: Condvar,
    /// Where the buffered batches are reserved, and what the read is (for its error).
    pool: Option<(MemoryReservation, String)>,
}

#[derive(Debug, Default)]
struct GateState {
    /// Bytes of the batches sent and not yet taken by the consumer.
    buffered: usize,
    /// Sequence number of the task the consumer drains.
    front: u64,
    /// Batches buffered per dispatched task, from `front` on.
    counts: VecDeque<usize>,
    /// The consumer is gone: workers stop.
    closed: bool,
}

impl ByteGate {
    /// A gate keeping at most `limit` bytes buffered; `first_batch` is the expected size of a
    /// task's first batch.
    pub(crate) fn new(limit: usize, first_batch: usize) -> Self {
        ByteGate {
            limit,
            first_batch,
            state: Mutex::new(GateState::default()),
            changed: Condvar::new(),
            pool: None,
        }
    }

    /// Reserves the buffered batches from `pool`; `what` names the read in its error.
    pub(crate) fn reserve_from(&mut self, pool: Arc<dyn MemoryPool>, what: String) {
        self.pool = Some((MemoryReservation::new(pool), what));
    }

    /// Whether the pool has room for `bytes` more.
    fn pool_room(&self, bytes: usize) -> bool {
        self.pool.as_ref().is_none_or(|(r, _)| {
            r.pool()
                .limit()
                .is_none_or(|l| r.pool().reserved().saturating_add(bytes) <= l)
        })
    }

    /// The expected bytes of a task's first batch.
    pub(crate) fn first_batch(&self) -> usize {
        self.first_batch
    }

    /// Registers the next task; returns its sequence number.
    pub(crate) fn dispatch(&self) -> u64 {
        let mut s = self.lock();
        s.counts.push_back(0);
        s.front + (s.counts.len() as u64 - 1)
    }

    /// Blocks until task `seq` may decode a batch of about `expected` bytes; `false` when the
    /// consumer is gone.
    pub(crate) fn admit(&self, seq: u64, expected: usize) -> bool {
        let mut s = self.lock();
        loop {
            if s.closed {
                return false;
            }
            let fits =
                s.buffered.saturating_add(expected) <= self.limit && self.pool_room(expected);
            let draining = seq == s.front && s.counts.front() == Some(&0);
            if fits || draining {
                return true;
            }
            s = match self.changed.wait(s) {
                Ok(g) => g,
                Err(_) => return false,
            };
        }
    }

    /// Task `seq` sent a batch of `bytes`; returns the bytes of it reserved from the pool:
    /// all, or none for a batch let through without room (see [`ByteGate::admit`]).
    ///
    /// # Errors
    /// [`Error::ResourcesExhausted`] when the pool refuses a batch that would fit it empty
    /// while the read holds nothing of it: other consumers hold the pool.
    pub(crate) fn sent(&self, seq: u64, bytes: usize) -> Result<usize> {
        let reserved = match &self.pool {
            None => 0,
            Some((r, what)) => match r.try_grow(bytes) {
                Ok(()) => bytes,
                Err(_) => {
                    let limit = r.pool().limit().unwrap_or(usize::MAX);
                    if r.size() == 0 && bytes <= limit {
                        return Err(Error::ResourcesExhausted {
                            requested: bytes,
                            limit,
                            what: what.clone(),
                        });
                    }
                    0
                }
            },
        };
        let mut s = self.lock();
        s.buffered = s.buffered.saturating_add(bytes);
        if let Some(c) = Self::count(&mut s, seq) {
            *c += 1;
        }
        Ok(reserved)
    }

    /// The consumer took a batch of `bytes`, `reserved` of them from the pool, of the front
    /// task.
    pub(crate) fn taken(&self, bytes: usize, reserved: usize) {
        if let Some((r, _)) = &self.pool {
            r.shrink(reserved);
        }
        let mut s = self.lock();
        s.buffered = s.buffered.saturating_sub(bytes);
        if let Some(c) = s.counts.front_mut() {
            *c = c.saturating_sub(1);
        }
        drop(s);
        self.changed.notify_all();
    }

    /// The front task is done; the consumer drains the next one.
    pub(crate) fn advance(&self) {
        let mut s = self.lock();
        s.counts.pop_front();
        s.front += 1;
        drop(s);
        self.changed.notify_all();
    }

    /// The consumer is gone: waiting workers return.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    fn count(s: &mut GateState, seq: u64) -> Option<&mut usize> {
        let i = usize::try_from(seq.checked_sub(s.front)?).ok()?;
        s.counts.get_mut(i)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        // A poisoned lock only means a worker panicked mid-update of plain counters; the
        // counts are still usable for back-pressure.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use arrow_array::{Int64Array, StringArray};
    use paimon_spec::types::{DataType, TypeKind};

    #[test]
    fn estimates_fixed_width_exactly_and_scales_variable_width_by_the_file() {
        let fields = [
            DataField::new(0, "id", DataType::not_null(TypeKind::BigInt)),
            DataField::new(1, "n", DataType::nullable(TypeKind::Int)),
        ];
        assert_eq!(estimate_row_bytes(&fields, 1000, 10), 8 + 4);
        let with_string = [
            fields[0].clone(),
            DataField::new(2, "s", DataType::string()),
        ];
        // 100 file bytes per row, 4:1 assumed: 8 offset bytes + 400.
        assert_eq!(estimate_row_bytes(&with_string, 1000, 10), 8 + 408);
    }

    #[test]
    fn rows_follow_the_measured_width_once_a_batch_was_seen() {
        // 1 MiB on 1 thread: batches of 1 MiB / 16 = 65536 bytes.
        let s = BatchSizer::new(1 << 20, 1);
        assert_eq!(s.rows(&[0], 16, 1, usize::MAX), 4096);
        assert_eq!(s.rows(&[0], 16, 4, usize::MAX), 1024, "a quarter per run");
        assert_eq!(s.rows(&[0], 16, 1, 100), 100, "never above the batch size");
        assert_eq!(s.rows(&[0], 1 << 30, 1, 100), 1, "at least one row");
        let ids = Int64Array::from_iter_values(0..1000);
        let batch = RecordBatch::try_from_iter([("id", Arc::new(ids) as _)]).unwrap();
        let per_row = batch.get_array_memory_size().div_ceil(1000);
        assert!(per_row >= 8);
        s.observe(&[0], &batch);
        assert_eq!(s.rows(&[0], 16, 1, usize::MAX), 65536 / per_row);
        assert_eq!(
            s.rows(&[1], 16, 1, usize::MAX),
            4096,
            "other columns: estimate"
        );
        let wide = StringArray::from_iter_values((0..10).map(|_| "x".repeat(1000)));
        let wide = RecordBatch::try_from_iter([("s", Arc::new(wide) as _)]).unwrap();
        s.observe(&[0], &wide);
        assert!(s.rows(&[0], 16, 1, usize::MAX) <= 65);
    }

    #[test]
    fn the_gate_holds_later_tasks_but_lets_the_drained_task_through() {
        let g = Arc::new(ByteGate::new(100, 10));
        let (t0, t1) = (g.dispatch(), g.dispatch());
        assert_eq!((t0, t1), (0, 1));
        assert!(g.admit(t1, 60));
        g.sent(t1, 60).unwrap();
        // 60 + 60 > 100: task 1 waits; task 0 (drained, nothing buffered) goes on.
        assert!(g.admit(t0, 60));
        g.sent(t0, 500).unwrap();
        // Now task 0 has a batch buffered and the buffer is over: it waits too.
        let waiter = {
            let g = g.clone();
            std::thread::spawn(move || g.admit(t0, 60))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished());
        g.taken(500, 0);
        assert!(waiter.join().unwrap());
        // Task 0 done: task 1 is drained next, its 60 bytes still count.
        g.advance();
        assert!(g.admit(t1, 40));
        let blocked = {
            let g = g.clone();
            std::thread::spawn(move || g.admit(t1, 41))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!blocked.is_finished());
        g.close();
        assert!(!blocked.join().unwrap(), "closing releases waiting workers");
    }

    #[test]
    fn the_gate_reserves_buffered_batches_from_its_pool() {
        use paimon_memory::GreedyMemoryPool;
        let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(100));
        let mut g = ByteGate::new(1000, 10);
        g.reserve_from(pool.clone(), "reading t".into());
        let (t0, t1) = (g.dispatch(), g.dispatch());
        assert!(g.admit(t1, 60));
        assert_eq!(g.sent(t1, 60).unwrap(), 60);
        assert_eq!(pool.reserved(), 60);
        // The gate's own limit leaves room, the pool does not: task 1 waits.
        let g = Arc::new(g);
        let waiter = {
            let g = g.clone();
            std::thread::spawn(move || g.admit(t1, 60))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished());
        // The drained task passes; its batch finds no room and flows unreserved.
        assert!(g.admit(t0, 60));
        assert_eq!(g.sent(t0, 60).unwrap(), 0);
        g.taken(60, 0);
        g.advance();
        g.taken(60, 60);
        assert!(waiter.join().unwrap(), "room again");
        assert_eq!(pool.reserved(), 0);
        // Another consumer holding the pool while the read holds nothing: refused.
        let other = MemoryReservation::new(pool.clone());
        other.try_grow(95).unwrap();
        let e = g.sent(t1, 10).unwrap_err().to_string();
        assert!(e.contains("reading t") && e.contains("100 bytes"), "{e}");
        // A batch larger than the whole pool still flows when nothing else fits either.
        drop(other);
        assert_eq!(g.sent(t1, 500).unwrap(), 0);
        assert_eq!(pool.reserved(), 0);
    }
}
