//! Primary-key tables with the partial-update and aggregation merge engines and with
//! `sequence.field`: each write buffer is folded by the table's engine, and Java 1.4.2 (which
//! merges the level-0 files of a bucket again) reads the rows kept in the test. Every case runs
//! twice: all records in one flush, and one flush per batch (`write-buffer-size` of one byte),
//! so that both our flush merge and Java's merge of our files are checked.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use paimon_spec::binary::RowKind;
use paimon_write::Error;

use crate::common::{create_table, data_files, read_java, table_write};

/// `id INT NOT NULL` (the key), `a INT`, `b STRING`, `c BIGINT`, `g1 INT`, `g2 INT`; one bucket.
fn schema_json(options: &str) -> String {
    format!(
        r#"{{"version":3,"id":0,"fields":[
        {{"id":0,"name":"id","type":"INT NOT NULL"}},
        {{"id":1,"name":"a","type":"INT"}},
        {{"id":2,"name":"b","type":"STRING"}},
        {{"id":3,"name":"c","type":"BIGINT"}},
        {{"id":4,"name":"g1","type":"INT"}},
        {{"id":5,"name":"g2","type":"INT"}}],
        "highestFieldId":5,"partitionKeys":[],"primaryKeys":["id"],
        "options":{{"bucket":"1"{options}}},"timeMillis":0}}"#
    )
}

/// One input row: `(id, a, b, c, g1, g2)` and its kind.
type Rec = (
    i32,
    Option<i32>,
    Option<&'static str>,
    Option<i64>,
    Option<i32>,
    Option<i32>,
    RowKind,
);

fn batch(recs: &[Rec]) -> RecordBatch {
    let cols: Vec<(&str, ArrayRef, bool)> = vec![
        (
            "id",
            Arc::new(Int32Array::from_iter_values(recs.iter().map(|r| r.0))),
            false,
        ),
        (
            "a",
            Arc::new(Int32Array::from_iter(recs.iter().map(|r| r.1))),
            true,
        ),
        (
            "b",
            Arc::new(StringArray::from_iter(recs.iter().map(|r| r.2))),
            true,
        ),
        (
            "c",
            Arc::new(Int64Array::from_iter(recs.iter().map(|r| r.3))),
            true,
        ),
        (
            "g1",
            Arc::new(Int32Array::from_iter(recs.iter().map(|r| r.4))),
            true,
        ),
        (
            "g2",
            Arc::new(Int32Array::from_iter(recs.iter().map(|r| r.5))),
            true,
        ),
    ];
    RecordBatch::try_from_iter_with_nullable(cols).unwrap()
}

/// Writes `recs` (in one flush, or one flush per record) and returns Java's rows.
fn write_and_read(options: &str, recs: &[Rec], flush_each: bool) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let options = if flush_each {
        format!(r#"{options},"write-buffer-size":"1 b""#)
    } else {
        options.to_string()
    };
    let schema = create_table(dir.path(), &schema_json(&options));
    let mut w = table_write(dir.path(), &schema);
    if flush_each {
        for r in recs {
            w.write_with_row_kinds(&batch(std::slice::from_ref(r)), Some(&[r.6]))
                .unwrap();
        }
    } else {
        let kinds: Vec<RowKind> = recs.iter().map(|r| r.6).collect();
        w.write_with_row_kinds(&batch(recs), Some(&kinds)).unwrap();
    }
    let msgs = w.prepare_commit().unwrap();
    let files = msgs[0].data_increment.new_files.clone();
    // Sequence numbers are handed out in arrival order from 0; a file's range covers the
    // records it keeps.
    let n = recs.len() as i64;
    assert!(files.iter().all(|f| f.min_sequence_number >= 0));
    assert!(files.iter().all(|f| f.max_sequence_number < n));
    if flush_each {
        assert_eq!(data_files(dir.path()).len(), recs.len());
    } else {
        assert_eq!(files.len(), 1);
    }
    read_java(dir.path(), &msgs)
}

fn check(options: &str, recs: &[Rec], want: &[&str]) {
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want.sort();
    for flush_each in [false, true] {
        assert_eq!(
            write_and_read(options, recs, flush_each),
            want,
            "options {options}, one flush per record: {flush_each}"
        );
    }
}

const I: RowKind = RowKind::Insert;

#[test]
fn partial_update_keeps_the_last_non_null_of_each_column() {
    check(
        r#","merge-engine":"partial-update""#,
        &[
            (1, Some(1), None, Some(10), None, None, I),
            (2, Some(5), Some("y"), None, None, None, I),
            (1, None, Some("x"), None, None, None, I),
            (1, Some(3), None, None, None, None, I),
        ],
        &[
            r#"{"id":1,"a":3,"b":"x","c":10,"g1":null,"g2":null}"#,
            r#"{"id":2,"a":5,"b":"y","c":null,"g1":null,"g2":null}"#,
        ],
    );
}

#[test]
fn partial_update_sequence_groups_order_their_columns() {
    // g1 orders a, g2 orders b and c; a later record with a smaller group sequence loses.
    check(
        r#","merge-engine":"partial-update","fields.g1.sequence-group":"a","fields.g2.sequence-group":"b,c""#,
        &[
            (1, Some(20), Some("b1"), Some(1), Some(2), Some(1), I),
            (1, Some(10), Some("b3"), Some(3), Some(1), Some(3), I),
            (2, Some(7), None, None, Some(1), None, I),
        ],
        &[
            r#"{"id":1,"a":20,"b":"b3","c":3,"g1":2,"g2":3}"#,
            r#"{"id":2,"a":7,"b":null,"c":null,"g1":1,"g2":null}"#,
        ],
    );
}

#[test]
fn partial_update_removes_the_row_on_delete_when_asked() {
    check(
        r#","merge-engine":"partial-update","partial-update.remove-record-on-delete":"true""#,
        &[
            (1, Some(1), Some("x"), None, None, None, I),
            (2, Some(2), None, None, None, None, I),
            (1, Some(1), None, None, None, None, RowKind::Delete),
            (2, None, Some("z"), None, None, None, I),
        ],
        &[r#"{"id":2,"a":2,"b":"z","c":null,"g1":null,"g2":null}"#],
    );
}

#[test]
fn aggregation_folds_each_column_with_its_function() {
    // a: sum (retracted by -U), b: last non-null (default), c: max; b and c ignore retractions.
    check(
        r#","merge-engine":"aggregation","fields.a.aggregate-function":"sum","fields.c.aggregate-function":"max","fields.b.ignore-retract":"true","fields.c.ignore-retract":"true""#,
        &[
            (1, Some(1), Some("x"), Some(5), None, None, I),
            (1, Some(2), None, Some(3), None, None, I),
            (2, Some(7), Some("z"), Some(1), None, None, I),
            (1, Some(4), Some("y"), Some(9), None, None, I),
            (
                1,
                Some(2),
                Some("q"),
                Some(100),
                None,
                None,
                RowKind::UpdateBefore,
            ),
        ],
        &[
            r#"{"id":1,"a":5,"b":"y","c":9,"g1":null,"g2":null}"#,
            r#"{"id":2,"a":7,"b":"z","c":1,"g1":null,"g2":null}"#,
        ],
    );
}

#[test]
fn sequence_field_orders_records_before_arrival() {
    // Deduplicate by `c`: the largest c wins whatever the arrival order.
    check(
        r#","sequence.field":"c""#,
        &[
            (1, Some(1), Some("new"), Some(5), None, None, I),
            (1, Some(2), Some("old, late"), Some(3), None, None, I),
            (2, Some(3), Some("only"), None, None, None, I),
            (1, Some(4), Some("older, later"), Some(4), None, None, I),
        ],
        &[
            r#"{"id":1,"a":1,"b":"new","c":5,"g1":null,"g2":null}"#,
            r#"{"id":2,"a":3,"b":"only","c":null,"g1":null,"g2":null}"#,
        ],
    );
    // Descending: the smallest c wins.
    check(
        r#","sequence.field":"c","sequence.field.sort-order":"descending""#,
        &[
            (1, Some(1), Some("five"), Some(5), None, None, I),
            (1, Some(2), Some("three"), Some(3), None, None, I),
            (1, Some(4), Some("four"), Some(4), None, None, I),
        ],
        &[r#"{"id":1,"a":2,"b":"three","c":3,"g1":null,"g2":null}"#],
    );
}

#[test]
fn partial_update_refuses_deletes_it_cannot_take() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(
        dir.path(),
        &schema_json(r#","merge-engine":"partial-update""#),
    );
    let mut w = table_write(dir.path(), &schema);
    let recs = [
        (1, Some(1), None, None, None, None, I),
        (1, None, None, None, None, None, RowKind::Delete),
    ];
    w.write_with_row_kinds(&batch(&recs), Some(&[I, RowKind::Delete]))
        .unwrap();
    let err = w.prepare_commit().unwrap_err();
    assert!(matches!(err, Error::Merge { .. }), "{err}");
    assert!(
        err.to_string().contains(dir.path().to_str().unwrap()),
        "{err}"
    );
}

#[test]
fn orc_and_avro_files_of_each_engine_merged_by_java() {
    for format in ["orc", "avro"] {
        check(
            &format!(r#","file.format":"{format}","merge-engine":"partial-update""#),
            &[
                (1, Some(1), None, Some(10), None, None, I),
                (1, None, Some("x"), None, None, None, I),
                (2, Some(5), Some("y"), None, None, None, I),
            ],
            &[
                r#"{"id":1,"a":1,"b":"x","c":10,"g1":null,"g2":null}"#,
                r#"{"id":2,"a":5,"b":"y","c":null,"g1":null,"g2":null}"#,
            ],
        );
        check(
            &format!(
                r#","file.format":"{format}","merge-engine":"aggregation","fields.c.aggregate-function":"sum""#
            ),
            &[
                (1, Some(1), Some("x"), Some(5), None, None, I),
                (1, Some(2), None, Some(3), None, None, I),
            ],
            &[r#"{"id":1,"a":2,"b":"x","c":8,"g1":null,"g2":null}"#],
        );
    }
}

#[test]
fn orc_columns_of_a_type_without_an_orc_form_are_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let json =
        schema_json(r#","file.format":"orc""#).replace(r#""type":"BIGINT""#, r#""type":"VARIANT""#);
    let schema = create_table(dir.path(), &json);
    let err = paimon_write::TableWrite::try_new(
        std::sync::Arc::new(paimon_io::LocalFileIO::new()),
        dir.path().to_str().unwrap(),
        &schema,
    )
    .unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("column c"), "{err}");
}
