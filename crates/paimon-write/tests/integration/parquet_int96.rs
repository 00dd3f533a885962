//! TIMESTAMP(7..9) columns in Parquet, which Java writes as INT96, at the top level and inside
//! ROW, ARRAY, MAP and ARRAY<ROW> (levels of nulls and empty collections, and 30,000 generated
//! rows in three batches). At the top level: values with nanoseconds after
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

const NESTED_SCHEMA: &str = r#"{"version":3,"id":0,"fields":[
  {"id":0,"name":"id","type":"INT"},
  {"id":1,"name":"r","type":{"type":"ROW","fields":[
    {"id":2,"name":"a","type":"INT"},
    {"id":3,"name":"t","type":"TIMESTAMP(9)"}]}},
  {"id":4,"name":"arr","type":{"type":"ARRAY","element":"TIMESTAMP(9)"}},
  {"id":5,"name":"m","type":{"type":"MAP","key":"STRING NOT NULL","value":"TIMESTAMP(7)"}},
  {"id":6,"name":"ar","type":{"type":"ARRAY","element":{"type":"ROW","fields":[
    {"id":7,"name":"t","type":"TIMESTAMP(9) WITH LOCAL TIME ZONE"},
    {"id":8,"name":"n","type":"INT"}]}}},
  {"id":9,"name":"t9","type":"TIMESTAMP(9)"}],
  "highestFieldId":9,"partitionKeys":[],"primaryKeys":[],
  "options":{"bucket":"-1","file.format":"parquet"},"timeMillis":0}"#;

/// TIMESTAMP(7..9) inside ROW, ARRAY, MAP and ARRAY<ROW>, beside a top-level one, with nulls
/// and empty collections at every level: Java reads each value as written (the input rows
/// and Java's rows are both kept here).
#[test]
fn java_reads_nested_int96_timestamps_we_write_to_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), NESTED_SCHEMA);
    let mut w = table_write(dir.path(), &schema);
    let input = [
        r#"{"id":1,"r":{"a":1,"t":"2024-01-02T03:04:05.123456789"},"arr":["2024-01-02T03:04:05.000000001",null,"1969-12-31T23:59:59.999999999"],"m":{"x":"1900-01-01T00:00:00.0000001"},"ar":[{"t":"2024-01-02T03:04:05.000000005Z","n":1},{"t":null,"n":2}],"t9":"2024-01-02T03:04:05"}"#,
        r#"{"id":2,"r":null,"arr":null,"m":null,"ar":null,"t9":null}"#,
        r#"{"id":3,"r":{"a":null,"t":null},"arr":[],"m":{},"ar":[],"t9":"1969-12-31T23:59:59.999999999"}"#,
        r#"{"id":4,"r":{"a":4,"t":"1969-12-30T23:59:59.999999999"},"arr":["1970-01-01T00:00:00"],"m":{"y":null,"z":"1970-01-01T00:00:00"},"ar":[null,{"t":"1969-12-31T23:59:59.999999999Z","n":null}],"t9":"1900-01-01T00:00:00.999999999"}"#,
    ];
    let mut reader = arrow_json::ReaderBuilder::new(w.input_schema().clone())
        .build(std::io::Cursor::new(input.join("\n")))
        .unwrap();
    let batch = reader.next().unwrap().unwrap();
    assert_eq!(batch.num_rows(), 4);
    w.write(&batch).unwrap();
    let messages = w.prepare_commit().unwrap();
    let want = [
        r#"{"id":1,"r":{"a":1,"t":"2024-01-02T03:04:05.123456789"},"arr":["2024-01-02T03:04:05.000000001",null,"1969-12-31T23:59:59.999999999"],"m":[["x","1900-01-01T00:00:00.0000001"]],"ar":[{"t":"2024-01-02T03:04:05.000000005Z","n":1},{"t":null,"n":2}],"t9":"2024-01-02T03:04:05.000000000"}"#,
        r#"{"id":2,"r":null,"arr":null,"m":null,"ar":null,"t9":null}"#,
        r#"{"id":3,"r":{"a":null,"t":null},"arr":[],"m":[],"ar":[],"t9":"1969-12-31T23:59:59.999999999"}"#,
        r#"{"id":4,"r":{"a":4,"t":"1969-12-30T23:59:59.999999999"},"arr":["1970-01-01T00:00:00.000000000"],"m":[["y",null],["z","1970-01-01T00:00:00.0000000"]],"ar":[null,{"t":"1969-12-31T23:59:59.999999999Z","n":null}],"t9":"1900-01-01T00:00:00.999999999"}"#,
    ];
    assert_eq!(read_java(dir.path(), &messages), want);
    // paimon-data reads the nested instants back too.
    let ours = read_ours(dir.path(), &messages);
    let r_t: Vec<Option<i64>> = ours
        .iter()
        .flat_map(|b| {
            let a = b.column(1).as_struct().column(1).clone();
            let r = b.column(1).clone();
            let a = a.as_primitive::<TimestampNanosecondType>().clone();
            (0..a.len())
                .map(|i| (r.is_valid(i) && a.is_valid(i)).then(|| a.value(i)))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        r_t,
        vec![
            Some(N2024 + 123_456_789),
            None,
            None,
            Some(-86_400_000_000_001)
        ]
    );
}

const MANY_SCHEMA: &str = r#"{"version":3,"id":0,"fields":[
  {"id":0,"name":"id","type":"INT"},
  {"id":1,"name":"arr","type":{"type":"ARRAY","element":"TIMESTAMP(9)"}},
  {"id":2,"name":"m","type":{"type":"MAP","key":"INT NOT NULL","value":"TIMESTAMP(9)"}}],
  "highestFieldId":2,"partitionKeys":[],"primaryKeys":[],
  "options":{"bucket":"-1","file.format":"parquet"},"timeMillis":0}"#;

/// How [`many_row`] spells a row: the input (nanoseconds, map entries as object members) or
/// Java's (timestamp text, map entries as `[key, value]` pairs).
#[derive(Clone, Copy)]
enum Spelling {
    Input,
    Java,
}

/// Row `r` of [`java_reads_many_rows_of_nested_int96_timestamps`] as JSON: `arr` holds r % 6
/// elements (null every 17th row), `m` (r + 1) % 6 entries (null every 13th row); the k-th
/// element or value is null when (r + k) % 7 == 0, else 2024-01-02T03:04:05 plus r * 10 + k
/// nanoseconds.
fn many_row(r: i64, spelling: Spelling) -> String {
    let item = |k: i64| match spelling {
        _ if (r + k) % 7 == 0 => "null".to_string(),
        Spelling::Input => (N2024 + r * 10 + k).to_string(),
        Spelling::Java => format!("\"2024-01-02T03:04:05.{:09}\"", r * 10 + k),
    };
    let arr = if r % 17 == 0 {
        "null".to_string()
    } else {
        let items: Vec<String> = (0..r % 6).map(item).collect();
        format!("[{}]", items.join(","))
    };
    let m = if r % 13 == 0 {
        "null".to_string()
    } else {
        let entries = (0..(r + 1) % 6).map(|k| match spelling {
            Spelling::Input => format!("\"{k}\":{}", item(k)),
            Spelling::Java => format!("[{k},{}]", item(k)),
        });
        let entries = entries.collect::<Vec<_>>().join(",");
        match spelling {
            Spelling::Input => format!("{{{entries}}}"),
            Spelling::Java => format!("[{entries}]"),
        }
    };
    format!(r#"{{"id":{r},"arr":{arr},"m":{m}}}"#)
}

/// 30,000 rows in three batches of nested INT96 columns whose lengths, nulls and empty
/// collections follow different strides ([`many_row`]); Java reads every row as generated.
#[test]
fn java_reads_many_rows_of_nested_int96_timestamps() {
    const ROWS: i64 = 30_000;
    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), MANY_SCHEMA);
    let mut w = table_write(dir.path(), &schema);
    for part in 0..3 {
        let rows = part * ROWS / 3..(part + 1) * ROWS / 3;
        let lines: Vec<String> = rows.map(|r| many_row(r, Spelling::Input)).collect();
        let mut reader = arrow_json::ReaderBuilder::new(w.input_schema().clone())
            .with_batch_size(20_000)
            .build(std::io::Cursor::new(lines.join("\n")))
            .unwrap();
        let batch = reader.next().unwrap().unwrap();
        w.write(&batch).unwrap();
    }
    let messages = w.prepare_commit().unwrap();
    let mut got = read_java(dir.path(), &messages);
    got.sort();
    let mut want: Vec<String> = (0..ROWS).map(|r| many_row(r, Spelling::Java)).collect();
    want.sort();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
}
