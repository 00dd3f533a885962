//! Pruning on Parquet files written here with 10 row groups of 100 rows and pages of 10 rows.
//! Every case checks the pruned read against a full read filtered by the test's own
//! evaluation of the predicate, and the rows left to decode against the file's layout.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, Decimal128Array, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
pub(super) use bytes::Bytes;
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::types::{DataField, DataType, TypeKind};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use super::*;
use crate::format::{decode, DecodeRequest, FileFormat};

mod late;
mod orc;

const ROWS: usize = 1000;
/// 2024-01-01T00:00:00 in microseconds; row `i` is `i` milliseconds later.
const TS_BASE_MICROS: i64 = 1_704_067_200_000_000;

/// Row `i`'s `name`: sorted strings, NULL on every seventh row.
fn name(i: usize) -> Option<String> {
    (i % 7 != 3).then(|| format!("k{i:04}"))
}

/// Row `i`'s `n`: `2 i`, NULL in the whole fourth row group.
fn n(i: usize) -> Option<i64> {
    (!(300..400).contains(&i)).then_some(i as i64 * 2)
}

/// Row `i`'s `d`: `i`, but NaN at row 5 (Parquet statistics leave NaN out).
fn d(i: usize) -> f64 {
    if i == 5 {
        f64::NAN
    } else {
        i as f64
    }
}

fn fields() -> Vec<DataField> {
    vec![
        DataField::new(0, "id", DataType::not_null(TypeKind::Int)),
        DataField::new(
            1,
            "name",
            DataType::nullable(TypeKind::VarChar { length: 2147483647 }),
        ),
        DataField::new(2, "n", DataType::nullable(TypeKind::BigInt)),
        DataField::new(3, "d", DataType::nullable(TypeKind::Double)),
        DataField::new(
            4,
            "dec",
            DataType::nullable(TypeKind::Decimal {
                precision: 10,
                scale: 2,
            }),
        ),
        DataField::new(
            5,
            "ts",
            DataType::nullable(TypeKind::Timestamp { precision: 6 }),
        ),
    ]
}

fn sources() -> Vec<(DataField, ColumnSource)> {
    fields()
        .into_iter()
        .map(|f| {
            let src = ColumnSource::File {
                name: f.name.clone(),
                file_type: f.data_type.clone(),
            };
            (f, src)
        })
        .collect()
}

fn batch() -> RecordBatch {
    let ids: Vec<i32> = (0..ROWS as i32).collect();
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int32Array::from(ids))),
        (
            "name",
            Arc::new((0..ROWS).map(name).collect::<StringArray>()),
        ),
        ("n", Arc::new((0..ROWS).map(n).collect::<Int64Array>())),
        ("d", Arc::new((0..ROWS).map(d).collect::<Float64Array>())),
        (
            "dec",
            Arc::new(
                (0..ROWS)
                    .map(|i| Some(i as i128 * 100))
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
        ),
        (
            "ts",
            Arc::new(
                (0..ROWS)
                    .map(|i| Some(TS_BASE_MICROS + i as i64 * 1000))
                    .collect::<TimestampMicrosecondArray>(),
            ),
        ),
    ];
    RecordBatch::try_from_iter(cols).unwrap()
}

/// The test file; `page_index` writes page statistics (column and offset index), and
/// `truncate` cuts string statistics to that many bytes.
fn file(page_index: bool, truncate: Option<usize>) -> Bytes {
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(100))
        .set_data_page_row_count_limit(10)
        .set_write_batch_size(10)
        .set_statistics_enabled(if page_index {
            EnabledStatistics::Page
        } else {
            EnabledStatistics::Chunk
        })
        .set_statistics_truncate_length(truncate)
        .set_column_index_truncate_length(truncate)
        .build();
    let b = batch();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, b.schema(), Some(props)).unwrap();
    w.write(&b).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn ids(data: &Bytes, rows: Option<RowRanges>) -> Vec<i32> {
    let req = DecodeRequest {
        columns: fields().into_iter().map(|f| f.name).collect(),
        types: Vec::new(),
        rows,
        batch_size: 64,
        expected_rows: Some(ROWS as i64),
    };
    let mut out = Vec::new();
    for b in decode(FileFormat::Parquet, "t.parquet", data.clone(), &req).unwrap() {
        let b = b.unwrap();
        out.extend(b.column(0).as_primitive::<Int32Type>().values().iter());
    }
    out
}

/// Ids of `rows` (from a decode) for which the exact filter holds.
fn exact(pred: &Predicate, data: &Bytes, rows: Option<RowRanges>) -> Vec<i32> {
    let req = DecodeRequest {
        columns: fields().into_iter().map(|f| f.name).collect(),
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
    let mut out = Vec::new();
    for b in decode(FileFormat::Parquet, "t.parquet", data.clone(), &req).unwrap() {
        let b = crate::filter::filter_batch(pred, &b.unwrap(), &type_of).unwrap();
        out.extend(b.column(0).as_primitive::<Int32Type>().values().iter());
    }
    out
}

/// Prunes `data` for `pred` over `selection`, decodes what is left and checks it: the rows
/// matching `pred` by the test's own evaluation `matches` are all decoded, and the exact
/// filter over the pruned read returns exactly them. Returns the pruning's counts.
fn check(
    data: &Bytes,
    pred: &Predicate,
    selection: RowRanges,
    matches: impl Fn(usize) -> bool,
) -> PruneStats {
    let kept: Vec<i32> = selection.positions().map(|p| p as i32).collect();
    // The independent truth: rows of the selection for which the predicate holds.
    let expected: Vec<i32> = kept
        .iter()
        .copied()
        .filter(|i| matches(*i as usize))
        .collect();
    let unpruned = (!selection.is_all()).then(|| selection.clone());
    assert_eq!(ids(data, unpruned.clone()), kept, "full read");
    assert_eq!(
        exact(pred, data, unpruned),
        expected,
        "exact filter, no pruning"
    );

    let (rows, stats) = prune_parquet(data, &FilePredicate::new(pred, &sources()), selection);
    let decoded = ids(data, (!rows.is_all()).then(|| rows.clone()));
    assert_eq!(decoded.len() as u64, stats.rows_after);
    for e in &expected {
        assert!(decoded.contains(e), "matching row {e} pruned by {pred:?}");
    }
    let pruned_read = exact(pred, data, (!rows.is_all()).then(|| rows.clone()));
    assert_eq!(pruned_read, expected, "exact filter after pruning");
    stats
}

fn leaf(column: &str, op: LeafOp, literals: Vec<Datum>) -> Predicate {
    Predicate::leaf(column, op, literals)
}

fn int(v: i32) -> Datum {
    Datum::Int(v)
}

fn s(v: &str) -> Datum {
    Datum::String(v.to_string())
}

/// Rows left and row groups skipped.
fn left(stats: PruneStats) -> (u64, usize) {
    (stats.rows_after, stats.row_groups_skipped)
}

#[test]
fn integer_comparisons_prune_row_groups_and_pages() {
    let data = file(true, None);
    let all = || RowRanges::all(ROWS as u64);
    // Sorted ids, 100 per row group, 10 per page: the rows left are whole pages.
    let st = check(
        &data,
        &leaf("id", LeafOp::GtEq, vec![int(250)]),
        all(),
        |i| i >= 250,
    );
    assert_eq!(st.row_groups, 10);
    assert_eq!(st.rows_before, 1000);
    assert_eq!(left(st), (750, 2));
    let st = check(&data, &leaf("id", LeafOp::Lt, vec![int(250)]), all(), |i| {
        i < 250
    });
    assert_eq!(left(st), (250, 7));
    let st = check(&data, &leaf("id", LeafOp::Gt, vec![int(249)]), all(), |i| {
        i > 249
    });
    assert_eq!(left(st), (750, 2));
    let st = check(&data, &leaf("id", LeafOp::LtEq, vec![int(9)]), all(), |i| {
        i <= 9
    });
    assert_eq!(left(st), (10, 9));
    let st = check(&data, &leaf("id", LeafOp::Eq, vec![int(537)]), all(), |i| {
        i == 537
    });
    assert_eq!(left(st), (10, 9));
    let st = check(
        &data,
        &leaf("id", LeafOp::In, vec![int(5), int(537), int(2000)]),
        all(),
        |i| i == 5 || i == 537,
    );
    assert_eq!(left(st), (20, 8));
    // No page holds only id 5.
    let st = check(
        &data,
        &leaf("id", LeafOp::NotEq, vec![int(5)]),
        all(),
        |i| i != 5,
    );
    assert_eq!(left(st), (1000, 0));
    let st = check(
        &data,
        &leaf("id", LeafOp::Eq, vec![int(5000)]),
        all(),
        |_| false,
    );
    assert_eq!(left(st), (0, 10));
}

#[test]
fn null_checks_use_null_counts() {
    let data = file(true, None);
    let all = || RowRanges::all(ROWS as u64);
    // `n` is NULL in exactly rows 300..400.
    let st = check(&data, &leaf("n", LeafOp::IsNull, vec![]), all(), |i| {
        n(i).is_none()
    });
    assert_eq!(left(st), (100, 9));
    let st = check(&data, &leaf("n", LeafOp::IsNotNull, vec![]), all(), |i| {
        n(i).is_some()
    });
    assert_eq!(left(st), (900, 1));
    // A comparison never holds on a NULL: the all-NULL row group goes too.
    let st = check(
        &data,
        &leaf("n", LeafOp::GtEq, vec![Datum::BigInt(0)]),
        all(),
        |i| n(i).is_some(),
    );
    assert_eq!(left(st), (900, 1));
    // `name` has a NULL in every page: IS NULL prunes nothing.
    let st = check(&data, &leaf("name", LeafOp::IsNull, vec![]), all(), |i| {
        name(i).is_none()
    });
    assert_eq!(left(st), (1000, 0));
}

#[test]
fn string_comparisons_are_bytewise() {
    let data = file(true, None);
    let all = || RowRanges::all(ROWS as u64);
    let cmp_name = |i: usize, f: fn(&str) -> bool| name(i).is_some_and(|v| f(&v));
    let st = check(
        &data,
        &leaf("name", LeafOp::Lt, vec![s("k0120")]),
        all(),
        |i| cmp_name(i, |v| v < "k0120"),
    );
    assert_eq!(left(st), (120, 8));
    let st = check(
        &data,
        &leaf("name", LeafOp::GtEq, vec![s("k0990")]),
        all(),
        |i| cmp_name(i, |v| v >= "k0990"),
    );
    assert_eq!(left(st), (10, 9));
    let st = check(
        &data,
        &leaf("name", LeafOp::Eq, vec![s("k0537")]),
        all(),
        |i| cmp_name(i, |v| v == "k0537"),
    );
    assert_eq!(left(st), (10, 9));
    let st = check(
        &data,
        &leaf("name", LeafOp::StartsWith, vec![s("k05")]),
        all(),
        |i| cmp_name(i, |v| v.starts_with("k05")),
    );
    assert_eq!(left(st), (100, 9));
    // "k1" sorts after every name; "K" (0x4B) before every one of them (0x6B).
    let st = check(
        &data,
        &leaf("name", LeafOp::GtEq, vec![s("k1")]),
        all(),
        |_| false,
    );
    assert_eq!(left(st), (0, 10));
    let st = check(
        &data,
        &leaf("name", LeafOp::Lt, vec![s("K9")]),
        all(),
        |_| false,
    );
    assert_eq!(left(st), (0, 10));
}

#[test]
fn truncated_string_statistics_stay_bounds() {
    // Statistics of 3 bytes: "k0537" has min "k05" and max "k06" (last byte incremented).
    let data = file(true, Some(3));
    let all = || RowRanges::all(ROWS as u64);
    let st = check(
        &data,
        &leaf("name", LeafOp::Eq, vec![s("k0537")]),
        all(),
        |i| name(i).as_deref() == Some("k0537"),
    );
    // Every page of rows 500..599 has bounds [k05, k06]; the pages around may too.
    assert!(st.rows_after >= 100 && st.rows_after < 1000, "{st:?}");
    let st = check(
        &data,
        &leaf("name", LeafOp::Lt, vec![s("k0120")]),
        all(),
        |i| name(i).is_some_and(|v| v.as_str() < "k0120"),
    );
    assert!(st.rows_after >= 120 && st.rows_after < 1000, "{st:?}");
}

#[test]
fn and_prunes_on_any_conjunct_or_only_on_all() {
    let data = file(true, None);
    let all = || RowRanges::all(ROWS as u64);
    let and = Predicate::And(vec![
        leaf("id", LeafOp::GtEq, vec![int(250)]),
        leaf("name", LeafOp::Lt, vec![s("k0300")]),
    ]);
    let st = check(&data, &and, all(), |i| {
        i >= 250 && name(i).is_some_and(|v| v.as_str() < "k0300")
    });
    assert_eq!(left(st), (50, 9));
    // A conjunct on a double column is not judged; the other still prunes.
    let and = Predicate::And(vec![
        leaf("id", LeafOp::Eq, vec![int(537)]),
        leaf("d", LeafOp::Gt, vec![Datum::Double(0.0)]),
    ]);
    let st = check(&data, &and, all(), |i| i == 537);
    assert_eq!(left(st), (10, 9));
    let or = Predicate::Or(vec![
        leaf("id", LeafOp::Lt, vec![int(20)]),
        leaf("id", LeafOp::GtEq, vec![int(980)]),
    ]);
    let st = check(&data, &or, all(), |i| !(20..980).contains(&i));
    assert_eq!(left(st), (40, 8));
    // One branch not judged: nothing pruned.
    let or = Predicate::Or(vec![
        leaf("id", LeafOp::Lt, vec![int(20)]),
        leaf("d", LeafOp::Gt, vec![Datum::Double(990.0)]),
    ]);
    let st = check(&data, &or, all(), |i| !(20..=990).contains(&i) || i == 5);
    assert_eq!(left(st), (1000, 0));
    // NOT never prunes.
    let not = Predicate::Not(Box::new(leaf("id", LeafOp::GtEq, vec![int(250)])));
    let st = check(&data, &not, all(), |i| i < 250);
    assert_eq!(left(st), (1000, 0));
}

#[test]
fn nan_is_never_pruned() {
    // Arrow orders NaN above every number, so `d > 500` holds on row 5 although the page's
    // statistics (NaN left out) say max 9.
    let data = file(true, None);
    let st = check(
        &data,
        &leaf("d", LeafOp::Gt, vec![Datum::Double(500.0)]),
        RowRanges::all(ROWS as u64),
        |i| i == 5 || i > 500,
    );
    assert_eq!(left(st), (1000, 0));
}

#[test]
fn decimals_and_timestamps() {
    let data = file(true, None);
    let all = || RowRanges::all(ROWS as u64);
    let dec = Datum::Decimal {
        unscaled: 99_500,
        precision: 10,
        scale: 2,
    };
    let st = check(&data, &leaf("dec", LeafOp::GtEq, vec![dec]), all(), |i| {
        i >= 995
    });
    assert_eq!(left(st), (10, 9));
    // ts < base + 15 ms: rows 0..15, two pages.
    let ts = Datum::Timestamp {
        millis: TS_BASE_MICROS / 1000 + 15,
        nanos: 0,
    };
    let st = check(&data, &leaf("ts", LeafOp::Lt, vec![ts]), all(), |i| i < 15);
    assert_eq!(left(st), (20, 9));
}

#[test]
fn without_page_index_row_groups_only() {
    let data = file(false, None);
    let st = check(
        &data,
        &leaf("id", LeafOp::GtEq, vec![int(250)]),
        RowRanges::all(ROWS as u64),
        |i| i >= 250,
    );
    assert_eq!(left(st), (800, 2));
}

#[test]
fn deletion_vector_positions_are_kept() {
    let data = file(true, None);
    let dv = RowRanges::excluding(ROWS as u64, [3, 250, 251, 600]);
    let st = check(&data, &leaf("id", LeafOp::GtEq, vec![int(250)]), dv, |i| {
        i >= 250
    });
    assert_eq!(st.rows_before, 996);
    assert_eq!(left(st), (747, 2));
}

#[test]
fn only_uncast_columns_of_the_file_are_judged() {
    let read = DataField::new(0, "id2", DataType::not_null(TypeKind::BigInt));
    let cast = vec![(
        read.clone(),
        ColumnSource::File {
            name: "id".into(),
            file_type: DataType::not_null(TypeKind::Int),
        },
    )];
    let p = leaf("id2", LeafOp::Eq, vec![Datum::BigInt(1)]);
    assert_eq!(FilePredicate::new(&p, &cast), FilePredicate::Unknown);
    let absent = vec![(read.clone(), ColumnSource::Absent)];
    assert_eq!(FilePredicate::new(&p, &absent), FilePredicate::Unknown);
    // A renamed column is judged under the file's name.
    let renamed = vec![(
        read,
        ColumnSource::File {
            name: "id".into(),
            file_type: DataType::nullable(TypeKind::BigInt),
        },
    )];
    assert_eq!(
        FilePredicate::new(&p, &renamed),
        FilePredicate::Leaf {
            column: "id".into(),
            ty: DataType::not_null(TypeKind::BigInt),
            op: LeafOp::Eq,
            literals: vec![Datum::BigInt(1)],
        }
    );
    // A column the predicate names but the mapping lacks (a partition column).
    assert_eq!(
        FilePredicate::new(&leaf("pt", LeafOp::Eq, vec![int(1)]), &sources()),
        FilePredicate::Unknown
    );
}

#[test]
fn corrupt_or_mismatched_files_are_left_to_the_decoder() {
    let p = FilePredicate::new(&leaf("id", LeafOp::Eq, vec![int(5)]), &sources());
    let rows = RowRanges::all(ROWS as u64);
    let (out, st) = prune_parquet(&Bytes::from_static(b"not parquet"), &p, rows.clone());
    assert_eq!((out, st.rows_after), (rows, 1000));
    // The metadata claims other rows than the file holds: no pruning, the decode reports it.
    let more = RowRanges::all(ROWS as u64 + 1);
    let (out, _) = prune_parquet(&file(true, None), &p, more.clone());
    assert_eq!(out, more);
}
