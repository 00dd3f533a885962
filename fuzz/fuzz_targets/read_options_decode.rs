//! `decode_read_options` (the read options a planner hands workers in other processes beside
//! the split bytes: Flight tickets, `paimon read-split --read-options`, Python's
//! `SplitReader(read_options=...)`) on arbitrary bytes: no panic, every refusal a typed error,
//! and whatever decodes keeps the layout's limits (a plain branch name, a batch size in range,
//! a bounded projection) and, without its filter, re-encodes to bytes that decode to the same
//! options and re-encode to the same bytes. (Encoding a filter needs the schema's fields,
//! which the bytes do not carry; the filter's own decoder is `predicate_json`'s.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_split::read_options::{MAX_BATCH_SIZE, MAX_PROJECTED_COLUMNS};
use paimon_split::{decode_read_options, encode_read_options};

fuzz_target!(|data: &[u8]| {
    let Ok(mut options) = decode_read_options(data) else {
        return;
    };
    if let Some(b) = &options.branch {
        paimon_spec::layout::check_file_name("branch", &format!("branch-{b}"))
            .expect("a decoded branch is a plain name");
    }
    if let Some(n) = options.batch_size {
        assert!((1..=MAX_BATCH_SIZE).contains(&n), "batch size {n} out of range");
    }
    if let Some(p) = &options.projection {
        assert!(p.len() <= MAX_PROJECTED_COLUMNS, "{} columns", p.len());
    }
    options.filter = None;
    let once = encode_read_options(&options, &[]).expect("decoded options re-encode");
    let again = decode_read_options(&once).expect("re-encoded options decode");
    assert_eq!(again, options, "options changed in a round trip");
    assert_eq!(encode_read_options(&again, &[]).unwrap(), once);
});
