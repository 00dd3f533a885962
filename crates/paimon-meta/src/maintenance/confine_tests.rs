//! Maintenance never deletes outside the table (issue 39): a manifest naming a file outside
//! (written by a hostile committer in the past) stops expiry and orphan cleanup with an error
//! naming the manifest, before anything is deleted; options pointing orphan cleanup at
//! another table are refused before anything is listed.

use std::path::Path;
use std::sync::Arc;

use paimon_spec::binary::BinaryRowBuilder;
use paimon_split::commit::CommitMessage;

use super::{ExpireConfig, RemoveOrphanFiles};
use crate::error::Error;
use crate::manifest::encode::ManifestWriteOptions;
use crate::manifest::{FileKind, ManifestEntry, ManifestFileMeta};
use crate::table::Table;
use paimon_test_utils::copy_dir;

/// A private copy of `fixtures/warehouse/<rel>` at `<tempdir>/t`.
fn copy_fixture(rel: &str) -> (tempfile::TempDir, std::path::PathBuf) {
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

/// Every file under `dir` with its bytes, sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(tree(&p));
        } else {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

/// Deletes the first live file of the unpartitioned table at `p` in a new snapshot, then
/// rewrites that snapshot's delta manifest so that its DELETE entry names `external` as the
/// file's external path; returns the manifest's path.
fn plant_external_path(p: &Path, external: &str) -> String {
    let t = open(p);
    let live = t.live_files(None).unwrap();
    let partition = BinaryRowBuilder::new(Vec::new())
        .build_serialized()
        .unwrap();
    let mut m = CommitMessage::new(partition, live[0].bucket)
        .with_total_buckets(Some(live[0].total_buckets));
    m.data_increment.deleted_files.push(live[0].file.clone());
    t.new_commit("u").commit(1, &[m]).unwrap();
    let s = t.snapshot_manager().latest().unwrap().unwrap();
    let list_path = t.layout().manifest_path(&s.delta_manifest_list);
    let list = ManifestFileMeta::decode_list(&list_path, std::fs::read(&list_path).unwrap().into())
        .unwrap();
    assert_eq!(list.len(), 1);
    let path = t.layout().manifest_path(&list[0].file_name);
    let mut entries =
        ManifestEntry::decode_manifest(&path, std::fs::read(&path).unwrap().into()).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].kind, FileKind::Delete);
    entries[0].file.external_path = Some(external.to_string());
    let opts = t.options();
    let w =
        ManifestWriteOptions::try_new(&opts.manifest_format, &opts.manifest_compression).unwrap();
    std::fs::write(&path, w.manifest(&path, &entries).unwrap()).unwrap();
    path
}

#[test]
fn a_manifest_naming_a_file_outside_stops_expiry_and_orphan_cleanup() {
    let (dir, p) = copy_fixture("append.db/unaware");
    let victim = dir.path().join("victim.parquet");
    std::fs::write(&victim, b"another table's data").unwrap();
    let manifest = plant_external_path(&p, &format!("file://{}", victim.display()));
    let before = tree(dir.path());

    let t = open(&p);
    let config = ExpireConfig::default()
        .with_retain_min(1)
        .with_retain_max(1)
        .with_time_retained_ms(0);
    let e = t.expire_snapshots(&config).unwrap_err();
    let Error::Spec { path, source } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(path, &manifest);
    let text = source.to_string();
    assert!(text.contains("_EXTERNAL_PATH"), "{text}");
    assert!(text.contains("victim.parquet"), "{text}");

    let e = RemoveOrphanFiles::new(&t)
        .with_older_than_ms(0)
        .run()
        .unwrap_err();
    assert!(
        matches!(&e, Error::Spec { path, .. } if path == &manifest),
        "{e:?}"
    );
    assert_eq!(tree(dir.path()), before, "nothing deleted");
}

/// Sets `key=value` in the table's latest schema file, as a hostile or careless writer of
/// the schema would (create and alter refuse such values).
fn set_schema_option(p: &Path, key: &str, value: &str) {
    let schema_dir = p.join("schema");
    let mut schemas: Vec<_> = std::fs::read_dir(&schema_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    schemas.sort();
    let latest = schemas.last().unwrap();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(latest).unwrap()).unwrap();
    json["options"][key] = serde_json::Value::String(value.to_string());
    std::fs::write(latest, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
}

#[test]
fn orphan_cleanup_never_follows_options_into_another_table() {
    for (key, value) in [
        ("data-file.path-directory", "../B".to_string()),
        ("data-file.path-directory", "/abs".to_string()),
        ("data-file.external-paths", "../B".to_string()),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (_a_dir, a_src) = copy_fixture("append.db/unaware");
        let (_b_dir, b_src) = copy_fixture("append.db/unaware");
        let a = dir.path().join("A");
        let b = dir.path().join("B");
        std::fs::rename(&a_src, &a).unwrap();
        std::fs::rename(&b_src, &b).unwrap();
        // Both tables hold orphan-looking files (B's are all orphans as seen from A).
        std::fs::write(b.join("bucket-0").join("data-stray-0.parquet"), b"x").unwrap();
        let b_rows = open(&b).live_files(None).unwrap().len();
        set_schema_option(&a, key, &value);
        let before = tree(dir.path());

        let io = Arc::new(paimon_io::LocalFileIO::new());
        let e = Table::open(io, a.to_str().unwrap())
            .and_then(|t| RemoveOrphanFiles::new(&t).with_older_than_ms(0).run())
            .unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(&e, Error::Spec { source: paimon_spec::Error::PathNotAllowed { field, .. }, .. } if field == key),
            "{key}={value}: {e:?}"
        );
        assert!(text.contains(&value), "{text}");
        assert_eq!(tree(dir.path()), before, "{key}={value}: nothing deleted");
        assert_eq!(open(&b).live_files(None).unwrap().len(), b_rows);
    }
}

#[test]
fn alter_refuses_paths_out_of_the_table() {
    let (_dir, p) = copy_fixture("append.db/unaware");
    let t = open(&p);
    for (key, value) in [
        ("data-file.path-directory", "../B"),
        ("data-file.external-paths", "relative/root"),
    ] {
        let e = t
            .alter(&[crate::commit::SchemaChange::SetOption {
                key: key.into(),
                value: value.into(),
            }])
            .unwrap_err();
        assert!(e.to_string().contains(key), "{e}");
    }
    assert_eq!(std::fs::read_dir(p.join("schema")).unwrap().count(), 1);
}
