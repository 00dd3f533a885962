//! Snapshots (Java `Snapshot`) and their discovery (Java `SnapshotManager`, `HintFileUtils`).

use std::collections::BTreeMap;

use paimon_io::FileIORef;
use paimon_spec::layout::{self, BranchLayout};
use serde_json::Value as Json;

use crate::error::{Error, Result};

pub use layout::{EARLIEST, LATEST, SNAPSHOT_PREFIX};

/// One `snapshot/snapshot-N` file (Java `Snapshot`).
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// JSON layout version (1 when absent).
    pub version: i32,
    /// Snapshot id.
    pub id: i64,
    /// Schema id.
    pub schema_id: i64,
    /// Manifest list of earlier changes.
    pub base_manifest_list: String,
    /// Its size in bytes (1.1+).
    pub base_manifest_list_size: Option<i64>,
    /// Manifest list of this snapshot's changes.
    pub delta_manifest_list: String,
    /// Its size in bytes (1.1+).
    pub delta_manifest_list_size: Option<i64>,
    /// Manifest list of the changelog, when produced.
    pub changelog_manifest_list: Option<String>,
    /// Its size in bytes (1.1+).
    pub changelog_manifest_list_size: Option<i64>,
    /// Index manifest: the complete live index-file set.
    pub index_manifest: Option<String>,
    /// Committing user.
    pub commit_user: String,
    /// Commit identifier.
    pub commit_identifier: i64,
    /// `APPEND`, `COMPACT`, `OVERWRITE` or `ANALYZE`.
    pub commit_kind: String,
    /// Commit time, epoch millis.
    pub time_millis: i64,
    /// Unmerged record count of live files.
    pub total_record_count: Option<i64>,
    /// Net record change of this snapshot.
    pub delta_record_count: Option<i64>,
    /// Changelog record count.
    pub changelog_record_count: Option<i64>,
    /// Watermark (`Long.MIN_VALUE` = none).
    pub watermark: Option<i64>,
    /// Statistics file name.
    pub statistics: Option<String>,
    /// Free-form properties.
    pub properties: Option<BTreeMap<String, String>>,
    /// Next row id (row tracking).
    pub next_row_id: Option<i64>,
    /// Keys this version does not model (Java 2.x's and pypaimon 2.1's `uuid` and
    /// `writerVersion`, for example), kept with their values and written back after the known
    /// keys, so copying a snapshot (a tag, a branch, a rollback) never drops them. Tag-only keys
    /// (`tagCreateTime`, `tagTimeRetained`) are not kept: a tag read as a snapshot is the snapshot.
    pub extra: BTreeMap<String, Json>,
}

/// Snapshot JSON keys [`Snapshot`] models (Java 1.4.2's `Snapshot` fields).
const KNOWN_KEYS: &[&str] = &[
    "version",
    "id",
    "schemaId",
    "baseManifestList",
    "baseManifestListSize",
    "deltaManifestList",
    "deltaManifestListSize",
    "changelogManifestList",
    "changelogManifestListSize",
    "indexManifest",
    "commitUser",
    "commitIdentifier",
    "commitKind",
    "timeMillis",
    "logOffsets",
    "totalRecordCount",
    "deltaRecordCount",
    "changelogRecordCount",
    "watermark",
    "statistics",
    "properties",
    "nextRowId",
];

/// Keys a tag file adds to its snapshot's JSON (Java `Tag`), dropped when it is read as one.
const TAG_KEYS: &[&str] = &["tagCreateTime", "tagTimeRetained"];

impl Snapshot {
    /// Parses snapshot JSON (also tag files, which add fields that are ignored).
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming `path` on malformed JSON or missing keys.
    pub fn from_json_str(path: &str, text: &str) -> Result<Self> {
        let v: Json =
            serde_json::from_str(text).map_err(|e| Error::corrupt(path, e.to_string()))?;
        let o = v
            .as_object()
            .ok_or_else(|| Error::corrupt(path, "snapshot JSON is not an object"))?;
        let long = |k: &str| -> Result<i64> {
            o.get(k).and_then(Json::as_i64).ok_or_else(|| {
                Error::corrupt(
                    path,
                    format!("snapshot key \"{k}\" missing or not a number"),
                )
            })
        };
        let opt_long = |k: &str| o.get(k).and_then(Json::as_i64);
        let string = |k: &str| -> Result<String> {
            o.get(k)
                .and_then(Json::as_str)
                .map(str::to_string)
                .ok_or_else(|| {
                    Error::corrupt(
                        path,
                        format!("snapshot key \"{k}\" missing or not a string"),
                    )
                })
        };
        let opt_string = |k: &str| o.get(k).and_then(Json::as_str).map(str::to_string);
        // Names of files the reader joins to `manifest/` (or reads beside it).
        let file_name = |k: &str, v: Option<String>| -> Result<Option<String>> {
            if let Some(name) = &v {
                crate::file_name::check_plain_name(path, &format!("snapshot key \"{k}\""), name)?;
            }
            Ok(v)
        };
        let required_file_name = |k: &str| -> Result<String> {
            let v = string(k)?;
            file_name(k, Some(v.clone()))?;
            Ok(v)
        };
        Ok(Snapshot {
            version: opt_long("version")
                .and_then(|v| i32::try_from(v).ok())
                .unwrap_or(1),
            id: long("id")?,
            schema_id: long("schemaId")?,
            base_manifest_list: required_file_name("baseManifestList")?,
            base_manifest_list_size: opt_long("baseManifestListSize"),
            delta_manifest_list: required_file_name("deltaManifestList")?,
            delta_manifest_list_size: opt_long("deltaManifestListSize"),
            changelog_manifest_list: file_name(
                "changelogManifestList",
                opt_string("changelogManifestList"),
            )?,
            changelog_manifest_list_size: opt_long("changelogManifestListSize"),
            index_manifest: file_name("indexManifest", opt_string("indexManifest"))?,
            commit_user: opt_string("commitUser").unwrap_or_default(),
            commit_identifier: match o.get("commitIdentifier") {
                Some(Json::String(s)) => s.parse().unwrap_or(0),
                Some(v) => v.as_i64().unwrap_or(0),
                None => 0,
            },
            commit_kind: opt_string("commitKind").unwrap_or_default(),
            time_millis: long("timeMillis")?,
            total_record_count: opt_long("totalRecordCount"),
            delta_record_count: opt_long("deltaRecordCount"),
            changelog_record_count: opt_long("changelogRecordCount"),
            watermark: opt_long("watermark"),
            statistics: file_name("statistics", opt_string("statistics"))?,
            properties: o.get("properties").and_then(Json::as_object).map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| v.to_string()),
                        )
                    })
                    .collect()
            }),
            next_row_id: opt_long("nextRowId"),
            extra: o
                .iter()
                .filter(|(k, _)| {
                    !KNOWN_KEYS.contains(&k.as_str()) && !TAG_KEYS.contains(&k.as_str())
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        })
    }
}

impl Snapshot {
    /// The snapshot JSON Java 1.4.2 writes (`Snapshot.toJson`: Jackson's pretty printer, keys in
    /// the class's order, absent optional keys left out; `version` 3).
    pub fn to_json(&self) -> String {
        let mut m = serde_json::Map::new();
        let mut put = |k: &str, v: Option<Json>| {
            if let Some(v) = v {
                m.insert(k.to_string(), v);
            }
        };
        put("version", Some(self.version.into()));
        put("id", Some(self.id.into()));
        put("schemaId", Some(self.schema_id.into()));
        put(
            "baseManifestList",
            Some(self.base_manifest_list.clone().into()),
        );
        put(
            "baseManifestListSize",
            self.base_manifest_list_size.map(Json::from),
        );
        put(
            "deltaManifestList",
            Some(self.delta_manifest_list.clone().into()),
        );
        put(
            "deltaManifestListSize",
            self.delta_manifest_list_size.map(Json::from),
        );
        put(
            "changelogManifestList",
            self.changelog_manifest_list.clone().map(Json::from),
        );
        put(
            "changelogManifestListSize",
            self.changelog_manifest_list_size.map(Json::from),
        );
        put("indexManifest", self.index_manifest.clone().map(Json::from));
        put("commitUser", Some(self.commit_user.clone().into()));
        put("commitIdentifier", Some(self.commit_identifier.into()));
        put("commitKind", Some(self.commit_kind.clone().into()));
        put("timeMillis", Some(self.time_millis.into()));
        // Primitive `long`s in Java: always written.
        put(
            "totalRecordCount",
            Some(self.total_record_count.unwrap_or(0).into()),
        );
        put(
            "deltaRecordCount",
            Some(self.delta_record_count.unwrap_or(0).into()),
        );
        put(
            "changelogRecordCount",
            self.changelog_record_count.map(Json::from),
        );
        put("watermark", self.watermark.map(Json::from));
        put("statistics", self.statistics.clone().map(Json::from));
        put(
            "properties",
            self.properties.as_ref().map(|p| {
                Json::Object(
                    p.iter()
                        .map(|(k, v)| (k.clone(), Json::String(v.clone())))
                        .collect(),
                )
            }),
        );
        put("nextRowId", self.next_row_id.map(Json::from));
        for (k, v) in &self.extra {
            if !KNOWN_KEYS.contains(&k.as_str()) {
                put(k, Some(v.clone()));
            }
        }
        paimon_spec::jackson::to_pretty_string(&Json::Object(m))
    }
}

/// Ids of the `<prefix>N` files in `dir` (snapshots, schemas, changelogs), ascending; none when
/// the directory is absent.
///
/// # Errors
/// Storage errors.
pub(crate) fn list_ids(file_io: &FileIORef, dir: &str, prefix: &str) -> Result<Vec<i64>> {
    let entries = match file_io.list(dir) {
        Ok(e) => e,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(e)),
    };
    let mut ids: Vec<i64> = entries
        .iter()
        .filter(|e| !e.is_dir)
        .filter_map(|e| layout::parse_id(prefix, e.name()))
        .collect();
    ids.sort_unstable();
    Ok(ids)
}

/// Finds and reads the snapshots of one branch (Java `SnapshotManager`).
#[derive(Debug, Clone)]
pub struct SnapshotManager {
    file_io: FileIORef,
    layout: BranchLayout,
    dir: String,
}

impl SnapshotManager {
    /// Snapshots under `branch_root/snapshot`.
    pub fn new(file_io: FileIORef, branch_root: &str) -> Self {
        let layout = BranchLayout::at(branch_root);
        SnapshotManager {
            file_io,
            dir: layout.snapshot_dir(),
            layout,
        }
    }

    /// The branch's directories.
    pub fn layout(&self) -> &BranchLayout {
        &self.layout
    }

    /// Storage.
    pub fn file_io(&self) -> &FileIORef {
        &self.file_io
    }

    /// The snapshot directory.
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// Path of `snapshot-<id>`.
    pub fn snapshot_path(&self, id: i64) -> String {
        self.layout.snapshot_path(id)
    }

    /// Reads snapshot `id`.
    ///
    /// # Errors
    /// [`Error::SnapshotExpired`] when `id` is older than the earliest snapshot,
    /// [`Error::SnapshotNotFound`] when it does not exist otherwise.
    pub fn snapshot(&self, id: i64) -> Result<Snapshot> {
        let path = self.snapshot_path(id);
        match self.file_io.read(&path) {
            Ok(b) => {
                let text =
                    std::str::from_utf8(&b).map_err(|e| Error::corrupt(&path, e.to_string()))?;
                Snapshot::from_json_str(&path, text)
            }
            Err(e) if e.is_not_found() => match self.earliest_id()? {
                Some(earliest) if id < earliest => Err(Error::SnapshotExpired { id, earliest }),
                _ => Err(Error::SnapshotNotFound { id, path }),
            },
            Err(e) => Err(Error::io(e)),
        }
    }

    /// Every snapshot id present, ascending.
    ///
    /// # Errors
    /// Storage errors; a missing directory gives an empty list.
    pub fn snapshot_ids(&self) -> Result<Vec<i64>> {
        list_ids(&self.file_io, &self.dir, SNAPSHOT_PREFIX)
    }

    fn read_hint(&self, path: &str) -> Result<Option<i64>> {
        match self.file_io.read(path) {
            Ok(b) => Ok(std::str::from_utf8(&b)
                .ok()
                .and_then(|s| s.trim().parse().ok())),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(Error::io(e)),
        }
    }

    fn exists(&self, id: i64) -> Result<bool> {
        self.file_io
            .exists(&self.snapshot_path(id))
            .map_err(Error::io)
    }

    /// The latest snapshot id: the `LATEST` hint if `snapshot-(n+1)` does not exist, else the
    /// largest listed id (Java `HintFileUtils.findLatest`).
    ///
    /// A hint naming a snapshot file that is missing is still the latest, as in Java: the hint
    /// is written after its snapshot, so the file was committed and has been lost; falling back
    /// to the largest listed id would silently read an older snapshot.
    ///
    /// # Errors
    /// Storage errors.
    pub fn latest_id(&self) -> Result<Option<i64>> {
        if let Some(n) = self.read_hint(&self.layout.latest_hint())? {
            if n > 0 && !self.exists(n + 1)? {
                return Ok(Some(n));
            }
        }
        Ok(self.snapshot_ids()?.last().copied())
    }

    /// The earliest snapshot id: the `EARLIEST` hint if that snapshot exists, else the smallest
    /// listed id (Java `HintFileUtils.findEarliest`).
    ///
    /// # Errors
    /// Storage errors.
    pub fn earliest_id(&self) -> Result<Option<i64>> {
        if let Some(n) = self.read_hint(&self.layout.earliest_hint())? {
            if self.exists(n)? {
                return Ok(Some(n));
            }
        }
        Ok(self.snapshot_ids()?.first().copied())
    }

    /// The latest snapshot, if any.
    ///
    /// # Errors
    /// Storage or decoding errors.
    pub fn latest(&self) -> Result<Option<Snapshot>> {
        self.latest_id()?.map(|id| self.snapshot(id)).transpose()
    }

    /// The earliest snapshot, if any.
    ///
    /// # Errors
    /// Storage or decoding errors.
    pub fn earliest(&self) -> Result<Option<Snapshot>> {
        self.earliest_id()?.map(|id| self.snapshot(id)).transpose()
    }

    /// Every snapshot, ascending by id.
    ///
    /// # Errors
    /// Storage or decoding errors.
    pub fn snapshots(&self) -> Result<Vec<Snapshot>> {
        self.snapshot_ids()?
            .into_iter()
            .map(|id| self.snapshot(id))
            .collect()
    }

    /// The latest snapshot committed at or before `time_millis` (Java
    /// `SnapshotManager.earlierOrEqualTimeMills`), by binary search over contiguous ids.
    ///
    /// # Errors
    /// Storage or decoding errors.
    pub fn earlier_or_equal_time_millis(&self, time_millis: i64) -> Result<Option<Snapshot>> {
        let (Some(mut lo), Some(mut hi)) = (self.earliest_id()?, self.latest_id()?) else {
            return Ok(None);
        };
        let earliest = self.snapshot(lo)?;
        if earliest.time_millis > time_millis {
            return Ok(None);
        }
        let mut best = earliest;
        lo += 1;
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            let s = self.snapshot(mid)?;
            if s.time_millis <= time_millis {
                lo = mid + 1;
                best = s;
            } else {
                hi = mid - 1;
            }
        }
        Ok(Some(best))
    }

    /// The latest snapshot whose watermark is at least `watermark`'s predecessor: the first
    /// snapshot with `watermark >= value` (Java `laterOrEqualWatermark`).
    ///
    /// # Errors
    /// Storage or decoding errors.
    pub fn later_or_equal_watermark(&self, watermark: i64) -> Result<Option<Snapshot>> {
        for id in self.snapshot_ids()? {
            let s = self.snapshot(id)?;
            if s.watermark.is_some_and(|w| w != i64::MIN && w >= watermark) {
                return Ok(Some(s));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// `snapshot-1` as pypaimon 2.1.0 wrote it (its 2.x keys `uuid` and `writerVersion`).
    const PYPAIMON_2_1_SNAPSHOT: &str = r#"{
  "version": 3,
  "id": 1,
  "schemaId": 0,
  "baseManifestList": "manifest-list-8ebc617d-f487-4629-9ec0-339303a7dfdd-0",
  "deltaManifestList": "manifest-list-8ebc617d-f487-4629-9ec0-339303a7dfdd-1",
  "totalRecordCount": 2,
  "deltaRecordCount": 2,
  "commitUser": "fccc689e-5a6c-46f1-8e39-741a59ed509c",
  "commitIdentifier": 9223372036854775807,
  "commitKind": "APPEND",
  "timeMillis": 1796589844935,
  "baseManifestListSize": 1234,
  "deltaManifestListSize": 1337,
  "uuid": "f054ce3e-6648-4d4a-8611-dc552d625c41",
  "writerVersion": "python-2.1.0-3a5ffe7870697e2c2605e63413fb5ac5800aae7e"
}"#;

    #[test]
    fn keys_of_later_versions_are_kept_when_a_snapshot_is_copied() {
        let s = Snapshot::from_json_str("snapshot-1", PYPAIMON_2_1_SNAPSHOT).unwrap();
        let copied: Json = serde_json::from_str(&s.to_json()).unwrap();
        assert_eq!(copied["uuid"], "f054ce3e-6648-4d4a-8611-dc552d625c41");
        assert_eq!(
            copied["writerVersion"],
            "python-2.1.0-3a5ffe7870697e2c2605e63413fb5ac5800aae7e"
        );
        assert_eq!(copied["totalRecordCount"], 2);
        // A tag's own keys are not part of the snapshot it holds.
        let tag = PYPAIMON_2_1_SNAPSHOT.replace(
            "\n}",
            ",\n  \"tagCreateTime\" : [ 2026, 12, 6, 19, 31 ],\n  \"tagTimeRetained\" : 3600.0\n}",
        );
        let from_tag = Snapshot::from_json_str("tag-t", &tag).unwrap();
        assert_eq!(from_tag, s);
        assert!(!from_tag.to_json().contains("tagCreateTime"));
    }

    fn snap_json(id: i64, t: i64) -> String {
        format!(
            r#"{{"version":3,"id":{id},"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":{t},"logOffsets":{{}},"totalRecordCount":1,"deltaRecordCount":1,"watermark":-9223372036854775808}}"#
        )
    }

    #[test]
    fn hints_with_fallbacks_and_time_travel() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let sdir = dir.path().join("snapshot");
        std::fs::create_dir(&sdir).unwrap();
        for id in 2..=5 {
            std::fs::write(sdir.join(format!("snapshot-{id}")), snap_json(id, id * 100)).unwrap();
        }
        // Stale hints: LATEST=3 but snapshot-4 exists; EARLIEST=1 but it was expired.
        std::fs::write(sdir.join("LATEST"), "3").unwrap();
        std::fs::write(sdir.join("EARLIEST"), "1").unwrap();
        let m = SnapshotManager::new(Arc::new(paimon_io::LocalFileIO::new()), root);
        assert_eq!(m.latest_id().unwrap(), Some(5));
        assert_eq!(m.earliest_id().unwrap(), Some(2));
        assert!(matches!(
            m.snapshot(1),
            Err(Error::SnapshotExpired { id: 1, earliest: 2 })
        ));
        assert!(matches!(
            m.snapshot(9),
            Err(Error::SnapshotNotFound { id: 9, .. })
        ));
        assert_eq!(m.earlier_or_equal_time_millis(350).unwrap().unwrap().id, 3);
        assert_eq!(m.earlier_or_equal_time_millis(500).unwrap().unwrap().id, 5);
        assert!(m.earlier_or_equal_time_millis(10).unwrap().is_none());
        std::fs::write(sdir.join("LATEST"), "5").unwrap();
        assert_eq!(m.latest_id().unwrap(), Some(5));
        let s = m.snapshot(4).unwrap();
        assert_eq!(s.watermark, Some(i64::MIN));
        assert_eq!(s.index_manifest, None);
    }

    /// Every snapshot and tag Java 1.4.2 wrote in fixtures/warehouse re-encodes to its exact
    /// bytes.
    #[test]
    fn to_json_reproduces_java_snapshot_files() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/warehouse");
        let mut files = Vec::new();
        let mut stack = vec![root];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.parent().is_some_and(|d| d.ends_with("snapshot"))
                    && p.file_name()
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .starts_with("snapshot-")
                {
                    files.push(p);
                }
            }
        }
        assert!(files.len() > 100, "{}", files.len());
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap();
            let s = Snapshot::from_json_str(p.to_str().unwrap(), &text).unwrap();
            if s.version != 3 {
                continue;
            }
            assert_eq!(s.to_json(), text, "{}", p.display());
        }
    }

    /// File names the reader joins to `manifest/` must be plain names; the error names the
    /// snapshot file, the key and the bad value.
    #[test]
    fn rejects_file_names_that_are_paths() {
        for (key, name) in [
            ("baseManifestList", "../../../etc/passwd"),
            ("deltaManifestList", "sub/manifest-list-0"),
            ("changelogManifestList", "..\\manifest-list-0"),
            ("indexManifest", ".."),
            ("indexManifest", "."),
            ("statistics", "/tmp/stats-0"),
            ("baseManifestList", ""),
        ] {
            check_rejected(key, name);
        }
    }

    fn check_rejected(key: &str, name: &str) {
        let mut json: serde_json::Value = serde_json::from_str(&snap_json(3, 300)).unwrap();
        json[key] = serde_json::Value::String(name.into());
        let path = "t/snapshot/snapshot-3";
        let e = Snapshot::from_json_str(path, &json.to_string()).unwrap_err();
        let Error::Corrupt { path: p, reason } = &e else {
            panic!("{e}")
        };
        assert_eq!(p, path);
        assert!(reason.contains(key), "{reason}");
        assert!(reason.contains(&format!("{name:?}")), "{reason}");
        // The same key with a plain name parses.
        json[key] = serde_json::Value::String("manifest-list-x-0".into());
        Snapshot::from_json_str(path, &json.to_string()).unwrap();
    }
}
