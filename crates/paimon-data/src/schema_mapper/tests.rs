//! One test per type-change cell of the matrix in `docs/seed/read.rst`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use paimon_spec::types::{DataField, DataType, TypeKind};

use super::*;

fn t(s: &str) -> DataType {
    DataType::from_json_str(&format!("\"{s}\"")).unwrap()
}

fn cast(a: ArrayRef, from: &str, to: &str) -> ArrayRef {
    conform(&a, &t(from), &t(to), "test").unwrap()
}

fn cast_err(a: ArrayRef, from: &str, to: &str) -> bool {
    conform(&a, &t(from), &t(to), "test").is_err()
}

fn i64s(a: &ArrayRef) -> Vec<Option<i64>> {
    let c = arrow_cast::cast(a, &arrow_schema::DataType::Int64).unwrap();
    c.as_primitive::<Int64Type>().iter().collect()
}

fn strings(a: &ArrayRef) -> Vec<Option<String>> {
    a.as_string::<i32>()
        .iter()
        .map(|v| v.map(str::to_string))
        .collect()
}

#[test]
fn integer_narrowing_keeps_low_bits() {
    let r = cast(
        Arc::new(Int16Array::from(vec![32767, -1, 5])),
        "SMALLINT",
        "TINYINT",
    );
    assert_eq!(
        r.as_primitive::<Int8Type>().values().to_vec(),
        vec![-1, -1, 5]
    );
    let r = cast(
        Arc::new(Int32Array::from(vec![i32::MIN, 65537])),
        "INT",
        "SMALLINT",
    );
    assert_eq!(r.as_primitive::<Int16Type>().values().to_vec(), vec![0, 1]);
    let r = cast(
        Arc::new(Int64Array::from(vec![1i64 << 32 | 7])),
        "BIGINT",
        "INT",
    );
    assert_eq!(r.as_primitive::<Int32Type>().values().to_vec(), vec![7]);
}

#[test]
fn integer_widening() {
    let r = cast(
        Arc::new(Int8Array::from(vec![Some(-3), None])),
        "TINYINT",
        "BIGINT",
    );
    assert_eq!(i64s(&r), vec![Some(-3), None]);
}

#[test]
fn float_to_int_like_java() {
    let r = cast(
        Arc::new(Float32Array::from(vec![
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            300.9,
        ])),
        "FLOAT",
        "TINYINT",
    );
    assert_eq!(
        r.as_primitive::<Int8Type>().values().to_vec(),
        vec![-1, -1, 0, 44]
    );
    let r = cast(
        Arc::new(Float64Array::from(vec![1e30, -1e30, -2.7])),
        "DOUBLE",
        "BIGINT",
    );
    assert_eq!(i64s(&r), vec![Some(i64::MAX), Some(i64::MIN), Some(-2)]);
    let r = cast(Arc::new(Float64Array::from(vec![1e30])), "DOUBLE", "INT");
    assert_eq!(i64s(&r), vec![Some(i64::from(i32::MAX))]);
}

#[test]
fn double_to_float_overflows_to_infinity() {
    let r = cast(
        Arc::new(Float64Array::from(vec![1e300, 1.5])),
        "DOUBLE",
        "FLOAT",
    );
    assert_eq!(
        r.as_primitive::<Float32Type>().values().to_vec(),
        vec![f32::INFINITY, 1.5]
    );
}

#[test]
fn numeric_to_boolean_and_back() {
    let r = cast(Arc::new(Int32Array::from(vec![0, 2, -1])), "INT", "BOOLEAN");
    assert_eq!(
        r.as_boolean().iter().collect::<Vec<_>>(),
        vec![Some(false), Some(true), Some(true)]
    );
    let r = cast(
        Arc::new(Float64Array::from(vec![0.5, 1.5])),
        "DOUBLE",
        "BOOLEAN",
    );
    assert_eq!(
        r.as_boolean().iter().collect::<Vec<_>>(),
        vec![Some(false), Some(true)]
    );
    let r = cast(
        Arc::new(BooleanArray::from(vec![true, false])),
        "BOOLEAN",
        "DOUBLE",
    );
    assert_eq!(
        r.as_primitive::<Float64Type>().values().to_vec(),
        vec![1.0, 0.0]
    );
    let r = cast(
        Arc::new(BooleanArray::from(vec![true])),
        "BOOLEAN",
        "DECIMAL(5, 2)",
    );
    assert_eq!(r.as_primitive::<Decimal128Type>().value(0), 100);
}

#[test]
fn numbers_to_string_like_java() {
    let r = cast(
        Arc::new(Float64Array::from(vec![1.0, 1e10, 0.0001, 123.25])),
        "DOUBLE",
        "STRING",
    );
    assert_eq!(
        strings(&r),
        vec![
            Some("1.0".into()),
            Some("1.0E10".into()),
            Some("1.0E-4".into()),
            Some("123.25".into())
        ]
    );
    let r = cast(
        Arc::new(Float32Array::from(vec![1.1f32])),
        "FLOAT",
        "STRING",
    );
    assert_eq!(strings(&r), vec![Some("1.1".into())]);
    let r = cast(Arc::new(Int32Array::from(vec![-42])), "INT", "VARCHAR(2)");
    assert_eq!(strings(&r), vec![Some("-4".into())]);
    let r = cast(
        Arc::new(BooleanArray::from(vec![true])),
        "BOOLEAN",
        "CHAR(6)",
    );
    assert_eq!(strings(&r), vec![Some("true  ".into())]);
}

#[test]
fn string_to_numbers() {
    let r = cast(
        Arc::new(StringArray::from(vec![Some("12"), Some("-7.9"), None])),
        "STRING",
        "INT",
    );
    assert_eq!(i64s(&r), vec![Some(12), Some(-7), None]);
    assert!(cast_err(
        Arc::new(StringArray::from(vec!["abc"])),
        "STRING",
        "INT"
    ));
    assert!(cast_err(
        Arc::new(StringArray::from(vec!["300"])),
        "STRING",
        "TINYINT"
    ));
    let r = cast(
        Arc::new(StringArray::from(vec![" 1.5 ", "Infinity", "1e3"])),
        "STRING",
        "DOUBLE",
    );
    assert_eq!(
        r.as_primitive::<Float64Type>().values().to_vec(),
        vec![1.5, f64::INFINITY, 1000.0]
    );
    let r = cast(
        Arc::new(StringArray::from(vec!["Yes", "0"])),
        "STRING",
        "BOOLEAN",
    );
    assert_eq!(
        r.as_boolean().iter().collect::<Vec<_>>(),
        vec![Some(true), Some(false)]
    );
    assert!(cast_err(
        Arc::new(StringArray::from(vec!["maybe"])),
        "STRING",
        "BOOLEAN"
    ));
}

#[test]
fn string_to_decimal_rounds_half_up_and_nulls_overflow() {
    let r = cast(
        Arc::new(StringArray::from(vec!["1.005", "123456", "-2.5"])),
        "STRING",
        "DECIMAL(5, 2)",
    );
    let d = r.as_primitive::<Decimal128Type>();
    assert_eq!(
        d.iter().collect::<Vec<_>>(),
        vec![Some(101), None, Some(-250)]
    );
    assert!(cast_err(
        Arc::new(StringArray::from(vec!["x"])),
        "STRING",
        "DECIMAL(5, 2)"
    ));
}

#[test]
fn string_to_date_and_timestamp() {
    let r = cast(
        Arc::new(StringArray::from(vec!["2024-01-01", "19723"])),
        "STRING",
        "DATE",
    );
    assert_eq!(
        r.as_primitive::<Date32Type>().values().to_vec(),
        vec![19723, 19723]
    );
    assert!(cast_err(
        Arc::new(StringArray::from(vec!["2024-02-30"])),
        "STRING",
        "DATE"
    ));
    let r = cast(
        Arc::new(StringArray::from(vec!["2024-01-01 00:00:01.5", "1000"])),
        "STRING",
        "TIMESTAMP(3)",
    );
    assert_eq!(
        r.as_primitive::<TimestampMillisecondType>()
            .values()
            .to_vec(),
        vec![19723 * 86_400_000 + 1500, 1000]
    );
}

#[test]
fn string_and_binary() {
    let r = cast(
        Arc::new(StringArray::from(vec!["ab"])),
        "STRING",
        "BINARY(3)",
    );
    assert_eq!(r.as_binary::<i32>().value(0), b"ab\0");
    let r = cast(
        Arc::new(BinaryArray::from(vec![&b"hey"[..]])),
        "BYTES",
        "STRING",
    );
    assert_eq!(strings(&r), vec![Some("hey".into())]);
    let r = cast(
        Arc::new(BinaryArray::from(vec![&b"hey"[..]])),
        "BYTES",
        "VARBINARY(2)",
    );
    assert_eq!(r.as_binary::<i32>().value(0), b"he");
}

#[test]
fn decimal_casts() {
    let a: ArrayRef = Arc::new(
        Decimal128Array::from(vec![12345i128, -12355])
            .with_precision_and_scale(7, 2)
            .unwrap(),
    );
    let r = cast(a.clone(), "DECIMAL(7, 2)", "DECIMAL(5, 1)");
    assert_eq!(
        r.as_primitive::<Decimal128Type>()
            .iter()
            .collect::<Vec<_>>(),
        vec![Some(1235), Some(-1236)]
    );
    let r = cast(a.clone(), "DECIMAL(7, 2)", "DECIMAL(3, 1)");
    assert_eq!(r.null_count(), 2);
    let r = cast(a.clone(), "DECIMAL(7, 2)", "INT");
    assert_eq!(i64s(&r), vec![Some(123), Some(-123)]);
    let r = cast(a.clone(), "DECIMAL(7, 2)", "DOUBLE");
    assert_eq!(
        r.as_primitive::<Float64Type>().values().to_vec(),
        vec![123.45, -123.55]
    );
    let r = cast(a, "DECIMAL(7, 2)", "STRING");
    assert_eq!(
        strings(&r),
        vec![Some("123.45".into()), Some("-123.55".into())]
    );
    let r = cast(
        Arc::new(Int32Array::from(vec![5, 123456])),
        "INT",
        "DECIMAL(6, 2)",
    );
    assert_eq!(
        r.as_primitive::<Decimal128Type>()
            .iter()
            .collect::<Vec<_>>(),
        vec![Some(500), None]
    );
    let r = cast(
        Arc::new(Float64Array::from(vec![1.125])),
        "DOUBLE",
        "DECIMAL(5, 2)",
    );
    assert_eq!(r.as_primitive::<Decimal128Type>().value(0), 113);
}

#[test]
fn timestamp_casts() {
    let ts: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![
        -1500i64,
        86_400_000 + 2500,
    ]));
    let r = cast(ts.clone(), "TIMESTAMP(3)", "BIGINT");
    assert_eq!(i64s(&r), vec![Some(-1), Some(86_402)]);
    // Java divides epoch millis by a day's millis with a truncating `/`: -1.5 s is 1970-01-01
    // (evolution/type_matrix has the same case from Java).
    let r = cast(ts.clone(), "TIMESTAMP(3)", "DATE");
    assert_eq!(r.as_primitive::<Date32Type>().values().to_vec(), vec![0, 1]);
    let r = cast(ts.clone(), "TIMESTAMP(3)", "STRING");
    assert_eq!(
        strings(&r),
        vec![
            Some("1969-12-31 23:59:58.500".into()),
            Some("1970-01-02 00:00:02.500".into())
        ]
    );
    let r = cast(ts, "TIMESTAMP(3)", "TIMESTAMP(0)");
    assert_eq!(
        r.as_primitive::<TimestampMillisecondType>()
            .values()
            .to_vec(),
        vec![-2000, 86_402_000]
    );
    let r = cast(
        Arc::new(Int64Array::from(vec![3])),
        "BIGINT",
        "TIMESTAMP(6)",
    );
    assert_eq!(
        r.as_primitive::<TimestampMicrosecondType>().value(0),
        3_000_000
    );
    let r = cast(Arc::new(Date32Array::from(vec![1])), "DATE", "TIMESTAMP(3)");
    assert_eq!(
        r.as_primitive::<TimestampMillisecondType>().value(0),
        86_400_000
    );
    let r = cast(Arc::new(Date32Array::from(vec![19723])), "DATE", "STRING");
    assert_eq!(strings(&r), vec![Some("2024-01-01".into())]);
}

#[test]
fn unsupported_change_is_an_error() {
    assert!(cast_err(
        Arc::new(BinaryArray::from(vec![&b"x"[..]])),
        "BYTES",
        "INT"
    ));
}

#[test]
fn mapper_matches_by_id_and_fills_nulls() {
    let file = vec![
        DataField::new(0, "a", t("INT")),
        DataField::new(1, "old_b", t("STRING")),
        DataField::new(2, "c", t("DOUBLE")),
    ];
    let table = vec![
        DataField::new(1, "b", t("STRING")),
        DataField::new(0, "a", t("BIGINT")),
        DataField::new(3, "d", t("INT")),
    ];
    let m = SchemaMapper::new(&table, &file);
    assert_eq!(m.file_columns(), vec!["old_b".to_string(), "a".to_string()]);
    let batch = RecordBatch::try_from_iter(vec![
        ("a", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef),
        (
            "old_b",
            Arc::new(StringArray::from(vec!["x", "y"])) as ArrayRef,
        ),
    ])
    .unwrap();
    let cols = m.map_columns(&batch, "f").unwrap();
    assert_eq!(strings(&cols[0]), vec![Some("x".into()), Some("y".into())]);
    assert_eq!(cols[1].data_type(), &arrow_schema::DataType::Int64);
    assert_eq!(cols[2].null_count(), 2);
}

#[test]
fn nested_row_by_id() {
    let from = DataType::from_json_str(r#"{"type":"ROW","fields":[{"id":5,"name":"x","type":"INT"},{"id":6,"name":"y","type":"STRING"}]}"#).unwrap();
    let to = DataType::from_json_str(r#"{"type":"ROW","fields":[{"id":6,"name":"y2","type":"STRING"},{"id":7,"name":"z","type":"INT"},{"id":5,"name":"x","type":"BIGINT"}]}"#).unwrap();
    let s: ArrayRef = Arc::new(StructArray::from(vec![
        (
            Arc::new(arrow_schema::Field::new(
                "x",
                arrow_schema::DataType::Int32,
                true,
            )),
            Arc::new(Int32Array::from(vec![1])) as ArrayRef,
        ),
        (
            Arc::new(arrow_schema::Field::new(
                "y",
                arrow_schema::DataType::Utf8,
                true,
            )),
            Arc::new(StringArray::from(vec!["q"])) as ArrayRef,
        ),
    ]));
    let r = conform(&s, &from, &to, "f").unwrap();
    let r = r.as_struct();
    assert_eq!(strings(r.column(0)), vec![Some("q".into())]);
    assert_eq!(r.column(1).null_count(), 1);
    assert_eq!(i64s(r.column(2)), vec![Some(1)]);
    let _ = TypeKind::Boolean;
}

#[test]
fn widening_a_timestamp_past_nanoseconds_is_an_error_not_null() {
    // 0001-01-01T00:00:00 as TIMESTAMP(6) cannot become TIMESTAMP(9) (Arrow nanoseconds).
    let ts: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![Some(
        -62_135_596_800_000_000,
    )]));
    let err = java_cast(&ts, &t("TIMESTAMP(6)"), &t("TIMESTAMP(9)"), "f").unwrap_err();
    assert!(
        matches!(&err, Error::TimestampOutOfRange { value, .. } if value == "0001-01-01T00:00:00"),
        "{err}"
    );
    // In range, the value is unchanged.
    let ok: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![Some(1_000_001), None]));
    let r = java_cast(&ok, &t("TIMESTAMP(6)"), &t("TIMESTAMP(9)"), "f").unwrap();
    let r = r.as_primitive::<TimestampNanosecondType>();
    assert_eq!(r.value(0), 1_000_001_000);
    assert!(r.is_null(1));
}

/// A VECTOR column decoded as a list (Avro) and cut out of a larger batch: the fixed-size
/// list it becomes holds the slice's own vectors. arrow-cast 59 alone takes the child values
/// from offset 0 (here 1..6 instead of 4..9; past the end of them, it panics).
#[test]
fn sliced_list_to_vector_keeps_the_slice_values() {
    let list = ListArray::from_iter_primitive::<Float32Type, _, _>([
        Some(vec![Some(1.0), Some(2.0), Some(3.0)]),
        Some(vec![Some(4.0), Some(5.0), Some(6.0)]),
        Some(vec![Some(7.0), Some(8.0), Some(9.0)]),
    ]);
    let sliced: ArrayRef = Arc::new(list.slice(1, 2));
    let target = arrow_schema::DataType::FixedSizeList(
        Arc::new(arrow_schema::Field::new(
            "element",
            arrow_schema::DataType::Float32,
            true,
        )),
        3,
    );
    let unguarded = arrow_cast::cast(&sliced, &target).unwrap();
    let unguarded = unguarded
        .as_fixed_size_list()
        .values()
        .as_primitive::<Float32Type>();
    assert_eq!(unguarded.values().to_vec(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out = normalize(&sliced, &target, "test").unwrap();
    let fixed = out.as_fixed_size_list();
    let values: Vec<f32> = fixed
        .values()
        .as_primitive::<Float32Type>()
        .values()
        .to_vec();
    assert_eq!(values, [4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
}
