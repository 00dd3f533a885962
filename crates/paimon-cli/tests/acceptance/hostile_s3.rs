//! Hostile paths on S3 (issue 39), against the S3-protocol server `scripts/test-s3.sh` starts
//! (moto): a table lives in one bucket, and commit messages, splits, compaction tasks and a
//! table option name objects of another bucket (or climb out of the table). Each is refused
//! or re-rooted into the table, and the other bucket's objects are neither read, written
//! nor deleted: the server's request log (`PAIMON_TEST_S3_LOG`) shows no request naming them
//! while the hostile command runs, and they still hold their bytes afterwards.
//!
//! `PAIMON_TEST_S3_HOSTILE` names the two buckets (`a,b`, created empty by the script); the
//! endpoint and keys come from the usual environment (`PAIMON_S3_ENDPOINT`, `AWS_*`), which
//! the `paimon` processes inherit. Without the variable the tests check nothing (they say
//! so); when it is set, every failure fails.

use std::path::{Path, PathBuf};

use paimon_io::{file_io_for, FileIORef};
use paimon_meta::Table;
use paimon_spec::data_file::DeletionFile;
use paimon_split::commit::{
    decode_commit_message, encode_commit_message, DEFAULT_COMMIT_MESSAGE_VERSION,
};
use paimon_split::{decode_compact_task, encode_compact_task, encode_frame, Split};

use crate::write_cmd::{ok, paimon, s};

/// The two buckets and the server's request log, or `None` when no server was started.
struct S3Env {
    /// The table's bucket.
    a: String,
    /// The other bucket.
    b: String,
    log: PathBuf,
    /// A prefix of this test run (process and test), so reruns never meet old objects.
    prefix: String,
}

fn s3(test: &str) -> Option<S3Env> {
    let Ok(buckets) = std::env::var("PAIMON_TEST_S3_HOSTILE") else {
        eprintln!(
            "{test}: PAIMON_TEST_S3_HOSTILE not set (run scripts/test-s3.sh); nothing to check"
        );
        return None;
    };
    let (a, b) = buckets
        .split_once(',')
        .expect("PAIMON_TEST_S3_HOSTILE is 'bucket-a,bucket-b'");
    let log = PathBuf::from(std::env::var("PAIMON_TEST_S3_LOG").expect("PAIMON_TEST_S3_LOG"));
    Some(S3Env {
        a: a.to_string(),
        b: b.to_string(),
        log,
        prefix: format!("{test}-{}", std::process::id()),
    })
}

impl S3Env {
    /// The table's URL in bucket `a`.
    fn table(&self) -> String {
        format!("s3://{}/{}/wh/db.db/t", self.a, self.prefix)
    }

    /// A URL in bucket `b` under this run's prefix.
    fn other(&self, rel: &str) -> String {
        format!("s3://{}/{}/{rel}", self.b, self.prefix)
    }

    /// Bytes of the request log so far.
    fn mark(&self) -> usize {
        std::fs::read(&self.log).map_or(0, |b| b.len())
    }

    /// The requests logged since `mark` whose line names `url`'s key in its bucket.
    fn requests_since(&self, mark: usize, url: &str) -> Vec<String> {
        let key = url.trim_start_matches("s3://");
        let log = std::fs::read(&self.log).unwrap();
        String::from_utf8_lossy(&log[mark.min(log.len())..])
            .lines()
            .filter(|l| l.contains(key))
            .map(str::to_string)
            .collect()
    }
}

fn io(url: &str) -> FileIORef {
    file_io_for(url).unwrap()
}

/// Puts `bytes` at `url`.
fn put(url: &str, bytes: &[u8]) {
    io(url).overwrite(url, bytes).unwrap();
}

/// The bytes at `url`, which must exist.
fn get(url: &str) -> Vec<u8> {
    io(url).read(url).unwrap().to_vec()
}

/// A primary-key table of one bucket in bucket `a`, written `writes` times (10 rows each).
fn table(env: &S3Env, dir: &Path, writes: usize) -> String {
    let t = env.table();
    ok(&[
        "create-table",
        &t,
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=1",
    ]);
    for round in 0..writes {
        let csv = dir.join(format!("r{round}.csv"));
        let rows: String = (0..10)
            .map(|i| format!("{},r{round}-{i}\n", i * writes + round))
            .collect();
        std::fs::write(&csv, format!("id,v\n{rows}")).unwrap();
        ok(&["write", &t, "--from", s(&csv)]);
    }
    t
}

fn rows(t: &str) -> usize {
    ok(&["read", t, "--format", "null"]).trim().parse().unwrap()
}

fn snapshot_count(t: &str) -> usize {
    ok(&["snapshots", t, "--json"]).matches("\"id\"").count()
}

/// The table at `t`, opened through S3.
fn open(t: &str) -> Table {
    Table::open(io(t), t).unwrap()
}

/// A commit message naming an object of bucket `b` as `_EXTERNAL_PATH`: `paimon commit`
/// refuses it naming the path, writes no snapshot, and a later overwrite and expiry leave
/// the object alone (no request names it).
#[test]
fn s3_a_message_naming_another_buckets_file_is_refused_and_expiry_leaves_it() {
    let Some(env) = s3("s3_a_message_naming_another_buckets_file") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let t = table(&env, dir.path(), 1);
    let victim = env.other("other/bucket-0/data-victim-0.parquet");
    put(&victim, b"another table's data");

    let csv = dir.path().join("more.csv");
    std::fs::write(&csv, "id,v\n100,x\n101,y\n").unwrap();
    let msgs = dir.path().join("msgs");
    ok(&[
        "write",
        &t,
        "--from",
        s(&csv),
        "--prepare-only",
        "--out-dir",
        s(&msgs),
    ]);
    let files: Vec<_> = std::fs::read_dir(&msgs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let v = DEFAULT_COMMIT_MESSAGE_VERSION;
    let message = decode_commit_message(&std::fs::read(&files[0]).unwrap(), v).unwrap();
    let before = snapshot_count(&t);
    let mark = env.mark();
    for external in [
        victim.clone(),
        format!("s3://{}/{}/wh/db.db/t/../../../{}", env.a, env.prefix, "x"),
    ] {
        let mut hostile = message.clone();
        hostile.data_increment.new_files[0].external_path = Some(external.clone());
        let file = dir.path().join("hostile");
        std::fs::write(&file, encode_commit_message(&hostile, v).unwrap()).unwrap();
        let out = paimon(&["commit", &t, s(&file)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{external}: {err}");
        assert!(
            err.contains(&external) && err.contains("newFiles[0]"),
            "{external}: {err}"
        );
        assert_eq!(snapshot_count(&t), before);
    }
    // The table moves on: an overwrite retires every live file, the expiry deletes them.
    let csv = dir.path().join("over.csv");
    std::fs::write(&csv, "id,v\n200,z\n").unwrap();
    ok(&["write", &t, "--from", s(&csv), "--overwrite"]);
    ok(&[
        "expire-snapshots",
        &t,
        "--retain-max",
        "1",
        "--retain-min",
        "1",
        "--older-than",
        "0 s",
    ]);
    assert_eq!(env.requests_since(mark, &victim), Vec::<String>::new());
    assert_eq!(get(&victim), b"another table's data");
    assert_eq!(rows(&t), 1);
}

/// A split whose data file's `_EXTERNAL_PATH` or deletion file names an object of bucket
/// `b` (a copy of the table's own data file, and a file of secrets) is refused by
/// `paimon read-split` naming the field, before any request for the object; a split whose
/// bucket directory names bucket `b` is read from the table's own bucket directory.
#[test]
fn s3_a_split_naming_another_bucket_is_refused_before_any_request() {
    let Some(env) = s3("s3_a_split_naming_another_bucket") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let t = table(&env, dir.path(), 1);
    let plan = open(&t).scan().plan().unwrap();
    assert_eq!(plan.splits.len(), 1);
    let split = plan.splits[0].clone();
    let data = format!("{}/{}", split.bucket_path, split.data_files[0].file_name);
    let copy = env.other("copy/bucket-0/data-copy-0.parquet");
    put(&copy, &get(&data));
    let secret = env.other("secrets/credentials");
    put(
        &secret,
        b"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    );

    let read = |split: &paimon_split::DataSplit| {
        let file = dir.path().join("split.bin");
        std::fs::write(&file, encode_frame(&Split::Data(split.clone()), 9).unwrap()).unwrap();
        paimon(&["read-split", &t, s(&file), "--format", "null"])
    };
    let mut external = split.clone();
    external.data_files[0].external_path = Some(copy.clone());
    let mut deletion = split.clone();
    deletion.data_deletion_files = Some(vec![Some(DeletionFile {
        path: secret.clone(),
        offset: 1,
        length: 24,
        cardinality: Some(1),
    })]);
    for (hostile, field, object) in [
        (&external, "_EXTERNAL_PATH", &copy),
        (&deletion, "DeletionFile.path", &secret),
    ] {
        let mark = env.mark();
        let out = read(hostile);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{field}: read");
        assert!(
            err.contains(field) && err.contains(object.as_str()),
            "{field}: {err}"
        );
        assert!(!err.contains("wJalr"), "{field}: {err}");
        assert_eq!(
            env.requests_since(mark, object),
            Vec::<String>::new(),
            "{field}"
        );
    }

    // A bucket directory in bucket `b` is re-rooted into the table by its last segment.
    let mut bucket = split.clone();
    bucket.bucket_path = env.other("copy/bucket-0");
    let mark = env.mark();
    let out = read(&bucket);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "10");
    assert_eq!(env.requests_since(mark, &copy), Vec::<String>::new());
    assert_eq!(get(&copy), get(&data));
}

/// A compaction task naming an input's `_EXTERNAL_PATH` in bucket `b` is refused before any
/// request for it; one whose bucket directory is in bucket `b` writes only into the table
/// (nothing is put into bucket `b`), and its message commits.
#[test]
fn s3_a_task_naming_another_bucket_is_refused_or_writes_only_into_the_table() {
    let Some(env) = s3("s3_a_task_naming_another_bucket") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let t = table(&env, dir.path(), 3);
    let tasks = dir.path().join("tasks");
    ok(&[
        "compact",
        &t,
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
    let task = decode_compact_task(&std::fs::read(&files[0]).unwrap()).unwrap();
    let input = &task.split.data_files[0];
    let copy = env.other("copy/bucket-0/data-copy-0.parquet");
    put(
        &copy,
        &get(&format!("{}/{}", task.split.bucket_path, input.file_name)),
    );
    let run = |task: &paimon_split::CompactTask, out: &Path| {
        let file = dir.path().join("task.bin");
        std::fs::write(&file, encode_compact_task(task).unwrap()).unwrap();
        paimon(&["compact-task", &t, s(&file), "--out-dir", s(out)])
    };

    let mut hostile = task.clone();
    hostile.split.data_files[0].external_path = Some(copy.clone());
    let out = dir.path().join("refused");
    let mark = env.mark();
    let r = run(&hostile, &out);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success(), "the task ran");
    assert!(err.contains("_EXTERNAL_PATH"), "{err}");
    assert!(!out.exists(), "messages written");
    assert_eq!(env.requests_since(mark, &copy), Vec::<String>::new());

    let mut elsewhere = task.clone();
    elsewhere.split.bucket_path = env.other("evil/bucket-0");
    let out = dir.path().join("messages");
    let mark = env.mark();
    let r = run(&elsewhere, &out);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(
        env.requests_since(mark, &env.other("evil")),
        Vec::<String>::new()
    );
    assert!(io(&copy)
        .list(&env.other("evil"))
        .unwrap_or_default()
        .is_empty());
    let messages: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| s(&e.unwrap().path()).to_string())
        .collect();
    let mut args = vec!["commit", t.as_str()];
    args.extend(messages.iter().map(String::as_str));
    ok(&args);
    assert_eq!(rows(&t), 30);
    assert_eq!(get(&copy).len() as i64, input.file_size);
}

/// `data-file.external-paths` naming another table of bucket `a` (`../B`) or climbing out of
/// a root in bucket `b` (`s3://b/…/x/../y`), written straight into a schema file (alter
/// refuses both): `paimon remove-orphan-files` deletes nothing of theirs (no request deletes
/// them, they still hold their bytes) and the table's own files stay readable.
#[test]
fn s3_orphan_cleanup_never_follows_external_paths_out() {
    let Some(env) = s3("s3_orphan_cleanup_never_follows") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let t = table(&env, dir.path(), 1);
    let other_table = format!(
        "s3://{}/{}/wh/db.db/B/bucket-0/data-old-0.parquet",
        env.a, env.prefix
    );
    let other_bucket = env.other("y/bucket-0/data-old-0.parquet");
    put(&other_table, b"table B's data");
    put(&other_bucket, b"bucket b's data");
    let schema0: serde_json::Value =
        serde_json::from_slice(&get(&format!("{t}/schema/schema-0"))).unwrap();
    for (id, external) in [
        (1, "../B".to_string()),
        (2, format!("{}/../y", env.other("x"))),
    ] {
        let mut schema = schema0.clone();
        schema["id"] = id.into();
        schema["options"]["data-file.external-paths"] = external.clone().into();
        put(
            &format!("{t}/schema/schema-{id}"),
            serde_json::to_string(&schema).unwrap().as_bytes(),
        );
        let mark = env.mark();
        let out = paimon(&["remove-orphan-files", &t, "--older-than", "0 ms"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{external}: cleanup ran");
        assert!(
            err.contains("data-file.external-paths"),
            "{external}: {err}"
        );
        for victim in [&other_table, &other_bucket] {
            let deletes: Vec<String> = env
                .requests_since(mark, victim)
                .into_iter()
                .filter(|l| l.contains("DELETE") || l.contains("POST"))
                .collect();
            assert_eq!(deletes, Vec::<String>::new(), "{external}");
        }
    }
    assert_eq!(get(&other_table), b"table B's data");
    assert_eq!(get(&other_bucket), b"bucket b's data");
}
