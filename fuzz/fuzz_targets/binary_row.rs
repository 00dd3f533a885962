//! `BinaryRow::new(bytes, arity).to_datums(types)` on arbitrary bytes and a fuzz-chosen schema,
//! then a round trip: decoded values must encode (`encode_row`), decode back to the same values
//! (floats by bits), and re-encode to the same bytes.
//!
//! Input: `[arity][one type selector byte per field][row bytes]`; arity is taken mod 33 and each
//! selector mod the 12-type menu in `paimon_fuzz::row_type_menu`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_fuzz::{datums_eq, row_type_menu};
use paimon_spec::binary::{encode_row, BinaryRow, RowKind};

fuzz_target!(|data: &[u8]| {
    let Some((&arity, rest)) = data.split_first() else {
        return;
    };
    let arity = usize::from(arity % 33);
    if rest.len() < arity {
        return;
    }
    let (selectors, bytes) = rest.split_at(arity);
    let menu = row_type_menu();
    let types: Vec<_> = selectors
        .iter()
        .map(|s| menu[usize::from(*s) % menu.len()].clone())
        .collect();

    let Ok(row) = BinaryRow::new(bytes, arity) else {
        return;
    };
    let _ = row.row_kind();
    let _ = row.hash_code();
    let Ok(values) = row.to_datums(&types) else {
        return;
    };
    let encoded = match encode_row(RowKind::Insert, &values, &types) {
        Ok(b) => b,
        Err(e) => panic!("decoded values do not re-encode: {e}\n{values:?}"),
    };
    let row2 = BinaryRow::new(&encoded, arity).expect("re-encoded row has its fixed part");
    let values2 = match row2.to_datums(&types) {
        Ok(v) => v,
        Err(e) => panic!("re-encoded row does not decode: {e}\n{values:?}"),
    };
    assert!(
        datums_eq(&values, &values2),
        "round trip changed the values:\n{values:?}\n{values2:?}"
    );
    let encoded2 = encode_row(RowKind::Insert, &values2, &types).expect("second encode");
    assert_eq!(encoded, encoded2, "encoding is not stable");
});
