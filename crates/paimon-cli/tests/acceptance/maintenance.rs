//! `paimon expire-snapshots` and `paimon remove-orphan-files` on a copy of a Java-written table
//! with deletion vectors and a tag: a dry run changes nothing; afterwards every snapshot and
//! tag left reads, with our reader, exactly the rows Java's `dump` reads from the original.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use paimon_cli::read_cmd::read_to_json_lines;
use paimon_cli::scan_args::ScanArgs;
pub(crate) use paimon_test_utils::copy_dir;
pub(crate) use paimon_test_utils::repo;

pub(crate) fn java_dump(table: &Path, scan: &[&str]) -> Vec<String> {
    let mut args = vec!["dump", table.to_str().unwrap()];
    args.extend_from_slice(scan);
    args.push("--sort");
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(&args)
        .output()
        .expect("run scripts/java-oracle.sh (needs java)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    rows.sort();
    rows
}

/// Runs `scripts/java-oracle.sh ARGS`, which must succeed; returns stdout.
pub(crate) fn oracle(args: &[&str]) -> String {
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args(args)
        .output()
        .expect("run scripts/java-oracle.sh (needs java)");
    assert!(
        out.status.success(),
        "oracle {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub(crate) fn ours(table: &Path, scan: &ScanArgs) -> Vec<String> {
    let mut rows = read_to_json_lines(table.to_str().unwrap(), scan).unwrap();
    rows.sort();
    rows
}

/// Our read of `t` (latest snapshot), canonical JSON (keys sorted), sorted: comparable with
/// [`crate::write_cmd::java_rows`].
pub(crate) fn our_rows(table: &Path) -> Vec<String> {
    crate::write_cmd::canonical(
        ours(table, &ScanArgs::default())
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

pub(crate) fn paimon(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn listing(root: &Path) -> BTreeSet<PathBuf> {
    fn walk(dir: &Path, out: &mut BTreeSet<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, &mut out);
    out
}

#[test]
fn expire_and_remove_orphans_keep_what_java_reads() {
    let src = repo().join(
        "../shared/testdata/paimon-cpp/orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv",
    );
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    copy_dir(&src, &t);
    let ts = t.to_str().unwrap();
    let tag = std::fs::read_dir(t.join("tag"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find_map(|n| n.strip_prefix("tag-").map(str::to_string))
        .expect("the table has a tag");
    let latest = java_dump(&src, &[]);
    let at_tag = java_dump(&src, &["--tag", &tag]);
    let last = paimon(&["snapshots", ts, "--json"]).lines().count() as i64;
    let before_last = java_dump(&src, &["--snapshot", &(last - 1).to_string()]);

    let listed = listing(&t);
    let dry = paimon(&[
        "expire-snapshots",
        ts,
        "--retain-max",
        "2",
        "--retain-min",
        "2",
        "--older-than",
        "0 s",
        "--dry-run",
    ]);
    assert_eq!(listing(&t), listed, "a dry run deletes nothing");
    let would: BTreeSet<PathBuf> = dry
        .lines()
        .filter(|l| !l.starts_with("would expire"))
        .map(PathBuf::from)
        .collect();
    assert!(
        would.iter().any(|p| p.ends_with("snapshot/snapshot-1")),
        "{dry}"
    );

    paimon(&[
        "expire-snapshots",
        ts,
        "--retain-max",
        "2",
        "--retain-min",
        "2",
        "--older-than",
        "0 s",
    ]);
    let after = listing(&t);
    let gone: BTreeSet<PathBuf> = listed.difference(&after).cloned().collect();
    assert_eq!(gone, would.intersection(&listed).cloned().collect());
    let snapshots = paimon(&["snapshots", ts, "--json"]);
    assert_eq!(snapshots.lines().count(), 2, "{snapshots}");

    assert_eq!(ours(&t, &ScanArgs::default()), latest);
    let tag_scan = ScanArgs {
        tag: Some(tag.clone()),
        ..ScanArgs::default()
    };
    assert_eq!(ours(&t, &tag_scan), at_tag);
    let prev = ScanArgs {
        snapshot: Some(last - 1),
        ..ScanArgs::default()
    };
    assert_eq!(ours(&t, &prev), before_last);
    assert_eq!(java_dump(&t, &["--tag", &tag]), at_tag);

    let orphan = t.join("f1=10/bucket-0/data-00000000-orphan-0.orc");
    let young = t.join("manifest/manifest-00000000-young-0");
    for (p, age) in [(&orphan, 2 * 86_400), (&young, 60)] {
        let f = std::fs::File::create(p).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age))
            .unwrap();
    }
    let with_orphans = listing(&t);
    let dry = paimon(&["remove-orphan-files", ts, "--dry-run"]);
    assert_eq!(listing(&t), with_orphans, "a dry run deletes nothing");
    assert_eq!(dry.lines().next(), orphan.to_str(), "{dry}");
    paimon(&["remove-orphan-files", ts, "--older-than", "1 d"]);
    let mut expected = with_orphans.clone();
    expected.remove(&orphan);
    assert_eq!(listing(&t), expected);
    assert_eq!(ours(&t, &ScanArgs::default()), latest);
}

/// A streaming consumer keeps the snapshots from its next one on (Java
/// `ConsumerManager.minNextSnapshot`): our expiry and Java's, each on a copy with the same
/// consumer file, leave the same earliest snapshot, and it is the consumer's.
#[test]
fn expiry_keeps_what_a_consumer_still_reads_as_java() {
    let src = repo().join("fixtures/warehouse/pk.db/many_snapshots");
    let dir = tempfile::tempdir().unwrap();
    let (mine, java) = (dir.path().join("ours"), dir.path().join("java"));
    copy_dir(&src, &mine);
    copy_dir(&src, &java);
    let last = *snapshot_ids(&mine).last().unwrap();
    assert!(snapshot_ids(&mine).len() >= 3, "{:?}", snapshot_ids(&mine));
    let next = last - 1;
    for t in [&mine, &java] {
        std::fs::create_dir_all(t.join("consumer")).unwrap();
        std::fs::write(
            t.join("consumer/consumer-reader"),
            format!("{{\"nextSnapshot\":{next}}}"),
        )
        .unwrap();
    }
    paimon(&[
        "expire-snapshots",
        mine.to_str().unwrap(),
        "--retain-max",
        "1",
        "--retain-min",
        "1",
        "--older-than",
        "0 s",
        "--max-deletes",
        "100",
    ]);
    oracle(&[
        "expire",
        java.to_str().unwrap(),
        "--retain-max",
        "1",
        "--retain-min",
        "1",
    ]);
    assert_eq!(snapshot_ids(&mine), (next..=last).collect::<Vec<_>>());
    assert_eq!(snapshot_ids(&mine), snapshot_ids(&java));
    assert_eq!(java_dump(&mine, &[]), java_dump(&java, &[]));
}

/// Ids of the table's snapshot files, ascending.
fn snapshot_ids(t: &Path) -> Vec<i64> {
    let mut v: Vec<i64> = std::fs::read_dir(t.join("snapshot"))
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.strip_prefix("snapshot-")?.parse().ok()
        })
        .collect();
    v.sort_unstable();
    v
}
