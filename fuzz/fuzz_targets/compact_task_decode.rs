//! `decode_compact_task` (a compaction task a planner hands a worker in another process) on
//! arbitrary bytes: no panic, every refusal a typed error, and whatever decodes re-encodes to
//! bytes that decode to an equal task and re-encode to the same bytes; every path field of a
//! decoded task (bucket directory, file names, `_EXTERNAL_PATH`, deletion and index files)
//! goes through the path rule of issue 39 (`paimon_fuzz::judge_task_paths`): no panic, a
//! refusal is `PathNotAllowed` naming the field. Seeds `paths-*` name `../`, absolute,
//! other-scheme and other-bucket paths.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_split::{decode_compact_task, encode_compact_task};

fuzz_target!(|data: &[u8]| {
    if let Ok(task) = decode_compact_task(data) {
        paimon_fuzz::judge_task_paths(&task);
        let once = encode_compact_task(&task).expect("a decoded task re-encodes");
        let again = decode_compact_task(&once).expect("a re-encoded task decodes");
        assert_eq!(again, task, "a task changed in a round trip");
        assert_eq!(encode_compact_task(&again).unwrap(), once);
    }
});
