//! The Hive catalog against a real Hive Metastore (Hive's standalone metastore 4.0.1 on
//! embedded Derby, started by `scripts/test-hive.sh`, which passes it in
//! `PAIMON_HIVE_TEST_URI` and its classpath in `PAIMON_HIVE_TEST_CP`): we create a database
//! and a table and write rows; the metastore's own Java client
//! (`interop/hive-metastore/HmsView.java`) shows them registered as Java's `HiveCatalog`
//! registers them (location, parameters, storage handler, formats, serde, Hive column types)
//! and Java Paimon reads our rows at the registered location; our rename and drop are seen
//! by the metastore, and a drop through the metastore is seen by us. Without
//! `PAIMON_HIVE_TEST_URI` the tests print why and return, unless `PAIMON_HIVE_TEST_REQUIRED`
//! is set (the script sets it), where they fail.
#![cfg(feature = "hive")]

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use paimon_rs::meta::Error as MetaError;
use paimon_rs::{Catalog, Error};
use paimon_test_utils::{batch_row_list, id_v_batch, json_row_list, repo, row_list};

/// The metastore's URI and classpath, or `None` (after saying why).
fn hms() -> Option<(String, String)> {
    match (
        std::env::var("PAIMON_HIVE_TEST_URI"),
        std::env::var("PAIMON_HIVE_TEST_CP"),
    ) {
        (Ok(uri), Ok(cp)) => Some((uri, cp)),
        _ => {
            assert!(
                std::env::var_os("PAIMON_HIVE_TEST_REQUIRED").is_none(),
                "PAIMON_HIVE_TEST_REQUIRED is set but PAIMON_HIVE_TEST_URI/_CP are not"
            );
            eprintln!(
                "skipped: PAIMON_HIVE_TEST_URI is not set (scripts/test-hive.sh starts a Hive \
                 Metastore and sets it)"
            );
            None
        }
    }
}

/// The metastore's own view (Hive's Java client), as sorted `key=value` lines.
fn hms_view(uri: &str, cp: &str, args: &[&str]) -> Vec<String> {
    let out = Command::new("java")
        .arg("-cp")
        .arg(cp)
        .arg(repo().join("interop/hive-metastore/HmsView.java"))
        .arg(uri)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run java");
    assert!(
        out.status.success(),
        "HmsView {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Java Paimon's rows of `db.t` in the warehouse (its filesystem catalog over the directory
/// the metastore registered), sorted.
fn java_rows(warehouse: &str, table: &str) -> Vec<(i32, String)> {
    let out = Command::new(repo().join("scripts/java-oracle.sh"))
        .args([
            "catalog-dump",
            "--catalog-option",
            "metastore=filesystem",
            "--catalog-option",
            &format!("warehouse={warehouse}"),
            table,
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run java-oracle.sh");
    assert!(
        out.status.success(),
        "catalog-dump {table}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_row_list(&String::from_utf8(out.stdout).unwrap())
}

/// A primary-key table (`id`), one bucket, with a comment on `v`.
fn schema() -> paimon_rs::spec::schema::TableSchema {
    paimon_rs::spec::schema::TableSchema::from_json_str(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT NOT NULL"},
            {"id":1,"name":"v","type":"STRING","description":"the value"}],"highestFieldId":1,
            "partitionKeys":[],"primaryKeys":["id"],"options":{"bucket":"1"},"timeMillis":0}"#,
    )
    .unwrap()
}

fn options(uri: &str, warehouse: &str, lock: bool) -> BTreeMap<String, String> {
    [
        ("metastore", "hive"),
        ("uri", uri),
        ("warehouse", warehouse),
        ("lock.enabled", if lock { "true" } else { "false" }),
        ("lock-check-max-sleep", "200 ms"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

#[test]
fn registered_as_java_registers_and_read_by_java() {
    let Some((uri, cp)) = hms() else { return };
    let wh = tempfile::tempdir().unwrap();
    let w = wh.path().to_str().unwrap().to_string();
    let catalog = Catalog::open(options(&uri, &w, false)).unwrap();
    let db = format!("rs_{}", std::process::id());

    catalog
        .create_database(&db, false, &BTreeMap::new())
        .unwrap();
    assert!(catalog.list_databases().unwrap().contains(&db));
    let e = catalog
        .create_database(&db, false, &BTreeMap::new())
        .unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    let view = hms_view(&uri, &cp, &["database", &db]);
    assert!(
        view.iter()
            .any(|l| l.starts_with("location=") && l.ends_with(&format!("{w}/{db}.db"))),
        "{view:?}"
    );

    let t = format!("{db}.t");
    catalog.create_table(&t, schema(), false).unwrap();
    let e = catalog.create_table(&t, schema(), false).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(catalog.list_tables(&db).unwrap(), vec!["t".to_string()]);
    let table = catalog.table(&t).unwrap();
    assert_eq!(
        table
            .write()
            .batches([id_v_batch(table.arrow_schema(), 0, 5, "rs")])
            .unwrap()
            .snapshots,
        vec![1]
    );
    assert_eq!(
        batch_row_list(&catalog.table(&t).unwrap().scan().to_arrow().unwrap()),
        row_list(0, 5, "rs")
    );

    // The metastore's view: what Java's HiveCatalog writes for this table.
    let view = hms_view(&uri, &cp, &["table", &db, "t"]);
    let location = view
        .iter()
        .find_map(|l| l.strip_prefix("location="))
        .unwrap()
        .to_string();
    assert!(location.ends_with(&format!("{w}/{db}.db/t")), "{location}");
    let mut want: Vec<String> = [
        format!("name={db}.t"),
        "tableType=MANAGED_TABLE".into(),
        format!("location={location}"),
        "inputFormat=org.apache.paimon.hive.mapred.PaimonInputFormat".into(),
        "outputFormat=org.apache.paimon.hive.mapred.PaimonOutputFormat".into(),
        "serde=org.apache.paimon.hive.PaimonSerDe".into(),
        "partitionKeys=0".into(),
        "col00=id:int:null".into(),
        "col01=v:string:the value".into(),
        "param.bucket=1".into(),
        "param.primary-key=id".into(),
        "param.bucket-key=id".into(),
        "param.table_type=PAIMON".into(),
        "param.storage_handler=org.apache.paimon.hive.PaimonStorageHandler".into(),
    ]
    .into_iter()
    .collect();
    let owner = view
        .iter()
        .find(|l| l.starts_with("owner="))
        .unwrap()
        .clone();
    want.push(owner);
    want.sort();
    assert_eq!(view, want);

    // Java Paimon reads our rows where the metastore says the table is.
    assert_eq!(java_rows(&w, &t), row_list(0, 5, "rs"));

    // Our rename: the metastore has the new name, the directory moved with it.
    let t2 = format!("{db}.t2");
    catalog.rename_table(&t, &t2, false).unwrap();
    assert_eq!(
        hms_view(&uri, &cp, &["tables", &db]),
        vec!["table=t2".to_string()]
    );
    let view = hms_view(&uri, &cp, &["table", &db, "t2"]);
    assert!(
        view.iter()
            .any(|l| l.starts_with("location=") && l.ends_with(&format!("{db}.db/t2"))),
        "{view:?}"
    );
    assert!(!wh.path().join(format!("{db}.db/t")).exists());
    assert_eq!(
        batch_row_list(&catalog.table(&t2).unwrap().scan().to_arrow().unwrap()),
        row_list(0, 5, "rs")
    );
    assert_eq!(java_rows(&w, &t2), row_list(0, 5, "rs"));

    // A drop through the metastore's client: we see the table gone.
    catalog.create_table(&t, schema(), false).unwrap();
    hms_view(&uri, &cp, &["drop", &db, "t"]);
    let e = catalog.table(&t).unwrap_err();
    let Error::Meta(m) = &e else { panic!("{e}") };
    assert!(
        matches!(**m, MetaError::CatalogObjectNotFound { kind: "table", .. }),
        "{e}"
    );

    // Our drop: the metastore sees no table and the directory is gone.
    catalog.drop_table(&t2, false).unwrap();
    assert_eq!(hms_view(&uri, &cp, &["tables", &db]), Vec::<String>::new());
    assert!(!wh.path().join(format!("{db}.db/t2")).exists());
    catalog.drop_database(&db, false, false).unwrap();
    assert!(!catalog.list_databases().unwrap().contains(&db));
}

/// Under `lock.enabled`, a commit publishes only holding the metastore's table lock. The
/// test metastore (its Derby schema made by the metastore at startup, without Hive's
/// transaction tables, which only `schematool`'s scripts create) refuses `lock`: the commit
/// is then a typed error naming the lock, and nothing is published.
#[test]
fn commits_need_the_metastore_lock() {
    let Some((uri, _cp)) = hms() else { return };
    let wh = tempfile::tempdir().unwrap();
    let w = wh.path().to_str().unwrap().to_string();
    let db = format!("lk_{}", std::process::id());
    let t = format!("{db}.t");
    let plain = Catalog::open(options(&uri, &w, false)).unwrap();
    plain.create_database(&db, false, &BTreeMap::new()).unwrap();
    plain.create_table(&t, schema(), false).unwrap();

    let locked = Catalog::open(options(&uri, &w, true)).unwrap();
    let table = locked.table(&t).unwrap();
    assert!(
        format!("{:?}", table.meta().snapshot_commit()).starts_with("HiveSnapshotCommit"),
        "a Hive table under lock.enabled publishes under the lock"
    );
    let e = table
        .write()
        .batches([id_v_batch(table.arrow_schema(), 0, 1, "rs")])
        .unwrap_err()
        .to_string();
    assert!(e.contains(&format!("lock {t}")), "{e}");
    assert!(e.contains(&uri), "{e}");
    assert!(!wh
        .path()
        .join(format!("{db}.db/t/snapshot/snapshot-1"))
        .exists());
    assert!(batch_row_list(&plain.table(&t).unwrap().scan().to_arrow().unwrap()).is_empty());
    plain.drop_database(&db, false, true).unwrap();
}
