//! The predicate JSON encoder against Java: `fixtures/predicate-json/all_types_parquet.jsonl`
//! holds Java 1.4.2's JSON of filters over `append.db/all_types_parquet`
//! (`scripts/gen-predicate-json.sh`); each is read back to the predicate written here by hand,
//! and our encoding of that predicate is Java's JSON. A property test round-trips random
//! predicates over every scalar column of that table.

use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::predicate_json::{
    predicate_from_json, predicate_from_json_all_types, predicate_to_json,
};
use paimon_spec::schema::TableSchema;
use paimon_spec::types::{DataField, TypeKind};
use paimon_test_utils::repo;
use proptest::prelude::*;
use serde_json::Value;

fn fields() -> Vec<DataField> {
    let p = repo().join("fixtures/warehouse/append.db/all_types_parquet/schema/schema-0");
    let text = std::fs::read_to_string(&p).unwrap();
    TableSchema::from_json_str(&text).unwrap().fields
}

fn leaf(c: &str, op: LeafOp, lits: Vec<Datum>) -> Predicate {
    Predicate::leaf(c, op, lits)
}

fn dec(unscaled: i128, precision: u32, scale: u32) -> Datum {
    Datum::Decimal {
        unscaled,
        precision,
        scale,
    }
}

/// How a golden case is checked besides Java's JSON reading back to `expected`.
enum Encode {
    /// Our JSON of `expected` is Java's, byte for byte.
    Exact,
    /// Equal as JSON values: Java and Rust print floating-point numbers differently.
    SameValue,
    /// Our JSON of this predicate (holding a NOT, which Java pushed down) is Java's.
    FromNot(Predicate),
    /// Java wrote BETWEEN, which reads as two leaves and is never written back.
    DecodeOnly,
}

/// Per filter of the golden file: the predicate Java's JSON means, and how to check encoding.
fn expected(filter: &str) -> (Predicate, Encode) {
    use Encode::*;
    use LeafOp::*;
    let s = |v: &str| Datum::String(v.to_string());
    match filter {
        "c_int = 5" => (leaf("c_int", Eq, vec![Datum::Int(5)]), Exact),
        "c_string = 'a''b' OR c_bigint IN (1, 2, NULL)" => (
            Predicate::Or(vec![
                leaf("c_string", Eq, vec![s("a'b")]),
                Predicate::Or(vec![
                    Predicate::Or(vec![
                        leaf("c_bigint", Eq, vec![Datum::BigInt(1)]),
                        leaf("c_bigint", Eq, vec![Datum::BigInt(2)]),
                    ]),
                    leaf("c_bigint", Eq, vec![Datum::Null]),
                ]),
            ]),
            Exact,
        ),
        "NOT (c_int < 3 AND c_double >= 1.5)" => (
            Predicate::Or(vec![
                leaf("c_int", GtEq, vec![Datum::Int(3)]),
                leaf("c_double", Lt, vec![Datum::Double(1.5)]),
            ]),
            FromNot(Predicate::Not(Box::new(Predicate::And(vec![
                leaf("c_int", Lt, vec![Datum::Int(3)]),
                leaf("c_double", GtEq, vec![Datum::Double(1.5)]),
            ])))),
        ),
        "NOT c_string IN ('a')" => (
            leaf("c_string", NotEq, vec![s("a")]),
            FromNot(Predicate::Not(Box::new(leaf("c_string", Eq, vec![s("a")])))),
        ),
        "c_bool = TRUE AND c_tinyint <> -3 AND c_smallint IS NULL" => (
            Predicate::And(vec![
                Predicate::And(vec![
                    leaf("c_bool", Eq, vec![Datum::Boolean(true)]),
                    leaf("c_tinyint", NotEq, vec![Datum::TinyInt(-3)]),
                ]),
                leaf("c_smallint", IsNull, vec![]),
            ]),
            Exact,
        ),
        "c_varchar NOT IN ('x', 'y')" => (
            Predicate::And(vec![
                leaf("c_varchar", NotEq, vec![s("x")]),
                leaf("c_varchar", NotEq, vec![s("y")]),
            ]),
            Exact,
        ),
        "c_char IS NOT NULL" => (leaf("c_char", IsNotNull, vec![]), Exact),
        "c_int BETWEEN 1 AND 4" => (
            Predicate::And(vec![
                leaf("c_int", GtEq, vec![Datum::Int(1)]),
                leaf("c_int", LtEq, vec![Datum::Int(4)]),
            ]),
            DecodeOnly,
        ),
        "c_float > 0.1" => (leaf("c_float", Gt, vec![Datum::Float(0.1)]), SameValue),
        "c_double = 1e300" => (leaf("c_double", Eq, vec![Datum::Double(1e300)]), SameValue),
        // 2024-01-01 is day 19723.
        "c_date = '2024-01-31'" => (leaf("c_date", Eq, vec![Datum::Date(19_753)]), Exact),
        "c_date < '1969-12-31'" => (leaf("c_date", Lt, vec![Datum::Date(-1)]), Exact),
        "c_dec_5_2 = -0.5" => (leaf("c_dec_5_2", Eq, vec![dec(-50, 5, 2)]), Exact),
        "c_dec_18_4 = 12.5" => (leaf("c_dec_18_4", Eq, vec![dec(125_000, 18, 4)]), Exact),
        "c_dec_38_0 = 12345678901234567890123456789012345678" => (
            leaf(
                "c_dec_38_0",
                Eq,
                vec![dec(
                    12_345_678_901_234_567_890_123_456_789_012_345_678,
                    38,
                    0,
                )],
            ),
            Exact,
        ),
        "c_dec_38_10 = 123456789012345678901234567.8901234567" => (
            leaf(
                "c_dec_38_10",
                Eq,
                vec![dec(
                    1_234_567_890_123_456_789_012_345_678_901_234_567,
                    38,
                    10,
                )],
            ),
            Exact,
        ),
        "c_dec_38_10 = 0.0000001" => (leaf("c_dec_38_10", Eq, vec![dec(1000, 38, 10)]), Exact),
        "c_time = '01:02:03.004'" => (leaf("c_time", Eq, vec![Datum::Time(3_723_004)]), Exact),
        "c_time = '00:00:00'" => (leaf("c_time", Eq, vec![Datum::Time(0)]), Exact),
        // 2024-01-02T00:00 is 1704153600 s after the epoch.
        "c_ts0 = '2024-01-02 03:04:00'" => (
            leaf(
                "c_ts0",
                Eq,
                vec![Datum::Timestamp {
                    millis: 1_704_164_640_000,
                    nanos: 0,
                }],
            ),
            Exact,
        ),
        "c_ts6 = '2024-01-02 03:04:05.123456'" => (
            leaf(
                "c_ts6",
                Eq,
                vec![Datum::Timestamp {
                    millis: 1_704_164_645_123,
                    nanos: 456_000,
                }],
            ),
            Exact,
        ),
        "c_ts9 = '1969-12-31 23:59:59.999999999'" => (
            leaf(
                "c_ts9",
                Eq,
                vec![Datum::Timestamp {
                    millis: -1,
                    nanos: 999_999,
                }],
            ),
            Exact,
        ),
        "c_ltz3 = '2024-01-02T03:04:05.123Z'" => (
            leaf(
                "c_ltz3",
                Eq,
                vec![Datum::LocalZonedTimestamp {
                    millis: 1_704_164_645_123,
                    nanos: 0,
                }],
            ),
            Exact,
        ),
        "c_ltz3 = '1970-01-01T00:00:00Z'" => (
            leaf(
                "c_ltz3",
                Eq,
                vec![Datum::LocalZonedTimestamp {
                    millis: 0,
                    nanos: 0,
                }],
            ),
            Exact,
        ),
        "c_ltz6 = '1969-12-31T23:59:59.999999Z'" => (
            leaf(
                "c_ltz6",
                Eq,
                vec![Datum::LocalZonedTimestamp {
                    millis: -1,
                    nanos: 999_000,
                }],
            ),
            Exact,
        ),
        "c_ltz9 = '1970-01-01T00:00:00.000000001Z'" => (
            leaf(
                "c_ltz9",
                Eq,
                vec![Datum::LocalZonedTimestamp {
                    millis: 0,
                    nanos: 1,
                }],
            ),
            Exact,
        ),
        other => panic!("no expected predicate for golden filter {other:?}"),
    }
}

#[test]
fn java_predicate_json_golden() {
    let fields = fields();
    let path = repo().join("fixtures/predicate-json/all_types_parquet.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut checked = 0;
    for line in text.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let filter = case["filter"].as_str().unwrap();
        let java = case["json"].as_str().unwrap();
        let (want, encode) = expected(filter);
        assert_eq!(
            predicate_from_json_all_types(java).unwrap(),
            want,
            "{filter}"
        );
        // Where Java reads its own JSON, so does the Java-compatible reader.
        match case["read_back"].as_str().unwrap() {
            "ok" => assert_eq!(predicate_from_json(java).unwrap(), want, "{filter}"),
            r => {
                assert!(r.starts_with("error"), "{filter}: {r}");
                assert!(predicate_from_json(java).is_err(), "{filter}");
            }
        }
        let java_value: Value = serde_json::from_str(java).unwrap();
        match encode {
            Encode::Exact => assert_eq!(predicate_to_json(&want, &fields).unwrap(), java),
            Encode::SameValue => {
                let ours: Value =
                    serde_json::from_str(&predicate_to_json(&want, &fields).unwrap()).unwrap();
                assert_eq!(ours, java_value, "{filter}");
            }
            Encode::FromNot(not) => {
                assert_eq!(predicate_to_json(&not, &fields).unwrap(), java, "{filter}");
            }
            Encode::DecodeOnly => {}
        }
        checked += 1;
    }
    assert_eq!(checked, 26, "golden cases in {}", path.display());
}

#[test]
fn constants_and_refusals() {
    let fields = fields();
    for p in [Predicate::AlwaysTrue, Predicate::AlwaysFalse] {
        let json = predicate_to_json(&p, &fields).unwrap();
        assert_eq!(predicate_from_json_all_types(&json).unwrap(), p);
        let not = predicate_to_json(&Predicate::Not(Box::new(p.clone())), &fields).unwrap();
        assert_ne!(predicate_from_json_all_types(&not).unwrap(), p);
    }
    let starts = leaf(
        "c_string",
        LeafOp::StartsWith,
        vec![Datum::String("a".into())],
    );
    let back = predicate_from_json_all_types(&predicate_to_json(&starts, &fields).unwrap());
    assert_eq!(back.unwrap(), starts);
    // Java cannot negate STARTS_WITH; the writer turns it into a range of strings.
    let not_starts = predicate_to_json(&Predicate::Not(Box::new(starts)), &fields).unwrap();
    assert_eq!(
        predicate_from_json_all_types(&not_starts).unwrap(),
        Predicate::Or(vec![
            leaf("c_string", LeafOp::Lt, vec![Datum::String("a".into())]),
            leaf("c_string", LeafOp::GtEq, vec![Datum::String("b".into())]),
        ])
    );
    let refused = [
        leaf("c_binary", LeafOp::Eq, vec![Datum::Binary(vec![1])]),
        leaf("c_double", LeafOp::Eq, vec![Datum::Double(f64::NAN)]),
    ];
    for p in refused {
        let e = predicate_to_json(&p, &fields).unwrap_err();
        assert!(e.to_string().contains("unsupported"), "{p:?}: {e}");
    }
    for p in [
        leaf("nope", LeafOp::IsNull, vec![]),
        leaf("c_int", LeafOp::Eq, vec![Datum::BigInt(1)]),
        leaf("c_dec_5_2", LeafOp::Eq, vec![dec(1, 6, 2)]),
    ] {
        let e = predicate_to_json(&p, &fields).unwrap_err();
        assert!(e.to_string().contains("cannot encode"), "{p:?}: {e}");
    }
}

/// `p` on a non-null string value of `c_string` (leaves of comparisons, OR, FALSE only).
fn holds(p: &Predicate, v: &str) -> bool {
    match p {
        Predicate::AlwaysFalse => false,
        Predicate::Or(c) => c.iter().any(|c| holds(c, v)),
        Predicate::Leaf { op, literals, .. } => {
            let [Datum::String(lit)] = literals.as_slice() else {
                panic!("{p:?}")
            };
            match op {
                LeafOp::Lt => v.as_bytes() < lit.as_bytes(),
                LeafOp::GtEq => v.as_bytes() >= lit.as_bytes(),
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
}

/// A literal of `kind` that the JSON form carries exactly.
fn arb_datum(kind: &TypeKind) -> BoxedStrategy<Datum> {
    let value = match kind.clone() {
        TypeKind::Boolean => any::<bool>().prop_map(Datum::Boolean).boxed(),
        TypeKind::TinyInt => any::<i8>().prop_map(Datum::TinyInt).boxed(),
        TypeKind::SmallInt => any::<i16>().prop_map(Datum::SmallInt).boxed(),
        TypeKind::Int => any::<i32>().prop_map(Datum::Int).boxed(),
        TypeKind::BigInt => any::<i64>().prop_map(Datum::BigInt).boxed(),
        TypeKind::Float => any::<f32>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Datum::Float)
            .boxed(),
        TypeKind::Double => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Datum::Double)
            .boxed(),
        TypeKind::Decimal { precision, scale } => {
            let max = 10i128.pow(precision) - 1;
            prop_oneof![-max..=max, -1000i128..1000]
                .prop_map(move |unscaled| dec(unscaled, precision, scale))
                .boxed()
        }
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => {
            any::<String>().prop_map(Datum::String).boxed()
        }
        TypeKind::Date => any::<i32>().prop_map(Datum::Date).boxed(),
        TypeKind::Time { .. } => (0..86_400_000i32).prop_map(Datum::Time).boxed(),
        TypeKind::Timestamp { .. } => (-(1i64 << 52)..(1i64 << 52), 0..1_000_000i32)
            .prop_map(|(millis, nanos)| Datum::Timestamp { millis, nanos })
            .boxed(),
        TypeKind::LocalZonedTimestamp { .. } => (-(1i64 << 52)..(1i64 << 52), 0..1_000_000i32)
            .prop_map(|(millis, nanos)| Datum::LocalZonedTimestamp { millis, nanos })
            .boxed(),
        other => unreachable!("no literal strategy for {other:?}"),
    };
    prop_oneof![1 => Just(Datum::Null), 8 => value].boxed()
}

fn arb_leaf(fields: Vec<DataField>) -> BoxedStrategy<Predicate> {
    proptest::sample::select(fields)
        .prop_flat_map(|f| {
            let string = matches!(
                f.data_type.kind,
                TypeKind::Char { .. } | TypeKind::VarChar { .. }
            );
            let ops = if string {
                vec![
                    LeafOp::Eq,
                    LeafOp::Lt,
                    LeafOp::GtEq,
                    LeafOp::IsNull,
                    LeafOp::In,
                    LeafOp::NotIn,
                    LeafOp::StartsWith,
                ]
            } else {
                vec![
                    LeafOp::Eq,
                    LeafOp::NotEq,
                    LeafOp::Lt,
                    LeafOp::LtEq,
                    LeafOp::Gt,
                    LeafOp::GtEq,
                    LeafOp::IsNull,
                    LeafOp::IsNotNull,
                    LeafOp::In,
                    LeafOp::NotIn,
                ]
            };
            let lits = proptest::collection::vec(arb_datum(&f.data_type.kind), 0..4);
            (Just(f.name), proptest::sample::select(ops), lits)
        })
        .prop_map(|(column, op, mut literals)| {
            match op {
                LeafOp::IsNull | LeafOp::IsNotNull => literals.clear(),
                LeafOp::In | LeafOp::NotIn => {}
                _ if literals.is_empty() => literals.push(Datum::Null),
                _ => literals.truncate(1),
            }
            Predicate::leaf(column, op, literals)
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The range NOT STARTS_WITH is written as holds exactly for the strings (compared as
    /// UTF-8 bytes, as Paimon compares them) that do not start with the prefix.
    #[test]
    fn not_starts_with_range_is_exact(prefix in "[a\u{7f}\u{ff}\u{d7ff}\u{e000}\u{10ffff}]{0,3}",
                                      tail in "[a\u{7f}\u{ff}\u{d7ff}\u{e000}\u{10ffff}]{0,3}",
                                      other in "[a\u{7f}\u{ff}\u{d7ff}\u{e000}\u{10ffff}b]{0,4}") {
        let fields = fields();
        let not = Predicate::Not(Box::new(leaf("c_string", LeafOp::StartsWith, vec![Datum::String(prefix.clone())])));
        let written = predicate_from_json_all_types(&predicate_to_json(&not, &fields).unwrap()).unwrap();
        for s in [format!("{prefix}{tail}"), other] {
            prop_assert_eq!(holds(&written, &s), !s.starts_with(&prefix), "{:?} on {:?}", written, s);
        }
    }

    #[test]
    fn round_trips_every_scalar_type(p in {
        let scalar: Vec<DataField> = fields()
            .into_iter()
            .filter(|f| !matches!(
                f.data_type.kind,
                TypeKind::Binary { .. } | TypeKind::VarBinary { .. } | TypeKind::Array(_)
                    | TypeKind::Map { .. } | TypeKind::Row(_)
            ))
            .collect();
        arb_leaf(scalar).prop_recursive(3, 16, 4, |inner| prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Predicate::And),
            proptest::collection::vec(inner, 0..4).prop_map(Predicate::Or),
            Just(Predicate::AlwaysTrue),
            Just(Predicate::AlwaysFalse),
        ])
    }) {
        let fields = fields();
        let json = predicate_to_json(&p, &fields).unwrap();
        prop_assert_eq!(predicate_from_json_all_types(&json).unwrap(), p.clone());
        // A double NOT is no NOT at all.
        let not_not = Predicate::Not(Box::new(Predicate::Not(Box::new(p))));
        prop_assert_eq!(predicate_to_json(&not_not, &fields).unwrap(), json);
    }
}
