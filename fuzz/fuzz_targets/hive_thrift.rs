//! The Hive Metastore client's Thrift reader (paimon-meta `catalog::hive`, a metastore's
//! reply over the network) on arbitrary bytes: no panic, every refusal an error, a decoded
//! message read again as the reply to the call it names (exceptions classified, strings,
//! parameters and name lists read as the catalog reads them), and what was decoded, written
//! back, is at most as long as the input, decodes again and writes back to the same bytes
//! (`fuzzing::check`, which paimon-meta's tests also run over the committed inputs).
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_meta::catalog::hive::fuzzing::check;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = check(data) {
        panic!("{e}");
    }
});
