//! VARIANT columns. `append/variant_shredded` (Java 1.4.2, `variant.shreddingSchema` ROW(a INT,
//! b STRING)) holds values whose fields `a` and `b` live in Parquet's `typed_value` columns, not
//! in `value`. Reading `metadata` and `value` alone would return those values without their
//! shredded fields, so the read is refused, naming the column and the file.

use std::path::PathBuf;

use crate::write_cmd::paimon;

fn table() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/warehouse/append.db/variant_shredded")
}

#[test]
fn a_shredded_variant_column_is_refused_naming_it() {
    let t = table();
    for args in [
        vec!["--format", "jsonl"],
        vec!["--format", "jsonl", "--select", "id,v"],
    ] {
        let mut all = vec!["read", t.to_str().unwrap()];
        all.extend(args);
        let out = paimon(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "paimon {all:?}: {err}");
        assert!(
            err.contains("shredded VARIANT column v") && err.contains(".parquet"),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "rows printed before the refusal");
    }
}

/// The other columns of the table read as Java's rows: the refusal is about the column only.
#[test]
fn the_other_columns_of_a_shredded_table_read() {
    let t = table();
    let out = paimon(&[
        "read",
        t.to_str().unwrap(),
        "--format",
        "jsonl",
        "--select",
        "id",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut ids: Vec<i64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    ids.sort();
    assert_eq!(ids, (0..7).collect::<Vec<_>>());
}
