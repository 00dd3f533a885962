//! Commits on copies of Java-written fixture tables; what Java reads after them is checked in
//! `tests/integration/java_commit.rs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paimon_spec::binary::BinaryRowBuilder;
use paimon_split::commit::CommitMessage;

use super::*;
use crate::scan::LiveFile;
use paimon_test_utils::copy_dir;

/// A private copy of `fixtures/warehouse/<rel>`.
pub(super) fn copy_fixture(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/warehouse")
        .join(rel);
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("t");
    copy_dir(&src, &dst);
    (dir, dst)
}

fn open(p: &Path) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

fn partition_bytes(t: &Table, f: &LiveFile) -> Vec<u8> {
    let types = t
        .schema()
        .partition_fields()
        .iter()
        .map(|f| f.data_type.clone())
        .collect();
    let mut b = BinaryRowBuilder::new(types);
    for (i, v) in f.partition.iter().enumerate() {
        b.set(i, v.clone()).unwrap();
    }
    b.build_serialized().unwrap()
}

/// One message per live file, deleting it.
fn delete_messages(t: &Table, files: &[&LiveFile]) -> Vec<CommitMessage> {
    files
        .iter()
        .map(|f| {
            let mut m = CommitMessage::new(partition_bytes(t, f), f.bucket)
                .with_total_buckets(Some(f.total_buckets));
            m.data_increment.deleted_files.push(f.file.clone());
            m
        })
        .collect()
}

fn manifest_files(p: &Path) -> usize {
    std::fs::read_dir(p.join("manifest")).unwrap().count()
}

#[test]
fn delete_commit_is_applied_once() {
    let (_d, p) = copy_fixture("append.db/part_multi");
    let t = open(&p);
    let before_id = t.snapshot_manager().latest_id().unwrap().unwrap();
    let live = t.live_files(None).unwrap();
    let total: i64 = live.iter().map(|f| f.file.row_count).sum();
    let eu: Vec<&LiveFile> = live
        .iter()
        .filter(|f| f.partition[0] == Datum::String("eu".into()))
        .collect();
    assert!(!eu.is_empty());
    let eu_rows: i64 = eu.iter().map(|f| f.file.row_count).sum();
    let msgs = delete_messages(&t, &eu);
    let c = t.new_commit("rust-user");
    assert_eq!(c.commit(7, &msgs).unwrap(), vec![before_id + 1]);
    // The same identifier again (a retried job) and an older one are skipped.
    assert_eq!(c.commit(7, &msgs).unwrap(), Vec::<i64>::new());
    assert_eq!(c.commit(3, &msgs).unwrap(), Vec::<i64>::new());
    let t = open(&p);
    let s = t.snapshot_manager().latest().unwrap().unwrap();
    assert_eq!(s.id, before_id + 1);
    // Java `FileStoreCommitImpl`: written changes deleting files are an OVERWRITE.
    assert_eq!(s.commit_kind, "OVERWRITE");
    assert_eq!(s.commit_user, "rust-user");
    assert_eq!(s.commit_identifier, 7);
    assert_eq!(s.delta_record_count, Some(-eu_rows));
    assert_eq!(s.total_record_count, Some(total - eu_rows));
    let hint = std::fs::read_to_string(p.join("snapshot/LATEST")).unwrap();
    assert_eq!(hint, (before_id + 1).to_string());
    let after = t.live_files(None).unwrap();
    assert_eq!(after.len(), live.len() - eu.len());
    assert!(after
        .iter()
        .all(|f| f.partition[0] != Datum::String("eu".into())));
}

#[test]
fn deleting_a_file_that_is_gone_is_a_conflict_and_leaves_nothing() {
    let (_d, p) = copy_fixture("append.db/part_multi");
    let t = open(&p);
    let live = t.live_files(None).unwrap();
    let msgs = delete_messages(&t, &[&live[0]]);
    t.new_commit("a").commit(1, &msgs).unwrap();
    let latest = t.snapshot_manager().latest_id().unwrap();
    let manifests = manifest_files(&p);
    let e = t.new_commit("b").commit(1, &msgs).unwrap_err();
    let Error::CommitConflict { reason, .. } = &e else {
        panic!("{e}")
    };
    assert!(reason.contains(&live[0].file.file_name), "{reason}");
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), latest);
    assert_eq!(
        manifest_files(&p),
        manifests,
        "a failed attempt leaves no manifest"
    );
}

/// Threads racing for the next snapshot: every commit lands once, ids are dense.
#[test]
fn concurrent_committers_get_dense_ids() {
    let (_d, p) = copy_fixture("append.db/unaware");
    let t = open(&p);
    let first = t.snapshot_manager().latest_id().unwrap().unwrap();
    let live = t.live_files(None).unwrap();
    let src = &live[0];
    let threads = 6;
    let per_thread = 3;
    // (thread, identifier, the ids its commit returned): printed when the ids are not dense.
    let returned = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for th in 0..threads {
            let t = t.clone();
            let src = src.clone();
            let returned = &returned;
            s.spawn(move || {
                let c = t.new_commit(&format!("user-{th}"));
                for i in 0..per_thread {
                    // A copy of a Java data file under a new name, added by this commit.
                    let name = format!("data-copy-{th}-{i}.parquet");
                    let dir = Path::new(&src.bucket_path);
                    std::fs::copy(dir.join(&src.file.file_name), dir.join(&name)).unwrap();
                    let mut f = src.file.clone();
                    f.file_name = name;
                    let mut m = CommitMessage::new(partition_bytes(&t, &src), src.bucket)
                        .with_total_buckets(Some(src.total_buckets));
                    m.data_increment.new_files.push(f);
                    let ids = c.commit(i, &[m]).unwrap();
                    assert_eq!(ids.len(), 1);
                    returned.lock().unwrap().push((th, i, ids[0]));
                }
            });
        }
    });
    let sm = t.snapshot_manager();
    let ids = sm.snapshot_ids().unwrap();
    let n = threads * per_thread;
    if *ids.last().unwrap() != first + n {
        // Once seen under load (newest 18 of 21, every commit returning an id): say what each
        // commit returned and what each snapshot holds, to find where a commit went.
        let held: Vec<(i64, String, i64)> = ids
            .iter()
            .filter_map(|id| sm.snapshot(*id).ok())
            .map(|s| (s.id, s.commit_user, s.commit_identifier))
            .collect();
        panic!(
            "snapshots {ids:?} after {first}, expected up to {}; commits returned \
             (thread, identifier, id) {:?}; snapshots (id, user, identifier) {held:?}",
            first + n,
            returned.lock().unwrap()
        );
    }
    let ours: Vec<Snapshot> = sm
        .snapshots()
        .unwrap()
        .into_iter()
        .filter(|s| s.id > first)
        .collect();
    assert_eq!(ours.len() as i64, n);
    for th in 0..threads {
        let mut idents: Vec<i64> = ours
            .iter()
            .filter(|s| s.commit_user == format!("user-{th}"))
            .map(|s| s.commit_identifier)
            .collect();
        idents.sort_unstable();
        assert_eq!(idents, (0..per_thread).collect::<Vec<_>>());
    }
    let after = open(&p).live_files(None).unwrap();
    assert_eq!(after.len(), live.len() + n as usize);
}

#[test]
fn truncate_and_drop_partition_write_overwrite_snapshots() {
    let (_d, p) = copy_fixture("append.db/part_multi");
    let t = open(&p);
    let live = t.live_files(None).unwrap();
    let us = live
        .iter()
        .filter(|f| f.partition[0] == Datum::String("us".into()))
        .count();
    assert!(us > 0);
    t.new_commit("u")
        .drop_partitions(1, vec![vec![("region".into(), Datum::String("us".into()))]])
        .unwrap();
    let t = open(&p);
    assert_eq!(t.live_files(None).unwrap().len(), live.len() - us);
    let s = t.snapshot_manager().latest().unwrap().unwrap();
    assert_eq!(s.commit_kind, "OVERWRITE");
    let e = t
        .new_commit("u")
        .drop_partitions(2, vec![vec![("nope".into(), Datum::Int(1))]])
        .unwrap_err();
    assert!(matches!(e, Error::InvalidCommit { .. }), "{e}");
    t.new_commit("u").truncate(3).unwrap();
    let t = open(&p);
    assert!(t.live_files(None).unwrap().is_empty());
    assert_eq!(
        t.snapshot_manager()
            .latest()
            .unwrap()
            .unwrap()
            .total_record_count,
        Some(0)
    );
}

#[test]
fn uuids_look_like_javas() {
    let u = random_uuid();
    assert_eq!(u.len(), 36);
    assert_eq!(&u[14..15], "4");
    assert_ne!(u, random_uuid());
    assert!(backoff(0, 10, 10_000) >= Duration::from_millis(10));
    assert!(backoff(30, 10, 10_000) <= Duration::from_millis(12_000));
}

#[test]
fn create_table_validates_as_java() {
    use paimon_spec::schema::TableSchema;
    use paimon_spec::types::{DataField, DataType, TypeKind};
    let base = TableSchema::from_json_str(
        r#"{"version":3,"id":0,"fields":[{"id":0,"name":"k","type":"INT"},
        {"id":1,"name":"p","type":"STRING"},{"id":2,"name":"a","type":{"type":"ARRAY","element":"INT"}}],
        "highestFieldId":2,"partitionKeys":[],"primaryKeys":[],"options":{},"timeMillis":0}"#,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let io: paimon_io::FileIORef = Arc::new(paimon_io::LocalFileIO::new());
    let try_create = |n: &str, f: &dyn Fn(&mut TableSchema)| {
        let mut s = base.clone();
        f(&mut s);
        create_table_at(io.clone(), dir.path().join(n).to_str().unwrap(), s, false)
    };
    let bad = |n: &str, f: &dyn Fn(&mut TableSchema), want: &str| {
        let e = try_create(n, f).unwrap_err().to_string();
        assert!(e.contains(want), "{n}: {e}");
        assert!(!dir.path().join(n).join("schema/schema-0").exists());
    };
    bad(
        "b0",
        &|s| {
            s.options.insert("bucket".into(), "0".into());
        },
        "greater than 0",
    );
    bad(
        "bk",
        &|s| {
            s.options.insert("bucket".into(), "2".into());
        },
        "bucket-key",
    );
    bad("pa", &|s| s.partition_keys = vec!["a".into()], "primitive");
    bad(
        "pk",
        &|s| {
            s.primary_keys = vec!["k".into()];
            s.partition_keys = vec!["p".into()];
            s.options.insert("bucket".into(), "2".into());
        },
        "include all partition",
    );
    bad(
        "pk-seq",
        &|s| {
            s.primary_keys = vec!["k".into()];
            s.partition_keys = vec!["p".into()];
            s.options.insert("sequence.field".into(), "k".into());
        },
        "cross-partition",
    );
    // Java's cross-partition upsert: dynamic buckets, a key without the partition column.
    try_create("cross", &|s| {
        s.primary_keys = vec!["k".into()];
        s.partition_keys = vec!["p".into()];
    })
    .unwrap();
    bad(
        "dup",
        &|s| s.fields.push(DataField::new(9, "k", DataType::string())),
        "twice",
    );
    bad(
        "cp",
        &|s| {
            s.options
                .insert("changelog-producer".into(), "input".into());
        },
        "primary key",
    );
    // Java's checks of deletion vectors and first-row against the changelog producer.
    let pk_with = |opts: Vec<(&'static str, &'static str)>| {
        move |s: &mut TableSchema| {
            s.primary_keys = vec!["k".into()];
            s.options.insert("bucket".into(), "2".into());
            for (k, v) in &opts {
                s.options.insert((*k).into(), (*v).into());
            }
        }
    };
    bad(
        "dv-fc",
        &pk_with(vec![
            ("deletion-vectors.enabled", "true"),
            ("changelog-producer", "full-compaction"),
        ]),
        "none, input or lookup",
    );
    bad(
        "dv-fr",
        &pk_with(vec![
            ("deletion-vectors.enabled", "true"),
            ("merge-engine", "first-row"),
        ]),
        "no deletion vectors",
    );
    bad(
        "fr-input",
        &pk_with(vec![
            ("merge-engine", "first-row"),
            ("changelog-producer", "input"),
        ]),
        "none or lookup",
    );
    for (n, producer) in [("dv-lookup", "lookup"), ("dv-input", "input")] {
        let opts = vec![
            ("deletion-vectors.enabled", "true"),
            ("changelog-producer", producer),
        ];
        try_create(n, &pk_with(opts)).unwrap();
    }
    // A valid primary-key table: its key becomes NOT NULL; schema-0 reads back.
    let t = try_create("ok", &|s| {
        s.primary_keys = vec!["k".into(), "p".into()];
        s.partition_keys = vec!["p".into()];
        s.options.insert("bucket".into(), "2".into());
    })
    .unwrap();
    assert_eq!(t.schema().id, 0);
    assert!(!t.schema().field("k").unwrap().data_type.nullable);
    assert_eq!(
        t.schema().field("a").unwrap().data_type.kind,
        TypeKind::Array(Box::new(DataType::nullable(TypeKind::Int)))
    );
    assert!(t.schema().time_millis > 0);
}

/// Many small commits: the base manifest list is merged (Java `manifest.merge-min-count`) and
/// the table keeps every file.
#[test]
fn small_manifests_are_merged() {
    let (_d, p) = copy_fixture("append.db/unaware");
    let t = open(&p);
    let live = t.live_files(None).unwrap();
    let src = live[0].clone();
    let c = t.new_commit("merge");
    let n = 40;
    for i in 0..n {
        let name = format!("data-m-{i}.parquet");
        let dir = Path::new(&src.bucket_path);
        std::fs::copy(dir.join(&src.file.file_name), dir.join(&name)).unwrap();
        let mut f = src.file.clone();
        f.file_name = name;
        let mut m = CommitMessage::new(partition_bytes(&t, &src), src.bucket)
            .with_total_buckets(Some(src.total_buckets));
        m.data_increment.new_files.push(f);
        c.commit(i, &[m]).unwrap();
    }
    let s = t.snapshot_manager().latest().unwrap().unwrap();
    let path = t.layout().manifest_path(&s.base_manifest_list);
    let base = ManifestFileMeta::decode_list(&path, std::fs::read(&path).unwrap().into()).unwrap();
    assert!(
        base.len() < 30,
        "{} base manifests after {n} commits",
        base.len()
    );
    assert_eq!(
        open(&p).live_files(None).unwrap().len(),
        live.len() + n as usize
    );
}

fn key_entry(level: i32, min: i32, max: i32, name: &str, total: i32) -> ManifestEntry {
    use paimon_spec::types::{DataType, TypeKind};
    let key = |v: i32| {
        let mut b = BinaryRowBuilder::new(vec![DataType::not_null(TypeKind::Int)]);
        b.set(0, Datum::Int(v)).unwrap();
        b.build_serialized().unwrap()
    };
    let empty = BinaryRowBuilder::new(vec![]).build_serialized().unwrap();
    let file = DataFileMeta {
        file_name: name.into(),
        file_size: 1,
        row_count: 1,
        min_key: key(min).into(),
        max_key: key(max).into(),
        key_stats: paimon_spec::stats::SimpleStats::empty(),
        value_stats: paimon_spec::stats::SimpleStats::empty(),
        min_sequence_number: 0,
        max_sequence_number: 0,
        schema_id: 0,
        level,
        extra_files: vec![],
        creation_time: None,
        delete_row_count: None,
        embedded_index: None,
        file_source: None,
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
        write_cols_sequences: None,
    };
    ManifestEntry {
        kind: FileKind::Add,
        partition: empty,
        bucket: 0,
        total_buckets: total,
        file: Box::new(file),
    }
}

#[test]
fn key_ranges_and_total_buckets_conflict() {
    use paimon_spec::types::{DataType, TypeKind};
    let keys = [DataType::not_null(TypeKind::Int)];
    let live = vec![key_entry(1, 0, 10, "a", 2), key_entry(0, 0, 100, "l0", 2)];
    // Level 0 may overlap; a level-1 file overlapping another level-1 file may not.
    conflict::check(&live, &[key_entry(1, 11, 20, "b", 2)], &keys, false).unwrap();
    conflict::check(&live, &[key_entry(0, 5, 7, "c", 2)], &keys, false).unwrap();
    let e = conflict::check(&live, &[key_entry(1, 10, 20, "d", 2)], &keys, false).unwrap_err();
    assert!(
        e.contains("a") && e.contains("d") && e.contains("level 1"),
        "{e}"
    );
    let e = conflict::check(&live, &[key_entry(2, 0, 1, "r", 4)], &keys, false).unwrap_err();
    assert!(e.contains("total buckets") && e.contains("(file r)"), "{e}");
    // An overwrite may rescale.
    conflict::check(&live, &[key_entry(2, 0, 1, "r", 4)], &keys, true).unwrap();
    let mut del = key_entry(1, 0, 10, "gone", 2);
    del.kind = FileKind::Delete;
    let e = conflict::check(&live, &[del], &keys, false).unwrap_err();
    assert!(e.contains("gone") && e.contains("no longer live"), "{e}");
}

fn index_entries(t: &Table) -> Vec<IndexManifestEntry> {
    let s = t.snapshot_manager().latest().unwrap().unwrap();
    let path = t.layout().manifest_path(&s.index_manifest.unwrap());
    let bytes = t.file_io().read(&path).unwrap();
    IndexManifestEntry::decode_index_manifest(&path, bytes).unwrap()
}

fn spec_index(e: &IndexManifestEntry) -> paimon_spec::index_file::IndexFileMeta {
    paimon_spec::index_file::IndexFileMeta {
        index_type: e.index_file.index_type.clone(),
        file_name: e.index_file.file_name.clone(),
        file_size: e.index_file.file_size,
        row_count: e.index_file.row_count,
        dv_ranges: Some(Vec::new()),
        external_path: None,
        global_index: None,
    }
}

/// A Java compaction message names only the new vector file of its bucket: it replaces the
/// bucket's previous file (Java `BucketedCombiner`), the other buckets keep theirs. A message
/// that then retires the replaced file was made against the old state: a conflict, nothing
/// committed.
#[test]
fn a_new_vector_file_replaces_its_buckets_old_one() {
    let (_d, p) = copy_fixture("pk.db/dv32");
    let t = open(&p);
    let before = index_entries(&t);
    let old = before[0].clone();
    let names = |v: &[IndexManifestEntry], bucket: i32| -> Vec<String> {
        v.iter()
            .filter(|e| e.bucket == bucket)
            .map(|e| e.index_file.file_name.clone())
            .collect()
    };
    let mut new_file = spec_index(&old);
    new_file.file_name = "index-replacement-0".into();
    let mut m = CommitMessage::new(old.partition.clone(), old.bucket);
    m.compact_increment.new_index_files.push(new_file);
    t.new_commit("a").commit(1, &[m]).unwrap();
    let after = index_entries(&t);
    assert_eq!(names(&after, old.bucket), ["index-replacement-0"]);
    let other = 1 - old.bucket;
    assert_eq!(names(&after, other), names(&before, other));
    assert_eq!(after.len(), before.len());

    let latest = t.snapshot_manager().latest_id().unwrap();
    let mut stale = CommitMessage::new(old.partition.clone(), old.bucket);
    stale
        .compact_increment
        .deleted_index_files
        .push(spec_index(&old));
    let e = t.new_commit("b").commit(1, &[stale]).unwrap_err();
    let Error::CommitConflict { reason, .. } = &e else {
        panic!("{e}")
    };
    assert!(reason.contains(&old.index_file.file_name), "{reason}");
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), latest);
}

/// Records what a catalog would be asked to add and drop; refuses to add while `fail` is set.
#[derive(Debug, Default)]
struct RecordedPartitions {
    fail: std::sync::atomic::AtomicBool,
    created: std::sync::Mutex<Vec<crate::catalog::PartitionValues>>,
    dropped: std::sync::Mutex<Vec<crate::catalog::PartitionValues>>,
}

impl crate::catalog::PartitionModification for RecordedPartitions {
    fn create_partitions(&self, partitions: &[crate::catalog::PartitionValues]) -> Result<()> {
        if self.fail.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(Error::unsupported("the catalog is down"));
        }
        self.created.lock().unwrap().extend_from_slice(partitions);
        Ok(())
    }

    fn drop_partitions(&self, partitions: &[crate::catalog::PartitionValues]) -> Result<()> {
        self.dropped.lock().unwrap().extend_from_slice(partitions);
        Ok(())
    }
}

/// Java's `AddPartitionCommitCallback` under `metastore.partitioned-table`: a commit adds the
/// partitions of the files it adds, named as the Java-written directories of the fixture name
/// them (`region=us/yr=2023/dt=19783`: legacy names, a date as its day number). A catalog
/// failure after the snapshot landed is `CommitCallbackFailed` (files kept); committing the
/// same identifier again makes no snapshot and adds the partitions. A drop of a whole partition
/// removes it from the catalog. Without the option the table offers no catalog record.
#[test]
fn commits_add_their_partitions_to_the_catalog() {
    let (_d, p) = copy_fixture("append.db/part_multi");
    let rel = "region=us/yr=2023/dt=19783/bucket-0";
    let name = std::fs::read_dir(p.join(rel))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.starts_with("data-"))
        .unwrap();
    let plain = open(&p);
    let live = plain.live_files(None).unwrap();
    let f = live.iter().find(|f| f.file.file_name == name).unwrap();
    // A copy of the file under a new name, added by the commit.
    let copy = format!("data-{}-0.parquet", random_uuid());
    std::fs::copy(p.join(rel).join(&name), p.join(rel).join(&copy)).unwrap();
    let mut file = f.file.clone();
    file.file_name = copy.clone();
    let mut m = CommitMessage::new(partition_bytes(&plain, f), f.bucket)
        .with_total_buckets(Some(f.total_buckets));
    m.data_increment.new_files.push(file);
    let messages = vec![m];
    let recorded = Arc::new(RecordedPartitions::default());

    // Without the option: no catalog call.
    let latest = plain.snapshot_manager().latest_id().unwrap().unwrap();
    let t = plain.with_partition_modification(recorded.clone());
    assert!(t.partition_modification().is_none());

    plain
        .alter(&[SchemaChange::SetOption {
            key: "metastore.partitioned-table".into(),
            value: "true".into(),
        }])
        .unwrap();
    let t = open(&p).with_partition_modification(recorded.clone());
    recorded
        .fail
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let e = t.new_commit("u").commit(7, &messages).unwrap_err();
    assert!(
        matches!(&e, Error::CommitCallbackFailed { snapshots, .. } if snapshots == &vec![latest + 1]),
        "{e}"
    );
    assert!(e.keeps_commit_files());
    assert!(e.to_string().contains("the catalog is down"), "{e}");
    let t = open(&p).with_partition_modification(recorded.clone());
    assert!(t
        .live_files(None)
        .unwrap()
        .iter()
        .any(|l| l.file.file_name == copy));
    assert!(recorded.created.lock().unwrap().is_empty());

    recorded
        .fail
        .store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(
        t.new_commit("u").commit(7, &messages).unwrap(),
        Vec::<i64>::new()
    );
    assert_eq!(t.snapshot_manager().latest_id().unwrap(), Some(latest + 1));
    let us: crate::catalog::PartitionValues = rel
        .split('/')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(*recorded.created.lock().unwrap(), vec![us.clone()]);

    let spec = f
        .partition
        .iter()
        .zip(["region", "yr", "dt"])
        .map(|(v, k)| (k.to_string(), v.clone()))
        .collect();
    t.new_commit("u").drop_partitions(8, vec![spec]).unwrap();
    assert_eq!(*recorded.dropped.lock().unwrap(), vec![us]);
}
