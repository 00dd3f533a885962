//! The decoded content of a scalar global index file and the lookups planning makes on it.

use std::cmp::Ordering;
use std::ops::Bound;

use paimon_spec::binary::Datum;
use paimon_spec::predicate::compare_datums;
use roaring::RoaringTreemap;

/// Distinct keys in key order with the rows holding each, and the rows holding NULL. Row ids
/// are local to the index file's row range (0 is its `_ROW_RANGE_START`).
#[derive(Debug, Clone, PartialEq)]
pub struct SortedIndex {
    keys: Vec<Datum>,
    rows: Vec<RoaringTreemap>,
    nulls: RoaringTreemap,
}

fn order(a: &Datum, b: &Datum) -> Ordering {
    compare_datums(a, b).unwrap_or(Ordering::Equal)
}

impl SortedIndex {
    /// An index of `entries` (in any order; equal keys are merged) and `nulls`.
    pub fn new(mut entries: Vec<(Datum, RoaringTreemap)>, nulls: RoaringTreemap) -> Self {
        entries.sort_by(|a, b| order(&a.0, &b.0));
        let mut keys: Vec<Datum> = Vec::with_capacity(entries.len());
        let mut rows: Vec<RoaringTreemap> = Vec::with_capacity(entries.len());
        for (k, r) in entries {
            match (keys.last(), rows.last_mut()) {
                (Some(last), Some(lr)) if compare_datums(last, &k) == Some(Ordering::Equal) => {
                    *lr |= r
                }
                _ => {
                    keys.push(k);
                    rows.push(r);
                }
            }
        }
        SortedIndex { keys, rows, nulls }
    }

    /// The keys in order, each with its rows.
    pub fn entries(&self) -> impl Iterator<Item = (&Datum, &RoaringTreemap)> {
        self.keys.iter().zip(self.rows.iter())
    }

    /// Rows holding NULL.
    pub fn nulls(&self) -> &RoaringTreemap {
        &self.nulls
    }

    /// Rows holding any non-null key.
    pub fn not_nulls(&self) -> RoaringTreemap {
        self.rows
            .iter()
            .fold(RoaringTreemap::new(), |acc, r| acc | r)
    }

    /// Whether `lit` compares with every key (a literal of another type family, or a NaN,
    /// cannot be answered by the index).
    fn comparable(&self, lit: &Datum) -> bool {
        !lit.is_null() && self.keys.iter().all(|k| compare_datums(k, lit).is_some())
    }

    /// Rows whose key equals `lit`; `None` when the index cannot answer.
    pub fn equal(&self, lit: &Datum) -> Option<RoaringTreemap> {
        self.range(Bound::Included(lit), Bound::Included(lit))
    }

    /// Rows whose key lies within the bounds; `None` when a bound cannot be compared with the
    /// keys.
    pub fn range(&self, lower: Bound<&Datum>, upper: Bound<&Datum>) -> Option<RoaringTreemap> {
        for b in [lower, upper] {
            if let Bound::Included(l) | Bound::Excluded(l) = b {
                if !self.comparable(l) {
                    return None;
                }
            }
        }
        let start = match lower {
            Bound::Unbounded => 0,
            Bound::Included(l) => self.keys.partition_point(|k| order(k, l) == Ordering::Less),
            Bound::Excluded(l) => self
                .keys
                .partition_point(|k| order(k, l) != Ordering::Greater),
        };
        let end = match upper {
            Bound::Unbounded => self.keys.len(),
            Bound::Included(u) => self
                .keys
                .partition_point(|k| order(k, u) != Ordering::Greater),
            Bound::Excluded(u) => self.keys.partition_point(|k| order(k, u) == Ordering::Less),
        };
        let mut out = RoaringTreemap::new();
        if start < end {
            for r in self.rows.get(start..end).unwrap_or_default() {
                out |= r;
            }
        }
        Some(out)
    }
}
