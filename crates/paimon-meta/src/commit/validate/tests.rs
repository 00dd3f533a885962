//! Commit messages naming files outside the table are refused before anything is written, and
//! aborting them deletes nothing.

use std::path::Path;
use std::sync::Arc;

use paimon_spec::binary::BinaryRowBuilder;
use paimon_spec::data_file::DataFileMeta;
use paimon_spec::index_file::IndexFileMeta;
use paimon_spec::layout::TableRoots;
use paimon_split::commit::CommitMessage;

use super::check_message_paths;
use crate::commit::tests::copy_fixture;
use crate::error::Error;
use crate::table::Table;

fn open(p: &Path) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

/// Every file under `dir` with its bytes, sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(tree(&p));
        } else {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

/// A message adding one new file shaped like a live file of the table, changed by `f`.
fn message(t: &Table, f: impl FnOnce(&mut DataFileMeta)) -> CommitMessage {
    let live = t.live_files(None).unwrap();
    let mut file = live[0].file.clone();
    file.file_name = "data-new-0.parquet".into();
    f(&mut file);
    let partition = BinaryRowBuilder::new(Vec::new())
        .build_serialized()
        .unwrap();
    let mut m = CommitMessage::new(partition, live[0].bucket)
        .with_total_buckets(Some(live[0].total_buckets));
    m.data_increment.new_files.push(file);
    m
}

fn index_file(name: &str, external: Option<&str>) -> IndexFileMeta {
    IndexFileMeta {
        index_type: "DELETION_VECTORS".into(),
        file_name: name.into(),
        file_size: 10,
        row_count: 1,
        dv_ranges: None,
        external_path: external.map(str::to_string),
        global_index: None,
    }
}

#[test]
fn messages_naming_files_outside_the_table_are_refused_and_abort_deletes_nothing() {
    let (dir, p) = copy_fixture("append.db/unaware");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("important");
    std::fs::write(&victim, b"keep me").unwrap();
    // `../../victim` from the bucket directory `t/bucket-0`.
    std::fs::write(dir.path().join("victim"), b"keep me too").unwrap();
    let victim_url = format!("file://{}", victim.display());
    let t = open(&p);
    let rows_before = t.live_files(None).unwrap();
    let table_before = tree(&p);
    let outside_before = tree(dir.path());

    let cases: Vec<(&str, CommitMessage)> = vec![
        ("../x", message(&t, |f| f.file_name = "../x".into())),
        (
            "/elsewhere/important",
            message(&t, |f| f.file_name = "/elsewhere/important".into()),
        ),
        (
            "s3://other-bucket/x",
            message(&t, |f| f.external_path = Some("s3://other-bucket/x".into())),
        ),
        (
            &victim_url,
            message(&t, |f| f.external_path = Some(victim_url.clone())),
        ),
        (
            "../../victim",
            message(&t, |f| f.extra_files = vec!["../../victim".into()]),
        ),
        ("../../victim", {
            let mut m = message(&t, |_| {});
            m.data_increment
                .new_index_files
                .push(index_file("../../victim", None));
            m
        }),
        (&victim_url, {
            let mut m = message(&t, |_| {});
            m.compact_increment
                .new_index_files
                .push(index_file("index-1", Some(&victim_url)));
            m
        }),
        ("../x", {
            let mut m = message(&t, |_| {});
            let f = m.data_increment.new_files.pop().unwrap();
            let mut bad = f.clone();
            bad.file_name = "../x".into();
            m.compact_increment.compact_before.push(f);
            m.compact_increment.compact_after.push(bad);
            m
        }),
    ];
    for (i, (bad, m)) in cases.iter().enumerate() {
        let e = t
            .new_commit("u")
            .commit(i as i64 + 1, std::slice::from_ref(m));
        let Err(Error::InvalidCommit { reason, .. }) = &e else {
            panic!("case {i}: {e:?}")
        };
        assert!(reason.contains(bad), "case {i}: {reason}");
        assert!(reason.contains("commit message 0"), "case {i}: {reason}");
        // Aborting it must not delete what it names either.
        let e = t.new_commit("u").abort(std::slice::from_ref(m));
        assert!(e.is_err(), "case {i}: abort {e:?}");
    }
    assert_eq!(tree(&p), table_before, "nothing written in the table");
    assert_eq!(tree(dir.path()), outside_before, "nothing deleted anywhere");
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    let t = open(&p);
    assert_eq!(t.live_files(None).unwrap().len(), rows_before.len());
}

#[test]
fn field_names_say_where_the_path_is() {
    let roots = TableRoots::new("/w/t").with_external(&["s3://ext/root"]);
    let ok_file = |name: &str, ext: Option<&str>| DataFileMeta {
        external_path: ext.map(str::to_string),
        ..crate::scan::live::tests::file(name)
    };
    let mut m = CommitMessage::new(vec![0; 8], 3);
    m.data_increment.new_files.push(ok_file(
        "data-1.orc",
        Some("s3://ext/root/bucket-3/data-1.orc"),
    ));
    m.data_increment.new_files.push(ok_file("data-2.orc", None));
    m.data_increment
        .new_index_files
        .push(index_file("index-1", Some("/w/t/index/index-1")));
    check_message_paths(&roots, std::slice::from_ref(&m)).unwrap();

    let mut bad = m.clone();
    bad.compact_increment
        .changelog_files
        .push(ok_file("changelog-1.orc", Some("s3://ext/rootx/c")));
    let e = check_message_paths(&roots, &[m.clone(), bad]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("commit message 1 (bucket 3) compactChangelogFiles[0]._EXTERNAL_PATH"),
        "{text}"
    );
    assert!(text.contains("s3://ext/rootx/c"), "{text}");

    let mut bad = m.clone();
    bad.data_increment.new_files[1].extra_files = vec!["ok.index".into(), "a/b".into()];
    let e = check_message_paths(&roots, &[bad]).unwrap_err().to_string();
    assert!(e.contains("newFiles[1]._EXTRA_FILES[1]"), "{e}");

    let mut bad = m;
    bad.data_increment
        .deleted_index_files
        .push(index_file(".", None));
    let e = check_message_paths(&roots, &[bad]).unwrap_err().to_string();
    assert!(e.contains("deletedIndexFiles[0]._FILE_NAME"), "{e}");
}
