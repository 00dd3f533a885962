//! How a commit's index-file changes are folded into the previous index manifest (Java 1.4
//! `IndexManifestFileHandler`).
//!
//! Each index type is combined on its own:
//! - hash indexes, and the deletion vectors of a table with buckets, keep one file per
//!   (partition, bucket):
//!   a removal drops the bucket's file whatever its name, and an added file replaces the
//!   bucket's previous one. Java's writers rely on this: a compaction's message names only the
//!   new vector file of a bucket, never the one it supersedes;
//! - deletion vectors of a table without buckets are combined by file name, and a data file may
//!   be covered by at most one live vector: adding a second one, or removing a file or vector
//!   that is not there, means the change was made against another base and is refused;
//! - every other index type (global indexes) is combined by file name.
//!
//! Java applies a message's entries in list order; here a change's removals always come first.
//! That accepts every change Java accepts except one that adds and removes the same file.

use std::collections::{HashMap, HashSet};

use paimon_spec::index_file::{DELETION_VECTORS_INDEX, HASH_INDEX};

use crate::manifest::{FileKind, IndexManifestEntry};

/// Folds `changes` (ADDs and DELETEs) into `previous` (ADDs). `unaware_bucket` is Java's
/// `BucketMode.BUCKET_UNAWARE`: an append table with `bucket = -1`.
///
/// # Errors
/// The reason a deletion-vector change of a table without buckets does not apply to `previous`.
pub(super) fn combine(
    previous: &[IndexManifestEntry],
    changes: &[IndexManifestEntry],
    unaware_bucket: bool,
) -> Result<Vec<IndexManifestEntry>, String> {
    let mut types: Vec<&str> = Vec::new();
    for e in previous.iter().chain(changes) {
        if !types.contains(&e.index_file.index_type.as_str()) {
            types.push(&e.index_file.index_type);
        }
    }
    let mut out = Vec::new();
    for ty in types {
        let prev: Vec<&IndexManifestEntry> = of_type(previous, ty).collect();
        let new: Vec<&IndexManifestEntry> = of_type(changes, ty).collect();
        let bucketed = ty == HASH_INDEX || (ty == DELETION_VECTORS_INDEX && !unaware_bucket);
        if bucketed {
            out.extend(by_bucket(&prev, &new));
        } else if ty == DELETION_VECTORS_INDEX {
            out.extend(unaware_vectors(&prev, &new)?);
        } else {
            out.extend(by_name(&prev, &new));
        }
    }
    Ok(out)
}

fn of_type<'a>(
    entries: &'a [IndexManifestEntry],
    ty: &'a str,
) -> impl Iterator<Item = &'a IndexManifestEntry> + 'a {
    entries
        .iter()
        .filter(move |e| e.index_file.index_type == ty)
}

/// Keeps the order of first appearance, so a manifest written twice from the same inputs is
/// the same bytes.
struct Ordered<K> {
    keys: Vec<K>,
    live: HashMap<K, IndexManifestEntry>,
}

impl<K: std::hash::Hash + Eq + Clone> Ordered<K> {
    fn new() -> Self {
        Self {
            keys: Vec::new(),
            live: HashMap::new(),
        }
    }

    fn put(&mut self, key: K, entry: &IndexManifestEntry) {
        let mut entry = entry.clone();
        entry.kind = FileKind::Add;
        if self.live.insert(key.clone(), entry).is_none() {
            self.keys.push(key);
        }
    }

    fn remove(&mut self, key: &K) -> bool {
        self.live.remove(key).is_some()
    }

    fn into_entries(mut self) -> Vec<IndexManifestEntry> {
        self.keys
            .iter()
            .filter_map(|k| self.live.remove(k))
            .collect()
    }
}

fn by_bucket(prev: &[&IndexManifestEntry], new: &[&IndexManifestEntry]) -> Vec<IndexManifestEntry> {
    let key = |e: &IndexManifestEntry| (e.partition.clone(), e.bucket);
    let mut live = Ordered::new();
    for e in prev {
        live.put(key(e), e);
    }
    // Removals first, so that a message that retires a bucket's file and adds its successor
    // keeps the successor.
    for e in new.iter().filter(|e| e.kind == FileKind::Delete) {
        live.remove(&key(e));
    }
    for e in new.iter().filter(|e| e.kind == FileKind::Add) {
        live.put(key(e), e);
    }
    live.into_entries()
}

fn by_name(prev: &[&IndexManifestEntry], new: &[&IndexManifestEntry]) -> Vec<IndexManifestEntry> {
    let mut live = Ordered::new();
    for e in prev {
        live.put(e.index_file.file_name.clone(), e);
    }
    for e in new.iter().filter(|e| e.kind == FileKind::Delete) {
        live.remove(&e.index_file.file_name);
    }
    for e in new.iter().filter(|e| e.kind == FileKind::Add) {
        live.put(e.index_file.file_name.clone(), e);
    }
    live.into_entries()
}

fn covered(e: &IndexManifestEntry) -> impl Iterator<Item = &str> {
    e.index_file
        .dv_ranges
        .iter()
        .flatten()
        .map(|d| d.data_file_name.as_str())
}

/// Java's `GlobalCombiner`, with the change's removals applied before its additions (as the
/// other two combiners do), so that a change that retires a vector file and writes its successor
/// for the same data file applies whichever order its message lists them in.
fn unaware_vectors(
    prev: &[&IndexManifestEntry],
    new: &[&IndexManifestEntry],
) -> Result<Vec<IndexManifestEntry>, String> {
    let mut live = Ordered::new();
    let mut data_files: HashSet<String> = HashSet::new();
    for e in prev {
        live.put(e.index_file.file_name.clone(), e);
        data_files.extend(covered(e).map(str::to_string));
    }
    for e in new.iter().filter(|e| e.kind == FileKind::Delete) {
        let name = &e.index_file.file_name;
        if !live.remove(name) {
            return Err(format!("index file {name} is removed but is not live"));
        }
        for f in covered(e) {
            if !data_files.remove(f) {
                return Err(format!(
                    "index file {name} removes the deletion vector of data file {f}, which has none"
                ));
            }
        }
    }
    for e in new.iter().filter(|e| e.kind == FileKind::Add) {
        let name = &e.index_file.file_name;
        if live.live.contains_key(name) {
            return Err(format!("index file {name} is added twice"));
        }
        for f in covered(e) {
            if !data_files.insert(f.to_string()) {
                return Err(format!(
                    "index file {name} adds a second deletion vector for data file {f}"
                ));
            }
        }
        live.put(name.clone(), e);
    }
    Ok(live.into_entries())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{DeletionVectorMeta, IndexFileMeta};

    fn entry(
        kind: FileKind,
        bucket: i32,
        ty: &str,
        name: &str,
        files: &[&str],
    ) -> IndexManifestEntry {
        IndexManifestEntry {
            kind,
            partition: vec![0, 0, 0, 0],
            bucket,
            index_file: IndexFileMeta {
                index_type: ty.to_string(),
                file_name: name.to_string(),
                file_size: 10,
                row_count: files.len() as i64,
                dv_ranges: Some(
                    files
                        .iter()
                        .map(|f| DeletionVectorMeta {
                            data_file_name: f.to_string(),
                            offset: 1,
                            length: 4,
                            cardinality: Some(1),
                        })
                        .collect(),
                ),
                external_path: None,
                global_index: None,
            },
        }
    }

    fn names(v: &[IndexManifestEntry]) -> Vec<&str> {
        v.iter().map(|e| e.index_file.file_name.as_str()).collect()
    }

    #[test]
    fn a_bucket_keeps_only_its_newest_vector_file() {
        let dv = DELETION_VECTORS_INDEX;
        let prev = [
            entry(FileKind::Add, 0, dv, "dv-a", &["f1"]),
            entry(FileKind::Add, 1, dv, "dv-b", &["f2"]),
        ];
        // A Java compaction message names only the new file of bucket 0.
        let got = combine(
            &prev,
            &[entry(FileKind::Add, 0, dv, "dv-c", &["f3"])],
            false,
        )
        .unwrap();
        assert_eq!(names(&got), ["dv-c", "dv-b"]);
        // A removal drops the bucket's file whatever name it carries, an add in the same change
        // survives it.
        let change = [
            entry(FileKind::Add, 1, dv, "dv-d", &["f4"]),
            entry(FileKind::Delete, 1, dv, "dv-old", &[]),
        ];
        let got = combine(&prev, &change, false).unwrap();
        assert_eq!(names(&got), ["dv-a", "dv-d"]);
        assert!(got.iter().all(|e| e.kind == FileKind::Add));
    }

    #[test]
    fn unaware_vectors_refuse_a_second_vector_for_a_file() {
        let dv = DELETION_VECTORS_INDEX;
        let prev = [entry(FileKind::Add, 0, dv, "dv-a", &["f1", "f2"])];
        let both = combine(&prev, &[entry(FileKind::Add, 0, dv, "dv-b", &["f3"])], true).unwrap();
        assert_eq!(names(&both), ["dv-a", "dv-b"]);
        let err = combine(&prev, &[entry(FileKind::Add, 0, dv, "dv-b", &["f2"])], true);
        assert!(err.unwrap_err().contains("data file f2"));
        let err = combine(&prev, &[entry(FileKind::Delete, 0, dv, "dv-x", &[])], true);
        assert!(err.unwrap_err().contains("dv-x"));
        // Replacing the file that covers f2 is fine when the old one is removed first.
        let change = [
            entry(FileKind::Delete, 0, dv, "dv-a", &["f1", "f2"]),
            entry(FileKind::Add, 0, dv, "dv-b", &["f2"]),
        ];
        assert_eq!(names(&combine(&prev, &change, true).unwrap()), ["dv-b"]);
    }

    #[test]
    fn other_index_types_combine_by_name() {
        let prev = [
            entry(FileKind::Add, 0, "btree", "g-1", &[]),
            entry(FileKind::Add, 0, HASH_INDEX, "h-1", &[]),
        ];
        let change = [
            entry(FileKind::Add, 0, "btree", "g-2", &[]),
            entry(FileKind::Add, 0, HASH_INDEX, "h-2", &[]),
        ];
        let got = combine(&prev, &change, true).unwrap();
        assert_eq!(names(&got), ["g-1", "g-2", "h-2"]);
    }
}
