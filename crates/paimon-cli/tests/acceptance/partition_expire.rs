//! `paimon expire-partitions` against Java's own `PartitionExpire` (`scripts/java-oracle.sh
//! expire-partitions`) on two copies of one table: both expire the same partitions, in the
//! same order, and Java reads the same rows from both afterwards, equal to the rows kept in
//! the test.

use std::path::Path;

use serde_json::json;

use crate::maintenance::{copy_dir, oracle};
use crate::write_cmd::{canonical, java_rows, ok, s, snapshot_count};

/// A table `t` partitioned by `columns` (all but `id`), with `options`, holding `rows`
/// (JSON objects), written in one commit.
fn table(
    dir: &Path,
    schema: &str,
    keys: &[&str],
    options: &[&str],
    rows: &[serde_json::Value],
) -> std::path::PathBuf {
    let t = dir.join("t");
    let mut args = vec!["create-table", s(&t), "--schema", schema];
    for k in keys {
        args.extend(["--partition-key", k]);
    }
    for o in options {
        args.extend(["--option", o]);
    }
    ok(&args);
    let input = dir.join("rows.jsonl");
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&input, text).unwrap();
    ok(&["write", s(&t), "--from", s(&input)]);
    t
}

/// Expires a copy with Java and the table with us (extra `args`, and the same as Java
/// `--option`s); returns the partitions both expired, after checking they agree.
fn both_expire(t: &Path, java_options: &[&str], args: &[&str]) -> Vec<String> {
    let java = t.with_file_name("java");
    copy_dir(t, &java);
    let mut oracle_args = vec!["expire-partitions", s(&java)];
    for o in java_options {
        oracle_args.extend(["--option", o]);
    }
    let theirs: Vec<String> = oracle(&oracle_args).lines().map(str::to_string).collect();
    let mut ours_args = vec!["expire-partitions", s(t)];
    ours_args.extend_from_slice(args);
    let out = ok(&ours_args);
    let lines: Vec<&str> = out.lines().collect();
    let (summary, listed) = lines.split_last().unwrap();
    assert!(summary.starts_with("expired "), "{out}");
    let ours: Vec<String> = listed.iter().map(|l| l.to_string()).collect();
    assert_eq!(ours, theirs, "the partitions expired, ours vs Java");
    assert_eq!(java_rows(t), java_rows(&java), "Java reads both the same");
    std::fs::remove_dir_all(&java).unwrap();
    ours
}

const BY_DT: &str = r#"{"fields":[{"name":"id","type":"INT"},{"name":"dt","type":"STRING"}]}"#;

#[test]
fn values_time_with_a_formatter_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        json!({"id": 1, "dt": "20200101"}),
        json!({"id": 2, "dt": "20200102"}),
        json!({"id": 3, "dt": "20991231"}),
        json!({"id": 4, "dt": "abc"}),
        json!({"id": 5, "dt": null}),
        json!({"id": 6, "dt": "20200102"}),
    ];
    let t = table(
        dir.path(),
        BY_DT,
        &["dt"],
        &[
            "partition.expiration-time=1 d",
            "partition.timestamp-formatter=yyyyMMdd",
        ],
        &rows,
    );
    // A dry run lists them and commits nothing.
    let before = snapshot_count(&t);
    let dry = ok(&["expire-partitions", s(&t), "--dry-run"]);
    assert_eq!(
        dry.lines().collect::<Vec<_>>(),
        ["dt=20200101", "dt=20200102", "would expire 2 partitions"]
    );
    assert_eq!(snapshot_count(&t), before);

    // Unparseable and null values stay, as in Java.
    let expired = both_expire(&t, &[], &[]);
    assert_eq!(expired, ["dt=20200101", "dt=20200102"]);
    assert_eq!(
        java_rows(&t),
        canonical(vec![
            json!({"id": 3, "dt": "20991231"}),
            json!({"id": 4, "dt": "abc"}),
            json!({"id": 5, "dt": null}),
        ])
    );
}

#[test]
fn values_time_with_a_pattern_over_int_partitions_and_a_limit_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let schema = r#"{"fields":[{"name":"id","type":"INT"},{"name":"y","type":"INT"},{"name":"m","type":"INT"},{"name":"d","type":"INT"}]}"#;
    let rows = [
        json!({"id": 1, "y": 2020, "m": 1, "d": 5}),
        json!({"id": 2, "y": 2020, "m": 12, "d": 31}),
        json!({"id": 3, "y": 2021, "m": 2, "d": 1}),
        json!({"id": 4, "y": 2099, "m": 1, "d": 1}),
    ];
    let t = table(
        dir.path(),
        schema,
        &["y", "m", "d"],
        &[
            "partition.expiration-time=7 d",
            "partition.timestamp-pattern=$y-$m-$d",
            "partition.expiration-max-num=2",
        ],
        &rows,
    );
    // Ordered by the joined values as text, two of the three old ones.
    let expired = both_expire(&t, &[], &[]);
    assert_eq!(expired, ["y=2020,m=1,d=5", "y=2020,m=12,d=31"]);
    let expired = both_expire(&t, &[], &[]);
    assert_eq!(expired, ["y=2021,m=2,d=1"]);
    assert_eq!(
        java_rows(&t),
        canonical(vec![json!({"id": 4, "y": 2099, "m": 1, "d": 1})])
    );
}

#[test]
fn update_time_expires_by_the_newest_file_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [json!({"id": 1, "dt": "a"}), json!({"id": 2, "dt": "b"})];
    let t = table(
        dir.path(),
        BY_DT,
        &["dt"],
        &[
            "partition.expiration-time=1 h",
            "partition.expiration-strategy=update-time",
        ],
        &rows,
    );
    // Written just now: nothing is an hour old.
    assert!(both_expire(&t, &[], &[]).is_empty());
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let expired = both_expire(
        &t,
        &["partition.expiration-time=1 s"],
        &["--expiration-time", "1 s"],
    );
    assert_eq!(expired, ["dt=a", "dt=b"]);
    assert!(java_rows(&t).is_empty());
}

/// With a zero check interval Java's committer expires partitions after each commit; so does
/// `paimon write`.
#[test]
fn a_write_expires_partitions_when_the_check_interval_is_zero() {
    let dir = tempfile::tempdir().unwrap();
    let t = table(
        dir.path(),
        BY_DT,
        &["dt"],
        &[
            "partition.expiration-time=1 d",
            "partition.expiration-check-interval=0 s",
        ],
        &[json!({"id": 1, "dt": "2099-01-01"})],
    );
    let old = dir.path().join("old.jsonl");
    std::fs::write(&old, "{\"id\":2,\"dt\":\"2020-01-01\"}\n").unwrap();
    ok(&["write", s(&t), "--from", s(&old)]);
    assert_eq!(
        java_rows(&t),
        canonical(vec![json!({"id": 1, "dt": "2099-01-01"})])
    );
}
