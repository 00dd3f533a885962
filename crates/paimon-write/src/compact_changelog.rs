//! The changelog a full compaction writes for `changelog-producer = full-compaction` (Java
//! `FullChangelogMergeTreeCompactRewriter`, `FullChangelogMergeFunctionWrapper`): what changed
//! between the last level before the compaction and after it.
//!
//! ```text
//! per key with a record below the last level (the last level alone changes nothing):
//!   no last-level row, merged row kept      -> +I merged
//!   last-level row,    merged row kept      -> -U old, +U merged
//!   last-level row,    merged row retracted -> -D old
//! ```
//!
//! The old rows carry their sequence numbers, the merged ones theirs, as in Java. Memory: the
//! keys of the inputs below the last level, their old rows and their merged rows, which is at
//! most what those inputs hold.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int8Array, RecordBatch};
use arrow_schema::SchemaRef;

use crate::compact_lookup::KeyCodec;
use crate::error::{Error, Result};

/// `_VALUE_KIND` codes.
const INSERT: i8 = 0;
const UPDATE_BEFORE: i8 = 1;
const UPDATE_AFTER: i8 = 2;
const DELETE: i8 = 3;

/// The changelog of one merge (one key-disjoint section of a full compaction).
pub(crate) struct FullChangelog {
    /// Keys of the records below the last level.
    newer: HashSet<Vec<u8>>,
    /// Last-level rows of those keys: key -> (batch, row) in `old`.
    before: HashMap<Vec<u8>, (usize, usize)>,
    /// Batches of last-level rows, in the merge output's layout.
    old: Vec<RecordBatch>,
    /// Merged rows of those keys: (key, batch, row) in `new`, in merge order.
    after: Vec<(Vec<u8>, usize, usize)>,
    new: Vec<RecordBatch>,
}

impl FullChangelog {
    /// Starts a merge whose inputs below the last level hold `newer` keys.
    pub(crate) fn new(newer: HashSet<Vec<u8>>) -> Self {
        FullChangelog {
            newer,
            before: HashMap::new(),
            old: Vec::new(),
            after: Vec::new(),
            new: Vec::new(),
        }
    }

    /// Keeps the rows of `batch` (last-level records, as the merge reads them) whose key has
    /// newer records.
    pub(crate) fn add_old(&mut self, batch: RecordBatch, codec: &KeyCodec) -> Result<()> {
        let keys = codec.keys(&batch)?;
        let b = self.old.len();
        let mut any = false;
        for (r, k) in keys.iter().enumerate() {
            if self.newer.contains(k.as_ref()) {
                self.before.insert(k.as_ref().to_vec(), (b, r));
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
        for (k, b, r) in &self.after {
            seen.insert(k);
            match self.before.get(k) {
                Some(&(ob, or)) => {
                    records.push((k.clone(), 0, ob, or, UPDATE_BEFORE));
                    records.push((k.clone(), 1, *b, *r, UPDATE_AFTER));
                }
                None => records.push((k.clone(), 1, *b, *r, INSERT)),
            }
        }
        for (k, &(b, r)) in &self.before {
            if !seen.contains(k.as_slice()) {
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
}
