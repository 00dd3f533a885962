//! Manifest-family files from the Java-written fixture tables, with one file name patched.

use super::*;
use paimon_format::avro::{read_header, Cursor};

fn zz(v: i64, out: &mut Vec<u8>) {
    let mut u = ((v << 1) ^ (v >> 63)) as u64;
    while u >= 0x80 {
        out.push((u as u8) | 0x80);
        u >>= 7;
    }
    out.push(u as u8);
}

/// The files in `fixtures/warehouse/append.db/<table>/manifest/` named `prefix...`, by name.
fn fixtures(table: &str, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/warehouse/append.db")
        .join(table)
        .join("manifest");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| {
            n.starts_with(prefix) && !(prefix == "manifest-" && n.starts_with("manifest-list-"))
        })
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| {
            let path = dir.join(n);
            (path.display().to_string(), std::fs::read(path).unwrap())
        })
        .collect()
}

/// The first of [`fixtures`].
fn fixture(table: &str, prefix: &str) -> (String, Vec<u8>) {
    fixtures(table, prefix).swap_remove(0)
}

/// Rewrites a zstandard Avro container with the first occurrence of `from` in its records
/// replaced by `to` (same length, so the string's length prefix stays right).
fn patch(file: &[u8], from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut c = Cursor::new(file);
    let header = read_header(&mut c).unwrap();
    assert_eq!(header.codec, "zstandard");
    let mut out = file[..c.pos()].to_vec();
    let mut done = false;
    while c.remaining() > 0 {
        let count = c.read_long().unwrap();
        let data = c.read_bytes().unwrap();
        c.take(16).unwrap();
        let mut block = zstd::decode_all(data).unwrap();
        if !done {
            if let Some(i) = block.windows(from.len()).position(|w| w == from.as_bytes()) {
                block[i..i + from.len()].copy_from_slice(to.as_bytes());
                done = true;
            }
        }
        let z = zstd::encode_all(&block[..], 1).unwrap();
        zz(count, &mut out);
        zz(z.len() as i64, &mut out);
        out.extend(z);
        out.extend(header.sync);
    }
    assert!(done, "{from} not found");
    out
}

fn assert_bad_name(e: Error, path: &str, field: &str, name: &str) {
    match &e {
        Error::Corrupt { path: p, reason } => {
            assert_eq!(p, path);
            assert!(reason.contains(field), "{reason}");
            assert!(reason.contains(&format!("{name:?}")), "{reason}");
        }
        other => panic!("expected Corrupt, got {other}"),
    }
}

#[test]
fn unpatched_fixture_files_decode() {
    for (p, b) in fixtures("unaware", "manifest-list-") {
        ManifestFileMeta::decode_list(&p, b.into()).unwrap();
    }
    let (p, b) = fixture("unaware", "manifest-");
    assert!(!ManifestEntry::decode_manifest(&p, b.into())
        .unwrap()
        .is_empty());
    let (p, b) = fixture("dv_append", "index-manifest-");
    assert!(!IndexManifestEntry::decode_index_manifest(&p, b.into())
        .unwrap()
        .is_empty());
}

/// `name` with its first `to.len()` bytes replaced by `to` (same length).
fn with_prefix(name: &str, to: &str) -> String {
    format!("{to}{}", &name[to.len()..])
}

#[test]
fn manifest_list_rejects_a_path_as_manifest_name() {
    // A base list of the first snapshot is empty; take one that lists a manifest.
    let (p, b, metas) = fixtures("unaware", "manifest-list-")
        .into_iter()
        .map(|(p, b)| {
            let m = ManifestFileMeta::decode_list(&p, b.clone().into()).unwrap();
            (p, b, m)
        })
        .find(|(_, _, m)| !m.is_empty())
        .unwrap();
    let name = &metas[0].file_name;
    for to in ["../", "a/", "/", "x\\"] {
        let bad_name = with_prefix(name, to);
        let bad = patch(&b, name, &bad_name);
        let e = ManifestFileMeta::decode_list(&p, bad.into()).unwrap_err();
        assert_bad_name(e, &p, "_FILE_NAME", &bad_name);
    }
}

#[test]
fn manifest_rejects_a_path_as_data_file_name() {
    let (p, b) = fixture("unaware", "manifest-");
    let entries = ManifestEntry::decode_manifest(&p, b.clone().into()).unwrap();
    let name = &entries[0].file.file_name;
    let bad_name = with_prefix(name, "../");
    let bad = patch(&b, name, &bad_name);
    let e = ManifestEntry::decode_manifest(&p, bad.into()).unwrap_err();
    assert_bad_name(e, &p, "_FILE._FILE_NAME", &bad_name);
}

#[test]
fn manifest_rejects_a_path_as_extra_file_name() {
    let (p, b) = fixture("file_index_sidecar", "manifest-");
    let entries = ManifestEntry::decode_manifest(&p, b.clone().into()).unwrap();
    let extra = entries
        .iter()
        .flat_map(|e| &e.file.extra_files)
        .next()
        .expect("sidecar index files are listed as extra files");
    // `<data file>.index` becomes `<data file>/index`.
    let dot = extra.rfind('.').unwrap();
    let bad_name = format!("{}/{}", &extra[..dot], &extra[dot + 1..]);
    let bad = patch(&b, extra, &bad_name);
    let e = ManifestEntry::decode_manifest(&p, bad.into()).unwrap_err();
    assert_bad_name(e, &p, "_FILE._EXTRA_FILES", &bad_name);
}

#[test]
fn index_manifest_rejects_a_path_as_index_file_name() {
    let (p, b) = fixture("dv_append", "index-manifest-");
    let entries = IndexManifestEntry::decode_index_manifest(&p, b.clone().into()).unwrap();
    let name = &entries[0].index_file.file_name;
    let bad_name = with_prefix(name, "../");
    let bad = patch(&b, name, &bad_name);
    let e = IndexManifestEntry::decode_index_manifest(&p, bad.into()).unwrap_err();
    assert_bad_name(e, &p, "_FILE_NAME", &bad_name);
}

/// A damaged Parquet manifest is `Corrupt`, naming the file, wherever it is cut.
#[test]
fn damaged_parquet_is_corrupt_naming_the_file() {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;

    let batch = RecordBatch::try_from_iter([
        (
            "_FILE_NAME",
            Arc::new(StringArray::from(vec!["a", "b"])) as ArrayRef,
        ),
        (
            "_FILE_SIZE",
            Arc::new(Int64Array::from(vec![Some(7), None])) as ArrayRef,
        ),
    ])
    .unwrap();
    let mut bytes = Vec::new();
    let mut w = ArrowWriter::try_new(&mut bytes, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    assert_eq!(
        decode_records("dir/manifest-x", bytes.clone().into())
            .unwrap()
            .len(),
        2
    );
    for cut in [bytes.len() / 2, bytes.len() - 1, 4] {
        let err = decode_records("dir/manifest-x", bytes[..cut].to_vec().into()).unwrap_err();
        assert!(
            matches!(&err, Error::Corrupt { path, .. } if path == "dir/manifest-x"),
            "{err}"
        );
    }
}
