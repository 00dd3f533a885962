//! The commit-message decoders on arbitrary bytes: `decode_manifest_committable` at committable
//! versions 2..=5 (with Paimon 0.7's fallback at message version 2), `decode_commit_message_list`
//! and `decode_commit_message` at message versions 2..=14 and `decode_versioned_commit_message`
//! (the input names its version). Java's bytes carry no version, so every version is tried on
//! every input; then:
//!
//! * no panic, and every refusal a typed error;
//! * whatever decodes re-encodes at its own version, decodes again to an equal value and
//!   re-encodes to the same bytes (not always the input's: Java's readers take any non-zero
//!   byte as true and merge repeated deletion-vector file names and property keys);
//! * every decoded message is also encoded at each version 2..=14, which may refuse what a
//!   version cannot carry but must not panic;
//! * with the `meta` feature (as `scripts/fuzz.sh` builds), every decoded message is checked
//!   by the committer's path validation (`paimon_meta::commit::check_message_paths`) against a
//!   fixed table root with one external root: no panic, and a refusal is `PathNotAllowed`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paimon_split::commit::{
    decode_commit_message, decode_commit_message_list, decode_manifest_committable,
    decode_versioned_commit_message, encode_commit_message, encode_commit_message_list,
    encode_manifest_committable, encode_versioned_commit_message, CommitMessage,
    NEWEST_COMMIT_MESSAGE_VERSION, OLDEST_COMMIT_MESSAGE_VERSION,
};

const VERSIONS: std::ops::RangeInclusive<i32> =
    OLDEST_COMMIT_MESSAGE_VERSION..=NEWEST_COMMIT_MESSAGE_VERSION;

fn every_version(m: &CommitMessage) {
    for v in VERSIONS {
        let _ = encode_commit_message(m, v);
    }
}

/// The committer's path validation over decoded messages (issue 39).
#[cfg(feature = "meta")]
fn validate(messages: &[CommitMessage]) {
    let roots = paimon_spec::layout::TableRoots::new("/warehouse/db.db/t")
        .with_external(&["s3://bucket/external"]);
    if let Err(e) = paimon_meta::commit::check_message_paths(&roots, messages) {
        assert!(
            matches!(e, paimon_spec::Error::PathNotAllowed { .. }),
            "path validation failed with {e:?}"
        );
    }
}

#[cfg(not(feature = "meta"))]
fn validate(_: &[CommitMessage]) {}

fn check_list(messages: &[CommitMessage], v: i32) {
    validate(messages);
    let once = encode_commit_message_list(messages, v).expect("decoded messages re-encode");
    let again = decode_commit_message_list(&once, v).expect("re-encoded messages decode");
    assert_eq!(again, messages, "list v{v} changed in a round trip");
    assert_eq!(encode_commit_message_list(&again, v).unwrap(), once);
    messages.iter().for_each(every_version);
}

fuzz_target!(|data: &[u8]| {
    for v in 2..=5 {
        if let Ok(c) = decode_manifest_committable(data, v) {
            let once = encode_manifest_committable(&c, v).expect("decoded committable re-encodes");
            let again =
                decode_manifest_committable(&once, v).expect("re-encoded committable decodes");
            assert_eq!(again, c, "committable v{v} changed in a round trip");
            assert_eq!(encode_manifest_committable(&again, v).unwrap(), once);
            validate(&c.messages);
            c.messages.iter().for_each(every_version);
        }
    }
    for v in VERSIONS {
        if let Ok(list) = decode_commit_message_list(data, v) {
            check_list(&list, v);
        }
        if let Ok(m) = decode_commit_message(data, v) {
            check_list(std::slice::from_ref(&m), v);
        }
    }
    if let Ok((m, v)) = decode_versioned_commit_message(data) {
        let once = encode_versioned_commit_message(&m, v).expect("decoded message re-encodes");
        assert_eq!(
            decode_versioned_commit_message(&once).unwrap(),
            (m.clone(), v)
        );
        validate(std::slice::from_ref(&m));
        every_version(&m);
    }
});
