//! Files of the encoder read back by orc-rust's reader (an independent decoder); Java 1.4.2
//! reads them in paimon-write's and paimon-meta's tests.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampNanosecondType,
};
use arrow_array::{Array, RecordBatch};
use orc_rust::ArrowReaderBuilder;

use super::{OrcCodec, OrcType, OrcWriter};

fn read(bytes: Vec<u8>) -> RecordBatch {
    let reader = ArrowReaderBuilder::try_new(bytes::Bytes::from(bytes))
        .unwrap()
        .with_batch_size(100_000)
        .build();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    concat(&batches)
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    assert!(!batches.is_empty());
    let schema = batches[0].schema();
    let columns = (0..schema.fields().len())
        .map(|i| {
            let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(i).as_ref()).collect();
            arrow_select::concat::concat(&parts).unwrap()
        })
        .collect();
    RecordBatch::try_new(Arc::new(schema.as_ref().clone()), columns).unwrap()
}

fn primitives() -> Vec<(String, OrcType)> {
    [
        ("b", OrcType::Boolean),
        ("t", OrcType::Byte),
        ("s", OrcType::Short),
        ("i", OrcType::Int),
        ("l", OrcType::Long),
        ("f", OrcType::Float),
        ("d", OrcType::Double),
        ("str", OrcType::String),
        ("bin", OrcType::Binary),
        ("date", OrcType::Date),
        (
            "dec",
            OrcType::Decimal {
                precision: 38,
                scale: 10,
            },
        ),
        ("ts", OrcType::Timestamp),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_string(), t))
    .collect()
}

/// Writes `rows` rows of the primitive columns; row `r` holds values derived from `r`, every
/// seventh row null.
fn write_primitives(codec: OrcCodec, rows: i64, stripe_size: usize) -> Vec<u8> {
    let mut w = OrcWriter::try_new(Vec::new(), primitives(), codec, stripe_size).unwrap();
    for r in 0..rows {
        let c = w.columns();
        c[0].push_struct();
        if r % 7 == 3 {
            for col in &mut c[1..] {
                col.push_null();
            }
        } else {
            c[1].push_bool(r % 3 == 0);
            c[2].push_byte((r % 256 - 128) as i8);
            c[3].push_long(r % 30_000 - 15_000);
            c[4].push_long(r * 7 - 1_000_000);
            c[5].push_long(r * r * 1_000_003 - (1 << 40));
            c[6].push_f32(r as f32 / 4.0);
            c[7].push_f64(-(r as f64) / 8.0);
            c[8].push_bytes(format!("v{r}").as_bytes());
            c[9].push_bytes(&r.to_le_bytes()[..(r % 9) as usize]);
            c[10].push_long(r - 20_000);
            c[11].push_decimal(i128::from(r) * 10_i128.pow(30) - 7);
            c[12]
                .push_timestamp(r * 86_400 - 2_000_000_000, (r % 1_000) as u32 * 1_000_007)
                .unwrap();
        }
        w.end_rows(1).unwrap();
    }
    w.finish().unwrap().0
}

#[test]
fn every_primitive_type_reads_back_with_each_codec() {
    for codec in [
        OrcCodec::None,
        OrcCodec::Zstd(1),
        OrcCodec::Snappy,
        OrcCodec::Zlib,
        OrcCodec::Lz4,
    ] {
        // 300 kB stripes: several stripes, and streams of more than one compression block.
        let rows = 40_000;
        let b = read(write_primitives(codec, rows, 300_000));
        assert_eq!(b.num_rows(), rows as usize, "{codec:?}");
        for r in 0..rows {
            let i = r as usize;
            if r % 7 == 3 {
                assert!((0..12).all(|c| b.column(c).is_null(i)), "{codec:?} row {r}");
                continue;
            }
            assert_eq!(b.column(0).as_boolean().value(i), r % 3 == 0);
            assert_eq!(
                b.column(1).as_primitive::<Int8Type>().value(i),
                (r % 256 - 128) as i8
            );
            assert_eq!(
                b.column(2).as_primitive::<Int16Type>().value(i),
                (r % 30_000 - 15_000) as i16
            );
            assert_eq!(
                b.column(3).as_primitive::<Int32Type>().value(i),
                (r * 7 - 1_000_000) as i32
            );
            assert_eq!(
                b.column(4).as_primitive::<Int64Type>().value(i),
                r * r * 1_000_003 - (1 << 40)
            );
            assert_eq!(
                b.column(5).as_primitive::<Float32Type>().value(i),
                r as f32 / 4.0
            );
            assert_eq!(
                b.column(6).as_primitive::<Float64Type>().value(i),
                -(r as f64) / 8.0
            );
            assert_eq!(b.column(7).as_string::<i32>().value(i), format!("v{r}"));
            assert_eq!(
                b.column(8).as_binary::<i32>().value(i),
                &r.to_le_bytes()[..(r % 9) as usize]
            );
            assert_eq!(
                b.column(9).as_primitive::<Date32Type>().value(i),
                (r - 20_000) as i32
            );
            assert_eq!(
                b.column(10).as_primitive::<Decimal128Type>().value(i),
                i128::from(r) * 10_i128.pow(30) - 7
            );
            let nanos = i64::from((r % 1_000) as u32 * 1_000_007);
            assert_eq!(
                b.column(11)
                    .as_primitive::<TimestampNanosecondType>()
                    .value(i),
                (r * 86_400 - 2_000_000_000) * 1_000_000_000 + nanos,
                "{codec:?} row {r}"
            );
        }
    }
}

#[test]
fn nested_columns_read_back() {
    // a: list<int>, m: map<string, struct<x: bigint, y: list<string>>>
    let fields = vec![
        ("a".to_string(), OrcType::List(Box::new(OrcType::Int))),
        (
            "m".to_string(),
            OrcType::Map(
                Box::new(OrcType::String),
                Box::new(OrcType::Struct(vec![
                    ("x".to_string(), OrcType::Long),
                    ("y".to_string(), OrcType::List(Box::new(OrcType::String))),
                ])),
            ),
        ),
    ];
    let mut w = OrcWriter::try_new(Vec::new(), fields, OrcCodec::Zstd(3), 1 << 20).unwrap();
    // Columns: 0 root, 1 a, 2 a.element, 3 m, 4 key, 5 value, 6 x, 7 y, 8 y.element.
    for r in 0..1_000i64 {
        let c = w.columns();
        c[0].push_struct();
        if r % 5 == 0 {
            c[1].push_null();
        } else {
            c[1].push_length((r % 4) as usize);
            for k in 0..r % 4 {
                if k == 2 {
                    c[2].push_null();
                } else {
                    c[2].push_long(r * 10 + k);
                }
            }
        }
        if r % 6 == 0 {
            c[3].push_null();
        } else {
            c[3].push_length(2);
            for k in 0..2 {
                c[4].push_bytes(format!("k{k}").as_bytes());
                if k == 1 && r % 2 == 0 {
                    c[5].push_null();
                } else {
                    c[5].push_struct();
                    c[6].push_long(r + k);
                    c[7].push_length(1);
                    c[8].push_bytes(format!("s{r}").as_bytes());
                }
            }
        }
        w.end_rows(1).unwrap();
    }
    let b = read(w.finish().unwrap().0);
    assert_eq!(b.num_rows(), 1_000);
    let a = b.column(0).as_list::<i32>();
    let m = b.column(1).as_map();
    for r in 0..1_000i64 {
        let i = r as usize;
        if r % 5 == 0 {
            assert!(a.is_null(i));
        } else {
            let v = a.value(i);
            let v = v.as_primitive::<Int32Type>();
            assert_eq!(v.len(), (r % 4) as usize);
            for k in 0..v.len() {
                if k == 2 {
                    assert!(v.is_null(k));
                } else {
                    assert_eq!(i64::from(v.value(k)), r * 10 + k as i64);
                }
            }
        }
        if r % 6 == 0 {
            assert!(m.is_null(i));
            continue;
        }
        let e = m.value(i);
        assert_eq!(e.len(), 2);
        let keys = e.column(0).as_string::<i32>();
        let vals = e.column(1).as_struct();
        for k in 0..2 {
            assert_eq!(keys.value(k), format!("k{k}"));
            if k == 1 && r % 2 == 0 {
                assert!(vals.is_null(k));
            } else {
                assert_eq!(
                    vals.column(0).as_primitive::<Int64Type>().value(k),
                    r + k as i64
                );
                let y = vals.column(1).as_list::<i32>().value(k);
                assert_eq!(y.as_string::<i32>().value(0), format!("s{r}"));
            }
        }
    }
}

#[test]
fn the_second_before_the_epoch_is_refused_past_a_millisecond() {
    let mut w = OrcWriter::try_new(
        Vec::new(),
        vec![("ts".to_string(), OrcType::TimestampInstant)],
        OrcCodec::None,
        1 << 20,
    )
    .unwrap();
    let c = w.column(1).unwrap();
    assert!(c.push_timestamp(-1, 999_000_000).is_err());
    assert!(c.push_timestamp(-1, 999_999).is_ok());
    assert!(c.push_timestamp(-2, 999_000_000).is_ok());
    w.column(0).unwrap().push_struct();
    w.column(0).unwrap().push_struct();
    w.end_rows(2).unwrap();
    let b = read(w.finish().unwrap().0);
    let ts = b.column(0).as_primitive::<TimestampNanosecondType>();
    assert_eq!(ts.value(0), -1_000_000_000 + 999_999);
    assert_eq!(ts.value(1), -2_000_000_000 + 999_000_000);
}

#[test]
fn an_empty_file_reads_as_no_rows() {
    let w = OrcWriter::try_new(
        Vec::new(),
        vec![("x".to_string(), OrcType::Int)],
        OrcCodec::Zstd(1),
        1 << 20,
    )
    .unwrap();
    let bytes = w.finish().unwrap().0;
    let reader = ArrowReaderBuilder::try_new(bytes::Bytes::from(bytes))
        .unwrap()
        .build();
    assert_eq!(reader.map(|b| b.unwrap().num_rows()).sum::<usize>(), 0);
}
