//! `decode_write_context` (a write context a planner hands write workers in other processes:
//! `paimon write-context`, `paimon write --context`) on arbitrary bytes: no panic, every
//! refusal a typed error, and whatever decodes passes the path rule, re-encodes to bytes that
//! decode to an equal context and re-encode to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_split::{decode_write_context, encode_write_context};

fuzz_target!(|data: &[u8]| {
    if let Ok(ctx) = decode_write_context(data) {
        ctx.check_paths().expect("a decoded context passed the path rule");
        let once = encode_write_context(&ctx).expect("a decoded context re-encodes");
        let again = decode_write_context(&once).expect("a re-encoded context decodes");
        assert_eq!(again, ctx, "a context changed in a round trip");
        assert_eq!(encode_write_context(&again).unwrap(), once);
    }
});
