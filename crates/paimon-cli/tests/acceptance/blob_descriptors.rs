//! `paimon read` of BLOB columns stored as descriptors (`blob-descriptor-field`), on the
//! paimon-cpp `blob_desc_field` tables (Parquet and ORC, read in place). Their README lists the
//! rows; `b0` and `b1` hold descriptors whose URIs are absolute paths of the machine that wrote
//! them, into `raw_blob/` and `external_blob/`, which the table directory holds.

use std::path::{Path, PathBuf};

use paimon_data::format::BlobDescriptor;
use serde_json::Value;

use crate::write_cmd::paimon;

fn table(format: &str) -> PathBuf {
    // Canonical: a path with a `..` segment is never a trusted root of descriptor URIs.
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!(
            "../../../shared/testdata/paimon-cpp/{format}/blob_desc_field.db/blob_desc_field"
        ))
        .canonicalize()
        .expect("the paimon-cpp test tables beside the repository")
}

fn hex(text: &str) -> Value {
    Value::String(text.bytes().map(|b| format!("{b:02x}")).collect())
}

fn unhex(v: &Value) -> Vec<u8> {
    let s = v.as_str().expect("a blob prints as hex");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// `paimon read TABLE --format jsonl ARGS`, which must succeed: the rows sorted by `f0`.
fn read(t: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["read", t.to_str().unwrap(), "--format", "jsonl"];
    all.extend_from_slice(args);
    let out = paimon(&all);
    assert!(
        out.status.success(),
        "paimon {all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    rows.sort_by_key(|r| r["f0"].as_i64());
    rows
}

/// The README's rows: descriptor columns read as the bytes they point to, with the recorded
/// `raw_blob` / `external_blob` directories redirected into the table.
#[test]
fn descriptor_columns_read_as_the_bytes_they_point_to() {
    for format in ["parquet", "orc"] {
        let t = table(format);
        let rows = read(
            &t,
            &["--blob-descriptor-path-rewrite", "raw_blob,external_blob"],
        );
        let want: Vec<[Option<&str>; 4]> = vec![
            [Some("img_0"), None, Some("raw_2_0"), Some("raw_3_0")],
            [Some("img_1"), Some("vid_1"), Some("raw_2_1"), None],
            [Some("img_2"), None, Some("raw_2_2"), Some("raw_3_2")],
        ];
        assert_eq!(rows.len(), want.len(), "{format}: {rows:?}");
        for (i, (row, want)) in rows.iter().zip(&want).enumerate() {
            assert_eq!(row["f0"], Value::from(i as i64 + 1), "{format}");
            for (c, w) in ["b0", "b1", "b2", "b3"].iter().zip(want) {
                let w = w.map_or(Value::Null, hex);
                assert_eq!(row[*c], w, "{format} row {i} column {c}");
            }
        }
    }
}

/// Without the rewrite, the recorded URIs lie outside the table: the read fails naming the URI
/// instead of reading from, or returning, a path the table does not own.
#[test]
fn a_descriptor_outside_the_table_is_refused() {
    let t = table("parquet");
    let out = paimon(&["read", t.to_str().unwrap(), "--format", "jsonl"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("blob descriptor uri") && err.contains("raw_blob/b0-row-0.bin"),
        "{err}"
    );
    assert!(err.contains("not allowed"), "{err}");
    // A root given to the reader is trusted like the table's own directory: the recorded URI
    // passes the check and is then looked for (absent on this machine).
    let out = paimon(&[
        "read",
        t.to_str().unwrap(),
        "--format",
        "jsonl",
        "--blob-root",
        "/home/lxy264173",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        !err.contains("not allowed") && err.contains("not found") && err.contains("b0-row-0.bin"),
        "{err}"
    );
}

/// `--blob-as-descriptor` returns the descriptors as stored: Java `BlobDescriptor` bytes naming
/// the recorded file, offset and length.
#[test]
fn blob_as_descriptor_returns_the_descriptors() {
    let t = table("parquet");
    let rows = read(&t, &["--blob-as-descriptor"]);
    assert_eq!(rows.len(), 3);
    for (i, row) in rows.iter().enumerate() {
        let d = BlobDescriptor::parse("descriptor", &unhex(&row["b0"])).unwrap();
        assert!(
            d.uri.ends_with(&format!("/raw_blob/b0-row-{i}.bin")),
            "{d:?}"
        );
        assert_eq!((d.offset, d.length), (0, None), "{d:?}");
    }
    let d = BlobDescriptor::parse("descriptor", &unhex(&rows[1]["b1"])).unwrap();
    assert!(
        d.uri.contains("/external_blob/") && d.uri.ends_with(".blob"),
        "{d:?}"
    );
    // The blob's bytes follow the 4-byte magic of the one-record blob file.
    assert_eq!((d.offset, d.length), (4, Some(5)), "{d:?}");
}
