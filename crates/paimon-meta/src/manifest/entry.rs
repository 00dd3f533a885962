//! Data manifest entries (Java `ManifestEntry`, `DataFileMeta`).

use paimon_spec::binary::Datum;
use paimon_spec::data_file::DataFileMeta;

use paimon_spec::stats::SimpleStats;

use super::entry_decoder::{decode_entry, DecodeOptions, EntryPlan};
use super::Fields;
use crate::error::{Error, Result};
use paimon_format::value::{Record, Value};

/// Whether an entry adds or deletes a file (Java `FileKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// 0: the file becomes live.
    Add,
    /// 1: the file is removed.
    Delete,
}

impl FileKind {
    /// From the stored byte.
    pub fn from_i64(v: i64) -> Option<Self> {
        match v {
            0 => Some(FileKind::Add),
            1 => Some(FileKind::Delete),
            _ => None,
        }
    }
}

/// One entry of a data manifest (Java `ManifestEntry`).
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestEntry {
    /// ADD or DELETE.
    pub kind: FileKind,
    /// Partition row, serialized with its arity prefix.
    pub partition: Vec<u8>,
    /// Bucket (-2 = postpone).
    pub bucket: i32,
    /// The table's bucket count when written.
    pub total_buckets: i32,
    /// The data file (boxed: entries are moved around while planning, the file is not).
    pub file: Box<DataFileMeta>,
}

/// `_VERSION` of manifest entries (Java `ManifestEntrySerializer`).
pub(super) const FORMAT_IDENTIFIER: i64 = 2;

/// DataFileMeta field names in Java's order (`DataFileMeta.SCHEMA`).
const FILE_FIELDS: [&str; 21] = [
    "_FILE_NAME",
    "_FILE_SIZE",
    "_ROW_COUNT",
    "_MIN_KEY",
    "_MAX_KEY",
    "_KEY_STATS",
    "_VALUE_STATS",
    "_MIN_SEQUENCE_NUMBER",
    "_MAX_SEQUENCE_NUMBER",
    "_SCHEMA_ID",
    "_LEVEL",
    "_EXTRA_FILES",
    "_CREATION_TIME",
    "_DELETE_ROW_COUNT",
    "_EMBEDDED_FILE_INDEX",
    "_FILE_SOURCE",
    "_VALUE_STATS_COLS",
    "_EXTERNAL_PATH",
    "_FIRST_ROW_ID",
    "_WRITE_COLS",
    "_WRITE_COLS_SEQUENCES",
];

impl ManifestEntry {
    /// Decodes a data manifest file.
    ///
    /// # Errors
    /// `Corrupt` naming `path` on malformed bytes or fields.
    pub fn decode_manifest(path: &str, bytes: bytes::Bytes) -> Result<Vec<ManifestEntry>> {
        Self::decode_manifest_with(path, bytes, DecodeOptions::default())
    }

    /// Decodes a data manifest file, keeping what `opts` asks for. Avro manifests are walked
    /// directly against their writer schema (`entry_decoder`); should that fail, the
    /// file is decoded again through the generic value tree so that errors (and any layout the
    /// fast path does not know) behave exactly as before.
    ///
    /// # Errors
    /// `Corrupt` naming `path` on malformed bytes or fields.
    pub fn decode_manifest_with(
        path: &str,
        bytes: bytes::Bytes,
        opts: DecodeOptions,
    ) -> Result<Vec<ManifestEntry>> {
        let budget = paimon_format::avro::InflateBudget::for_file(bytes.len());
        Self::decode_manifest_within(path, bytes, opts, &budget)
    }

    /// [`ManifestEntry::decode_manifest_with`] with an Avro file's inflated blocks taken from
    /// `budget` (each decoding pass afresh). A file whose blocks inflate beyond it is not
    /// decoded again by the generic path.
    ///
    /// # Errors
    /// As [`ManifestEntry::decode_manifest_with`]; [`Error::ResourcesExhausted`] when the
    /// budget was bounded by a memory pool and is exceeded.
    pub(crate) fn decode_manifest_within(
        path: &str,
        bytes: bytes::Bytes,
        opts: DecodeOptions,
        budget: &paimon_format::avro::InflateBudget,
    ) -> Result<Vec<ManifestEntry>> {
        if bytes.starts_with(paimon_format::avro::MAGIC) {
            let mut out = Vec::new();
            let fast_budget = budget.renewed();
            let fast = paimon_format::avro::for_each_block_within(
                &bytes,
                &fast_budget,
                |h| EntryPlan::new(&h.schema),
                |plan, c, count| {
                    out.reserve(count.min(c.remaining()));
                    for _ in 0..count {
                        out.push(decode_entry(c, plan, opts)?);
                    }
                    Ok(())
                },
            );
            match fast {
                Ok(()) => {
                    check_file_names(path, &out)?;
                    return Ok(out);
                }
                Err(reason) if fast_budget.exhausted() => {
                    return Err(super::avro_error(path, &fast_budget, reason));
                }
                Err(_) => {}
            }
        }
        let mut entries = Self::decode_generic(path, bytes, &budget.renewed())?;
        if !opts.keep_value_stats {
            for e in &mut entries {
                e.file.value_stats = SimpleStats::empty();
            }
        }
        check_file_names(path, &entries)?;
        Ok(entries)
    }

    /// Locates the blocks of a data manifest so that they can be decoded independently
    /// ([`ManifestBlocks`]); a manifest the block decoder cannot walk (not Avro, or a writer
    /// schema it does not know) has no blocks and is decoded whole.
    #[cfg(test)]
    pub(crate) fn blocks(path: String, bytes: bytes::Bytes) -> ManifestBlocks {
        Self::blocks_within(path, bytes, None)
    }

    /// [`ManifestEntry::blocks`] read within a memory pool with `pool_free` bytes free
    /// (`None`: no limit): the blocks may inflate to no more than that together
    /// ([`paimon_format::avro::InflateBudget::for_file_within`]).
    pub(crate) fn blocks_within(
        path: String,
        bytes: bytes::Bytes,
        pool_free: Option<usize>,
    ) -> ManifestBlocks {
        let fast = if bytes.starts_with(paimon_format::avro::MAGIC) {
            paimon_format::avro::locate_blocks(&bytes)
                .ok()
                .and_then(|(h, spans)| EntryPlan::new(&h.schema).ok().map(|p| (h, p, spans)))
        } else {
            None
        };
        let mut first = Vec::new();
        let mut n = 0usize;
        for s in fast.iter().flat_map(|f| &f.2) {
            first.push(n);
            n = n.saturating_add(s.count);
        }
        ManifestBlocks {
            budget: paimon_format::avro::InflateBudget::for_file_within(bytes.len(), pool_free),
            path,
            bytes,
            fast,
            first,
        }
    }

    #[cfg(test)]
    pub(super) fn decode_generic_for_tests(
        path: &str,
        bytes: bytes::Bytes,
    ) -> Result<Vec<ManifestEntry>> {
        let budget = paimon_format::avro::InflateBudget::for_file(bytes.len());
        Self::decode_generic(path, bytes, &budget)
    }

    /// Decodes through the generic Avro/ORC value tree.
    fn decode_generic(
        path: &str,
        bytes: bytes::Bytes,
        budget: &paimon_format::avro::InflateBudget,
    ) -> Result<Vec<ManifestEntry>> {
        let f = Fields {
            path,
            what: "manifest entry",
        };
        super::decode_records_within(path, bytes, budget)?
            .into_iter()
            .map(|r| Self::from_record(&f, r))
            .collect()
    }

    fn from_record(f: &Fields<'_>, mut r: Record) -> Result<ManifestEntry> {
        f.check_version(&r, FORMAT_IDENTIFIER)?;
        let kind = FileKind::from_i64(f.long(&r, "_KIND")?)
            .ok_or_else(|| f.err("_KIND", "not 0 (ADD) or 1 (DELETE)"))?;
        let partition = f.bytes(&r, "_PARTITION")?;
        let bucket = f.int(&r, "_BUCKET")?;
        let total_buckets = f.opt_int(&r, "_TOTAL_BUCKETS")?.unwrap_or(-1);
        let file = match r.take("_FILE") {
            Value::Record(fr) => Box::new(data_file_from_record(f, fr)?),
            _ => return Err(f.err("_FILE", "missing or not a record")),
        };
        Ok(ManifestEntry {
            kind,
            partition,
            bucket,
            total_buckets,
            file,
        })
    }

    /// The identifier Java merges entries by (`FileEntry.Identifier`).
    pub fn identifier(&self) -> FileIdentifier<'_> {
        FileIdentifier {
            partition: &self.partition,
            bucket: self.bucket,
            level: self.file.level,
            file_name: &self.file.file_name,
            extra_files: &self.file.extra_files,
            embedded_index: self.file.embedded_index.as_deref(),
            external_path: self.file.external_path.as_deref(),
        }
    }
}

/// A data manifest split into its Avro blocks, which decode independently (in parallel),
/// with [`ManifestEntry::decode_manifest_with`]'s results: a block the fast decoder rejects
/// makes the caller decode the whole file through the generic path
/// ([`ManifestBlocks::decode_all`]) and take the entries from that block on.
#[derive(Debug)]
pub(crate) struct ManifestBlocks {
    path: String,
    bytes: bytes::Bytes,
    fast: Option<(
        paimon_format::avro::Header,
        EntryPlan,
        Vec<paimon_format::avro::BlockSpan>,
    )>,
    /// Index of each block's first entry in the file.
    first: Vec<usize>,
    /// What the file's blocks may inflate to together, across the threads decoding them.
    budget: paimon_format::avro::InflateBudget,
}

impl ManifestBlocks {
    /// The manifest's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Heap held: the file's bytes and the index of its blocks.
    pub fn heap(&self) -> usize {
        let spans = self.fast.as_ref().map_or(0, |f| {
            f.2.capacity() * std::mem::size_of::<paimon_format::avro::BlockSpan>()
        });
        self.bytes.len() + self.path.capacity() + spans + self.first.capacity() * 8
    }

    /// Blocks the fast decoder can walk (0: decode the file whole).
    pub fn block_count(&self) -> usize {
        self.fast.as_ref().map_or(0, |f| f.2.len())
    }

    /// Entries block `i` holds, from the count its header records.
    pub fn block_entries(&self, i: usize) -> usize {
        self.fast
            .as_ref()
            .and_then(|f| f.2.get(i))
            .map_or(0, |s| s.count)
    }

    /// Index in the file of block `i`'s first entry.
    pub fn first_entry(&self, i: usize) -> usize {
        self.first.get(i).copied().unwrap_or(0)
    }

    /// The entries of block `i`, or `Ok(None)` when the fast decoder rejects the block (the
    /// caller then uses [`ManifestBlocks::decode_all`]).
    ///
    /// # Errors
    /// `Corrupt` naming the manifest when an entry names a file that is not a plain name.
    pub fn decode_block(
        &self,
        i: usize,
        opts: DecodeOptions,
    ) -> Result<Option<Vec<ManifestEntry>>> {
        let Some((header, plan, spans)) = &self.fast else {
            return Ok(None);
        };
        let Some(span) = spans.get(i) else {
            return Ok(None);
        };
        let decoded = paimon_format::avro::decode_block(
            header,
            &self.bytes,
            *span,
            &self.budget,
            |c, count| {
                let mut out = Vec::with_capacity(count.min(c.remaining()));
                for _ in 0..count {
                    out.push(decode_entry(c, plan, opts)?);
                }
                Ok(out)
            },
        );
        match decoded {
            Ok(entries) => {
                check_file_names(&self.path, &entries)?;
                Ok(Some(entries))
            }
            Err(_) => Ok(None),
        }
    }

    /// Every entry of the file, as [`ManifestEntry::decode_manifest_with`] gives them.
    ///
    /// # Errors
    /// As [`ManifestEntry::decode_manifest_with`].
    pub fn decode_all(&self, opts: DecodeOptions) -> Result<Vec<ManifestEntry>> {
        // Blocks that inflated beyond the file's budget would do so again.
        if self.budget.exhausted() {
            return Err(super::avro_error(
                &self.path,
                &self.budget,
                self.budget.reason(),
            ));
        }
        ManifestEntry::decode_manifest_within(&self.path, self.bytes.clone(), opts, &self.budget)
    }
}

/// The key of §3.8 reconciliation (Java `FileEntry.Identifier`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileIdentifier<'a> {
    /// Serialized partition.
    pub partition: &'a [u8],
    /// Bucket.
    pub bucket: i32,
    /// Level.
    pub level: i32,
    /// File name.
    pub file_name: &'a str,
    /// Extra files.
    pub extra_files: &'a [String],
    /// Embedded index bytes.
    pub embedded_index: Option<&'a [u8]>,
    /// External path.
    pub external_path: Option<&'a str>,
}

/// Data file and extra-file (index sidecar) names are joined to bucket directories by the
/// planner and the worker, so each must be one plain name.
fn check_file_names(path: &str, entries: &[ManifestEntry]) -> Result<()> {
    for e in entries {
        crate::file_name::check_plain_name(
            path,
            "manifest entry field _FILE._FILE_NAME",
            &e.file.file_name,
        )?;
        for x in &e.file.extra_files {
            crate::file_name::check_plain_name(path, "manifest entry field _FILE._EXTRA_FILES", x)?;
        }
    }
    Ok(())
}

/// Maps a `_FILE` record onto [`DataFileMeta`] by field name.
fn data_file_from_record(f: &Fields<'_>, mut r: Record) -> Result<DataFileMeta> {
    let mut datums = Vec::with_capacity(FILE_FIELDS.len());
    for name in FILE_FIELDS {
        let v = r.take(name);
        datums.push(to_datum(f, name, v)?);
    }
    DataFileMeta::from_datums(datums)
        .map_err(|e| Error::corrupt(f.path, format!("DataFileMeta: {e}")))
}

fn to_datum(f: &Fields<'_>, name: &str, v: Value) -> Result<Datum> {
    Ok(match (name, v) {
        (_, Value::Null) => Datum::Null,
        ("_KEY_STATS" | "_VALUE_STATS", Value::Record(s)) => f.stats_record(&s, name)?.to_datum(),
        ("_CREATION_TIME", v) => Datum::Timestamp {
            millis: v.as_i64().ok_or_else(|| f.err(name, "not a timestamp"))?,
            nanos: 0,
        },
        ("_LEVEL", v) => Datum::Int(f_int(f, name, &v)?),
        ("_FILE_SOURCE", v) => Datum::TinyInt(
            i8::try_from(v.as_i64().ok_or_else(|| f.err(name, "not an integer"))?)
                .map_err(|_| f.err(name, "out of TINYINT range"))?,
        ),
        (_, Value::Int(i)) => Datum::BigInt(i64::from(i)),
        (_, Value::Long(l)) => Datum::BigInt(l),
        (_, Value::String(s)) => Datum::String(s),
        (_, Value::Bytes(b)) => Datum::Binary(b),
        (_, Value::Array(a)) => Datum::Array(
            a.into_iter()
                .map(|x| match x {
                    Value::String(s) => Ok(Datum::String(s)),
                    Value::Null => Ok(Datum::Null),
                    x => x
                        .as_i64()
                        .map(Datum::BigInt)
                        .ok_or_else(|| f.err(name, "unexpected array element")),
                })
                .collect::<Result<Vec<_>>>()?,
        ),
        (_, other) => return Err(f.err(name, &format!("unexpected value {other:?}"))),
    })
}

fn f_int(f: &Fields<'_>, name: &str, v: &Value) -> Result<i32> {
    v.as_i64()
        .and_then(|x| i32::try_from(x).ok())
        .ok_or_else(|| f.err(name, "not an int"))
}
