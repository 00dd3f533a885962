//! `decode_hash_index(path, bytes)` (paimon-spec): a dynamic-bucket table's hash index file,
//! read whole by a writer before it assigns buckets. Decoding never panics, an error names the
//! file, and what decodes encodes back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_fuzz::check_error_names;
use paimon_spec::hash_index::{decode_hash_index, encode_hash_index};

fuzz_target!(|data: &[u8]| {
    let path = "t/index/index-fuzz-0";
    match decode_hash_index(path, data) {
        Ok(hashes) => assert_eq!(encode_hash_index(hashes), data),
        err => check_error_names(&err, path),
    }
});
