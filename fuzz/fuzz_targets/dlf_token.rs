//! The DLF token reader (paimon-meta `catalog::rest::dlf`: a `dlf.token-path` file another
//! process writes, the ECS metadata service's answer) on arbitrary UTF-8: no panic, every
//! refusal an error saying why, and a token read has an access key id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_meta::catalog::rest::dlf::fuzz_token_json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match fuzz_token_json(text) {
        Ok((id, _)) => assert!(!id.is_empty(), "a token without an access key id"),
        Err(why) => assert!(!why.is_empty(), "an error without a reason"),
    }
});
