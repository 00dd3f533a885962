//! The `CommitMessageSerializer` layouts, versions 2 through 14, and Paimon 0.7's
//! `CommitMessageLegacyV2Serializer` (read only).
//!
//! ```text
//! partition [len][arity][row] | bucket i32 | [totalBuckets: flag byte (+ i32)]   (v7+)
//! v10+:  data {new, deleted, changelog files; new, deleted index files}
//!        compact {before, after, changelog files; new, deleted index files}
//! v14+:  checkFromSnapshot: flag byte 0/1 (+ i64)
//! v2-9:  new, deleted, changelog, compact before, after, changelog files;
//!        new index files; [deleted index files (v3+)]
//! 0.7:   new, changelog, compact before, after, changelog files; new index files
//! ```
//!
//! A file list is `[count: i32]` then `[size: i32][BinaryRow]` per file.

use paimon_spec::binary::BinaryRow;
use paimon_spec::data_file::{DataFileMeta, LEGACY_07_ARITY};
use paimon_spec::index_file::{IndexFileLayout, IndexFileMeta};

use super::{check_message_version, CommitMessage, CompactIncrement, DataIncrement};
use crate::codec::{
    read_files_of_arity, read_serialized_row, spec_err, write_files, write_serialized_row,
};
use crate::error::{Error, Result};
use crate::wire::{WireReader, WireWriter};

/// Fewest bytes any message takes: a 16-byte empty partition, the bucket, seven list counts.
const MIN_MESSAGE_BYTES: usize = 16 + 4 + 7 * 4;

/// DataFileMeta arity of each commit-message version (Java's `fileDeserializer` choice).
pub(crate) fn file_arity(version: i32) -> usize {
    match version {
        ..=2 => 15,
        3 => 16,
        4 | 5 => 17,
        6 | 7 => 18,
        8 => 19,
        9..=12 => 20,
        _ => 21,
    }
}

/// Index-file layout of each commit-message version (Java's `indexEntryDeserializer` choice).
pub(crate) fn index_layout(version: i32) -> IndexFileLayout {
    match version {
        ..=4 => IndexFileLayout::V1,
        5..=8 => IndexFileLayout::V2,
        9 | 10 => IndexFileLayout::V3,
        11 => IndexFileLayout::V4,
        _ => IndexFileLayout::V5,
    }
}

fn encode_err(e: paimon_spec::Error) -> Error {
    Error::Encode {
        reason: e.to_string(),
    }
}

pub(crate) fn read_list(r: &mut WireReader<'_>, version: i32) -> Result<Vec<CommitMessage>> {
    let n = r.count("commit message count", MIN_MESSAGE_BYTES)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(read(r, version)?);
    }
    Ok(out)
}

pub(crate) fn read(r: &mut WireReader<'_>, version: i32) -> Result<CommitMessage> {
    let arity = file_arity(version);
    let layout = index_layout(version);
    let partition = read_serialized_row(r, "partition")?;
    let bucket = r.i32("bucket")?;
    let total_buckets = if version >= 7 && r.bool("total buckets flag")? {
        Some(r.i32("total buckets")?)
    } else {
        None
    };
    let files = |r: &mut WireReader<'_>, what: &str| read_files_of_arity(r, arity, what);
    let indexes = |r: &mut WireReader<'_>, what: &str| read_index_files(r, layout, what);
    if version >= 10 {
        let data_increment = DataIncrement {
            new_files: files(r, "new file count")?,
            deleted_files: files(r, "deleted file count")?,
            changelog_files: files(r, "changelog file count")?,
            new_index_files: indexes(r, "new index file count")?,
            deleted_index_files: indexes(r, "deleted index file count")?,
        };
        let compact_increment = CompactIncrement {
            compact_before: files(r, "compact-before file count")?,
            compact_after: files(r, "compact-after file count")?,
            changelog_files: files(r, "compact changelog file count")?,
            new_index_files: indexes(r, "compact new index file count")?,
            deleted_index_files: indexes(r, "compact deleted index file count")?,
        };
        let check_from_snapshot = if version >= 14 {
            read_check_from_snapshot(r)?
        } else {
            None
        };
        return Ok(CommitMessage {
            partition,
            bucket,
            total_buckets,
            data_increment,
            compact_increment,
            check_from_snapshot,
        });
    }
    let mut data_increment = DataIncrement {
        new_files: files(r, "new file count")?,
        deleted_files: files(r, "deleted file count")?,
        changelog_files: files(r, "changelog file count")?,
        ..DataIncrement::default()
    };
    let mut compact_increment = CompactIncrement {
        compact_before: files(r, "compact-before file count")?,
        compact_after: files(r, "compact-after file count")?,
        changelog_files: files(r, "compact changelog file count")?,
        ..CompactIncrement::default()
    };
    let new_index = indexes(r, "new index file count")?;
    let deleted_index = if version > 2 {
        indexes(r, "deleted index file count")?
    } else {
        Vec::new()
    };
    place_index_files(
        &mut data_increment,
        &mut compact_increment,
        new_index,
        deleted_index,
    );
    Ok(CommitMessage {
        partition,
        bucket,
        total_buckets,
        data_increment,
        compact_increment,
        check_from_snapshot: None,
    })
}

/// The optional `checkFromSnapshot` of version 14. The flag must be 0 or 1 (paimon-rust 0.4
/// refuses anything else), so that what decodes re-encodes to the same bytes.
fn read_check_from_snapshot(r: &mut WireReader<'_>) -> Result<Option<i64>> {
    let at = r.position();
    match r.u8("check-from snapshot flag")? {
        0 => Ok(None),
        1 => Ok(Some(r.i64("check-from snapshot")?)),
        other => Err(Error::Corrupt {
            offset: at,
            reason: format!("check-from snapshot flag is {other}, not 0 or 1"),
        }),
    }
}

/// Java's rule for the single index increment of versions below 10.
fn place_index_files(
    data: &mut DataIncrement,
    compact: &mut CompactIncrement,
    new_index: Vec<IndexFileMeta>,
    deleted_index: Vec<IndexFileMeta>,
) {
    if compact.has_data_files() {
        compact.new_index_files = new_index;
        compact.deleted_index_files = deleted_index;
    } else {
        data.new_index_files = new_index;
        data.deleted_index_files = deleted_index;
    }
}

/// Reads a list of Paimon 0.7 messages (Java `CommitMessageLegacyV2Serializer.deserializeList`).
pub(crate) fn read_legacy_07_list(r: &mut WireReader<'_>) -> Result<Vec<CommitMessage>> {
    let n = r.count("commit message count", 16 + 4 + 6 * 4)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let partition = read_serialized_row(r, "partition")?;
        let bucket = r.i32("bucket")?;
        let mut data = DataIncrement {
            new_files: read_legacy_07_files(r, "new file count")?,
            changelog_files: read_legacy_07_files(r, "changelog file count")?,
            ..DataIncrement::default()
        };
        let mut compact = CompactIncrement {
            compact_before: read_legacy_07_files(r, "compact-before file count")?,
            compact_after: read_legacy_07_files(r, "compact-after file count")?,
            changelog_files: read_legacy_07_files(r, "compact changelog file count")?,
            ..CompactIncrement::default()
        };
        let new_index = read_index_files(r, IndexFileLayout::Legacy07, "new index file count")?;
        place_index_files(&mut data, &mut compact, new_index, Vec::new());
        out.push(CommitMessage {
            partition,
            bucket,
            total_buckets: None,
            data_increment: data,
            compact_increment: compact,
            check_from_snapshot: None,
        });
    }
    Ok(out)
}

fn read_legacy_07_files(r: &mut WireReader<'_>, what: &str) -> Result<Vec<DataFileMeta>> {
    let n = r.count(what, 4 + 8 + 8 * LEGACY_07_ARITY)?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.position();
        let size = r.count("data file meta size", 1)?;
        let bytes = r.take(size, "data file meta")?;
        let row = BinaryRow::new(bytes, LEGACY_07_ARITY).map_err(spec_err(at))?;
        files.push(DataFileMeta::from_legacy_07_row(&row).map_err(spec_err(at))?);
    }
    Ok(files)
}

pub(crate) fn read_index_files(
    r: &mut WireReader<'_>,
    layout: IndexFileLayout,
    what: &str,
) -> Result<Vec<IndexFileMeta>> {
    let arity = layout.arity();
    let n = r.count(what, 4 + 8 + 8 * arity)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.position();
        let size = r.count("index file meta size", 1)?;
        let bytes = r.take(size, "index file meta")?;
        let row = BinaryRow::new(bytes, arity).map_err(spec_err(at))?;
        out.push(IndexFileMeta::from_row(&row, layout).map_err(spec_err(at))?);
    }
    Ok(out)
}

pub(crate) fn check(m: &CommitMessage, version: i32) -> Result<()> {
    check_message_version(version)?;
    BinaryRow::from_serialized(&m.partition).map_err(|e| Error::Encode {
        reason: format!("partition is not a serialized BinaryRow: {e}"),
    })?;
    if version < 14 && m.check_from_snapshot.is_some() {
        return Err(Error::Encode {
            reason: format!(
                "commit message v{version} cannot carry the check-from snapshot (v14+)"
            ),
        });
    }
    if version < 7 && m.total_buckets.is_some() {
        return Err(Error::Encode {
            reason: format!("commit message v{version} cannot carry total buckets (v7+)"),
        });
    }
    let (d, c) = (&m.data_increment, &m.compact_increment);
    let arity = file_arity(version);
    for f in [
        &d.new_files,
        &d.deleted_files,
        &d.changelog_files,
        &c.compact_before,
        &c.compact_after,
        &c.changelog_files,
    ]
    .into_iter()
    .flatten()
    {
        f.check_arity(arity).map_err(encode_err)?;
    }
    let layout = index_layout(version);
    for f in [
        &d.new_index_files,
        &d.deleted_index_files,
        &c.new_index_files,
        &c.deleted_index_files,
    ]
    .into_iter()
    .flatten()
    {
        f.check_layout(layout).map_err(encode_err)?;
    }
    if version < 10 {
        // One index increment, which Java's reader gives to the compact side when that has
        // files: index files elsewhere would move.
        let (kept, stray, kept_side, stray_side) = if c.has_data_files() {
            (
                (&c.new_index_files, &c.deleted_index_files),
                (&d.new_index_files, &d.deleted_index_files),
                "compact",
                "data",
            )
        } else {
            (
                (&d.new_index_files, &d.deleted_index_files),
                (&c.new_index_files, &c.deleted_index_files),
                "data",
                "compact",
            )
        };
        if !stray.0.is_empty() || !stray.1.is_empty() {
            return Err(Error::Encode {
                reason: format!(
                    "commit message v{version} has one index increment, which Java reads into \
                     the {kept_side} increment; index files in the {stray_side} increment \
                     cannot be carried"
                ),
            });
        }
        if version == 2 && !kept.1.is_empty() {
            return Err(Error::Encode {
                reason: "commit message v2 cannot carry deleted index files".into(),
            });
        }
    }
    Ok(())
}

pub(crate) fn write_list(w: &mut WireWriter, list: &[CommitMessage], version: i32) -> Result<()> {
    w.len(list.len())?;
    for m in list {
        write(w, m, version)?;
    }
    Ok(())
}

pub(crate) fn write(w: &mut WireWriter, m: &CommitMessage, version: i32) -> Result<()> {
    check(m, version)?;
    let arity = file_arity(version);
    let layout = index_layout(version);
    write_serialized_row(w, &m.partition)?;
    w.i32(m.bucket);
    if version >= 7 {
        match m.total_buckets {
            Some(t) => {
                w.bool(true);
                w.i32(t);
            }
            None => w.bool(false),
        }
    }
    let (d, c) = (&m.data_increment, &m.compact_increment);
    if version >= 10 {
        write_files(w, &d.new_files, arity)?;
        write_files(w, &d.deleted_files, arity)?;
        write_files(w, &d.changelog_files, arity)?;
        write_index_files(w, &d.new_index_files, layout)?;
        write_index_files(w, &d.deleted_index_files, layout)?;
        write_files(w, &c.compact_before, arity)?;
        write_files(w, &c.compact_after, arity)?;
        write_files(w, &c.changelog_files, arity)?;
        write_index_files(w, &c.new_index_files, layout)?;
        write_index_files(w, &c.deleted_index_files, layout)?;
        if version >= 14 {
            match m.check_from_snapshot {
                Some(s) => {
                    w.bool(true);
                    w.i64(s);
                }
                None => w.bool(false),
            }
        }
        return Ok(());
    }
    write_files(w, &d.new_files, arity)?;
    write_files(w, &d.deleted_files, arity)?;
    write_files(w, &d.changelog_files, arity)?;
    write_files(w, &c.compact_before, arity)?;
    write_files(w, &c.compact_after, arity)?;
    write_files(w, &c.changelog_files, arity)?;
    let (new_index, deleted_index) = if c.has_data_files() {
        (&c.new_index_files, &c.deleted_index_files)
    } else {
        (&d.new_index_files, &d.deleted_index_files)
    };
    write_index_files(w, new_index, layout)?;
    if version > 2 {
        write_index_files(w, deleted_index, layout)?;
    }
    Ok(())
}

pub(crate) fn write_index_files(
    w: &mut WireWriter,
    files: &[IndexFileMeta],
    layout: IndexFileLayout,
) -> Result<()> {
    w.len(files.len())?;
    for f in files {
        let row = f.to_row_bytes(layout).map_err(encode_err)?;
        w.len(row.len())?;
        w.bytes(&row);
    }
    Ok(())
}
