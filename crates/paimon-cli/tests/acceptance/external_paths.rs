//! `data-file.external-paths` with the `round-robin` strategy: `paimon write` puts each new
//! data file under the next external root in turn (in `<partition>/bucket-N/` below it) and
//! records its full path in the file's metadata; Java 1.4.2 reads the rows kept here and writes
//! on the table (its files going to the external roots too), and both read the same rows after.
//! Our own compaction of such a table is refused with nothing committed, and with the default
//! strategy `none` the files stay in the table's directory, as Java's do.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::maintenance::{oracle, our_rows};
use crate::write_cmd::{canonical, java_rows, ok, paimon, s};

/// Every data file under `dir`.
fn data_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if !dir.exists() {
        return out;
    }
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(data_files(&p));
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("data-"))
        {
            out.push(p);
        }
    }
    out
}

fn create(t: &Path, options: &[String]) {
    let mut args: Vec<String> = [
        "create-table",
        s(t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#,
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    for o in options {
        args.push("--option".into());
        args.push(o.clone());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&args);
}

fn write(t: &Path, dir: &Path, name: &str, ids: std::ops::Range<i64>) -> Vec<Value> {
    let rows: Vec<Value> = ids
        .map(|i| json!({"id": i, "v": format!("v{i}")}))
        .collect();
    let file = dir.join(name);
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&file, text).unwrap();
    ok(&["write", s(t), "--from", s(&file)]);
    rows
}

#[test]
fn files_go_to_the_external_roots_in_turn_and_java_reads_and_writes_on_them() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let (ext1, ext2) = (dir.path().join("ext1"), dir.path().join("ext2"));
    create(
        &t,
        &[
            format!(
                "data-file.external-paths=file://{},file://{}",
                s(&ext1),
                s(&ext2)
            ),
            "data-file.external-paths.strategy=round-robin".into(),
            // A file rolls at every 1,000-record size check: one writer writes several files.
            "target-file-size=1 b".into(),
        ],
    );
    let mut want = write(&t, dir.path(), "a.jsonl", 0..3000);
    // 3 files, alternating between the roots, each in bucket-0 below its root.
    assert!(data_files(&t).is_empty(), "{:?}", data_files(&t));
    let (n1, n2) = (data_files(&ext1).len(), data_files(&ext2).len());
    assert_eq!(n1 + n2, 3, "{n1} + {n2}");
    assert!(n1 >= 1 && n2 >= 1, "{n1} / {n2}");
    for f in data_files(&ext1).iter().chain(&data_files(&ext2)) {
        assert_eq!(
            f.parent().unwrap().file_name().unwrap(),
            "bucket-0",
            "{f:?}"
        );
        let root = f.parent().unwrap().parent().unwrap();
        assert!(root == ext1 || root == ext2, "{f:?}");
    }
    assert_eq!(java_rows(&t), canonical(want.clone()));

    // Ours refuses to compact it, and commits nothing.
    let snapshots = std::fs::read_dir(t.join("snapshot")).unwrap().count();
    let out = paimon(&["compact", s(&t), "--full"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("external data paths"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_dir(t.join("snapshot")).unwrap().count(),
        snapshots
    );

    // Java writes on it (into the external roots too); both read the same rows.
    let msgs = dir.path().join("java-msgs");
    oracle(&[
        "prepare-messages",
        s(&t),
        s(&msgs),
        "--from",
        "5000",
        "--to",
        "5010",
        "--commit",
        "true",
    ]);
    want.extend((5000..5010).map(|i| json!({"id": i, "v": format!("java-{i}")})));
    want.extend(write(&t, dir.path(), "b.jsonl", 6000..6010));
    assert!(data_files(&t).is_empty(), "{:?}", data_files(&t));
    assert_eq!(data_files(&ext1).len() + data_files(&ext2).len(), 5);
    assert_eq!(java_rows(&t), canonical(want.clone()));
    assert_eq!(our_rows(&t), canonical(want));
}

#[test]
fn with_the_default_strategy_files_stay_in_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let ext = dir.path().join("ext");
    create(
        &t,
        &[format!("data-file.external-paths=file://{}", s(&ext))],
    );
    let want = write(&t, dir.path(), "a.jsonl", 0..10);
    assert!(data_files(&ext).is_empty());
    assert_eq!(data_files(&t).len(), 1);
    assert_eq!(java_rows(&t), canonical(want));
}
