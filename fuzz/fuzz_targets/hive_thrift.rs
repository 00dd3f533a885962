//! The Hive Metastore client's Thrift reader (paimon-meta `catalog::hive`, a metastore's
//! reply over the network) on arbitrary bytes: no panic, every refusal an error, a decoded
//! message read again as the reply to the call it names (exceptions classified, strings,
//! parameters and name lists read as the catalog reads them), and what was decoded, written
//! back, is at most as long as the input, decodes again and writes back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_meta::catalog::hive::fuzzing::decode_message;

fuzz_target!(|data: &[u8]| {
    let Ok(once) = decode_message(data) else {
        return;
    };
    assert!(
        once.len() <= data.len(),
        "{} bytes written from {}",
        once.len(),
        data.len()
    );
    let again = decode_message(&once).expect("a written-back message decodes");
    assert_eq!(again, once, "a message changed in a round trip");
});
