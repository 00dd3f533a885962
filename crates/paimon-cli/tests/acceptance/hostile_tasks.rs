//! Compaction tasks whose paths point out of the table (issue 39): `paimon compact-task`
//! derives where it writes from the task's partition and bucket, never from its
//! `bucket_path`, and refuses a task naming an input, external path or index file outside
//! the table before reading or writing anything.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use paimon_io::LocalFileIO;
use paimon_meta::Table;
use paimon_split::{decode_compact_task, encode_compact_task, CompactTask};

use crate::maintenance::{our_rows, paimon};
use crate::write_cmd::s;

/// A change that makes a planned compaction task hostile.
type TaskEdit<'a> = Box<dyn Fn(&mut CompactTask) + 'a>;

/// A primary-key table of one bucket written three times (three level-0 files).
fn three_writes(dir: &Path) -> PathBuf {
    let t = dir.join("t");
    paimon(&[
        "create-table",
        s(&t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=1",
    ]);
    for round in 0..3 {
        let csv = dir.join(format!("r{round}.csv"));
        let rows: String = (0..10)
            .map(|i| format!("{},r{round}-{i}\n", (i * 3 + round) % 15))
            .collect();
        std::fs::write(&csv, format!("id,v\n{rows}")).unwrap();
        paimon(&["write", s(&t), "--from", s(&csv)]);
    }
    t
}

/// The one task of a full compaction of `t`, planned by `paimon compact --plan-only`.
fn planned_task(dir: &Path, t: &Path) -> CompactTask {
    let tasks = dir.join("tasks");
    paimon(&[
        "compact",
        s(t),
        "--full",
        "--plan-only",
        "--out-dir",
        s(&tasks),
    ]);
    let files: Vec<PathBuf> = std::fs::read_dir(&tasks)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    decode_compact_task(&std::fs::read(&files[0]).unwrap()).unwrap()
}

/// Runs `task` with `paimon compact-task`, its messages going to `out`: the process output.
fn run_task(dir: &Path, t: &Path, task: &CompactTask, out: &Path) -> std::process::Output {
    let file = dir.join("hostile-task.bin");
    std::fs::write(&file, encode_compact_task(task).unwrap()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(["compact-task", s(t), s(&file), "--out-dir", s(out)])
        .output()
        .unwrap()
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// A task whose `bucket_path` names a directory outside the table (absolute, or climbing
/// out with `..`): the compacted files land in the table's own bucket directory, nothing is
/// written elsewhere, the message commits and the table reads the rows it held.
#[test]
fn a_task_bucket_path_elsewhere_writes_only_into_the_table() {
    for (i, hostile) in ["evil/bucket-0", "t/../evil/bucket-0"].iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let t = three_writes(dir.path());
        let rows = our_rows(&t);
        assert_eq!(rows.len(), 15);
        let mut task = planned_task(dir.path(), &t);
        task.split.bucket_path = format!("{}/{hostile}", dir.path().display());
        let out = dir.path().join(format!("messages-{i}"));
        let run = run_task(dir.path(), &t, &task, &out);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let evil = dir.path().join("evil");
        assert!(
            files_under(&evil).is_empty(),
            "{hostile}: written outside the table: {:?}",
            files_under(&evil)
        );
        let messages: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| s(&e.unwrap().path()).to_string())
            .collect();
        let mut args = vec!["commit", s(&t)];
        args.extend(messages.iter().map(String::as_str));
        paimon(&args);
        let table = Table::open(Arc::new(LocalFileIO::new()), s(&t)).unwrap();
        let latest = table.snapshot_manager().latest_id().unwrap().unwrap();
        let kind = table
            .snapshot_manager()
            .snapshot(latest)
            .unwrap()
            .commit_kind;
        assert_eq!(kind, "COMPACT");
        assert_eq!(our_rows(&t), rows, "{hostile}");
        let live = table.live_files(None).unwrap();
        assert_eq!(live.len(), 1, "{hostile}: {live:?}");
    }
}

/// A task naming an input's external path, an input file name or an index file outside the
/// table is refused with the field named, and nothing is read or written.
#[test]
fn a_task_naming_files_outside_the_table_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = three_writes(dir.path());
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let task = planned_task(dir.path(), &t);
    // A real data file of the table, copied out: the worker must not read it from there.
    let input = &task.split.data_files[0];
    let copy = outside.join(&input.file_name);
    std::fs::copy(t.join("bucket-0").join(&input.file_name), &copy).unwrap();
    let cases: Vec<(&str, TaskEdit)> = vec![
        (
            "_EXTERNAL_PATH",
            Box::new(|k: &mut CompactTask| {
                k.split.data_files[0].external_path = Some(s(&copy).to_string())
            }),
        ),
        (
            "_EXTERNAL_PATH",
            Box::new(|k: &mut CompactTask| {
                k.split.data_files[0].external_path =
                    Some("s3://other-bucket/t/bucket-0/data.parquet".to_string())
            }),
        ),
        (
            "DataFileMeta.fileName",
            Box::new(|k: &mut CompactTask| {
                k.split.data_files[0].file_name = "../../outside/data.parquet".to_string()
            }),
        ),
    ];
    for (i, (field, damage)) in cases.iter().enumerate() {
        let mut hostile = task.clone();
        damage(&mut hostile);
        let out = dir.path().join(format!("refused-{i}"));
        let run = run_task(dir.path(), &t, &hostile, &out);
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{field}: the task ran");
        assert!(err.contains(field), "{field}: {err}");
        assert!(!out.exists(), "{field}: messages written");
        assert_eq!(files_under(&outside), vec![copy.clone()]);
    }
    assert_eq!(our_rows(&t).len(), 15);
}
