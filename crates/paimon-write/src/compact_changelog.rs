//! The changelog a compaction writes (Java `FullChangelogMergeFunctionWrapper` for
//! `changelog-producer = full-compaction`, `LookupChangelogMergeFunctionWrapper` for `lookup`):
//! what changed for each key that has newer records, between its old row and its merged row.
//!
//! ```text
//! full-compaction: newer = records below the last level, old = the last-level row
//! lookup:          newer = level-0 records,              old = the row of the shallowest level > 0
//! per key with newer records:
//!   no old row (or a retraction), merged row kept -> +I merged
//!   old row,                      merged row kept -> -U old, +U merged (none if the values are
//!                                                    equal and `row-deduplicate` is set)
//!   old row,                      merged row gone -> -D old
//! ```
//!
//! The old rows carry their sequence numbers, the merged ones theirs, as in Java. Memory: the
//! keys of the newer records, their old rows and their merged rows, which is at most what the
//! merge's inputs hold.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch};
use arrow_ord::ord::make_comparator;
use arrow_schema::{SchemaRef, SortOptions};

use crate::compact_lookup::KeyCodec;
use crate::error::{Error, Result};

/// `_VALUE_KIND` codes.
const INSERT: i8 = 0;
const UPDATE_BEFORE: i8 = 1;
const UPDATE_AFTER: i8 = 2;
const DELETE: i8 = 3;

/// The changelog of one merge (one key-disjoint section of a compaction).
pub(crate) struct FullChangelog {
    /// Keys of the newer records.
    newer: HashSet<Vec<u8>>,
    /// Old rows of those keys: key -> (level, batch, row in `old`).
    before: HashMap<Vec<u8>, (i32, usize, usize)>,
    /// Batches of old rows, in the merge output's layout.
    old: Vec<RecordBatch>,
    /// Merged rows of those keys: (key, batch, row) in `new`, in merge order.
    after: Vec<(Vec<u8>, usize, usize)>,
    new: Vec<RecordBatch>,
    /// With `row-deduplicate`, the value columns whose equality drops a -U/+U pair.
    compare: Option<Vec<usize>>,
}

impl FullChangelog {
    /// Starts a merge whose newer records hold `newer` keys; `compare` as the field says.
    pub(crate) fn new(newer: HashSet<Vec<u8>>, compare: Option<Vec<usize>>) -> Self {
        FullChangelog {
            newer,
            before: HashMap::new(),
            old: Vec::new(),
            after: Vec::new(),
            new: Vec::new(),
            compare,
        }
    }

    /// Keeps the rows of `batch` (records of a file of `level`, as the merge reads them) whose
    /// key has newer records, unless a shallower level already gave that key its old row.
    pub(crate) fn add_old(
        &mut self,
        batch: RecordBatch,
        codec: &KeyCodec,
        level: i32,
    ) -> Result<()> {
        let keys = codec.keys(&batch)?;
        let b = self.old.len();
        let mut any = false;
        for (r, k) in keys.iter().enumerate() {
            if !self.newer.contains(k.as_ref()) {
                continue;
            }
            let shallower = self
                .before
                .get(k.as_ref())
                .is_some_and(|(l, _, _)| *l <= level);
            if !shallower {
                self.before.insert(k.as_ref().to_vec(), (level, b, r));
                any = true;
            }
        }
        if any {
            self.old.push(batch);
        }
        Ok(())
    }

    /// Notes the merged rows of `batch` (merge output) whose key has newer records.
    pub(crate) fn add_merged(&mut self, batch: &RecordBatch, codec: &KeyCodec) -> Result<()> {
        let keys = codec.keys(batch)?;
        let b = self.new.len();
        let mut any = false;
        for (r, k) in keys.iter().enumerate() {
            if self.newer.contains(k.as_ref()) {
                self.after.push((k.as_ref().to_vec(), b, r));
                any = true;
            }
        }
        if any {
            self.new.push(batch.clone());
        }
        Ok(())
    }

    /// The changelog records in key order, in the merge output's layout (`schema`: the table's
    /// columns, `_SEQUENCE_NUMBER`, the Int8 row kind); `None` when nothing changed.
    pub(crate) fn finish(self, schema: &SchemaRef) -> Result<Option<RecordBatch>> {
        // (key, source: 0 old / 1 new, batch, row, kind); old before new for one key.
        let mut records: Vec<(Vec<u8>, u8, usize, usize, i8)> = Vec::new();
        let mut seen: HashSet<&[u8]> = HashSet::new();
        // An old retraction is no old row (Java `setChangelog`: `before.isAdd()`).
        let old_add = |b: usize, r: usize| -> Result<bool> {
            let kinds = self.old[b].column(self.old[b].num_columns() - 1);
            let kind = kinds
                .as_primitive_opt::<Int8Type>()
                .ok_or_else(|| Error::Internal("changelog rows: row kind not Int8".into()))?
                .value(r);
            Ok(kind == INSERT || kind == UPDATE_AFTER)
        };
        for (k, b, r) in &self.after {
            seen.insert(k);
            match self.before.get(k) {
                Some(&(_, ob, or)) if old_add(ob, or)? => {
                    if !self.same_values(ob, or, *b, *r)? {
                        records.push((k.clone(), 0, ob, or, UPDATE_BEFORE));
                        records.push((k.clone(), 1, *b, *r, UPDATE_AFTER));
                    }
                }
                _ => records.push((k.clone(), 1, *b, *r, INSERT)),
            }
        }
        for (k, &(_, b, r)) in &self.before {
            if !seen.contains(k.as_slice()) && old_add(b, r)? {
                records.push((k.clone(), 0, b, r, DELETE));
            }
        }
        if records.is_empty() {
            return Ok(None);
        }
        records.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        // One list of batches: the old ones first, then the merged ones.
        let conform = |b: &RecordBatch| {
            RecordBatch::try_new(schema.clone(), b.columns().to_vec())
                .map_err(|e| Error::Internal(format!("changelog rows: {e}")))
        };
        let mut all: Vec<RecordBatch> = Vec::with_capacity(self.old.len() + self.new.len());
        for b in self.old.iter().chain(&self.new) {
            all.push(conform(b)?);
        }
        let offset = self.old.len();
        let indices: Vec<(usize, usize)> = records
            .iter()
            .map(|(_, src, b, r, _)| (if *src == 0 { *b } else { offset + *b }, *r))
            .collect();
        let refs: Vec<&RecordBatch> = all.iter().collect();
        let rows = arrow_select::interleave::interleave_record_batch(&refs, &indices)
            .map_err(|e| Error::Internal(format!("changelog rows: {e}")))?;
        let kinds: ArrayRef = Arc::new(Int8Array::from(
            records.iter().map(|r| r.4).collect::<Vec<i8>>(),
        ));
        let mut columns = rows.columns().to_vec();
        let last = columns.len() - 1;
        columns[last] = kinds;
        RecordBatch::try_new(schema.clone(), columns)
            .map(Some)
            .map_err(|e| Error::Internal(format!("changelog rows: {e}")))
    }

    /// Whether old row `(ob, or)` and merged row `(nb, nr)` have equal compared values
    /// (`row-deduplicate`); false without it.
    fn same_values(&self, ob: usize, or: usize, nb: usize, nr: usize) -> Result<bool> {
        let Some(columns) = &self.compare else {
            return Ok(false);
        };
        for &c in columns {
            let (old, new) = (self.old[ob].column(c), self.new[nb].column(c));
            if old.is_null(or) != new.is_null(nr) {
                return Ok(false);
            }
            if old.is_null(or) {
                continue;
            }
            let cmp = make_comparator(old.as_ref(), new.as_ref(), SortOptions::default())
                .map_err(|e| Error::Internal(format!("changelog row comparison: {e}")))?;
            if cmp(or, nr).is_ne() {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
