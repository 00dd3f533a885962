//! `BinaryArray::new(..).to_datums(elem)` and `BinaryMap::new(..).to_pairs(key, value)` on
//! arbitrary bytes, then round trips through `encode_array` / `encode_map`: decoded values must
//! encode, decode back to the same values (floats by bits) and re-encode to the same bytes.
//!
//! Input: `[element/key selector][value selector][bytes]`, selectors mod the menu in
//! `paimon_fuzz::element_type_menu` (which includes the 1-, 2- and 4-byte slot widths).
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_fuzz::{datum_eq, datums_eq, element_type_menu};
use paimon_spec::binary::{encode_array, encode_map, BinaryArray, BinaryMap};

fuzz_target!(|data: &[u8]| {
    let [a, b, bytes @ ..] = data else {
        return;
    };
    let menu = element_type_menu();
    let elem = &menu[usize::from(*a) % menu.len()];
    let value = &menu[usize::from(*b) % menu.len()];

    if let Ok(arr) = BinaryArray::new(bytes) {
        for i in 0..arr.len().min(64) {
            let _ = arr.is_null_at(i);
        }
        let _ = arr.to_strings();
        let _ = arr.to_longs();
        if let Ok(values) = arr.to_datums(elem) {
            let enc = match encode_array(&values, elem) {
                Ok(e) => e,
                Err(e) => panic!("decoded array does not re-encode: {e}\n{values:?}"),
            };
            let back = BinaryArray::new(&enc)
                .and_then(|a| a.to_datums(elem))
                .unwrap_or_else(|e| panic!("re-encoded array does not decode: {e}\n{values:?}"));
            assert!(
                datums_eq(&values, &back),
                "array round trip changed the values:\n{values:?}\n{back:?}"
            );
            let enc2 = encode_array(&back, elem).expect("second encode");
            assert_eq!(enc, enc2, "array encoding is not stable");
        }
    }

    if let Ok(map) = BinaryMap::new(bytes) {
        let _ = map.keys().len();
        if let Ok(pairs) = map.to_pairs(elem, value) {
            let enc = match encode_map(&pairs, elem, value) {
                Ok(e) => e,
                Err(e) => panic!("decoded map does not re-encode: {e}\n{pairs:?}"),
            };
            let back = BinaryMap::new(&enc)
                .and_then(|m| m.to_pairs(elem, value))
                .unwrap_or_else(|e| panic!("re-encoded map does not decode: {e}\n{pairs:?}"));
            assert!(
                pairs.len() == back.len()
                    && pairs
                        .iter()
                        .zip(&back)
                        .all(|((k1, v1), (k2, v2))| datum_eq(k1, k2) && datum_eq(v1, v2)),
                "map round trip changed the entries:\n{pairs:?}\n{back:?}"
            );
            let enc2 = encode_map(&back, elem, value).expect("second encode");
            assert_eq!(enc, enc2, "map encoding is not stable");
        }
    }
});
