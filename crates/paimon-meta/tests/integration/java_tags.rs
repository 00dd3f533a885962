//! Tags, branches, rollback and consumers against Java 1.4.2 (the oracle's `table-op`): the same
//! operations done by Java's `Table` API and by ours on two copies of the Java-written
//! `pk.db/many_snapshots` leave the same files with the same bytes (tag files with a retention
//! time aside, which hold the creation time), and Java reads what ours leave.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_meta::branch::BranchStart;
use paimon_meta::Table;

use crate::common::{copy_dir, oracle, repo};

fn open(p: &Path) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

/// Two copies of the fixture: (ours, Java's).
fn copies() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let src = repo().join("fixtures/warehouse/pk.db/many_snapshots");
    let dir = tempfile::tempdir().unwrap();
    let (ours, java) = (dir.path().join("ours"), dir.path().join("java"));
    copy_dir(&src, &ours);
    copy_dir(&src, &java);
    (dir, ours, java)
}

fn java(table: &Path, args: &[&str]) {
    let mut all = vec!["table-op", table.to_str().unwrap()];
    all.extend_from_slice(args);
    assert_eq!(oracle(&all), vec!["ok".to_string()], "{args:?}");
}

fn dump(table: &Path, scan: &[&str]) -> Vec<String> {
    let mut all = vec!["dump", table.to_str().unwrap()];
    all.extend_from_slice(scan);
    all.push("--sort");
    oracle(&all)
}

#[test]
fn tags_branches_and_rollback_leave_the_files_java_leaves() {
    let (_dir, ours, jv) = copies();
    let t = open(&ours);

    t.create_tag("s12", Some(12), None).unwrap();
    java(&jv, &["create-tag", "s12", "12"]);
    t.create_tag("s13", Some(13), None).unwrap();
    java(&jv, &["create-tag", "s13", "13"]);
    t.create_tag("latest", None, None).unwrap();
    java(&jv, &["create-tag", "latest"]);
    t.rename_tag("s13", "s13b").unwrap();
    java(&jv, &["rename-tag", "s13", "s13b"]);
    paimon_test_utils::assert_same_tree(&ours, &jv, "tags");

    t.create_branch("fromtag", &BranchStart::Tag("s12".into()))
        .unwrap();
    java(&jv, &["create-branch", "fromtag", "s12"]);
    t.create_branch("empty", &BranchStart::Empty).unwrap();
    java(&jv, &["create-branch", "empty"]);
    paimon_test_utils::assert_same_tree(&ours, &jv, "branches");
    assert_eq!(t.branches().unwrap(), ["b1", "empty", "fromtag"]);
    // Java reads our tag and our branch as its own.
    assert_eq!(dump(&ours, &["--tag", "s12"]), dump(&jv, &["--tag", "s12"]));
    assert_eq!(
        dump(&ours, &["--branch", "fromtag"]),
        dump(&ours, &["--snapshot", "12"])
    );

    // Refusals with Java's words.
    let e = t.create_tag("s12", Some(13), None).unwrap_err().to_string();
    assert!(e.contains("Tag 's12' already exists."), "{e}");
    let e = t
        .create_branch("123", &BranchStart::Empty)
        .unwrap_err()
        .to_string();
    assert!(e.contains("pure numeric"), "{e}");
    assert!(t.create_branch("a/b", &BranchStart::Empty).is_err());
    assert!(t.create_tag("../x", None, None).is_err());

    let report = t.rollback_to_snapshot(12).unwrap();
    java(&jv, &["rollback-to", "12"]);
    assert_eq!(report.snapshots, [14, 13]);
    paimon_test_utils::assert_same_tree(&ours, &jv, "rollback to 12");
    let t = open(&ours);
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), Some(12));

    // Snapshot 9 has expired: Java restores it from tag t9 and drops everything later.
    t.rollback_to_tag("t9").unwrap();
    java(&jv, &["rollback-to", "t9"]);
    paimon_test_utils::assert_same_tree(&ours, &jv, "rollback to t9");
    assert_eq!(
        dump(&ours, &["--snapshot", "9"]),
        dump(&jv, &["--tag", "t9"])
    );

    t.delete_branch("empty").unwrap();
    java(&jv, &["delete-branch", "empty"]);
    paimon_test_utils::assert_same_tree(&ours, &jv, "delete branch");
}

/// Deleting the tag of an expired snapshot removes what only it kept alive, as Java's
/// `TagDeletion` does; the other tags still read.
#[test]
fn deleting_the_tag_of_an_expired_snapshot_cleans_as_java() {
    let (_dir, ours, jv) = copies();
    let t = open(&ours);
    let before = dump(&ours, &["--tag", "t6"]);
    let report = t.delete_tag("t3").unwrap();
    java(&jv, &["delete-tag", "t3"]);
    paimon_test_utils::assert_same_tree(&ours, &jv, "delete tag t3");
    assert!(!report.data_files.is_empty() || !report.metadata_files.is_empty());
    assert_eq!(dump(&ours, &["--tag", "t6"]), before);
    // A tag that does not exist is no error (Java only logs it).
    assert_eq!(t.delete_tag("nope").unwrap(), Default::default());
}

#[test]
fn fast_forward_matches_java() {
    let (_dir, ours, jv) = copies();
    open(&ours).fast_forward("b1").unwrap();
    java(&jv, &["fast-forward", "b1"]);
    paimon_test_utils::assert_same_tree(&ours, &jv, "fast-forward b1");
    assert_eq!(dump(&ours, &[]), dump(&ours, &["--branch", "b1"]));
}

/// Java's `ConsumerManager` reads the consumer files we write.
#[test]
fn java_reads_our_consumers() {
    let (_dir, ours, _jv) = copies();
    let t = open(&ours);
    t.consumer_manager().reset_consumer("job-1", 13).unwrap();
    t.consumer_manager().reset_consumer("job-2", 12).unwrap();
    let got = oracle(&["table-op", ours.to_str().unwrap(), "consumers"]);
    assert_eq!(got, ["job-1=13", "job-2=12"]);
}

/// A consumer we save holds its snapshots in Java's expiry and in ours alike; once its file is
/// older than `consumer.expiration-time`, our expiry drops it first and expires past it.
#[test]
fn consumers_hold_snapshots_in_java_and_our_expiry() {
    use paimon_meta::maintenance::ExpireConfig;
    let (_dir, ours, jv) = copies();
    for p in [&ours, &jv] {
        open(p)
            .consumer_manager()
            .reset_consumer("job", 12)
            .unwrap();
    }
    oracle(&[
        "expire",
        jv.to_str().unwrap(),
        "--retain-max",
        "1",
        "--retain-min",
        "1",
        "--time-retained-ms",
        "0",
    ]);
    let config = ExpireConfig::default()
        .with_retain_max(1)
        .with_retain_min(1)
        .with_time_retained_ms(0);
    let report = open(&ours).expire_snapshots(&config).unwrap();
    assert_eq!(report.expired, [11]);
    assert_eq!(
        open(&jv).snapshot_manager().snapshot_ids().unwrap(),
        [12, 13, 14]
    );
    paimon_test_utils::assert_same_tree(&ours, &jv, "expiry with a consumer at 12");

    // Two days without progress, one day allowed: the consumer goes, then the snapshots.
    let file = std::fs::File::options()
        .write(true)
        .open(ours.join("consumer/consumer-job"))
        .unwrap();
    file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 86_400))
        .unwrap();
    let report = open(&ours)
        .expire_snapshots(&config.with_consumer_expiration_ms(Some(86_400_000)))
        .unwrap();
    assert_eq!(report.expired, [12, 13]);
    assert_eq!(
        open(&ours).consumer_manager().consumer("job").unwrap(),
        None
    );
}
