//! A split whose file metadata claims another row count than the data file holds is an error
//! naming the file and both counts (deletion vectors and row ranges address rows by position,
//! so reading on would return other rows).
//!
//! Files: the Java-written fixture tables `append.db/fmt_{parquet,orc}_none` and
//! `fmt_avro_null`, two commits of 25 rows each (`fixtures/expected/append/<t>/snapshot-1.jsonl`
//! holds 25 rows, `snapshot-2.jsonl` 50), one data file per commit.

use std::path::PathBuf;

use paimon_data::Error;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::stats::SimpleStats;
use paimon_split::DataSplit;

use crate::common::reader;

const TABLES: [&str; 3] = ["fmt_parquet_none", "fmt_orc_none", "fmt_avro_null"];

fn table_dir(table: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/warehouse/append.db")
        .join(table)
}

/// Rows of each data file, from Java's expected rows of the first snapshot (one file).
fn rows_per_file(table: &str) -> i64 {
    let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/expected/append")
        .join(table);
    let lines = |f: &str| {
        std::fs::read_to_string(expected.join(f))
            .unwrap()
            .lines()
            .count() as i64
    };
    let (one, two) = (lines("snapshot-1.jsonl"), lines("snapshot-2.jsonl"));
    assert_eq!(
        two,
        2 * one,
        "{table}: both commits write the same number of rows"
    );
    one
}

fn data_files(table: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(table_dir(table).join("bucket-0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("data-"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{table}");
    names
}

fn split(table: &str, file: &str, row_count: i64) -> DataSplit {
    let empty = paimon_spec::stats::empty_serialized_row();
    let meta = DataFileMeta {
        file_name: file.into(),
        file_size: std::fs::metadata(table_dir(table).join("bucket-0").join(file))
            .map_or(0, |m| m.len() as i64),
        row_count,
        min_key: empty.clone().into(),
        max_key: empty.clone().into(),
        key_stats: SimpleStats::empty(),
        value_stats: SimpleStats::empty(),
        min_sequence_number: 0,
        max_sequence_number: 0,
        schema_id: 0,
        level: 0,
        extra_files: Vec::new(),
        creation_time: None,
        delete_row_count: Some(0),
        embedded_index: None,
        file_source: Some(0),
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
        write_cols_sequences: None,
    };
    DataSplit {
        snapshot_id: 2,
        partition: empty,
        bucket: 0,
        bucket_path: table_dir(table).join("bucket-0").display().to_string(),
        total_buckets: Some(-1),
        before_files: Vec::new(),
        before_deletion_files: None,
        data_files: vec![meta],
        data_deletion_files: None,
        is_streaming: false,
        raw_convertible: true,
    }
}

fn read(table: &str, split: &DataSplit) -> Result<usize, Error> {
    let dir = table_dir(table).display().to_string();
    let mut n = 0;
    for b in reader().read(&dir, split)? {
        n += b?.num_rows();
    }
    Ok(n)
}

#[test]
fn the_right_row_count_reads_every_row() {
    for t in TABLES {
        let rows = rows_per_file(t);
        for f in data_files(t) {
            assert_eq!(
                read(t, &split(t, &f, rows)).unwrap() as i64,
                rows,
                "{t}/{f}"
            );
        }
    }
}

#[test]
fn a_wrong_row_count_is_an_error_naming_the_file_and_both_counts() {
    for t in TABLES {
        let rows = rows_per_file(t);
        let f = &data_files(t)[0];
        for claimed in [0, 1, rows - 1, rows + 1, 1 << 40] {
            let err = read(t, &split(t, f, claimed)).unwrap_err();
            match &err {
                Error::RowCountMismatch {
                    path,
                    expected,
                    found,
                } => {
                    assert!(path.ends_with(&format!("bucket-0/{f}")), "{path}");
                    assert_eq!((*expected, *found), (claimed, rows as u64), "{t}");
                }
                other => panic!("{t} claiming {claimed}: expected RowCountMismatch, got {other}"),
            }
            let msg = err.to_string();
            assert!(
                msg.contains(f.as_str())
                    && msg.contains(&format!("holds {rows} rows"))
                    && msg.contains(&format!("says {claimed}")),
                "{msg}"
            );
        }
        let err = read(t, &split(t, f, -1)).unwrap_err();
        assert!(
            matches!(&err, Error::Corrupt { path, reason } if path.ends_with(f.as_str()) && reason.contains("-1")),
            "{err}"
        );
    }
}

/// A file name whose extension is no format is reported with the file's full path.
#[test]
fn an_unknown_format_names_the_file_path() {
    let t = TABLES[0];
    let mut s = split(t, &data_files(t)[0], 1);
    s.data_files[0].file_name = "data-0.csv".into();
    let err = read(t, &s).unwrap_err();
    let want = table_dir(t)
        .join("bucket-0/data-0.csv")
        .display()
        .to_string();
    assert!(
        matches!(&err, Error::Unsupported { feature } if feature.contains(&want)),
        "{err}"
    );
}
