//! `CoreOptions::try_new` on fuzz-built option maps: it must never panic, and a malformed known
//! option must be an error naming that option. The derived accessors and `parse_memory_size` run
//! on whatever parses.
//!
//! Input: records `[selector][len][len bytes]`. A selector below the number of known keys picks
//! that key and the bytes are its value; any other selector reads the bytes as `key=value`.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use paimon_spec::options::{parse_memory_size, CoreOptions};
use paimon_spec::Error;

/// Keys `CoreOptions::try_new` reads, plus per-field keys the accessors scan for.
const KNOWN_KEYS: &[&str] = &[
    "bucket",
    "bucket-key",
    "file.format",
    "manifest.format",
    "merge-engine",
    "ignore-delete",
    "first-row.ignore-delete",
    "partial-update.ignore-delete",
    "deduplicate.ignore-delete",
    "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group",
    "sequence.field",
    "sequence.field.sort-order",
    "deletion-vectors.enabled",
    "deletion-vectors.bitmap64",
    "deletion-vectors.merge-on-read",
    "changelog-producer",
    "data-evolution.enabled",
    "row-tracking.enabled",
    "partition.default-name",
    "partition.legacy-name",
    "source.split.target-size",
    "source.split.open-file-cost",
    "fields.default-aggregate-function",
    "data-file.external-paths",
    "data-file.path-directory",
    "index-file-in-data-file-dir",
    "scan.fallback-branch",
    "fields.a.aggregate-function",
    "fields.a,b.sequence-group",
    "fields.a.ignore-retract",
];

fuzz_target!(|data: &[u8]| {
    let mut raw = BTreeMap::new();
    let mut rest = data;
    while let [sel, len, tail @ ..] = rest {
        let n = usize::from(*len).min(tail.len());
        let (body, next) = tail.split_at(n);
        rest = next;
        let body = String::from_utf8_lossy(body).into_owned();
        match KNOWN_KEYS.get(usize::from(*sel)) {
            Some(key) => {
                raw.insert((*key).to_string(), body);
            }
            None => {
                let (k, v) = body.split_once('=').unwrap_or((body.as_str(), ""));
                raw.insert(k.to_string(), v.to_string());
            }
        }
    }
    for v in raw.values() {
        let _ = parse_memory_size(v);
    }
    match CoreOptions::try_new(&raw) {
        Ok(o) => {
            let _ = o.aggregate_functions();
            let _ = o.sequence_groups();
            let _ = o.batch_scan_skip_level0();
            let _ = o.field_option("a", "aggregate-function");
        }
        Err(Error::InvalidOption { key, .. }) => {
            assert!(
                raw.contains_key(&key),
                "error names option '{key}' that was not set"
            );
        }
        Err(e) => panic!("CoreOptions::try_new failed without naming an option: {e}"),
    }
});
