//! Every Avro manifest-family file Java 1.4.2 wrote in `fixtures/warehouse`: decode, re-encode
//! (as Avro, Parquet and ORC), decode again and compare all values; our Avro header schema
//! equals Java's byte for byte. (Java reading our Parquet and ORC manifests is checked by the
//! acceptance test `parquet_and_orc_manifests_are_written_and_java_takes_turns_on_them`.)

use super::encode::*;
use super::*;

/// The raw `avro.schema` JSON of a container's header.
fn header_schema(bytes: &[u8]) -> String {
    let key = b"avro.schema";
    let at = bytes.windows(key.len()).position(|w| w == key).unwrap() + key.len();
    let (mut len, mut shift, mut i) = (0u64, 0, at);
    loop {
        let b = bytes[i];
        len |= u64::from(b & 0x7F) << shift;
        shift += 7;
        i += 1;
        if b < 0x80 {
            break;
        }
    }
    let len = (len >> 1) as usize;
    String::from_utf8(bytes[i..i + len].to_vec()).unwrap()
}

fn files() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/warehouse");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.parent().is_some_and(|d| d.ends_with("manifest")) {
                let b = std::fs::read(&p).unwrap();
                if b.starts_with(paimon_format::avro::MAGIC) {
                    out.push((p.display().to_string(), b));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn java_manifests_round_trip_with_javas_schema() {
    let w = ManifestWriteOptions::try_new("avro", "zstd").unwrap();
    let pq = ManifestWriteOptions::try_new("parquet", "zstd").unwrap();
    let orc = ManifestWriteOptions::try_new("orc", "zstd").unwrap();
    let parquet = |out: Vec<u8>| {
        assert!(out.starts_with(b"PAR1"));
        bytes::Bytes::from(out)
    };
    let orc_bytes = |out: Vec<u8>| {
        assert!(out.starts_with(b"ORC"));
        bytes::Bytes::from(out)
    };
    let (mut entries, mut lists, mut indexes) = (0, 0, 0);
    for (path, bytes) in files() {
        let name = paimon_io::file_name(&path).to_string();
        let java_schema = header_schema(&bytes);
        let b = bytes::Bytes::from(bytes);
        let (ours, schema) = if name.starts_with("manifest-list-") {
            let a = ManifestFileMeta::decode_list(&path, b).unwrap();
            let out = w.manifest_list(&path, &a).unwrap();
            assert_eq!(
                ManifestFileMeta::decode_list(&path, out.clone().into()).unwrap(),
                a,
                "{path}"
            );
            let out_pq = parquet(pq.manifest_list(&path, &a).unwrap());
            assert_eq!(
                ManifestFileMeta::decode_list(&path, out_pq).unwrap(),
                a,
                "{path}"
            );
            let out_orc = orc_bytes(orc.manifest_list(&path, &a).unwrap());
            assert_eq!(
                ManifestFileMeta::decode_list(&path, out_orc).unwrap(),
                a,
                "{path}"
            );
            lists += 1;
            (out, manifest_file_meta_type().schema_json())
        } else if name.starts_with("index-manifest-") {
            let a = IndexManifestEntry::decode_index_manifest(&path, b).unwrap();
            let out = w.index_manifest(&path, &a).unwrap();
            assert_eq!(
                IndexManifestEntry::decode_index_manifest(&path, out.clone().into()).unwrap(),
                a,
                "{path}"
            );
            let out_pq = parquet(pq.index_manifest(&path, &a).unwrap());
            let back = IndexManifestEntry::decode_index_manifest(&path, out_pq).unwrap();
            assert_eq!(back, a, "{path}");
            let out_orc = orc_bytes(orc.index_manifest(&path, &a).unwrap());
            let back = IndexManifestEntry::decode_index_manifest(&path, out_orc).unwrap();
            assert_eq!(back, a, "{path}");
            indexes += 1;
            (out, index_manifest_entry_type().schema_json())
        } else {
            let a = ManifestEntry::decode_manifest(&path, b).unwrap();
            let out = w.manifest(&path, &a).unwrap();
            assert_eq!(
                ManifestEntry::decode_manifest(&path, out.clone().into()).unwrap(),
                a,
                "{path}"
            );
            let out_pq = parquet(pq.manifest(&path, &a).unwrap());
            assert_eq!(
                ManifestEntry::decode_manifest(&path, out_pq).unwrap(),
                a,
                "{path}"
            );
            let out_orc = orc_bytes(orc.manifest(&path, &a).unwrap());
            assert_eq!(
                ManifestEntry::decode_manifest(&path, out_orc).unwrap(),
                a,
                "{path}"
            );
            entries += 1;
            (out, manifest_entry_type().schema_json())
        };
        assert_eq!(schema, java_schema, "{path}");
        assert_eq!(header_schema(&ours), java_schema, "{path}");
        assert!(ours.windows(9).any(|w| w == b"zstandard"), "{path}");
    }
    assert!(
        entries > 100 && lists > 100 && indexes > 5,
        "{entries} {lists} {indexes}"
    );
}

#[test]
fn avro_parquet_and_orc_manifests_are_written_other_formats_are_refused() {
    assert!(ManifestWriteOptions::try_new("json", "zstd").is_err());
    assert!(ManifestWriteOptions::try_new("orc", "brotli").is_err());
    ManifestWriteOptions::try_new("ORC", "zlib").unwrap();
    assert!(ManifestWriteOptions::try_new("avro", "brotli").is_err());
    assert!(ManifestWriteOptions::try_new("parquet", "brotli").is_err());
    ManifestWriteOptions::try_new("AVRO", "none").unwrap();
    ManifestWriteOptions::try_new("Parquet", "snappy").unwrap();
}

/// The index manifests of `fixtures/global-index` (pypaimon 2.1): their `_GLOBAL_INDEX` survives
/// a rewrite (a commit rewriting the index manifest must not drop the table's global indexes).
#[test]
fn global_index_entries_round_trip() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/global-index/db.db/t/manifest");
    let w = ManifestWriteOptions::try_new("avro", "zstd").unwrap();
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if !path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("index-manifest-")
        {
            continue;
        }
        let path = path.to_str().unwrap().to_string();
        let bytes = bytes::Bytes::from(std::fs::read(&path).unwrap());
        let a = IndexManifestEntry::decode_index_manifest(&path, bytes).unwrap();
        assert!(
            a.iter().all(|e| e.index_file.global_index.is_some()),
            "{path}"
        );
        let out = w.index_manifest(&path, &a).unwrap();
        let back = IndexManifestEntry::decode_index_manifest(&path, out.into()).unwrap();
        assert_eq!(back, a, "{path}");
        seen += a.len();
    }
    // Two index manifests: the BTree build's (one entry), then the bitmap build's (both).
    assert_eq!(seen, 3);
}
