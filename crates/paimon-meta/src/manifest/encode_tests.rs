//! Every Avro manifest-family file Java 1.4.2 wrote in `fixtures/warehouse`: decode, re-encode
//! (as Avro, Parquet and ORC), decode again and compare all values; our Avro header schema
//! equals Java's byte for byte. (Java reading our Parquet and ORC manifests is checked by the
//! acceptance test `parquet_and_orc_manifests_are_written_and_java_takes_turns_on_them`.)

use super::encode::*;
use super::*;
use paimon_spec::index_file::GlobalIndexMeta;

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

/// Field names of the record type in an Avro header schema, nested records flattened in order
/// (`_GLOBAL_INDEX._SOURCE_META` and so on).
fn field_paths(schema: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Array(alts) => alts.iter().for_each(|a| walk(a, prefix, out)),
            serde_json::Value::Object(o) => {
                if let Some(serde_json::Value::Array(fields)) = o.get("fields") {
                    for f in fields {
                        let name = f["name"].as_str().unwrap();
                        let path = format!("{prefix}{name}");
                        out.push(path.clone());
                        walk(&f["type"], &format!("{path}."), out);
                    }
                } else if let Some(items) = o.get("items") {
                    walk(items, prefix, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&serde_json::from_str(schema).unwrap(), "", &mut out);
    out
}

/// A manifest list of paimon-rust 0.4 (`fixtures/manifest-sidecar`, written with manifest
/// sidecars on) keeps its two 2.x fields when we write it again: the same field list as
/// paimon-rust's header, and the same values. A list of only our manifests keeps Java 1.4's
/// schema.
#[test]
fn manifest_lists_keep_total_buckets_and_extra_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/manifest-sidecar/db.db/t/manifest");
    let w = ManifestWriteOptions::try_new("avro", "zstd").unwrap();
    let mut with_sidecars = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.starts_with("manifest-list-") {
            continue;
        }
        let path = path.to_str().unwrap().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let theirs = field_paths(&header_schema(&bytes));
        assert!(theirs.ends_with(&["_TOTAL_BUCKETS".into(), "_EXTRA_FILES".into()]));
        let a = ManifestFileMeta::decode_list(&path, bytes.into()).unwrap();
        with_sidecars += a.iter().filter(|m| m.extra_files.is_some()).count();
        let out = w.manifest_list(&path, &a).unwrap();
        let back = ManifestFileMeta::decode_list(&path, out.clone().into()).unwrap();
        assert_eq!(back, a, "{path}");
        let ours = field_paths(&header_schema(&out));
        if a.is_empty() {
            // An empty list carries no 2.x value: Java 1.4's schema.
            assert_eq!(ours, field_paths(&manifest_file_meta_type().schema_json()));
        } else {
            assert_eq!(ours, theirs, "{path}");
        }
        let pq = ManifestWriteOptions::try_new("parquet", "zstd").unwrap();
        let out = pq.manifest_list(&path, &a).unwrap();
        assert_eq!(
            ManifestFileMeta::decode_list(&path, out.into()).unwrap(),
            a,
            "{path}"
        );
    }
    // Snapshots 1, 2, 3: base lists of 0, 1, 2 manifests and delta lists of one each.
    assert_eq!(with_sidecars, 6);
}

/// `_SOURCE_META` (Java 2.0, pypaimon 2.1) and `_BUILD_SCHEMA_ID` (Java after 2.0, paimon-rust
/// 0.4) of global-index entries survive a rewrite of the index manifest, written in the field
/// order of paimon-rust 0.4's index-manifest schema; entries without them keep Java 1.4's five
/// fields.
#[test]
fn global_index_source_meta_and_build_schema_id_are_carried() {
    let entry = |source: Option<Vec<u8>>, build: Option<i64>| IndexManifestEntry {
        kind: FileKind::Add,
        partition: paimon_spec::stats::empty_serialized_row(),
        bucket: 0,
        index_file: IndexFileMeta {
            index_type: "btree".into(),
            file_name: "btree-global-index-1.index".into(),
            file_size: 100,
            row_count: 10,
            dv_ranges: None,
            external_path: None,
            global_index: Some(GlobalIndexMeta {
                row_range_start: 0,
                row_range_end: 9,
                index_field_id: 7,
                extra_field_ids: Some(vec![8, 9]),
                index_meta: Some(vec![0x12, 0x34]),
                source_meta: source,
                build_schema_id: build,
            }),
        },
    };
    let w = ManifestWriteOptions::try_new("avro", "zstd").unwrap();
    let global = |bytes: &[u8]| -> Vec<String> {
        field_paths(&header_schema(bytes))
            .into_iter()
            .filter_map(|p| p.strip_prefix("_GLOBAL_INDEX.").map(str::to_string))
            .collect()
    };
    let five = [
        "_ROW_RANGE_START",
        "_ROW_RANGE_END",
        "_INDEX_FIELD_ID",
        "_EXTRA_FIELD_IDS",
        "_INDEX_META",
    ];
    for (entries, fields) in [
        (vec![entry(None, None)], five.len()),
        (
            vec![entry(None, None), entry(Some(vec![0x56, 0x78]), None)],
            6,
        ),
        (
            vec![entry(Some(vec![0x56]), None), entry(None, Some(11))],
            7,
        ),
    ] {
        let out = w.index_manifest("index-manifest-x", &entries).unwrap();
        let back =
            IndexManifestEntry::decode_index_manifest("index-manifest-x", out.clone().into())
                .unwrap();
        assert_eq!(back, entries);
        let mut expected: Vec<&str> = five.to_vec();
        expected.extend(["_SOURCE_META", "_BUILD_SCHEMA_ID"]);
        expected.truncate(fields);
        assert_eq!(global(&out), expected);
    }
}

/// `_FILE._WRITE_COLS_SEQUENCES` (pypaimon 2.1's and paimon-rust 0.4's 21st DataFileMeta field,
/// Java after 2.0) survives a manifest we write, in the field order of paimon-rust's manifests
/// (`fixtures/manifest-sidecar`); entries without it keep Java 1.4's 20 fields.
#[test]
fn write_cols_sequences_are_carried_in_manifests() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/manifest-sidecar/db.db/t/manifest");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_str().unwrap();
            n.starts_with("manifest-")
                && !n.starts_with("manifest-list-")
                && !n.ends_with(".sidecar")
        })
        .collect();
    names.sort();
    let path = names[0].to_str().unwrap().to_string();
    let bytes = std::fs::read(&path).unwrap();
    let theirs = field_paths(&header_schema(&bytes));
    assert_eq!(theirs.last().unwrap(), "_FILE._WRITE_COLS_SEQUENCES");
    let plain = ManifestEntry::decode_manifest(&path, bytes.into()).unwrap();
    let w = ManifestWriteOptions::try_new("avro", "zstd").unwrap();
    let out = w.manifest(&path, &plain).unwrap();
    assert_eq!(
        field_paths(&header_schema(&out)),
        field_paths(&manifest_entry_type().schema_json())
    );
    let mut with = plain.clone();
    with[0].file.write_cols = Some(vec!["id".into(), "v".into()]);
    with[0].file.write_cols_sequences = Some(vec![3, 5]);
    let out = w.manifest(&path, &with).unwrap();
    assert_eq!(field_paths(&header_schema(&out)), theirs);
    assert_eq!(
        ManifestEntry::decode_manifest(&path, out.into()).unwrap(),
        with
    );
    let pq = ManifestWriteOptions::try_new("parquet", "zstd").unwrap();
    let out = pq.manifest(&path, &with).unwrap();
    assert_eq!(
        ManifestEntry::decode_manifest(&path, out.into()).unwrap(),
        with
    );
}
