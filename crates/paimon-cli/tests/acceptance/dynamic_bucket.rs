//! Dynamic-bucket primary-key tables (`bucket = -1`): our writer and Java's take turns on one
//! table, each finding the keys the other wrote through the hash index, so Java 1.4.2 reads one
//! row per key, with the values kept in the test, before and after a Java compaction. And the
//! hash index files Java wrote for the `pk/dynamic_bucket` fixture hold exactly the hashes our
//! writer gives its keys.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::json;

use crate::maintenance::{copy_dir, oracle, our_rows, repo};
use crate::write_cmd::{canonical, java_rows, ok, paimon, s};

fn expected(rows: &BTreeMap<i64, String>) -> Vec<String> {
    canonical(
        rows.iter()
            .map(|(id, v)| json!({"id": id, "v": v}))
            .collect(),
    )
}

fn buckets(table: &Path) -> BTreeSet<String> {
    std::fs::read_dir(table)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("bucket-"))
        .collect()
}

fn write_jsonl(table: &Path, dir: &Path, name: &str, rows: &[(i64, &str)]) {
    let file = dir.join(name);
    let text: String = rows
        .iter()
        .map(|(id, v)| format!("{}\n", json!({"id": id, "v": v})))
        .collect();
    std::fs::write(&file, text).unwrap();
    ok(&["write", s(table), "--from", s(&file)]);
}

/// A dynamic-bucket table `(id BIGINT primary key, v STRING)`, the columns Java's
/// `prepare-messages` writes, with `options` besides `bucket=-1`.
fn create_kv(t: &Path, options: &[&str]) {
    let mut args = vec![
        "create-table",
        s(t),
        "--schema",
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#,
        "--primary-key",
        "id",
        "--option",
        "bucket=-1",
    ];
    for o in options {
        args.extend(["--option", o]);
    }
    ok(&args);
}

/// Java's writer commits rows `(id, "java-<id>")` for ids `from..to` into `t` (its
/// `HashBucketAssigner` over the committed index), and `want` records them.
fn java_writes(t: &Path, dir: &Path, from: i64, to: i64, want: &mut BTreeMap<i64, String>) {
    let msgs = dir.join(format!("java-msgs-{from}-{to}"));
    let (from_s, to_s) = (from.to_string(), to.to_string());
    oracle(&[
        "prepare-messages",
        s(t),
        s(&msgs),
        "--from",
        &from_s,
        "--to",
        &to_s,
        "--commit",
        "true",
    ]);
    for i in from..to {
        want.insert(i, format!("java-{i}"));
    }
}

#[test]
fn ours_then_java_then_ours_find_each_others_keys() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create_kv(&t, &["dynamic-bucket.target-row-num=4"]);
    let mut want: BTreeMap<i64, String> = BTreeMap::new();

    // Ten new keys: buckets fill to the target in turn, 4 + 4 + 2.
    let first: Vec<(i64, String)> = (0..10).map(|i| (i, format!("ours-{i}"))).collect();
    let first_ref: Vec<(i64, &str)> = first.iter().map(|(i, v)| (*i, v.as_str())).collect();
    write_jsonl(&t, dir.path(), "first.jsonl", &first_ref);
    want.extend(first.iter().cloned());
    assert_eq!(java_rows(&t), expected(&want));
    assert_eq!(
        buckets(&t),
        ["bucket-0", "bucket-1", "bucket-2"]
            .map(String::from)
            .into()
    );

    // Updates and a delete must reach the buckets their keys are in; new keys fill bucket 2
    // to the target, then open bucket 3.
    let second = dir.path().join("second.csv");
    std::fs::write(
        &second,
        "op,id,v\n+U,2,ours2-2\n+U,7,ours2-7\n-D,9,ours-9\n+I,10,ours2-10\n+I,11,ours2-11\n+I,12,ours2-12\n",
    )
    .unwrap();
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&second),
        "--row-kind-column",
        "op",
    ]);
    want.insert(2, "ours2-2".into());
    want.insert(7, "ours2-7".into());
    want.remove(&9);
    for i in 10..13 {
        want.insert(i, format!("ours2-{i}"));
    }
    assert_eq!(java_rows(&t), expected(&want));
    assert_eq!(buckets(&t).len(), 4);

    // Java's HashBucketAssigner over our index: ids 5..=12 are ours, 13 and 14 new.
    java_writes(&t, dir.path(), 5, 15, &mut want);
    assert_eq!(
        java_rows(&t),
        expected(&want),
        "Java found every key of ours"
    );
    assert_eq!(buckets(&t).len(), 4, "13 and 14 joined bucket 3");

    // Our writer over Java's index: 13 and 14 are Java's; 15 fills bucket 3, 16 opens 4.
    write_jsonl(
        &t,
        dir.path(),
        "third.jsonl",
        &[
            (0, "ours3-0"),
            (13, "ours3-13"),
            (14, "ours3-14"),
            (15, "ours3-15"),
            (16, "ours3-16"),
        ],
    );
    for (i, v) in [
        (0, "ours3-0"),
        (13, "ours3-13"),
        (14, "ours3-14"),
        (15, "ours3-15"),
        (16, "ours3-16"),
    ] {
        want.insert(i, v.into());
    }
    assert_eq!(
        java_rows(&t),
        expected(&want),
        "we found every key of Java's"
    );
    assert_eq!(buckets(&t).len(), 5);

    // Java compacts every bucket (its own conflict checks pass on our files) and reads the
    // same rows; so do we.
    oracle(&["compact", s(&t)]);
    assert_eq!(java_rows(&t), expected(&want));
    assert_eq!(our_rows(&t), expected(&want));

    // Our full compaction after one more write: Java reads the same rows.
    write_jsonl(
        &t,
        dir.path(),
        "fourth.jsonl",
        &[(1, "ours4-1"), (17, "ours4-17")],
    );
    want.insert(1, "ours4-1".into());
    want.insert(17, "ours4-17".into());
    ok(&["compact", s(&t), "--full"]);
    assert_eq!(java_rows(&t), expected(&want));
}

/// Java wrote `pk/dynamic_bucket` with a hash index per bucket. Rewriting every key of a copy
/// must send each to the bucket whose Java-written index holds its hash: no new bucket opens,
/// Java reads each key once, with our value, and each bucket's new index holds the same set of
/// hashes as Java's did.
#[test]
fn every_key_of_a_java_table_goes_back_to_its_bucket() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("dynamic_bucket");
    copy_dir(&repo().join("fixtures/warehouse/pk.db/dynamic_bucket"), &t);
    let before = buckets(&t);
    let index_sets = || -> BTreeMap<String, BTreeSet<i32>> {
        let table =
            paimon_meta::Table::open(std::sync::Arc::new(paimon_io::LocalFileIO::new()), s(&t))
                .unwrap();
        table
            .hash_index_files()
            .unwrap()
            .into_iter()
            .map(|(_, bucket, meta)| {
                let path = t.join("index").join(&meta.file_name);
                let bytes = std::fs::read(&path).unwrap();
                let hashes = paimon_spec::hash_index::decode_hash_index(s(&path), &bytes).unwrap();
                assert_eq!(hashes.len() as i64, meta.row_count);
                (format!("bucket-{bucket}"), hashes.into_iter().collect())
            })
            .collect()
    };
    let java_index = index_sets();
    assert_eq!(java_index.keys().cloned().collect::<BTreeSet<_>>(), before);

    let rows: Vec<serde_json::Value> = java_rows(&t)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!rows.is_empty());
    let input = dir.path().join("all.jsonl");
    let mut text = String::new();
    let mut want = Vec::new();
    for r in &rows {
        let mut r = r.clone();
        r["v"] = json!(format!("rewritten-{}", r["id"]));
        text.push_str(&format!("{r}\n"));
        want.push(r);
    }
    std::fs::write(&input, text).unwrap();
    ok(&["write", s(&t), "--from", s(&input)]);
    assert_eq!(buckets(&t), before, "no key left its bucket");
    assert_eq!(java_rows(&t), canonical(want));
    assert_eq!(index_sets(), java_index);
}

/// Two writers that assigned buckets on their own each write an index for the same new
/// bucket: committing both at once would drop one's keys from the index, so it is refused.
#[test]
fn two_writers_hash_indexes_for_one_bucket_are_refused_in_one_commit() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create_kv(&t, &[]);
    let mut files = Vec::new();
    for (n, id) in [(0, 1), (1, 2)] {
        let input = dir.path().join(format!("w{n}.jsonl"));
        std::fs::write(&input, format!("{}\n", json!({"id": id, "v": "x"}))).unwrap();
        let out = dir.path().join(format!("m{n}"));
        ok(&[
            "write",
            s(&t),
            "--from",
            s(&input),
            "--prepare-only",
            "--out-dir",
            s(&out),
        ]);
        for e in std::fs::read_dir(&out).unwrap() {
            files.push(e.unwrap().path().to_string_lossy().into_owned());
        }
    }
    let mut args = vec!["commit", s(&t)];
    args.extend(files.iter().map(String::as_str));
    let out = paimon(&args);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("two hash index files for bucket 0"), "{err}");
    assert!(!t.join("snapshot").join("snapshot-1").exists());
}

/// `manifest.format=parquet` and `orc`: our data manifests, manifest lists and hash-index
/// manifests are Parquet files (magic `PAR1`) or ORC files (magic `ORC`) that Java 1.4.2 reads,
/// writes on and compacts, and ours read Java's.
#[test]
fn parquet_and_orc_manifests_are_written_and_java_takes_turns_on_them() {
    for (format, magic) in [("parquet", &b"PAR1"[..]), ("orc", &b"ORC"[..])] {
        manifests_of_format_take_turns(format, magic);
    }
}

fn manifests_of_format_take_turns(format: &str, magic: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create_kv(&t, &[&format!("manifest.format={format}")]);
    let mut want: BTreeMap<i64, String> = BTreeMap::new();
    write_jsonl(
        &t,
        dir.path(),
        "a.jsonl",
        &[(1, "ours-1"), (2, "ours-2"), (3, "ours-3")],
    );
    for (i, v) in [(1, "ours-1"), (2, "ours-2"), (3, "ours-3")] {
        want.insert(i, v.into());
    }
    let manifests = |t: &Path| -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(t.join("manifest"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let head = std::fs::read(e.path()).unwrap()[..magic.len()].to_vec();
                (e.file_name().to_string_lossy().into_owned(), head)
            })
            .collect();
        out.sort();
        out
    };
    let ours_first = manifests(&t);
    for prefix in ["manifest-list-", "index-manifest-"] {
        assert!(
            ours_first.iter().any(|(n, _)| n.starts_with(prefix)),
            "no {prefix} file in {ours_first:?}"
        );
    }
    for (name, head) in &ours_first {
        assert_eq!(head, magic, "{name} is not {format}");
    }
    assert_eq!(java_rows(&t), expected(&want), "{format}");

    // Java writes keys 2..5 over our index and compacts; then we write again and compact.
    java_writes(&t, dir.path(), 2, 5, &mut want);
    oracle(&["compact", s(&t)]);
    assert_eq!(java_rows(&t), expected(&want), "{format}");
    write_jsonl(&t, dir.path(), "b.jsonl", &[(1, "ours2-1"), (9, "ours2-9")]);
    want.insert(1, "ours2-1".into());
    want.insert(9, "ours2-9".into());
    ok(&["compact", s(&t), "--full"]);
    assert_eq!(java_rows(&t), expected(&want), "{format}");
    assert_eq!(our_rows(&t), expected(&want), "{format}");
    for (name, head) in manifests(&t) {
        assert_eq!(head, magic, "{name} is not {format}");
    }
}
