//! Run cursors, the batch store they fill, and the min-heap that orders them.
//!
//! Each run is read one batch at a time. A loaded batch gets a slot in the [`BatchStore`] (its
//! value columns) and its key columns are encoded once with the arrow-row format, so ordering a
//! record is a `memcmp` of row bytes plus two integer comparisons, never a per-value dispatch.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, Int8Type};
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
///
/// Besides the encoded key rows, every loaded batch gets the first 16 bytes of each key row
/// packed big-endian into a `u128` (zero padded), so that most comparisons are one integer
/// comparison; the row bytes are only compared when two packed prefixes are equal.
#[derive(Debug)]
pub(crate) struct RunCursor {
    run: BoxedRunDebug,
    pub(crate) run_index: usize,
    pub(crate) slot: u32,
    keys: Rows,
    heads: Vec<u128>,
    sequence_fields: Option<Rows>,
    seqs: ScalarBuffer<i64>,
    kinds: ScalarBuffer<i8>,
    levels: Option<ScalarBuffer<i32>>,
    pub(crate) pos: usize,
    len: usize,
    /// `heads[pos]`, or `u128::MAX` once the run is exhausted.
    head: u128,
    /// The run has no more records.
    pub(crate) done: bool,
    /// Rows `[pos, clean_to)` are known to differ from their successor in the batch.
    clean_to: usize,
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
    levels: Option<ScalarBuffer<i32>>,
    len: usize,
}

/// Bytes of a key row packed into a `u128` prefix.
const PREFIX: usize = 16;

/// The first [`PREFIX`] bytes of `key`, zero-padded, as a big-endian number: prefixes order
/// as the keys' leading bytes do. Keys of 8 to 16 bytes (a BIGINT key row is 9) are packed
/// from two overlapping 8-byte loads, without a variable-length copy.
#[inline]
fn pack(key: &[u8]) -> u128 {
    if let Some(b) = key.first_chunk::<PREFIX>() {
        return u128::from_be_bytes(*b);
    }
    let n = key.len();
    if let (Some(head), Some(end)) = (key.first_chunk::<8>(), key.last_chunk::<8>()) {
        // `end` holds bytes n-8..n; the last n-8 of them (1..=7 bytes, or none) go to the top
        // of the low half.
        let rest = n - 8;
        let low = match rest {
            0 => 0,
            r => u64::from_be_bytes(*end) << (8 * (8 - r)),
        };
        return (u128::from(u64::from_be_bytes(*head)) << 64) | u128::from(low);
    }
    let mut buf = [0u8; PREFIX];
    buf[..n].copy_from_slice(key);
    u128::from_be_bytes(buf)
}

/// Lexicographic order of two key rows whose packed prefixes are equal.
#[inline]
fn cmp_tied(a: &[u8], b: &[u8]) -> Ordering {
    if a.len() <= PREFIX && b.len() <= PREFIX {
        a.len().cmp(&b.len())
    } else {
        a.cmp(b)
    }
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
        let mut c = RunCursor {
            run,
            run_index,
            slot: 0,
            keys: codec.key.empty_rows(0, 0),
            heads: Vec::new(),
            sequence_fields: None,
            seqs: ScalarBuffer::from(Vec::<i64>::new()),
            kinds: ScalarBuffer::from(Vec::<i8>::new()),
            levels: None,
            pos: 0,
            len: 0,
            head: u128::MAX,
            done: false,
            clean_to: 0,
        };
        c.install(l);
        Ok(Some(c))
    }

    fn install(&mut self, l: Loaded) {
        self.heads.clear();
        self.heads
            .extend((0..l.len).map(|i| pack(l.keys.row(i).data())));
        self.slot = l.slot;
        self.keys = l.keys;
        self.sequence_fields = l.sequence_fields;
        self.seqs = l.seqs;
        self.kinds = l.kinds;
        self.levels = l.levels;
        self.len = l.len;
        self.pos = 0;
        self.clean_to = 0;
        self.head = self.heads.first().copied().unwrap_or(u128::MAX);
    }

    /// Key bytes of the current record.
    #[inline]
    pub(crate) fn key(&self) -> &[u8] {
        self.keys.row(self.pos).data()
    }

    /// Packed prefix of the current key.
    #[inline]
    pub(crate) fn head(&self) -> u128 {
        self.head
    }

    /// Whether the current key equals `key` (whose packed prefix is `head`).
    #[inline]
    pub(crate) fn key_eq(&self, head: u128, key: &[u8]) -> bool {
        !self.done && self.head == head && cmp_tied(self.key(), key).is_eq()
    }

    /// `_VALUE_KIND` of the current record.
    #[inline]
    pub(crate) fn kind(&self) -> i8 {
        self.kinds[self.pos]
    }

    /// `_LEVEL` of the current record (0 when the batches carry none).
    #[inline]
    pub(crate) fn level(&self) -> i32 {
        self.levels.as_ref().map_or(0, |l| l[self.pos])
    }

    /// `_VALUE_KIND`s of rows `[from, to)` of the current batch.
    pub(crate) fn kinds(&self, from: usize, to: usize) -> &[i8] {
        &self.kinds[from..to]
    }

    /// `_SEQUENCE_NUMBER` of the current record.
    #[inline]
    pub(crate) fn seq(&self) -> i64 {
        self.seqs[self.pos]
    }

    /// `_SEQUENCE_NUMBER`s of rows `[from, to)` of the current batch.
    pub(crate) fn seqs(&self, from: usize, to: usize) -> &[i64] {
        &self.seqs[from..to]
    }

    /// Moves to the next record; `false` (and `done`) when the run is exhausted.
    #[inline]
    pub(crate) fn advance(
        &mut self,
        layout: &RunLayout,
        codec: &RowCodec,
        store: &mut BatchStore,
    ) -> Result<bool> {
        self.pos += 1;
        if self.pos < self.len {
            self.head = self.heads[self.pos];
            return Ok(true);
        }
        self.load(layout, codec, store)
    }

    #[cold]
    fn load(
        &mut self,
        layout: &RunLayout,
        codec: &RowCodec,
        store: &mut BatchStore,
    ) -> Result<bool> {
        match load_next(&mut self.run.0, layout, codec, store)? {
            None => {
                self.done = true;
                self.head = u128::MAX;
                Ok(false)
            }
            Some(l) => {
                self.install(l);
                Ok(true)
            }
        }
    }

    /// Skips to row `pos` of the current batch (`pos < len`).
    pub(crate) fn skip_to(&mut self, pos: usize) {
        if pos < self.len {
            self.pos = pos;
            self.head = self.heads[pos];
        }
    }

    /// How many records from the current one on can be emitted as single records without
    /// looking at other runs, given that every other run's head key is `bound` (or none):
    /// their keys are below `bound`, each differs from the next record of this run, and none
    /// is the last row of the batch (the next batch may continue its key). At most `max`.
    pub(crate) fn bulk_len(&mut self, bound: Option<&RunCursor>, max: usize) -> usize {
        let last = self.len.saturating_sub(1);
        let mut end = last.min(self.pos.saturating_add(max));
        if end <= self.pos {
            return 0;
        }
        if let Some(b) = bound {
            let below = |i: usize| self.key_below(i, b);
            if !below(self.pos) {
                return 0;
            }
            if !below(end - 1) {
                // Gallop then bisect for the first row not below `b`.
                let mut lo = self.pos; // below(lo) holds: the current head is the winner
                let mut step = 1usize;
                let mut hi = loop {
                    let probe = lo + step;
                    if probe >= end - 1 {
                        break end - 1;
                    }
                    if !below(probe) {
                        break probe;
                    }
                    lo = probe;
                    step *= 2;
                };
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if below(mid) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                end = lo + 1;
            }
        }
        // Records of one key in one run (level-0 files) must go through the merge.
        let mut i = self.clean_to.max(self.pos);
        while i < end {
            if self.heads[i] == self.heads[i + 1]
                && cmp_tied(self.keys.row(i).data(), self.keys.row(i + 1).data()).is_eq()
            {
                end = i;
                break;
            }
            i += 1;
        }
        self.clean_to = self.clean_to.max(end);
        end.saturating_sub(self.pos)
    }

    /// Whether the key of row `i` is strictly below the current key of `other`.
    #[inline]
    fn key_below(&self, i: usize, other: &RunCursor) -> bool {
        if other.done {
            return true;
        }
        match self.heads[i].cmp(&other.head) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => cmp_tied(self.keys.row(i).data(), other.key()).is_lt(),
        }
    }

    /// Java's record order: key, user sequence fields, `_SEQUENCE_NUMBER`, retract before add;
    /// then the run index so that ties resolve the same way every time. Exhausted cursors
    /// sort last.
    #[inline]
    pub(crate) fn less(&self, other: &Self) -> bool {
        match self.head.cmp(&other.head) {
            Ordering::Less => !self.done,
            Ordering::Greater => other.done,
            Ordering::Equal => {
                if self.done || other.done {
                    return other.done && !self.done;
                }
                self.cmp_same_head(other).is_lt()
            }
        }
    }

    fn cmp_same_head(&self, other: &Self) -> Ordering {
        cmp_tied(self.key(), other.key())
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
    let levels = match layout.level_index {
        None => None,
        Some(i) => {
            let level = col(i)?;
            let levels = level.as_primitive_opt::<Int32Type>().ok_or_else(|| {
                invalid_input(format!("_LEVEL is {}, not Int32", level.data_type()))
            })?;
            Some(levels.values().clone())
        }
    };
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
        levels,
        len: batch.num_rows(),
    })
}

/// A tree of losers over the run cursors under [`RunCursor::less`]: `tree[0]` is the
/// smallest cursor, `tree[p]` for `p` in `1..k` the loser of the match at internal node `p`
/// (leaf `i` sits at `k + i`, the parent of node `p` is `p / 2`). Replacing the winner's head
/// replays only its path: about `log2(k)` comparisons, against `2 log2(k)` for a binary heap.
#[derive(Debug, Default)]
pub(crate) struct LoserTree {
    cursors: Vec<RunCursor>,
    tree: Vec<usize>,
}

impl LoserTree {
    pub(crate) fn new(cursors: Vec<RunCursor>) -> Self {
        let k = cursors.len();
        let mut t = LoserTree {
            cursors,
            tree: vec![0; k.max(1)],
        };
        if k > 1 {
            // Winners of each node, bottom-up.
            let mut win = vec![0usize; 2 * k];
            for (i, w) in win[k..].iter_mut().enumerate() {
                *w = i;
            }
            for p in (1..k).rev() {
                let (a, b) = (win[2 * p], win[2 * p + 1]);
                if t.cursors[b].less(&t.cursors[a]) {
                    win[p] = b;
                    t.tree[p] = a;
                } else {
                    win[p] = a;
                    t.tree[p] = b;
                }
            }
            t.tree[0] = win[1];
        }
        t
    }

    /// Index of the smallest cursor, `None` when every run is exhausted.
    #[inline]
    pub(crate) fn winner(&self) -> Option<usize> {
        let w = *self.tree.first()?;
        let c = self.cursors.get(w)?;
        (!c.done).then_some(w)
    }

    #[inline]
    pub(crate) fn cursor(&self, i: usize) -> &RunCursor {
        &self.cursors[i]
    }

    #[inline]
    pub(crate) fn cursor_mut(&mut self, i: usize) -> &mut RunCursor {
        &mut self.cursors[i]
    }

    /// Restores the order after the winner `w` moved forward.
    #[inline]
    pub(crate) fn replay(&mut self, w: usize) {
        let k = self.cursors.len();
        let mut winner = w;
        let mut p = (k + w) / 2;
        while p >= 1 {
            let challenger = self.tree[p];
            if self.cursors[challenger].less(&self.cursors[winner]) {
                self.tree[p] = winner;
                winner = challenger;
            }
            p /= 2;
        }
        self.tree[0] = winner;
    }

    /// The smallest cursor other than the winner `w` (the smallest loser on `w`'s path);
    /// `None` when no other run has records.
    pub(crate) fn runner_up(&self, w: usize) -> Option<usize> {
        let k = self.cursors.len();
        let mut best: Option<usize> = None;
        let mut p = (k + w) / 2;
        while p >= 1 {
            let c = self.tree[p];
            if !self.cursors[c].done && best.is_none_or(|b| self.cursors[c].less(&self.cursors[b]))
            {
                best = Some(c);
            }
            p /= 2;
        }
        best
    }

    /// The winner (mutable) and the runner-up.
    pub(crate) fn pair_mut(
        &mut self,
        w: usize,
        r: Option<usize>,
    ) -> (&mut RunCursor, Option<&RunCursor>) {
        match r {
            Some(r) if r != w => {
                if w < r {
                    let (a, b) = self.cursors.split_at_mut(r);
                    (&mut a[w], Some(&b[0]))
                } else {
                    let (a, b) = self.cursors.split_at_mut(w);
                    (&mut b[0], Some(&a[r]))
                }
            }
            _ => (&mut self.cursors[w], None),
        }
    }

    /// Cursors that still have records.
    pub(crate) fn live_mut(&mut self) -> impl Iterator<Item = &mut RunCursor> {
        self.cursors.iter_mut().filter(|c| !c.done)
    }

    /// Number of cursors that still have records.
    pub(crate) fn len(&self) -> usize {
        self.cursors.iter().filter(|c| !c.done).count()
    }
}

#[cfg(test)]
mod pack_tests {
    use super::{pack, PREFIX};

    /// Every key length packs as its first 16 bytes zero-padded, read big-endian.
    #[test]
    fn pack_is_the_zero_padded_prefix() {
        for n in 0..=24usize {
            let key: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(37) ^ 0xA5).collect();
            let mut buf = [0u8; PREFIX];
            let m = n.min(PREFIX);
            buf[..m].copy_from_slice(&key[..m]);
            assert_eq!(pack(&key), u128::from_be_bytes(buf), "length {n}");
        }
    }
}
