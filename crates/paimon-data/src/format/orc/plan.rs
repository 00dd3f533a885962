//! The byte ranges an ORC read will fetch, planned before decoding as the Parquet reader
//! plans its column chunks ([`super::super::ranged`]): for each stripe that holds a selected
//! row, the streams of the projected columns (from the stripe's footer) and the footer itself,
//! neighbours less than the coalescing gap apart fetched as one.
//!
//! ```text
//!  stripe   | index streams | data streams | footer: streams (column, kind, length) in order |
//!  planned    ^^ projected columns' streams and the footer, coalesced ^^
//! ```
//!
//! `orc-rust` reads a stripe as its footer and then every stream of a projected column, each
//! by its own `get_bytes`; with the plan installed each lands in one fetched range, so an
//! object store sees one request per run of streams instead of one per stream, and the async
//! reader can fetch a stripe's ranges before it is decoded.

use std::io::Read;
use std::ops::Range;

use orc_rust::compression::Decompressor;
use orc_rust::reader::metadata::FileMetadata;
use orc_rust::schema::RootDataType;
use prost::Message;

use super::super::ranged::{coalesce_group, Planned, RangedFile};

/// The planned ranges of `stripes` (indices into the file's stripes, in order) for the
/// columns of `projected`; `None` when a stripe footer cannot be read, and the read then goes
/// as `orc-rust` asks (which reports the damage itself).
pub(super) fn plan_stripes(
    data: &RangedFile,
    meta: &FileMetadata,
    projected: &RootDataType,
    stripes: &[usize],
) -> Option<Vec<Planned>> {
    let mut plan = Vec::new();
    for &s in stripes {
        let info = meta.stripe_metadatas().get(s)?;
        let footer_at = info.footer_offset();
        let footer_end = footer_at.checked_add(info.footer_length())?;
        let footer = data.bytes(footer_at..footer_end).ok()?;
        let mut raw = Vec::new();
        Decompressor::new(footer, meta.compression(), Vec::new())
            .read_to_end(&mut raw)
            .ok()?;
        let footer = orc_rust::proto::StripeFooter::decode(raw.as_slice()).ok()?;
        let mut at = info.offset();
        let mut chunks: Vec<Range<u64>> = Vec::new();
        for stream in &footer.streams {
            let end = at.checked_add(stream.length())?;
            let column = usize::try_from(stream.column()).ok()?;
            if projected.contains_column_index(column) && end > at {
                chunks.push(at..end);
            }
            at = end;
        }
        // Streams past the stripe's footer would be a damaged stripe: leave it to orc-rust.
        if at > footer_at {
            return None;
        }
        // orc-rust reads the footer again when it opens the stripe.
        chunks.push(footer_at..footer_end);
        plan.extend(coalesce_group(s, chunks, data.coalesce_gap()));
    }
    Some(plan)
}

#[cfg(test)]
pub(in crate::format) mod tests {
    use std::sync::Arc;

    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::{ArrayRef, Int64Array, RecordBatch};
    use paimon_io::{CountingFileIO, LocalFileIO};

    use super::super::super::ranged::{RangedFile, DEFAULT_COALESCE_GAP, TAIL_BYTES};
    use super::super::super::{decode_filtered, DecodeRequest, FileFormat};

    pub(in crate::format) const STRIPES: i64 = 10;
    pub(in crate::format) const STRIPE_ROWS: i64 = 10_000;

    /// Column `c` at row `i`: the position for c0, a hash for the others (no compression).
    pub(in crate::format) fn value(c: u64, i: i64) -> i64 {
        if c == 0 {
            i
        } else {
            (i as u64 ^ (c << 40)).wrapping_mul(0x9E37_79B9_7F4A_7C15) as i64
        }
    }

    /// An ORC file of 10 stripes of 10 BIGINT columns `c0..c9` (orc-rust's writer, which
    /// writes no statistics).
    pub(in crate::format) fn orc_file() -> Vec<u8> {
        let columns: Vec<(String, ArrayRef)> = (0..10u64)
            .map(|c| {
                let v: Int64Array = (0..STRIPES * STRIPE_ROWS).map(|i| value(c, i)).collect();
                (format!("c{c}"), Arc::new(v) as ArrayRef)
            })
            .collect();
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let mut file = Vec::new();
        let mut w = orc_rust::ArrowWriterBuilder::new(&mut file, batch.schema())
            .try_build()
            .unwrap();
        for s in 0..STRIPES {
            w.write(&batch.slice((s * STRIPE_ROWS) as usize, STRIPE_ROWS as usize))
                .unwrap();
            w.flush_stripe().unwrap();
        }
        w.close().unwrap();
        file
    }

    /// Reads c1, c4 and c7 of the file with coalescing gap `gap`: the rows are right; the
    /// bytes and number of reads are returned.
    fn read_three(path: &str, len: u64, gap: u64) -> (u64, usize) {
        let counting = Arc::new(CountingFileIO::new(Arc::new(LocalFileIO::new())));
        let data = RangedFile::open(counting.clone(), path, len, gap);
        let req = DecodeRequest {
            columns: ["c1", "c4", "c7"].map(String::from).to_vec(),
            types: Vec::new(),
            rows: None,
            batch_size: 4096,
            expected_rows: Some(STRIPES * STRIPE_ROWS),
        };
        let mut sums = [0i64; 3];
        for b in decode_filtered(FileFormat::Orc, path, data, &req, None).unwrap() {
            let b = b.unwrap();
            for (k, sum) in sums.iter_mut().enumerate() {
                let col = b.column(k).as_primitive::<Int64Type>();
                *sum = col.values().iter().fold(*sum, |a, v| a.wrapping_add(*v));
            }
        }
        for (k, c) in [1u64, 4, 7].into_iter().enumerate() {
            let want = (0..STRIPES * STRIPE_ROWS).fold(0i64, |a, i| a.wrapping_add(value(c, i)));
            assert_eq!(sums[k], want, "c{c}");
        }
        (counting.bytes_read(), counting.read_count())
    }

    /// Three of ten columns: with no gap, about their share of the bytes (plus the tail and
    /// the stripe footers, read once to plan and once with the streams); with the default 1 MiB gap, one fetch per stripe besides its
    /// footer, where orc-rust alone asks for every stream.
    #[test]
    fn an_orc_read_fetches_the_projected_streams_one_range_per_stripe() {
        let file = orc_file();
        let len = file.len() as u64;
        let path = std::env::temp_dir().join(format!("paimon-orc-plan-{}.orc", std::process::id()));
        std::fs::write(&path, &file).unwrap();
        let path_str = path.display().to_string();
        let (exact, _) = read_three(&path_str, len, 0);
        let (coalesced, reads) = read_three(&path_str, len, DEFAULT_COALESCE_GAP);
        let _ = std::fs::remove_file(&path);
        eprintln!(
            "ORC, 3 of 10 columns of {len} bytes: {exact} bytes fetched without coalescing, \
             {coalesced} bytes in {reads} reads with the 1 MiB gap"
        );
        // c0 (the positions) run-length encodes to almost nothing: c1..c9 hold the bytes.
        let share = len * 3 / 9;
        assert!(
            exact >= share * 9 / 10,
            "fetched {exact}, the columns' share {share}"
        );
        assert!(
            exact <= share * 11 / 10 + TAIL_BYTES,
            "fetched {exact}, the columns' share {share}"
        );
        // The tail, then per stripe its footer and one coalesced range.
        assert!(
            reads <= 1 + 2 * STRIPES as usize,
            "{reads} reads for {STRIPES} stripes"
        );
        assert!(coalesced <= len + TAIL_BYTES);
    }
}
