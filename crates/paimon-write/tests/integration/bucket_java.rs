//! Bucket ids equal Java's `FixedBucketRowKeyExtractor` for paimon-cpp's
//! `record*_for_bucket_id.data` files: 5,000 rows each, JSON arrays whose last element is the
//! bucket Java computed over all other columns as the bucket key, 12,345 buckets (the file
//! format is the one paimon-cpp's `BucketIdCalculatorTest.TestCompatibleWithJava*` reads).

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, Float32Builder,
    Float64Builder, Int16Builder, Int32Builder, Int64Builder, Int8Builder, StringBuilder,
    TimestampMicrosecondBuilder, TimestampMillisecondBuilder, TimestampNanosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema};
use paimon_data::arrow_schema::to_arrow_type;
use paimon_spec::types::{DataField, DataType};
use paimon_write::bucket::BucketAssigner;
use serde_json::Value;

const BUCKETS: i32 = 12_345;

fn rows(name: &str) -> Vec<Vec<Value>> {
    let text = std::fs::read_to_string(crate::common::testdata().join("paimon-cpp").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let l = l.trim().trim_end_matches(',');
            match serde_json::from_str::<Value>(l).unwrap() {
                Value::Array(a) => a,
                other => panic!("not a row: {other}"),
            }
        })
        .collect()
}

fn unscaled(text: &str, scale: usize) -> i128 {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let mut frac = frac.to_string();
    while frac.len() < scale {
        frac.push('0');
    }
    let v: i128 = format!("{int}{frac}").parse().unwrap();
    if neg {
        -v
    } else {
        v
    }
}

/// Nanoseconds since the epoch of an ISO local date-time read as UTC (Java's
/// `LocalDateTime.toString`, which leaves out zero seconds).
fn iso_nanos(text: &str) -> i64 {
    let t = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    t.and_utc().timestamp_nanos_opt().unwrap()
}

fn column(ty: &DataType, values: &[&Value]) -> ArrayRef {
    use paimon_spec::types::TypeKind as K;
    macro_rules! build {
        ($b:expr, $conv:expr) => {{
            let mut b = $b;
            for v in values {
                if v.is_null() {
                    b.append_null();
                } else {
                    b.append_value($conv(*v));
                }
            }
            Arc::new(b.finish()) as ArrayRef
        }};
    }
    let int = |v: &Value| v.as_i64().unwrap();
    let ts_nanos = |v: &Value| match v {
        Value::String(s) => iso_nanos(s),
        _ => v.as_i64().unwrap(),
    };
    let ltz = matches!(ty.kind, K::LocalZonedTimestamp { .. });
    let tz = |b: ArrayRef| -> ArrayRef {
        if ltz {
            arrow_cast::cast(&b, &to_arrow_type(ty)).unwrap()
        } else {
            b
        }
    };
    match &ty.kind {
        K::Boolean => build!(BooleanBuilder::new(), |v: &Value| v.as_bool().unwrap()),
        K::TinyInt => build!(Int8Builder::new(), |v| int(v) as i8),
        K::SmallInt => build!(Int16Builder::new(), |v| int(v) as i16),
        K::Int => build!(Int32Builder::new(), |v| int(v) as i32),
        K::Date => build!(Date32Builder::new(), |v| int(v) as i32),
        K::BigInt => build!(Int64Builder::new(), |v: &Value| v.as_i64().unwrap()),
        K::Float => build!(Float32Builder::new(), |v: &Value| v
            .to_string()
            .parse::<f32>()
            .unwrap()),
        K::Double => build!(Float64Builder::new(), |v: &Value| v.as_f64().unwrap()),
        K::VarChar { .. } => build!(StringBuilder::new(), |v: &Value| v
            .as_str()
            .unwrap()
            .to_string()),
        K::VarBinary { .. } => build!(BinaryBuilder::new(), |v: &Value| v
            .as_str()
            .unwrap()
            .as_bytes()
            .to_vec()),
        K::Decimal { precision, scale } => {
            let s = *scale as usize;
            build!(
                Decimal128Builder::new()
                    .with_precision_and_scale(*precision as u8, *scale as i8)
                    .unwrap(),
                |v: &Value| unscaled(v.as_str().unwrap(), s)
            )
        }
        K::Timestamp { precision } | K::LocalZonedTimestamp { precision } => match precision {
            0..=3 => tz(build!(TimestampMillisecondBuilder::new(), |v| ts_nanos(v)
                .div_euclid(1_000_000))),
            4..=6 => tz(build!(TimestampMicrosecondBuilder::new(), |v| ts_nanos(v)
                .div_euclid(1_000))),
            _ => tz(build!(TimestampNanosecondBuilder::new(), ts_nanos)),
        },
        other => panic!("no builder for {other:?}"),
    }
}

fn check(file: &str, types: &[&str]) {
    let rows = rows(file);
    assert_eq!(rows.len(), 5000, "{file}");
    let fields: Vec<DataField> = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            DataField::new(
                i as i32,
                format!("v{i}"),
                DataType::from_json_str(&format!("\"{t}\"")).unwrap(),
            )
        })
        .collect();
    let columns: Vec<ArrayRef> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let vals: Vec<&Value> = rows.iter().map(|r| &r[i]).collect();
            column(&f.data_type, &vals)
        })
        .collect();
    let schema = Schema::new(
        fields
            .iter()
            .map(|f| Field::new(&f.name, to_arrow_type(&f.data_type), true))
            .collect::<Vec<_>>(),
    );
    let batch = RecordBatch::try_new(Arc::new(schema), columns).unwrap();
    let keys = fields.iter().cloned().enumerate().collect();
    let got = BucketAssigner::try_new("t", BUCKETS, keys)
        .unwrap()
        .assign(&batch)
        .unwrap();
    let want: Vec<i32> = rows
        .iter()
        .map(|r| r[types.len()].as_i64().unwrap() as i32)
        .collect();
    let differ: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
    assert!(
        differ.is_empty(),
        "{file}: {} of 5000 bucket ids differ from Java, first at row {}: got {}, Java {}",
        differ.len(),
        differ[0],
        got[differ[0]],
        want[differ[0]]
    );
}

#[test]
fn all_types_equal_java() {
    check(
        "record_for_bucket_id.data",
        &[
            "BOOLEAN",
            "TINYINT",
            "SMALLINT",
            "INT",
            "BIGINT",
            "FLOAT",
            "DOUBLE",
            "DATE",
            "TIMESTAMP(9)",
            "DECIMAL(30, 20)",
            "STRING",
            "BYTES",
        ],
    );
}

#[test]
fn nulls_equal_java() {
    check(
        "record_with_null_for_bucket_id.data",
        &[
            "BOOLEAN",
            "TINYINT",
            "SMALLINT",
            "INT",
            "BIGINT",
            "FLOAT",
            "DOUBLE",
            "DATE",
            "TIMESTAMP(9)",
            "DECIMAL(5, 2)",
            "DECIMAL(30, 2)",
            "STRING",
            "BYTES",
        ],
    );
}

#[test]
fn timestamps_equal_java() {
    check(
        "record_with_timestamp_for_bucket_id.data",
        &[
            "TIMESTAMP(0)",
            "TIMESTAMP(3)",
            "TIMESTAMP(6)",
            "TIMESTAMP(9)",
            "TIMESTAMP(0) WITH LOCAL TIME ZONE",
            "TIMESTAMP(3) WITH LOCAL TIME ZONE",
            "TIMESTAMP(6) WITH LOCAL TIME ZONE",
            "TIMESTAMP(9) WITH LOCAL TIME ZONE",
        ],
    );
}
