//! Hostile splits for `paimon read-split`: lying counts and lengths in the raw bytes, values no
//! planner writes, and paths that try to leave the table directory.
//!
//! Each starts from a split our planner wrote for a copied fixture table, changes one thing,
//! and must end in a typed error (exit 1, one line naming the split file or the offending path,
//! no rows) under the harness's memory bound, or, where the change is harmless (a bucket path
//! under another scheme is re-rooted at the table), in exactly the unchanged split's rows.

use std::path::{Path, PathBuf};

use paimon_split::{decode_split, encode_split, DataSplit, SplitEnvelope};

use crate::harness::{copy_dir, judge_error, judge_read, latest_schema, run_paimon, Outcome};
use crate::tables::fixture;

/// A planned split of a copied table, with the rows it reads unchanged.
struct Planned {
    table: PathBuf,
    split: DataSplit,
    rows: Vec<String>,
}

/// Copies `db/table` under `root`, plans it with our CLI and reads its first split once.
fn plan(root: &Path, db: &str, table: &str, want_dv: bool) -> Planned {
    let dir = root.join(table);
    copy_dir(&fixture(db, table), &dir);
    let out = root.join(format!("{table}-splits"));
    let run = run_paimon(&[
        "plan".into(),
        dir.to_string_lossy().into_owned(),
        "--out-dir".into(),
        out.to_string_lossy().into_owned(),
    ]);
    assert_eq!(run.code, Some(0), "plan {table}: {}", run.stderr);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&out)
        .expect("split dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let split = files
        .iter()
        .map(|f| decode_split(&std::fs::read(f).expect("read split")).expect("decode split"))
        .find(|s| !want_dv || s.deletion_file(0).is_some())
        .unwrap_or_else(|| panic!("{table}: no suitable split"));
    let file = root.join(format!("{table}-baseline.bin"));
    std::fs::write(
        &file,
        encode_split(&split, 9, SplitEnvelope::Raw).expect("encode"),
    )
    .unwrap();
    let run = read_split(&dir, &file);
    assert_eq!(run.code, Some(0), "baseline {table}: {}", run.stderr);
    Planned {
        table: dir,
        split,
        rows: run.stdout.lines().map(str::to_string).collect(),
    }
}

fn read_split(table: &Path, split: &Path) -> crate::harness::Run {
    run_paimon(&[
        "read-split".into(),
        table.to_string_lossy().into_owned(),
        split.to_string_lossy().into_owned(),
        "--format".into(),
        "jsonl".into(),
    ])
}

/// A change to a decoded split.
type EditSplit = Box<dyn Fn(&mut DataSplit)>;
/// A change to encoded split bytes, given the (changed) split they encode.
type EditBytes = Box<dyn Fn(&mut Vec<u8>, &DataSplit)>;

/// How a hostile split is made.
enum Make {
    /// Change the decoded split, then encode it (version 9, raw).
    Value(EditSplit),
    /// Encode the split (after the change), then edit the bytes.
    Bytes(EditSplit, EditBytes),
}

struct HostileCase {
    name: &'static str,
    /// `unaware` (append, parquet), `dv_append` (a split with a deletion file) or
    /// `data_evolution` (a split of two row-id ranges, each in two column groups).
    table: &'static str,
    make: Make,
    /// Accepted names in the error (any one).
    names: Vec<String>,
    /// Exactly the unchanged split's rows is also acceptable.
    may_read: bool,
}

/// Puts `v` as a big-endian i32 at `at`.
fn put_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn cases(escape: &Path) -> Vec<HostileCase> {
    let esc = escape.to_string_lossy().into_owned();
    let c = |name, table, make, names: &[&str], may_read| HostileCase {
        name,
        table,
        make,
        names: names.iter().map(|s| s.to_string()).collect(),
        may_read,
    };
    let value = |f: fn(&mut DataSplit)| Make::Value(Box::new(f));
    // With no data files and no deletion files a v9 split ends in
    // `[files: i32][dv flag: u8][streaming: u8][raw: u8]`.
    let no_files = |s: &mut DataSplit| {
        s.data_files.clear();
        s.data_deletion_files = None;
    };
    let esc1 = esc.clone();
    let esc2 = esc.clone();
    let esc3 = esc.clone();
    let esc4 = esc.clone();
    vec![
        c(
            "raw bytes claim 2^31-1 data files",
            "unaware",
            Make::Bytes(
                Box::new(no_files),
                Box::new(|b, _| {
                    let at = b.len() - 7;
                    put_i32(b, at, i32::MAX);
                }),
            ),
            &["split"],
            false,
        ),
        c(
            "raw bytes claim -1 data files",
            "unaware",
            Make::Bytes(
                Box::new(no_files),
                Box::new(|b, _| {
                    let at = b.len() - 7;
                    put_i32(b, at, -1);
                }),
            ),
            &["split"],
            false,
        ),
        c(
            "raw bytes claim 2^31-1 deletion files",
            "unaware",
            Make::Bytes(
                Box::new(|s| {
                    s.data_files.clear();
                    s.data_deletion_files = Some(vec![]);
                }),
                Box::new(|b, _| {
                    let at = b.len() - 6;
                    put_i32(b, at, i32::MAX);
                }),
            ),
            &["split"],
            false,
        ),
        c(
            "raw bytes: first file meta claims 2^31-1 bytes",
            "unaware",
            Make::Bytes(
                Box::new(|s| {
                    s.data_files.truncate(1);
                    s.data_deletion_files = None;
                }),
                Box::new(|b, s| {
                    // The same split without files ends `[count][dv flag][2 bools]`; with one
                    // file the meta's size field sits where that dv flag was.
                    let mut empty = s.clone();
                    empty.data_files.clear();
                    let e = encode_split(&empty, 9, SplitEnvelope::Raw).expect("encode");
                    put_i32(b, e.len() - 3, i32::MAX);
                }),
            ),
            &["split"],
            false,
        ),
        c(
            "truncated split bytes",
            "unaware",
            Make::Bytes(Box::new(|_| {}), Box::new(|b, _| b.truncate(b.len() / 2))),
            &["split"],
            false,
        ),
        c(
            "empty split file",
            "unaware",
            Make::Bytes(Box::new(|_| {}), Box::new(|b, _| b.clear())),
            &["split"],
            false,
        ),
        c(
            "trailing garbage after the split",
            "unaware",
            Make::Bytes(
                Box::new(|_| {}),
                Box::new(|b, _| b.extend_from_slice(b"garbage")),
            ),
            &["split"],
            false,
        ),
        c(
            "negative row count",
            "unaware",
            value(|s| s.data_files[0].row_count = -1),
            &["split"],
            false,
        ),
        c(
            "negative file size",
            "unaware",
            value(|s| s.data_files[0].file_size = -1),
            &["split"],
            false,
        ),
        c(
            "row count i64::MAX",
            "unaware",
            value(|s| s.data_files[0].row_count = i64::MAX),
            &["split", "row count", "data-"],
            true,
        ),
        c(
            "row count i64::MAX with a deletion vector",
            "dv_append",
            value(|s| s.data_files[0].row_count = i64::MAX),
            &["data-"],
            true,
        ),
        c(
            "row count 1 with a deletion vector past it",
            "dv_append",
            value(|s| s.data_files[0].row_count = 1),
            &["data-"],
            false,
        ),
        c(
            "negative row count with a deletion vector",
            "dv_append",
            value(|s| s.data_files[0].row_count = -1),
            &["split"],
            false,
        ),
        c(
            "deletion file offset past the end",
            "dv_append",
            value(|s| dv(s).offset = 1 << 40),
            &["index-"],
            false,
        ),
        c(
            "deletion file offset -1",
            "dv_append",
            value(|s| dv(s).offset = -1),
            &["index-"],
            false,
        ),
        c(
            "deletion file length -1",
            "dv_append",
            value(|s| dv(s).length = -1),
            &["index-"],
            false,
        ),
        c(
            "deletion file length i64::MAX",
            "dv_append",
            value(|s| dv(s).length = i64::MAX),
            &["index-"],
            false,
        ),
        c(
            "deletion file path with ../",
            "dv_append",
            value(|s| {
                let d = dv(s);
                d.path = format!("{}/../../../../etc/passwd", d.path);
            }),
            &["../"],
            false,
        ),
        c(
            "deletion file path named ..",
            "dv_append",
            value(|s| dv(s).path = "/x/..".into()),
            &[".."],
            false,
        ),
        c(
            "bucket path with ../ to a copy outside the table",
            "unaware",
            Make::Value(Box::new(move |s| {
                s.bucket_path = format!("{}/../escape/bucket-0", s.bucket_path);
            })),
            &["../escape"],
            false,
        ),
        c(
            "absolute bucket path of a copy outside the table",
            "unaware",
            Make::Value(Box::new(move |s| {
                s.bucket_path = format!("{esc1}/bucket-0");
            })),
            &["escape/bucket-0"],
            true,
        ),
        c(
            "relative bucket path ../escape/bucket-0 (re-rooted: only bucket-0 is followed)",
            "unaware",
            value(|s| s.bucket_path = "../escape/bucket-0".into()),
            &["../escape"],
            true,
        ),
        c(
            "bucket path in a sibling directory sharing the table's prefix",
            "unaware",
            Make::Value(Box::new(move |s| {
                // `<table>x/bucket-0` is not under `<table>`.
                s.bucket_path = s.bucket_path.replace("/bucket-0", "x/bucket-0");
            })),
            &["bucket-0"],
            true,
        ),
        c(
            "bucket path under another scheme (re-rooted at the table)",
            "unaware",
            value(|s| s.bucket_path = "s3://other-bucket/warehouse/db.db/t/bucket-0".into()),
            &["s3://"],
            true,
        ),
        c(
            "data file name with ../ into a copy outside the table",
            "unaware",
            value(|s| {
                let f = &mut s.data_files[0];
                f.file_name = format!("../../escape/bucket-0/{}", f.file_name);
            }),
            &["../"],
            false,
        ),
        c(
            "data file name with a directory",
            "unaware",
            value(|s| {
                let f = &mut s.data_files[0];
                f.file_name = format!("sub/{}", f.file_name);
            }),
            &["sub/"],
            false,
        ),
        c(
            "absolute data file name",
            "unaware",
            Make::Value(Box::new(move |s| {
                let f = &mut s.data_files[0];
                f.file_name = format!("{esc2}/bucket-0/{}", f.file_name);
            })),
            &["escape/bucket-0"],
            false,
        ),
        c(
            "data file name ..",
            "unaware",
            value(|s| s.data_files[0].file_name = "..".into()),
            &[".."],
            false,
        ),
        c(
            "empty data file name",
            "unaware",
            value(|s| s.data_files[0].file_name = String::new()),
            &["file name"],
            false,
        ),
        c(
            "explicit external path to a copy outside the table (allowed)",
            "unaware",
            Make::Value(Box::new(move |s| {
                for f in &mut s.data_files {
                    f.external_path = Some(format!("{esc3}/bucket-0/{}", f.file_name));
                }
            })),
            &[],
            true,
        ),
        c(
            "external path that does not exist falls back to the table",
            "unaware",
            Make::Value(Box::new(move |s| {
                for f in &mut s.data_files {
                    f.external_path = Some(format!("{esc4}/nowhere/{}", f.file_name));
                }
            })),
            &[],
            true,
        ),
        c(
            "data file written by a schema that does not exist",
            "unaware",
            value(|s| s.data_files[0].schema_id = 99),
            &["schema-99", "schema 99"],
            false,
        ),
        c(
            "missing data file",
            "unaware",
            value(|s| s.data_files[0].file_name = "data-missing-0.parquet".into()),
            &["data-missing-0.parquet"],
            false,
        ),
        // The two column groups of row ids [0, 20) no longer line up (Java 1.4 refuses such a
        // range in `mergeRangesAndSort`). The error names a file of the range.
        c(
            "data-evolution file shifted 5 row ids off its range",
            "data_evolution",
            value(|s| {
                if let Some(f) = s.data_files.iter_mut().find(|f| f.row_count == 20) {
                    f.first_row_id = Some(5);
                }
            }),
            &[EDITED_FILE, RANGE_FILES],
            false,
        ),
        c(
            "data-evolution file claiming 15 of its range's 20 rows",
            "data_evolution",
            value(|s| {
                if let Some(f) = s.data_files.iter_mut().rev().find(|f| f.row_count == 20) {
                    f.row_count = 15;
                }
            }),
            &[EDITED_FILE, RANGE_FILES],
            false,
        ),
    ]
}

/// In `names`: the file names of the data files the edit changed.
const EDITED_FILE: &str = "<edited file>";
/// In `names`: the file names of the data files of the row-id range [0, 20).
const RANGE_FILES: &str = "<range files>";

/// The deletion file of data file 0.
fn dv(s: &mut DataSplit) -> &mut paimon_spec::data_file::DeletionFile {
    s.data_deletion_files
        .as_mut()
        .and_then(|v| v.get_mut(0))
        .and_then(Option::as_mut)
        .expect("a deletion file")
}

/// Runs every hostile split; returns each case with its outcome.
pub fn run_all() -> Vec<(String, Outcome)> {
    let root = tempfile::tempdir().expect("tempdir");
    let unaware = plan(root.path(), "append", "unaware", false);
    let dv_append = plan(root.path(), "append", "dv_append", true);
    let data_evolution = plan(root.path(), "append", "data_evolution", false);
    // A copy of the table outside it: a path escape that worked would read it.
    let escape = root.path().join("escape");
    copy_dir(&fixture("append", "unaware"), &escape);
    let schema = latest_schema(&fixture("append", "unaware"));
    let mut out = Vec::new();
    for (i, case) in cases(&escape).into_iter().enumerate() {
        let planned = match case.table {
            "dv_append" => &dv_append,
            "data_evolution" => &data_evolution,
            _ => &unaware,
        };
        let mut split = planned.split.clone();
        let bytes = match &case.make {
            Make::Value(f) => {
                f(&mut split);
                encode_split(&split, 9, SplitEnvelope::Raw).expect("encode")
            }
            Make::Bytes(f, g) => {
                f(&mut split);
                let mut b = encode_split(&split, 9, SplitEnvelope::Raw).expect("encode");
                g(&mut b, &split);
                b
            }
        };
        let file = root.path().join(format!("hostile-split-{i:02}.bin"));
        std::fs::write(&file, bytes).expect("write split");
        let run = read_split(&planned.table, &file);
        let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
        let edited: Vec<&str> = split
            .data_files
            .iter()
            .zip(&planned.split.data_files)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| a.file_name.as_str())
            .collect();
        let range: Vec<&str> = planned
            .split
            .data_files
            .iter()
            .filter(|f| f.first_row_id == Some(0))
            .map(|f| f.file_name.as_str())
            .collect();
        let names: Vec<&str> = case
            .names
            .iter()
            .flat_map(|n| match n.as_str() {
                "split" => vec![file_name.as_str()],
                EDITED_FILE => edited.clone(),
                RANGE_FILES => range.clone(),
                other => vec![other],
            })
            .collect();
        let o = if case.may_read {
            judge_read(&run, &planned.rows, &schema.fields, &names, true)
        } else {
            judge_error(&run, &names)
        };
        out.push((format!("{} ({})", case.name, case.table), o));
    }
    out
}
