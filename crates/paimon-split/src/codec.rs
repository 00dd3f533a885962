//! `DataSplit.serialize` / `deserialize` (Java `DataSplit`), versions 1 through 9.
//!
//! ```text
//! [MAGIC i64][VERSION i32]            (absent in v1)
//! snapshotId i64 | partition [len][arity][row] | bucket i32 | bucketPath UTF
//! [totalBuckets: flag byte (+ i32)]   (v6+)
//! before files | before deletion files | data files | data deletion files
//! isStreaming bool | rawConvertible bool
//! ```

use paimon_spec::binary::BinaryRow;
use paimon_spec::data_file::{DataFileMeta, DeletionFile};

use crate::error::{Error, Result};
use crate::split::DataSplit;
use crate::wire::{WireReader, WireWriter};

/// `DataSplit.MAGIC`.
pub const DATA_SPLIT_MAGIC: i64 = -2394839472490812314;
/// The newest DataSplit version (Paimon master / 2.1).
pub const CURRENT_VERSION: i32 = 9;
/// The oldest version this codec reads.
pub const OLDEST_VERSION: i32 = 1;

/// DataFileMeta arity carried by each DataSplit version.
pub fn file_meta_arity(version: i32) -> Option<usize> {
    match version {
        1 => Some(15),
        2 => Some(16),
        3 | 4 => Some(17),
        5 | 6 => Some(18),
        7 => Some(19),
        8 => Some(20),
        9 => Some(21),
        _ => None,
    }
}

pub(crate) fn spec_err(offset: usize) -> impl Fn(paimon_spec::Error) -> Error {
    move |source| Error::Spec { offset, source }
}

/// Decodes one DataSplit at the reader's position (any version, v1 detected by the missing magic).
///
/// # Errors
/// [`Error::Corrupt`] on malformed bytes, [`Error::VersionMismatch`] on an unknown version.
pub fn read_data_split(r: &mut WireReader<'_>) -> Result<(DataSplit, i32)> {
    let first = r.i64("DataSplit magic or snapshot id")?;
    let (version, snapshot_id) = if first == DATA_SPLIT_MAGIC {
        let v = r.i32("DataSplit version")?;
        if file_meta_arity(v).is_none() {
            return Err(Error::VersionMismatch {
                found: v,
                supported: format!("{OLDEST_VERSION}..={CURRENT_VERSION}"),
            });
        }
        // Java reads no snapshot id after `[MAGIC][1]`: the leading long is the v1 snapshot id.
        let snapshot_id = if v == 1 { first } else { r.i64("snapshot id")? };
        (v, snapshot_id)
    } else {
        (1, first)
    };
    let partition = read_serialized_row(r, "partition")?;
    let bucket = r.i32("bucket")?;
    let bucket_path = r.utf("bucket path")?;
    let total_buckets = if version >= 6 && r.bool("total buckets flag")? {
        Some(r.i32("total buckets")?)
    } else {
        None
    };
    let before_files = read_files(r, version, "before file count")?;
    if version >= 9 && !before_files.is_empty() {
        // Java writes no before files since 1.4 and its readers reject them; v9 cannot carry any.
        return Err(r.corrupt(format!(
            "DataSplit v{version} with {} before files",
            before_files.len()
        )));
    }
    let before_deletion_files = read_deletion_files(r, version)?;
    if version >= 9 && before_deletion_files.is_some() {
        return Err(r.corrupt(format!(
            "DataSplit v{version} with a before-deletion-file list"
        )));
    }
    let data_files = read_files(r, version, "data file count")?;
    let data_deletion_files = read_deletion_files(r, version)?;
    if let Some(d) = &data_deletion_files {
        if d.len() != data_files.len() {
            return Err(r.corrupt(format!(
                "{} deletion files for {} data files",
                d.len(),
                data_files.len()
            )));
        }
    }
    let is_streaming = r.bool("isStreaming")?;
    let raw_convertible = r.bool("rawConvertible")?;
    Ok((
        DataSplit {
            snapshot_id,
            partition,
            bucket,
            bucket_path,
            total_buckets,
            before_files,
            before_deletion_files,
            data_files,
            data_deletion_files,
            is_streaming,
            raw_convertible,
        },
        version,
    ))
}

/// Reads `[len = 4 + size: i32][arity: i32][row bytes]` and returns `[arity][row bytes]`.
pub(crate) fn read_serialized_row(r: &mut WireReader<'_>, what: &str) -> Result<Vec<u8>> {
    let at = r.position();
    let len = r.i32(what)?;
    let len = usize::try_from(len)
        .ok()
        .filter(|l| *l >= 4)
        .ok_or_else(|| r.corrupt(format!("{what} length {len} is below 4")))?;
    let bytes = r.take(len, what)?;
    BinaryRow::from_serialized(bytes).map_err(spec_err(at))?;
    Ok(bytes.to_vec())
}

pub(crate) fn write_serialized_row(w: &mut WireWriter, serialized: &[u8]) -> Result<()> {
    w.len(serialized.len())?;
    w.bytes(serialized);
    Ok(())
}

/// Reads a file list: i32 count, then `[size: i32][DataFileMeta row]` per file.
pub(crate) fn read_files(
    r: &mut WireReader<'_>,
    version: i32,
    what: &str,
) -> Result<Vec<DataFileMeta>> {
    let arity = file_meta_arity(version).ok_or_else(|| Error::VersionMismatch {
        found: version,
        supported: format!("{OLDEST_VERSION}..={CURRENT_VERSION}"),
    })?;
    read_files_of_arity(r, arity, what)
}

/// Reads a file list whose DataFileMeta rows have `arity` fields (Java
/// `ObjectSerializer.deserializeList`): i32 count, then `[size: i32][row]` per file.
pub(crate) fn read_files_of_arity(
    r: &mut WireReader<'_>,
    arity: usize,
    what: &str,
) -> Result<Vec<DataFileMeta>> {
    // Each file takes at least a 4-byte size plus its fixed part.
    let n = r.count(what, 4 + 8 + 8 * arity)?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        files.push(read_file_meta(r, arity)?);
    }
    Ok(files)
}

/// Reads one `[size: i32][row bytes]` DataFileMeta of `arity` fields.
pub(crate) fn read_file_meta(r: &mut WireReader<'_>, arity: usize) -> Result<DataFileMeta> {
    let at = r.position();
    let size = r.count("data file meta size", 1)?;
    let bytes = r.take(size, "data file meta")?;
    let row = BinaryRow::new(bytes, arity).map_err(spec_err(at))?;
    DataFileMeta::from_row(&row).map_err(spec_err(at))
}

pub(crate) fn write_files(w: &mut WireWriter, files: &[DataFileMeta], arity: usize) -> Result<()> {
    w.len(files.len())?;
    for f in files {
        let row = f.to_row_bytes(arity).map_err(|e| Error::Encode {
            reason: format!("data file {}: {e}", f.file_name),
        })?;
        w.len(row.len())?;
        w.bytes(&row);
    }
    Ok(())
}

/// Reads a nullable list of nullable deletion files (Java `DeletionFile.deserializeList`).
pub(crate) fn read_deletion_files(
    r: &mut WireReader<'_>,
    version: i32,
) -> Result<Option<Vec<Option<DeletionFile>>>> {
    if r.u8("deletion file list flag")? == 0 {
        return Ok(None);
    }
    let n = r.count("deletion file count", 1)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        if r.u8("deletion file flag")? == 0 {
            out.push(None);
            continue;
        }
        let path = r.utf("deletion file path")?;
        let offset = r.i64("deletion file offset")?;
        let length = r.i64("deletion file length")?;
        let cardinality = if version >= 4 {
            Some(r.i64("deletion file cardinality")?).filter(|c| *c != -1)
        } else {
            None
        };
        out.push(Some(DeletionFile {
            path,
            offset,
            length,
            cardinality,
        }));
    }
    Ok(Some(out))
}

pub(crate) fn write_deletion_files(
    w: &mut WireWriter,
    files: Option<&[Option<DeletionFile>]>,
    version: i32,
) -> Result<()> {
    let Some(files) = files else {
        w.u8(0);
        return Ok(());
    };
    w.u8(1);
    w.len(files.len())?;
    for f in files {
        match f {
            None => w.u8(0),
            Some(f) => {
                w.u8(1);
                w.utf(&f.path)?;
                w.i64(f.offset);
                w.i64(f.length);
                if version >= 4 {
                    w.i64(f.cardinality.unwrap_or(-1));
                }
            }
        }
    }
    Ok(())
}

/// Encodes a DataSplit at `version` (1..=9), exactly as that Java release writes it.
///
/// # Errors
/// [`Error::VersionMismatch`] for an unknown version; [`Error::Encode`] when the split holds
/// something the version cannot carry (a bucket path over 65535 bytes, before files at v9).
pub fn write_data_split(w: &mut WireWriter, split: &DataSplit, version: i32) -> Result<()> {
    let arity = file_meta_arity(version).ok_or_else(|| Error::VersionMismatch {
        found: version,
        supported: format!("{OLDEST_VERSION}..={CURRENT_VERSION}"),
    })?;
    if version >= 9 && (!split.before_files.is_empty() || split.before_deletion_files.is_some()) {
        return Err(Error::Encode {
            reason: "DataSplit v9 cannot carry before files".into(),
        });
    }
    if version >= 2 {
        w.i64(DATA_SPLIT_MAGIC);
        w.i32(version);
    }
    w.i64(split.snapshot_id);
    write_serialized_row(w, &split.partition)?;
    w.i32(split.bucket);
    w.utf(&split.bucket_path)?;
    if version >= 6 {
        match split.total_buckets {
            Some(t) => {
                w.bool(true);
                w.i32(t);
            }
            None => w.bool(false),
        }
    }
    write_files(w, &split.before_files, arity)?;
    write_deletion_files(w, split.before_deletion_files.as_deref(), version)?;
    write_files(w, &split.data_files, arity)?;
    write_deletion_files(w, split.data_deletion_files.as_deref(), version)?;
    w.bool(split.is_streaming);
    w.bool(split.raw_convertible);
    Ok(())
}
