//! Reading many splits as one ordered stream, decoding several files at once.
//!
//! A split's work is a list of independent tasks (one per data file on the raw path, one per
//! key-disjoint section on the merge path). [`SplitReader::read_splits`] turns the splits of a
//! plan into one queue of tasks; with [`ReadOptions::parallelism`] `n > 1`, `n` worker threads
//! run tasks (decode, map, filter, project) while the caller consumes their batches **in plan
//! order**:
//!
//! ```text
//!  splits ──> tasks t0 t1 t2 t3 ...      dispatched at most `window` ahead of the consumer
//!                  │  │  │  │
//!   workers (n)    w0 w1 w0 w1 ...       FIFO: a task is taken before any later one
//!                  │  │  │  │
//!   per-task channels (bounded) ──> consumer drains t0, then t1, ...
//! ```
//!
//! Workers take tasks in dispatch order, so the task the consumer waits on is always done or
//! running; a worker blocked on a full channel of a later task never blocks it. Memory stays
//! bounded by `window x channel capacity` batches, and with a
//! [`ReadOptions::memory_pool`](super::ReadOptions::memory_pool) by bytes too: a worker
//! decodes a batch only while the batches buffered for the consumer leave room for it (see
//! `budget.rs`). Dropping the stream stops the workers after their current batch.

use std::collections::VecDeque;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use paimon_split::{DataSplit, Split};

use super::budget::{BatchSizer, ByteGate};
use super::{SplitBatches, SplitReader, SplitReaderBuilder};
use crate::error::{Error, Result};

/// Batches buffered per running task. Output is in task order, so a worker on a later task
/// blocks once its buffer is full until the consumer reaches that task; 32 batches of the
/// default 8,192 rows hold a typical 256K-row data file, so workers on consecutive files run
/// in parallel instead of taking turns. Memory stays bounded by `window x capacity` batches.
const CHANNEL_CAPACITY: usize = 32;

/// Tasks dispatched ahead of the consumer, per thread: enough that small files (one batch each)
/// keep every worker fed.
const WINDOW_PER_THREAD: usize = 4;

impl SplitReaderBuilder {
    /// Worker threads of [`SplitReader::read_splits`] ([`super::ReadOptions::parallelism`]).
    pub fn with_parallelism(mut self, threads: usize) -> Self {
        self.options.parallelism = threads.max(1);
        self
    }
}

impl SplitReader {
    /// Reads `splits` of the table at `table_path` one after another as one stream of batches,
    /// in split order, with the reader's projection, predicate and limit (the limit counts
    /// rows over all splits). With [`super::ReadOptions::parallelism`] above 1, files (or
    /// merge sections) are decoded on that many threads; the output order is the same.
    ///
    /// # Errors
    /// Per-split setup errors and per-file errors come out of the iterator, in order.
    pub fn read_splits(&self, table_path: &str, splits: &[DataSplit]) -> Result<PlanBatches> {
        self.read_queue(
            table_path,
            splits.iter().cloned().map(Split::Data).collect(),
        )
    }

    /// [`SplitReader::read_splits`] over splits as workers receive them, each read with
    /// [`SplitReader::read_any`] (fallback-branch splits with their branch's schemas).
    ///
    /// # Errors
    /// As [`SplitReader::read_splits`].
    pub fn read_any_splits(&self, table_path: &str, splits: &[Split]) -> Result<PlanBatches> {
        self.read_queue(table_path, splits.iter().cloned().collect())
    }

    fn read_queue(&self, table_path: &str, splits: VecDeque<Split>) -> Result<PlanBatches> {
        let schema = self.output_schema(table_path)?;
        let threads = self.options.parallelism.max(1);
        // One sizer for the whole read, so later splits are cut by the widths earlier ones had.
        let mut reader = self.clone();
        let budget = self.options.budget_bytes();
        reader.sizer = budget.map(|b| Arc::new(BatchSizer::new(b, threads)));
        let gate = match (&reader.sizer, budget, &self.options.memory_pool) {
            (Some(sizer), Some(budget), Some(pool)) if threads > 1 => {
                let mut gate = ByteGate::new(budget / 2, sizer.target());
                gate.reserve_from(pool.clone(), format!("reading {table_path}"));
                Some(Arc::new(gate))
            }
            _ => None,
        };
        let source = TaskSource {
            reader,
            table_path: table_path.to_string(),
            splits,
            pending: VecDeque::new(),
        };
        let mode = if threads == 1 {
            Mode::Sequential {
                source,
                current: None,
            }
        } else {
            let (jobs_tx, jobs_rx) = std::sync::mpsc::channel::<Job>();
            let jobs_rx = Arc::new(Mutex::new(jobs_rx));
            for i in 0..threads {
                let rx = jobs_rx.clone();
                std::thread::Builder::new()
                    .name(format!("paimon-read-{i}"))
                    .spawn(move || worker(&rx))
                    .map_err(|e| Error::Internal(format!("cannot start a read thread: {e}")))?;
            }
            Mode::Parallel {
                source,
                jobs: Some(jobs_tx),
                running: VecDeque::new(),
                window: threads * WINDOW_PER_THREAD,
                gate,
            }
        };
        Ok(PlanBatches {
            schema,
            mode,
            remaining: self.options.limit,
        })
    }
}

/// A batch (or error) as a worker sends it, with its bytes as the [`ByteGate`] counted them.
/// A batch with its bytes and the bytes of it reserved from the read's pool.
type Sent = (Result<RecordBatch>, usize, usize);

/// The batches of several splits, in order; see [`SplitReader::read_splits`].
pub struct PlanBatches {
    schema: SchemaRef,
    mode: Mode,
    remaining: Option<usize>,
}

impl std::fmt::Debug for PlanBatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanBatches")
            .field("schema", &self.schema)
            .field("remaining", &self.remaining)
            .finish()
    }
}

impl PlanBatches {
    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

enum Mode {
    Sequential {
        source: TaskSource,
        current: Option<SplitBatches>,
    },
    Parallel {
        source: TaskSource,
        /// Dropped when the source is exhausted, so idle workers exit.
        jobs: Option<std::sync::mpsc::Sender<Job>>,
        running: VecDeque<Receiver<Sent>>,
        window: usize,
        /// Byte back-pressure under a memory budget.
        gate: Option<Arc<ByteGate>>,
    },
}

/// One task of one split, with the split's filter, projection and limit.
struct Job {
    unit: SplitBatches,
    out: SyncSender<Sent>,
    /// The read's gate and this task's sequence number in it.
    gate: Option<(Arc<ByteGate>, u64)>,
}

/// Yields the splits' tasks one at a time, opening a split only when its first task is due.
struct TaskSource {
    reader: SplitReader,
    table_path: String,
    splits: VecDeque<Split>,
    pending: VecDeque<SplitBatches>,
}

impl TaskSource {
    /// The next task as a single-task [`SplitBatches`]; `None` when every split is done.
    fn next_unit(&mut self) -> Option<Result<SplitBatches>> {
        loop {
            if let Some(u) = self.pending.pop_front() {
                return Some(Ok(u));
            }
            let split = self.splits.pop_front()?;
            let mut batches = match self.reader.read_any(&self.table_path, &split) {
                Ok(b) => b,
                Err(e) => return Some(Err(e)),
            };
            let tasks = std::mem::take(&mut batches.tasks);
            for task in tasks {
                self.pending.push_back(SplitBatches {
                    data_paths: Vec::new(),
                    tasks: VecDeque::from([task]),
                    current: None,
                    schema: batches.schema.clone(),
                    out_fields: batches.out_fields.clone(),
                    predicate: batches.predicate.clone(),
                    types: batches.types.clone(),
                    remaining: batches.remaining,
                    rules: batches.rules.clone(),
                });
            }
        }
    }
}

fn worker(jobs: &Mutex<Receiver<Job>>) {
    loop {
        let job = match jobs.lock() {
            Ok(rx) => match rx.recv() {
                Ok(j) => j,
                Err(_) => return,
            },
            Err(_) => return,
        };
        let Job {
            mut unit,
            out,
            gate,
        } = job;
        let mut expected = gate.as_ref().map_or(0, |(g, _)| g.first_batch());
        loop {
            if let Some((g, seq)) = &gate {
                if !g.admit(*seq, expected) {
                    break;
                }
            }
            let Some(mut b) = unit.next() else { break };
            let (mut bytes, mut reserved) = (0, 0);
            if let Some((g, seq)) = &gate {
                bytes = b.as_ref().map_or(0, RecordBatch::get_array_memory_size);
                match g.sent(*seq, bytes) {
                    Ok(r) => reserved = r,
                    Err(e) => {
                        b = Err(e);
                        bytes = 0;
                    }
                }
                expected = bytes;
            }
            let failed = b.is_err();
            if out.send((b, bytes, reserved)).is_err() || failed {
                break;
            }
        }
    }
}

impl Mode {
    fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        match self {
            Mode::Sequential { source, current } => loop {
                if let Some(c) = current {
                    match c.next() {
                        Some(b) => return Some(b),
                        None => *current = None,
                    }
                }
                match source.next_unit()? {
                    Ok(u) => *current = Some(u),
                    Err(e) => return Some(Err(e)),
                }
            },
            Mode::Parallel {
                source,
                jobs,
                running,
                window,
                gate,
            } => loop {
                while running.len() < *window {
                    let Some(tx) = jobs.as_ref() else { break };
                    match source.next_unit() {
                        None => {
                            *jobs = None;
                            break;
                        }
                        Some(Err(e)) => return Some(Err(e)),
                        Some(Ok(unit)) => {
                            let (out, rx) = sync_channel(CHANNEL_CAPACITY);
                            let gate = gate.as_ref().map(|g| (g.clone(), g.dispatch()));
                            if tx.send(Job { unit, out, gate }).is_err() {
                                return Some(Err(Error::Internal(
                                    "read threads stopped early".into(),
                                )));
                            }
                            running.push_back(rx);
                        }
                    }
                }
                let front = running.front()?;
                match front.recv() {
                    Ok((b, bytes, reserved)) => {
                        if let Some(g) = gate {
                            g.taken(bytes, reserved);
                        }
                        return Some(b);
                    }
                    Err(_) => {
                        running.pop_front();
                        if let Some(g) = gate {
                            g.advance();
                        }
                    }
                }
            },
        }
    }
}

impl Drop for PlanBatches {
    fn drop(&mut self) {
        // Workers waiting for room in the budget would otherwise wait forever.
        if let Mode::Parallel { gate: Some(g), .. } = &self.mode {
            g.close();
        }
    }
}

impl Iterator for PlanBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == Some(0) {
            return None;
        }
        let batch = match self.mode.next_batch()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(match &mut self.remaining {
            Some(r) => {
                let take = (*r).min(batch.num_rows());
                *r -= take;
                batch.slice(0, take)
            }
            None => batch,
        }))
    }
}
