//! Sorted, disjoint lists of row ranges.

use std::ops::Range;

/// Sorts and merges overlapping or adjacent ranges, dropping empty ones.
pub(super) fn coalesce(mut v: Vec<Range<u64>>) -> Vec<Range<u64>> {
    v.retain(|r| r.start < r.end);
    v.sort_by_key(|r| r.start);
    let mut out: Vec<Range<u64>> = Vec::with_capacity(v.len());
    for r in v {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// The intersection of two sorted, disjoint range lists.
pub(super) fn intersect(a: &[Range<u64>], b: &[Range<u64>]) -> Vec<Range<u64>> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        let (s, e) = (x.start.max(y.start), x.end.min(y.end));
        if s < e {
            out.push(s..e);
        }
        if x.end < y.end {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The union of two sorted, disjoint range lists.
pub(super) fn union(a: &[Range<u64>], b: &[Range<u64>]) -> Vec<Range<u64>> {
    coalesce(a.iter().chain(b).cloned().collect())
}

pub(super) fn overlaps(ranges: &[Range<u64>], r: Range<u64>) -> bool {
    ranges.iter().any(|x| x.start < r.end && r.start < x.end)
}
