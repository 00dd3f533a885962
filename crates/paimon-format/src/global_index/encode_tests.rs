//! The encoders against pypaimon 2.1's files in `fixtures/global-index` (decode theirs, encode
//! the same rows, compare every byte) and round trips through the decoders.

use super::tests::fixture;
use super::*;
use paimon_spec::binary::Datum;
use paimon_spec::types::TypeKind;
use proptest::prelude::*;
use roaring::RoaringTreemap;
use std::collections::BTreeMap;

/// The rows a decoded index holds, as `(key, local row id)`, in row id order.
fn rows_of(idx: &SortedIndex) -> Vec<IndexRow> {
    let mut rows: Vec<IndexRow> = idx.nulls().iter().map(|r| (Datum::Null, r)).collect();
    for (k, rs) in idx.entries() {
        rows.extend(rs.iter().map(|r| (k.clone(), r)));
    }
    rows.sort_by_key(|r| r.1);
    rows
}

#[test]
fn btree_encodes_the_bytes_pypaimon_wrote() {
    let theirs = fixture("btree-");
    let ty = DataType::not_null(TypeKind::BigInt);
    let rows = rows_of(&decode_btree_index(&theirs, &ty).unwrap());
    assert_eq!(rows.len(), 200);
    let ours = encode_scalar_index(BTREE_INDEX, &rows, &ty, &IndexWriteOptions::default()).unwrap();
    assert_eq!(ours.bytes.len(), theirs.len());
    assert!(ours.bytes == theirs, "BTree bytes differ from pypaimon's");
    assert_eq!(ours.row_count, 200);
    let meta = SortedIndexFileMeta::decode(&ours.meta).unwrap();
    assert_eq!(meta.first_key, Some(0i64.to_le_bytes().to_vec()));
    assert_eq!(meta.last_key, Some(199i64.to_le_bytes().to_vec()));
    assert!(!meta.has_nulls);
}

#[test]
fn bitmap_encodes_the_bytes_pypaimon_wrote() {
    let theirs = fixture("bitmap-");
    let ty = DataType::string();
    let rows = rows_of(&decode_bitmap_index(&theirs, &ty).unwrap());
    assert_eq!(rows.len(), 200);
    let ours =
        encode_scalar_index(BITMAP_INDEX, &rows, &ty, &IndexWriteOptions::default()).unwrap();
    assert_eq!(ours.bytes.len(), theirs.len());
    assert!(ours.bytes == theirs, "bitmap bytes differ from pypaimon's");
    let meta = SortedIndexFileMeta::decode(&ours.meta).unwrap();
    assert_eq!(meta.first_key, Some(b"n0".to_vec()));
    assert_eq!(meta.last_key, Some(b"n6".to_vec()));
    assert!(meta.has_nulls);
}

#[test]
fn only_null_rows_encode_with_null_keys_in_the_meta() {
    let rows: Vec<IndexRow> = (0..5).map(|r| (Datum::Null, r)).collect();
    let ty = DataType::string();
    for kind in [BTREE_INDEX, BITMAP_INDEX] {
        let out = encode_scalar_index(kind, &rows, &ty, &IndexWriteOptions::default()).unwrap();
        let meta = SortedIndexFileMeta::decode(&out.meta).unwrap();
        assert_eq!(
            (meta.first_key, meta.last_key, meta.has_nulls),
            (None, None, true)
        );
        let idx = decode_scalar_index(kind, &out.bytes, &ty).unwrap();
        assert_eq!(idx.nulls(), &(0..5u64).collect::<RoaringTreemap>());
        assert_eq!(idx.entries().count(), 0);
    }
}

#[test]
fn a_key_of_another_type_is_a_typed_error() {
    let rows = vec![(Datum::String("x".into()), 0)];
    let err = encode_scalar_index(
        BTREE_INDEX,
        &rows,
        &DataType::not_null(TypeKind::Int),
        &IndexWriteOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("for key type"), "{err}");
}

fn key_strategy() -> impl Strategy<Value = (DataType, Vec<Option<Datum>>)> {
    prop_oneof![
        proptest::collection::vec(proptest::option::of(-50i64..50), 0..300).prop_map(|v| (
            DataType::nullable(TypeKind::BigInt),
            v.into_iter().map(|k| k.map(Datum::BigInt)).collect()
        )),
        proptest::collection::vec(proptest::option::of("[a-d]{0,3}"), 0..300).prop_map(|v| (
            DataType::string(),
            v.into_iter().map(|k| k.map(Datum::String)).collect()
        )),
        proptest::collection::vec(proptest::option::of(-99i64..99), 0..100).prop_map(|v| (
            DataType::nullable(TypeKind::Decimal {
                precision: 30,
                scale: 2
            }),
            v.into_iter()
                .map(|k| k.map(|u| Datum::Decimal {
                    unscaled: i128::from(u) * 1_000_000_007,
                    precision: 30,
                    scale: 2
                }))
                .collect()
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn encode_then_decode_gives_back_every_row(
        (ty, keys) in key_strategy(),
        small_blocks in any::<bool>(),
    ) {
        // Small blocks make many data and dictionary blocks.
        let options = if small_blocks {
            IndexWriteOptions { btree_block_size: 40, bitmap_dictionary_block_size: 24 }
        } else {
            IndexWriteOptions::default()
        };
        let rows: Vec<IndexRow> = keys
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k.unwrap_or(Datum::Null), i as u64 * 3))
            .collect();
        let mut expected: BTreeMap<Vec<u8>, RoaringTreemap> = BTreeMap::new();
        let mut nulls = RoaringTreemap::new();
        for (k, r) in &rows {
            if k.is_null() {
                nulls.insert(*r);
            } else {
                expected.entry(encode_key(k, &ty).unwrap()).or_default().insert(*r);
            }
        }
        for kind in [BTREE_INDEX, BITMAP_INDEX] {
            let out = encode_scalar_index(kind, &rows, &ty, &options).unwrap();
            prop_assert_eq!(out.row_count, rows.len() as i64);
            let idx = decode_scalar_index(kind, &out.bytes, &ty).unwrap();
            prop_assert_eq!(idx.nulls(), &nulls);
            let got: BTreeMap<Vec<u8>, RoaringTreemap> = idx
                .entries()
                .map(|(k, r)| (encode_key(k, &ty).unwrap(), r.clone()))
                .collect();
            prop_assert_eq!(&got, &expected);
        }
    }
}
