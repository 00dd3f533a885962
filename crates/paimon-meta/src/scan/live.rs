//! The live files of one snapshot, collected bucket by bucket while the manifests stream in.
//!
//! Java `FileEntry.mergeEntries` reconciles ADD and DELETE entries by `FileEntry.Identifier`,
//! which holds the partition and the bucket, so an entry can only cancel another one of its own
//! (partition, bucket). Each decoded entry is therefore moved straight into its bucket's vector
//! (the only copy of the file that planning keeps) and reconciled there once every manifest is
//! read; no list of all entries, and no second copy of the files, is ever alive. Each entry keeps
//! its position in the manifests so that buckets and partitions come out in the order Java's
//! `LinkedHashMap`s give them (first surviving entry first).

use std::collections::HashMap;
use std::mem::size_of;

use paimon_spec::data_file::DataFileMeta;

use super::memory::file_heap;

use crate::error::{Error, Result};
use crate::manifest::{FileKind, ManifestEntry};

/// Where an entry came from: its position over all manifests, its kind and the bucket count
/// written with it.
#[derive(Debug, Clone, Copy)]
struct Tag {
    pos: usize,
    kind: FileKind,
    total_buckets: i32,
}

/// The entries of one (partition, bucket), in manifest order; `tags[i]` describes `files[i]`.
#[derive(Debug)]
pub(super) struct LiveBucket {
    pub partition: Vec<u8>,
    pub bucket: i32,
    pub files: Vec<DataFileMeta>,
    tags: Vec<Tag>,
}

impl LiveBucket {
    /// Heap the bucket holds, its slot included; its files' own heap is
    /// [`LiveBucket::retain_files`]'s answer.
    pub fn heap(&self, files_heap: usize) -> usize {
        size_of::<LiveBucket>()
            + self.partition.capacity()
            + self.files.capacity() * size_of::<DataFileMeta>()
            + files_heap
            + self.tags.capacity() * size_of::<Tag>()
    }

    /// The bucket count written with the first remaining file (-1 when there is none).
    pub fn total_buckets(&self) -> i32 {
        self.tags.first().map_or(-1, |t| t.total_buckets)
    }

    /// Position of the first remaining file.
    fn first_pos(&self) -> Option<usize> {
        self.tags.first().map(|t| t.pos)
    }

    /// Keeps the files for which `keep` is true (it may also edit them), and returns the
    /// heap the kept files own ([`file_heap`] of each, measured after `keep`, in the same
    /// pass over the files).
    ///
    /// # Errors
    /// The first error of `keep`.
    pub fn retain_files(
        &mut self,
        keep: &mut dyn FnMut(&mut DataFileMeta) -> Result<bool>,
    ) -> Result<usize> {
        let mut flags = Vec::with_capacity(self.files.len());
        let mut kept_heap = 0;
        for f in &mut self.files {
            let k = keep(f)?;
            if k {
                kept_heap += file_heap(f);
            }
            flags.push(k);
        }
        self.retain_by(&flags);
        Ok(kept_heap)
    }

    fn retain_by(&mut self, flags: &[bool]) {
        if flags.iter().all(|k| *k) {
            return;
        }
        let mut i = 0;
        self.files.retain(|_| {
            i += 1;
            flags.get(i - 1).copied().unwrap_or(false)
        });
        let mut i = 0;
        self.tags.retain(|_| {
            i += 1;
            flags.get(i - 1).copied().unwrap_or(false)
        });
    }

    /// Java `FileEntry.mergeEntries` restricted to this bucket: keeps the live ADDs in the
    /// order of their positions.
    fn merge(&mut self) -> Result<()> {
        /// `FileEntry.Identifier` without the partition and bucket, which every entry here
        /// shares.
        #[derive(PartialEq, Eq, Hash)]
        struct Key<'a> {
            level: i32,
            file_name: &'a str,
            extra_files: &'a [String],
            embedded_index: Option<&'a [u8]>,
            external_path: Option<&'a str>,
        }
        if self.tags.iter().all(|t| t.kind == FileKind::Add) {
            return self.check_no_duplicate_adds();
        }
        let mut keep = vec![false; self.files.len()];
        {
            let mut map: HashMap<Key<'_>, usize> = HashMap::with_capacity(self.files.len());
            for (i, (f, t)) in self.files.iter().zip(&self.tags).enumerate() {
                let key = Key {
                    level: f.level,
                    file_name: &f.file_name,
                    extra_files: &f.extra_files,
                    embedded_index: f.embedded_index.as_deref(),
                    external_path: f.external_path.as_deref(),
                };
                match t.kind {
                    FileKind::Add => {
                        if map.insert(key, i).is_some() {
                            return Err(Error::corrupt(
                                f.file_name.clone(),
                                "manifest entries add the same file twice",
                            ));
                        }
                    }
                    FileKind::Delete => {
                        if map.remove(&key).is_none() {
                            map.insert(key, i);
                        }
                    }
                }
            }
            for i in map.into_values() {
                if let Some(k) = keep.get_mut(i) {
                    *k = true;
                }
            }
        }
        for (k, t) in keep.iter_mut().zip(&self.tags) {
            *k = *k && t.kind == FileKind::Add;
        }
        self.retain_by(&keep);
        self.files.shrink_to_fit();
        self.tags.shrink_to_fit();
        Ok(())
    }
}

impl LiveBucket {
    /// [`LiveBucket::merge`] of a bucket holding only ADDs: every file stays unless one is
    /// added twice (same identifier), found by sorting positions by file name instead of
    /// hashing every identifier.
    fn check_no_duplicate_adds(&mut self) -> Result<()> {
        let files = &self.files;
        let mut order: Vec<usize> = (0..files.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            let name = |i: usize| files.get(i).map(|f| f.file_name.as_str());
            name(a).cmp(&name(b))
        });
        for run in order.chunk_by(|&a, &b| {
            files.get(a).map(|f| &f.file_name) == files.get(b).map(|f| &f.file_name)
        }) {
            for (k, &a) in run.iter().enumerate() {
                for &b in run.iter().skip(k + 1) {
                    if let (Some(x), Some(y)) = (files.get(a), files.get(b)) {
                        if same_identifier(x, y) {
                            let later = if a < b { y } else { x };
                            return Err(Error::corrupt(
                                later.file_name.clone(),
                                "manifest entries add the same file twice",
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Whether two files of one bucket have the same `FileEntry.Identifier`.
fn same_identifier(a: &DataFileMeta, b: &DataFileMeta) -> bool {
    a.level == b.level
        && a.file_name == b.file_name
        && a.extra_files == b.extra_files
        && a.embedded_index == b.embedded_index
        && a.external_path == b.external_path
}

/// Entries routed to their (partition, bucket) as they are decoded.
#[derive(Debug, Default)]
pub(super) struct BucketAccumulator {
    slots: HashMap<Vec<u8>, HashMap<i32, usize>>,
    buckets: Vec<LiveBucket>,
    next_pos: usize,
    last: Option<usize>,
    /// Heap held, kept up to date by [`BucketAccumulator::push`].
    heap: usize,
}

impl BucketAccumulator {
    /// Moves `e`'s file into its bucket (freeing the entry's box).
    pub fn push(&mut self, e: ManifestEntry) {
        let pos = self.next_pos;
        self.next_pos += 1;
        let i = match self.last.filter(|&i| {
            self.buckets
                .get(i)
                .is_some_and(|b| b.bucket == e.bucket && b.partition == e.partition)
        }) {
            Some(i) => i,
            None => self.slot(e.partition, e.bucket),
        };
        self.last = Some(i);
        if let Some(b) = self.buckets.get_mut(i) {
            let before = b.files.capacity() * size_of::<DataFileMeta>()
                + b.tags.capacity() * size_of::<Tag>();
            b.tags.push(Tag {
                pos,
                kind: e.kind,
                total_buckets: e.total_buckets,
            });
            let file = *e.file;
            let own = file_heap(&file);
            b.files.push(file);
            let after = b.files.capacity() * size_of::<DataFileMeta>()
                + b.tags.capacity() * size_of::<Tag>();
            self.heap += own + after.saturating_sub(before);
        }
    }

    /// Heap the accumulated buckets hold (with the index from partition and bucket to slot,
    /// counted at two words and a copy of the partition per bucket).
    pub fn heap(&self) -> usize {
        self.heap
    }

    fn slot(&mut self, partition: Vec<u8>, bucket: i32) -> usize {
        if let Some(i) = self
            .slots
            .get(partition.as_slice())
            .and_then(|m| m.get(&bucket))
        {
            return *i;
        }
        let i = self.buckets.len();
        let capacity = self.buckets.capacity();
        self.heap += 2 * partition.capacity() + 2 * size_of::<usize>();
        self.slots
            .entry(partition.clone())
            .or_default()
            .insert(bucket, i);
        self.buckets.push(LiveBucket {
            partition,
            bucket,
            files: Vec::new(),
            tags: Vec::new(),
        });
        self.heap += (self.buckets.capacity() - capacity) * size_of::<LiveBucket>();
        i
    }

    /// Reconciles every bucket ([`LiveBucket::merge`]) and returns the buckets still holding
    /// files, unordered.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the data file when a file is added twice without a delete in
    /// between.
    pub fn merge(self) -> Result<Vec<LiveBucket>> {
        let mut out = Vec::with_capacity(self.buckets.len());
        for mut b in self.buckets {
            b.merge()?;
            if !b.files.is_empty() {
                out.push(b);
            }
        }
        Ok(out)
    }
}

/// Orders `buckets` as Java's grouping of the merged entries does: partitions by their first
/// file, then buckets by their first file; empty buckets are dropped.
/// Each bucket may carry a value `T` along.
pub(super) fn order<T>(buckets: Vec<(LiveBucket, T)>) -> Vec<(LiveBucket, T)> {
    let mut buckets: Vec<(usize, (LiveBucket, T))> = buckets
        .into_iter()
        .filter_map(|(b, t)| b.first_pos().map(|p| (p, (b, t))))
        .collect();
    let mut partition_first: HashMap<&[u8], usize> = HashMap::new();
    for (p, (b, _)) in &buckets {
        let e = partition_first.entry(b.partition.as_slice()).or_insert(*p);
        *e = (*e).min(*p);
    }
    let mut keys: Vec<(usize, usize)> = buckets
        .iter()
        .map(|(p, (b, _))| {
            (
                partition_first
                    .get(b.partition.as_slice())
                    .copied()
                    .unwrap_or(*p),
                *p,
            )
        })
        .collect();
    drop(partition_first);
    // Positions are unique, so (partition first, bucket first) orders without ties.
    let mut idx: Vec<usize> = (0..buckets.len()).collect();
    idx.sort_by_key(|&i| keys.get(i).copied().unwrap_or_default());
    keys.clear();
    let mut slots: Vec<Option<(LiveBucket, T)>> = buckets.drain(..).map(|(_, b)| Some(b)).collect();
    idx.into_iter()
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use paimon_spec::stats::{empty_row_bytes, SimpleStats};

    /// A one-row level-0 data file `name` with empty statistics (shared by the crate's tests).
    pub(crate) fn file(name: &str) -> DataFileMeta {
        DataFileMeta {
            file_name: name.into(),
            file_size: 1,
            row_count: 1,
            min_key: empty_row_bytes(),
            max_key: empty_row_bytes(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::empty(),
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            level: 0,
            extra_files: vec![],
            creation_time: None,
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: None,
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
            write_cols_sequences: None,
        }
    }

    fn entry(kind: FileKind, partition: u8, bucket: i32, name: &str) -> ManifestEntry {
        ManifestEntry {
            kind,
            partition: vec![partition],
            bucket,
            total_buckets: 4,
            file: Box::new(file(name)),
        }
    }

    fn names(b: &LiveBucket) -> Vec<&str> {
        b.files.iter().map(|f| f.file_name.as_str()).collect()
    }

    /// Entries of `FileEntry.mergeEntries` examples worked by hand: a DELETE in a later
    /// manifest cancels its ADD, a file deleted then added again moves to the end, and the
    /// partition whose first file was deleted is ordered by its first live file.
    #[test]
    fn merges_and_orders_like_the_merged_list() {
        let mut acc = BucketAccumulator::default();
        for e in [
            entry(FileKind::Add, 1, 0, "a"),
            entry(FileKind::Add, 2, 0, "b"),
            entry(FileKind::Add, 1, 1, "c"),
            entry(FileKind::Add, 1, 0, "d"),
            entry(FileKind::Delete, 1, 0, "a"),
            entry(FileKind::Delete, 1, 1, "c"),
            entry(FileKind::Add, 1, 1, "c"),
            entry(FileKind::Delete, 2, 1, "gone"),
        ] {
            acc.push(e);
        }
        let out = order(acc.merge().unwrap().into_iter().map(|b| (b, ())).collect());
        // Merged list: b(2/0) d(1/0) c(1/1): partition 2 first, then 1 with buckets 0, 1.
        let got: Vec<(u8, i32, Vec<&str>)> = out
            .iter()
            .map(|(b, _)| (b.partition[0], b.bucket, names(b)))
            .collect();
        assert_eq!(
            got,
            vec![(2, 0, vec!["b"]), (1, 0, vec!["d"]), (1, 1, vec!["c"])]
        );
        assert!(out.iter().all(|(b, _)| b.total_buckets() == 4));
    }

    #[test]
    fn a_file_added_twice_is_corrupt() {
        let mut acc = BucketAccumulator::default();
        acc.push(entry(FileKind::Add, 1, 0, "a"));
        acc.push(entry(FileKind::Add, 1, 0, "a"));
        let e = acc.merge().unwrap_err().to_string();
        assert!(e.contains("add the same file twice"), "{e}");
        // The same name at another level is another identifier (Java `FileEntry.Identifier`).
        let mut acc = BucketAccumulator::default();
        acc.push(entry(FileKind::Add, 1, 0, "a"));
        let mut other = entry(FileKind::Add, 1, 0, "a");
        other.file.level = 1;
        acc.push(other);
        let out = acc.merge().unwrap();
        assert_eq!(out.iter().map(|b| b.files.len()).sum::<usize>(), 2);
    }

    /// Random ADD/DELETE streams (no file added twice while live) give the files, buckets and
    /// order of [`crate::scan::merge_entries`] over the whole list followed by grouping by
    /// partition, then bucket, in first-appearance order.
    #[test]
    fn matches_merging_the_whole_list() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..200 {
            let mut live: Vec<(u8, i32, String)> = Vec::new();
            let mut list = Vec::new();
            for k in 0..next(40) {
                let p = u8::try_from(next(3)).unwrap();
                let b = i32::try_from(next(3)).unwrap();
                if !live.is_empty() && next(3) == 0 {
                    let (p, b, n) = live.remove(usize::try_from(next(live.len() as u64)).unwrap());
                    list.push(entry(FileKind::Delete, p, b, &n));
                } else if next(8) == 0 {
                    list.push(entry(FileKind::Delete, p, b, &format!("old{k}")));
                } else {
                    let n = format!("f{k}");
                    live.push((p, b, n.clone()));
                    list.push(entry(FileKind::Add, p, b, &n));
                }
            }
            let merged = crate::scan::merge_entries(list.clone()).unwrap();
            let mut expected: Vec<(u8, i32, Vec<String>)> = Vec::new();
            let mut parts: Vec<u8> = Vec::new();
            for e in &merged {
                if !parts.contains(&e.partition[0]) {
                    parts.push(e.partition[0]);
                }
            }
            for p in parts {
                for e in merged.iter().filter(|e| e.partition[0] == p) {
                    let name = e.file.file_name.clone();
                    match expected.iter_mut().find(|x| x.0 == p && x.1 == e.bucket) {
                        Some(x) => x.2.push(name),
                        None => expected.push((p, e.bucket, vec![name])),
                    }
                }
            }
            let mut acc = BucketAccumulator::default();
            for e in list {
                acc.push(e);
            }
            let buckets = acc.merge().unwrap().into_iter().map(|b| (b, ())).collect();
            let got: Vec<(u8, i32, Vec<String>)> = order(buckets)
                .iter()
                .map(|(b, _)| {
                    let names = b.files.iter().map(|f| f.file_name.clone()).collect();
                    (b.partition[0], b.bucket, names)
                })
                .collect();
            assert_eq!(got, expected);
        }
    }
}
