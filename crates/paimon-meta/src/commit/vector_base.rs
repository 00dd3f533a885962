//! The deletion vectors of a bucketed table changed under a commit that rewrites them.
//!
//! A bucketed table keeps one deletion-vector index file per (partition, bucket), and a new file
//! replaces the bucket's previous one whatever its name (`index_combine`). A writer that rewrites a
//! bucket's vectors (a row-level DELETE / UPDATE / MERGE) reads them from one snapshot, its base:
//! when another commit since then added, replaced or retired that bucket's index file, publishing
//! would drop the other commit's marks. Java 1.4's `ConflictDetection` checks deletion vectors per
//! data file only for bucket-unaware tables (`buildDeltaEntriesWithDV`); bucket-unaware tables are
//! combined by file name here and refuse a second vector for a data file already.

use std::collections::{BTreeSet, HashSet};

use paimon_spec::index_file::DELETION_VECTORS_INDEX;

use super::conflict::Conflict;
use crate::manifest::IndexManifestEntry;

/// Fails when a (partition, bucket) whose deletion vectors `changes` adds or retires has other
/// deletion-vector index files in `latest` than it had in `base` (both live index entries).
pub(super) fn check(
    base: &[IndexManifestEntry],
    latest: &[IndexManifestEntry],
    changes: &[&IndexManifestEntry],
) -> Result<(), Conflict> {
    let dv = |e: &IndexManifestEntry| e.index_file.index_type == DELETION_VECTORS_INDEX;
    let mut seen = HashSet::new();
    for e in changes.iter().filter(|e| dv(e)) {
        if !seen.insert((&e.partition, e.bucket)) {
            continue;
        }
        let files = |entries: &[IndexManifestEntry]| -> BTreeSet<String> {
            entries
                .iter()
                .filter(|x| dv(x) && x.partition == e.partition && x.bucket == e.bucket)
                .map(|x| x.index_file.file_name.clone())
                .collect()
        };
        let (then, now) = (files(base), files(latest));
        if then != now {
            return Err(format!(
                "the deletion vectors of bucket {} were changed by another commit since the \
                 snapshot this commit read them from (index files then: {then:?}, now: \
                 {now:?})",
                e.bucket
            ));
        }
    }
    Ok(())
}
