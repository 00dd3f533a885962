//! Tests of the merge machinery: ordering, grouping, output assembly, deduplicate, first-row
//! and interval partition. Engine semantics are in `tests_engines.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int8Type};
use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use paimon_spec::options::CoreOptions;

use super::*;

pub(super) const I: i8 = 0;
pub(super) const UB: i8 = 1;
pub(super) const UA: i8 = 2;
pub(super) const D: i8 = 3;

/// One input record: key, sequence number, kind, value columns.
pub(super) fn batch(
    keys: &[Option<i32>],
    seqs: &[i64],
    kinds: &[i8],
    values: Vec<(&str, ArrayRef)>,
) -> RecordBatch {
    let mut fields = vec![
        Field::new("_KEY_id", DataType::Int32, true),
        Field::new(SEQUENCE_NUMBER, DataType::Int64, false),
        Field::new(VALUE_KIND, DataType::Int8, false),
        Field::new("id", DataType::Int32, true),
    ];
    let mut cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(keys.to_vec())),
        Arc::new(Int64Array::from(seqs.to_vec())),
        Arc::new(Int8Array::from(kinds.to_vec())),
        Arc::new(Int32Array::from(keys.to_vec())),
    ];
    for (name, col) in values {
        fields.push(Field::new(name, col.data_type().clone(), true));
        cols.push(col);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap()
}

pub(super) fn strs(v: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

pub(super) fn ints(v: &[Option<i32>]) -> ArrayRef {
    Arc::new(Int32Array::from(v.to_vec()))
}

pub(super) fn run(batches: Vec<RecordBatch>) -> SortedRun<ArrowError> {
    Box::new(batches.into_iter().map(Ok))
}

pub(super) fn options(pairs: &[(&str, &str)]) -> CoreOptions {
    let raw: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    CoreOptions::try_new(&raw).unwrap()
}

/// Merges with the engine the options describe; returns all output rows as one batch.
pub(super) fn merge_with(
    runs: Vec<Vec<RecordBatch>>,
    table_options: &[(&str, &str)],
    opts: MergeOptions,
) -> Result<RecordBatch> {
    let schema: SchemaRef = runs.iter().flatten().next().unwrap().schema();
    let o = options(table_options);
    let layout = RunLayout::from_schema(
        &schema,
        &["id".to_string()],
        &o.sequence_fields,
        o.sequence_field_descending,
    )?;
    let engine = MergeEngineSpec::try_new(&o, &["id".to_string()], &layout.value_fields(&schema)?)?;
    let reader = merge_sorted_runs(
        runs.into_iter().map(run).collect(),
        &schema,
        layout,
        &engine,
        opts,
    )?;
    let out_schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>>>()?;
    Ok(arrow_select::concat::concat_batches(&out_schema, &batches)?)
}

pub(super) fn merge(runs: Vec<Vec<RecordBatch>>, table_options: &[(&str, &str)]) -> RecordBatch {
    merge_with(runs, table_options, MergeOptions::default()).unwrap()
}

pub(super) fn col_i32(b: &RecordBatch, name: &str) -> Vec<Option<i32>> {
    b.column_by_name(name)
        .unwrap()
        .as_primitive::<Int32Type>()
        .iter()
        .collect()
}

pub(super) fn col_str(b: &RecordBatch, name: &str) -> Vec<Option<String>> {
    b.column_by_name(name)
        .unwrap()
        .as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_string))
        .collect()
}

pub(super) fn s(v: &[Option<&str>]) -> Vec<Option<String>> {
    v.iter().map(|x| x.map(str::to_string)).collect()
}

#[test]
fn deduplicate_last_wins_across_runs() {
    let r0 = batch(
        &[Some(1), Some(2), Some(3)],
        &[1, 2, 3],
        &[I, I, I],
        vec![("v", strs(&[Some("a"), Some("b"), Some("c")]))],
    );
    let r1 = batch(
        &[Some(2), Some(4)],
        &[5, 6],
        &[UA, I],
        vec![("v", strs(&[Some("B"), Some("d")]))],
    );
    let out = merge(vec![vec![r0], vec![r1]], &[]);
    assert_eq!(
        col_i32(&out, "id"),
        vec![Some(1), Some(2), Some(3), Some(4)]
    );
    assert_eq!(
        col_str(&out, "v"),
        s(&[Some("a"), Some("B"), Some("c"), Some("d")])
    );
    assert_eq!(out.schema().fields().len(), 2, "value columns only");
}

#[test]
fn sequence_number_orders_not_run_position() {
    // The older record sits in the later run: the sequence number decides.
    let r0 = batch(&[Some(1)], &[9], &[I], vec![("v", strs(&[Some("new")]))]);
    let r1 = batch(&[Some(1)], &[3], &[I], vec![("v", strs(&[Some("old")]))]);
    let out = merge(vec![vec![r0], vec![r1]], &[]);
    assert_eq!(col_str(&out, "v"), s(&[Some("new")]));
}

#[test]
fn several_records_of_a_key_in_one_run() {
    let r0 = batch(
        &[Some(1), Some(1), Some(1), Some(2)],
        &[1, 4, 7, 2],
        &[I, UA, UA, I],
        vec![("v", strs(&[Some("a1"), Some("a4"), Some("a7"), Some("b")]))],
    );
    let r1 = batch(&[Some(1)], &[5], &[UA], vec![("v", strs(&[Some("x5")]))]);
    let out = merge(vec![vec![r0], vec![r1]], &[]);
    assert_eq!(col_i32(&out, "id"), vec![Some(1), Some(2)]);
    assert_eq!(col_str(&out, "v"), s(&[Some("a7"), Some("b")]));
}

#[test]
fn key_group_spans_batches_of_one_run() {
    let b0 = batch(
        &[Some(1), Some(2)],
        &[1, 2],
        &[I, I],
        vec![("v", strs(&[Some("a"), Some("b1")]))],
    );
    let b1 = batch(
        &[Some(2), Some(3)],
        &[3, 4],
        &[UA, I],
        vec![("v", strs(&[Some("b2"), Some("c")]))],
    );
    let empty = batch(&[], &[], &[], vec![("v", strs(&[]))]);
    let out = merge(vec![vec![b0, empty, b1]], &[]);
    assert_eq!(col_str(&out, "v"), s(&[Some("a"), Some("b2"), Some("c")]));
}

#[test]
fn null_keys_sort_first_and_group() {
    let r0 = batch(
        &[None, Some(1)],
        &[1, 2],
        &[I, I],
        vec![("v", strs(&[Some("n1"), Some("a")]))],
    );
    let r1 = batch(
        &[None, Some(0)],
        &[3, 4],
        &[I, I],
        vec![("v", strs(&[Some("n3"), Some("z")]))],
    );
    let out = merge(vec![vec![r0], vec![r1]], &[]);
    assert_eq!(col_i32(&out, "id"), vec![None, Some(0), Some(1)]);
    assert_eq!(col_str(&out, "v"), s(&[Some("n3"), Some("z"), Some("a")]));
}

#[test]
fn deletes_are_dropped_unless_kept() {
    let r0 = batch(
        &[Some(1), Some(2)],
        &[1, 2],
        &[I, I],
        vec![("v", strs(&[Some("a"), Some("b")]))],
    );
    let r1 = batch(
        &[Some(1), Some(3)],
        &[3, 4],
        &[D, D],
        vec![("v", strs(&[Some("a"), Some("c")]))],
    );
    let out = merge(vec![vec![r0.clone()], vec![r1.clone()]], &[]);
    assert_eq!(col_i32(&out, "id"), vec![Some(2)]);

    let kept = merge_with(
        vec![vec![r0], vec![r1]],
        &[],
        MergeOptions::default()
            .with_keep_deletes(true)
            .with_row_kind(Some(RowKindColumn::ShortString)),
    )
    .unwrap();
    assert_eq!(col_i32(&kept, "id"), vec![Some(1), Some(2), Some(3)]);
    assert_eq!(
        col_str(&kept, ROW_KIND),
        s(&[Some("-D"), Some("+I"), Some("-D")])
    );
}

#[test]
fn row_kind_as_int8() {
    let r0 = batch(&[Some(1)], &[1], &[I], vec![("v", strs(&[Some("a")]))]);
    let r1 = batch(&[Some(1)], &[2], &[UA], vec![("v", strs(&[Some("b")]))]);
    let out = merge_with(
        vec![vec![r0], vec![r1]],
        &[],
        MergeOptions::default().with_row_kind(Some(RowKindColumn::Int8)),
    )
    .unwrap();
    let kinds: Vec<Option<i8>> = out
        .column_by_name(ROW_KIND)
        .unwrap()
        .as_primitive::<Int8Type>()
        .iter()
        .collect();
    assert_eq!(kinds, vec![Some(UA)]);
}

#[test]
fn retract_before_add_on_equal_sequence() {
    // Same key and sequence number: -U sorts before +U, so the +U is last and wins.
    let r0 = batch(&[Some(1)], &[5], &[UA], vec![("v", strs(&[Some("after")]))]);
    let r1 = batch(
        &[Some(1)],
        &[5],
        &[UB],
        vec![("v", strs(&[Some("before")]))],
    );
    let out = merge(vec![vec![r0], vec![r1]], &[]);
    assert_eq!(col_str(&out, "v"), s(&[Some("after")]));
}

#[test]
fn deduplicate_ignore_delete() {
    let r0 = batch(
        &[Some(1), Some(2)],
        &[1, 2],
        &[I, I],
        vec![("v", strs(&[Some("a"), Some("b")]))],
    );
    let r1 = batch(
        &[Some(1), Some(2)],
        &[3, 4],
        &[D, UB],
        vec![("v", strs(&[Some("a"), Some("b")]))],
    );
    let out = merge(vec![vec![r0], vec![r1]], &[("ignore-delete", "true")]);
    assert_eq!(col_i32(&out, "id"), vec![Some(1), Some(2)]);
    assert_eq!(col_str(&out, "v"), s(&[Some("a"), Some("b")]));
}

#[test]
fn single_delete_passes_through_untouched() {
    // A lone record is not given to the merge function: even with ignore-delete it stays -D.
    let r0 = batch(&[Some(1)], &[1], &[D], vec![("v", strs(&[Some("a")]))]);
    let out = merge_with(
        vec![vec![r0]],
        &[("ignore-delete", "true")],
        MergeOptions::default().with_keep_deletes(true),
    )
    .unwrap();
    assert_eq!(col_str(&out, "v"), s(&[Some("a")]));
}

#[test]
fn user_sequence_field_orders_before_sequence_number() {
    let mk = |seq: i64, ts: i64, v: &str| {
        batch(
            &[Some(1)],
            &[seq],
            &[I],
            vec![
                ("ts", Arc::new(Int64Array::from(vec![ts])) as ArrayRef),
                ("v", strs(&[Some(v)])),
            ],
        )
    };
    // Higher ts wins although its _SEQUENCE_NUMBER is lower.
    let out = merge(
        vec![vec![mk(1, 20, "ts20")], vec![mk(2, 10, "ts10")]],
        &[("sequence.field", "ts")],
    );
    assert_eq!(col_str(&out, "v"), s(&[Some("ts20")]));
    // Descending: the lower ts is "last".
    let out = merge(
        vec![vec![mk(1, 20, "ts20")], vec![mk(2, 10, "ts10")]],
        &[
            ("sequence.field", "ts"),
            ("sequence.field.sort-order", "descending"),
        ],
    );
    assert_eq!(col_str(&out, "v"), s(&[Some("ts10")]));
    // Equal ts: the sequence number decides.
    let out = merge(
        vec![vec![mk(2, 10, "seq2")], vec![mk(1, 10, "seq1")]],
        &[("sequence.field", "ts")],
    );
    assert_eq!(col_str(&out, "v"), s(&[Some("seq2")]));
}

#[test]
fn null_user_sequence_sorts_first() {
    let mk = |seq: i64, ts: Option<i64>, v: &str| {
        batch(
            &[Some(1)],
            &[seq],
            &[I],
            vec![
                ("ts", Arc::new(Int64Array::from(vec![ts])) as ArrayRef),
                ("v", strs(&[Some(v)])),
            ],
        )
    };
    let out = merge(
        vec![vec![mk(5, None, "null")], vec![mk(1, Some(1), "one")]],
        &[("sequence.field", "ts")],
    );
    assert_eq!(col_str(&out, "v"), s(&[Some("one")]));
    let out = merge(
        vec![vec![mk(5, None, "null")], vec![mk(1, Some(1), "one")]],
        &[
            ("sequence.field", "ts"),
            ("sequence.field.sort-order", "descending"),
        ],
    );
    assert_eq!(
        col_str(&out, "v"),
        s(&[Some("one")]),
        "nulls stay first when descending"
    );
}

#[test]
fn first_row_keeps_first_and_rejects_deletes() {
    let r0 = batch(
        &[Some(1), Some(2)],
        &[1, 2],
        &[I, I],
        vec![("v", strs(&[Some("a"), Some("b")]))],
    );
    let r1 = batch(&[Some(1)], &[3], &[I], vec![("v", strs(&[Some("a2")]))]);
    let out = merge(
        vec![vec![r0.clone()], vec![r1]],
        &[("merge-engine", "first-row")],
    );
    assert_eq!(col_str(&out, "v"), s(&[Some("a"), Some("b")]));

    let del = batch(&[Some(1)], &[0], &[D], vec![("v", strs(&[Some("x")]))]);
    let err = merge_with(
        vec![vec![r0.clone()], vec![del.clone()]],
        &[("merge-engine", "first-row")],
        MergeOptions::default(),
    );
    assert!(
        matches!(err, Err(MergeError::MergeFunction { .. })),
        "{err:?}"
    );
    let out = merge(
        vec![vec![r0], vec![del]],
        &[("merge-engine", "first-row"), ("ignore-delete", "true")],
    );
    assert_eq!(col_str(&out, "v"), s(&[Some("a"), Some("b")]));
}

#[test]
fn small_batches_and_many_runs() {
    // 5 runs x 40 keys with overlapping key ranges; the highest sequence number wins.
    let mut runs = Vec::new();
    for r in 0..5i32 {
        let keys: Vec<Option<i32>> = (0..40).map(|k| Some(k * 2 + r % 2)).collect();
        let seqs: Vec<i64> = (0..40).map(|k| i64::from(r * 100 + k)).collect();
        let vals: Vec<Option<i32>> = (0..40).map(|_| Some(r)).collect();
        let b = batch(&keys, &seqs, &[I; 40], vec![("run", ints(&vals))]);
        runs.push(vec![b.slice(0, 13), b.slice(13, 27)]);
    }
    let out = merge_with(runs, &[], MergeOptions::default().with_batch_size(7)).unwrap();
    assert_eq!(out.num_rows(), 80);
    let ids = col_i32(&out, "id");
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let winners = col_i32(&out, "run");
    for (id, run) in ids.iter().zip(winners) {
        let expected = if id.unwrap() % 2 == 0 { 4 } else { 3 };
        assert_eq!(run, Some(expected), "key {id:?}");
    }
}

#[test]
fn output_batches_respect_batch_size() {
    let keys: Vec<Option<i32>> = (0..10).map(Some).collect();
    let b = batch(
        &keys,
        &(0..10).collect::<Vec<i64>>(),
        &[I; 10],
        vec![("v", ints(&keys))],
    );
    let schema = b.schema();
    let layout = RunLayout::from_schema(&schema, &["id".to_string()], &[], false).unwrap();
    let engine = MergeEngineSpec::Deduplicate {
        ignore_delete: false,
    };
    let reader = merge_sorted_runs(
        vec![run(vec![b])],
        &schema,
        layout,
        &engine,
        MergeOptions::default().with_batch_size(4),
    )
    .unwrap();
    let sizes: Vec<usize> = reader.map(|b| b.unwrap().num_rows()).collect();
    assert_eq!(sizes, vec![4, 4, 2]);
}

#[test]
fn run_errors_surface_from_the_iterator() {
    let b = batch(&[Some(1)], &[1], &[I], vec![("v", strs(&[Some("a")]))]);
    let schema = b.schema();
    let layout = RunLayout::from_schema(&schema, &["id".to_string()], &[], false).unwrap();
    let failing: SortedRun<ArrowError> =
        Box::new(vec![Ok(b), Err(ArrowError::ComputeError("disk".into()))].into_iter());
    let engine = MergeEngineSpec::Deduplicate {
        ignore_delete: false,
    };
    let mut reader = merge_sorted_runs(
        vec![failing],
        &schema,
        layout,
        &engine,
        MergeOptions::default(),
    )
    .unwrap();
    assert!(matches!(reader.next(), Some(Err(MergeError::Input(_)))));
    assert!(reader.next().is_none());
}

#[test]
fn invalid_value_kind_is_an_error() {
    let b = batch(&[Some(1)], &[1], &[7], vec![("v", strs(&[Some("a")]))]);
    let err = merge_with(vec![vec![b]], &[], MergeOptions::default());
    assert!(
        matches!(err, Err(MergeError::InvalidInput { .. })),
        "{err:?}"
    );
}

#[test]
fn thin_mode_layout_reads_key_from_value() {
    let schema = Schema::new(vec![
        Field::new(SEQUENCE_NUMBER, DataType::Int64, false),
        Field::new(VALUE_KIND, DataType::Int8, false),
        Field::new("id", DataType::Int32, false),
        Field::new("v", DataType::Utf8, true),
    ]);
    let layout = RunLayout::from_schema(&schema, &["id".to_string()], &[], false).unwrap();
    assert_eq!(layout.key_indices, vec![2]);
    assert_eq!(layout.value_indices, vec![2, 3]);
}

mod interval {
    use paimon_spec::binary::Datum;
    use paimon_spec::data_file::DataFileMeta;
    use paimon_spec::stats::{serialize_datums, SimpleStats};
    use paimon_spec::types::{DataType, TypeKind};

    use super::super::interval_partition;

    fn key(v: Option<i32>) -> Vec<u8> {
        let datum = v.map_or(Datum::Null, Datum::Int);
        serialize_datums(&[datum], &[DataType::nullable(TypeKind::Int)]).unwrap()
    }

    fn file(name: &str, min: Option<i32>, max: Option<i32>) -> DataFileMeta {
        DataFileMeta {
            file_name: name.to_string(),
            file_size: 1,
            row_count: 1,
            min_key: key(min).into(),
            max_key: key(max).into(),
            key_stats: SimpleStats::empty(),
            value_stats: SimpleStats::empty(),
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            level: 0,
            extra_files: vec![],
            creation_time: None,
            delete_row_count: None,
            embedded_index: None,
            file_source: None,
            value_stats_cols: None,
            external_path: None,
            first_row_id: None,
            write_cols: None,
            write_cols_sequences: None,
        }
    }

    #[test]
    fn sections_and_runs() {
        let files = vec![
            file("a", Some(0), Some(10)),
            file("b", Some(5), Some(15)),
            file("c", Some(11), Some(14)),
            file("d", Some(30), Some(40)),
            file("e", Some(15), Some(20)),
        ];
        let p = interval_partition(&files, &[DataType::nullable(TypeKind::Int)]).unwrap();
        // Section 0 holds a, b, c, e (e starts at b's max: ranges are inclusive); section 1 is d.
        // Sorted: a[0,10] b[5,15] c[11,14] e[15,20]: a opens run 0, b overlaps it (run 1),
        // c follows a (run 0 ends lowest, at 10 < 11), e follows c (14 < 15).
        assert_eq!(p.len(), 2);
        assert_eq!(p[0], vec![vec![0, 2, 4], vec![1]]);
        assert_eq!(p[1], vec![vec![3]]);
    }

    #[test]
    fn null_keys_are_lowest() {
        let files = vec![file("a", Some(1), Some(2)), file("n", None, None)];
        let p = interval_partition(&files, &[DataType::nullable(TypeKind::Int)]).unwrap();
        assert_eq!(p, vec![vec![vec![1]], vec![vec![0]]]);
    }
}
