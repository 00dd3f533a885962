//! Primary-key tables (fixed buckets): level-0 files of merged records, read back by Java 1.4.2
//! (which merges the level-0 files of a bucket); rows kept in the test.

use paimon_spec::binary::{BinaryRow, Datum, RowKind};
use paimon_spec::types::{DataType, TypeKind};
use paimon_write::Error;

use crate::append::{batch, rows, schema_json, Row};
use crate::common::{create_table, data_files, read_java, table_write};

pub fn pk_schema(options: &str) -> String {
    schema_json(options, "").replace(r#""primaryKeys":[]"#, r#""primaryKeys":["id"]"#)
}

/// Updates after [`rows`]: id 1 changes name, id 2 is deleted, id 4 is written twice (the
/// second wins), id 5 is new.
pub fn updates() -> (Vec<Row>, Vec<RowKind>) {
    let mut r = rows();
    let mut one = r.remove(0);
    one.name = Some("alpha-2");
    one.java = r#"{"id":1,"name":"alpha-2","price":1.5,"amount":"12.34","dt":"2024-01-01","ts":"2024-01-01T00:00:00.000001","flag":true,"tags":["a",null],"region":"eu"}"#;
    let two = r.remove(0);
    let _three = r.remove(0);
    let four_a = r.remove(0);
    let mut four_b = rows().remove(3);
    four_b.price = 4.0;
    four_b.java = r#"{"id":4,"name":"","price":4.0,"amount":"0.00","dt":"2024-10-04","ts":"1970-01-01T00:00:01.000000","flag":true,"tags":["x","y"],"region":"eu"}"#;
    let mut five = rows().remove(1);
    five.id = 5;
    five.java = r#"{"id":5,"name":null,"price":-0.25,"amount":"-0.05","dt":"1970-01-01","ts":"1969-12-31T23:59:59.999999","flag":null,"tags":null,"region":"us"}"#;
    (
        vec![one, two, four_a, four_b, five],
        vec![
            RowKind::UpdateAfter,
            RowKind::Delete,
            RowKind::Insert,
            RowKind::UpdateAfter,
            RowKind::Insert,
        ],
    )
}

/// Java's rows after [`rows`] then [`updates`] under deduplicate.
pub fn expected_dedup() -> Vec<String> {
    let (u, _) = updates();
    let three = rows().remove(2);
    let mut v: Vec<String> = [u[0].java, three.java, u[3].java, u[4].java]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn deduplicate_in_one_flush_read_by_java() {
    let dir = tempfile::tempdir().unwrap();
    // One bucket: its sequence numbers are the whole table's (each bucket counts its own).
    let schema = create_table(dir.path(), &pk_schema(r#""bucket":"1""#));
    let mut w = table_write(dir.path(), &schema);
    w.write(&batch(&schema, &rows())).unwrap();
    let (u, kinds) = updates();
    w.write_with_row_kinds(&batch(&schema, &u), Some(&kinds))
        .unwrap();
    let msgs = w.prepare_commit().unwrap();
    let files: Vec<_> = msgs
        .iter()
        .flat_map(|m| &m.data_increment.new_files)
        .collect();
    // One flush: one level-0 file, one record per key (ids 1..5: 5 records).
    assert_eq!(files.len(), msgs.len());
    assert_eq!(files.iter().map(|f| f.row_count).sum::<i64>(), 5);
    assert_eq!(
        files
            .iter()
            .map(|f| f.delete_row_count.unwrap())
            .sum::<i64>(),
        1
    );
    let int = [DataType::not_null(TypeKind::Int)];
    let mut seen_seqs = Vec::new();
    for f in &files {
        assert_eq!(f.level, 0);
        assert_eq!(f.value_stats_cols.as_ref().map(|c| c.len()), Some(8));
        let min = BinaryRow::from_serialized(&f.min_key)
            .unwrap()
            .to_datums(&int)
            .unwrap();
        let max = BinaryRow::from_serialized(&f.max_key)
            .unwrap()
            .to_datums(&int)
            .unwrap();
        let ks_min = BinaryRow::from_serialized(&f.key_stats.min_values)
            .unwrap()
            .to_datums(&[DataType::nullable(TypeKind::Int)])
            .unwrap();
        // The key stats cover _KEY_id and agree with the min key.
        assert_eq!(min, ks_min);
        assert!(matches!((&min[0], &max[0]), (Datum::Int(a), Datum::Int(b)) if a <= b));
        seen_seqs.push((f.min_sequence_number, f.max_sequence_number));
    }
    // Sequence numbers: 0..=3 for the first batch, 4..=8 for the updates; the winners are
    // id 1 -> 4, id 2 -> 5, id 3 -> 2, id 4 -> 7, id 5 -> 8.
    let lo = seen_seqs.iter().map(|s| s.0).min().unwrap();
    let hi = seen_seqs.iter().map(|s| s.1).max().unwrap();
    assert_eq!((lo, hi), (2, 8));
    assert_eq!(read_java(dir.path(), &msgs), expected_dedup());
}

#[test]
fn buffer_flushes_at_its_budget_and_java_merges_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &pk_schema(r#""bucket":"1","write-buffer-size":"1 b""#),
    );
    let mut w = table_write(dir.path(), &schema).with_restored_max_sequence_number(
        paimon_spec::stats::empty_serialized_row(),
        0,
        99,
    );
    w.write(&batch(&schema, &rows())).unwrap();
    // The budget is exceeded by every batch: the first is already a file.
    assert_eq!(data_files(dir.path()).len(), 1);
    let (u, kinds) = updates();
    w.write_with_row_kinds(&batch(&schema, &u), Some(&kinds))
        .unwrap();
    let msgs = w.prepare_commit().unwrap();
    let files = &msgs[0].data_increment.new_files;
    assert_eq!(files.len(), 2);
    assert_eq!(
        files
            .iter()
            .map(|f| (f.min_sequence_number, f.max_sequence_number, f.row_count))
            .collect::<Vec<_>>(),
        vec![(100, 103, 4), (104, 108, 4)]
    );
    assert_eq!(read_java(dir.path(), &msgs), expected_dedup());
}

#[test]
fn first_row_keeps_the_first_record() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &pk_schema(r#""bucket":"2","merge-engine":"first-row""#),
    );
    let mut w = table_write(dir.path(), &schema);
    w.write(&batch(&schema, &rows())).unwrap();
    let (u, kinds) = updates();
    // A retraction is buffered, then refused when the buffer is merged (no message comes out).
    w.write_with_row_kinds(&batch(&schema, &u), Some(&kinds))
        .unwrap();
    assert!(matches!(w.prepare_commit(), Err(Error::Unsupported { .. })));

    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &pk_schema(r#""bucket":"2","merge-engine":"first-row""#),
    );
    let mut w = table_write(dir.path(), &schema);
    w.write(&batch(&schema, &rows())).unwrap();
    let mut again = rows();
    again[0].name = Some("ignored");
    again[0].id = 1;
    w.write(&batch(&schema, &again[..1])).unwrap();
    let msgs = w.prepare_commit().unwrap();
    let mut want: Vec<String> = rows().iter().map(|r| r.java.to_string()).collect();
    want.sort();
    assert_eq!(read_java(dir.path(), &msgs), want);
}

#[test]
fn other_pk_shapes_are_refused_at_open() {
    // (Postpone buckets, `bucket = -2`, are written: tests/acceptance/postpone_bucket.rs.)
    for opts in [
        r#""bucket":"2","changelog-producer":"lookup""#,
        r#""bucket":"2","deletion-vectors.enabled":"true""#,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let schema = create_table(dir.path(), &pk_schema(opts));
        let err = paimon_write::TableWrite::try_new(
            std::sync::Arc::new(paimon_io::LocalFileIO::new()),
            dir.path().to_str().unwrap(),
            &schema,
        )
        .unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{opts}: {err}");
    }
}
