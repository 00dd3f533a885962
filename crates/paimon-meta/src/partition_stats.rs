//! Per-partition (and per-bucket) sums over the latest snapshot's manifests, as Java 1.4.2's
//! `FileStoreScan.readPartitionEntries` / `readBucketEntries` compute them (what
//! `Catalog.listPartitions`, the `partitions` and `buckets` system tables and the REST
//! server's partition listing show).
//!
//! Java sums the manifest entries without reconciling them: an ADD entry counts, a DELETE
//! entry subtracts, and the newest creation time of any entry (deleted files included) is the
//! partition's last file creation time. Keys left without files are dropped.

use std::collections::{BTreeMap, HashMap};

use paimon_spec::binary::Datum;
use paimon_spec::layout::{self, POSTPONE_BUCKET};

use crate::error::{Error, Result};
use crate::java_time::epoch_millis_of_local;
use crate::manifest::{FileKind, ManifestEntry, ManifestFileMeta};
use crate::scan::PartitionDecoder;
use crate::table::Table;

/// The sums of one partition, or of one bucket of it (Java `PartitionEntry` / `BucketEntry`).
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionEntry {
    /// The serialized partition row.
    pub partition: Vec<u8>,
    /// The partition's values, typed by the table's partition columns.
    pub values: Vec<Datum>,
    /// The bucket (0 when summed per partition).
    pub bucket: i32,
    /// Rows of the files added less those of the files deleted.
    pub record_count: i64,
    /// Bytes of the files added less those of the files deleted.
    pub file_size_in_bytes: i64,
    /// Files added less files deleted.
    pub file_count: i64,
    /// The bucket count the last entry summed was written with (Java takes the later
    /// entry's when merging).
    pub total_buckets: i32,
    /// The newest creation time of any entry, epoch millis (Java
    /// `DataFileMeta.creationTimeEpochMillis`: the wall-clock time read in this machine's time
    /// zone); `None` when no entry has one.
    pub last_file_creation_time: Option<i64>,
}

impl PartitionEntry {
    fn add(&mut self, e: &ManifestEntry) {
        let sign = match e.kind {
            FileKind::Add => 1,
            FileKind::Delete => -1,
        };
        self.record_count += sign * e.file.row_count;
        self.file_size_in_bytes += sign * e.file.file_size;
        self.file_count += sign;
        self.total_buckets = e.total_buckets;
        if let Some(t) = e.file.creation_time {
            let t = epoch_millis_of_local(t);
            self.last_file_creation_time =
                Some(self.last_file_creation_time.map_or(t, |c| c.max(t)));
        }
    }

    /// The partition as Java's `InternalRowPartitionComputer.generatePartValues` names it:
    /// each partition column with its value's text, a null or blank value named
    /// `partition.default-name`.
    pub fn spec(&self, table: &Table) -> BTreeMap<String, String> {
        let opts = table.options();
        table
            .schema()
            .partition_fields()
            .iter()
            .zip(&self.values)
            .map(|(f, v)| {
                let text = layout::partition_value_text(v, opts.partition_legacy_name)
                    .flatten()
                    .filter(|t| !t.trim().is_empty())
                    .unwrap_or_else(|| opts.partition_default_name.clone());
                (f.name.clone(), text)
            })
            .collect()
    }
}

impl Table {
    /// The partitions of the latest snapshot with their sums, in the order each first appears
    /// in the manifests (Java `listPartitionEntries`; a postpone-bucket table's real buckets
    /// only, as Java's batch scan reads them). Empty without a snapshot.
    ///
    /// # Errors
    /// Storage errors; corrupt manifests.
    pub fn partition_entries(&self) -> Result<Vec<PartitionEntry>> {
        let real_buckets_only = self.options().bucket == POSTPONE_BUCKET;
        self.entry_sums(|e| !real_buckets_only || e.bucket >= 0, false)
    }

    /// The buckets of the latest snapshot with their sums, by partition and bucket (Java
    /// `BucketsTable`).
    ///
    /// # Errors
    /// As [`Table::partition_entries`].
    pub fn bucket_entries(&self) -> Result<Vec<PartitionEntry>> {
        self.entry_sums(|_| true, true)
    }

    /// The manifests of the latest snapshot: its base list, then its delta list (Java
    /// `ManifestList.readDataManifests`), then with `changelog` its changelog list
    /// (`readAllManifests`); none without a snapshot.
    ///
    /// # Errors
    /// Storage errors; corrupt manifest lists.
    pub fn latest_manifests(&self, changelog: bool) -> Result<Vec<ManifestFileMeta>> {
        let Some(snapshot) = self.snapshot_manager().latest()? else {
            return Ok(Vec::new());
        };
        let mut lists = vec![&snapshot.base_manifest_list, &snapshot.delta_manifest_list];
        if let Some(c) = snapshot
            .changelog_manifest_list
            .as_ref()
            .filter(|_| changelog)
        {
            lists.push(c);
        }
        let mut out = Vec::new();
        for list in lists {
            let path = self.layout().manifest_path(list);
            let bytes = self.file_io().read(&path).map_err(Error::io)?;
            out.extend(ManifestFileMeta::decode_list(&path, bytes)?);
        }
        Ok(out)
    }

    fn entry_sums(
        &self,
        keep: impl Fn(&ManifestEntry) -> bool,
        by_bucket: bool,
    ) -> Result<Vec<PartitionEntry>> {
        let decoder = PartitionDecoder::new(self.schema().partition_fields());
        let mut index: HashMap<(Vec<u8>, i32), usize> = HashMap::new();
        let mut out: Vec<PartitionEntry> = Vec::new();
        for m in self.latest_manifests(false)? {
            let path = self.layout().manifest_path(&m.file_name);
            let bytes = self.file_io().read(&path).map_err(Error::io)?;
            for e in ManifestEntry::decode_manifest(&path, bytes)? {
                if !keep(&e) {
                    continue;
                }
                let bucket = if by_bucket { e.bucket } else { 0 };
                let i = *index
                    .entry((e.partition.clone(), bucket))
                    .or_insert_with(|| {
                        out.push(PartitionEntry {
                            partition: e.partition.clone(),
                            values: Vec::new(),
                            bucket,
                            record_count: 0,
                            file_size_in_bytes: 0,
                            file_count: 0,
                            total_buckets: 0,
                            last_file_creation_time: None,
                        });
                        out.len() - 1
                    });
                out[i].add(&e);
            }
        }
        out.into_iter()
            .filter(|p| p.file_count > 0)
            .map(|mut p| {
                p.values = decoder
                    .decode(&p.partition)
                    .map_err(|e| Error::spec(self.layout().manifest_dir(), e))?;
                Ok(p)
            })
            .collect()
    }
}
