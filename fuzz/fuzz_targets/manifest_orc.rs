//! The manifest-family decoders of paimon-meta on ORC files (`manifest.format = orc`): the same
//! three decoders as `manifest_decode` (and `paimon_format::orc::tail::tail_len`), reached through paimon-meta's ORC reader, which hands the
//! bytes to orc-rust and maps Arrow cells to records. Inputs must start with the ORC magic.
//! Decoding must not panic or allocate without bound, and every error must name the file.
//!
//! paimon-meta catches orc-rust's panics and returns `Corrupt`; this target accepts panics caught
//! that way (see `run_allowing_caught_panics`) and fails on any that escape.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use paimon_fuzz::{check_error_names, run_allowing_caught_panics};
use paimon_meta::manifest::{IndexManifestEntry, ManifestEntry, ManifestFileMeta};

fuzz_target!(|data: &[u8]| {
    if !data.starts_with(b"ORC") {
        return;
    }
    // How much of the end an ORC reader needs, read from the postscript (the async read
    // fetches that much ahead of opening a data file).
    let _ = paimon_format::orc::tail::tail_len(data);
    let bytes = Bytes::copy_from_slice(data);
    run_allowing_caught_panics(|| {
        let path = "t/manifest/manifest-fuzz-0";
        check_error_names(&ManifestEntry::decode_manifest(path, bytes.clone()), path);
        let path = "t/manifest/manifest-list-fuzz-0";
        check_error_names(&ManifestFileMeta::decode_list(path, bytes.clone()), path);
        let path = "t/manifest/index-manifest-fuzz-0";
        check_error_names(
            &IndexManifestEntry::decode_index_manifest(path, bytes),
            path,
        );
    });
});
