//! Conflict detection between a commit's changes and the table's latest snapshot (Java
//! `ConflictDetection`): files deleted under us, files added that are already live (or added
//! twice), total buckets that changed, and overlapping key ranges of one LSM level >= 1 in a
//! primary-key table.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};

use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::predicate::compare_datums;
use paimon_spec::types::DataType;

use crate::manifest::{FileKind, ManifestEntry};

/// What was wrong, naming the file.
pub(super) type Conflict = String;

/// Checks `changes` against `live` (the latest snapshot's live ADD entries).
///
/// `key_types` are the trimmed primary-key types of a primary-key table (empty for append
/// tables, which have no key ranges).
pub(super) fn check(
    live: &[ManifestEntry],
    changes: &[ManifestEntry],
    key_types: &[DataType],
    overwrite: bool,
) -> Result<(), Conflict> {
    let changed_partitions: HashSet<&[u8]> = changes.iter().map(|e| &e.partition[..]).collect();
    // Every DELETE must retire a file that is still live.
    let live_ids: HashSet<_> = live.iter().map(ManifestEntry::identifier).collect();
    let mut merged: Vec<&ManifestEntry> = live
        .iter()
        .filter(|e| changed_partitions.contains(&e.partition[..]))
        .collect();
    let mut deleted = HashSet::new();
    for e in changes.iter().filter(|e| e.kind == FileKind::Delete) {
        if !live_ids.contains(&e.identifier()) {
            return Err(format!(
                "file {} (bucket {}, level {}) is to be deleted but is no longer live: another \
                 commit deleted or compacted it",
                e.file.file_name, e.bucket, e.file.level
            ));
        }
        deleted.insert(e.identifier());
    }
    // Every ADD must bring a file that is not live (unless this commit deletes it) and that
    // the commit adds once: a file live twice makes every later read fail.
    let mut added = HashSet::new();
    for e in changes.iter().filter(|e| e.kind == FileKind::Add) {
        let id = e.identifier();
        if live_ids.contains(&id) && !deleted.contains(&id) {
            return Err(format!(
                "file {} (bucket {}, level {}) is to be added but is already live: the same \
                 file was committed before",
                e.file.file_name, e.bucket, e.file.level
            ));
        }
        if !added.insert(id) {
            return Err(format!(
                "file {} (bucket {}, level {}) is added twice by this commit",
                e.file.file_name, e.bucket, e.file.level
            ));
        }
    }
    merged.retain(|e| !deleted.contains(&e.identifier()));
    merged.extend(changes.iter().filter(|e| e.kind == FileKind::Add));
    // Total buckets: one value per partition among the files left (Java
    // `checkBucketKeepSame`); an overwrite may rescale, and counts <= 0 are not fixed.
    if !overwrite {
        let mut totals: HashMap<&[u8], (i32, &str)> = HashMap::new();
        for e in merged.iter().filter(|e| e.total_buckets > 0) {
            match totals.get(&e.partition[..]) {
                Some((t, other)) if *t != e.total_buckets => {
                    return Err(format!(
                        "total buckets of a partition changed from {t} (file {other}) to {} \
                         (file {}) without overwrite",
                        e.total_buckets, e.file.file_name
                    ));
                }
                Some(_) => {}
                None => {
                    totals.insert(&e.partition[..], (e.total_buckets, &e.file.file_name));
                }
            }
        }
    }
    if key_types.is_empty() {
        return Ok(());
    }
    check_key_ranges(&merged, key_types)
}

/// A file's key range and name.
type KeyRange<'a> = (Vec<Datum>, Vec<Datum>, &'a str);

/// Files of one (partition, bucket, level >= 1) must have disjoint key ranges.
fn check_key_ranges(files: &[&ManifestEntry], key_types: &[DataType]) -> Result<(), Conflict> {
    let mut runs: BTreeMap<(&[u8], i32, i32), Vec<KeyRange<'_>>> = BTreeMap::new();
    for e in files.iter().filter(|e| e.file.level >= 1) {
        let decode = |b: &[u8]| {
            BinaryRow::from_serialized(b)
                .and_then(|r| r.to_datums(key_types))
                .map_err(|err| format!("key of file {}: {err}", e.file.file_name))
        };
        runs.entry((&e.partition, e.bucket, e.file.level))
            .or_default()
            .push((
                decode(&e.file.min_key)?,
                decode(&e.file.max_key)?,
                &e.file.file_name,
            ));
    }
    for ((_, bucket, level), mut run) in runs {
        run.sort_by(|a, b| cmp_keys(&a.0, &b.0));
        for w in run.windows(2) {
            if cmp_keys(&w[0].1, &w[1].0) != Ordering::Less {
                return Err(format!(
                    "key ranges of files {} and {} overlap in bucket {bucket} level {level} \
                     (a concurrent compaction wrote the same level)",
                    w[0].2, w[1].2
                ));
            }
        }
    }
    Ok(())
}

fn cmp_keys(a: &[Datum], b: &[Datum]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match compare_datums(x, y).unwrap_or(Ordering::Equal) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    a.len().cmp(&b.len())
}
