//! `paimon tag`, `paimon branch`, `paimon rollback` and `paimon read --consumer-id` on a copy
//! of the Java-written `pk.db/many_snapshots`: what each prints, the files each leaves, and
//! Java reading the branch made from a tag.

use std::path::Path;
use std::process::Command;

use paimon_cli::scan_args::ScanArgs;

use crate::maintenance::{java_dump, ours, repo};

fn paimon(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(args)
        .output()
        .expect("run paimon");
    assert!(
        out.status.success(),
        "paimon {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn tags_branches_rollback_and_a_consumer_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    copy(&repo().join("fixtures/warehouse/pk.db/many_snapshots"), &t);
    let ts = t.to_str().unwrap();

    assert_eq!(
        paimon(&["tag", "create", ts, "s12", "--snapshot", "12"]),
        "created tag s12 of snapshot 12\n"
    );
    paimon(&["tag", "rename", ts, "s12", "s12b"]);
    let list = paimon(&["tag", "list", ts]);
    let tagged: Vec<(&str, &str)> = list
        .lines()
        .map(|l| {
            let mut f = l.split('\t');
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    assert_eq!(
        tagged,
        [("s12b", "12"), ("t3", "3"), ("t6", "6"), ("t9", "9")]
    );
    // The tag file is the snapshot file, byte for byte (Java's createTag without retention).
    assert_eq!(
        std::fs::read(t.join("tag/tag-s12b")).unwrap(),
        std::fs::read(t.join("snapshot/snapshot-12")).unwrap()
    );

    paimon(&["branch", "create", ts, "fromtag", "--tag", "t9"]);
    assert_eq!(paimon(&["branch", "list", ts]), "b1\nfromtag\n");
    // Java reads the branch we made as the tag it came from.
    let branch = ScanArgs {
        branch: Some("fromtag".into()),
        ..ScanArgs::default()
    };
    assert_eq!(ours(&t, &branch), java_dump(&t, &["--tag", "t9"]));
    assert_eq!(
        java_dump(&t, &["--branch", "fromtag"]),
        java_dump(&t, &["--tag", "t9"])
    );

    // A consumer reads the changes of snapshots 12 to 14 and saves 15.
    let changes = paimon(&[
        "read",
        ts,
        "--consumer-id",
        "job",
        "--changes-since",
        "11",
        "--format",
        "jsonl",
    ]);
    let mut got: Vec<String> = changes.lines().map(str::to_string).collect();
    got.sort();
    let since = ScanArgs {
        changes_since: Some(11),
        ..ScanArgs::default()
    };
    assert_eq!(got, ours(&t, &since));
    assert!(!got.is_empty());
    assert_eq!(
        std::fs::read_to_string(t.join("consumer/consumer-job")).unwrap(),
        "{\n  \"nextSnapshot\" : 15\n}"
    );
    // From the saved position there is nothing new; `--changes-since` no longer applies.
    let again = [
        "read",
        ts,
        "--consumer-id",
        "job",
        "--changes-since",
        "11",
        "--format",
        "jsonl",
    ];
    assert_eq!(paimon(&again), "");
    // Java's ConsumerManager reads the position.
    assert_eq!(
        crate::maintenance::oracle(&["table-op", ts, "consumers"]),
        "job=15\n"
    );

    paimon(&["tag", "delete", ts, "s12b"]);
    assert_eq!(
        paimon(&["rollback", ts, "--to", "12"]),
        "rolled back to snapshot 12 (2 snapshots, 0 changelogs, 0 tags removed)\n"
    );
    assert_eq!(
        names(&t.join("snapshot")),
        ["EARLIEST", "LATEST", "snapshot-11", "snapshot-12"]
    );
    assert_eq!(
        std::fs::read_to_string(t.join("snapshot/LATEST")).unwrap(),
        "12"
    );
    paimon(&["branch", "delete", ts, "fromtag"]);
    assert_eq!(paimon(&["branch", "list", ts]), "b1\n");
}
