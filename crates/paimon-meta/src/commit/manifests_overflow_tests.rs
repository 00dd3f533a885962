//! Hostile sizes and row counts in manifest lists and entries give typed errors instead of
//! wrapping (or panicking on overflow) while manifests are written and merged.

use std::sync::Arc;

use paimon_spec::layout::TableLayout;
use paimon_spec::stats::SimpleStats;

use super::ManifestWriter;
use crate::error::Error;
use crate::manifest::encode::ManifestWriteOptions;
use crate::manifest::{FileKind, ManifestEntry, ManifestFileMeta};

fn writer(dir: &std::path::Path) -> ManifestWriter {
    ManifestWriter::new(
        Arc::new(paimon_io::LocalFileIO::new()),
        TableLayout::new(dir.to_str().unwrap()),
        ManifestWriteOptions::try_new("avro", "zstd").unwrap(),
        Vec::new(),
        0,
        8 << 20,
    )
}

fn meta(name: &str, size: i64) -> ManifestFileMeta {
    ManifestFileMeta {
        file_name: name.into(),
        file_size: size,
        num_added_files: 1,
        num_deleted_files: 1,
        partition_stats: SimpleStats::empty(),
        schema_id: 0,
        min_bucket: None,
        max_bucket: None,
        min_level: None,
        max_level: None,
        min_row_id: None,
        max_row_id: None,
        total_buckets: None,
        extra_files: None,
    }
}

#[test]
fn manifest_sizes_that_overflow_the_merge_sum_are_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    for (input, bad) in [
        (vec![meta("m-1", i64::MAX), meta("m-2", i64::MAX)], "m-2"),
        (vec![meta("m-1", 10), meta("m-2", -5)], "m-2"),
    ] {
        let e = writer(dir.path()).merge(input, 30, 16 << 20).unwrap_err();
        assert!(
            matches!(&e, Error::Corrupt { path, .. } if path == bad),
            "{e:?}"
        );
    }
}

#[test]
fn a_row_id_range_that_overflows_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let file = paimon_spec::data_file::DataFileMeta {
        row_count: 2,
        first_row_id: Some(i64::MAX),
        ..crate::scan::live::tests::file("data-1.parquet")
    };
    let entry = ManifestEntry {
        kind: FileKind::Add,
        partition: paimon_spec::binary::BinaryRowBuilder::new(Vec::new())
            .build_serialized()
            .unwrap(),
        bucket: 0,
        total_buckets: 1,
        file: Box::new(file),
    };
    let e = writer(dir.path()).write_manifests(&[entry]).unwrap_err();
    let Error::Corrupt { reason, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(
        reason.contains("data-1.parquet") && reason.contains("overflows"),
        "{reason}"
    );
}
