//! Shared helpers: tables in temporary directories, splits over written files, reading them
//! back with paimon-data and with Java (the oracle, `scripts/java-oracle.sh`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use paimon_data::SplitReader;
use paimon_io::LocalFileIO;
use paimon_spec::schema::TableSchema;
use paimon_split::{encode_split, DataSplit, SplitEnvelope};
pub use paimon_test_utils::repo;
use paimon_write::{CommitMessage, TableWrite};

/// `../shared/testdata` next to the repository.
pub fn testdata() -> PathBuf {
    paimon_test_utils::shared_testdata()
}

/// Creates `dir/schema/schema-0` from a schema JSON and returns the parsed schema.
pub fn create_table(dir: &Path, schema_json: &str) -> TableSchema {
    let schema = TableSchema::from_json_str(schema_json).unwrap();
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::write(
        dir.join("schema/schema-0"),
        serde_json::to_string_pretty(&schema.to_json()).unwrap(),
    )
    .unwrap();
    schema
}

/// A writer for the table at `dir`.
pub fn table_write(dir: &Path, schema: &TableSchema) -> TableWrite {
    TableWrite::try_new(Arc::new(LocalFileIO::new()), dir.to_str().unwrap(), schema).unwrap()
}

/// A batch of `w`'s input schema from `columns`, each cast to its field's type.
pub fn input_batch(w: &TableWrite, columns: Vec<ArrayRef>) -> RecordBatch {
    let columns = columns
        .into_iter()
        .zip(w.input_schema().fields())
        .map(|(c, f)| arrow_cast::cast(&c, f.data_type()).unwrap())
        .collect();
    RecordBatch::try_new(w.input_schema().clone(), columns).unwrap()
}

/// A split reading every new file of `msg` (what a planner would produce after the commit).
pub fn split_of(dir: &Path, msg: &CommitMessage) -> DataSplit {
    DataSplit {
        snapshot_id: 1,
        partition: msg.partition.clone(),
        bucket: msg.bucket,
        bucket_path: bucket_dir_of(dir, msg),
        total_buckets: msg.total_buckets,
        before_files: Vec::new(),
        before_deletion_files: None,
        data_files: msg.data_increment.new_files.clone(),
        data_deletion_files: None,
        is_streaming: false,
        // Primary-key files (they have keys) are merged by the reader.
        raw_convertible: msg
            .data_increment
            .new_files
            .iter()
            .all(|f| f.max_key == paimon_spec::stats::empty_serialized_row()),
    }
}

/// The bucket directory holding the files of `msg` (found on disk: the writer chose it).
pub fn bucket_dir_of(dir: &Path, msg: &CommitMessage) -> String {
    let name = &msg.data_increment.new_files[0].file_name;
    find_file(dir, name)
        .and_then(|p| p.parent().map(|d| d.to_str().unwrap().to_string()))
        .unwrap_or_else(|| panic!("{name} not under {}", dir.display()))
}

fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()? {
        let p = e.ok()?.path();
        if p.is_dir() {
            if let Some(f) = find_file(&p, name) {
                return Some(f);
            }
        } else if p.file_name().and_then(|n| n.to_str()) == Some(name) {
            return Some(p);
        }
    }
    None
}

/// Every data file under `dir`.
pub fn data_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("data-"))
            {
                out.push(p);
            }
        }
    }
    out
}

/// Reads the splits of `messages` with paimon-data.
pub fn read_ours(dir: &Path, messages: &[CommitMessage]) -> Vec<RecordBatch> {
    let reader = SplitReader::builder(Arc::new(LocalFileIO::new())).build();
    let mut out = Vec::new();
    for m in messages {
        let bytes = encode_split(&split_of(dir, m), 8, SplitEnvelope::Raw).unwrap();
        for b in reader.read_bytes(dir.to_str().unwrap(), &bytes).unwrap() {
            out.push(b.unwrap());
        }
    }
    out
}

/// Java's rows (`read-split --sort`, its JSON encoding) of the splits of `messages`.
pub fn read_java(dir: &Path, messages: &[CommitMessage]) -> Vec<String> {
    let splits = dir.join("_splits");
    std::fs::create_dir_all(&splits).unwrap();
    let mut args = vec![
        "read-split".to_string(),
        dir.to_str().unwrap().to_string(),
        "--sort".to_string(),
    ];
    for (i, m) in messages.iter().enumerate() {
        let p = splits.join(format!("split-{i:04}.bin"));
        std::fs::write(
            &p,
            encode_split(&split_of(dir, m), 8, SplitEnvelope::Raw).unwrap(),
        )
        .unwrap();
        args.push(p.to_str().unwrap().to_string());
    }
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(&args)
        .output()
        .expect("scripts/java-oracle.sh runs (needs java and the oracle jar)");
    assert!(
        out.status.success(),
        "oracle read-split failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}
