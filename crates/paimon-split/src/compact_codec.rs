//! The bytes of a [`CompactTask`], so a planner can hand compaction work to a worker in another
//! process, as it hands out [`DataSplit`](crate::DataSplit)s. Java has no such message (its
//! compaction runs inside the writer), so the layout is paimon-rs's own, built from Java's
//! pieces: the splits are `DataSplit` v9 and the index files rows of the commit message's
//! newest index layout.
//!
//! ```text
//! magic i64 | version i32 (1)
//! split: DataSplit v9
//! rewrite: 0 (append) | 1 output_level i32, max_level i32, drop_delete bool, min_file_size i64
//! deleted index files: [count i32] ([size i32][row])*
//! lookup: false | true, higher levels: DataSplit v9, index files as above
//! ```
//!
//! Decoding checks what a worker relies on (levels in range, no trailing bytes) and never
//! panics on hostile bytes.

use paimon_spec::index_file::IndexFileLayout;

use crate::codec::{read_data_split, write_data_split, CURRENT_VERSION};
use crate::commit::message::{read_index_files, write_index_files};
use crate::compact::{CompactLookup, CompactRewrite, CompactTask};
use crate::error::{Error, Result};
use crate::wire::{WireReader, WireWriter};

/// First eight bytes of a compaction task ("PMCTASK1" read as a big-endian i64).
pub const COMPACT_TASK_MAGIC: i64 = i64::from_be_bytes(*b"PMCTASK1");
/// The one layout version written and read.
pub const COMPACT_TASK_VERSION: i32 = 1;
/// Index files in the newest commit-message layout.
const INDEX_LAYOUT: IndexFileLayout = IndexFileLayout::V5;
/// Levels above this are refused: Java's `num-levels` is a small count.
const MAX_LEVEL: i32 = 1 << 16;

/// Encodes `task`.
///
/// # Errors
/// [`Error::Encode`] when a split cannot be carried by DataSplit v9 (before files).
pub fn encode_compact_task(task: &CompactTask) -> Result<Vec<u8>> {
    let mut w = WireWriter::default();
    w.i64(COMPACT_TASK_MAGIC);
    w.i32(COMPACT_TASK_VERSION);
    write_data_split(&mut w, &task.split, CURRENT_VERSION)?;
    match &task.rewrite {
        CompactRewrite::Append => w.u8(0),
        CompactRewrite::MergeTree {
            output_level,
            max_level,
            drop_delete,
            min_file_size,
        } => {
            w.u8(1);
            w.i32(*output_level);
            w.i32(*max_level);
            w.bool(*drop_delete);
            w.i64(*min_file_size);
        }
    }
    write_index_files(&mut w, &task.deleted_index_files, INDEX_LAYOUT)?;
    match &task.lookup {
        None => w.bool(false),
        Some(l) => {
            w.bool(true);
            write_data_split(&mut w, &l.higher_levels, CURRENT_VERSION)?;
            write_index_files(&mut w, &l.index_files, INDEX_LAYOUT)?;
        }
    }
    Ok(w.buf)
}

/// Decodes the bytes of [`encode_compact_task`].
///
/// # Errors
/// [`Error::Corrupt`] for bytes that are not a compaction task (wrong magic, truncated,
/// levels out of range, trailing bytes), [`Error::UnsupportedVersion`] for another version.
pub fn decode_compact_task(bytes: &[u8]) -> Result<CompactTask> {
    let mut r = WireReader::new(bytes);
    if r.i64("compaction task magic")? != COMPACT_TASK_MAGIC {
        return Err(Error::Corrupt {
            offset: 0,
            reason: "not a compaction task (wrong magic)".into(),
        });
    }
    let version = r.i32("compaction task version")?;
    if version != COMPACT_TASK_VERSION {
        return Err(Error::UnsupportedVersion {
            what: "compaction task",
            found: version,
            supported: COMPACT_TASK_VERSION.to_string(),
        });
    }
    let (split, _) = read_data_split(&mut r)?;
    let at = r.position();
    let rewrite = match r.u8("rewrite kind")? {
        0 => CompactRewrite::Append,
        1 => {
            let output_level = r.i32("output level")?;
            let max_level = r.i32("max level")?;
            let drop_delete = r.bool("drop delete")?;
            let min_file_size = r.i64("min file size")?;
            if !(0..=MAX_LEVEL).contains(&max_level) || !(0..=max_level).contains(&output_level) {
                return Err(Error::Corrupt {
                    offset: at,
                    reason: format!("output level {output_level} of max level {max_level}"),
                });
            }
            CompactRewrite::MergeTree {
                output_level,
                max_level,
                drop_delete,
                min_file_size,
            }
        }
        other => {
            return Err(Error::Corrupt {
                offset: at,
                reason: format!("unknown rewrite kind {other}"),
            })
        }
    };
    let deleted_index_files = read_index_files(&mut r, INDEX_LAYOUT, "deleted index file count")?;
    let lookup = match r.bool("lookup present")? {
        false => None,
        true => {
            let (higher_levels, _) = read_data_split(&mut r)?;
            let index_files = read_index_files(&mut r, INDEX_LAYOUT, "lookup index file count")?;
            Some(CompactLookup {
                higher_levels,
                index_files,
            })
        }
    };
    if r.remaining() > 0 {
        return Err(Error::Corrupt {
            offset: r.position(),
            reason: format!("{} bytes after the compaction task", r.remaining()),
        });
    }
    Ok(CompactTask {
        split,
        rewrite,
        deleted_index_files,
        lookup,
    })
}
