//! The cross-language `SPLIT_V1` frame (Java `SplitSerializer`) and the split kinds it carries.
//!
//! ```text
//! [MAGIC i64 "SPLIT_V1"][VERSION i32 = 1][type i32][body]
//! ```

use std::collections::BTreeMap;

use paimon_spec::data_file::{DataFileMeta, DeletionFile};

use crate::codec::{
    read_data_split, read_deletion_files, read_files, read_serialized_row, write_data_split,
    write_deletion_files, write_files, write_serialized_row, CURRENT_VERSION,
};
use crate::error::{Error, Result};
use crate::split::DataSplit;
use crate::wire::{WireReader, WireWriter};

/// `SplitSerializer.MAGIC`: the ASCII bytes `SPLIT_V1`.
pub const FRAME_MAGIC: i64 = 0x5350_4C49_545F_5631;
/// The frame version.
pub const FRAME_VERSION: i32 = 1;
/// `IndexedSplit.MAGIC`.
pub const INDEXED_SPLIT_MAGIC: i64 = -938472394838495695;
/// [`IncrementalSplit::version`] of the incremental split in a Java 2.0 `SPLIT_V1` frame: Java
/// 2.0's `SplitSerializer` writes the fields without a body version (and 20-field DataFileMeta
/// rows). Java 2.1 reads only a versioned body, so it cannot read these frames; we read both,
/// telling them apart by the first int (a body version is 1 or 2; Java 2.0's frame starts with
/// the snapshot id, whose high half is 0 below 2^32). Only a frame carries this form.
pub const INCREMENTAL_FRAME_JAVA_2_0: i32 = 0;

const DATA_SPLIT: i32 = 1;
const INCREMENTAL_SPLIT: i32 = 2;
const INDEXED_SPLIT: i32 = 3;
const CHAIN_SPLIT: i32 = 4;
const QUERY_AUTH_SPLIT: i32 = 5;
const FALLBACK_DATA_SPLIT: i32 = 6;
const FALLBACK_SPLIT: i32 = 7;

/// DataFileMeta arity of the current serializer, used inside non-data frames.
const CURRENT_FILE_ARITY_VERSION: i32 = CURRENT_VERSION;

/// Any split the `SPLIT_V1` frame can carry.
///
/// Deliberately exhaustive: a reader matches every kind, so a kind added here fails to compile
/// in each reader instead of being read as something it is not.
#[derive(Debug, Clone, PartialEq)]
pub enum Split {
    /// Type 1: a plain DataSplit.
    Data(DataSplit),
    /// Type 2: before/after files of an incremental read (Java `IncrementalSplit`).
    Incremental(IncrementalSplit),
    /// Type 3: a DataSplit restricted to row ranges (Java `IndexedSplit`).
    Indexed(IndexedSplit),
    /// Type 4: files drawn from several branches (Java `ChainSplit`).
    Chain(ChainSplit),
    /// Type 5: a split with row filters and column masks (Java `QueryAuthSplit`).
    QueryAuth {
        /// The wrapped split.
        split: Box<Split>,
        /// The authorization result, if any.
        auth: Option<QueryAuth>,
    },
    /// Type 6: a DataSplit that may come from the fallback branch.
    FallbackData {
        /// The data split.
        split: DataSplit,
        /// Whether it was read from the fallback branch.
        is_fallback: bool,
    },
    /// Type 7: any split that may come from the fallback branch.
    Fallback {
        /// Whether it was read from the fallback branch.
        is_fallback: bool,
        /// The wrapped split.
        split: Box<Split>,
    },
}

/// Java `IncrementalSplit`: the files of one bucket only in the start snapshot (`before`) and
/// only in the end snapshot (`after`) of an incremental diff, or a streaming changes read.
/// Java 1.4+ ships it as a Java object stream (body version 1); in a `SPLIT_V1` frame, Java
/// 2.0 writes the fields with no body version ([`INCREMENTAL_FRAME_JAVA_2_0`]) and 2.1 the
/// versioned body (version 2); [`crate::incremental`] converts it to and from a [`DataSplit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncrementalSplit {
    /// Body version written before the fields: 1 (20-field DataFileMeta, Java 1.4 - 2.0) or
    /// 2 (21 fields, 2.1); [`INCREMENTAL_FRAME_JAVA_2_0`] for Java 2.0's frame body, which has
    /// no version field (20-field DataFileMeta).
    pub version: i32,
    /// Snapshot id.
    pub snapshot_id: i64,
    /// Serialized partition row.
    pub partition: Vec<u8>,
    /// Bucket.
    pub bucket: i32,
    /// Total buckets.
    pub total_buckets: i32,
    /// Files before the change.
    pub before_files: Vec<DataFileMeta>,
    /// Their deletion files.
    pub before_deletion_files: Option<Vec<Option<DeletionFile>>>,
    /// Files after the change.
    pub after_files: Vec<DataFileMeta>,
    /// Their deletion files.
    pub after_deletion_files: Option<Vec<Option<DeletionFile>>>,
    /// Streaming flag.
    pub is_streaming: bool,
}

/// Java `IndexedSplit`.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexedSplit {
    /// The data split.
    pub split: DataSplit,
    /// Inclusive row-id ranges `(from, to)`.
    pub row_ranges: Vec<(i64, i64)>,
    /// Optional per-row scores.
    pub scores: Option<Vec<f32>>,
}

/// Java `ChainSplit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainSplit {
    /// Body version written before the fields.
    pub version: i32,
    /// Serialized logical partition row.
    pub logical_partition: Vec<u8>,
    /// Files.
    pub data_files: Vec<DataFileMeta>,
    /// File name to bucket path, in stored order.
    pub file_bucket_path_mapping: Vec<(String, String)>,
    /// File name to branch, in stored order.
    pub file_branch_mapping: Vec<(String, String)>,
    /// Deletion files.
    pub deletion_files: Option<Vec<Option<DeletionFile>>>,
}

/// Java `TableQueryAuthResult`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryAuth {
    /// Row filters as JSON strings.
    pub filter: Option<Vec<String>>,
    /// Column masks (column to JSON).
    pub column_masking: Option<BTreeMap<String, String>>,
}

impl Split {
    /// The DataSplit this split reads in full, when that is the whole split: a data split, or
    /// one that may come from the fallback branch (whose flag says which branch's schemas
    /// read it). `None` for kinds whose other fields restrict or transform what is read
    /// (indexed, query-auth) and for kinds without a single DataSplit (incremental, chain).
    pub fn data_split(&self) -> Option<&DataSplit> {
        match self {
            Split::Data(s) | Split::FallbackData { split: s, .. } => Some(s),
            Split::Fallback { split, .. } => split.data_split(),
            Split::Indexed(_)
            | Split::QueryAuth { .. }
            | Split::Incremental(_)
            | Split::Chain(_) => None,
        }
    }

    /// The DataSplit whose files this split draws on, for inspection (file lists, planned row
    /// counts). Reading it alone would drop the row ranges of an indexed split and the row
    /// filters and column masks of a query-auth split.
    pub fn files_split(&self) -> Option<&DataSplit> {
        match self {
            Split::Data(s) | Split::FallbackData { split: s, .. } => Some(s),
            Split::Indexed(i) => Some(&i.split),
            Split::QueryAuth { split, .. } | Split::Fallback { split, .. } => split.files_split(),
            Split::Incremental(_) | Split::Chain(_) => None,
        }
    }

    /// A short name of the kind.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Split::Data(_) => "data",
            Split::Incremental(_) => "incremental",
            Split::Indexed(_) => "indexed",
            Split::Chain(_) => "chain",
            Split::QueryAuth { .. } => "query-auth",
            Split::FallbackData { .. } => "fallback-data",
            Split::Fallback { .. } => "fallback",
        }
    }
}

/// Decodes one `SPLIT_V1` frame at the reader's position.
///
/// # Errors
/// [`Error::Corrupt`] on malformed bytes, [`Error::Unsupported`] on an unknown type.
pub fn read_frame(r: &mut WireReader<'_>) -> Result<Split> {
    read_frame_with_version(r).map(|(s, _)| s)
}

/// Decodes one `SPLIT_V1` frame and the version of the first DataSplit inside it, if any.
///
/// # Errors
/// As [`read_frame`].
pub fn read_frame_with_version(r: &mut WireReader<'_>) -> Result<(Split, Option<i32>)> {
    let mut version = None;
    let s = read_frame_depth(r, 0, &mut version)?;
    Ok((s, version))
}

fn data_split_at(r: &mut WireReader<'_>, version: &mut Option<i32>) -> Result<DataSplit> {
    let (s, v) = read_data_split(r)?;
    version.get_or_insert(v);
    Ok(s)
}

fn read_frame_depth(
    r: &mut WireReader<'_>,
    depth: usize,
    version_seen: &mut Option<i32>,
) -> Result<Split> {
    if depth > 8 {
        return Err(r.corrupt("split frames nested more than 8 deep"));
    }
    let magic = r.i64("frame magic")?;
    if magic != FRAME_MAGIC {
        return Err(r.corrupt(format!("wrong SPLIT_V1 magic {magic:#x}")));
    }
    let version = r.i32("frame version")?;
    if version != FRAME_VERSION {
        return Err(Error::VersionMismatch {
            found: version,
            supported: "SPLIT_V1 frame version 1".into(),
        });
    }
    let ty = r.i32("split type")?;
    Ok(match ty {
        DATA_SPLIT => Split::Data(data_split_at(r, version_seen)?),
        INCREMENTAL_SPLIT => Split::Incremental(read_incremental_in_frame(r)?),
        INDEXED_SPLIT => Split::Indexed(read_indexed(r, version_seen)?),
        CHAIN_SPLIT => Split::Chain(read_chain(r)?),
        QUERY_AUTH_SPLIT => {
            let split = Box::new(read_frame_depth(r, depth + 1, version_seen)?);
            let auth = if r.bool("auth flag")? {
                Some(QueryAuth {
                    filter: read_string_list(r)?,
                    column_masking: read_string_map(r)?,
                })
            } else {
                None
            };
            Split::QueryAuth { split, auth }
        }
        FALLBACK_DATA_SPLIT => {
            let split = data_split_at(r, version_seen)?;
            let is_fallback = r.bool("isFallback")?;
            Split::FallbackData { split, is_fallback }
        }
        FALLBACK_SPLIT => {
            let is_fallback = r.bool("isFallback")?;
            let split = Box::new(read_frame_depth(r, depth + 1, version_seen)?);
            Split::Fallback { is_fallback, split }
        }
        other => {
            return Err(Error::Unsupported {
                feature: format!("SPLIT_V1 split type {other}"),
            })
        }
    })
}

/// Encodes `split` as a `SPLIT_V1` frame; DataSplits inside are written at `data_version`.
///
/// # Errors
/// [`Error::Encode`] when a value cannot be carried.
pub fn write_frame(w: &mut WireWriter, split: &Split, data_version: i32) -> Result<()> {
    w.i64(FRAME_MAGIC);
    w.i32(FRAME_VERSION);
    match split {
        Split::Data(s) => {
            w.i32(DATA_SPLIT);
            write_data_split(w, s, data_version)?;
        }
        Split::Incremental(s) => {
            w.i32(INCREMENTAL_SPLIT);
            write_incremental_in_frame(w, s)?;
        }
        Split::Indexed(s) => {
            w.i32(INDEXED_SPLIT);
            w.i64(INDEXED_SPLIT_MAGIC);
            w.i32(1);
            write_data_split(w, &s.split, data_version)?;
            w.len(s.row_ranges.len())?;
            for (from, to) in &s.row_ranges {
                w.i64(*from);
                w.i64(*to);
            }
            match &s.scores {
                None => w.bool(false),
                Some(scores) => {
                    w.bool(true);
                    w.len(scores.len())?;
                    for sc in scores {
                        w.f32(*sc);
                    }
                }
            }
        }
        Split::Chain(s) => {
            w.i32(CHAIN_SPLIT);
            w.i32(s.version);
            write_serialized_row(w, &s.logical_partition)?;
            let arity =
                crate::codec::file_meta_arity(chain_files_version(s.version)).ok_or_else(|| {
                    Error::VersionMismatch {
                        found: s.version,
                        supported: "ChainSplit versions 1..=3".into(),
                    }
                })?;
            write_files(w, &s.data_files, arity)?;
            write_utf_map(w, &s.file_bucket_path_mapping)?;
            write_utf_map(w, &s.file_branch_mapping)?;
            if s.version > 1 {
                write_deletion_files(w, s.deletion_files.as_deref(), CURRENT_VERSION)?;
            } else if s.deletion_files.is_some() {
                return Err(Error::Encode {
                    reason: "ChainSplit version 1 has no deletion files".into(),
                });
            }
        }
        Split::QueryAuth { split, auth } => {
            w.i32(QUERY_AUTH_SPLIT);
            write_frame(w, split, data_version)?;
            match auth {
                None => w.bool(false),
                Some(a) => {
                    w.bool(true);
                    write_string_list(w, a.filter.as_deref())?;
                    write_string_map(w, a.column_masking.as_ref())?;
                }
            }
        }
        Split::FallbackData { split, is_fallback } => {
            w.i32(FALLBACK_DATA_SPLIT);
            write_data_split(w, split, data_version)?;
            w.bool(*is_fallback);
        }
        Split::Fallback { is_fallback, split } => {
            w.i32(FALLBACK_SPLIT);
            w.bool(*is_fallback);
            write_frame(w, split, data_version)?;
        }
    }
    Ok(())
}

/// The DataSplit version whose DataFileMeta layout an `IncrementalSplit` body version uses:
/// body 1 (Java 1.4 - 2.0) writes the 20-field layout of DataSplit v8, body 2 (2.1) the
/// 21-field layout of v9.
fn incremental_files_version(version: i32) -> Option<i32> {
    match version {
        INCREMENTAL_FRAME_JAVA_2_0 | 1 => Some(8),
        2 => Some(CURRENT_FILE_ARITY_VERSION),
        _ => None,
    }
}

fn incremental_file_arity(version: i32) -> Result<usize> {
    incremental_files_version(version)
        .and_then(crate::codec::file_meta_arity)
        .ok_or_else(|| Error::VersionMismatch {
            found: version,
            supported: "IncrementalSplit versions 1..=2".into(),
        })
}

/// Decodes an `IncrementalSplit` body (Java `IncrementalSplit.serialize`, also the payload of
/// its Java object-stream image).
pub(crate) fn read_incremental(r: &mut WireReader<'_>) -> Result<IncrementalSplit> {
    let version = r.i32("incremental split version")?;
    if incremental_files_version(version).is_none() || version == INCREMENTAL_FRAME_JAVA_2_0 {
        return Err(Error::VersionMismatch {
            found: version,
            supported: "IncrementalSplit versions 1..=2".into(),
        });
    }
    let snapshot_id = r.i64("snapshot id")?;
    read_incremental_fields(r, version, snapshot_id)
}

/// The incremental split of a `SPLIT_V1` frame: Java 2.1's versioned body, or Java 2.0's
/// unversioned fields ([`INCREMENTAL_FRAME_JAVA_2_0`]).
fn read_incremental_in_frame(r: &mut WireReader<'_>) -> Result<IncrementalSplit> {
    let head = r.i32("incremental split version (Java 2.1) or snapshot id (Java 2.0)")?;
    if head == INCREMENTAL_FRAME_JAVA_2_0 {
        // Java 2.0: `head` was the high half of the snapshot id.
        let low = r.i32("snapshot id")?;
        let snapshot_id = i64::from(low as u32);
        return read_incremental_fields(r, INCREMENTAL_FRAME_JAVA_2_0, snapshot_id);
    }
    if incremental_files_version(head).is_none() {
        return Err(Error::VersionMismatch {
            found: head,
            supported: "IncrementalSplit versions 1..=2 (Java 2.1), or Java 2.0's unversioned \
                        body of a snapshot id below 2^32"
                .into(),
        });
    }
    let snapshot_id = r.i64("snapshot id")?;
    read_incremental_fields(r, head, snapshot_id)
}

fn read_incremental_fields(
    r: &mut WireReader<'_>,
    version: i32,
    snapshot_id: i64,
) -> Result<IncrementalSplit> {
    let files_version =
        incremental_files_version(version).ok_or_else(|| Error::VersionMismatch {
            found: version,
            supported: "IncrementalSplit versions 1..=2".into(),
        })?;
    let partition = read_serialized_row(r, "partition")?;
    let bucket = r.i32("bucket")?;
    let total_buckets = r.i32("total buckets")?;
    let before_files = read_files(r, files_version, "before file count")?;
    let before_deletion_files = read_deletion_files(r, CURRENT_VERSION)?;
    check_deletion_count(r, &before_files, before_deletion_files.as_deref(), "before")?;
    let after_files = read_files(r, files_version, "after file count")?;
    let after_deletion_files = read_deletion_files(r, CURRENT_VERSION)?;
    check_deletion_count(r, &after_files, after_deletion_files.as_deref(), "after")?;
    Ok(IncrementalSplit {
        version,
        snapshot_id,
        partition,
        bucket,
        total_buckets,
        before_files,
        before_deletion_files,
        after_files,
        after_deletion_files,
        is_streaming: r.bool("isStreaming")?,
    })
}

fn check_deletion_count(
    r: &WireReader<'_>,
    files: &[DataFileMeta],
    deletion_files: Option<&[Option<DeletionFile>]>,
    side: &str,
) -> Result<()> {
    match deletion_files {
        Some(d) if d.len() != files.len() => Err(r.corrupt(format!(
            "{} {side} deletion files for {} {side} files",
            d.len(),
            files.len()
        ))),
        _ => Ok(()),
    }
}

/// Encodes an `IncrementalSplit` body (no frame header), as Java's `IncrementalSplit.serialize`
/// (also the payload of its Java object-stream image).
///
/// # Errors
/// [`Error::VersionMismatch`] for a body version other than 1 or 2 (Java 2.0's unversioned
/// form exists only in a frame); [`Error::Encode`] when a value cannot be carried.
pub(crate) fn write_incremental(w: &mut WireWriter, s: &IncrementalSplit) -> Result<()> {
    if s.version == INCREMENTAL_FRAME_JAVA_2_0 {
        return Err(Error::VersionMismatch {
            found: s.version,
            supported: "IncrementalSplit versions 1..=2 outside a SPLIT_V1 frame (Java 2.0's \
                        unversioned body is a frame's only)"
                .into(),
        });
    }
    write_incremental_in_frame(w, s)
}

/// The incremental split of a `SPLIT_V1` frame: Java 2.0's unversioned fields for
/// [`INCREMENTAL_FRAME_JAVA_2_0`], else the versioned body.
fn write_incremental_in_frame(w: &mut WireWriter, s: &IncrementalSplit) -> Result<()> {
    if s.version == INCREMENTAL_FRAME_JAVA_2_0 {
        if !(0..=i64::from(u32::MAX)).contains(&s.snapshot_id) {
            return Err(Error::Encode {
                reason: format!(
                    "snapshot id {} of an incremental split cannot be told from a body version \
                     in Java 2.0's frame layout (it needs 0..2^32)",
                    s.snapshot_id
                ),
            });
        }
    } else {
        w.i32(s.version);
    }
    w.i64(s.snapshot_id);
    write_serialized_row(w, &s.partition)?;
    w.i32(s.bucket);
    w.i32(s.total_buckets);
    let arity = incremental_file_arity(s.version)?;
    write_files(w, &s.before_files, arity)?;
    write_deletion_files(w, s.before_deletion_files.as_deref(), CURRENT_VERSION)?;
    write_files(w, &s.after_files, arity)?;
    write_deletion_files(w, s.after_deletion_files.as_deref(), CURRENT_VERSION)?;
    w.bool(s.is_streaming);
    Ok(())
}

fn read_indexed(r: &mut WireReader<'_>, version_seen: &mut Option<i32>) -> Result<IndexedSplit> {
    let magic = r.i64("IndexedSplit magic")?;
    if magic != INDEXED_SPLIT_MAGIC {
        return Err(r.corrupt(format!("wrong IndexedSplit magic {magic}")));
    }
    let version = r.i32("IndexedSplit version")?;
    if version != 1 {
        return Err(Error::VersionMismatch {
            found: version,
            supported: "IndexedSplit version 1".into(),
        });
    }
    let split = data_split_at(r, version_seen)?;
    let n = r.count("row range count", 16)?;
    let mut row_ranges = Vec::with_capacity(n);
    for _ in 0..n {
        row_ranges.push((r.i64("range from")?, r.i64("range to")?));
    }
    let scores = if r.bool("scores flag")? {
        let n = r.count("score count", 4)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(r.f32("score")?);
        }
        Some(v)
    } else {
        None
    };
    Ok(IndexedSplit {
        split,
        row_ranges,
        scores,
    })
}

/// The DataSplit version whose DataFileMeta layout a `ChainSplit` body version uses: 1 and 2
/// (Java 2.0) the 20-field layout of v8, 3 (2.1) the 21-field one of v9 (Java
/// `ChainSplit.deserialize`: `DataFileMetaWriteColsLegacySerializer` up to version 2).
fn chain_files_version(version: i32) -> i32 {
    if version <= 2 {
        8
    } else {
        CURRENT_FILE_ARITY_VERSION
    }
}

fn read_chain(r: &mut WireReader<'_>) -> Result<ChainSplit> {
    let version = r.i32("chain split version")?;
    if !(1..=3).contains(&version) {
        return Err(Error::VersionMismatch {
            found: version,
            supported: "ChainSplit versions 1..=3".into(),
        });
    }
    let logical_partition = read_serialized_row(r, "logical partition")?;
    let data_files = read_files(r, chain_files_version(version), "chain file count")?;
    let file_bucket_path_mapping = read_utf_map(r)?;
    let file_branch_mapping = read_utf_map(r)?;
    // Version 1 has no deletion files; 2 (Java 2.0) and 3 (2.1) always have the list.
    let deletion_files = if version > 1 {
        read_deletion_files(r, CURRENT_VERSION)?
    } else {
        None
    };
    Ok(ChainSplit {
        version,
        logical_partition,
        data_files,
        file_bucket_path_mapping,
        file_branch_mapping,
        deletion_files,
    })
}

fn read_utf_map(r: &mut WireReader<'_>) -> Result<Vec<(String, String)>> {
    let n = r.count("map size", 4)?;
    let mut m = Vec::with_capacity(n);
    for _ in 0..n {
        let k = r.utf("map key")?;
        let v = r.utf("map value")?;
        m.push((k, v));
    }
    Ok(m)
}

fn write_utf_map(w: &mut WireWriter, m: &[(String, String)]) -> Result<()> {
    w.len(m.len())?;
    for (k, v) in m {
        w.utf(k)?;
        w.utf(v)?;
    }
    Ok(())
}

fn read_string(r: &mut WireReader<'_>) -> Result<Option<String>> {
    let at = r.position();
    let len = r.i32("string length")?;
    if len < 0 {
        return Ok(None);
    }
    let bytes = r.take(len as usize, "string")?;
    String::from_utf8(bytes.to_vec())
        .map(Some)
        .map_err(|_| Error::Corrupt {
            offset: at,
            reason: "string is not UTF-8".into(),
        })
}

fn write_string(w: &mut WireWriter, s: &str) -> Result<()> {
    w.len(s.len())?;
    w.bytes(s.as_bytes());
    Ok(())
}

fn read_string_list(r: &mut WireReader<'_>) -> Result<Option<Vec<String>>> {
    if !r.bool("list flag")? {
        return Ok(None);
    }
    let n = r.count("list size", 4)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(read_string(r)?.unwrap_or_default());
    }
    Ok(Some(v))
}

fn write_string_list(w: &mut WireWriter, v: Option<&[String]>) -> Result<()> {
    let Some(v) = v else {
        w.bool(false);
        return Ok(());
    };
    w.bool(true);
    w.len(v.len())?;
    for s in v {
        write_string(w, s)?;
    }
    Ok(())
}

fn read_string_map(r: &mut WireReader<'_>) -> Result<Option<BTreeMap<String, String>>> {
    if !r.bool("map flag")? {
        return Ok(None);
    }
    let n = r.count("map size", 8)?;
    let mut m = BTreeMap::new();
    for _ in 0..n {
        let k = read_string(r)?.unwrap_or_default();
        let v = read_string(r)?.unwrap_or_default();
        m.insert(k, v);
    }
    Ok(Some(m))
}

fn write_string_map(w: &mut WireWriter, m: Option<&BTreeMap<String, String>>) -> Result<()> {
    let Some(m) = m else {
        w.bool(false);
        return Ok(());
    };
    w.bool(true);
    w.len(m.len())?;
    for (k, v) in m {
        write_string(w, k)?;
        write_string(w, v)?;
    }
    Ok(())
}
