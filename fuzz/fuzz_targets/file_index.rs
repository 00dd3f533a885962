//! paimon-format's file-index decoders (`paimon_format::file_index`): the index container of an
//! `_EMBEDDED_FILE_INDEX` or a `<data file>.index` sidecar (`FileIndexFile::parse`), bloom-filter
//! bodies (`BloomFilter64`) and bitmap dictionaries V1/V2 (`BitmapDictionary`), and pruning with
//! them (`file_index::may_match`), on fuzzed bytes.
//!
//! Input: `[mode][type][literal: 8 bytes][bytes...]`
//! * mode & 3 == 0: `bytes` is a whole container, pruned with predicates on the columns of the
//!   fixture table `append.db/file_index_*` (id INT, name STRING, category STRING, score BIGINT);
//! * 1 / 2: `bytes` is one bloom-filter / bitmap body, put into a well-formed container for
//!   column `c` of the type `type` picks from a menu (integers, strings, CHAR, binary, dates,
//!   times, timestamps, floats, booleans, decimals), so mutations reach the body decoders;
//! * 3: `bytes` is parsed by `BloomFilter64` and `BitmapDictionary` directly;
//! * the literal bytes become `=` / `IN` / `IS NULL` literals of the column's type.
//!
//! Checks: no panic, bounded work; indexes never prune `AlwaysTrue` or an empty `IN`, and a
//! decodable bloom filter answers the same for the same hash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_format::file_index::{
    fast_hash, may_match, BitmapDictionary, BloomFilter64, FileIndexFile,
};
use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::types::{DataType, TypeKind};

/// `FileIndexFormat.MAGIC`.
const MAGIC: i64 = 1_493_475_289_347_502;

fn type_menu() -> Vec<DataType> {
    let n = DataType::nullable;
    vec![
        n(TypeKind::TinyInt),
        n(TypeKind::SmallInt),
        n(TypeKind::Int),
        n(TypeKind::BigInt),
        DataType::string(),
        n(TypeKind::Char { length: 5 }),
        DataType::bytes(),
        n(TypeKind::Date),
        n(TypeKind::Time { precision: 0 }),
        n(TypeKind::Timestamp { precision: 3 }),
        n(TypeKind::Timestamp { precision: 6 }),
        n(TypeKind::LocalZonedTimestamp { precision: 9 }),
        n(TypeKind::Float),
        n(TypeKind::Double),
        n(TypeKind::Boolean),
        n(TypeKind::Decimal {
            precision: 10,
            scale: 2,
        }),
    ]
}

/// A literal of `ty` from 8 bytes.
fn literal(ty: &DataType, b: [u8; 8]) -> Datum {
    let l = i64::from_le_bytes(b);
    match &ty.kind {
        TypeKind::TinyInt => Datum::TinyInt(l as i8),
        TypeKind::SmallInt => Datum::SmallInt(l as i16),
        TypeKind::Int => Datum::Int(l as i32),
        TypeKind::BigInt => Datum::BigInt(l),
        TypeKind::VarChar { .. } | TypeKind::Char { .. } => {
            Datum::String(String::from_utf8_lossy(&b[..usize::from(b[0] % 8)]).into_owned())
        }
        TypeKind::Binary { .. } | TypeKind::VarBinary { .. } => Datum::Binary(b.to_vec()),
        TypeKind::Date => Datum::Date(l as i32),
        TypeKind::Time { .. } => Datum::Time(l as i32),
        TypeKind::Timestamp { .. } => Datum::Timestamp {
            millis: l >> 8,
            nanos: i32::from(b[0]) * 3_000,
        },
        TypeKind::LocalZonedTimestamp { .. } => Datum::LocalZonedTimestamp {
            millis: l >> 8,
            nanos: i32::from(b[0]) * 3_000,
        },
        TypeKind::Float => Datum::Float(f32::from_bits(l as u32)),
        TypeKind::Double => Datum::Double(f64::from_bits(l as u64)),
        TypeKind::Boolean => Datum::Boolean(l & 1 != 0),
        TypeKind::Decimal { precision, scale } => Datum::Decimal {
            unscaled: i128::from(l % 10_000_000_000),
            precision: *precision,
            scale: *scale,
        },
        _ => Datum::Null,
    }
}

/// A container holding one index of `index_type` for column `c` (Java `FileIndexFormat`).
fn container(index_type: &str, body: &[u8]) -> Vec<u8> {
    let head_len = 8 + 4 + 4 + 4 + (2 + 1) + 4 + (2 + index_type.len()) + 4 + 4 + 4;
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC.to_be_bytes());
    out.extend_from_slice(&1i32.to_be_bytes());
    out.extend_from_slice(&(head_len as i32).to_be_bytes());
    out.extend_from_slice(&1i32.to_be_bytes());
    out.extend_from_slice(&1u16.to_be_bytes());
    out.push(b'c');
    out.extend_from_slice(&1i32.to_be_bytes());
    out.extend_from_slice(&(index_type.len() as u16).to_be_bytes());
    out.extend_from_slice(index_type.as_bytes());
    out.extend_from_slice(&(head_len as i32).to_be_bytes());
    out.extend_from_slice(&(body.len() as i32).to_be_bytes());
    out.extend_from_slice(&0i32.to_be_bytes());
    debug_assert_eq!(out.len(), head_len);
    out.extend_from_slice(body);
    out
}

fn predicates(column: &str, lit: Datum) -> Vec<Predicate> {
    let leaf = |op, literals| Predicate::Leaf {
        column: column.to_string(),
        op,
        literals,
    };
    vec![
        leaf(LeafOp::Eq, vec![lit.clone()]),
        leaf(LeafOp::In, vec![lit.clone(), Datum::Null]),
        leaf(LeafOp::IsNull, vec![]),
        leaf(LeafOp::NotEq, vec![lit.clone()]),
        Predicate::And(vec![
            leaf(LeafOp::Eq, vec![lit.clone()]),
            Predicate::AlwaysTrue,
        ]),
        Predicate::Or(vec![
            leaf(LeafOp::Eq, vec![lit]),
            leaf(LeafOp::IsNull, vec![]),
        ]),
    ]
}

fn check(
    index: &FileIndexFile<'_>,
    column: &dyn Fn(&str) -> Option<(String, DataType)>,
    preds: &[Predicate],
    names: &[&str],
) {
    for p in preds {
        let _ = may_match(p, index, column);
    }
    assert_eq!(
        may_match(&Predicate::AlwaysTrue, index, column).ok(),
        Some(true)
    );
    for name in names {
        // An empty IN list is not judged by any index.
        let empty_in = Predicate::Leaf {
            column: name.to_string(),
            op: LeafOp::In,
            literals: vec![],
        };
        if let Ok(keep) = may_match(&empty_in, index, column) {
            assert!(keep, "an empty IN pruned the file");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [mode, sel, l0, l1, l2, l3, l4, l5, l6, l7, ref bytes @ ..] = *data else {
        return;
    };
    let lit = [l0, l1, l2, l3, l4, l5, l6, l7];
    let menu = type_menu();
    let ty = menu[usize::from(sel) % menu.len()].clone();
    match mode & 3 {
        0 => {
            let Ok(index) = FileIndexFile::parse(bytes) else {
                return;
            };
            let fixture = [
                ("id", DataType::nullable(TypeKind::Int)),
                ("name", DataType::string()),
                ("category", DataType::string()),
                ("score", DataType::nullable(TypeKind::BigInt)),
            ];
            let column = |c: &str| {
                fixture
                    .iter()
                    .find(|(n, _)| *n == c)
                    .map(|(n, t)| (n.to_string(), t.clone()))
            };
            let mut preds = Vec::new();
            for (name, t) in &fixture {
                preds.extend(predicates(name, literal(t, lit)));
            }
            check(
                &index,
                &column,
                &preds,
                &["id", "name", "category", "score"],
            );
        }
        1 | 2 => {
            let kind = if mode & 3 == 1 {
                "bloom-filter"
            } else {
                "bitmap"
            };
            let file = container(kind, bytes);
            let index = FileIndexFile::parse(&file).expect("a well-formed container");
            assert_eq!(index.indexes("c").len(), 1);
            let column = |c: &str| (c == "c").then(|| ("c".to_string(), ty.clone()));
            check(&index, &column, &predicates("c", literal(&ty, lit)), &["c"]);
        }
        _ => {
            if let Ok(bloom) = BloomFilter64::parse(bytes) {
                let h = fast_hash(&ty, &literal(&ty, lit)).unwrap_or(i64::from_le_bytes(lit));
                assert_eq!(bloom.test_hash(h), bloom.test_hash(h));
            }
            let _ = BitmapDictionary::parse(bytes, &ty);
        }
    }
});
