//! File-format decoders: bytes in, Arrow batches out, no I/O.
//!
//! Each decoder reads the named top-level columns of one data file (names as the *file's*
//! schema spells them; absent names are simply not returned) and honours a [`RowRanges`]
//! selection of row positions to keep. Parquet and ORC apply the selection while decoding
//! (deleted rows are never materialized); Avro filters after decoding.

mod avro;
mod blob;
mod orc;
mod parquet;
mod prune;
mod ts_range;

pub use prune::PruneStats;
pub(crate) use prune::{prune_parquet, FilePredicate};
pub(crate) use ts_range::format_timestamp;

use std::ops::Range;

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::DataType as ArrowType;
use bytes::Bytes;

pub use blob::{decompress_delta_varint, BlobDescriptor, BlobFile, BlobValue};

use crate::error::{Error, Result};

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
    if let Some(n) = req.expected_rows.filter(|n| *n < 0) {
        return Err(Error::corrupt(
            path,
            format!("the file's metadata claims a negative row count {n}"),
        ));
    }
    let batches = match format {
        FileFormat::Parquet => parquet::decode(path, data, req),
        FileFormat::Orc => orc::decode(path, data, req),
        FileFormat::Avro => avro::decode(path, data, req),
        FileFormat::Blob => blob::decode(path, data, req),
    }?;
    Ok(match req.expected_rows {
        Some(expected) => Box::new(CountedBatches {
            inner: Some(batches),
            path: path.to_string(),
            expected,
            selected: req.rows.as_ref().map(RowRanges::selected),
            seen: 0,
        }),
        None => batches,
    })
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
/// file's count would otherwise go unnoticed.
struct CountedBatches {
    inner: Option<BatchIter>,
    path: String,
    expected: i64,
    selected: Option<u64>,
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
                if self.seen == want {
                    return None;
                }
                Some(Err(match self.selected {
                    None => Error::RowCountMismatch {
                        path: self.path.clone(),
                        expected: self.expected,
                        found: self.seen,
                    },
                    Some(selected) => Error::corrupt(
                        &self.path,
                        format!(
                            "decoded {} rows where {selected} of the {} rows its metadata \
                             claims were selected",
                            self.seen, self.expected
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
