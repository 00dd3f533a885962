//! Run cursors, the batch store they fill, and the min-heap that orders them.
//!
//! Each run is read one batch at a time. A loaded batch gets a slot in the [`BatchStore`] (its
//! value columns) and its key columns are encoded once with the arrow-row format, so ordering a
//! record is a `memcmp` of row bytes plus two integer comparisons, never a per-value dispatch.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::ScalarBuffer;
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType, SortOptions};

use super::error::{invalid_input, Result};
use super::RunLayout;

/// A sorted run after error conversion.
pub(crate) type BoxedRun = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

/// Value columns of every batch still referenced by pending output, by slot.
#[derive(Debug, Default)]
pub(crate) struct BatchStore {
    slots: Vec<Vec<ArrayRef>>,
}

impl BatchStore {
    pub(crate) fn push(&mut self, columns: Vec<ArrayRef>) -> u32 {
        self.slots.push(columns);
        // Slot counts stay far below u32::MAX: the store is compacted at every output batch.
        (self.slots.len() - 1) as u32
    }

    /// Column `col` of the batch in `slot`.
    #[inline]
    pub(crate) fn column(&self, slot: u32, col: usize) -> &ArrayRef {
        &self.slots[slot as usize][col]
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Keeps only `live` slots (in that order) and returns their new numbers.
    pub(crate) fn compact(&mut self, live: &[u32]) -> Vec<u32> {
        let old = std::mem::take(&mut self.slots);
        let mut renumbered = Vec::with_capacity(live.len());
        for &slot in live {
            renumbered.push(self.slots.len() as u32);
            self.slots.push(old[slot as usize].clone());
        }
        renumbered
    }
}

/// Encodes key and user-sequence columns into comparable rows.
#[derive(Debug)]
pub(crate) struct RowCodec {
    key: RowConverter,
    sequence: Option<RowConverter>,
}

impl RowCodec {
    pub(crate) fn try_new(
        key_types: &[DataType],
        seq_types: &[DataType],
        seq_descending: bool,
    ) -> Result<Self> {
        // Java compares keys ascending with nulls first; user sequence fields in the configured
        // direction but still nulls first (the generated comparator returns -1 for a null left).
        let key = RowConverter::new(
            key_types
                .iter()
                .map(|t| SortField::new_with_options(t.clone(), SortOptions::new(false, true)))
                .collect(),
        )?;
        let sequence = if seq_types.is_empty() {
            None
        } else {
            Some(RowConverter::new(
                seq_types
                    .iter()
                    .map(|t| {
                        SortField::new_with_options(
                            t.clone(),
                            SortOptions::new(seq_descending, true),
                        )
                    })
                    .collect(),
            )?)
        };
        Ok(RowCodec { key, sequence })
    }
}

/// The read position in one sorted run.
#[derive(Debug)]
pub(crate) struct RunCursor {
    run: BoxedRunDebug,
    pub(crate) run_index: usize,
    pub(crate) slot: u32,
    keys: Rows,
    sequence_fields: Option<Rows>,
    seqs: ScalarBuffer<i64>,
    kinds: ScalarBuffer<i8>,
    pub(crate) pos: usize,
    len: usize,
}

struct BoxedRunDebug(BoxedRun);

impl std::fmt::Debug for BoxedRunDebug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SortedRun")
    }
}

struct Loaded {
    slot: u32,
    keys: Rows,
    sequence_fields: Option<Rows>,
    seqs: ScalarBuffer<i64>,
    kinds: ScalarBuffer<i8>,
    len: usize,
}

impl RunCursor {
    /// Opens a cursor on the first non-empty batch of `run`; `None` when the run is empty.
    pub(crate) fn open(
        run: BoxedRun,
        run_index: usize,
        layout: &RunLayout,
        codec: &RowCodec,
        store: &mut BatchStore,
    ) -> Result<Option<Self>> {
        let mut run = BoxedRunDebug(run);
        let Some(l) = load_next(&mut run.0, layout, codec, store)? else {
            return Ok(None);
        };
        Ok(Some(RunCursor {
            run,
            run_index,
            slot: l.slot,
            keys: l.keys,
            sequence_fields: l.sequence_fields,
            seqs: l.seqs,
            kinds: l.kinds,
            pos: 0,
            len: l.len,
        }))
    }

    /// Key bytes of the current record.
    #[inline]
    pub(crate) fn key(&self) -> &[u8] {
        self.keys.row(self.pos).data()
    }

    /// `_VALUE_KIND` of the current record.
    #[inline]
    pub(crate) fn kind(&self) -> i8 {
        self.kinds[self.pos]
    }

    /// Moves to the next record; `false` when the run is exhausted.
    pub(crate) fn advance(
        &mut self,
        layout: &RunLayout,
        codec: &RowCodec,
        store: &mut BatchStore,
    ) -> Result<bool> {
        self.pos += 1;
        if self.pos < self.len {
            return Ok(true);
        }
        match load_next(&mut self.run.0, layout, codec, store)? {
            None => Ok(false),
            Some(l) => {
                self.slot = l.slot;
                self.keys = l.keys;
                self.sequence_fields = l.sequence_fields;
                self.seqs = l.seqs;
                self.kinds = l.kinds;
                self.len = l.len;
                self.pos = 0;
                Ok(true)
            }
        }
    }

    /// Java's record order: key, user sequence fields, `_SEQUENCE_NUMBER`, retract before add;
    /// then the run index so that ties resolve the same way every time.
    #[inline]
    pub(crate) fn cmp(&self, other: &Self) -> Ordering {
        self.key()
            .cmp(other.key())
            .then_with(|| match (&self.sequence_fields, &other.sequence_fields) {
                (Some(a), Some(b)) => a.row(self.pos).cmp(&b.row(other.pos)),
                _ => Ordering::Equal,
            })
            .then_with(|| self.seqs[self.pos].cmp(&other.seqs[other.pos]))
            .then_with(|| is_add(self.kind()).cmp(&is_add(other.kind())))
            .then_with(|| self.run_index.cmp(&other.run_index))
    }
}

/// Whether a `_VALUE_KIND` byte is `+I` or `+U`.
#[inline]
pub(crate) fn is_add(kind: i8) -> bool {
    kind == 0 || kind == 2
}

fn load_next(
    run: &mut BoxedRun,
    layout: &RunLayout,
    codec: &RowCodec,
    store: &mut BatchStore,
) -> Result<Option<Loaded>> {
    loop {
        let Some(batch) = run.next().transpose()? else {
            return Ok(None);
        };
        if batch.num_rows() == 0 {
            continue;
        }
        return load_batch(&batch, layout, codec, store).map(Some);
    }
}

fn load_batch(
    batch: &RecordBatch,
    layout: &RunLayout,
    codec: &RowCodec,
    store: &mut BatchStore,
) -> Result<Loaded> {
    let col = |i: usize| -> Result<&ArrayRef> {
        batch.columns().get(i).ok_or_else(|| {
            invalid_input(format!(
                "column {i} is missing: the batch has {} columns",
                batch.num_columns()
            ))
        })
    };
    let key_cols = layout
        .key_indices
        .iter()
        .map(|&i| col(i).cloned())
        .collect::<Result<Vec<_>>>()?;
    let keys = codec.key.convert_columns(&key_cols)?;
    let sequence_fields = match &codec.sequence {
        None => None,
        Some(conv) => {
            let cols = layout
                .sequence_field_indices
                .iter()
                .map(|&i| col(i).cloned())
                .collect::<Result<Vec<_>>>()?;
            Some(conv.convert_columns(&cols)?)
        }
    };
    let seq = col(layout.sequence_index)?;
    let seqs = seq
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| {
            invalid_input(format!(
                "_SEQUENCE_NUMBER is {}, not Int64",
                seq.data_type()
            ))
        })?
        .values()
        .clone();
    let kind = col(layout.value_kind_index)?;
    let kinds = kind
        .as_primitive_opt::<Int8Type>()
        .ok_or_else(|| invalid_input(format!("_VALUE_KIND is {}, not Int8", kind.data_type())))?
        .values()
        .clone();
    if let Some(bad) = kinds.iter().find(|k| !(0..=3).contains(*k)) {
        return Err(invalid_input(format!(
            "_VALUE_KIND {bad} is not a row kind (0..=3)"
        )));
    }
    let values = layout
        .value_indices
        .iter()
        .map(|&i| col(i).cloned())
        .collect::<Result<Vec<_>>>()?;
    let slot = store.push(values);
    Ok(Loaded {
        slot,
        keys,
        sequence_fields,
        seqs,
        kinds,
        len: batch.num_rows(),
    })
}

/// A binary min-heap of run cursors under [`RunCursor::cmp`].
///
/// The heap holds indices so that sifting moves integers, not cursors.
#[derive(Debug, Default)]
pub(crate) struct CursorHeap {
    cursors: Vec<RunCursor>,
    heap: Vec<usize>,
}

impl CursorHeap {
    pub(crate) fn new(cursors: Vec<RunCursor>) -> Self {
        let heap = (0..cursors.len()).collect();
        let mut h = CursorHeap { cursors, heap };
        let n = h.heap.len();
        for i in (0..n / 2).rev() {
            h.sift_down(i);
        }
        h
    }

    #[inline]
    pub(crate) fn top(&self) -> Option<&RunCursor> {
        self.heap.first().map(|&c| &self.cursors[c])
    }

    #[inline]
    pub(crate) fn top_mut(&mut self) -> Option<&mut RunCursor> {
        let c = *self.heap.first()?;
        self.cursors.get_mut(c)
    }

    /// Cursors that still have records.
    pub(crate) fn live_mut(&mut self) -> impl Iterator<Item = &mut RunCursor> {
        let live: Vec<bool> = {
            let mut v = vec![false; self.cursors.len()];
            self.heap.iter().for_each(|&c| v[c] = true);
            v
        };
        self.cursors
            .iter_mut()
            .zip(live)
            .filter_map(|(c, l)| l.then_some(c))
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    /// Removes the (exhausted) top cursor.
    pub(crate) fn pop_top(&mut self) {
        if self.heap.is_empty() {
            return;
        }
        self.heap.swap_remove(0);
        self.sift_down(0);
    }

    #[inline]
    fn less(&self, a: usize, b: usize) -> bool {
        self.cursors[self.heap[a]].cmp(&self.cursors[self.heap[b]]) == Ordering::Less
    }

    /// Restores heap order after the top cursor moved forward.
    #[inline]
    pub(crate) fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                return;
            }
            let r = l + 1;
            let child = if r < n && self.less(r, l) { r } else { l };
            if self.less(child, i) {
                self.heap.swap(child, i);
                i = child;
            } else {
                return;
            }
        }
    }
}
