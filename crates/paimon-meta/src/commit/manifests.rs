//! Writing the manifest files of a commit and merging the base manifest list (Java
//! `ManifestFile.write`, `ManifestFileMeta` stats, `ManifestFileMerger`).

use std::collections::HashMap;

use paimon_io::FileIORef;
use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::layout::{self, TableLayout};
use paimon_spec::predicate::compare_datums;
use paimon_spec::stats::{ColStats, SimpleStats};
use paimon_spec::types::DataField;

use crate::error::{Error, Result};
use crate::manifest::encode::ManifestWriteOptions;
use crate::manifest::{FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta};
use crate::scan::merge_entries;

/// Writes the manifest-family files of one commit attempt under one random UUID, remembering
/// every file it wrote so that a failed attempt can remove them.
pub(super) struct ManifestWriter {
    pub io: FileIORef,
    pub layout: TableLayout,
    pub format: ManifestWriteOptions,
    pub partition_fields: Vec<DataField>,
    pub schema_id: i64,
    pub uuid: String,
    pub target_size: u64,
    counters: [u64; 3],
    pub written: Vec<String>,
}

impl ManifestWriter {
    pub fn new(
        io: FileIORef,
        layout: TableLayout,
        format: ManifestWriteOptions,
        partition_fields: Vec<DataField>,
        schema_id: i64,
        target_size: u64,
    ) -> Self {
        ManifestWriter {
            io,
            layout,
            format,
            partition_fields,
            schema_id,
            uuid: super::random_uuid(),
            target_size,
            counters: [0; 3],
            written: Vec::new(),
        }
    }

    fn next(&mut self, kind: usize) -> String {
        let n = self.counters[kind];
        self.counters[kind] += 1;
        match kind {
            0 => layout::manifest_file_name(&self.uuid, n),
            1 => layout::manifest_list_file_name(&self.uuid, n),
            _ => layout::index_manifest_file_name(&self.uuid, n),
        }
    }

    fn put(&mut self, name: &str, bytes: Vec<u8>) -> Result<i64> {
        let path = self.layout.manifest_path(name);
        let len = bytes.len() as i64;
        self.written.push(path.clone());
        self.io.write_new(&path, &bytes).map_err(Error::io)?;
        Ok(len)
    }

    /// Writes `entries` as manifests rolled near the target size (Java
    /// `RollingFileWriter` over `ManifestFile`), returning their list entries.
    pub fn write_manifests(&mut self, entries: &[ManifestEntry]) -> Result<Vec<ManifestFileMeta>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        // A manifest entry takes a few hundred bytes compressed; roll by entry count.
        let per_file = (self.target_size / 256).max(1) as usize;
        let mut out = Vec::new();
        for chunk in entries.chunks(per_file) {
            let name = self.next(0);
            let bytes = self
                .format
                .manifest(&self.layout.manifest_path(&name), chunk)?;
            let size = self.put(&name, bytes)?;
            out.push(self.meta_of(&name, size, chunk)?);
        }
        Ok(out)
    }

    /// Writes a manifest list and returns its name and size.
    pub fn write_list(&mut self, metas: &[ManifestFileMeta]) -> Result<(String, i64)> {
        let name = self.next(1);
        let bytes = self
            .format
            .manifest_list(&self.layout.manifest_path(&name), metas)?;
        let size = self.put(&name, bytes)?;
        Ok((name, size))
    }

    /// Writes an index manifest and returns its name.
    pub fn write_index_manifest(&mut self, entries: &[IndexManifestEntry]) -> Result<String> {
        let name = self.next(2);
        let bytes = self
            .format
            .index_manifest(&self.layout.manifest_path(&name), entries)?;
        self.put(&name, bytes)?;
        Ok(name)
    }

    /// Deletes every file this writer created (best effort: a file left behind is an orphan
    /// no snapshot references).
    pub fn clean_up(&mut self) {
        for p in self.written.drain(..) {
            let _ = self.io.delete(&p);
        }
    }

    /// Java `ManifestFile.write`'s meta: counts, partition stats over the entries' partitions,
    /// bucket and level ranges, row-id range when every file has one.
    fn meta_of(
        &self,
        name: &str,
        size: i64,
        entries: &[ManifestEntry],
    ) -> Result<ManifestFileMeta> {
        let added = entries.iter().filter(|e| e.kind == FileKind::Add).count() as i64;
        let types: Vec<_> = self
            .partition_fields
            .iter()
            .map(|f| f.data_type.clone())
            .collect();
        let mut cols: Vec<(Option<Datum>, Option<Datum>, i64)> = vec![(None, None, 0); types.len()];
        let mut seen: HashMap<&[u8], ()> = HashMap::new();
        for e in entries {
            if seen.insert(&e.partition, ()).is_some() {
                continue;
            }
            let values = BinaryRow::from_serialized(&e.partition)
                .and_then(|r| r.to_datums(&types))
                .map_err(|err| Error::spec(name, err))?;
            for (c, v) in cols.iter_mut().zip(values) {
                if v == Datum::Null {
                    c.2 += 1;
                    continue;
                }
                let less =
                    |a: &Datum, b: &Datum| compare_datums(a, b) == Some(std::cmp::Ordering::Less);
                if c.0.as_ref().is_none_or(|m| less(&v, m)) {
                    c.0 = Some(v.clone());
                }
                if c.1.as_ref().is_none_or(|m| less(m, &v)) {
                    c.1 = Some(v);
                }
            }
        }
        let stats: Vec<ColStats> = cols
            .into_iter()
            .map(|(min, max, n)| {
                ColStats::new(
                    min.unwrap_or(Datum::Null),
                    max.unwrap_or(Datum::Null),
                    Some(n),
                )
            })
            .collect();
        let (partition_stats, _) =
            SimpleStats::from_col_stats(&self.partition_fields, &stats, false)
                .map_err(|e| Error::spec(name, e))?;
        let mut row_ids: Option<Vec<(i64, i64)>> = Some(Vec::with_capacity(entries.len()));
        for e in entries {
            let (Some(f), Some(ids)) = (e.file.first_row_id, row_ids.as_mut()) else {
                row_ids = None;
                continue;
            };
            let last = e
                .file
                .row_count
                .checked_sub(1)
                .and_then(|n| f.checked_add(n))
                .ok_or_else(|| {
                    Error::corrupt(
                        name,
                        format!(
                            "data file {} has first row id {f} and {} rows: its last row id \
                             overflows",
                            e.file.file_name, e.file.row_count
                        ),
                    )
                })?;
            ids.push((f, last));
        }
        Ok(ManifestFileMeta {
            file_name: name.to_string(),
            file_size: size,
            num_added_files: added,
            num_deleted_files: entries.len() as i64 - added,
            partition_stats,
            schema_id: self.schema_id,
            min_bucket: entries.iter().map(|e| e.bucket).min(),
            max_bucket: entries.iter().map(|e| e.bucket).max(),
            min_level: entries.iter().map(|e| e.file.level).min(),
            max_level: entries.iter().map(|e| e.file.level).max(),
            min_row_id: row_ids.as_ref().and_then(|r| r.iter().map(|x| x.0).min()),
            max_row_id: row_ids.and_then(|r| r.iter().map(|x| x.1).max()),
            // We write no manifest sidecar; Java and paimon-rust read a manifest without one.
            total_buckets: None,
            extra_files: None,
        })
    }

    /// Reads the entries of one manifest.
    pub fn read_manifest(&self, name: &str) -> Result<Vec<ManifestEntry>> {
        let path = self.layout.manifest_path(name);
        let bytes = self.io.read(&path).map_err(Error::io)?;
        ManifestEntry::decode_manifest(&path, bytes)
    }

    /// Java `ManifestFileMerger.merge`: a full compaction when the manifests worth rewriting
    /// (small ones, or ones holding DELETE entries) reach `full_threshold` bytes, else a minor
    /// compaction merging runs of small manifests once they reach the target size, and the
    /// trailing run when it holds at least `min_count` files.
    pub fn merge(
        &mut self,
        input: Vec<ManifestFileMeta>,
        min_count: usize,
        full_threshold: u64,
    ) -> Result<Vec<ManifestFileMeta>> {
        let target = self.target_size as i64;
        let mut delta = 0i64;
        for m in input
            .iter()
            .filter(|m| m.file_size < target || m.num_deleted_files > 0)
        {
            delta = add_size(delta, m)?;
        }
        if delta >= full_threshold as i64 {
            let mut all = Vec::new();
            for m in &input {
                all.extend(self.read_manifest(&m.file_name)?);
            }
            let live = merge_entries(all)?;
            return self.write_manifests(&live);
        }
        let mut out = Vec::new();
        let mut run: Vec<ManifestFileMeta> = Vec::new();
        let mut run_size = 0i64;
        for m in input {
            if m.file_size >= target {
                out.push(m);
                continue;
            }
            run_size = add_size(run_size, &m)?;
            run.push(m);
            if run_size >= target {
                out.extend(self.merge_run(std::mem::take(&mut run))?);
                run_size = 0;
            }
        }
        if run.len() >= min_count {
            out.extend(self.merge_run(run)?);
        } else {
            out.extend(run);
        }
        Ok(out)
    }

    /// Rewrites a run of manifests as one, applying its DELETE entries to its ADDs; DELETEs of
    /// files added before the run stay.
    fn merge_run(&mut self, run: Vec<ManifestFileMeta>) -> Result<Vec<ManifestFileMeta>> {
        if run.len() <= 1 {
            return Ok(run);
        }
        let mut all = Vec::new();
        for m in &run {
            all.extend(self.read_manifest(&m.file_name)?);
        }
        let merged = merge_keeping_deletes(all);
        self.write_manifests(&merged)
    }
}

/// `sum + m.file_size`, refusing a negative size or a sum that overflows (a manifest list
/// recording hostile sizes) rather than wrapping.
fn add_size(sum: i64, m: &ManifestFileMeta) -> Result<i64> {
    if m.file_size < 0 {
        return Err(Error::corrupt(
            &m.file_name,
            format!("the manifest list records a size of {} bytes", m.file_size),
        ));
    }
    sum.checked_add(m.file_size).ok_or_else(|| {
        Error::corrupt(
            &m.file_name,
            format!(
                "the manifest list records a size of {} bytes, which overflows the sum of \
                 the manifests to merge",
                m.file_size
            ),
        )
    })
}

/// ADD/DELETE pairs inside `entries` cancel; unmatched DELETEs are kept (they retire files of
/// earlier manifests), in order (Java `FileEntry.mergeEntries` into a `LinkedHashMap`).
pub(super) fn merge_keeping_deletes(entries: Vec<ManifestEntry>) -> Vec<ManifestEntry> {
    let mut keep = vec![true; entries.len()];
    {
        let mut added = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            match e.kind {
                FileKind::Add => {
                    added.insert(e.identifier(), i);
                }
                FileKind::Delete => {
                    if let Some(j) = added.remove(&e.identifier()) {
                        keep[j] = false;
                        keep[i] = false;
                    }
                }
            }
        }
    }
    let mut i = 0;
    let mut entries = entries;
    entries.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    entries
}

#[cfg(test)]
#[path = "manifests_overflow_tests.rs"]
mod overflow_tests;
