//! Our BinaryRow and SimpleStats encoders against the rows Java wrote: the partitions, keys and
//! min/max statistics of every data file in the Java-planned splits of the paimon-cpp tables,
//! decoded with the file's schema and rebuilt from the typed values, must be the same bytes.

use std::path::{Path, PathBuf};

use paimon_spec::binary::{BinaryRow, BinaryRowBuilder, Datum};
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::schema::TableSchema;
use paimon_spec::stats::{ColStats, SimpleStats};
use paimon_spec::types::DataField;
use paimon_split::decode_any;

use crate::common::testdata;

fn split_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            split_files(&p, out);
        } else if p
            .parent()
            .and_then(|d| d.file_name())
            .is_some_and(|n| n == "data_splits" || n == "data-splits")
        {
            out.push(p);
        }
    }
}

/// Decodes `serialized` with `fields`' types and rebuilds it with [`BinaryRowBuilder`].
fn rebuild(serialized: &[u8], fields: &[DataField]) -> (Vec<Datum>, Vec<u8>) {
    let types: Vec<_> = fields.iter().map(|f| f.data_type.clone()).collect();
    let values = BinaryRow::from_serialized(serialized)
        .unwrap()
        .to_datums(&types)
        .unwrap_or_else(|e| panic!("{fields:?}: {e}"));
    let mut b = BinaryRowBuilder::new(types);
    for (i, v) in values.iter().enumerate() {
        b.set(i, v.clone()).unwrap();
    }
    (values, b.build_serialized().unwrap())
}

/// Rebuilds a file's value stats from the typed values with `SimpleStats::from_col_stats`.
fn rebuild_value_stats(
    f: &DataFileMeta,
    schema: &TableSchema,
) -> (SimpleStats, Option<Vec<String>>) {
    let stats_fields = match &f.value_stats_cols {
        Some(cols) => schema.project(cols),
        None => schema.fields.clone(),
    };
    let (min, _) = rebuild(&f.value_stats.min_values, &stats_fields);
    let (max, _) = rebuild(&f.value_stats.max_values, &stats_fields);
    let nulls = f.value_stats.null_counts.clone().unwrap();
    let col_stats: Vec<ColStats> = schema
        .fields
        .iter()
        .map(
            |field| match stats_fields.iter().position(|s| s.name == field.name) {
                Some(i) => ColStats::new(min[i].clone(), max[i].clone(), nulls[i]),
                None => ColStats::none(),
            },
        )
        .collect();
    SimpleStats::from_col_stats(&schema.fields, &col_stats, f.value_stats_cols.is_some()).unwrap()
}

/// Splits of a table that was re-created without keeping its schema: its README describes a
/// second, unpartitioned table (bucket -1, row tracking) whose `schema-0` is not in the
/// directory.
const NO_SCHEMA: [&str; 1] =
    ["orc/append_table_with_first_row_id.db/append_table_with_first_row_id/data_splits/data_split-02"];

/// The schema a file was written with: the table's `schema-<id>`, or a branch's when the
/// split reads a branch (whose schema of the same id may differ).
fn file_schema(table: &Path, f: &DataFileMeta, partition: &[u8]) -> Option<TableSchema> {
    let name = format!("schema-{}", f.schema_id);
    let mut candidates = vec![table.join("schema").join(&name)];
    if let Ok(branches) = std::fs::read_dir(table.join("branch")) {
        let mut b: Vec<_> = branches
            .flatten()
            .map(|e| e.path().join("schema").join(&name))
            .collect();
        b.sort();
        candidates.extend(b);
    }
    let stats_arity = BinaryRow::from_serialized(&f.value_stats.min_values)
        .unwrap()
        .arity();
    let partition_arity = BinaryRow::from_serialized(partition).unwrap().arity();
    candidates
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|text| TableSchema::from_json_str(&text).unwrap())
        .find(|s| {
            s.partition_keys.len() == partition_arity
                && match &f.value_stats_cols {
                    Some(cols) => cols.iter().all(|c| s.field(c).is_some()),
                    None => s.fields.len() == stats_arity,
                }
        })
}

#[test]
fn java_written_partitions_keys_and_stats_rebuild_byte_for_byte() {
    let mut files = Vec::new();
    split_files(&testdata("paimon-cpp"), &mut files);
    files.sort();
    let (mut partitions, mut stats, mut keys, mut typed_values, mut dense) = (0, 0, 0, 0, 0);
    let mut unmatched = Vec::new();
    for path in &files {
        let table = path.parent().unwrap().parent().unwrap();
        let split = decode_any(&std::fs::read(path).unwrap()).unwrap();
        let s = split.split.data_split().unwrap();
        for f in &s.data_files {
            let Some(schema) = file_schema(table, f, &s.partition) else {
                let rel = path.strip_prefix(testdata("paimon-cpp")).unwrap();
                unmatched.push(rel.display().to_string());
                continue;
            };
            let ctx = format!("{} {}", path.display(), f.file_name);
            let (_, partition) = rebuild(&s.partition, &schema.partition_fields());
            assert_eq!(partition, s.partition, "partition of {ctx}");
            partitions += 1;
            let (stats_again, cols) = rebuild_value_stats(f, &schema);
            assert_eq!(stats_again, f.value_stats, "value stats of {ctx}");
            assert_eq!(cols, f.value_stats_cols, "value stats columns of {ctx}");
            dense += usize::from(cols.is_some());
            typed_values += BinaryRow::from_serialized(&f.value_stats.min_values)
                .unwrap()
                .arity();
            stats += 1;
            if !schema.primary_keys.is_empty() {
                let key_fields = schema.trimmed_primary_key_fields();
                for key in [&f.min_key, &f.max_key] {
                    let (_, again) = rebuild(key, &key_fields);
                    assert_eq!(&again[..], &key[..], "key of {ctx}");
                    keys += 1;
                }
            }
        }
    }
    unmatched.dedup();
    assert_eq!(
        unmatched, NO_SCHEMA,
        "splits whose files fit no schema of their table"
    );
    // Every file counted: the paimon-cpp splits cover append and primary-key tables,
    // partitioned and not, ORC and Parquet.
    assert!(stats >= 50, "only {stats} files");
    assert!(
        partitions == stats && keys > 0 && typed_values > stats,
        "{keys} keys"
    );
    assert!(dense > 0, "no file with _VALUE_STATS_COLS");
}
