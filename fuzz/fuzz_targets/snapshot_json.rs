//! `Snapshot::from_json_str` on arbitrary UTF-8: never a panic, and errors name the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_fuzz::check_error_names;
use paimon_meta::Snapshot;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = "t/snapshot/snapshot-7";
    check_error_names(&Snapshot::from_json_str(path, text), path);
});
