//! Every type Java writes to Parquet, Avro and ORC: the rows of Java's `append/all_types_parquet`
//! fixture, written again by [`paimon_write::TableWrite`] into a new table of each format, read
//! by Java 1.4.2 equal Java's own expected rows
//! (`fixtures/expected/append/all_types_parquet/latest.jsonl`).
//!
//! The input batches are decoded from the fixture's data files with paimon-data; the expected
//! rows are Java's, so a reader fault cannot make the test pass. TIMESTAMP(7..9) columns are left
//! out of Parquet and Avro: the fixture holds 0001-01-01, which Arrow's nanosecond timestamps
//! (the writers' input) cannot hold (`parquet_int96` tests them in Parquet), and Java's Avro
//! writer refuses them; ORC leaves out every timestamp column (see
//! [`java_reads_every_type_we_write_to_orc`]).

use arrow_array::RecordBatch;
use paimon_data::arrow_schema::to_arrow_type;
use paimon_data::format::{decode, DecodeRequest, FileFormat};
use paimon_spec::schema::TableSchema;
use paimon_spec::types::TypeKind;
use serde_json::Value;

use crate::common::{create_table, read_java, repo, table_write};

fn nanos_precision(t: &TypeKind) -> bool {
    matches!(
        t,
        TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision } if *precision > 6
    )
}

#[test]
fn java_reads_every_type_we_write_to_parquet() {
    java_reads_every_type_we_write("parquet", &nanos_precision, &["c_ts9", "c_ltz9"]);
}

#[test]
fn java_reads_every_type_we_write_to_avro() {
    java_reads_every_type_we_write("avro", &nanos_precision, &["c_ts9", "c_ltz9"]);
}

/// Every type but timestamps, nested ones included: the fixture holds 1969-12-31
/// 23:59:59.999, which ORC cannot hold (ORC-763; Java's own writer changes it, see
/// `fixtures/expected/append/all_types_orc`), so `orc_timestamps` tests them.
fn timestamps(t: &TypeKind) -> bool {
    matches!(
        t,
        TypeKind::Timestamp { .. } | TypeKind::LocalZonedTimestamp { .. }
    )
}

#[test]
fn java_reads_every_type_we_write_to_orc() {
    java_reads_every_type_we_write(
        "orc",
        &timestamps,
        &[
            "c_ts0", "c_ts3", "c_ts6", "c_ts9", "c_ltz3", "c_ltz6", "c_ltz9",
        ],
    );
}

/// Writes the fixture's rows without the columns of types `drop` says (`dropped` names them)
/// into a `format` table and compares Java's read with Java's rows.
fn java_reads_every_type_we_write(
    format: &str,
    drop: &dyn Fn(&TypeKind) -> bool,
    dropped: &[&str],
) {
    let fixture = repo().join("fixtures/warehouse/append.db/all_types_parquet");
    let java_schema = TableSchema::from_json_str(
        &std::fs::read_to_string(fixture.join("schema/schema-0")).unwrap(),
    )
    .unwrap();
    let names: Vec<String> = java_schema
        .fields
        .iter()
        .filter(|f| drop(&f.data_type.kind))
        .map(|f| f.name.clone())
        .collect();
    assert_eq!(names, dropped);
    let dropped = names;
    let mut schema_json = java_schema.to_json();
    let fields = schema_json["fields"].as_array_mut().unwrap();
    fields.retain(|f| !dropped.contains(&f["name"].as_str().unwrap().to_string()));
    schema_json["options"]["file.format"] = Value::String(format.to_string());

    let dir = tempfile::tempdir().unwrap();
    let schema = create_table(dir.path(), &schema_json.to_string());
    let mut w = table_write(dir.path(), &schema);
    let req = DecodeRequest {
        columns: schema.fields.iter().map(|f| f.name.clone()).collect(),
        types: schema
            .fields
            .iter()
            .map(|f| (f.name.clone(), to_arrow_type(&f.data_type)))
            .collect(),
        rows: None,
        batch_size: 1024,
        expected_rows: None,
    };
    let mut written = 0;
    let mut names: Vec<_> = std::fs::read_dir(fixture.join("bucket-0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let bytes = bytes::Bytes::from(std::fs::read(&path).unwrap());
        for b in decode(FileFormat::Parquet, path.to_str().unwrap(), bytes, &req).unwrap() {
            let b = b.unwrap();
            let cols = b
                .columns()
                .iter()
                .zip(w.input_schema().fields())
                .map(|(c, f)| arrow_cast::cast(c, f.data_type()).unwrap())
                .collect();
            let b = RecordBatch::try_new(w.input_schema().clone(), cols).unwrap();
            written += b.num_rows();
            w.write(&b).unwrap();
        }
    }
    assert_eq!(written, 30);
    let msgs = w.prepare_commit().unwrap();
    let files = &msgs[0].data_increment.new_files;
    assert!(files[0].file_name.ends_with(&format!(".{format}")));
    let ours: Vec<Value> = read_java(dir.path(), &msgs)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected = std::fs::read_to_string(
        repo().join("fixtures/expected/append/all_types_parquet/latest.jsonl"),
    )
    .unwrap();
    let mut want: Vec<Value> = expected
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            for d in &dropped {
                v.as_object_mut().unwrap().shift_remove(d);
            }
            v
        })
        .collect();
    let key = |v: &Value| v.to_string();
    want.sort_by_key(key);
    let mut ours = ours;
    ours.sort_by_key(key);
    assert_eq!(ours.len(), want.len());
    for (o, w) in ours.iter().zip(&want) {
        assert_eq!(o, w, "row id {}", key(w));
    }
}
