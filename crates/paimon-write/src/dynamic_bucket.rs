//! Bucket assignment and hash indexes of dynamic-bucket primary-key tables (`bucket = -1`;
//! Java `HashBucketAssigner`, `PartitionIndex`, `DynamicBucketIndexMaintainer`).
//!
//! Every (partition, bucket) of such a table has a hash index file listing the hashes of its
//! keys. A writer loads a partition's files the first time it writes there, then:
//! 1. a key whose hash is known goes to the bucket that holds it, so updates and deletes meet
//!    the row they replace;
//! 2. a new key goes to the first bucket (lowest id) holding fewer than
//!    `dynamic-bucket.target-row-num` keys;
//! 3. else to a new bucket, the lowest unused id, while `dynamic-bucket.max-buckets` allows;
//! 4. else to one of the partition's buckets: Java picks at random, this writer picks by the
//!    hash, which is as valid (the choice is recorded in the index either way).
//!
//! At `prepare_commit` each bucket whose set of hashes grew gets a new index file with all of
//! them, which the commit puts in place of the bucket's previous one.
//!
//! This is one assigner (Java's `numAssigners = 1`): a table takes one writer at a time, as
//! Java's own dynamic-bucket mode requires. Two writers assigning new keys at once could put
//! one key in two buckets, and the second commit's index files would replace the first's.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use paimon_io::FileIORef;
use paimon_spec::hash_index::{decode_hash_index, encode_hash_index};
use paimon_spec::index_file::{IndexFileMeta, HASH_INDEX};
use paimon_spec::layout::{self, TableLayout};

use crate::error::{Error, Result};

/// A serialized partition and a bucket.
type BucketKey = (Vec<u8>, i32);

/// A partition's committed index files with their buckets.
type BucketFiles = Vec<(i32, IndexFileMeta)>;

/// The assigner of one writer.
#[derive(Debug)]
pub(crate) struct DynamicBuckets {
    table: String,
    root: String,
    file_io: FileIORef,
    target_row_num: i64,
    /// `dynamic-bucket.max-buckets`, -1 for no bound.
    max_buckets: i32,
    /// The largest bucket this writer has assigned in any partition (Java `maxBucketId`).
    max_bucket_id: i32,
    /// The committed hash index files by partition; `None` until the caller has given them.
    committed: Option<HashMap<Vec<u8>, BucketFiles>>,
    partitions: HashMap<Vec<u8>, PartitionIndex>,
    /// One name prefix per writer and a counter, as Java's `IndexPathFactory`.
    file_prefix: String,
    next_file: u64,
    /// Index files written by a `prepare_commit` not yet returned.
    pending: Vec<String>,
}

#[derive(Debug, Default)]
struct PartitionIndex {
    hash_to_bucket: HashMap<i32, i32>,
    /// Keys per bucket, for the buckets that may still take keys (ascending, as Java's map of
    /// small integers iterates).
    non_full: BTreeMap<i32, i64>,
    /// Every bucket of the partition, in the order they were found or made.
    all: Vec<i32>,
    all_set: BTreeSet<i32>,
    /// The hashes of every bucket of the partition, and whether they grew.
    hashes: HashMap<i32, BucketHashes>,
}

#[derive(Debug, Default)]
struct BucketHashes {
    hashes: HashSet<i32>,
    modified: bool,
}

impl DynamicBuckets {
    pub(crate) fn new(
        table: &str,
        root: &str,
        file_io: FileIORef,
        target_row_num: i64,
        max_buckets: i32,
    ) -> Self {
        DynamicBuckets {
            table: table.to_string(),
            root: root.to_string(),
            file_io,
            target_row_num,
            max_buckets,
            max_bucket_id: 0,
            committed: None,
            partitions: HashMap::new(),
            file_prefix: uuid::Uuid::new_v4().to_string(),
            next_file: 0,
            pending: Vec::new(),
        }
    }

    /// The committed hash index files the assignment starts from; an empty list for a new
    /// table or an overwrite (which replaces what the index describes).
    pub(crate) fn set_committed(&mut self, files: impl IntoIterator<Item = BucketIndexFile>) {
        let mut by_partition: HashMap<Vec<u8>, BucketFiles> = HashMap::new();
        for (partition, bucket, meta) in files {
            if meta.index_type == HASH_INDEX {
                by_partition
                    .entry(partition)
                    .or_default()
                    .push((bucket, meta));
            }
        }
        self.committed = Some(by_partition);
        self.partitions.clear();
    }

    /// The bucket of each row, given its partition and key hash; records each key in its
    /// bucket's index.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the committed index was not given; [`Error::Io`] or
    /// [`Error::Spec`] when an index file cannot be read; [`Error::Unsupported`] when the
    /// partition has no room left (`max-buckets` unbounded and 32,767 buckets full).
    pub(crate) fn assign(&mut self, partitions: &[&[u8]], hashes: &[i32]) -> Result<Vec<i32>> {
        let mut out = Vec::with_capacity(hashes.len());
        for (partition, hash) in partitions.iter().zip(hashes) {
            if !self.partitions.contains_key(*partition) {
                self.load(partition)?;
            }
            let bucket = self.assign_one(partition, *hash)?;
            self.max_bucket_id = self.max_bucket_id.max(bucket);
            let b = self
                .partitions
                .get_mut(*partition)
                .ok_or_else(|| Error::Internal("partition index vanished".into()))?
                .hashes
                .entry(bucket)
                .or_default();
            if b.hashes.insert(*hash) {
                b.modified = true;
            }
            out.push(bucket);
        }
        Ok(out)
    }

    fn assign_one(&mut self, partition: &[u8], hash: i32) -> Result<i32> {
        let global_max = if self.max_buckets == -1 {
            i32::from(i16::MAX)
        } else {
            self.max_buckets
        } - 1;
        let target = self.target_row_num;
        let max_bucket_id = self.max_bucket_id;
        let index = self
            .partitions
            .get_mut(partition)
            .ok_or_else(|| Error::Internal("partition index vanished".into()))?;
        if let Some(b) = index.hash_to_bucket.get(&hash) {
            return Ok(*b);
        }
        // Full buckets leave the front as they are passed, as Java's iterator removes them.
        while let Some(mut first) = index.non_full.first_entry() {
            if *first.get() < target {
                *first.get_mut() += 1;
                let b = *first.key();
                index.hash_to_bucket.insert(hash, b);
                return Ok(b);
            }
            first.remove();
        }
        if index.all.is_empty() || max_bucket_id < global_max {
            if let Some(b) = (0..=global_max).find(|b| !index.all_set.contains(b)) {
                index.non_full.insert(b, 1);
                index.all.push(b);
                index.all_set.insert(b);
                index.hash_to_bucket.insert(hash, b);
                return Ok(b);
            }
            if self.max_buckets == -1 {
                return Err(Error::Unsupported {
                    feature: format!(
                        "table {}: every one of {} dynamic buckets of a partition holds \
                         dynamic-bucket.target-row-num = {target} keys; raise that option",
                        self.table,
                        global_max + 1
                    ),
                });
            }
        }
        let b = index.all[(hash.unsigned_abs() as usize) % index.all.len()];
        index.hash_to_bucket.insert(hash, b);
        Ok(b)
    }

    /// Reads the committed index files of `partition` (Java `PartitionIndex.loadIndex`).
    fn load(&mut self, partition: &[u8]) -> Result<()> {
        let committed = self.committed.as_ref().ok_or_else(|| Error::Unsupported {
            feature: format!(
                "table {}: a dynamic-bucket table's writer needs the committed hash index \
                 first (TableWrite::with_hash_index, from paimon-meta's Table::hash_index_files; \
                 an empty list for an overwrite)",
                self.table
            ),
        })?;
        let mut index = PartitionIndex::default();
        for (bucket, meta) in committed.get(partition).map(Vec::as_slice).unwrap_or(&[]) {
            let path = match &meta.external_path {
                Some(p) => p.clone(),
                None => TableLayout::new(&self.root).index_path(&meta.file_name),
            };
            let bytes = self.file_io.read(&path).map_err(|source| Error::Io {
                table: self.table.clone(),
                path: path.clone(),
                source,
            })?;
            let hashes = decode_hash_index(&path, &bytes).map_err(|source| Error::Encode {
                table: self.table.clone(),
                source,
            })?;
            for h in &hashes {
                index.hash_to_bucket.insert(*h, *bucket);
            }
            *index.non_full.entry(*bucket).or_default() += hashes.len() as i64;
            if index.all_set.insert(*bucket) {
                index.all.push(*bucket);
            }
            index
                .hashes
                .entry(*bucket)
                .or_default()
                .hashes
                .extend(hashes);
        }
        self.partitions.insert(partition.to_vec(), index);
        Ok(())
    }

    /// Writes a new index file for `key` if its hashes grew since the last call (Java
    /// `DynamicBucketIndexMaintainer.prepareCommit`).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be written.
    pub(crate) fn prepare_commit(&mut self, key: &BucketKey) -> Result<Option<IndexFileMeta>> {
        let Some(b) = self
            .partitions
            .get_mut(&key.0)
            .and_then(|p| p.hashes.get_mut(&key.1))
        else {
            return Ok(None);
        };
        if !b.modified {
            return Ok(None);
        }
        let name = layout::index_file_name(&self.file_prefix, self.next_file);
        self.next_file += 1;
        let path = TableLayout::new(&self.root).index_path(&name);
        let bytes = encode_hash_index(b.hashes.iter().copied());
        self.file_io
            .write_new(&path, &bytes)
            .map_err(|source| Error::Io {
                table: self.table.clone(),
                path: path.clone(),
                source,
            })?;
        self.pending.push(path);
        b.modified = false;
        Ok(Some(IndexFileMeta {
            index_type: HASH_INDEX.to_string(),
            file_name: name,
            file_size: bytes.len() as i64,
            row_count: b.hashes.len() as i64,
            dv_ranges: None,
            external_path: None,
            global_index: None,
        }))
    }

    /// The index files of the last `prepare_commit` were handed out.
    pub(crate) fn handed_out(&mut self) {
        self.pending.clear();
    }

    /// Deletes the index files of a `prepare_commit` that did not return.
    pub(crate) fn abort(&mut self) {
        for path in self.pending.drain(..) {
            let _ = self.file_io.delete(&path);
        }
    }
}

/// A committed index file of a (serialized partition, bucket).
pub type BucketIndexFile = (Vec<u8>, i32, IndexFileMeta);

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn assigner(dir: &std::path::Path, target: i64, max_buckets: i32) -> DynamicBuckets {
        DynamicBuckets::new(
            "t",
            dir.to_str().unwrap(),
            Arc::new(paimon_io::LocalFileIO::new()),
            target,
            max_buckets,
        )
    }

    /// Java `PartitionIndex.assign`: known hashes keep their bucket, new ones fill the lowest
    /// bucket to the target, then the lowest unused id opens, per partition.
    #[test]
    fn buckets_fill_to_the_target_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = assigner(dir.path(), 2, -1);
        a.set_committed(Vec::new());
        let p: &[u8] = b"p1p1";
        let q: &[u8] = b"q1q1";
        let got = a
            .assign(&[p, p, p, p, p, q, p], &[10, 11, 10, 12, 13, 10, 14])
            .unwrap();
        assert_eq!(got, vec![0, 0, 0, 1, 1, 0, 2]);
        let written = a.prepare_commit(&(p.to_vec(), 0)).unwrap().unwrap();
        assert_eq!(
            (written.index_type.as_str(), written.row_count),
            (HASH_INDEX, 2)
        );
        let bytes = std::fs::read(dir.path().join("index").join(&written.file_name)).unwrap();
        let mut hashes = decode_hash_index("f", &bytes).unwrap();
        hashes.sort();
        assert_eq!(hashes, vec![10, 11]);
        // Nothing new since: no second file.
        assert!(a.prepare_commit(&(p.to_vec(), 0)).unwrap().is_none());

        // A restored index: its hashes keep their buckets, and counts go on from the file.
        let mut b = assigner(dir.path(), 2, -1);
        b.set_committed(vec![(p.to_vec(), 0, written)]);
        assert_eq!(b.assign(&[p, p, p], &[11, 20, 21]).unwrap(), vec![0, 1, 1]);
    }

    /// With `max-buckets` reached, new keys go to an existing bucket and stay there.
    #[test]
    fn max_buckets_bound_the_partition() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = assigner(dir.path(), 1, 2);
        a.set_committed(Vec::new());
        let p: &[u8] = b"p1p1";
        let got = a.assign(&[p, p, p, p, p], &[1, 2, 3, 4, 3]).unwrap();
        assert_eq!(&got[..2], &[0, 1]);
        assert!(got[2..].iter().all(|b| *b == 0 || *b == 1), "{got:?}");
        assert_eq!(got[2], got[4]);
    }

    #[test]
    fn writing_before_the_index_is_given_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = assigner(dir.path(), 2, -1);
        let err = a.assign(&[b"p1p1"], &[1]).unwrap_err();
        assert!(err.to_string().contains("hash index"), "{err}");
    }
}
