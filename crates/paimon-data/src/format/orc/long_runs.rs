//! A work-around for `orc-rust` 0.9's row selection: a selected run longer than the batch size
//! is read on to the end of its stripe (`NaiveStripeDecoder::next_with_row_selection` reads
//! `min(run, batch)` rows without shortening the run, so it never reaches the skip after it).
//! Deleted rows would come back; the row count check then refuses the file.
//!
//! Where a stripe has such a run before its end, the stripe is selected whole and its rows are
//! selected after decoding instead:
//!
//! ```text
//!  stripe      0..10                    10..20
//!  rows        keep 0..6, skip 6..10    keep 10..12, skip 12..14, keep 14..20
//!  batch 4     run 0..6 > 4, before the run 14..20 > 4 ends the
//!              stripe's end: whole      stripe: kept as it is
//!  orc-rust    0..10                    10..12, 14..20
//!  then keep   0..6 of its 18 rows, skip 6..10, keep 10..18
//! ```

use orc_rust::arrow_reader::ArrowReaderBuilder;

use crate::format::{DecodeRequest, RangedFile, RowRanges};

/// `req` with a selection `orc-rust` reads right, and the rows to keep of what it decodes;
/// `None` when `req`'s own selection is read right (or the footer cannot be read: decoding
/// reports that).
pub(super) fn coarsen(
    data: &RangedFile,
    req: &DecodeRequest,
) -> Option<(DecodeRequest, RowRanges)> {
    let rows = req.rows.as_ref().filter(|r| !r.is_all())?;
    let batch = req.batch_size.max(1) as u64;
    if !rows.ranges().iter().any(|r| r.end - r.start > batch) {
        return None;
    }
    // orc-rust recurses without end on a footer whose types form a cycle.
    super::check_type_tree(data).ok()?;
    let builder = ArrowReaderBuilder::try_new(data.clone()).ok()?;
    let mut stripes = Vec::new();
    let mut start = 0u64;
    for s in builder.file_metadata().stripe_metadatas() {
        let end = start.checked_add(s.number_of_rows())?;
        stripes.push(start..end);
        start = end;
    }
    let (coarse, keep) = split(rows, &stripes, batch)?;
    Some((
        DecodeRequest {
            rows: Some(coarse),
            ..req.clone()
        },
        keep,
    ))
}

/// The selection over `stripes` (row ranges) and the rows to keep of its output; `None` when
/// `rows` needs no change.
fn split(
    rows: &RowRanges,
    stripes: &[std::ops::Range<u64>],
    batch: u64,
) -> Option<(RowRanges, RowRanges)> {
    let mut coarse = Vec::new();
    let mut keep = Vec::new();
    let mut changed = false;
    // Rows of the coarse selection before the current stripe's: output positions.
    let mut out = 0u64;
    for stripe in stripes {
        let kept: Vec<_> = rows
            .ranges()
            .iter()
            .filter_map(|r| {
                let (s, e) = (r.start.max(stripe.start), r.end.min(stripe.end));
                (s < e).then_some(s..e)
            })
            .collect();
        if kept.is_empty() {
            continue;
        }
        let misread = kept
            .iter()
            .any(|r| r.end < stripe.end && r.end - r.start > batch);
        if misread {
            changed = true;
            keep.extend(
                kept.iter()
                    .map(|r| out + r.start - stripe.start..out + r.end - stripe.start),
            );
            out += stripe.end - stripe.start;
            coarse.push(stripe.clone());
        } else {
            for r in kept {
                keep.push(out..out + r.end - r.start);
                out += r.end - r.start;
                coarse.push(r);
            }
        }
    }
    changed.then(|| {
        (
            RowRanges {
                ranges: coarse,
                total: rows.total(),
            },
            RowRanges {
                ranges: merge_adjacent(keep),
                total: out,
            },
        )
    })
}

/// `ranges` (sorted) with touching ranges joined, as [`RowRanges`] keeps them.
fn merge_adjacent(ranges: Vec<std::ops::Range<u64>>) -> Vec<std::ops::Range<u64>> {
    let mut out: Vec<std::ops::Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::{Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};

    use super::*;
    use crate::format::{decode, FileFormat};
    use bytes::Bytes;

    #[test]
    fn splits_only_stripes_with_a_long_run_before_their_end() {
        // The picture of the module docs.
        let rows = RowRanges {
            ranges: vec![0..6, 10..12, 14..20],
            total: 20,
        };
        let (coarse, keep) = split(&rows, &[0..10, 10..20], 4).unwrap();
        assert_eq!(coarse.ranges(), &[0..10, 10..12, 14..20]);
        assert_eq!(keep.ranges(), &[0..6, 10..18]);
        assert_eq!(keep.total(), 18);
        assert_eq!(keep.selected(), rows.selected());
        assert!(
            split(&rows, &[0..10, 10..20], 6).is_none(),
            "runs fit a batch"
        );
    }

    /// 3000 rows in stripes of 1000, rows 500, 1700, 2050 and 2100 deleted, batches of 100:
    /// the first two stripes have a long run before a deleted row, the third only short ones.
    /// Every other row is read once, in order.
    #[test]
    fn small_batches_over_long_selected_runs_read_the_selected_rows() {
        let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
        let ids = Arc::new(Int64Array::from_iter_values(0..3000));
        let batch = RecordBatch::try_new(schema.clone(), vec![ids]).unwrap();
        let mut file = Vec::new();
        let mut w = orc_rust::ArrowWriterBuilder::new(&mut file, schema)
            .try_build()
            .unwrap();
        for chunk in 0..3 {
            w.write(&batch.slice(chunk * 1000, 1000)).unwrap();
            w.flush_stripe().unwrap();
        }
        w.close().unwrap();
        let data = Bytes::from(file);
        let stripes = ArrowReaderBuilder::try_new(data.clone())
            .unwrap()
            .file_metadata()
            .stripe_metadatas()
            .len();
        assert_eq!(stripes, 3);
        let deleted = [500, 1700, 2050, 2100];
        let rows = RowRanges::excluding(3000, deleted);
        let req = DecodeRequest {
            columns: vec!["id".into()],
            types: Vec::new(),
            rows: Some(rows),
            batch_size: 100,
            expected_rows: Some(3000),
        };
        let got: Vec<i64> = decode(FileFormat::Orc, "t/data-0.orc", data, &req)
            .unwrap()
            .map(|b| b.unwrap())
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        let want: Vec<i64> = (0..3000i64)
            .filter(|i| !deleted.contains(&(*i as u64)))
            .collect();
        assert_eq!(got, want);
    }
}
