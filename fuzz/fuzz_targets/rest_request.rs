//! `paimon serve`'s REST catalog server (paimon-serve `rest::answer`: the path segments and
//! query decoded, page tokens, `LIKE` patterns, JSON bodies of create/alter/commit/rollback/
//! tag/branch requests) on arbitrary requests against a fresh filesystem warehouse holding
//! database `db` with a primary-key table `t`, made under `$FUZZ_TABLE_DIR` (else the
//! temporary directory). Input: `[method][path?query]\n[body]` (the method byte modulo 4
//! picks GET, POST, DELETE, PUT; the path follows `/v1/`). No panic, every refusal an HTTP
//! error status, and nothing written beside the warehouse
//! (`paimon_serve::fuzzing::check_rest_request`, which paimon-serve's tests also run over the
//! committed inputs).
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use paimon_serve::fuzzing::check_rest_request;

fuzz_target!(|data: &[u8]| {
    let base = std::env::var_os("FUZZ_TABLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    if let Err(e) = check_rest_request(&base, data) {
        panic!("{e}");
    }
});
