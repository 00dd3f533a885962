//! Timestamps in ORC data files: every precision (0..9) with and without local time zone,
//! before the epoch and before the Gregorian switch, written by [`paimon_write::TableWrite`]
//! and read by Java 1.4.2 as the values kept here. A value in the second before the epoch
//! with a fraction of over a millisecond has no faithful ORC form (ORC-763: Java's own writer
//! changes it, see `fixtures/expected/append/all_types_orc`): it fails the write with a typed
//! error and writes nothing.

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Int32Array, RecordBatch, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray, TimestampSecondArray,
};

use crate::common::{create_table, data_files, input_batch, read_java, table_write};

const SCHEMA: &str = r#"{"version":3,"id":0,"fields":[
  {"id":0,"name":"id","type":"INT"},
  {"id":1,"name":"t0","type":"TIMESTAMP(0)"},
  {"id":2,"name":"t3","type":"TIMESTAMP(3)"},
  {"id":3,"name":"t6","type":"TIMESTAMP(6)"},
  {"id":4,"name":"t9","type":"TIMESTAMP(9)"},
  {"id":5,"name":"l3","type":"TIMESTAMP(3) WITH LOCAL TIME ZONE"},
  {"id":6,"name":"l6","type":"TIMESTAMP(6) WITH LOCAL TIME ZONE"}],
  "highestFieldId":6,"partitionKeys":[],"primaryKeys":[],
  "options":{"bucket":"-1","file.format":"orc"},"timeMillis":0}"#;

/// Seconds of 2024-01-02 03:04:05, 1900-01-01 00:00:00 and 1500-03-01 10:00:00 (proleptic
/// Gregorian, UTC).
const S2024: i64 = 1_704_164_645;
const S1900: i64 = -2_208_988_800;
const S1500: i64 = -14_826_636_000;

fn batch(
    w: &paimon_write::TableWrite,
    rows: &[(i32, i64, i64, i64, i64, i64, i64)],
) -> RecordBatch {
    let col = |i: usize| rows.iter().map(move |r| [r.1, r.2, r.3, r.4, r.5, r.6][i]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(
            rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        )),
        Arc::new(TimestampSecondArray::from(col(0).collect::<Vec<_>>())),
        Arc::new(TimestampMillisecondArray::from(col(1).collect::<Vec<_>>())),
        Arc::new(TimestampMicrosecondArray::from(col(2).collect::<Vec<_>>())),
        Arc::new(TimestampNanosecondArray::from(col(3).collect::<Vec<_>>())),
        Arc::new(TimestampMillisecondArray::from(col(4).collect::<Vec<_>>()).with_timezone("UTC")),
        Arc::new(TimestampMicrosecondArray::from(col(5).collect::<Vec<_>>()).with_timezone("UTC")),
    ];
    input_batch(w, columns)
}

#[test]
fn java_reads_the_timestamps_we_write_to_orc() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), SCHEMA);
    let mut w = table_write(dir.path(), &schema);
    let rows = [
        (
            1,
            S2024,
            S2024 * 1_000 + 678,
            S2024 * 1_000_000 + 678_901,
            S2024 * 1_000_000_000 + 123_456_789,
            S2024 * 1_000 + 678,
            S2024 * 1_000_000 + 1,
        ),
        (
            2,
            S1900,
            S1900 * 1_000 + 5,
            -86_400_000_000 - 876_544, // 1969-12-30 23:59:59.123456
            1,
            0,
            S1900 * 1_000_000 + 1,
        ),
        (
            3,
            S1500,
            S1500 * 1_000 + 500,
            S1500 * 1_000_000,
            -2_000_000_000, // 1969-12-31 23:59:58
            S1500 * 1_000,
            -1_000_000, // 1969-12-31 23:59:59
        ),
    ];
    w.write(&batch(&w, &rows)).unwrap();
    let messages = w.prepare_commit().unwrap();
    let want = [
        r#"{"id":1,"t0":"2024-01-02T03:04:05","t3":"2024-01-02T03:04:05.678","t6":"2024-01-02T03:04:05.678901","t9":"2024-01-02T03:04:05.123456789","l3":"2024-01-02T03:04:05.678Z","l6":"2024-01-02T03:04:05.000001Z"}"#,
        r#"{"id":2,"t0":"1900-01-01T00:00:00","t3":"1900-01-01T00:00:00.005","t6":"1969-12-30T23:59:59.123456","t9":"1970-01-01T00:00:00.000000001","l3":"1970-01-01T00:00:00.000Z","l6":"1900-01-01T00:00:00.000001Z"}"#,
        r#"{"id":3,"t0":"1500-03-01T10:00:00","t3":"1500-03-01T10:00:00.500","t6":"1500-03-01T10:00:00.000000","t9":"1969-12-31T23:59:58.000000000","l3":"1500-03-01T10:00:00.000Z","l6":"1969-12-31T23:59:59.000000Z"}"#,
    ];
    assert_eq!(read_java(dir.path(), &messages), want);
}

#[test]
fn a_timestamp_orc_cannot_hold_fails_the_write_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), SCHEMA);
    let mut w = table_write(dir.path(), &schema);
    // 1969-12-31 23:59:59.999 in the TIMESTAMP(3) column.
    let rows = [(1, 0, -1, 0, 0, 0, 0)];
    let result = w.write(&batch(&w, &rows)).and_then(|()| w.prepare_commit());
    let err = result.unwrap_err();
    assert!(err.to_string().contains("timestamp"), "{err}");
    w.abort();
    assert_eq!(data_files(dir.path()), Vec::<std::path::PathBuf>::new());
}
