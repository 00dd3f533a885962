//! Manifest sidecars (`<manifest>.avro.sidecar`, listed in the manifest list's `_EXTRA_FILES`),
//! as paimon-rust 0.4 writes them with `manifest.sidecar.enabled` (Java after 2.0 writes the
//! same field): `fixtures/manifest-sidecar` (scripts/gen-sidecar-fixture.sh). We read the
//! manifests themselves; the sidecars are carried by our commits, kept by orphan removal while
//! their manifest is used, and deleted with their manifest when it expires.

use std::path::Path;
use std::sync::Arc;

use paimon_spec::binary::BinaryRowBuilder;
use paimon_split::commit::CommitMessage;

use super::{ExpireConfig, RemoveOrphanFiles};
use crate::commit::SchemaChange;
use crate::manifest::ManifestFileMeta;
use crate::table::Table;

const SUFFIX: &str = ".avro.sidecar";

/// A private copy of `fixtures/manifest-sidecar/db.db/t` at `<tempdir>/t`.
fn copy_fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let p = e.unwrap().path();
            let dst = to.join(p.file_name().unwrap());
            if p.is_dir() {
                copy_dir(&p, &dst);
            } else {
                std::fs::copy(&p, dst).unwrap();
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/manifest-sidecar/db.db/t");
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("t");
    copy_dir(&src, &dst);
    (dir, dst)
}

fn open(p: &Path) -> Table {
    Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap()).unwrap()
}

fn sidecars(p: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(p.join("manifest"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(SUFFIX))
        .collect();
    out.sort();
    out
}

/// The manifests of the latest snapshot's base and delta lists.
fn latest_metas(t: &Table) -> Vec<ManifestFileMeta> {
    let s = t.snapshot_manager().latest().unwrap().unwrap();
    let mut out = Vec::new();
    for list in [&s.base_manifest_list, &s.delta_manifest_list] {
        let path = t.layout().manifest_path(list);
        let bytes = std::fs::read(&path).unwrap();
        out.extend(ManifestFileMeta::decode_list(&path, bytes.into()).unwrap());
    }
    out
}

/// Deletes the first live file in a new snapshot (a commit of ours on paimon-rust's table).
fn delete_first_file(t: &Table) {
    let live = t.live_files(None).unwrap();
    let partition = BinaryRowBuilder::new(Vec::new())
        .build_serialized()
        .unwrap();
    let mut m = CommitMessage::new(partition, live[0].bucket)
        .with_total_buckets(Some(live[0].total_buckets));
    m.data_increment.deleted_files.push(live[0].file.clone());
    t.new_commit("u").commit(7, &[m]).unwrap();
}

#[test]
fn sidecars_are_decoded_and_carried_by_our_commit() {
    let (_dir, p) = copy_fixture();
    let t = open(&p);
    // paimon-rust's three manifests, each with its sidecar (the names paimon-rust gave them).
    let metas = latest_metas(&t);
    assert_eq!(metas.len(), 3);
    for m in &metas {
        assert_eq!(
            m.extra_files,
            Some(vec![format!("{}{SUFFIX}", m.file_name)]),
            "{}",
            m.file_name
        );
        assert_eq!(m.total_buckets, None, "paimon-rust 0.4 leaves it null");
    }
    assert_eq!(sidecars(&p).len(), 3);

    // Our commit keeps the manifests it does not rewrite, sidecars included.
    delete_first_file(&t);
    let after = latest_metas(&t);
    assert_eq!(after.len(), 4);
    for m in &metas {
        let kept = after.iter().find(|a| a.file_name == m.file_name).unwrap();
        assert_eq!(kept.extra_files, m.extra_files, "{}", m.file_name);
    }
    let ours = after
        .iter()
        .find(|a| !metas.iter().any(|m| m.file_name == a.file_name))
        .unwrap();
    assert_eq!(ours.extra_files, None, "we write no sidecar");
}

#[test]
fn orphan_removal_keeps_the_sidecars_of_used_manifests() {
    let (_dir, p) = copy_fixture();
    let t = open(&p);
    let stray = p.join("manifest").join(format!("manifest-stray-0{SUFFIX}"));
    std::fs::write(&stray, b"no manifest lists it").unwrap();
    let report = RemoveOrphanFiles::new(&t)
        .with_older_than_ms(0)
        .run()
        .unwrap();
    assert_eq!(report.files.len(), 1, "{:?}", report.files);
    assert!(report.files[0].ends_with("manifest-stray-0.avro.sidecar"));
    assert_eq!(sidecars(&p).len(), 3, "the used manifests' sidecars stay");
}

#[test]
fn expiry_deletes_a_sidecar_with_its_manifest() {
    let (_dir, p) = copy_fixture();
    let t = open(&p);
    // Merge the base list at the next commit, so paimon-rust's manifests fall out of use.
    t.alter(&[SchemaChange::SetOption {
        key: "manifest.merge-min-count".into(),
        value: "2".into(),
    }])
    .unwrap();
    let t = open(&p);
    delete_first_file(&t);
    let latest = latest_metas(&t);
    assert!(
        latest.iter().all(|m| m.extra_files.is_none()),
        "the merged base list holds only our manifests: {latest:?}"
    );
    let config = ExpireConfig::default()
        .with_retain_min(1)
        .with_retain_max(1)
        .with_time_retained_ms(0);
    let report = t.expire_snapshots(&config).unwrap();
    assert_eq!(report.expired, vec![1, 2, 3]);
    let deleted: Vec<&String> = report
        .metadata_files
        .iter()
        .filter(|f| f.ends_with(SUFFIX))
        .collect();
    assert_eq!(deleted.len(), 3, "{:?}", report.metadata_files);
    assert_eq!(sidecars(&p), Vec::<String>::new());
    // The table still reads: two files of three rows each are left.
    assert_eq!(open(&p).live_files(None).unwrap().len(), 2);
}
