//! Snapshot expiry and orphan-file cleanup against Java 1.4.2 (the oracle): the same run done by
//! Java's `ExpireSnapshotsImpl` / `LocalOrphanFilesClean` and by ours on two copies of a
//! Java-written table leaves the same files; every snapshot and tag left reads as before, with
//! Java and with our planner.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use paimon_meta::maintenance::{ExpireConfig, RemoveOrphanFiles};
use paimon_meta::Table;

use crate::common::{copy_dir, oracle, repo};

/// Every file below `root`, relative, sorted.
fn listing(root: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, root, &mut out);
    out
}

fn open(p: &Path) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

/// Java's rows of every snapshot and tag present, keyed `snapshot-N` / `tag-T`.
fn java_reads(p: &Path) -> BTreeMap<String, Vec<String>> {
    let t = open(p);
    let s = p.to_str().unwrap();
    let mut out = BTreeMap::new();
    for id in t.snapshot_manager().snapshot_ids().unwrap() {
        let rows = oracle(&["dump", s, "--snapshot", &id.to_string(), "--sort"]);
        out.insert(format!("snapshot-{id}"), rows);
    }
    for tag in t.tag_manager().tag_names().unwrap() {
        out.insert(
            format!("tag-{tag}"),
            oracle(&["dump", s, "--tag", &tag, "--sort"]),
        );
    }
    out
}

/// Our planner's live files of every snapshot and tag exist on disk; returns how many were
/// checked.
fn our_reads_find_every_file(p: &Path) -> usize {
    let t = open(p);
    let mut scans: Vec<_> = t
        .snapshot_manager()
        .snapshot_ids()
        .unwrap()
        .into_iter()
        .map(|id| t.scan().with_snapshot(id))
        .collect();
    for tag in t.tag_manager().tag_names().unwrap() {
        scans.push(t.scan().with_tag(tag));
    }
    let mut n = 0;
    for scan in scans {
        for f in t.live_files(Some(scan)).unwrap() {
            let path = match &f.file.external_path {
                Some(p) => p.clone(),
                None => format!("{}/{}", f.bucket_path, f.file.file_name),
            };
            assert!(Path::new(&path).exists(), "{path} is referenced");
            if let Some(dv) = &f.deletion_file {
                assert!(Path::new(&dv.path).exists(), "{} is referenced", dv.path);
            }
            n += 1;
        }
    }
    n
}

/// A Java table with many snapshots (appends, full compactions, no expiry yet) and a tag on
/// its third snapshot, written as Java's `TagManager` does (the snapshot's JSON); made once and
/// copied by each test.
fn loop_table() -> (tempfile::TempDir, PathBuf) {
    static SOURCE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, src) = SOURCE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        oracle(&[
            "commit-loop",
            p.to_str().unwrap(),
            "--seconds",
            "15",
            "--retain",
            "100000",
        ]);
        let n = open(&p).snapshot_manager().snapshot_ids().unwrap().len();
        assert!(n >= 6, "commit-loop made only {n} snapshots");
        std::fs::create_dir_all(p.join("tag")).unwrap();
        std::fs::copy(p.join("snapshot/snapshot-3"), p.join("tag/tag-t3")).unwrap();
        (dir, p)
    });
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t");
    copy_dir(src, &p);
    (dir, p)
}

fn copies(src: &Path) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("java"), dir.path().join("ours"));
    copy_dir(src, &a);
    copy_dir(src, &b);
    (dir, a, b)
}

/// Java and we expire the same copies the same way: identical files left, identical counts;
/// a dry run first deletes nothing and names exactly what the run then deletes.
fn expire_like_java(src: &Path, retain: i64) {
    let before = java_reads(src);
    let (_d, a, b) = copies(src);
    let r = retain.to_string();
    let java = oracle(&[
        "expire",
        a.to_str().unwrap(),
        "--retain-max",
        &r,
        "--retain-min",
        &r,
        "--max-deletes",
        "100000",
    ]);
    let config = ExpireConfig::default()
        .with_retain_max(retain)
        .with_retain_min(retain)
        .with_time_retained_ms(0)
        .with_max_deletes(100_000);

    let listed = listing(&b);
    let dry = open(&b)
        .expire_snapshots(&config.clone().with_dry_run(true))
        .unwrap();
    assert_eq!(listing(&b), listed, "a dry run deletes nothing");
    let report = open(&b).expire_snapshots(&config).unwrap();
    assert_eq!(report, dry);
    assert_eq!(
        java,
        vec![format!("{{\"expired\":{}}}", report.expired.len())]
    );
    assert!(!report.expired.is_empty());

    let after = listing(&b);
    assert_eq!(after, listing(&a), "files left by Java and by us");
    let gone: BTreeSet<String> = listed.difference(&after).cloned().collect();
    let named: BTreeSet<String> = report
        .data_files
        .iter()
        .chain(&report.metadata_files)
        .chain(&report.snapshot_files)
        .map(|f| {
            Path::new(f)
                .strip_prefix(&b)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|f| listed.contains(f))
        .collect();
    assert_eq!(gone, named, "the report names what was deleted");
    assert_eq!(
        std::fs::read_to_string(b.join("snapshot/EARLIEST")).unwrap(),
        report.earliest.unwrap().to_string()
    );

    let now = java_reads(&b);
    assert!(now.len() as i64 >= retain);
    for (k, rows) in &now {
        assert_eq!(rows, &before[k], "{k} reads as before the expiry");
    }
    for id in &report.expired {
        assert!(!now.contains_key(&format!("snapshot-{id}")));
    }
    assert!(our_reads_find_every_file(&b) > 0);
}

#[test]
fn expire_commit_loop_table_like_java() {
    let (_d, p) = loop_table();
    expire_like_java(&p, 4);
}

#[test]
fn expire_tagged_fixture_like_java() {
    expire_like_java(&repo().join("fixtures/warehouse/pk.db/many_snapshots"), 1);
}

fn plant(path: &Path, age: Duration) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let f = std::fs::File::create(path).unwrap();
    f.set_modified(SystemTime::now() - age).unwrap();
}

/// Planted unreferenced files: Java and we find the same old ones, young ones stay, and after
/// an expiry by Java (which leaves nothing unreferenced) the table still reads as before.
#[test]
fn orphan_files_like_java() {
    let (_d, src) = loop_table();
    oracle(&[
        "expire",
        src.to_str().unwrap(),
        "--retain-max",
        "3",
        "--retain-min",
        "3",
    ]);
    let day = Duration::from_secs(86_400);
    let old = [
        "manifest/manifest-00000000-orphan-0",
        "bucket-0/data-00000000-orphan-0.parquet",
        "bucket-1/data-00000000-orphan-1.parquet.index",
        "index/index-00000000-orphan-0",
        "snapshot/.snapshot-99.tmp",
    ];
    let young = ["bucket-0/data-00000000-young-0.parquet"];
    for f in old {
        plant(&src.join(f), 2 * day);
    }
    for f in young {
        plant(&src.join(f), Duration::from_secs(60));
    }
    let before = java_reads(&src);
    let (_c, a, b) = copies(&src);
    // Copies lose mtimes; plant again.
    for root in [&a, &b] {
        for f in old {
            plant(&root.join(f), 2 * day);
        }
        for f in young {
            plant(&root.join(f), Duration::from_secs(60));
        }
        // Everything Java wrote is young in the copy, so nothing else can be judged orphaned
        // by age; the planted files are the only old ones.
    }
    let java_dry: BTreeSet<String> = oracle(&[
        "remove-orphan-files",
        a.to_str().unwrap(),
        "--older-than-ms",
        "86400000",
        "--dry-run",
        "true",
    ])
    .into_iter()
    .map(|p| {
        Path::new(&p)
            .strip_prefix(&a)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    })
    .collect();
    let t = open(&b);
    let listed = listing(&b);
    let ours = RemoveOrphanFiles::new(&t).with_dry_run(true).run().unwrap();
    assert_eq!(listing(&b), listed, "a dry run deletes nothing");
    let ours_rel: BTreeSet<String> = ours
        .files
        .iter()
        .map(|p| {
            Path::new(p)
                .strip_prefix(&b)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let planted: BTreeSet<String> = old.iter().map(|s| s.to_string()).collect();
    assert_eq!(java_dry, planted, "Java finds the planted old files");
    assert_eq!(ours_rel, planted);

    let done = RemoveOrphanFiles::new(&t).run().unwrap();
    assert_eq!(done, ours);
    let expected: BTreeSet<String> = listed.difference(&planted).cloned().collect();
    assert_eq!(listing(&b), expected, "only the old orphans went");

    // With no age limit everything unreferenced goes, the young file too, but nothing in use.
    let all = RemoveOrphanFiles::new(&t)
        .with_older_than_ms(-60_000)
        .run()
        .unwrap();
    assert_eq!(all.files.len(), young.len(), "{:?}", all.files);
    assert_eq!(java_reads(&b), before);
    assert!(our_reads_find_every_file(&b) > 0);
}

fn cpp(rel: &str) -> PathBuf {
    repo().join("../shared/testdata/paimon-cpp").join(rel)
}

/// Deletion vectors: index manifests and index files expire with their snapshots, the tag's
/// stay.
#[test]
fn expire_dv_table_with_tag_like_java() {
    expire_like_java(
        &cpp("orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv"),
        1,
    );
}

/// Snapshots of older schemas expire; the schema files stay.
#[test]
fn expire_evolved_table_like_java() {
    expire_like_java(
        &cpp("parquet/pk_table_with_alter_table.db/pk_table_with_alter_table"),
        2,
    );
    expire_like_java(&cpp("parquet/pk_09.db/pk_09"), 3);
}
