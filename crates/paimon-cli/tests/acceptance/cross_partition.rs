//! Cross-partition upsert (`bucket = -1`, a primary key without the partition column): keys
//! move between partitions over several `paimon write` commits, and Java 1.4.2 reads each key
//! once, in its latest partition, with the values kept in the test (Java's
//! `GlobalIndexAssigner` semantics: deduplicate deletes the old row; partial-update merges
//! into the old partition; first-row keeps the old row). Our own read must agree.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::maintenance::our_rows;
use crate::write_cmd::{canonical, java_rows, ok, paimon, s};

/// `(id BIGINT, v STRING, dt STRING)`, primary key `id`, partitioned by `dt`, dynamic
/// buckets of two keys each, and `options`.
fn create(t: &Path, fields: &str, options: &[&str]) {
    let mut args = vec![
        "create-table",
        s(t),
        "--schema",
        fields,
        "--primary-key",
        "id",
        "--partition-key",
        "dt",
        "--option",
        "bucket=-1",
        "--option",
        "dynamic-bucket.target-row-num=2",
    ];
    for o in options {
        args.extend(["--option", o]);
    }
    ok(&args);
}

const ID_V_DT: &str = r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"},{"name":"dt","type":"STRING"}]}"#;

/// Writes `csv` (a header line, then rows) through `paimon write`, with the `op` column as
/// row kinds when the header has one.
fn write_csv(t: &Path, dir: &Path, name: &str, csv: &str) {
    let file = dir.join(name);
    std::fs::write(&file, csv).unwrap();
    let mut args = vec!["write", s(t), "--from", s(&file)];
    if csv.starts_with("op,") {
        args.extend(["--row-kind-column", "op"]);
    }
    ok(&args);
}

fn rows(want: &BTreeMap<i64, (String, String)>) -> Vec<String> {
    canonical(
        want.iter()
            .map(|(id, (v, dt))| json!({"id": id, "v": v, "dt": dt}))
            .collect(),
    )
}

/// Deduplicate: a key written into another partition leaves its old one.
#[test]
fn keys_moving_between_partitions_are_held_once_where_last_written() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create(&t, ID_V_DT, &[]);
    let mut want: BTreeMap<i64, (String, String)> = BTreeMap::new();
    let put = |want: &mut BTreeMap<i64, (String, String)>, id: i64, v: &str, dt: &str| {
        want.insert(id, (v.to_string(), dt.to_string()));
    };

    write_csv(
        &t,
        dir.path(),
        "1.csv",
        "id,v,dt\n0,a0,a\n1,a1,a\n2,a2,a\n3,a3,a\n4,a4,a\n5,a5,a\n",
    );
    for i in 0..6 {
        put(&mut want, i, &format!("a{i}"), "a");
    }
    assert_eq!(our_rows(&t), rows(&want));

    // 1 and 3 move to b, 2 is updated in place, 10 is new in b.
    write_csv(
        &t,
        dir.path(),
        "2.csv",
        "id,v,dt\n1,b1,b\n3,b3,b\n2,a2x,a\n10,b10,b\n",
    );
    put(&mut want, 1, "b1", "b");
    put(&mut want, 3, "b3", "b");
    put(&mut want, 2, "a2x", "a");
    put(&mut want, 10, "b10", "b");
    assert_eq!(our_rows(&t), rows(&want));

    // 1 moves back to a; 4 is deleted in a; 3 is updated in b; 5 moves to c and, in the same
    // batch, on to b; 0 moves to c and back to a in the same batch.
    write_csv(
        &t,
        dir.path(),
        "3.csv",
        "op,id,v,dt\n+I,1,a1y,a\n-D,4,a4,a\n+U,3,b3y,b\n+I,5,c5,c\n+I,5,b5,b\n+I,0,c0,c\n+I,0,a0z,a\n",
    );
    put(&mut want, 1, "a1y", "a");
    want.remove(&4);
    put(&mut want, 3, "b3y", "b");
    put(&mut want, 5, "b5", "b");
    put(&mut want, 0, "a0z", "a");
    assert_eq!(java_rows(&t), rows(&want), "Java reads each key once");
    assert_eq!(our_rows(&t), rows(&want), "we read each key once");

    // A fresh writer bootstraps its index from the table: 2 moves from a to c.
    write_csv(&t, dir.path(), "4.csv", "id,v,dt\n2,c2,c\n");
    put(&mut want, 2, "c2", "c");
    assert_eq!(java_rows(&t), rows(&want));
}

/// Partial-update: a row written into another partition is merged into the key's old
/// partition (Java `UseOldExistingProcessor`).
#[test]
fn partial_update_merges_into_the_old_partition() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create(
        &t,
        r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v1","type":"STRING"},{"name":"v2","type":"STRING"},{"name":"dt","type":"STRING"}]}"#,
        &["merge-engine=partial-update"],
    );
    let j1 = dir.path().join("1.jsonl");
    std::fs::write(
        &j1,
        "{\"id\":1,\"v1\":\"x1\",\"v2\":null,\"dt\":\"a\"}\n{\"id\":2,\"v1\":\"x2\",\"v2\":null,\"dt\":\"a\"}\n",
    )
    .unwrap();
    ok(&["write", s(&t), "--from", s(&j1)]);
    let j2 = dir.path().join("2.jsonl");
    std::fs::write(
        &j2,
        "{\"id\":1,\"v1\":null,\"v2\":\"y1\",\"dt\":\"b\"}\n{\"id\":3,\"v1\":\"x3\",\"v2\":\"y3\",\"dt\":\"b\"}\n",
    )
    .unwrap();
    ok(&["write", s(&t), "--from", s(&j2)]);
    let want: Vec<Value> = vec![
        json!({"id": 1, "v1": "x1", "v2": "y1", "dt": "a"}),
        json!({"id": 2, "v1": "x2", "v2": null, "dt": "a"}),
        json!({"id": 3, "v1": "x3", "v2": "y3", "dt": "b"}),
    ];
    assert_eq!(java_rows(&t), canonical(want.clone()));
    assert_eq!(our_rows(&t), canonical(want));
}

/// First-row: a key written into another partition keeps its first row (Java
/// `SkipNewExistingProcessor`).
#[test]
fn first_row_keeps_the_old_partition_row() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create(&t, ID_V_DT, &["merge-engine=first-row"]);
    write_csv(&t, dir.path(), "1.csv", "id,v,dt\n1,first1,a\n2,first2,a\n");
    write_csv(
        &t,
        dir.path(),
        "2.csv",
        "id,v,dt\n1,second1,b\n2,second2,a\n3,first3,b\n",
    );
    let want = rows(&BTreeMap::from([
        (1, ("first1".to_string(), "a".to_string())),
        (2, ("first2".to_string(), "a".to_string())),
        (3, ("first3".to_string(), "b".to_string())),
    ]));
    assert_eq!(java_rows(&t), want);
    assert_eq!(our_rows(&t), want);
}

/// Overwriting one partition of such a table is refused (the overwritten keys may live in
/// other partitions, which the overwrite leaves); the table is unchanged.
#[test]
fn overwriting_one_partition_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    create(&t, ID_V_DT, &[]);
    write_csv(&t, dir.path(), "1.csv", "id,v,dt\n1,a1,a\n2,b2,b\n");
    let file = dir.path().join("2.csv");
    std::fs::write(&file, "id,v,dt\n2,a2,a\n").unwrap();
    let out = paimon(&[
        "write",
        s(&t),
        "--from",
        s(&file),
        "--overwrite",
        "--partition",
        "dt=a",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cross-partition"), "{err}");
    let want = rows(&BTreeMap::from([
        (1, ("a1".to_string(), "a".to_string())),
        (2, ("b2".to_string(), "b".to_string())),
    ]));
    assert_eq!(our_rows(&t), want);
}
