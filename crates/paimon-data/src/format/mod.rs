//! File-format decoders: bytes in, Arrow batches out, no I/O.
//!
//! Each decoder reads the named top-level columns of one data file (names as the *file's*
//! schema spells them; absent names are simply not returned) and honours a [`RowRanges`]
//! selection of row positions to keep. Parquet and ORC apply the selection while decoding
//! (deleted rows are never materialized); Avro filters after decoding.

mod avro;
mod blob;
mod guard;
mod orc;
mod parquet;
mod parquet_filter;
mod parquet_pages;
mod prune;
mod ranged;
mod stream;
mod tail_ranges;
mod ts_range;

pub use prune::PruneStats;
pub(crate) use prune::{prune_orc, prune_parquet, FilePredicate};
pub use ranged::DEFAULT_COALESCE_GAP;
pub(crate) use ranged::{fetch_tail, RangedFile, WeakRangedFile};
pub use stream::decode_parquet_stream;
pub(crate) use stream::range_error;
pub(crate) use tail_ranges::{orc_stripe_footers, parquet_page_index};
pub(crate) use ts_range::format_timestamp;

use std::ops::Range;

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::DataType as ArrowType;
use bytes::Bytes;
use paimon_spec::predicate::Predicate;
use paimon_spec::types::DataField;

pub use blob::{decompress_delta_varint, BlobDescriptor, BlobFile, BlobValue};

use crate::error::{Error, Result};
use guard::guard_panics;

/// Compression extensions Java may put after the format extension (`HadoopCompressionType`).
const COMPRESSION_EXTENSIONS: [&str; 6] = ["gz", "bz2", "deflate", "snappy", "lz4", "zst"];

/// A data-file format (Java `FileFormat` identifiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// Apache Parquet.
    Parquet,
    /// Apache ORC.
    Orc,
    /// Apache Avro object container files.
    Avro,
    /// Paimon `.blob` files (data evolution).
    Blob,
}

impl FileFormat {
    /// The format of a data file, from its name (Java `DataFilePathFactory.formatIdentifier`):
    /// the last extension, or the second-to-last when the last is a compression extension.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for an unknown extension.
    pub fn from_file_name(name: &str) -> Result<Self> {
        let base = name.rsplit('/').next().unwrap_or(name);
        let mut parts = base.rsplit('.');
        let last = parts.next().unwrap_or("");
        let ext = if COMPRESSION_EXTENSIONS.contains(&last.to_ascii_lowercase().as_str()) {
            parts.next().unwrap_or("")
        } else {
            last
        };
        match ext.to_ascii_lowercase().as_str() {
            "parquet" => Ok(FileFormat::Parquet),
            "orc" => Ok(FileFormat::Orc),
            "avro" => Ok(FileFormat::Avro),
            "blob" => Ok(FileFormat::Blob),
            other => Err(Error::unsupported(format!(
                "data file format '{other}' of {name}"
            ))),
        }
    }
}

/// Row positions of a file to keep, as sorted, disjoint, non-empty ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRanges {
    ranges: Vec<Range<u64>>,
    total: u64,
}

impl RowRanges {
    /// Every row of a file of `total` rows.
    pub fn all(total: u64) -> Self {
        let mut ranges = Vec::new();
        if total > 0 {
            ranges.push(0..total);
        }
        RowRanges { ranges, total }
    }

    /// The rows of `0..total` not in `deleted` (ascending positions; duplicates allowed).
    pub fn excluding(total: u64, deleted: impl IntoIterator<Item = u64>) -> Self {
        let mut ranges = Vec::new();
        let mut start = 0u64;
        for d in deleted {
            if d >= total {
                break;
            }
            if d > start {
                ranges.push(start..d);
            }
            start = start.max(d + 1);
        }
        if start < total {
            ranges.push(start..total);
        }
        RowRanges { ranges, total }
    }

    /// Rows of the file.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The kept ranges.
    pub fn ranges(&self) -> &[Range<u64>] {
        &self.ranges
    }

    /// Number of kept rows.
    pub fn selected(&self) -> u64 {
        self.ranges.iter().map(|r| r.end - r.start).sum()
    }

    /// Whether every row is kept.
    pub fn is_all(&self) -> bool {
        self.selected() == self.total
    }

    /// Kept positions, ascending.
    pub fn positions(&self) -> impl Iterator<Item = u64> + '_ {
        self.ranges.iter().flat_map(|r| r.clone())
    }

    /// The kept rows inside `within`.
    pub(crate) fn within(&self, within: Range<u64>) -> Vec<Range<u64>> {
        self.ranges
            .iter()
            .filter(|r| r.start < within.end && within.start < r.end)
            .map(|r| r.start.max(within.start)..r.end.min(within.end))
            .collect()
    }

    /// Alternating (skip, select) run lengths covering the whole file.
    pub(crate) fn runs(&self) -> Vec<(bool, usize)> {
        let mut out = Vec::new();
        let mut pos = 0u64;
        for r in &self.ranges {
            if r.start > pos {
                out.push((false, to_usize(r.start - pos)));
            }
            out.push((true, to_usize(r.end - r.start)));
            pos = r.end;
        }
        if pos < self.total {
            out.push((false, to_usize(self.total - pos)));
        }
        out
    }
}

fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// When a read's predicate is pushed into the Parquet decoder (late materialization: the
/// predicate's columns decoded first, the others only for the rows it keeps).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LateMaterialization {
    /// When the predicate keeps at most 0.5% of a sample of the file's rows, where it was
    /// measured to pay (`benches/late_materialization.rs`). The default.
    #[default]
    Auto,
    /// Whenever the predicate can be pushed, however many rows it keeps.
    Always,
    /// Never: every projected column is decoded for every selected row.
    Never,
}

/// What to decode from one file.
#[derive(Debug, Clone)]
pub struct DecodeRequest {
    /// Top-level column names to read, in the file's spelling.
    pub columns: Vec<String>,
    /// The Arrow form of the file's type of each column, where known: decoders whose physical
    /// type admits several Arrow types (ORC timestamps) decode to it, so the value range of
    /// the precision's unit applies rather than nanoseconds'.
    pub types: Vec<(String, ArrowType)>,
    /// Rows to keep; `None` = all.
    pub rows: Option<RowRanges>,
    /// Target rows per batch.
    pub batch_size: usize,
    /// Rows the file's metadata says it holds (`DataFileMeta.row_count`). When given, a file
    /// whose footer or block headers count other rows, or a decode yielding other than the
    /// selected rows, is an error: `rows` addresses rows by position, so reading on would
    /// return other rows. Without it, the total of `rows` (when given) is checked.
    pub expected_rows: Option<i64>,
}

/// A stream of decoded batches.
pub type BatchIter = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

/// Decodes a whole data file held in memory.
///
/// # Errors
/// Format errors name `path`; with [`DecodeRequest::expected_rows`], a file holding another
/// number of rows is [`Error::RowCountMismatch`] (before any batch where the format's footer or
/// block headers tell, else at the end of the batches).
pub fn decode(
    format: FileFormat,
    path: &str,
    data: Bytes,
    req: &DecodeRequest,
) -> Result<BatchIter> {
    decode_filtered(format, path, RangedFile::memory(path, data), req, None)
}

/// Decodes as [`decode`], with `predicate` (over `fields`, the file's own fields, by name)
/// pushed into the Parquet decoder: its columns are decoded first and the other columns only
/// for the rows it keeps (late materialization). Rows it drops do not match; rows it keeps may
/// still not match, so the exact filter ([`crate::filter::filter_batch`]) must still run.
/// Other formats decode as [`decode`].
///
/// # Errors
/// As [`decode`]; with the filter pushed, a decode yielding more than the selected rows is
/// [`Error::Corrupt`] (fewer is the filter's doing).
pub fn decode_with_predicate(
    format: FileFormat,
    path: &str,
    data: Bytes,
    req: &DecodeRequest,
    predicate: &Predicate,
    fields: &[DataField],
    mode: LateMaterialization,
) -> Result<BatchIter> {
    let sources: Vec<_> = fields
        .iter()
        .map(|f| {
            let src = crate::schema_mapper::ColumnSource::File {
                name: f.name.clone(),
                file_type: f.data_type.clone(),
            };
            (f.clone(), src)
        })
        .collect();
    let filter = FilePredicate::for_row_filter(predicate, &sources);
    let data = RangedFile::memory(path, data);
    decode_filtered(format, path, data, req, Some((&filter, mode)))
}

/// [`decode`] of a file read by ranges, with `filter` pushed into the Parquet decoder when
/// given ([`parquet_filter`]); the caller still applies the exact filter. Parquet and ORC
/// read only the column chunks (streams) they decode; Avro files are read block by block,
/// blob files whole.
pub(crate) fn decode_filtered(
    format: FileFormat,
    path: &str,
    data: RangedFile,
    req: &DecodeRequest,
    filter: Option<(&FilePredicate, LateMaterialization)>,
) -> Result<BatchIter> {
    if let Some(n) = req.expected_rows.filter(|n| *n < 0) {
        return Err(Error::corrupt(
            path,
            format!("the file's metadata claims a negative row count {n}"),
        ));
    }
    let mut filtered = false;
    let batches = match format {
        FileFormat::Parquet => guard_panics(path, "Parquet", || {
            let (batches, pushed) = parquet::decode(path, data, req, filter)?;
            filtered = pushed;
            Ok(batches)
        }),
        FileFormat::Orc => guard_panics(path, "ORC", || orc::decode(path, data, req)),
        FileFormat::Avro => avro::decode(path, data, req),
        FileFormat::Blob => blob::decode(path, whole(&data)?, req),
    }?;
    Ok(match req.expected_rows {
        Some(expected) => Box::new(CountedBatches {
            inner: Some(batches),
            path: path.to_string(),
            expected,
            selected: req.rows.as_ref().map(RowRanges::selected),
            filtered,
            seen: 0,
        }),
        None => batches,
    })
}

fn whole(data: &RangedFile) -> Result<Bytes> {
    data.whole().map_err(|e| Error::io(data.path(), e))
}

/// Checks the rows a file holds, as its footer or block headers count them, against the rows
/// its metadata claims ([`DecodeRequest::expected_rows`], else the total of the selection).
pub(crate) fn check_file_rows(path: &str, req: &DecodeRequest, found: u64) -> Result<()> {
    let expected = req.expected_rows.or_else(|| {
        req.rows
            .as_ref()
            .map(|r| i64::try_from(r.total()).unwrap_or(i64::MAX))
    });
    match expected {
        Some(expected) if u64::try_from(expected).ok() != Some(found) => {
            Err(Error::RowCountMismatch {
                path: path.to_string(),
                expected,
                found,
            })
        }
        _ => Ok(()),
    }
}

/// Counts the rows a decoder yields; at the end they must be the selected rows (or, with no
/// selection, the rows the metadata claims). A decoder that stops early or runs on past the
/// file's count would otherwise go unnoticed. With a pushed row filter only running on past
/// them is caught here: the file's own count was checked against the metadata's before
/// decoding.
struct CountedBatches {
    inner: Option<BatchIter>,
    path: String,
    expected: i64,
    selected: Option<u64>,
    filtered: bool,
    seen: u64,
}

impl Iterator for CountedBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        match inner.next() {
            Some(Ok(b)) => {
                self.seen = self.seen.saturating_add(b.num_rows() as u64);
                Some(Ok(b))
            }
            Some(Err(e)) => {
                self.inner = None;
                Some(Err(e))
            }
            None => {
                self.inner = None;
                let want = self
                    .selected
                    .unwrap_or(u64::try_from(self.expected).unwrap_or(0));
                if self.seen == want || (self.filtered && self.seen < want) {
                    return None;
                }
                Some(Err(match self.selected {
                    None if !self.filtered => Error::RowCountMismatch {
                        path: self.path.clone(),
                        expected: self.expected,
                        found: self.seen,
                    },
                    selected => Error::corrupt(
                        &self.path,
                        format!(
                            "decoded {} rows where {} of the {} rows its metadata claims \
                             were selected",
                            self.seen,
                            selected.unwrap_or(want),
                            self.expected
                        ),
                    ),
                }))
            }
        }
    }
}

/// Filters decoded batches down to the kept rows (for formats that cannot skip while decoding).
pub(crate) struct SelectAfterDecode {
    inner: BatchIter,
    runs: std::vec::IntoIter<(bool, usize)>,
    current: Option<(bool, usize)>,
    path: String,
}

impl SelectAfterDecode {
    pub(crate) fn new(inner: BatchIter, rows: &RowRanges, path: &str) -> Self {
        let mut runs = rows.runs().into_iter();
        let current = runs.next();
        SelectAfterDecode {
            inner,
            runs,
            current,
            path: path.to_string(),
        }
    }

    fn mask(&mut self, len: usize) -> BooleanArray {
        let mut bits = Vec::with_capacity(len);
        let mut remaining = len;
        while remaining > 0 {
            let Some((keep, n)) = self.current else {
                bits.resize(len, false);
                break;
            };
            let take = n.min(remaining);
            bits.extend(std::iter::repeat_n(keep, take));
            remaining -= take;
            self.current = if take == n {
                self.runs.next()
            } else {
                Some((keep, n - take))
            };
        }
        BooleanArray::from(bits)
    }
}

impl Iterator for SelectAfterDecode {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let batch = match self.inner.next()? {
                Ok(b) => b,
                Err(e) => return Some(Err(e)),
            };
            let mask = self.mask(batch.num_rows());
            let out = arrow_select::filter::filter_record_batch(&batch, &mask)
                .map_err(|e| Error::arrow(&self.path, e));
            match out {
                Ok(b) if b.num_rows() == 0 => continue,
                other => return Some(other),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_from_name() {
        assert_eq!(
            FileFormat::from_file_name("data-1-0.parquet").unwrap(),
            FileFormat::Parquet
        );
        assert_eq!(
            FileFormat::from_file_name("data-1-0.zst.parquet").unwrap(),
            FileFormat::Parquet
        );
        assert_eq!(
            FileFormat::from_file_name("/a/b/data-1-0.orc").unwrap(),
            FileFormat::Orc
        );
        assert_eq!(
            FileFormat::from_file_name("data-1-0.avro.zst").unwrap(),
            FileFormat::Avro
        );
        assert_eq!(
            FileFormat::from_file_name("data-1-0.blob").unwrap(),
            FileFormat::Blob
        );
        assert!(FileFormat::from_file_name("data-1-0.csv").is_err());
    }

    fn request(columns: &[&str]) -> DecodeRequest {
        DecodeRequest {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            types: Vec::new(),
            rows: None,
            batch_size: 1024,
            expected_rows: None,
        }
    }

    /// The fuzz finding `data_file/parquet-thrift-list-skip-unbounded` (the data_file target's
    /// input: 4 selector bytes, then the file): a page header claiming a list of 2^31 elements
    /// kept the `parquet` crate's Thrift skip looping for minutes; it is an error at once. The
    /// lying list lies past the end of its column chunk, which a ranged read does not go
    /// beyond: the header is cut short there (`parquet_pages` catches lists inside a chunk).
    #[test]
    fn a_page_header_with_a_lying_list_is_corrupt() {
        let input = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fuzz/regressions/data_file/parquet-thrift-list-skip-unbounded"
        ))
        .unwrap();
        let file = Bytes::copy_from_slice(&input[4..]);
        let path = "t/bucket-0/data-fuzz-0.parquet";
        let err = match decode(FileFormat::Parquet, path, file, &request(&["id"])) {
            Ok(batches) => batches.collect::<Result<Vec<_>>>().unwrap_err(),
            Err(e) => e,
        };
        let msg = err.to_string();
        assert!(
            msg.contains(path) && msg.contains("failed to fill whole buffer"),
            "{msg}"
        );
    }

    /// A damaged footer that the `parquet` crate asserts on (a negative data page offset) gives
    /// an error naming the file, not a panic.
    #[test]
    fn a_parquet_panic_is_an_error() {
        use std::sync::Arc;

        use arrow_array::{Int32Array, RecordBatch};
        use arrow_schema::{DataType, Field, Schema};

        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int32Array::from(vec![1, 2, 3]))],
        )
        .unwrap();
        let mut file = Vec::new();
        let mut w = ::parquet::arrow::ArrowWriter::try_new(&mut file, schema, None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        // Thrift compact ColumnMetaData: field 9 (data_page_offset, i64) follows field 7, so
        // its header is 0x26; the page starts after the 4-byte magic, zig-zag 4 = 0x08.
        let footer_len =
            u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
        let footer = file.len() - 8 - footer_len as usize;
        let at = footer
            + file[footer..]
                .windows(2)
                .position(|w| w == [0x26, 0x08])
                .expect("data_page_offset 4 in the footer");
        file[at + 1] = 0x07; // zig-zag -4
        let path = "t/bucket-0/data-0.parquet";
        let err = match decode(
            FileFormat::Parquet,
            path,
            Bytes::from(file),
            &request(&["a"]),
        ) {
            Ok(batches) => batches.collect::<Result<Vec<_>>>().unwrap_err(),
            Err(e) => e,
        };
        assert!(
            matches!(&err, Error::Corrupt { path: p, reason } if p == path && reason.contains("Parquet reader")),
            "{err}"
        );
    }

    /// orc-rust 0.9 overflows a subtraction while reading this footer (a 30-byte find of the
    /// `manifest_orc` fuzz target): opening the file gives an error naming it, not a panic
    /// (today the type-tree check refuses the footer before orc-rust sees it).
    #[test]
    fn an_orc_panic_while_opening_is_an_error() {
        let data = Bytes::from_static(&[
            0x4f, 0x52, 0x43, 0x00, 0x18, 0x00, 0x08, 0xad, 0x03, 0x10, 0x05, 0x18, 0x80, 0x80,
            0x10, 0x22, 0x02, 0x00, 0x0c, 0x28, 0xae, 0x01, 0x82, 0xf4, 0x03, 0x03, 0x4f, 0x52,
            0x43, 0x19,
        ]);
        let path = "t/bucket-0/data-0.orc";
        let err = match decode(FileFormat::Orc, path, data, &request(&["a"])) {
            Ok(batches) => batches.collect::<Result<Vec<_>>>().unwrap_err(),
            Err(e) => e,
        };
        assert!(
            matches!(&err, Error::Corrupt { path: p, .. } if p == path),
            "{err}"
        );
    }

    /// An ORC footer whose root type names itself as a child would make orc-rust recurse until
    /// the stack overflows (an abort, not a panic): the type tree is checked first.
    #[test]
    fn an_orc_type_cycle_is_an_error_not_a_stack_overflow() {
        use std::sync::Arc;

        use arrow_array::{Int32Array, RecordBatch};
        use arrow_schema::{DataType, Field, Schema};

        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int32, false),
            Field::new("b", DataType::Int32, false),
        ]));
        let col = Arc::new(Int32Array::from(vec![1, 2, 3]));
        let batch = RecordBatch::try_new(schema.clone(), vec![col.clone(), col]).unwrap();
        let mut file = Vec::new();
        let mut w = orc_rust::ArrowWriterBuilder::new(&mut file, schema)
            .try_build()
            .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let path = "t/bucket-0/data-0.orc";
        let read = |file: Vec<u8>| match decode(
            FileFormat::Orc,
            path,
            Bytes::from(file),
            &request(&["a"]),
        ) {
            Ok(batches) => batches.collect::<Result<Vec<_>>>().map(|b| b.len()),
            Err(e) => Err(e),
        };
        assert!(read(file.clone()).is_ok());
        // The root STRUCT (kind 12) lists subtypes [1, 2], packed: 08 0c 12 02 01 02.
        let at = file
            .windows(6)
            .position(|w| w == [0x08, 0x0c, 0x12, 0x02, 0x01, 0x02])
            .expect("the root type in the uncompressed footer");
        file[at + 4] = 0x00;
        let err = read(file).unwrap_err();
        assert!(
            matches!(&err, Error::Corrupt { path: p, reason } if p == path && reason.contains("type 0 names subtype 0")),
            "{err}"
        );
    }

    #[test]
    fn row_ranges() {
        let r = RowRanges::excluding(6, [1, 2, 2, 5, 9]);
        assert_eq!(r.ranges(), &[0..1, 3..5]);
        assert_eq!(r.selected(), 3);
        assert_eq!(r.runs(), vec![(true, 1), (false, 2), (true, 2), (false, 1)]);
        assert_eq!(r.positions().collect::<Vec<_>>(), vec![0, 3, 4]);
        assert!(RowRanges::all(3).is_all());
        assert_eq!(
            RowRanges::excluding(2, [0, 1]).ranges(),
            &[] as &[Range<u64>]
        );
    }
}
