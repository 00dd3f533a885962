//! TIMESTAMP(7..9) columns in Parquet, which Java writes as INT96: values with nanoseconds after
//! 1970, before it (a negative nanosecond count in the day, as Java divides toward zero) and in
//! the nanosecond before the epoch, with and without local time zone, written by
//! [`paimon_write::TableWrite`] and read by Java 1.4.2 as the values kept here; the file's
//! value statistics are Java's for such columns (no bounds, the null count).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::{Array, ArrayRef, Int32Array, TimestampNanosecondArray};

use crate::common::{create_table, input_batch, read_java, read_ours, table_write};

const SCHEMA: &str = r#"{"version":3,"id":0,"fields":[
  {"id":0,"name":"id","type":"INT"},
  {"id":1,"name":"t7","type":"TIMESTAMP(7)"},
  {"id":2,"name":"t9","type":"TIMESTAMP(9)"},
  {"id":3,"name":"l9","type":"TIMESTAMP(9) WITH LOCAL TIME ZONE"}],
  "highestFieldId":3,"partitionKeys":[],"primaryKeys":[],
  "options":{"bucket":"-1","file.format":"parquet"},"timeMillis":0}"#;

/// id, t7, t9 and l9 (nanoseconds since the epoch).
type Row = (i32, Option<i64>, Option<i64>, Option<i64>);

/// Nanoseconds of 2024-01-02 03:04:05.
const N2024: i64 = 1_704_164_645_000_000_000;
/// Nanoseconds of 1900-01-01 00:00:00.
const N1900: i64 = -2_208_988_800_000_000_000;

#[test]
fn java_reads_the_int96_timestamps_we_write_to_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), SCHEMA);
    let mut w = table_write(dir.path(), &schema);
    let rows: [Row; 4] = [
        (
            1,
            Some(N2024 + 123_456_700),
            Some(N2024 + 123_456_789),
            Some(N2024 + 1),
        ),
        (2, Some(N1900 + 100), Some(-1), Some(N1900 + 999_999_999)),
        (3, None, Some(-86_400_000_000_001), None),
        (4, Some(0), None, Some(-1_500_000_000)),
    ];
    let col = |i: usize| -> Vec<Option<i64>> { rows.iter().map(|r| [r.1, r.2, r.3][i]).collect() };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(
            rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        )),
        Arc::new(TimestampNanosecondArray::from(col(0))),
        Arc::new(TimestampNanosecondArray::from(col(1))),
        Arc::new(TimestampNanosecondArray::from(col(2)).with_timezone("UTC")),
    ];
    let batch = input_batch(&w, columns);
    w.write(&batch).unwrap();
    let messages = w.prepare_commit().unwrap();
    let want = [
        r#"{"id":1,"t7":"2024-01-02T03:04:05.1234567","t9":"2024-01-02T03:04:05.123456789","l9":"2024-01-02T03:04:05.000000001Z"}"#,
        r#"{"id":2,"t7":"1900-01-01T00:00:00.0000001","t9":"1969-12-31T23:59:59.999999999","l9":"1900-01-01T00:00:00.999999999Z"}"#,
        r#"{"id":3,"t7":null,"t9":"1969-12-30T23:59:59.999999999","l9":null}"#,
        r#"{"id":4,"t7":"1970-01-01T00:00:00.0000000","t9":null,"l9":"1969-12-31T23:59:58.500000000Z"}"#,
    ];
    assert_eq!(read_java(dir.path(), &messages), want);
    // paimon-data reads the same instants back.
    let ours = read_ours(dir.path(), &messages);
    let t9: Vec<Option<i64>> = ours
        .iter()
        .flat_map(|b| {
            let a = b.column(2).as_primitive::<TimestampNanosecondType>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i)))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(t9, col(1));

    // Java keeps no bounds for INT96 columns, only their null counts.
    let file = &messages[0].data_increment.new_files[0];
    let stats = file.value_stats.clone();
    let nulls = stats.null_counts.clone().unwrap();
    assert_eq!(nulls, vec![Some(0), Some(1), Some(1), Some(1)]);
    let (min, max) = (stats.min_row().unwrap(), stats.max_row().unwrap());
    assert_eq!((min.get_int(0).unwrap(), max.get_int(0).unwrap()), (1, 4));
    for i in 1..4 {
        assert!(
            min.is_null_at(i).unwrap() && max.is_null_at(i).unwrap(),
            "column {i}"
        );
    }
}
