//! The Hive catalog against a real Hive Metastore (Hive's standalone metastore 4.0.1 on
//! embedded Derby, started by `scripts/test-hive.sh`, which passes it in
//! `PAIMON_HIVE_TEST_URI` and its classpath, with `interop/hive-metastore/HmsView.java`
//! compiled, in `PAIMON_HIVE_TEST_CP`): we create a database
//! and a table and write rows; the metastore's own Java client
//! (`interop/hive-metastore/HmsView.java`) shows them registered as Java's `HiveCatalog`
//! registers them (location, parameters, storage handler, formats, serde, Hive column types)
//! and Java Paimon reads our rows at the registered location; our rename and drop are seen
//! by the metastore, and a drop through the metastore is seen by us. A table under
//! `metastore.partitioned-table` is registered with its partition keys, each commit adds its
//! partitions and partition expiry removes them, as the metastore's client lists them. Under
//! `lock.enabled` a commit waits for the metastore's table lock that the metastore's client
//! holds, then lands; or gives up after `lock-acquire-timeout`. Without
//! `PAIMON_HIVE_TEST_URI` the tests print why and return, unless `PAIMON_HIVE_TEST_REQUIRED`
//! is set (the script sets it), where they fail.
#![cfg(feature = "hive")]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use paimon_rs::arrow_array::{ArrayRef, Int32Array, StringArray};
use paimon_rs::meta::Error as MetaError;
use paimon_rs::{Catalog, Error, RecordBatch, Table};
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
        .arg("HmsView")
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

/// `dt STRING, id INT, v STRING` partitioned by `dt`, an append table, with `options`.
fn dated_schema(options: &str) -> paimon_rs::spec::schema::TableSchema {
    paimon_rs::spec::schema::TableSchema::from_json_str(&format!(
        r#"{{"version":3,"id":0,"fields":[{{"id":0,"name":"dt","type":"STRING"}},
            {{"id":1,"name":"id","type":"INT"}},{{"id":2,"name":"v","type":"STRING"}}],
            "highestFieldId":2,"partitionKeys":["dt"],"primaryKeys":[],
            "options":{{{options}}},"timeMillis":0}}"#
    ))
    .unwrap()
}

/// Rows `(dt, id, "<dt>-<id>")` for each `(dt, id)`.
fn dated_batch(table: &Table, rows: &[(&str, i32)]) -> RecordBatch {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(
            rows.iter().map(|(d, _)| d.to_string()).collect::<Vec<_>>(),
        )),
        Arc::new(Int32Array::from(
            rows.iter().map(|(_, i)| *i).collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(
            rows.iter()
                .map(|(d, i)| format!("{d}-{i}"))
                .collect::<Vec<_>>(),
        )),
    ];
    RecordBatch::try_new(table.arrow_schema(), cols).unwrap()
}

/// The metastore's partitions of `db.table` as its client lists them: `(name, location)`, the
/// location relative to the table's.
fn hms_partitions(uri: &str, cp: &str, db: &str, table: &str, location: &str) -> Vec<String> {
    hms_view(uri, cp, &["partitions", db, table])
        .into_iter()
        .map(|l| {
            let l = l.replace(location, "<table>");
            // Each partition carries the table's formats and its non-partition columns.
            l.strip_suffix(" inputFormat=org.apache.paimon.hive.mapred.PaimonInputFormat cols=2")
                .unwrap_or_else(|| panic!("partition without the table's descriptor: {l}"))
                .to_string()
        })
        .collect()
}

/// `metastore.partitioned-table`: the table is registered with `dt` as its partition key (not
/// among the columns), every commit adds the partitions its rows land in (a partition once,
/// whatever the commits to it) at `<table>/dt=<value>/` (which the metastore keeps without
/// the trailing `/`), partition expiry removes the expired
/// ones from the metastore with their rows. The rows kept say which partitions there are.
/// Without the option nothing is registered.
#[test]
fn partitions_in_the_metastore_follow_commits_and_expiry() {
    let Some((uri, cp)) = hms() else { return };
    let wh = tempfile::tempdir().unwrap();
    let w = wh.path().to_str().unwrap().to_string();
    let catalog = Catalog::open(options(&uri, &w, false)).unwrap();
    let db = format!("pt_{}", std::process::id());
    catalog
        .create_database(&db, false, &BTreeMap::new())
        .unwrap();
    let t = format!("{db}.p");
    catalog
        .create_table(
            &t,
            dated_schema(r#""metastore.partitioned-table":"true""#),
            false,
        )
        .unwrap();
    let view = hms_view(&uri, &cp, &["table", &db, "p"]);
    let location = view
        .iter()
        .find_map(|l| l.strip_prefix("location="))
        .unwrap()
        .to_string();
    assert!(location.ends_with(&format!("{w}/{db}.db/p")), "{location}");
    for want in [
        "partitionKeys=1",
        "col00=id:int:null",
        "col01=v:string:null",
        "param.metastore.partitioned-table=true",
        "param.partition=dt",
    ] {
        assert!(view.contains(&want.to_string()), "{want} not in {view:?}");
    }
    assert!(!view.iter().any(|l| l.contains("=dt:")), "{view:?}");
    assert_eq!(
        hms_partitions(&uri, &cp, &db, "p", &location),
        Vec::<String>::new()
    );

    let table = catalog.table(&t).unwrap();
    let rows1 = [("20240101", 1), ("20240102", 2), ("20240101", 3)];
    table
        .write()
        .batches([dated_batch(&table, &rows1)])
        .unwrap();
    let rows2 = [("20240102", 4), ("20240103", 5)];
    let table = catalog.table(&t).unwrap();
    table
        .write()
        .batches([dated_batch(&table, &rows2)])
        .unwrap();
    assert_eq!(
        hms_partitions(&uri, &cp, &db, "p", &location),
        vec![
            "partition=dt=20240101 location=<table>/dt=20240101".to_string(),
            "partition=dt=20240102 location=<table>/dt=20240102".to_string(),
            "partition=dt=20240103 location=<table>/dt=20240103".to_string(),
        ]
    );
    // Each location is the partition's directory, holding its data.
    for d in ["20240101", "20240102", "20240103"] {
        assert!(wh
            .path()
            .join(format!("{db}.db/p/dt={d}/bucket-0"))
            .is_dir());
    }

    // Two days' expiry on 2024-01-04: 20240101 goes, from the table and the metastore.
    let now = chrono::NaiveDate::from_ymd_opt(2024, 1, 4)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap();
    let report = catalog
        .table(&t)
        .unwrap()
        .expire_partitions()
        .with_expiration_time(Duration::from_secs(2 * 86400))
        .with_timestamp_formatter("yyyyMMdd")
        .with_now(now)
        .run()
        .unwrap();
    assert_eq!(report.partitions.len(), 1, "{report:?}");
    assert_eq!(
        hms_partitions(&uri, &cp, &db, "p", &location),
        vec![
            "partition=dt=20240102 location=<table>/dt=20240102".to_string(),
            "partition=dt=20240103 location=<table>/dt=20240103".to_string(),
        ]
    );
    let rows = catalog.table(&t).unwrap().scan().to_arrow().unwrap();
    let ids: Vec<i32> = {
        let mut ids: Vec<i32> = rows
            .iter()
            .flat_map(|b| {
                let c = b.column_by_name("id").unwrap();
                let c = c.as_any().downcast_ref::<Int32Array>().unwrap();
                c.values().to_vec()
            })
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids, vec![2, 4, 5]);

    // A partitioned table without the option: no partition keys, no partitions.
    let q = format!("{db}.q");
    catalog.create_table(&q, dated_schema(""), false).unwrap();
    let table = catalog.table(&q).unwrap();
    table
        .write()
        .batches([dated_batch(&table, &rows1)])
        .unwrap();
    let view = hms_view(&uri, &cp, &["table", &db, "q"]);
    assert!(view.contains(&"partitionKeys=0".to_string()), "{view:?}");
    assert!(
        view.contains(&"col00=dt:string:null".to_string()),
        "{view:?}"
    );
    catalog.drop_database(&db, false, true).unwrap();
}

/// A child `HmsView hold`: the metastore's own client holding the EXCLUSIVE table lock until
/// its stdin closes.
struct HeldLock {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl HeldLock {
    fn take(uri: &str, cp: &str, db: &str, table: &str) -> Self {
        let mut child = Command::new("java")
            .arg("-cp")
            .arg(cp)
            .arg("HmsView")
            .args([uri, "hold", db, table, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run java");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(line.starts_with("locked="), "HmsView hold: {line:?}");
        HeldLock { child, out }
    }

    /// Releases the lock and waits for the client to say so.
    fn release(mut self) {
        drop(self.child.stdin.take());
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        assert!(line.starts_with("unlocked="), "HmsView hold: {line:?}");
        assert!(self.child.wait().unwrap().success());
    }
}

/// Under `lock.enabled` (a metastore with Hive's transaction tables, as Hive's schematool
/// makes them), with the metastore's own client holding the table's EXCLUSIVE lock: a commit
/// with a 2 s `lock-acquire-timeout` gives up with an error naming the lock and publishes
/// nothing; a commit with a long one waits (the metastore shows its EXCLUSIVE lock on the
/// table WAITING behind the other, and the timed-out one gone), then lands once the other is
/// released, and releases its own (the metastore shows no lock after it).
#[test]
fn commits_wait_for_the_metastore_lock() {
    let Some((uri, cp)) = hms() else { return };
    let wh = tempfile::tempdir().unwrap();
    let w = wh.path().to_str().unwrap().to_string();
    let db = format!("lk_{}", std::process::id());
    let t = format!("{db}.t");
    let plain = Catalog::open(options(&uri, &w, false)).unwrap();
    plain.create_database(&db, false, &BTreeMap::new()).unwrap();
    plain.create_table(&t, schema(), false).unwrap();
    let locked_with = |timeout: &str| {
        let mut o = options(&uri, &w, true);
        o.insert("lock-acquire-timeout".into(), timeout.into());
        Catalog::open(o).unwrap()
    };
    let snapshot1 = wh.path().join(format!("{db}.db/t/snapshot/snapshot-1"));

    let held = HeldLock::take(&uri, &cp, &db, "t");
    let impatient = locked_with("2 s").table(&t).unwrap();
    assert!(
        format!("{:?}", impatient.meta().snapshot_commit()).starts_with("HiveSnapshotCommit"),
        "a Hive table under lock.enabled publishes under the lock"
    );
    let started = Instant::now();
    let e = impatient
        .write()
        .batches([id_v_batch(impatient.arrow_schema(), 0, 1, "rs")])
        .unwrap_err()
        .to_string();
    let waited = started.elapsed();
    assert!(e.contains(&format!("lock {t}")), "{e}");
    assert!(e.contains("not acquired within"), "{e}");
    assert!(e.contains(&uri), "{e}");
    assert!(waited >= Duration::from_secs(2), "{waited:?}");
    assert!(!snapshot1.exists());

    let patient = locked_with("2 min").table(&t).unwrap();
    let writer = std::thread::spawn(move || {
        patient
            .write()
            .batches([id_v_batch(patient.arrow_schema(), 0, 5, "rs")])
            .map(|r| r.snapshots)
    });
    // Ours waits behind the held one (the timed-out request was withdrawn).
    let user = std::env::var("USER").unwrap_or_else(|_| "paimon".into());
    let mut locks = Vec::new();
    for _ in 0..20 {
        locks = hms_view(&uri, &cp, &["locks", &db, "t"]);
        if locks.len() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        locks,
        vec![
            format!("lock={db}.t EXCLUSIVE ACQUIRED user=hmsview"),
            format!("lock={db}.t EXCLUSIVE WAITING user={user}"),
        ]
    );
    assert!(!writer.is_finished() && !snapshot1.exists());
    held.release();
    assert_eq!(writer.join().unwrap().unwrap(), vec![1]);
    assert_eq!(
        batch_row_list(&plain.table(&t).unwrap().scan().to_arrow().unwrap()),
        row_list(0, 5, "rs")
    );
    assert_eq!(java_rows(&w, &t), row_list(0, 5, "rs"));
    assert_eq!(
        hms_view(&uri, &cp, &["locks", &db, "t"]),
        Vec::<String>::new()
    );
    plain.drop_database(&db, false, true).unwrap();
}
