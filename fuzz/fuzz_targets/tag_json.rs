//! `Tag::from_json_str` (a tag file: snapshot JSON plus `tagCreateTime` and
//! `tagTimeRetained`) on arbitrary UTF-8: never a panic, and errors name the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_fuzz::check_error_names;
use paimon_meta::schema_manager::Tag;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = "t/tag/tag-1";
    check_error_names(&Tag::from_json_str(path, text), path);
});
