//! What opening and planning a Parquet or ORC file reads outside its tail, found from the tail
//! alone: the async read ([`crate::reader::SplitReader::read_async`]) fetches these ranges
//! ahead, so that the blocking decoder finds them at hand.
//!
//! ```text
//! Parquet  row groups | page index: column indexes, offset indexes | footer | len | PAR1
//!                       ^ read when a filter prunes by pages          ^ in the tail
//! ORC      stripe: index | data | footer ... | metadata | footer | postscript | len
//!                                 ^ read when the stripe is planned  ^ in the tail
//! ```

use std::io::Cursor;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};

use bytes::Bytes;
use parquet::file::metadata::ParquetMetaDataReader;

/// The length of the footer of the Parquet file whose last bytes are `end` (its metadata, the
/// metadata's 4-byte length and the magic); `None` when `end` does not end with the magic.
pub(crate) fn parquet_footer_len(end: &[u8]) -> Option<u64> {
    match end.get(end.len().checked_sub(8)?..)? {
        [a, b, c, d, b'P', b'A', b'R', b'1'] => {
            Some(u64::from(u32::from_le_bytes([*a, *b, *c, *d])) + 8)
        }
        _ => None,
    }
}

/// The page index (every column index and offset index) of the Parquet file whose last bytes
/// are `tail`, as one range; `None` when `tail` does not hold the whole footer or the file
/// has no page index.
pub(crate) fn parquet_page_index(tail: &[u8]) -> Option<Range<u64>> {
    let n = tail.len();
    let footer = usize::try_from(parquet_footer_len(tail)?).ok()?;
    let meta = tail.get(n.checked_sub(footer)?..n - 8)?;
    // The parquet crate panics on some damaged footers: such a file gets no range here, and
    // its decoder reports it.
    let meta = catch_unwind(|| ParquetMetaDataReader::decode_metadata(meta))
        .ok()?
        .ok()?;
    let mut index: Option<Range<u64>> = None;
    for column in meta.row_groups().iter().flat_map(|rg| rg.columns()) {
        let parts = [
            (column.column_index_offset(), column.column_index_length()),
            (column.offset_index_offset(), column.offset_index_length()),
        ];
        for (offset, length) in parts {
            let (Some(offset), Some(length)) = (offset, length) else {
                continue;
            };
            let start = u64::try_from(offset).ok()?;
            let end = start.checked_add(u64::try_from(length).ok()?)?;
            index = Some(match index {
                None => start..end,
                Some(r) => r.start.min(start)..r.end.max(end),
            });
        }
    }
    index
}

/// The stripe footers of the ORC file of `len` bytes whose last bytes, from `tail_start`, are
/// `tail`: what planning its stripes reads. `None` when `tail` does not hold a readable footer.
pub(crate) fn orc_stripe_footers(
    len: u64,
    tail_start: u64,
    tail: &Bytes,
) -> Option<Vec<Range<u64>>> {
    // orc-rust recurses without end on a type cycle: the type tree is checked first.
    paimon_format::orc::tail::check_type_tree(tail).ok()?;
    let mut reader = TailReader {
        len,
        start: tail_start,
        bytes: tail.clone(),
    };
    let meta = catch_unwind(AssertUnwindSafe(|| {
        orc_rust::reader::metadata::read_metadata(&mut reader)
    }))
    .ok()?
    .ok()?;
    meta.stripe_metadatas()
        .iter()
        .map(|s| {
            let at = s.footer_offset();
            Some(at..at.checked_add(s.footer_length())?)
        })
        .collect()
}

/// The end of a file as an orc-rust reader: asking for bytes before `start` is an error.
struct TailReader {
    len: u64,
    start: u64,
    bytes: Bytes,
}

impl TailReader {
    fn slice(&self, offset: u64, length: u64) -> std::io::Result<Bytes> {
        let out_of_tail = || std::io::Error::other("outside the fetched tail");
        let s = usize::try_from(offset.checked_sub(self.start).ok_or_else(out_of_tail)?)
            .map_err(|_| out_of_tail())?;
        let e = s
            .checked_add(usize::try_from(length).map_err(|_| out_of_tail())?)
            .filter(|e| *e <= self.bytes.len())
            .ok_or_else(out_of_tail)?;
        Ok(self.bytes.slice(s..e))
    }
}

impl orc_rust::reader::ChunkReader for TailReader {
    type T = Cursor<Bytes>;

    fn len(&self) -> u64 {
        self.len
    }

    fn get_read(&self, offset_from_start: u64) -> std::io::Result<Cursor<Bytes>> {
        let rest = self.len.saturating_sub(offset_from_start);
        self.slice(offset_from_start, rest).map(Cursor::new)
    }

    fn get_bytes(&self, offset_from_start: u64, length: u64) -> std::io::Result<Bytes> {
        self.slice(offset_from_start, length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::orc::plan::tests::orc_file;

    /// The ORC test file's stripe footers as orc-rust finds them in the whole file.
    fn footers_of_whole(file: &Bytes) -> Vec<Range<u64>> {
        let meta = orc_rust::reader::metadata::read_metadata(&mut file.clone()).unwrap();
        meta.stripe_metadatas()
            .iter()
            .map(|s| s.footer_offset()..s.footer_offset() + s.footer_length())
            .collect()
    }

    #[test]
    fn the_orc_tail_length_ends_at_the_last_stripe() {
        let file = Bytes::from(orc_file());
        let len = file.len() as u64;
        let n = paimon_format::orc::tail::tail_len(&file[file.len() - 1024..]).unwrap();
        let footers = footers_of_whole(&file);
        assert_eq!(footers.len(), 10);
        assert_eq!(len - n, footers.last().unwrap().end);
    }

    #[test]
    fn orc_stripe_footers_come_from_the_tail_alone() {
        let file = Bytes::from(orc_file());
        let len = file.len() as u64;
        // What `fetch_tail` holds of the file.
        let start = len - super::super::ranged::TAIL_BYTES;
        let tail = file.slice(usize::try_from(start).unwrap()..);
        assert_eq!(
            orc_stripe_footers(len, start, &tail),
            Some(footers_of_whole(&file))
        );
        // A tail short of the footer names none, and garbage neither.
        let n = paimon_format::orc::tail::tail_len(&file).unwrap();
        let short = file.slice(file.len() - usize::try_from(n - 1).unwrap()..);
        assert_eq!(orc_stripe_footers(len, len - n + 1, &short), None);
        assert_eq!(
            orc_stripe_footers(8, 0, &Bytes::from_static(b"ORCjunk\x03")),
            None
        );
    }

    #[test]
    fn no_page_index_is_named_by_a_tail_without_a_footer() {
        assert_eq!(parquet_page_index(b"PAR1"), None);
        assert_eq!(parquet_page_index(b"\xff\xff\xff\x7fPAR1"), None);
        assert_eq!(parquet_page_index(b"\x04\x00\x00\x00junkPAR1"), None);
    }
}
