//! Our bucket function agrees with Java on `record*_for_bucket_id.data` (JSON rows whose last
//! column is the bucket Java's `FixedBucketRowKeyExtractor` computed for 12,345 buckets).

use paimon_meta::scan::bucket::bucket_id;
use paimon_spec::binary::Datum;
use paimon_spec::types::{DataType, TypeKind};

use crate::common;

fn decimal(text: &str, precision: u32, scale: u32) -> Datum {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let mut frac = frac.to_string();
    while frac.len() < scale as usize {
        frac.push('0');
    }
    let unscaled: i128 = format!("{int}{frac}").parse().unwrap();
    Datum::Decimal {
        unscaled,
        precision,
        scale,
    }
}

/// One JSON cell as raw text: `None` for null, quoted strings unquoted. Numbers keep their
/// exact text so floats parse with correct rounding.
type Cell = Option<String>;

/// Splits the rows `[a, "b, c", null],` of the data files into cells.
fn parse_rows(text: &str) -> Vec<Vec<Cell>> {
    let mut rows = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '[' {
            continue;
        }
        let mut row = Vec::new();
        let mut cur = String::new();
        let mut quoted = false;
        loop {
            match chars.next() {
                Some('"') => {
                    quoted = true;
                    for d in chars.by_ref() {
                        if d == '"' {
                            break;
                        }
                        cur.push(d);
                    }
                }
                Some(d @ (',' | ']')) => {
                    let t = cur.trim().to_string();
                    row.push(if !quoted && t == "null" {
                        None
                    } else {
                        Some(t)
                    });
                    cur.clear();
                    quoted = false;
                    if d == ']' {
                        break;
                    }
                }
                Some(d) => cur.push(d),
                None => break,
            }
        }
        rows.push(row);
    }
    rows
}

fn datum(v: &Cell, t: &DataType) -> Datum {
    let Some(v) = v else { return Datum::Null };
    match &t.kind {
        TypeKind::Boolean => Datum::Boolean(v == "true"),
        TypeKind::TinyInt => Datum::TinyInt(v.parse().unwrap()),
        TypeKind::SmallInt => Datum::SmallInt(v.parse().unwrap()),
        TypeKind::Int => Datum::Int(v.parse().unwrap()),
        TypeKind::BigInt => Datum::BigInt(v.parse().unwrap()),
        TypeKind::Float => Datum::Float(v.parse().unwrap()),
        TypeKind::Double => Datum::Double(v.parse().unwrap()),
        TypeKind::Date => Datum::Date(v.parse().unwrap()),
        TypeKind::Timestamp { .. } => {
            let n: i64 = v.parse().unwrap();
            Datum::Timestamp {
                millis: n.div_euclid(1_000_000),
                nanos: n.rem_euclid(1_000_000) as i32,
            }
        }
        TypeKind::Decimal { precision, scale } => decimal(v, *precision, *scale),
        TypeKind::VarChar { .. } => Datum::String(v.clone()),
        TypeKind::VarBinary { .. } => Datum::Binary(v.as_bytes().to_vec()),
        other => panic!("unexpected type {other:?}"),
    }
}

fn check(file: &str, types: Vec<DataType>) {
    let path = common::testdata().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rows = parse_rows(&text);
    assert!(rows.len() >= 1000, "{file}: only {} rows", rows.len());
    for (i, row) in rows.iter().enumerate() {
        let values: Vec<Datum> = types.iter().zip(row).map(|(t, v)| datum(v, t)).collect();
        let expected: i32 = row[types.len()].as_deref().unwrap().parse().unwrap();
        assert_eq!(
            bucket_id(&values, &types, 12345).unwrap(),
            expected,
            "{file} row {i}: {row:?}"
        );
    }
}

fn base_types() -> Vec<DataType> {
    use TypeKind::*;
    [
        Boolean,
        TinyInt,
        SmallInt,
        Int,
        BigInt,
        Float,
        Double,
        Date,
        Timestamp { precision: 9 },
    ]
    .into_iter()
    .map(DataType::nullable)
    .collect()
}

#[test]
fn bucket_ids_match_java() {
    let mut types = base_types();
    types.push(DataType::nullable(TypeKind::Decimal {
        precision: 30,
        scale: 20,
    }));
    types.push(DataType::string());
    types.push(DataType::bytes());
    check("record_for_bucket_id.data", types);
}

#[test]
fn bucket_ids_with_nulls_match_java() {
    let mut types = base_types();
    types.push(DataType::nullable(TypeKind::Decimal {
        precision: 5,
        scale: 2,
    }));
    types.push(DataType::nullable(TypeKind::Decimal {
        precision: 30,
        scale: 2,
    }));
    types.push(DataType::string());
    types.push(DataType::bytes());
    check("record_with_null_for_bucket_id.data", types);
}
