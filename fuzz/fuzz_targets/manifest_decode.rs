//! The manifest-family decoders of paimon-meta on arbitrary bytes in Avro containers: data
//! manifests (`ManifestEntry::decode_manifest`), manifest lists (`ManifestFileMeta::decode_list`)
//! and index manifests (`IndexManifestEntry::decode_index_manifest`), through paimon-meta's own
//! Avro reader (null, deflate, snappy and zstandard codecs) and its by-name field mapping.
//! Decoding must not panic or allocate without bound, and every error must name the file.
//!
//! Inputs starting with the ORC magic are left to `manifest_orc`, which fuzzes the ORC path
//! (orc-rust) on its own so that a crash there does not stop this target.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use paimon_fuzz::check_error_names;
use paimon_meta::manifest::{IndexManifestEntry, ManifestEntry, ManifestFileMeta};

fuzz_target!(|data: &[u8]| {
    if data.starts_with(b"ORC") {
        return;
    }
    let bytes = Bytes::copy_from_slice(data);

    let path = "t/manifest/manifest-fuzz-0";
    let r = ManifestEntry::decode_manifest(path, bytes.clone());
    check_error_names(&r, path);
    if let Ok(entries) = r {
        for e in &entries {
            let _ = e.identifier();
            let _ = e.file.key_stats.min_row().map(|r| r.hash_code());
            let _ = e.file.value_stats.max_row().map(|r| r.arity());
        }
    }

    let path = "t/manifest/manifest-list-fuzz-0";
    let r = ManifestFileMeta::decode_list(path, bytes.clone());
    check_error_names(&r, path);

    let path = "t/manifest/index-manifest-fuzz-0";
    let r = IndexManifestEntry::decode_index_manifest(path, bytes);
    check_error_names(&r, path);
});
