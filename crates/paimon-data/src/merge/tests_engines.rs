//! Exact results of the partial-update and aggregation engines, checked against the semantics
//! of Java's `PartialUpdateMergeFunction`, `AggregateMergeFunction` and `Field*Agg` classes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, MapBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Decimal128Array, Float64Array, Int64Array, RecordBatch,
};

use super::tests::{batch, col_i32, col_str, ints, merge, merge_with, s, strs, D, I, UA, UB};
use super::{with_level, MergeError, MergeOptions, RowKindColumn, LEVEL, ROW_KIND};

/// All rows share key 1 and have increasing sequence numbers: one group of `kinds.len()`.
fn one_key(kinds: &[i8], cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let n = kinds.len();
    let seqs: Vec<i64> = (1..=n as i64).collect();
    batch(&vec![Some(1); n], &seqs, kinds, cols)
}

fn pu(
    kinds: &[i8],
    cols: Vec<(&str, ArrayRef)>,
    extra: &[(&str, &str)],
) -> Result<RecordBatch, MergeError> {
    let mut o = vec![("merge-engine", "partial-update")];
    o.extend_from_slice(extra);
    merge_with(
        vec![vec![one_key(kinds, cols)]],
        &o,
        MergeOptions::default()
            .with_keep_deletes(true)
            .with_row_kind(Some(RowKindColumn::ShortString)),
    )
}

fn agg(
    kinds: &[i8],
    cols: Vec<(&str, ArrayRef)>,
    extra: &[(&str, &str)],
) -> Result<RecordBatch, MergeError> {
    let mut o = vec![("merge-engine", "aggregation")];
    o.extend_from_slice(extra);
    merge_with(
        vec![vec![one_key(kinds, cols)]],
        &o,
        MergeOptions::default()
            .with_keep_deletes(true)
            .with_row_kind(Some(RowKindColumn::ShortString)),
    )
}

fn kinds_of(b: &RecordBatch) -> Vec<Option<String>> {
    col_str(b, ROW_KIND)
}

fn i64s(v: &[Option<i64>]) -> ArrayRef {
    Arc::new(Int64Array::from(v.to_vec()))
}

fn col_i64(b: &RecordBatch, name: &str) -> Vec<Option<i64>> {
    b.column_by_name(name)
        .unwrap()
        .as_primitive::<Int64Type>()
        .iter()
        .collect()
}

// ---------------------------------------------------------------- partial update

#[test]
fn partial_update_non_null_fields_overwrite() {
    let out = pu(
        &[I, I, I],
        vec![
            ("a", ints(&[Some(1), None, Some(3)])),
            ("b", strs(&[Some("x"), Some("y"), None])),
            ("c", ints(&[Some(7), None, None])),
        ],
        &[],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "a"), vec![Some(3)]);
    assert_eq!(col_str(&out, "b"), s(&[Some("y")]));
    assert_eq!(col_i32(&out, "c"), vec![Some(7)]);
    assert_eq!(
        kinds_of(&out),
        s(&[Some("+I")]),
        "Java emits +I for a merged row"
    );
}

#[test]
fn partial_update_across_runs_and_keys() {
    let r0 = batch(
        &[Some(1), Some(2)],
        &[1, 2],
        &[I, I],
        vec![
            ("a", ints(&[Some(1), Some(2)])),
            ("b", ints(&[None, Some(20)])),
        ],
    );
    let r1 = batch(
        &[Some(1), Some(3)],
        &[3, 4],
        &[UA, I],
        vec![
            ("a", ints(&[None, Some(3)])),
            ("b", ints(&[Some(10), None])),
        ],
    );
    let out = merge(
        vec![vec![r0], vec![r1]],
        &[("merge-engine", "partial-update")],
    );
    assert_eq!(col_i32(&out, "id"), vec![Some(1), Some(2), Some(3)]);
    assert_eq!(col_i32(&out, "a"), vec![Some(1), Some(2), Some(3)]);
    assert_eq!(col_i32(&out, "b"), vec![Some(10), Some(20), None]);
}

#[test]
fn partial_update_rejects_deletes_by_default() {
    let err = pu(&[I, D], vec![("a", ints(&[Some(1), Some(1)]))], &[]);
    assert!(
        matches!(err, Err(MergeError::MergeFunction { .. })),
        "{err:?}"
    );
}

#[test]
fn partial_update_ignore_delete_keeps_first_retract_values() {
    // Java fills the row from a leading retraction (initRow) before ignoring it.
    let out = pu(
        &[D, I],
        vec![
            ("a", ints(&[Some(9), Some(1)])),
            ("b", ints(&[Some(9), None])),
        ],
        &[("ignore-delete", "true")],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "a"), vec![Some(1)]);
    assert_eq!(col_i32(&out, "b"), vec![Some(9)]);
    assert_eq!(kinds_of(&out), s(&[Some("+I")]));
    // Only retractions: the result is a -D (dropped by default).
    let out = pu(
        &[D, UB],
        vec![("a", ints(&[Some(9), Some(1)]))],
        &[("ignore-delete", "true")],
    )
    .unwrap();
    assert_eq!(kinds_of(&out), s(&[Some("-D")]));
    assert_eq!(col_i32(&out, "a"), vec![Some(9)]);
}

#[test]
fn partial_update_remove_record_on_delete() {
    let opts = [("partial-update.remove-record-on-delete", "true")];
    let out = pu(
        &[I, D],
        vec![
            ("a", ints(&[Some(1), Some(5)])),
            ("b", ints(&[Some(2), None])),
        ],
        &opts,
    )
    .unwrap();
    assert_eq!(kinds_of(&out), s(&[Some("-D")]));
    assert_eq!(col_i32(&out, "a"), vec![Some(5)]);
    assert_eq!(col_i32(&out, "b"), vec![None]);
    // A later insert revives the row on top of the deleted values.
    let out = pu(
        &[I, D, I],
        vec![
            ("a", ints(&[Some(1), Some(5), None])),
            ("b", ints(&[Some(2), Some(6), Some(3)])),
        ],
        &opts,
    )
    .unwrap();
    assert_eq!(kinds_of(&out), s(&[Some("+I")]));
    assert_eq!(col_i32(&out, "a"), vec![Some(5)]);
    assert_eq!(col_i32(&out, "b"), vec![Some(3)]);
    // -U is not a delete: ignored.
    let out = pu(&[I, UB], vec![("a", ints(&[Some(1), Some(5)]))], &opts).unwrap();
    assert_eq!(kinds_of(&out), s(&[Some("+I")]));
    assert_eq!(col_i32(&out, "a"), vec![Some(1)]);
    // Dropped without keep_deletes.
    let b = one_key(&[I, D], vec![("a", ints(&[Some(1), Some(5)]))]);
    let out = merge(
        vec![vec![b]],
        &[("merge-engine", "partial-update"), opts[0]],
    );
    assert_eq!(out.num_rows(), 0);
}

#[test]
fn partial_update_sequence_groups() {
    let opts = [
        ("fields.g1.sequence-group", "a"),
        ("fields.g2.sequence-group", "b"),
    ];
    let out = pu(
        &[I, I, I, I],
        vec![
            ("a", ints(&[Some(1), Some(2), None, None])),
            ("g1", ints(&[Some(1), Some(0), None, Some(5)])),
            ("b", ints(&[Some(1), Some(2), Some(3), Some(4)])),
            ("g2", ints(&[Some(1), Some(2), None, Some(1)])),
        ],
        &opts,
    )
    .unwrap();
    // a: seq 2 is older for g1 (0 < 1); seq 3 has an empty g1; seq 4 overwrites a with null.
    assert_eq!(col_i32(&out, "a"), vec![None]);
    assert_eq!(col_i32(&out, "g1"), vec![Some(5)]);
    // b: seq 2 newer (2); seq 3 empty g2 skipped; seq 4 older (1 < 2).
    assert_eq!(col_i32(&out, "b"), vec![Some(2)]);
    assert_eq!(col_i32(&out, "g2"), vec![Some(2)]);
}

#[test]
fn partial_update_sequence_group_with_aggregate() {
    let opts = [
        ("fields.g.sequence-group", "a"),
        ("fields.a.aggregate-function", "sum"),
    ];
    let out = pu(
        &[I, I, I],
        vec![
            ("a", ints(&[Some(1), Some(2), Some(10)])),
            ("g", ints(&[Some(1), Some(2), Some(1)])),
        ],
        &opts,
    )
    .unwrap();
    assert_eq!(
        col_i32(&out, "a"),
        vec![Some(13)],
        "older records aggregate reversed"
    );
    assert_eq!(col_i32(&out, "g"), vec![Some(2)]);
    // Retraction through the group's aggregate: 5 + 3 - 3.
    let out = pu(
        &[I, I, UB],
        vec![
            ("a", ints(&[Some(5), Some(3), Some(3)])),
            ("g", ints(&[Some(1), Some(2), Some(3)])),
        ],
        &opts,
    )
    .unwrap();
    assert_eq!(col_i32(&out, "a"), vec![Some(5)]);
    assert_eq!(col_i32(&out, "g"), vec![Some(3)]);
    assert_eq!(kinds_of(&out), s(&[Some("+I")]));
}

#[test]
fn partial_update_sequence_group_retract_nulls_fields() {
    let opts = [("fields.g.sequence-group", "a,b")];
    let out = pu(
        &[I, D],
        vec![
            ("a", ints(&[Some(1), Some(1)])),
            ("b", ints(&[Some(2), Some(2)])),
            ("g", ints(&[Some(1), Some(2)])),
            ("c", ints(&[Some(3), Some(9)])),
        ],
        &opts,
    )
    .unwrap();
    assert_eq!(col_i32(&out, "a"), vec![None]);
    assert_eq!(col_i32(&out, "b"), vec![None]);
    assert_eq!(col_i32(&out, "g"), vec![Some(2)]);
    assert_eq!(
        col_i32(&out, "c"),
        vec![Some(3)],
        "fields outside groups ignore retractions"
    );
    assert_eq!(kinds_of(&out), s(&[Some("+I")]));
    // An older retraction leaves the group alone.
    let out = pu(
        &[I, D],
        vec![
            ("a", ints(&[Some(1), Some(1)])),
            ("b", ints(&[Some(2), Some(2)])),
            ("g", ints(&[Some(5), Some(2)])),
        ],
        &opts,
    )
    .unwrap();
    assert_eq!(col_i32(&out, "a"), vec![Some(1)]);
}

#[test]
fn partial_update_remove_record_on_sequence_group() {
    // paimon-spec's CoreOptions parses this option as a boolean although Java reads a list of
    // sequence fields, so the spec is completed by hand here.
    let b = one_key(
        &[I, D],
        vec![
            ("a", ints(&[Some(1), Some(7)])),
            ("g", ints(&[Some(1), Some(2)])),
        ],
    );
    let schema = b.schema();
    let o = super::tests::options(&[
        ("merge-engine", "partial-update"),
        ("fields.g.sequence-group", "a"),
    ]);
    let layout = super::RunLayout::from_schema(&schema, &["id".to_string()], &[], false).unwrap();
    let fields = layout.value_fields(&schema).unwrap();
    let mut engine = super::MergeEngineSpec::try_new(&o, &["id".to_string()], &fields).unwrap();
    if let super::MergeEngineSpec::PartialUpdate(spec) = &mut engine {
        spec.remove_record_on_sequence_group = vec![2];
    }
    let opts = MergeOptions::default()
        .with_keep_deletes(true)
        .with_row_kind(Some(RowKindColumn::ShortString));
    let reader = super::merge_sorted_runs(
        vec![super::tests::run(vec![b])],
        &schema,
        layout,
        &engine,
        opts,
    )
    .unwrap();
    let out = reader.collect::<Result<Vec<_>, _>>().unwrap().remove(0);
    assert_eq!(kinds_of(&out), s(&[Some("-D")]));
    assert_eq!(col_i32(&out, "a"), vec![Some(7)]);
}

#[test]
fn partial_update_invalid_configurations() {
    let cols = || {
        vec![
            ("a", ints(&[Some(1), Some(2)])),
            ("g", ints(&[Some(1), Some(2)])),
        ]
    };
    let e = pu(&[I, I], cols(), &[("fields.a.aggregate-function", "sum")]);
    assert!(
        matches!(e, Err(MergeError::InvalidOption { .. })),
        "aggregate without a group: {e:?}"
    );
    let e = pu(
        &[I, I],
        cols(),
        &[
            ("ignore-delete", "true"),
            ("partial-update.remove-record-on-delete", "true"),
        ],
    );
    assert!(matches!(e, Err(MergeError::InvalidOption { .. })), "{e:?}");
    let e = pu(&[I, I], cols(), &[("fields.g.sequence-group", "id")]);
    assert!(
        matches!(e, Err(MergeError::InvalidOption { .. })),
        "primary key in a group: {e:?}"
    );
    let e = pu(&[I, I], cols(), &[("fields.g.sequence-group", "nope")]);
    assert!(matches!(e, Err(MergeError::InvalidOption { .. })), "{e:?}");
    // last_non_null_value needs no group.
    let out = pu(
        &[I, I],
        cols(),
        &[("fields.a.aggregate-function", "last_non_null_value")],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "a"), vec![Some(2)]);
}

// ---------------------------------------------------------------- aggregation

#[test]
fn aggregate_sum_with_nulls_and_retraction() {
    let out = agg(
        &[I, I, UB, I],
        vec![
            ("s32", ints(&[Some(1), None, Some(4), Some(10)])),
            ("s64", i64s(&[None, Some(5), Some(2), None])),
            (
                "f",
                Arc::new(Float64Array::from(vec![
                    Some(1.5),
                    Some(2.25),
                    None,
                    Some(-1.0),
                ])) as ArrayRef,
            ),
        ],
        &[("fields.default-aggregate-function", "sum")],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "s32"), vec![Some(7)]);
    assert_eq!(col_i64(&out, "s64"), vec![Some(3)]);
    let f: Vec<Option<f64>> = out
        .column_by_name("f")
        .unwrap()
        .as_primitive::<Float64Type>()
        .iter()
        .collect();
    assert_eq!(f, vec![Some(2.75)]);
    assert_eq!(col_i32(&out, "id"), vec![Some(1)], "primary key stays");
    assert_eq!(kinds_of(&out), s(&[Some("+I")]));
    // Retracting into a null sum negates.
    let out = agg(
        &[I, UB],
        vec![("s", ints(&[None, Some(4)]))],
        &[("fields.s.aggregate-function", "sum")],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "s"), vec![Some(-4)]);
}

#[test]
fn aggregate_sum_overflow_and_decimal() {
    let e = agg(
        &[I, I],
        vec![("s", ints(&[Some(i32::MAX), Some(1)]))],
        &[("fields.s.aggregate-function", "sum")],
    );
    assert!(matches!(e, Err(MergeError::MergeFunction { .. })), "{e:?}");
    let dec = |v: Vec<Option<i128>>| -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v)
                .with_precision_and_scale(4, 2)
                .unwrap(),
        )
    };
    let out = agg(
        &[I, I],
        vec![("d", dec(vec![Some(1050), Some(25)]))],
        &[("fields.d.aggregate-function", "sum")],
    )
    .unwrap();
    let d: Vec<Option<i128>> = out
        .column_by_name("d")
        .unwrap()
        .as_primitive::<Decimal128Type>()
        .iter()
        .collect();
    assert_eq!(d, vec![Some(1075)]);
    // 99.99 + 0.01 no longer fits DECIMAL(4, 2): null, as Java's fromBigDecimal.
    let out = agg(
        &[I, I],
        vec![("d", dec(vec![Some(9999), Some(1)]))],
        &[("fields.d.aggregate-function", "sum")],
    )
    .unwrap();
    assert!(out.column_by_name("d").unwrap().is_null(0));
    // product of decimals rounds half-up back to the scale: 1.25 * 1.10 = 1.375 -> 1.38.
    let out = agg(
        &[I, I],
        vec![("d", dec(vec![Some(125), Some(110)]))],
        &[("fields.d.aggregate-function", "product")],
    )
    .unwrap();
    let d: Vec<Option<i128>> = out
        .column_by_name("d")
        .unwrap()
        .as_primitive::<Decimal128Type>()
        .iter()
        .collect();
    assert_eq!(d, vec![Some(138)]);
}

#[test]
fn aggregate_product_and_its_retraction() {
    let out = agg(
        &[I, I, I, UB],
        vec![("p", ints(&[Some(2), None, Some(3), Some(2)]))],
        &[("fields.p.aggregate-function", "product")],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "p"), vec![Some(3)]);
}

#[test]
fn aggregate_max_min() {
    let out = agg(
        &[I, I, I],
        vec![
            ("mx", ints(&[Some(3), None, Some(7)])),
            ("mn", strs(&[Some("b"), Some("a"), None])),
            ("mx2", strs(&[Some("b"), Some("c"), Some("a")])),
        ],
        &[
            ("fields.mx.aggregate-function", "max"),
            ("fields.mn.aggregate-function", "min"),
            ("fields.mx2.aggregate-function", "max"),
        ],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "mx"), vec![Some(7)]);
    assert_eq!(col_str(&out, "mn"), s(&[Some("a")]));
    assert_eq!(col_str(&out, "mx2"), s(&[Some("c")]));
    let e = agg(
        &[I, UB],
        vec![("mx", ints(&[Some(3), Some(1)]))],
        &[("fields.mx.aggregate-function", "max")],
    );
    assert!(
        matches!(e, Err(MergeError::MergeFunction { .. })),
        "max cannot retract: {e:?}"
    );
    let out = agg(
        &[I, UB],
        vec![("mx", ints(&[Some(3), Some(9)]))],
        &[
            ("fields.mx.aggregate-function", "max"),
            ("fields.mx.ignore-retract", "true"),
        ],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "mx"), vec![Some(3)]);
}

#[test]
fn aggregate_value_pickers() {
    let v = || ints(&[None, Some(1), Some(2), None]);
    let out = agg(
        &[I, I, I, I],
        vec![
            ("lv", v()),
            ("lnn", v()),
            ("fv", v()),
            ("fnn", v()),
            ("legacy", v()),
        ],
        &[
            ("fields.lv.aggregate-function", "last_value"),
            ("fields.fv.aggregate-function", "first_value"),
            ("fields.fnn.aggregate-function", "first_non_null_value"),
            ("fields.legacy.aggregate-function", "first_not_null_value"),
        ],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "lv"), vec![None]);
    assert_eq!(
        col_i32(&out, "lnn"),
        vec![Some(2)],
        "last_non_null_value is the default"
    );
    assert_eq!(col_i32(&out, "fv"), vec![None]);
    assert_eq!(col_i32(&out, "fnn"), vec![Some(1)]);
    assert_eq!(col_i32(&out, "legacy"), vec![Some(1)]);
}

#[test]
fn aggregate_value_picker_retractions() {
    let out = agg(
        &[I, I, UB],
        vec![
            ("lv", ints(&[Some(1), Some(2), Some(5)])),
            ("lnn", ints(&[Some(1), Some(2), Some(5)])),
            ("lnn2", ints(&[Some(1), Some(2), None])),
        ],
        &[("fields.lv.aggregate-function", "last_value")],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "lv"), vec![None]);
    assert_eq!(
        col_i32(&out, "lnn"),
        vec![None],
        "a non-null retraction clears"
    );
    assert_eq!(
        col_i32(&out, "lnn2"),
        vec![Some(2)],
        "a null retraction keeps"
    );
    let e = agg(
        &[I, UB],
        vec![("fv", ints(&[Some(1), Some(2)]))],
        &[("fields.fv.aggregate-function", "first_value")],
    );
    assert!(e.is_err());
}

#[test]
fn aggregate_bool_and_or() {
    let b = |v: Vec<Option<bool>>| -> ArrayRef { Arc::new(BooleanArray::from(v)) };
    let out = agg(
        &[I, I, I],
        vec![
            ("and", b(vec![Some(true), None, Some(false)])),
            ("or", b(vec![Some(false), Some(true), None])),
            ("and2", b(vec![None, Some(true), Some(true)])),
        ],
        &[
            ("fields.and.aggregate-function", "bool_and"),
            ("fields.or.aggregate-function", "bool_or"),
            ("fields.and2.aggregate-function", "bool_and"),
        ],
    )
    .unwrap();
    let get = |n: &str| {
        out.column_by_name(n)
            .unwrap()
            .as_boolean()
            .iter()
            .collect::<Vec<_>>()
    };
    assert_eq!(get("and"), vec![Some(false)]);
    assert_eq!(get("or"), vec![Some(true)]);
    assert_eq!(get("and2"), vec![Some(true)]);
}

#[test]
fn aggregate_listagg() {
    let v = || strs(&[Some("a"), None, Some(" "), Some("b"), Some("a")]);
    let out = agg(
        &[I, I, I, I, I],
        vec![
            ("l", v()),
            ("ld", v()),
            (
                "dist",
                strs(&[Some("a;b"), Some("b;c"), Some(""), Some("a;d;;c"), None]),
            ),
        ],
        &[
            ("fields.l.aggregate-function", "listagg"),
            ("fields.ld.aggregate-function", "listagg"),
            ("fields.ld.list-agg-delimiter", "|"),
            ("fields.dist.aggregate-function", "listagg"),
            ("fields.dist.list-agg-delimiter", ";"),
            ("fields.dist.distinct", "true"),
        ],
    )
    .unwrap();
    assert_eq!(col_str(&out, "l"), s(&[Some("a,b,a")]));
    assert_eq!(col_str(&out, "ld"), s(&[Some("a|b|a")]));
    assert_eq!(col_str(&out, "dist"), s(&[Some("a;b;c;d")]));
    // A single record passes through untouched, blank or not.
    let single = agg(
        &[I],
        vec![("l", strs(&[Some(" ")]))],
        &[("fields.l.aggregate-function", "listagg")],
    )
    .unwrap();
    assert_eq!(col_str(&single, "l"), s(&[Some(" ")]));
}

fn list(rows: Vec<Option<Vec<Option<i32>>>>) -> ArrayRef {
    let mut b = ListBuilder::new(Int32Builder::new());
    for r in rows {
        match r {
            None => b.append_null(),
            Some(vals) => {
                for v in vals {
                    b.values().append_option(v);
                }
                b.append(true);
            }
        }
    }
    Arc::new(b.finish())
}

fn list_values(b: &RecordBatch, name: &str) -> Option<Vec<Option<i32>>> {
    let l = b.column_by_name(name).unwrap().as_list::<i32>();
    if l.is_null(0) {
        return None;
    }
    Some(l.value(0).as_primitive::<Int32Type>().iter().collect())
}

#[test]
fn aggregate_collect() {
    let rows = || {
        list(vec![
            Some(vec![Some(1), Some(2)]),
            None,
            Some(vec![Some(2), None, Some(3)]),
            Some(vec![None]),
        ])
    };
    let out = agg(
        &[I, I, I, I],
        vec![("c", rows()), ("cd", rows())],
        &[
            ("fields.c.aggregate-function", "collect"),
            ("fields.cd.aggregate-function", "collect"),
            ("fields.cd.distinct", "true"),
        ],
    )
    .unwrap();
    assert_eq!(
        list_values(&out, "c"),
        Some(vec![Some(1), Some(2), Some(2), None, Some(3), None])
    );
    // Java's HashSet order: null hashes to bucket 0, an Integer to its value.
    assert_eq!(
        list_values(&out, "cd"),
        Some(vec![None, Some(1), Some(2), Some(3)])
    );
    // Retraction removes one occurrence per retracted element.
    let out = agg(
        &[I, I, UB],
        vec![(
            "c",
            list(vec![
                Some(vec![Some(1), Some(2)]),
                Some(vec![Some(2), Some(3)]),
                Some(vec![Some(2), Some(9)]),
            ]),
        )],
        &[("fields.c.aggregate-function", "collect")],
    )
    .unwrap();
    assert_eq!(
        list_values(&out, "c"),
        Some(vec![Some(1), Some(2), Some(3)])
    );
}

fn map(rows: Vec<Vec<(&str, Option<i32>)>>) -> ArrayRef {
    let mut b = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for r in rows {
        for (k, v) in r {
            b.keys().append_value(k);
            b.values().append_option(v);
        }
        b.append(true).unwrap();
    }
    Arc::new(b.finish())
}

fn map_entries(b: &RecordBatch, name: &str) -> Vec<(String, Option<i32>)> {
    let m = b.column_by_name(name).unwrap().as_map();
    let e = m.value(0);
    let keys = e.column(0).as_string::<i32>();
    let vals = e.column(1).as_primitive::<Int32Type>();
    let mut out: Vec<(String, Option<i32>)> = (0..e.len())
        .map(|i| {
            (
                keys.value(i).to_string(),
                vals.is_valid(i).then(|| vals.value(i)),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn aggregate_merge_map() {
    let out = agg(
        &[I, I, UB],
        vec![(
            "m",
            map(vec![
                vec![("a", Some(1)), ("b", Some(2))],
                vec![("b", Some(3)), ("c", None)],
                vec![("a", Some(100))],
            ]),
        )],
        &[("fields.m.aggregate-function", "merge_map")],
    )
    .unwrap();
    assert_eq!(
        map_entries(&out, "m"),
        vec![("b".to_string(), Some(3)), ("c".to_string(), None)]
    );
}

#[test]
fn aggregate_remove_record_on_delete_and_sequence_field() {
    let out = agg(
        &[I, D],
        vec![("s", ints(&[Some(1), Some(2)]))],
        &[
            ("fields.s.aggregate-function", "sum"),
            ("aggregation.remove-record-on-delete", "true"),
        ],
    )
    .unwrap();
    assert_eq!(kinds_of(&out), s(&[Some("-D")]));
    // A sequence field aggregates with last_value even when a default says otherwise.
    let out = agg(
        &[I, I],
        vec![
            ("ts", ints(&[Some(5), Some(6)])),
            ("s", ints(&[Some(1), Some(2)])),
        ],
        &[
            ("fields.default-aggregate-function", "sum"),
            ("sequence.field", "ts"),
        ],
    )
    .unwrap();
    assert_eq!(col_i32(&out, "ts"), vec![Some(6)]);
    assert_eq!(col_i32(&out, "s"), vec![Some(3)]);
}

#[test]
fn aggregate_unknown_and_unsupported_functions() {
    let cols = || vec![("s", ints(&[Some(1), Some(2)]))];
    let e = agg(&[I, I], cols(), &[("fields.s.aggregate-function", "summ")]);
    assert!(matches!(e, Err(MergeError::InvalidOption { .. })), "{e:?}");
    let e = agg(
        &[I, I],
        cols(),
        &[("fields.s.aggregate-function", "hll_sketch")],
    );
    assert!(matches!(e, Err(MergeError::Unsupported { .. })), "{e:?}");
    let e = agg(
        &[I, I],
        cols(),
        &[("fields.s.aggregate-function", "bool_and")],
    );
    assert!(
        matches!(e, Err(MergeError::InvalidOption { .. })),
        "type check: {e:?}"
    );
}

#[test]
fn aggregate_mixed_output_with_single_records() {
    // Keys 1 (merged, computed) and 2 (single record) in one output batch.
    let b = batch(
        &[Some(1), Some(1), Some(2)],
        &[1, 2, 3],
        &[I, I, I],
        vec![
            ("s", ints(&[Some(1), Some(2), Some(5)])),
            ("v", strs(&[Some("x"), None, Some("y")])),
        ],
    );
    let out = merge(
        vec![vec![b]],
        &[
            ("merge-engine", "aggregation"),
            ("fields.s.aggregate-function", "sum"),
        ],
    );
    assert_eq!(col_i32(&out, "s"), vec![Some(3), Some(5)]);
    assert_eq!(col_str(&out, "v"), s(&[Some("x"), Some("y")]));
}

// ---------------------------------------------------------------- lookup merge

/// Key 8 of the `pk/aggregation_lookup` fixture, whose commits 1-4 add 108, 208, 308 and 408:
/// lookup compaction left the older aggregates 316 and 624 in deeper levels than the newest,
/// 1032, and merging all three gives the 1972 our reader returned before it followed Java.
/// Java reads 1032: the level-0 records plus the shallowest copy only (`LookupMergeFunction`).
#[test]
fn lookup_merge_takes_level0_and_the_shallowest_copy() {
    let at = |level: i32, seq: i64, sum: i64, list: &str| {
        let b = batch(
            &[Some(8)],
            &[seq],
            &[I],
            vec![
                ("f_sum", i64s(&[Some(sum)])),
                ("f_listagg", strs(&[Some(list)])),
            ],
        );
        with_level(&b, level).unwrap()
    };
    let opts = [
        ("merge-engine", "aggregation"),
        ("changelog-producer", "lookup"),
        ("fields.f_sum.aggregate-function", "sum"),
        ("fields.f_listagg.aggregate-function", "listagg"),
    ];
    let levels = vec![
        vec![at(5, 2, 316, "c1,c2")],
        vec![at(4, 3, 624, "c1,c2,c3")],
        vec![at(3, 4, 1032, "c1,c2,c3,c4")],
    ];
    let out = merge_with(levels.clone(), &opts, MergeOptions::default()).unwrap();
    assert_eq!(col_i64(&out, "f_sum"), vec![Some(1032)]);
    assert_eq!(col_str(&out, "f_listagg"), s(&[Some("c1,c2,c3,c4")]));
    assert!(
        out.column_by_name(LEVEL).is_none(),
        "the level is not a value"
    );

    // A level-0 record (not yet compacted) folds into the shallowest copy.
    let mut with0 = levels.clone();
    with0.push(vec![at(0, 5, 510, "c5")]);
    let out = merge_with(with0, &opts, MergeOptions::default()).unwrap();
    assert_eq!(col_i64(&out, "f_sum"), vec![Some(1542)]);
    assert_eq!(col_str(&out, "f_listagg"), s(&[Some("c1,c2,c3,c4,c5")]));

    // Without the level column every record is merged (a table that is not a lookup table).
    let plain = |b: &RecordBatch| b.project(&(0..b.num_columns() - 1).collect::<Vec<_>>());
    let untagged = levels.iter().map(|r| vec![plain(&r[0]).unwrap()]).collect();
    let out = merge_with(untagged, &opts, MergeOptions::default()).unwrap();
    assert_eq!(col_i64(&out, "f_sum"), vec![Some(1972)]);
}
