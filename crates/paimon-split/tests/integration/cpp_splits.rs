//! Every Java-serialized split shipped with the paimon-cpp tables decodes and re-encodes at its
//! own version byte for byte.

use std::path::{Path, PathBuf};

use paimon_split::{decode_any, encode_decoded};

use crate::common::testdata;

fn split_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            split_files(&p, out);
        } else if p
            .parent()
            .and_then(|d| d.file_name())
            .is_some_and(|n| n == "data_splits" || n == "data-splits")
        {
            out.push(p);
        }
    }
}

#[test]
fn paimon_cpp_splits_decode_and_reencode() {
    let mut files = Vec::new();
    split_files(&testdata("paimon-cpp"), &mut files);
    files.sort();
    assert!(files.len() >= 40, "found only {} split files", files.len());
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let d = decode_any(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let again = encode_decoded(&d.split, d.envelope, d.version.unwrap_or(9)).unwrap();
        assert_eq!(again, bytes, "{} (v{:?})", f.display(), d.version);
        let s = d.split.data_split().unwrap();
        assert!(!s.bucket_path.is_empty(), "{}", f.display());
        assert!(!s.data_files.is_empty(), "{}", f.display());
    }
}
