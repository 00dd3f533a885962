//! Late materialization (`format::parquet_filter`) on the test file of the pruning tests:
//! every read with the predicate pushed into the decoder, once the exact filter has run,
//! returns the rows the test's own evaluation of the predicate selects, and the decoder
//! itself already left out the rows an exactly judged predicate rules out.

use super::*;
use crate::format::{decode_filtered, LateMaterialization, RangedFile};

/// The ids a decode of the `id`, `name`, `n` and `d` columns returns with `filter` pushed
/// (however many rows it keeps), before and after the exact filter.
fn late(
    data: &Bytes,
    pred: &Predicate,
    filter: &FilePredicate,
    rows: Option<RowRanges>,
) -> (Vec<i32>, Vec<i32>) {
    late_as(data, pred, filter, rows, true)
}

/// [`late`]; `always` pushes the filter whatever share of the rows it keeps.
fn late_as(
    data: &Bytes,
    pred: &Predicate,
    filter: &FilePredicate,
    rows: Option<RowRanges>,
    always: bool,
) -> (Vec<i32>, Vec<i32>) {
    let req = DecodeRequest {
        columns: vec!["id".into(), "name".into(), "n".into(), "d".into()],
        types: Vec::new(),
        rows,
        batch_size: 64,
        expected_rows: Some(ROWS as i64),
    };
    let types = fields();
    let type_of = |c: &str| {
        types
            .iter()
            .find(|f| f.name == c)
            .map(|f| f.data_type.clone())
    };
    let (mut decoded, mut exact) = (Vec::new(), Vec::new());
    let mode = if always {
        LateMaterialization::Always
    } else {
        LateMaterialization::Auto
    };
    for b in decode_filtered(
        FileFormat::Parquet,
        "t.parquet",
        RangedFile::memory("t.parquet", data.clone()),
        &req,
        Some((filter, mode)),
    )
    .unwrap()
    {
        let b = b.unwrap();
        decoded.extend(b.column(0).as_primitive::<Int32Type>().values().iter());
        let b = crate::filter::filter_batch(pred, &b, &type_of).unwrap();
        exact.extend(b.column(0).as_primitive::<Int32Type>().values().iter());
    }
    (decoded, exact)
}

/// Checks a late-materialized read of `pred` over `selection` against the rows the test's
/// `matches` selects; returns the ids the decoder produced.
fn check_late(
    data: &Bytes,
    pred: &Predicate,
    selection: RowRanges,
    matches: impl Fn(usize) -> bool,
) -> Vec<i32> {
    let expected: Vec<i32> = selection
        .positions()
        .filter(|p| matches(*p as usize))
        .map(|p| p as i32)
        .collect();
    let filter = FilePredicate::for_row_filter(pred, &sources());
    let rows = (!selection.is_all()).then(|| selection.clone());
    let (decoded, exact) = late(data, pred, &filter, rows);
    assert_eq!(exact, expected, "exact filter after late materialization");
    for e in &expected {
        assert!(decoded.contains(e), "matching row {e} dropped by {pred:?}");
    }
    // On top of statistics pruning, as the reader combines them.
    let (pruned, _) = prune_parquet(data, &FilePredicate::new(pred, &sources()), selection);
    let (_, exact) = late(data, pred, &filter, (!pruned.is_all()).then_some(pruned));
    assert_eq!(
        exact, expected,
        "exact filter after pruning and late materialization"
    );
    decoded
}

#[test]
fn the_decoder_returns_only_matching_rows() {
    for page_index in [true, false] {
        let data = file(page_index, None);
        let all = || RowRanges::all(ROWS as u64);
        let got = check_late(
            &data,
            &leaf("id", LeafOp::GtEq, vec![int(990)]),
            all(),
            |i| i >= 990,
        );
        assert_eq!(got, (990..1000).collect::<Vec<_>>());
        // `n` is 2 i, NULL in rows 300..400; the unknown rows are left out too.
        let got = check_late(
            &data,
            &leaf("n", LeafOp::Lt, vec![Datum::BigInt(610)]),
            all(),
            |i| n(i).is_some_and(|v| v < 610),
        );
        assert_eq!(got.len(), 300);
        let got = check_late(&data, &leaf("name", LeafOp::IsNull, vec![]), all(), |i| {
            name(i).is_none()
        });
        assert_eq!(got.len(), 143);
        let got = check_late(
            &data,
            &leaf("name", LeafOp::StartsWith, vec![s("k012")]),
            all(),
            |i| name(i).is_some_and(|v| v.starts_with("k012")),
        );
        assert_eq!(got.len(), 8);
    }
}

#[test]
fn floating_point_and_nan_are_judged_as_the_exact_filter_does() {
    let data = file(true, None);
    let all = || RowRanges::all(ROWS as u64);
    // Arrow orders NaN above every number: row 5 (NaN) matches `d > 998`.
    let got = check_late(
        &data,
        &leaf("d", LeafOp::Gt, vec![Datum::Double(998.0)]),
        all(),
        |i| i == 5 || i == 999,
    );
    assert_eq!(got, vec![5, 999]);
}

#[test]
fn deletion_vectors_and_boolean_combinations() {
    let data = file(true, None);
    let deleted = RowRanges::excluding(ROWS as u64, (0..ROWS as u64).filter(|i| i % 3 == 0));
    let got = check_late(
        &data,
        &leaf("id", LeafOp::Lt, vec![int(30)]),
        deleted.clone(),
        |i| i < 30,
    );
    assert_eq!(got.len(), 20);
    let or = Predicate::Or(vec![
        leaf("id", LeafOp::Lt, vec![int(10)]),
        leaf("name", LeafOp::Eq, vec![s("k0502")]),
    ]);
    let got = check_late(&data, &or, deleted.clone(), |i| {
        i < 10 || name(i).as_deref() == Some("k0502")
    });
    assert_eq!(got.len(), 7);
    // A NOT is not pushed; as an OR branch it keeps every row, as a conjunct it keeps the
    // other conjunct's filtering.
    let not = Predicate::Not(Box::new(leaf("id", LeafOp::Lt, vec![int(500)])));
    let got = check_late(
        &data,
        &Predicate::Or(vec![leaf("id", LeafOp::Lt, vec![int(10)]), not.clone()]),
        deleted.clone(),
        |i| !(10..500).contains(&i),
    );
    assert_eq!(got.len() as u64, deleted.selected());
    let got = check_late(
        &data,
        &Predicate::And(vec![leaf("id", LeafOp::Lt, vec![int(600)]), not]),
        deleted,
        |i| (500..600).contains(&i),
    );
    assert_eq!(got.len(), 400);
}

#[test]
fn cast_or_missing_columns_are_not_pushed_but_renamed_ones_are() {
    let data = file(true, None);
    let pred = leaf("id", LeafOp::Lt, vec![Datum::BigInt(5)]);
    // The read has `id` as BIGINT, the file as INT (an evolved type): nothing is pushed.
    let mut evolved = sources();
    evolved[0].0.data_type = DataType::not_null(TypeKind::BigInt);
    let filter = FilePredicate::for_row_filter(&pred, &evolved);
    assert_eq!(filter, FilePredicate::Unknown);
    let (decoded, _) = late(&data, &leaf("id", LeafOp::Lt, vec![int(5)]), &filter, None);
    assert_eq!(decoded.len(), ROWS);
    // The read's `key` is the file's `id` (a renamed column): pushed under the file's name.
    let mut renamed = sources();
    renamed[0].0.name = "key".into();
    let filter = FilePredicate::for_row_filter(&leaf("key", LeafOp::Lt, vec![int(5)]), &renamed);
    let (decoded, _) = late(&data, &leaf("id", LeafOp::Lt, vec![int(5)]), &filter, None);
    assert_eq!(decoded, vec![0, 1, 2, 3, 4]);
    // A column the file does not hold.
    let filter = FilePredicate::for_row_filter(&leaf("zzz", LeafOp::Lt, vec![int(5)]), &sources());
    assert_eq!(filter, FilePredicate::Unknown);
}

#[test]
fn a_filter_on_every_projected_column_is_not_pushed() {
    let data = file(true, None);
    let pred = leaf("id", LeafOp::Lt, vec![int(5)]);
    let filter = FilePredicate::for_row_filter(&pred, &sources());
    let req = DecodeRequest {
        columns: vec!["id".into()],
        types: Vec::new(),
        rows: None,
        batch_size: 64,
        expected_rows: Some(ROWS as i64),
    };
    let pushed = Some((&filter, LateMaterialization::Always));
    let n: usize = decode_filtered(
        FileFormat::Parquet,
        "t.parquet",
        RangedFile::memory("t.parquet", data),
        &req,
        pushed,
    )
    .unwrap()
    .map(|b| b.unwrap().num_rows())
    .sum();
    assert_eq!(n, ROWS);
}

#[test]
fn the_file_row_count_is_still_checked() {
    let data = file(true, None);
    let pred = leaf("id", LeafOp::Lt, vec![int(5)]);
    let filter = FilePredicate::for_row_filter(&pred, &sources());
    let req = DecodeRequest {
        columns: vec!["id".into(), "name".into()],
        types: Vec::new(),
        rows: None,
        batch_size: 64,
        expected_rows: Some(ROWS as i64 + 1),
    };
    let pushed = Some((&filter, LateMaterialization::Always));
    let err = decode_filtered(
        FileFormat::Parquet,
        "t.parquet",
        RangedFile::memory("t.parquet", data),
        &req,
        pushed,
    )
    .err()
    .expect("a row count mismatch");
    assert!(
        matches!(
            err,
            crate::error::Error::RowCountMismatch {
                expected: 1001,
                found: 1000,
                ..
            }
        ),
        "{err}"
    );
}

/// Without the test override, a filter is only pushed when it keeps at most 0.5% of a sample
/// of the file's rows (here the whole file).
#[test]
fn only_selective_filters_are_pushed() {
    let data = file(true, None);
    let pred = leaf("id", LeafOp::GtEq, vec![int(996)]);
    let filter = FilePredicate::for_row_filter(&pred, &sources());
    let (decoded, exact) = late_as(&data, &pred, &filter, None, false);
    assert_eq!(decoded, (996..1000).collect::<Vec<_>>());
    assert_eq!(exact, decoded);
    // 10 of 1000 rows: decoded in full, then filtered exactly.
    let pred = leaf("id", LeafOp::Lt, vec![int(10)]);
    let filter = FilePredicate::for_row_filter(&pred, &sources());
    let (decoded, exact) = late_as(&data, &pred, &filter, None, false);
    assert_eq!(decoded.len(), ROWS);
    assert_eq!(exact, (0..10).collect::<Vec<_>>());
}
