//! The check-from snapshot of version-14 messages (pypaimon 2.1 / Java 2.x row-id conflict
//! check), on the Java-written data-evolution fixture: snapshots 1 and 2 append rows 0..30
//! (`nextRowId` 30), snapshots 3 and 4 rewrite columns of rows below 30.

use std::path::Path;
use std::sync::Arc;

use paimon_spec::binary::BinaryRowBuilder;
use paimon_split::commit::CommitMessage;

use crate::commit::tests::copy_fixture;
use crate::error::Error;
use crate::scan::LiveFile;
use crate::table::Table;

fn open(p: &Path) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

/// A live file of the fixture that snapshots 3 or 4 added (not live at snapshot 2).
fn file_added_after_snapshot_2(t: &Table) -> LiveFile {
    let at_2: Vec<String> = t
        .live_files(Some(t.scan().with_snapshot(2)))
        .unwrap()
        .into_iter()
        .map(|f| f.file.file_name)
        .collect();
    let f = t
        .live_files(None)
        .unwrap()
        .into_iter()
        .find(|f| !at_2.contains(&f.file.file_name))
        .unwrap();
    assert!(f.file.first_row_id.unwrap() < 30, "{:?}", f.file);
    f
}

/// A message adding a new file over the rows and columns of `like`, based on `check_from`.
fn rewrite_of(like: &LiveFile, check_from: Option<i64>) -> CommitMessage {
    let mut file = like.file.clone();
    file.file_name = "data-rewrite-0.parquet".into();
    let partition = BinaryRowBuilder::new(Vec::new())
        .build_serialized()
        .unwrap();
    let mut m = CommitMessage::new(partition, like.bucket).with_check_from_snapshot(check_from);
    m.data_increment.new_files.push(file);
    m
}

#[test]
fn a_rewrite_of_rows_changed_after_its_check_from_snapshot_is_a_conflict() {
    let (_dir, p) = copy_fixture("append.db/data_evolution");
    let t = open(&p);
    let changed = file_added_after_snapshot_2(&t);
    let err = t
        .new_commit("u")
        .commit(1, &[rewrite_of(&changed, Some(2))])
        .unwrap_err();
    assert!(matches!(err, Error::CommitConflict { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("check-from snapshot 2"), "{text}");
    assert!(text.contains(&changed.file.file_name), "{text}");
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), Some(4));
}

#[test]
fn a_rewrite_based_on_the_latest_snapshot_commits() {
    let (_dir, p) = copy_fixture("append.db/data_evolution");
    let t = open(&p);
    let changed = file_added_after_snapshot_2(&t);
    let ids = t
        .new_commit("u")
        .commit(1, &[rewrite_of(&changed, Some(4))])
        .unwrap();
    assert_eq!(ids, vec![5]);
    let live = t.live_files(None).unwrap();
    let new = live
        .iter()
        .find(|f| f.file.file_name == "data-rewrite-0.parquet")
        .unwrap();
    assert_eq!(new.file.first_row_id, changed.file.first_row_id);
}

#[test]
fn a_rewrite_of_other_columns_than_those_changed_commits() {
    let (_dir, p) = copy_fixture("append.db/data_evolution");
    let t = open(&p);
    let changed = file_added_after_snapshot_2(&t);
    let written = changed.file.write_cols.clone().unwrap_or_default();
    // A column of the table that neither snapshot 3 nor 4 rewrote in these rows.
    let untouched: Vec<String> = t
        .live_files(None)
        .unwrap()
        .iter()
        .filter(|f| !f.file.file_name.starts_with("data-rewrite"))
        .filter(|f| f.file.write_cols.is_some())
        .flat_map(|f| f.file.write_cols.clone().unwrap())
        .collect();
    let free = t
        .schema()
        .fields
        .iter()
        .map(|f| f.name.clone())
        .find(|n| !written.contains(n) && !untouched.contains(n));
    let Some(free) = free else {
        panic!("the fixture's later snapshots rewrote every column: {untouched:?}");
    };
    let mut m = rewrite_of(&changed, Some(2));
    m.data_increment.new_files[0].write_cols = Some(vec![free]);
    assert_eq!(t.new_commit("u").commit(1, &[m]).unwrap(), vec![5]);
}

#[test]
fn a_check_from_snapshot_that_does_not_exist_is_refused_by_name() {
    let (_dir, p) = copy_fixture("append.db/data_evolution");
    let t = open(&p);
    let changed = file_added_after_snapshot_2(&t);
    let err = t
        .new_commit("u")
        .commit(1, &[rewrite_of(&changed, Some(9))])
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCommit { .. }), "{err:?}");
    assert!(err.to_string().contains("check-from snapshot 9"), "{err}");
    let err = t
        .new_commit("u")
        .commit(1, &[rewrite_of(&changed, Some(-1))])
        .unwrap_err();
    assert!(
        err.to_string().contains("negative check-from snapshot -1"),
        "{err}"
    );
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), Some(4));
}

/// On a table without data evolution (pypaimon's delete by row id on a deletion-vector append
/// table), the check-from snapshot only has to exist: the message commits.
#[test]
fn a_check_from_snapshot_on_an_append_table_commits() {
    let (_dir, p) = copy_fixture("append.db/unaware");
    let t = open(&p);
    let latest = t.snapshot_manager().latest_id().unwrap().unwrap();
    let live = t.live_files(None).unwrap();
    let mut file = live[0].file.clone();
    file.file_name = "data-new-0.parquet".into();
    file.first_row_id = None;
    let mut m = rewrite_of(&live[0], Some(1));
    m.data_increment.new_files = vec![file];
    assert_eq!(t.new_commit("u").commit(1, &[m]).unwrap(), vec![latest + 1]);
}
