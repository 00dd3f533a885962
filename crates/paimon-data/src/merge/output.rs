//! Assembling output batches from merge results.
//!
//! Every output row is either a whole input row (a single record for its key, or the record a
//! deduplicate / first-row merge picked) or a computed row of [`Acc`] cells. Whole rows become
//! one `slice`, `take` or `interleave` per column; computed rows add a null source and one
//! concatenated source of computed values to the same `interleave`.

use std::sync::Arc;

use arrow_array::{
    new_null_array, Array, ArrayRef, Int64Array, Int8Array, RecordBatch, StringArray, UInt32Array,
};
use arrow_schema::SchemaRef;
use arrow_select::concat::concat;
use arrow_select::interleave::interleave;
use arrow_select::take::take;

use super::aggregate_numeric::{nums_to_array, Num};
use super::cell::Acc;
use super::cursor::{is_add, BatchStore};
use super::error::Result;
use super::RowKindColumn;

const COMPUTED: u32 = u32::MAX;

/// Merge results waiting to become the next output batch.
#[derive(Debug)]
pub(crate) struct OutputSink {
    keep_deletes: bool,
    /// Per output row: `(slot, row)` of a whole input row, or `(COMPUTED, k)`.
    rows: Vec<(u32, u32)>,
    kinds: Vec<i8>,
    /// Per output row its record's sequence number, when the output carries them.
    seqs: Option<Vec<i64>>,
    /// Per value column, the cells of the computed rows in output order.
    computed: Vec<Vec<Acc>>,
    computed_rows: u32,
}

impl OutputSink {
    pub(crate) fn new(
        num_columns: usize,
        keep_deletes: bool,
        capacity: usize,
        sequence_numbers: bool,
    ) -> Self {
        OutputSink {
            keep_deletes,
            rows: Vec::with_capacity(capacity),
            kinds: Vec::with_capacity(capacity),
            seqs: sequence_numbers.then(|| Vec::with_capacity(capacity)),
            computed: vec![Vec::new(); num_columns],
            computed_rows: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    #[inline]
    fn keeps(&self, kind: i8) -> bool {
        self.keep_deletes || is_add(kind)
    }

    /// Emits input row `row` of batch `slot` unchanged, with row kind `kind`.
    #[inline]
    pub(crate) fn push_whole(&mut self, slot: u32, row: u32, kind: i8, seq: i64) {
        if self.keeps(kind) {
            self.rows.push((slot, row));
            self.kinds.push(kind);
            if let Some(s) = &mut self.seqs {
                s.push(seq);
            }
        }
    }

    /// Emits input rows `start..start + kinds.len()` of batch `slot` unchanged.
    pub(crate) fn push_range(&mut self, slot: u32, start: usize, kinds: &[i8], seqs: &[i64]) {
        if self.keep_deletes || kinds.iter().all(|&k| is_add(k)) {
            let start = start as u32;
            self.rows
                .extend((0..kinds.len() as u32).map(|i| (slot, start + i)));
            self.kinds.extend_from_slice(kinds);
            if let Some(s) = &mut self.seqs {
                s.extend_from_slice(seqs);
            }
        } else {
            for (i, (&k, &seq)) in kinds.iter().zip(seqs).enumerate() {
                self.push_whole(slot, (start + i) as u32, k, seq);
            }
        }
    }

    /// Emits a computed row, taking its cells (they are left null).
    pub(crate) fn push_computed(&mut self, cells: &mut [Acc], kind: i8, seq: i64) {
        if !self.keeps(kind) {
            return;
        }
        if let Some(s) = &mut self.seqs {
            s.push(seq);
        }
        for (col, cell) in self.computed.iter_mut().zip(cells.iter_mut()) {
            col.push(std::mem::take(cell));
        }
        self.rows.push((COMPUTED, self.computed_rows));
        self.kinds.push(kind);
        self.computed_rows += 1;
    }

    /// Builds the pending rows into a batch of `schema` and clears the sink.
    pub(crate) fn build(
        &mut self,
        store: &BatchStore,
        schema: &SchemaRef,
        row_kind: Option<RowKindColumn>,
    ) -> Result<RecordBatch> {
        let num_values = self.computed.len();
        let mut columns = if self.computed_rows == 0 {
            whole_columns(store, num_values, &self.rows)?
        } else {
            (0..num_values)
                .map(|c| self.mixed_column(store, schema, c))
                .collect::<Result<Vec<_>>>()?
        };
        if let Some(s) = &mut self.seqs {
            columns.push(Arc::new(Int64Array::from(std::mem::take(s))));
        }
        match row_kind {
            None => {}
            Some(RowKindColumn::Int8) => {
                columns.push(Arc::new(Int8Array::from(std::mem::take(&mut self.kinds))));
            }
            Some(RowKindColumn::ShortString) => {
                let strings: StringArray =
                    self.kinds.iter().map(|k| Some(kind_string(*k))).collect();
                columns.push(Arc::new(strings));
            }
        }
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        self.rows.clear();
        self.kinds.clear();
        self.computed.iter_mut().for_each(Vec::clear);
        self.computed_rows = 0;
        Ok(batch)
    }

    fn mixed_column(&self, store: &BatchStore, schema: &SchemaRef, c: usize) -> Result<ArrayRef> {
        let data_type = schema.field(c).data_type();
        let null = new_null_array(data_type, 1);
        let owned: Vec<&dyn Array> = self.computed[c]
            .iter()
            .filter_map(|a| match a {
                Acc::Owned(arr) => Some(arr.as_ref()),
                _ => None,
            })
            .collect();
        let owned = if owned.is_empty() {
            None
        } else {
            Some(concat(&owned)?)
        };
        let nums: Vec<Num> = self.computed[c]
            .iter()
            .filter_map(|a| match a {
                Acc::Num(n) => Some(*n),
                _ => None,
            })
            .collect();
        let nums = if nums.is_empty() {
            None
        } else {
            Some(nums_to_array(&nums, data_type)?)
        };
        let mut sources: Vec<&dyn Array> = Vec::with_capacity(store.len() + 2);
        sources.push(null.as_ref());
        for slot in 0..store.len() {
            sources.push(store.column(slot as u32, c).as_ref());
        }
        let owned_source = sources.len();
        if let Some(o) = &owned {
            sources.push(o.as_ref());
        }
        let nums_source = sources.len();
        if let Some(n) = &nums {
            sources.push(n.as_ref());
        }
        let mut next_owned = 0usize;
        let mut next_num = 0usize;
        let mut indices = Vec::with_capacity(self.rows.len());
        for &(slot, row) in &self.rows {
            if slot != COMPUTED {
                indices.push((slot as usize + 1, row as usize));
                continue;
            }
            match &self.computed[c][row as usize] {
                Acc::Null => indices.push((0, 0)),
                Acc::Ref { slot, row } => indices.push((*slot as usize + 1, *row as usize)),
                Acc::Owned(_) => {
                    indices.push((owned_source, next_owned));
                    next_owned += 1;
                }
                Acc::Num(_) => {
                    indices.push((nums_source, next_num));
                    next_num += 1;
                }
            }
        }
        Ok(interleave(&sources, &indices)?)
    }
}

/// Columns made only of whole input rows.
fn whole_columns(
    store: &BatchStore,
    num_values: usize,
    rows: &[(u32, u32)],
) -> Result<Vec<ArrayRef>> {
    let Some(&(first_slot, first_row)) = rows.first() else {
        return (0..num_values)
            .map(|c| store_column_or_empty(store, c))
            .collect();
    };
    // Runs of consecutive rows of one batch; long runs are sliced and concatenated.
    let mut segments: Vec<(u32, u32, usize)> = vec![(first_slot, first_row, 1)];
    let mut single_slot = true;
    for &(slot, row) in &rows[1..] {
        single_slot &= slot == first_slot;
        match segments.last_mut() {
            Some((s, r, n)) if *s == slot && *r as usize + *n == row as usize => *n += 1,
            _ => {
                if segments.len() * 16 > rows.len() && !single_slot {
                    break;
                }
                segments.push((slot, row, 1));
            }
        }
    }
    let covered: usize = segments.iter().map(|s| s.2).sum();
    if covered == rows.len() && segments.len() * 16 <= rows.len().max(16) {
        return (0..num_values)
            .map(|c| {
                let parts: Vec<ArrayRef> = segments
                    .iter()
                    .map(|&(s, r, n)| store.column(s, c).slice(r as usize, n))
                    .collect();
                match parts.as_slice() {
                    [one] => Ok(one.clone()),
                    _ => {
                        let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                        Ok(concat(&refs)?)
                    }
                }
            })
            .collect();
    }
    if rows.iter().all(|&(s, _)| s == first_slot) {
        let idx = UInt32Array::from_iter_values(rows.iter().map(|&(_, r)| r));
        return (0..num_values)
            .map(|c| Ok(take(store.column(first_slot, c).as_ref(), &idx, None)?))
            .collect();
    }
    let indices: Vec<(usize, usize)> = rows
        .iter()
        .map(|&(s, r)| (s as usize, r as usize))
        .collect();
    (0..num_values)
        .map(|c| {
            let sources: Vec<&dyn Array> = (0..store.len())
                .map(|s| store.column(s as u32, c).as_ref())
                .collect();
            Ok(interleave(&sources, &indices)?)
        })
        .collect()
}

fn store_column_or_empty(store: &BatchStore, c: usize) -> Result<ArrayRef> {
    // Only reached for an empty output, which the reader never builds; keep it total anyway.
    if store.len() > 0 {
        Ok(store.column(0, c).slice(0, 0))
    } else {
        Err(super::error::invalid_input(
            "no batch to take an empty column from",
        ))
    }
}

/// Java's `RowKind.shortString()`.
pub(crate) fn kind_string(kind: i8) -> &'static str {
    match kind {
        0 => "+I",
        1 => "-U",
        2 => "+U",
        _ => "-D",
    }
}
