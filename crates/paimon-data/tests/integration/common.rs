//! Helpers: locating test data, reading splits, rendering rows.

use std::sync::Arc;

use arrow::util::display::array_value_to_string;
use arrow_array::RecordBatch;
use paimon_data::SplitReader;
use paimon_io::LocalFileIO;
pub use paimon_test_utils::cpp_testdata;

/// The directory of table `name` in format family `fmt` (e.g. "orc", "append_09").
pub fn table(fmt: &str, name: &str) -> String {
    let p = cpp_testdata()
        .join(fmt)
        .join(format!("{name}.db"))
        .join(name);
    assert!(p.is_dir(), "test table missing: {}", p.display());
    p.to_string_lossy().into_owned()
}

pub fn reader() -> SplitReader {
    SplitReader::builder(Arc::new(LocalFileIO::new())).build()
}

/// Renders every row as `v1|v2|...` (nulls as `null`), sorted.
pub fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut out = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            let cells: Vec<String> = b
                .columns()
                .iter()
                .map(|c| {
                    if c.is_null(r) {
                        "null".to_string()
                    } else {
                        array_value_to_string(c, r).unwrap()
                    }
                })
                .collect();
            out.push(cells.join("|"));
        }
    }
    out.sort();
    out
}

/// Reads the Java-serialized split file `split` of table `table_dir` with `reader`.
pub fn read_split_file(reader: &SplitReader, table_dir: &str, split: &str) -> Vec<RecordBatch> {
    let dir = if std::path::Path::new(table_dir).join("data_splits").is_dir() {
        "data_splits"
    } else {
        "data-splits"
    };
    let path = format!("{table_dir}/{dir}/{split}");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("split file {path}: {e}"));
    reader
        .read_bytes(table_dir, &bytes)
        .unwrap_or_else(|e| panic!("reading {path}: {e}"))
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

pub fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}
