//! Decoding the index files pypaimon 2.1 wrote into `fixtures/global-index` (rows described in
//! `scripts/gen-global-index-fixture.py`).

use super::*;
use paimon_spec::binary::Datum;
use paimon_spec::types::TypeKind;
use proptest::prelude::*;
use roaring::RoaringTreemap;
use std::ops::Bound;

pub(super) fn fixture(prefix: &str) -> Vec<u8> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/global-index/db.db/t/index"
    );
    let mut found = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
        .collect::<Vec<_>>();
    assert_eq!(found.len(), 1, "{prefix} files in {dir}");
    std::fs::read(found.pop().unwrap()).unwrap()
}

fn rows(it: impl IntoIterator<Item = u64>) -> RoaringTreemap {
    it.into_iter().collect()
}

fn name_of(n: u64) -> Option<String> {
    (!n.is_multiple_of(17)).then(|| format!("n{}", n % 7))
}

#[test]
fn btree_of_pypaimon_holds_every_row_under_its_key() {
    let idx =
        decode_btree_index(&fixture("btree-"), &DataType::not_null(TypeKind::BigInt)).unwrap();
    let entries: Vec<_> = idx.entries().map(|(k, r)| (k.clone(), r.clone())).collect();
    let expected: Vec<_> = (0..200u64)
        .map(|n| (Datum::BigInt(n as i64), rows([n])))
        .collect();
    assert_eq!(entries, expected);
    assert!(idx.nulls().is_empty());
    assert_eq!(idx.equal(&Datum::BigInt(42)), Some(rows([42])));
    assert_eq!(idx.equal(&Datum::BigInt(4200)), Some(RoaringTreemap::new()));
    assert_eq!(
        idx.range(
            Bound::Excluded(&Datum::BigInt(10)),
            Bound::Included(&Datum::BigInt(13))
        ),
        Some(rows(11..=13))
    );
    assert_eq!(
        idx.range(Bound::Included(&Datum::BigInt(195)), Bound::Unbounded),
        Some(rows(195..200))
    );
    // A literal of another type family cannot be answered.
    assert_eq!(idx.equal(&Datum::String("x".into())), None);
}

#[test]
fn bitmap_of_pypaimon_holds_every_row_under_its_key() {
    let idx = decode_bitmap_index(&fixture("bitmap-"), &DataType::string()).unwrap();
    let mut expected: Vec<(Datum, RoaringTreemap)> = (0..7)
        .map(|v| {
            let name = format!("n{v}");
            let r = rows((0..200u64).filter(|n| name_of(*n).as_deref() == Some(&name)));
            (Datum::String(name), r)
        })
        .collect();
    expected.sort_by(|a, b| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)));
    let entries: Vec<_> = idx.entries().map(|(k, r)| (k.clone(), r.clone())).collect();
    assert_eq!(entries, expected);
    assert_eq!(idx.nulls(), &rows((0..200u64).filter(|n| n % 17 == 0)));
    assert_eq!(idx.not_nulls(), rows((0..200u64).filter(|n| n % 17 != 0)));
    assert_eq!(
        idx.equal(&Datum::String("n3".into())),
        Some(rows((0..200u64).filter(|n| n % 7 == 3 && n % 17 != 0)))
    );
}

#[test]
fn a_flipped_byte_is_a_typed_error_never_a_panic() {
    for (prefix, ty) in [
        ("btree-", DataType::not_null(TypeKind::BigInt)),
        ("bitmap-", DataType::string()),
    ] {
        let good = fixture(prefix);
        // Bad magic, then a data/dictionary byte under a block CRC.
        let mut bad = good.clone();
        let last = bad.len() - 1;
        bad[last] ^= 0xff;
        let err = decode_scalar_index(prefix.trim_end_matches('-'), &bad, &ty).unwrap_err();
        assert!(err.to_string().contains("bad footer magic"), "{err}");
        let truncated = &good[..good.len() / 2];
        assert!(decode_scalar_index(prefix.trim_end_matches('-'), truncated, &ty).is_err());
    }
    // The btree's first data block starts at offset 0: flipping a key byte breaks its CRC.
    let mut bad = fixture("btree-");
    bad[1] ^= 0x01;
    let err = decode_btree_index(&bad, &DataType::not_null(TypeKind::BigInt)).unwrap_err();
    assert!(err.to_string().contains("CRC32"), "{err}");
    // Keys of another width than the column's type.
    let err =
        decode_btree_index(&fixture("btree-"), &DataType::not_null(TypeKind::Int)).unwrap_err();
    assert!(
        err.to_string()
            .contains("8 bytes where the key type takes 4"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn decoders_never_panic_on_mutated_files(seed in any::<u64>(), flips in 1usize..8, cut in 0usize..64) {
        for (kind, ty) in [("btree", DataType::not_null(TypeKind::BigInt)), ("bitmap", DataType::string())] {
            let mut bytes = fixture(&format!("{kind}-"));
            let mut s = seed;
            for _ in 0..flips {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let at = (s >> 33) as usize % bytes.len();
                bytes[at] ^= (s >> 8) as u8 | 1;
            }
            let keep = bytes.len().saturating_sub(cut);
            let _ = decode_scalar_index(kind, &bytes[..keep], &ty);
        }
    }

    #[test]
    fn decoders_never_panic_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = decode_btree_index(&bytes, &DataType::not_null(TypeKind::BigInt));
        let _ = decode_bitmap_index(&bytes, &DataType::string());
    }
}
