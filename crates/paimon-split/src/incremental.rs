//! Incremental-diff splits in their two Java shapes.
//!
//! A batch incremental diff (Java `incremental-between` with two tags, or the `diff` scan mode)
//! hands the reader, per bucket, the files only in the start snapshot (*before*) and the files
//! only in the end snapshot (*after*). Java up to 1.3 shipped that as a [`DataSplit`] whose
//! `beforeFiles` are set (the after files are its data files); Java 1.4 moved it to its own
//! class, [`IncrementalSplit`], which 1.4 - 2.0 ship as a Java object stream (body version 1)
//! and 2.1 also in a `SPLIT_V1` frame (body version 2). In paimon-rs the domain value is the
//! `DataSplit` form; this module converts for the peers that want the other.
//!
//! ```text
//! DataSplit { before_files, before_deletion_files,      IncrementalSplit { before_files, ..,
//!             data_files, data_deletion_files,   <-->                      after_files, ..,
//!             is_streaming: false, bucket_path, .. }                       is_streaming: false }
//! ```
//! (`IncrementalSplit` has no bucket path: the reader derives it from the table.)

use crate::error::{Error, Result};
use crate::frame::{write_incremental, IncrementalSplit};
use crate::split::DataSplit;
use crate::wire::WireWriter;

/// The `IncrementalSplit` body version that carries the DataFileMeta layout of DataSplit
/// `data_version`: 1 up to v8 (Java 1.4 - 2.0), 2 from v9 (2.1).
pub fn incremental_version_for(data_version: i32) -> i32 {
    if data_version >= 9 {
        2
    } else {
        1
    }
}

impl DataSplit {
    /// Whether this is a batch incremental diff: not a streaming split, and before files to
    /// diff against (Java 1.3's `IncrementalDiffReadProvider` rule) or a before-deletion-file
    /// list (which a diff of a deletion-vector table has even when its before side is empty,
    /// and no other split has: Java 1.4+ rejects it on a `DataSplit`).
    pub fn is_incremental_diff(&self) -> bool {
        !self.is_streaming
            && (!self.before_files.is_empty() || self.before_deletion_files.is_some())
    }
}

impl IncrementalSplit {
    /// The Java 1.4+ form of an incremental-diff `split`, with body `version` (1 or 2).
    ///
    /// # Errors
    /// [`Error::Encode`] when the split has no `total_buckets` (the class stores an `int`).
    pub fn from_data_split(split: &DataSplit, version: i32) -> Result<IncrementalSplit> {
        let total_buckets = split.total_buckets.ok_or_else(|| Error::Encode {
            reason: format!(
                "an IncrementalSplit needs totalBuckets; the split of {} has none",
                split.bucket_path
            ),
        })?;
        Ok(IncrementalSplit {
            version,
            snapshot_id: split.snapshot_id,
            partition: split.partition.clone(),
            bucket: split.bucket,
            total_buckets,
            before_files: split.before_files.clone(),
            before_deletion_files: split.before_deletion_files.clone(),
            after_files: split.data_files.clone(),
            after_deletion_files: split.data_deletion_files.clone(),
            is_streaming: split.is_streaming,
        })
    }

    /// The `DataSplit` form, with the bucket directory the split does not carry.
    pub fn into_data_split(self, bucket_path: String) -> DataSplit {
        DataSplit {
            snapshot_id: self.snapshot_id,
            partition: self.partition,
            bucket: self.bucket,
            bucket_path,
            total_buckets: Some(self.total_buckets),
            before_files: self.before_files,
            before_deletion_files: self.before_deletion_files,
            data_files: self.after_files,
            data_deletion_files: self.after_deletion_files,
            is_streaming: self.is_streaming,
            raw_convertible: false,
        }
    }
}

/// Encodes `split` as the Java object stream Java 1.4+ ships an `IncrementalSplit` in, with
/// the DataFileMeta layout of DataSplit `data_version` ([`incremental_version_for`]).
///
/// # Errors
/// As [`IncrementalSplit::from_data_split`]; [`Error::Encode`] when a value cannot be carried.
pub fn encode_incremental_java(split: &DataSplit, data_version: i32) -> Result<Vec<u8>> {
    let s = IncrementalSplit::from_data_split(split, incremental_version_for(data_version))?;
    let mut w = WireWriter::default();
    write_incremental(&mut w, &s)?;
    Ok(crate::java_stream::wrap_incremental_java_stream(&w.buf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decode_any, encode_decoded, Split, SplitEnvelope};
    use paimon_spec::data_file::{DataFileMeta, DeletionFile};
    use paimon_spec::stats::{empty_row_bytes, empty_serialized_row, SimpleStats};

    fn file(name: &str) -> DataFileMeta {
        DataFileMeta {
            file_name: name.into(),
            file_size: 10,
            row_count: 3,
            min_key: empty_row_bytes(),
            max_key: empty_row_bytes(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::empty(),
            min_sequence_number: 0,
            max_sequence_number: 2,
            schema_id: 0,
            level: 5,
            extra_files: vec![],
            creation_time: Some(1),
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: Some(0),
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
            write_cols_sequences: None,
        }
    }

    fn diff_split() -> DataSplit {
        DataSplit {
            snapshot_id: 6,
            partition: empty_serialized_row(),
            bucket: 0,
            bucket_path: "/t/bucket-0".into(),
            total_buckets: Some(1),
            before_files: vec![file("data-a-0.parquet")],
            before_deletion_files: Some(vec![None]),
            data_files: vec![file("data-b-0.parquet"), file("data-c-0.parquet")],
            data_deletion_files: Some(vec![
                Some(DeletionFile {
                    path: "/t/index/index-1".into(),
                    offset: 1,
                    length: 22,
                    cardinality: Some(2),
                }),
                None,
            ]),
            is_streaming: false,
            raw_convertible: false,
        }
    }

    #[test]
    fn java_object_stream_round_trips_at_both_body_versions() {
        let split = diff_split();
        for (data_version, body) in [(8, 1), (9, 2)] {
            let bytes = encode_incremental_java(&split, data_version).unwrap();
            let d = decode_any(&bytes).unwrap();
            assert_eq!(d.envelope, SplitEnvelope::JavaObject);
            let Split::Incremental(inc) = &d.split else {
                panic!("{:?}", d.split)
            };
            assert_eq!(inc.version, body);
            assert_eq!(
                inc.clone().into_data_split(split.bucket_path.clone()),
                split
            );
            assert_eq!(encode_decoded(&d.split, d.envelope, 9).unwrap(), bytes);
        }
    }

    #[test]
    fn a_diff_split_is_batch_with_before_files() {
        let mut s = diff_split();
        assert!(s.is_incremental_diff());
        s.is_streaming = true;
        assert!(!s.is_incremental_diff());
        s.is_streaming = false;
        s.before_files.clear();
        s.before_deletion_files = Some(vec![]);
        assert!(s.is_incremental_diff());
        s.before_deletion_files = None;
        assert!(!s.is_incremental_diff());
    }

    #[test]
    fn a_split_without_total_buckets_cannot_be_an_incremental_split() {
        let mut s = diff_split();
        s.total_buckets = None;
        assert!(matches!(
            encode_incremental_java(&s, 8),
            Err(Error::Encode { .. })
        ));
    }
}
