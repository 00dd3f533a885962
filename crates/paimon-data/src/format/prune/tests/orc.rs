//! Stripe pruning on paimon-cpp's `append_with_bitmap_multi_stripes` ORC file: eight stripes
//! of one row each (`orc.stripe.row.count: 1`), the rows its README lists. Every case checks
//! the pruned read, filtered exactly, against the README's rows filtered by the test, and the
//! stripes skipped against the rows that match.

use super::*;
use crate::format::RangedFile;

fn mem(data: &Bytes) -> RangedFile {
    RangedFile::memory("t.orc", data.clone())
}

/// The README's rows in file order: `f0 STRING, f1 INT, f2 INT, f3 DOUBLE`.
const ROWS: [(&str, i32, Option<i32>, f64); 8] = [
    ("Alice", 10, Some(1), 11.1),
    ("Bob", 10, Some(1), 12.1),
    ("Emily", 10, Some(0), 13.1),
    ("Tony", 10, Some(0), 14.1),
    ("Lucy", 20, Some(1), 15.1),
    ("Bob", 10, Some(1), 16.1),
    ("Tony", 20, Some(0), 17.1),
    ("Alice", 20, None, 18.1),
];

fn orc_file() -> Bytes {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/testdata/paimon-cpp/append_with_bitmap_multi_stripes.db/",
        "append_with_bitmap_multi_stripes/bucket-0/data-55e21ed3-d118-4d75-a0fd-cd52039cb634-0.orc"
    );
    Bytes::from(std::fs::read(path).unwrap_or_else(|e| panic!("{path} missing: {e}")))
}

fn orc_fields() -> Vec<DataField> {
    vec![
        DataField::new(
            0,
            "f0",
            DataType::nullable(TypeKind::VarChar { length: 2147483647 }),
        ),
        DataField::new(1, "f1", DataType::nullable(TypeKind::Int)),
        DataField::new(2, "f2", DataType::nullable(TypeKind::Int)),
        DataField::new(3, "f3", DataType::nullable(TypeKind::Double)),
    ]
}

fn orc_sources() -> Vec<(DataField, ColumnSource)> {
    orc_fields()
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

/// `(f0, f1)` of the rows of a decode of `rows`, filtered exactly by `pred` when given.
fn read(
    data: &Bytes,
    rows: Option<RowRanges>,
    pred: Option<&Predicate>,
) -> Result<Vec<(String, i32)>, String> {
    let req = DecodeRequest {
        columns: vec!["f0".into(), "f1".into(), "f2".into(), "f3".into()],
        types: Vec::new(),
        rows,
        batch_size: 4,
        expected_rows: Some(8),
    };
    let types = orc_fields();
    let type_of = |c: &str| {
        types
            .iter()
            .find(|f| f.name == c)
            .map(|f| f.data_type.clone())
    };
    let mut out = Vec::new();
    let batches =
        decode(FileFormat::Orc, "t.orc", data.clone(), &req).map_err(|e| e.to_string())?;
    for b in batches {
        let b = b.map_err(|e| e.to_string())?;
        let b = match pred {
            Some(p) => crate::filter::filter_batch(p, &b, &type_of).unwrap(),
            None => b,
        };
        let f0 = b.column(0).as_string::<i32>();
        let f1 = b.column(1).as_primitive::<Int32Type>();
        for i in 0..b.num_rows() {
            out.push((f0.value(i).to_string(), f1.value(i)));
        }
    }
    Ok(out)
}

/// Prunes for `pred` over `selection`, checks the pruned read against the README's rows that
/// `matches`, and returns the stripes skipped.
fn check_orc(
    data: &Bytes,
    pred: &Predicate,
    selection: RowRanges,
    matches: impl Fn(&(&str, i32, Option<i32>, f64)) -> bool,
) -> usize {
    let expected: Vec<(String, i32)> = selection
        .positions()
        .map(|p| ROWS[p as usize])
        .filter(|r| matches(r))
        .map(|r| (r.0.to_string(), r.1))
        .collect();
    let unpruned = (!selection.is_all()).then(|| selection.clone());
    assert_eq!(
        read(data, unpruned, Some(pred)).unwrap(),
        expected,
        "unpruned"
    );
    let file_pred = FilePredicate::new(pred, &orc_sources());
    let (rows, stats) = prune_orc(&mem(data), &file_pred, selection);
    // A predicate nothing can be judged of is not evaluated at all.
    assert_eq!(stats.row_groups, if file_pred.can_prune() { 8 } else { 0 });
    let decoded = read(data, Some(rows.clone()), None).unwrap();
    assert_eq!(decoded.len() as u64, stats.rows_after);
    for e in &expected {
        assert!(decoded.contains(e), "matching row {e:?} pruned by {pred:?}");
    }
    assert_eq!(
        read(data, Some(rows), Some(pred)).unwrap(),
        expected,
        "pruned"
    );
    stats.row_groups_skipped
}

#[test]
fn stripes_are_pruned_by_their_statistics() {
    let data = orc_file();
    let all = || RowRanges::all(8);
    let f1 = |v| leaf("f1", LeafOp::Eq, vec![int(v)]);
    // One row per stripe: every stripe whose row does not match is skipped.
    assert_eq!(check_orc(&data, &f1(20), all(), |r| r.1 == 20), 5);
    assert_eq!(
        check_orc(&data, &leaf("f1", LeafOp::Lt, vec![int(10)]), all(), |_| {
            false
        }),
        8
    );
    assert_eq!(
        check_orc(&data, &leaf("f0", LeafOp::Eq, vec![s("Bob")]), all(), |r| r
            .0
            == "Bob"),
        6
    );
    assert_eq!(
        check_orc(
            &data,
            &leaf("f0", LeafOp::GtEq, vec![s("Lucy")]),
            all(),
            |r| r.0 >= "Lucy"
        ),
        5
    );
    assert_eq!(
        check_orc(
            &data,
            &leaf("f0", LeafOp::StartsWith, vec![s("T")]),
            all(),
            |r| r.0.starts_with('T')
        ),
        6
    );
    assert_eq!(
        check_orc(&data, &leaf("f2", LeafOp::IsNull, vec![]), all(), |r| r
            .2
            .is_none()),
        7
    );
    assert_eq!(
        check_orc(&data, &leaf("f2", LeafOp::IsNotNull, vec![]), all(), |r| r
            .2
            .is_some()),
        1
    );
    assert_eq!(
        check_orc(
            &data,
            &leaf("f2", LeafOp::In, vec![int(0), Datum::Null]),
            all(),
            |r| r.2 == Some(0)
        ),
        5
    );
    let or = Predicate::Or(vec![f1(20), leaf("f0", LeafOp::Eq, vec![s("Bob")])]);
    assert_eq!(
        check_orc(&data, &or, all(), |r| r.1 == 20 || r.0 == "Bob"),
        3
    );
    let and = Predicate::And(vec![f1(10), leaf("f2", LeafOp::Eq, vec![int(0)])]);
    assert_eq!(
        check_orc(&data, &and, all(), |r| r.1 == 10 && r.2 == Some(0)),
        6
    );
    // Doubles are not judged (NaN order), nor is NOT.
    let f3 = leaf("f3", LeafOp::Gt, vec![Datum::Double(15.0)]);
    assert_eq!(check_orc(&data, &f3, all(), |r| r.3 > 15.0), 0);
    let not = Predicate::Not(Box::new(f1(10)));
    assert_eq!(check_orc(&data, &not, all(), |r| r.1 != 10), 0);
}

#[test]
fn deleted_rows_and_evolved_columns() {
    let data = orc_file();
    // Row 4 deleted: of the rows with f1 = 20 only 6 and 7 are left.
    let dv = RowRanges::excluding(8, [4]);
    let pred = leaf("f1", LeafOp::Eq, vec![int(20)]);
    assert_eq!(
        check_orc(&data, &pred, dv, |r| r.1 == 20 && r.0 != "Lucy"),
        6
    );
    // The read has `f1` as BIGINT while the file holds INT: not judged.
    let mut evolved = orc_sources();
    evolved[1].0.data_type = DataType::nullable(TypeKind::BigInt);
    let p = leaf("f1", LeafOp::Eq, vec![Datum::BigInt(20)]);
    let (rows, stats) = prune_orc(
        &mem(&data),
        &FilePredicate::new(&p, &evolved),
        RowRanges::all(8),
    );
    assert!(rows.is_all());
    assert_eq!(stats.row_groups_skipped, 0);
    // The read's `g` is the file's `f1` (renamed): judged on the file's column.
    let mut renamed = orc_sources();
    renamed[1].0.name = "g".into();
    let p = leaf("g", LeafOp::Eq, vec![int(20)]);
    let (rows, stats) = prune_orc(
        &mem(&data),
        &FilePredicate::new(&p, &renamed),
        RowRanges::all(8),
    );
    assert_eq!(rows.positions().collect::<Vec<_>>(), vec![4, 6, 7]);
    assert_eq!(stats.row_groups_skipped, 5);
}

/// Pruned stripes are never read: with their bytes overwritten, the full read fails while
/// the pruned read returns the matching rows.
#[test]
fn pruned_stripes_are_not_read() {
    let data = orc_file();
    let meta = orc_rust::reader::metadata::read_metadata(&mut data.clone()).unwrap();
    let stripes = meta.stripe_metadatas();
    assert_eq!(stripes.len(), 8);
    let mut damaged = data.to_vec();
    for (i, s) in stripes.iter().enumerate() {
        if ROWS[i].1 == 20 {
            continue;
        }
        let start = s.offset() as usize;
        let end = start + (s.index_length() + s.data_length() + s.footer_length()) as usize;
        damaged[start..end].fill(0xff);
    }
    let damaged = Bytes::from(damaged);
    assert!(read(&damaged, None, None).is_err());
    let pred = leaf("f1", LeafOp::Eq, vec![int(20)]);
    let (rows, _) = prune_orc(
        &mem(&data),
        &FilePredicate::new(&pred, &orc_sources()),
        RowRanges::all(8),
    );
    let got = read(&damaged, Some(rows), Some(&pred)).unwrap();
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Lucy", "Tony", "Alice"]);
}
