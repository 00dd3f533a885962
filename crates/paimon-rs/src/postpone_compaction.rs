//! The compaction of a postpone-bucket table (`bucket = -2`), as Java's postpone compaction
//! (Flink's `PostponeBucketCompactSplitSource` and `PostponeBucketCommittableRewriter`) does
//! it: per partition, the records of the files in `bucket-postpone` are read in commit
//! order, written into real buckets by a fixed-bucket writer (`write-only`, as Java's
//! `PostponeUtils.tableForFixBucketWrite`; each bucket's sequence numbers continue from its
//! committed files), and committed as one COMPACT snapshot that retires the postpone files.
//! A partition keeps the bucket count its real buckets already have
//! (`PostponeUtils.getKnownNumBuckets`), else gets `postpone.default-bucket-num` (default 1).

use std::collections::HashMap;

use paimon_data::reader::ROW_KIND;
use paimon_data::SplitReader;
use paimon_meta::scan::LiveFile;
use paimon_spec::layout::POSTPONE_BUCKET;
use paimon_spec::stats::serialize_datums;
use paimon_split::commit::{CommitMessage, CompactIncrement};
use paimon_split::DataSplit;
use paimon_write::table_write::TableWrite;

use crate::compaction::CompactReport;
use crate::error::{Error, Result};

/// Java `BatchWriteBuilder.COMMIT_IDENTIFIER`.
const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// `postpone.default-bucket-num`: the bucket count of a partition compacted for the first
/// time (default 1).
fn default_bucket_num(table: &paimon_meta::Table) -> Result<i32> {
    let key = "postpone.default-bucket-num";
    match table.options().raw.get(key) {
        None => Ok(1),
        Some(v) => match v.trim().parse::<i32>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(Error::invalid(
                key,
                format!("{v:?} is not a positive bucket count"),
            )),
        },
    }
}

/// Redistributes the postpone bucket of `table` (a primary-key table with `bucket = -2`)
/// into real buckets and commits that as `commit_user` (see the module). A table whose
/// postpone bucket is empty is left as it is.
///
/// # Errors
/// Unsupported for a table whose batch reads skip level 0 (deletion vectors, first-row);
/// metadata, read, write and commit errors; the files written are deleted when the write or
/// the commit fails.
pub fn compact_postpone(table: &paimon_meta::Table, commit_user: &str) -> Result<CompactReport> {
    if table.options().batch_scan_skip_level0() {
        // The redistributed records land in level 0, which these tables' batch reads skip
        // until the real buckets are compacted, and that compaction is not ours yet.
        return Err(Error::from(paimon_meta::Error::unsupported(format!(
            "the postpone compaction of a table whose batch reads skip level 0 (deletion \
             vectors or first-row) (table {})",
            table.path()
        ))));
    }
    let mut report = CompactReport::default();
    let Some(snapshot) = table.snapshot_manager().latest()? else {
        return Ok(report);
    };
    report.planned_from = Some(snapshot.id);
    let live = table.live_files(Some(
        table
            .scan()
            .with_snapshot(snapshot.id)
            .with_all_levels(true)
            .with_postpone_bucket(true),
    ))?;
    let types = table.partition_types();
    let mut known: HashMap<Vec<u8>, i32> = HashMap::new();
    // Partitions in the order the manifests list them, each with its postpone files in
    // commit order.
    let mut postpone: Vec<(Vec<u8>, Vec<LiveFile>)> = Vec::new();
    for f in live {
        let partition = serialize_datums(&f.partition, &types)?;
        if f.bucket == POSTPONE_BUCKET {
            match postpone.iter_mut().find(|(p, _)| *p == partition) {
                Some((_, files)) => files.push(f),
                None => postpone.push((partition, vec![f])),
            }
        } else if f.bucket >= 0 && f.total_buckets > 0 {
            known.insert(partition, f.total_buckets);
        }
    }
    if postpone.is_empty() {
        return Ok(report);
    }
    let default_buckets = default_bucket_num(table)?;
    let restored = table.max_sequence_numbers()?;
    let mut messages: Vec<CommitMessage> = Vec::new();
    let mut writers: Vec<TableWrite> = Vec::new();
    let result = (|| -> Result<()> {
        for (partition, files) in &postpone {
            let buckets = known.get(partition).copied().unwrap_or(default_buckets);
            let mut writer = fixed_bucket_writer(table, buckets)?
                .with_restored_max_sequence_numbers(
                    restored
                        .iter()
                        .filter(|(p, b, _)| p == partition && *b >= 0)
                        .cloned(),
                );
            let split = postpone_split(snapshot.id, partition, files);
            let reader = reader_of(table);
            for batch in reader.read(table.path(), &split)? {
                writer.write_conformed(&batch?, Some(ROW_KIND))?;
            }
            let written = writer.prepare_commit();
            writers.push(writer);
            for m in written? {
                report.files_after += m.data_increment.new_files.len();
                let mut moved =
                    CommitMessage::new(m.partition, m.bucket).with_total_buckets(m.total_buckets);
                moved.compact_increment.compact_after = m.data_increment.new_files;
                messages.push(moved);
            }
            report.files_before += files.len();
            let mut retired = CommitMessage::new(partition.clone(), POSTPONE_BUCKET)
                .with_total_buckets(Some(POSTPONE_BUCKET));
            retired.compact_increment = CompactIncrement {
                compact_before: files.iter().map(|f| f.file.clone()).collect(),
                ..CompactIncrement::default()
            };
            messages.push(retired);
            report.tasks += 1;
        }
        Ok(())
    })();
    let committed = result.and_then(|()| {
        Ok(table
            .new_commit(commit_user)
            .commit(BATCH_COMMIT_IDENTIFIER, &messages)?)
    });
    match committed {
        Ok(ids) => {
            report.snapshots = ids;
            Ok(report)
        }
        Err(e) => {
            for w in &mut writers {
                w.abort();
            }
            delete_written(table, &messages);
            Err(e)
        }
    }
}

/// The writer of the table as `bucket = buckets`, `write-only` (Java
/// `PostponeUtils.tableForFixBucketWrite`).
fn fixed_bucket_writer(table: &paimon_meta::Table, buckets: i32) -> Result<TableWrite> {
    let mut schema = table.schema().as_ref().clone();
    schema
        .options
        .insert("bucket".to_string(), buckets.to_string());
    schema
        .options
        .insert("write-only".to_string(), "true".to_string());
    // The records were the input once already: no changelog of them is written again.
    schema
        .options
        .insert("changelog-producer".to_string(), "none".to_string());
    Ok(TableWrite::try_new(
        table.file_io().clone(),
        table.path(),
        &schema,
    )?)
}

/// The postpone files of one partition as one streaming split: read without merging, each
/// record with its kind, file after file.
fn postpone_split(snapshot: i64, partition: &[u8], files: &[LiveFile]) -> DataSplit {
    DataSplit {
        snapshot_id: snapshot,
        partition: partition.to_vec(),
        bucket: POSTPONE_BUCKET,
        bucket_path: files
            .first()
            .map(|f| f.bucket_path.clone())
            .unwrap_or_default(),
        total_buckets: Some(POSTPONE_BUCKET),
        before_files: Vec::new(),
        before_deletion_files: None,
        data_files: files.iter().map(|f| f.file.clone()).collect(),
        data_deletion_files: None,
        is_streaming: true,
        raw_convertible: false,
    }
}

/// A reader of every column of the table with each record's kind.
fn reader_of(table: &paimon_meta::Table) -> SplitReader {
    let names: Vec<String> = table
        .schema()
        .fields
        .iter()
        .map(|f| f.name.clone())
        .collect();
    SplitReader::builder(table.file_io().clone())
        .with_projection(names)
        .with_row_kind(true)
        .build()
}

/// Deletes the files the messages put into real buckets (after a failed commit).
fn delete_written(table: &paimon_meta::Table, messages: &[CommitMessage]) {
    for m in messages.iter().filter(|m| m.bucket >= 0) {
        let Ok(dir) = paimon_write::paths::bucket_dir_of(
            table.path(),
            table.path(),
            &table.schema().partition_fields(),
            table.options(),
            &m.partition,
            m.bucket,
        ) else {
            continue;
        };
        for f in &m.compact_increment.compact_after {
            let _ = table
                .file_io()
                .delete(&paimon_spec::layout::join(&dir, &f.file_name));
        }
    }
}
