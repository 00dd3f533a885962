//! A specialized decoder of Avro data manifests: walks the binary encoding directly against
//! the writer schema and builds [`ManifestEntry`] / [`DataFileMeta`] straight from the bytes,
//! without the generic [`paimon_format::value::Value`] tree.
//!
//! The writer schema is resolved once per file into a [`EntryPlan`]: for every writer field, in
//! writer order, the action to take (one of the fields we know, by name as Java maps them, or
//! skip). Missing fields behave as null, exactly like the generic path
//! ([`ManifestEntry::from_record`]), so both decoders accept and reject the same files.

use paimon_spec::data_file::DataFileMeta;
use paimon_spec::stats::{row_bytes, zero_null_counts, NullCounts, RowBytes, SimpleStats};

use super::entry::{FileKind, ManifestEntry, FORMAT_IDENTIFIER};
use paimon_format::avro::{Cursor, RecordSchema, Schema};
use paimon_format::{Error, Result};

/// What the decoder keeps of each entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Keep `_VALUE_STATS` (min/max rows and null counts). When false the entry carries
    /// [`SimpleStats::empty`] instead, and no bytes are copied for them.
    pub keep_value_stats: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            keep_value_stats: true,
        }
    }
}

/// Top-level fields of a manifest entry.
#[derive(Debug, Clone, Copy)]
enum Top {
    Version,
    Kind,
    Partition,
    Bucket,
    TotalBuckets,
    File,
    Skip,
}

/// Fields of `_FILE` (Java `DataFileMeta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum F {
    FileName,
    FileSize,
    RowCount,
    MinKey,
    MaxKey,
    KeyStats,
    ValueStats,
    MinSeq,
    MaxSeq,
    SchemaId,
    Level,
    ExtraFiles,
    CreationTime,
    DeleteRowCount,
    EmbeddedIndex,
    FileSource,
    ValueStatsCols,
    ExternalPath,
    FirstRowId,
    WriteCols,
    WriteColsSequences,
    Skip,
}

/// Fields of a stats record (Java `SimpleStats`).
#[derive(Debug, Clone, Copy)]
enum S {
    Min,
    Max,
    NullCounts,
    Skip,
}

/// The writer schema of one manifest file, resolved into field actions.
#[derive(Debug)]
pub struct EntryPlan {
    schema: Schema,
    record: std::sync::Arc<RecordSchema>,
    top: Vec<(Top, Schema)>,
    has_version: bool,
    file: Option<FilePlan>,
}

#[derive(Debug)]
struct FilePlan {
    record: std::sync::Arc<RecordSchema>,
    fields: Vec<(F, Schema)>,
    key_stats: Option<StatsPlan>,
    value_stats: Option<StatsPlan>,
}

#[derive(Debug)]
struct StatsPlan {
    record: std::sync::Arc<RecordSchema>,
    fields: Vec<(S, Schema)>,
}

/// The first record schema of `s` (itself or a union branch).
fn record_of(s: &Schema) -> Option<&std::sync::Arc<RecordSchema>> {
    match s {
        Schema::Record(r) => Some(r),
        Schema::Union(b) => b.iter().find_map(|x| match x {
            Schema::Record(r) => Some(r),
            _ => None,
        }),
        _ => None,
    }
}

/// Pairs each field of a writer record with the action `act` picks for it (by name).
fn plan_fields<A>(r: &RecordSchema, mut act: impl FnMut(&str, &Schema) -> A) -> Vec<(A, Schema)> {
    r.names
        .iter()
        .zip(&r.fields)
        .map(|(n, s)| (act(n, s), s.clone()))
        .collect()
}

impl StatsPlan {
    fn new(r: &std::sync::Arc<RecordSchema>) -> Self {
        let fields = plan_fields(r, |n, _| match n {
            "_MIN_VALUES" => S::Min,
            "_MAX_VALUES" => S::Max,
            "_NULL_COUNTS" => S::NullCounts,
            _ => S::Skip,
        });
        StatsPlan {
            record: r.clone(),
            fields,
        }
    }
}

impl FilePlan {
    fn new(r: &std::sync::Arc<RecordSchema>) -> Self {
        let mut key_stats = None;
        let mut value_stats = None;
        let fields = plan_fields(r, |n, s| {
            let a = match n {
                "_FILE_NAME" => F::FileName,
                "_FILE_SIZE" => F::FileSize,
                "_ROW_COUNT" => F::RowCount,
                "_MIN_KEY" => F::MinKey,
                "_MAX_KEY" => F::MaxKey,
                "_KEY_STATS" => F::KeyStats,
                "_VALUE_STATS" => F::ValueStats,
                "_MIN_SEQUENCE_NUMBER" => F::MinSeq,
                "_MAX_SEQUENCE_NUMBER" => F::MaxSeq,
                "_SCHEMA_ID" => F::SchemaId,
                "_LEVEL" => F::Level,
                "_EXTRA_FILES" => F::ExtraFiles,
                "_CREATION_TIME" => F::CreationTime,
                "_DELETE_ROW_COUNT" => F::DeleteRowCount,
                "_EMBEDDED_FILE_INDEX" => F::EmbeddedIndex,
                "_FILE_SOURCE" => F::FileSource,
                "_VALUE_STATS_COLS" => F::ValueStatsCols,
                "_EXTERNAL_PATH" => F::ExternalPath,
                "_FIRST_ROW_ID" => F::FirstRowId,
                "_WRITE_COLS" => F::WriteCols,
                "_WRITE_COLS_SEQUENCES" => F::WriteColsSequences,
                _ => F::Skip,
            };
            match a {
                F::KeyStats if key_stats.is_none() => key_stats = record_of(s).map(StatsPlan::new),
                F::ValueStats if value_stats.is_none() => {
                    value_stats = record_of(s).map(StatsPlan::new)
                }
                _ => {}
            }
            a
        });
        FilePlan {
            record: r.clone(),
            fields,
            key_stats,
            value_stats,
        }
    }
}

impl EntryPlan {
    /// Resolves a writer schema.
    ///
    /// # Errors
    /// A reason when the top-level schema is not a record.
    pub fn new(schema: &Schema) -> Result<Self> {
        let Some(r) = record_of(schema) else {
            return Err(corrupt("top-level schema of a manifest is not a record"));
        };
        let mut has_version = false;
        let mut file = None;
        let top = plan_fields(r, |n, s| match n {
            "_VERSION" => {
                has_version = true;
                Top::Version
            }
            "_KIND" => Top::Kind,
            "_PARTITION" => Top::Partition,
            "_BUCKET" => Top::Bucket,
            "_TOTAL_BUCKETS" => Top::TotalBuckets,
            "_FILE" => {
                if file.is_none() {
                    file = record_of(s).map(FilePlan::new);
                }
                Top::File
            }
            _ => Top::Skip,
        });
        Ok(EntryPlan {
            schema: schema.clone(),
            record: r.clone(),
            top,
            has_version,
            file,
        })
    }
}

/// A scalar read against the writer schema, borrowing the block's bytes.
enum Lite<'a> {
    Null,
    Long(i64),
    Bytes(&'a [u8]),
    Str(&'a str),
    /// A record, array, map, float, boolean or enum: not what any known field holds.
    Other,
}

fn lite<'a>(c: &mut Cursor<'a>, schema: &Schema) -> Result<Lite<'a>> {
    let s = c.read_union_branch(schema)?;
    Ok(match s {
        Schema::Null => Lite::Null,
        Schema::Int => Lite::Long(i64::from(c.read_int()?)),
        Schema::Long => Lite::Long(c.read_long()?),
        Schema::Bytes => Lite::Bytes(c.read_bytes()?),
        Schema::Fixed(n) => Lite::Bytes(c.take(*n)?),
        Schema::String => Lite::Str(
            std::str::from_utf8(c.read_bytes()?)
                .map_err(|e| corrupt(format!("invalid UTF-8 string: {e}")))?,
        ),
        other => {
            c.skip_value(other)?;
            Lite::Other
        }
    })
}

/// Reads an array (or null) against the writer schema, calling `item` on each element.
/// Returns false for null.
fn array<'a>(
    c: &mut Cursor<'a>,
    schema: &Schema,
    field: &str,
    mut item: impl FnMut(Lite<'a>) -> Result<()>,
) -> Result<bool> {
    array_sized(c, schema, field, |e| match e {
        ArrayEvent::Block(_) => Ok(()),
        ArrayEvent::Item(x) => item(x),
    })
}

/// What [`array_sized`] reports: a block's element count (bounded by the bytes left), then
/// its elements.
enum ArrayEvent<'a> {
    Block(usize),
    Item(Lite<'a>),
}

/// [`array`] that also reports each block's size first, so that collections can be allocated
/// at their exact size.
fn array_sized<'a>(
    c: &mut Cursor<'a>,
    schema: &Schema,
    field: &str,
    mut event: impl FnMut(ArrayEvent<'a>) -> Result<()>,
) -> Result<bool> {
    let s = c.read_union_branch(schema)?;
    let items = match s {
        Schema::Null => return Ok(false),
        Schema::Array(items) => items,
        other => {
            c.skip_value(other)?;
            return Err(corrupt(bad(field)));
        }
    };
    let empty = items.can_be_empty();
    loop {
        let n = c.read_block_count(empty)?;
        if n == 0 {
            break;
        }
        event(ArrayEvent::Block(n.min(c.remaining())))?;
        for _ in 0..n {
            event(ArrayEvent::Item(lite(c, items)?))?;
        }
    }
    Ok(true)
}

fn bad(field: &str) -> String {
    format!("field {field} is missing or ill-typed")
}

fn req_long(v: Lite<'_>, field: &str) -> Result<i64> {
    match v {
        Lite::Long(v) => Ok(v),
        _ => Err(corrupt(bad(field))),
    }
}

fn non_negative(v: i64, field: &str) -> Result<i64> {
    if v < 0 {
        Err(corrupt(format!("{field} is negative ({v})")))
    } else {
        Ok(v)
    }
}

fn req_bytes(v: Lite<'_>, field: &str) -> Result<Vec<u8>> {
    match v {
        Lite::Bytes(b) => Ok(b.to_vec()),
        _ => Err(corrupt(bad(field))),
    }
}

/// A serialized row (a key or a stats row), shared when it is the empty row.
fn req_row(v: Lite<'_>, field: &str) -> Result<RowBytes> {
    match v {
        Lite::Bytes(b) => Ok(row_bytes(b)),
        _ => Err(corrupt(bad(field))),
    }
}

fn strings(c: &mut Cursor<'_>, schema: &Schema, field: &str) -> Result<Option<Vec<String>>> {
    let mut out = Vec::new();
    let present = array(c, schema, field, |x| match x {
        Lite::Str(s) => {
            out.push(s.to_string());
            Ok(())
        }
        _ => Err(corrupt(bad(field))),
    })?;
    Ok(present.then_some(out))
}

/// Reads a stats record; with `keep` false the bytes are walked but nothing is copied.
fn stats(
    c: &mut Cursor<'_>,
    schema: &Schema,
    plan: Option<&StatsPlan>,
    field: &str,
    keep: bool,
) -> Result<Option<SimpleStats>> {
    let s = c.read_union_branch(schema)?;
    let (Schema::Record(r), Some(plan)) = (s, plan) else {
        c.skip_value(s)?;
        return Err(corrupt(bad(field)));
    };
    if !std::sync::Arc::ptr_eq(r, &plan.record) && **r != *plan.record {
        return Err(corrupt(format!("{field}: more than one record layout")));
    }
    let mut min = None;
    let mut max = None;
    let mut nulls = None;
    for (a, fs) in &plan.fields {
        match a {
            S::Min => min = Some(lite(c, fs)?),
            S::Max => max = Some(lite(c, fs)?),
            S::NullCounts => {
                // Leading zero counts are only counted: when every count is zero (most files
                // have no nulls) they come out shared, without an allocation.
                let mut zeros = 0usize;
                let mut sized = 0usize;
                let mut v: Vec<Option<i64>> = Vec::new();
                let present = array_sized(c, fs, field, |e| {
                    match e {
                        _ if !keep => {}
                        ArrayEvent::Block(n) => sized = sized.saturating_add(n),
                        ArrayEvent::Item(x) => {
                            let count = match x {
                                Lite::Long(l) => Some(l),
                                _ => None,
                            };
                            if v.is_empty() && count == Some(0) {
                                zeros += 1;
                            } else {
                                if v.is_empty() {
                                    v.reserve_exact(sized);
                                    v.extend(std::iter::repeat_n(Some(0), zeros));
                                }
                                v.push(count);
                            }
                        }
                    }
                    Ok(())
                })?;
                nulls = present.then(|| match v.is_empty() {
                    true => zero_null_counts(zeros),
                    false => NullCounts::Owned(v),
                });
            }
            S::Skip => c.skip_value(fs)?,
        }
    }
    let (Some(Lite::Bytes(min)), Some(Lite::Bytes(max))) = (min, max) else {
        return Err(corrupt(bad(field)));
    };
    Ok(keep.then(|| SimpleStats {
        min_values: row_bytes(min),
        max_values: row_bytes(max),
        null_counts: nulls,
    }))
}

fn opt_long_lenient(v: Lite<'_>) -> Option<i64> {
    match v {
        Lite::Long(l) => Some(l),
        _ => None,
    }
}

fn data_file(c: &mut Cursor<'_>, plan: &FilePlan, opts: DecodeOptions) -> Result<DataFileMeta> {
    let mut file_name = None;
    let mut file_size = None;
    let mut row_count = None;
    let mut min_key = None;
    let mut max_key = None;
    let mut key_stats = None;
    let mut value_stats = None;
    let mut min_seq = None;
    let mut max_seq = None;
    let mut schema_id = None;
    let mut level = None;
    let mut extra_files = None;
    let mut creation_time = None;
    let mut delete_row_count = None;
    let mut embedded_index = None;
    let mut file_source = None;
    let mut value_stats_cols = None;
    let mut external_path = None;
    let mut first_row_id = None;
    let mut write_cols = None;
    let mut write_cols_sequences = None;
    for (a, s) in &plan.fields {
        match a {
            F::FileName => match lite(c, s)? {
                Lite::Str(v) => file_name = Some(v.to_string()),
                _ => return Err(corrupt(bad("_FILE_NAME"))),
            },
            F::FileSize => {
                file_size = Some(non_negative(
                    req_long(lite(c, s)?, "_FILE_SIZE")?,
                    "_FILE_SIZE",
                )?)
            }
            F::RowCount => {
                row_count = Some(non_negative(
                    req_long(lite(c, s)?, "_ROW_COUNT")?,
                    "_ROW_COUNT",
                )?)
            }
            F::MinKey => min_key = Some(req_row(lite(c, s)?, "_MIN_KEY")?),
            F::MaxKey => max_key = Some(req_row(lite(c, s)?, "_MAX_KEY")?),
            F::KeyStats => key_stats = stats(c, s, plan.key_stats.as_ref(), "_KEY_STATS", true)?,
            F::ValueStats => {
                value_stats = Some(
                    stats(
                        c,
                        s,
                        plan.value_stats.as_ref(),
                        "_VALUE_STATS",
                        opts.keep_value_stats,
                    )?
                    .unwrap_or_else(SimpleStats::empty),
                )
            }
            F::MinSeq => min_seq = Some(req_long(lite(c, s)?, "_MIN_SEQUENCE_NUMBER")?),
            F::MaxSeq => max_seq = Some(req_long(lite(c, s)?, "_MAX_SEQUENCE_NUMBER")?),
            F::SchemaId => schema_id = Some(req_long(lite(c, s)?, "_SCHEMA_ID")?),
            F::Level => {
                let v = req_long(lite(c, s)?, "_LEVEL")?;
                level = Some(i32::try_from(v).map_err(|_| corrupt(bad("_LEVEL")))?);
            }
            F::ExtraFiles => extra_files = strings(c, s, "_EXTRA_FILES")?,
            F::CreationTime => {
                creation_time = match lite(c, s)? {
                    Lite::Null => None,
                    Lite::Long(v) => Some(v),
                    _ => return Err(corrupt(bad("_CREATION_TIME"))),
                }
            }
            F::DeleteRowCount => delete_row_count = opt_long_lenient(lite(c, s)?),
            F::EmbeddedIndex => {
                embedded_index = match lite(c, s)? {
                    Lite::Null => None,
                    Lite::Bytes(b) => Some(b.to_vec()),
                    _ => return Err(corrupt(bad("_EMBEDDED_FILE_INDEX"))),
                }
            }
            F::FileSource => {
                file_source = match lite(c, s)? {
                    Lite::Null => None,
                    Lite::Long(v) => {
                        Some(i8::try_from(v).map_err(|_| corrupt(bad("_FILE_SOURCE")))?)
                    }
                    _ => return Err(corrupt(bad("_FILE_SOURCE"))),
                }
            }
            F::ValueStatsCols => value_stats_cols = strings(c, s, "_VALUE_STATS_COLS")?,
            F::ExternalPath => {
                external_path = match lite(c, s)? {
                    Lite::Null => None,
                    Lite::Str(v) => Some(v.to_string()),
                    _ => return Err(corrupt(bad("_EXTERNAL_PATH"))),
                }
            }
            F::FirstRowId => first_row_id = opt_long_lenient(lite(c, s)?),
            F::WriteCols => write_cols = strings(c, s, "_WRITE_COLS")?,
            F::WriteColsSequences => {
                let mut v = Vec::new();
                let present = array(c, s, "_WRITE_COLS_SEQUENCES", |x| {
                    v.push(req_long(x, "_WRITE_COLS_SEQUENCES")?);
                    Ok(())
                })?;
                write_cols_sequences = present.then_some(v);
            }
            F::Skip => c.skip_value(s)?,
        }
    }
    let req = |v: Option<i64>, f: &str| v.ok_or_else(|| corrupt(bad(f)));
    Ok(DataFileMeta {
        file_name: file_name.ok_or_else(|| corrupt(bad("_FILE_NAME")))?,
        file_size: req(file_size, "_FILE_SIZE")?,
        row_count: req(row_count, "_ROW_COUNT")?,
        min_key: min_key.ok_or_else(|| corrupt(bad("_MIN_KEY")))?,
        max_key: max_key.ok_or_else(|| corrupt(bad("_MAX_KEY")))?,
        key_stats: key_stats.ok_or_else(|| corrupt(bad("_KEY_STATS")))?,
        value_stats: value_stats.ok_or_else(|| corrupt(bad("_VALUE_STATS")))?,
        min_sequence_number: req(min_seq, "_MIN_SEQUENCE_NUMBER")?,
        max_sequence_number: req(max_seq, "_MAX_SEQUENCE_NUMBER")?,
        schema_id: req(schema_id, "_SCHEMA_ID")?,
        level: level.ok_or_else(|| corrupt(bad("_LEVEL")))?,
        extra_files: extra_files.unwrap_or_default(),
        creation_time,
        delete_row_count,
        embedded_index,
        file_source,
        value_stats_cols,
        external_path,
        first_row_id,
        write_cols,
        write_cols_sequences,
    })
}

/// Decodes one manifest entry at the cursor.
///
/// # Errors
/// A reason when the bytes or fields are malformed. An unsupported `_VERSION` is reported with
/// the prefix `"unsupported version "` followed by the number.
pub fn decode_entry(
    c: &mut Cursor<'_>,
    plan: &EntryPlan,
    opts: DecodeOptions,
) -> Result<ManifestEntry> {
    match c.read_union_branch(&plan.schema)? {
        Schema::Record(r) if std::sync::Arc::ptr_eq(r, &plan.record) || **r == *plan.record => {}
        _ => return Err(corrupt("top-level value is not the manifest entry record")),
    }
    let mut version = None;
    let mut kind = None;
    let mut partition = None;
    let mut bucket = None;
    let mut total_buckets = None;
    let mut file = None;
    for (a, s) in &plan.top {
        match a {
            Top::Version => version = Some(lite(c, s)?),
            Top::Kind => kind = Some(req_long(lite(c, s)?, "_KIND")?),
            Top::Partition => partition = Some(req_bytes(lite(c, s)?, "_PARTITION")?),
            Top::Bucket => {
                let v = req_long(lite(c, s)?, "_BUCKET")?;
                bucket = Some(i32::try_from(v).map_err(|_| corrupt(bad("_BUCKET")))?);
            }
            Top::TotalBuckets => {
                total_buckets = match lite(c, s)? {
                    Lite::Null => None,
                    Lite::Long(v) => {
                        Some(i32::try_from(v).map_err(|_| corrupt(bad("_TOTAL_BUCKETS")))?)
                    }
                    _ => return Err(corrupt(bad("_TOTAL_BUCKETS"))),
                }
            }
            Top::File => {
                let fs = c.read_union_branch(s)?;
                let (Schema::Record(r), Some(fp)) = (fs, plan.file.as_ref()) else {
                    c.skip_value(fs)?;
                    return Err(corrupt(bad("_FILE")));
                };
                if !std::sync::Arc::ptr_eq(r, &fp.record) && **r != *fp.record {
                    return Err(corrupt("_FILE: more than one record layout"));
                }
                file = Some(Box::new(data_file(c, fp, opts)?));
            }
            Top::Skip => c.skip_value(s)?,
        }
    }
    if plan.has_version {
        match version {
            Some(Lite::Long(v)) if v == FORMAT_IDENTIFIER => {}
            Some(Lite::Long(v)) => return Err(corrupt(format!("unsupported version {v}"))),
            _ => return Err(corrupt(bad("_VERSION"))),
        }
    }
    let kind = FileKind::from_i64(kind.ok_or_else(|| corrupt(bad("_KIND")))?)
        .ok_or_else(|| corrupt("field _KIND: not 0 (ADD) or 1 (DELETE)"))?;
    Ok(ManifestEntry {
        kind,
        partition: partition.ok_or_else(|| corrupt(bad("_PARTITION")))?,
        bucket: bucket.ok_or_else(|| corrupt(bad("_BUCKET")))?,
        total_buckets: total_buckets.unwrap_or(-1),
        file: file.ok_or_else(|| corrupt(bad("_FILE")))?,
    })
}

/// An [`Error::Corrupt`] of a manifest entry: `reason` names the field and what is wrong.
fn corrupt(reason: impl Into<String>) -> Error {
    Error::corrupt("manifest entry", reason)
}

#[cfg(test)]
mod tests;
