//! The DLF token reader (paimon-meta `catalog::rest::dlf`: a `dlf.token-path` file another
//! process writes, the ECS metadata service's answer) on arbitrary UTF-8: no panic, every
//! refusal an error saying why, and a token read has an access key id (`fuzz_check_token`,
//! which paimon-meta's tests also run over the committed inputs).
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_meta::catalog::rest::fuzz_check_token;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = fuzz_check_token(data) {
        panic!("{e}");
    }
});
