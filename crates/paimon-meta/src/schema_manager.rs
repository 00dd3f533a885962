//! Table schemas of one branch (Java `SchemaManager`) and tags (Java `TagManager`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use paimon_io::FileIORef;
use paimon_spec::layout::{self, BranchLayout};
use paimon_spec::schema::{TableSchema, TableSchemaRef};

use crate::error::{Error, Result};
use crate::snapshot::Snapshot;

pub use layout::{SCHEMA_PREFIX, TAG_PREFIX};

/// Reads `schema/schema-N` files, caching each parsed schema.
#[derive(Debug)]
pub struct SchemaManager {
    file_io: FileIORef,
    layout: BranchLayout,
    dir: String,
    cache: Mutex<HashMap<i64, TableSchemaRef>>,
}

impl SchemaManager {
    /// Schemas under `branch_root/schema`.
    pub fn new(file_io: FileIORef, branch_root: &str) -> Self {
        let layout = BranchLayout::at(branch_root);
        SchemaManager {
            file_io,
            dir: layout.schema_dir(),
            layout,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Path of `schema-<id>`.
    pub fn schema_path(&self, id: i64) -> String {
        self.layout.schema_path(id)
    }

    /// Every schema id present, ascending.
    ///
    /// # Errors
    /// Storage errors; a missing directory gives an empty list.
    pub fn schema_ids(&self) -> Result<Vec<i64>> {
        crate::snapshot::list_ids(&self.file_io, &self.dir, SCHEMA_PREFIX)
    }

    /// Schema `id`.
    ///
    /// # Errors
    /// [`Error::NotFound`] when absent, [`Error::Spec`] when malformed.
    pub fn schema(&self, id: i64) -> Result<TableSchemaRef> {
        if let Some(s) = self.cache.lock().ok().and_then(|c| c.get(&id).cloned()) {
            return Ok(s);
        }
        let path = self.layout.schema_path(id);
        let bytes = self.file_io.read(&path).map_err(Error::io)?;
        let text = std::str::from_utf8(&bytes).map_err(|e| Error::corrupt(&path, e.to_string()))?;
        let schema = Arc::new(TableSchema::from_json_str(text).map_err(|e| Error::spec(&path, e))?);
        if let Ok(mut c) = self.cache.lock() {
            c.insert(id, schema.clone());
        }
        Ok(schema)
    }

    /// The newest schema, if any.
    ///
    /// # Errors
    /// Storage or decoding errors.
    pub fn latest(&self) -> Result<Option<TableSchemaRef>> {
        self.schema_ids()?
            .last()
            .map(|id| self.schema(*id))
            .transpose()
    }
}

/// A tag (Java `Tag`): the snapshot it keeps plus its own fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// The tagged snapshot.
    pub snapshot: Snapshot,
    /// `tagCreateTime` (a Java `LocalDateTime`): wall-clock millis since 1970-01-01T00:00 and
    /// nanos within the milli.
    pub create_time: Option<(i64, i32)>,
    /// `tagTimeRetained` (a Java `Duration`): seconds and nanos.
    pub time_retained: Option<(i64, u32)>,
}

impl Tag {
    /// Parses a tag file (`tag/tag-NAME`): snapshot JSON plus `tagCreateTime` and
    /// `tagTimeRetained`.
    ///
    /// # Errors
    /// `Corrupt` naming `path` when the snapshot or a tag field is malformed.
    pub fn from_json_str(path: &str, text: &str) -> Result<Tag> {
        let snapshot = Snapshot::from_json_str(path, text)?;
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::corrupt(path, e.to_string()))?;
        let bad = |key: &str| Error::corrupt(path, format!("tag key \"{key}\" is malformed"));
        let create_time = match v.get("tagCreateTime") {
            None | Some(serde_json::Value::Null) => None,
            Some(t) => Some(local_date_time(t).ok_or_else(|| bad("tagCreateTime"))?),
        };
        let time_retained = match v.get("tagTimeRetained") {
            None | Some(serde_json::Value::Null) => None,
            Some(t) => Some(duration(t).ok_or_else(|| bad("tagTimeRetained"))?),
        };
        Ok(Tag {
            snapshot,
            create_time,
            time_retained,
        })
    }
}

/// Jackson's `LocalDateTime`: `[y, m, d, h, min]` plus seconds and nanos when not zero, or the
/// ISO text `2026-02-04T06:08:10.000000012`.
fn local_date_time(v: &serde_json::Value) -> Option<(i64, i32)> {
    let parts: Vec<i64> = match v {
        serde_json::Value::Array(a) => a
            .iter()
            .map(serde_json::Value::as_i64)
            .collect::<Option<_>>()?,
        serde_json::Value::String(s) => {
            let (date, time) = s.split_once('T')?;
            let mut p: Vec<i64> = date
                .splitn(3, '-')
                .map(|x| x.parse().ok())
                .collect::<Option<_>>()?;
            let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
            p.extend(
                hms.split(':')
                    .map(|x| x.parse::<i64>().ok())
                    .collect::<Option<Vec<_>>>()?,
            );
            if p.len() == 5 {
                p.push(0);
            }
            if !frac.is_empty() {
                if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                p.push(format!("{frac:0<9}").parse().ok()?);
            }
            p
        }
        _ => return None,
    };
    if !(5..=7).contains(&parts.len()) {
        return None;
    }
    let get = |i: usize| parts.get(i).copied().unwrap_or(0);
    let (month, day) = (u32::try_from(get(1)).ok()?, u32::try_from(get(2)).ok()?);
    let (h, mi, s, nanos) = (get(3), get(4), get(5), get(6));
    let in_range = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..24).contains(&h)
        && (0..60).contains(&mi)
        && (0..60).contains(&s)
        && (0..1_000_000_000).contains(&nanos);
    if !in_range || get(0).abs() > 999_999 {
        return None;
    }
    let days = paimon_spec::calendar::days_from_civil(get(0), month, day);
    let millis = ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + nanos / 1_000_000;
    Some((millis, i32::try_from(nanos % 1_000_000).ok()?))
}

/// Jackson's `Duration`: decimal seconds (`3.000000000`).
fn duration(v: &serde_json::Value) -> Option<(i64, u32)> {
    if let Some(secs) = v.as_i64() {
        return (secs >= 0).then_some((secs, 0));
    }
    let f = v
        .as_f64()
        .filter(|f| f.is_finite() && *f >= 0.0 && *f < 9.2e18)?;
    let secs = f.trunc();
    let nanos = ((f - secs) * 1e9).round().min(999_999_999.0);
    // Both are in range: checked above.
    Some((secs as i64, nanos as u32))
}

/// Reads `tag/tag-NAME` files (Java `TagManager`); a tag is a snapshot plus tag metadata.
#[derive(Debug, Clone)]
pub struct TagManager {
    file_io: FileIORef,
    layout: BranchLayout,
    dir: String,
}

impl TagManager {
    /// Tags under `branch_root/tag`.
    pub fn new(file_io: FileIORef, branch_root: &str) -> Self {
        let layout = BranchLayout::at(branch_root);
        TagManager {
            file_io,
            dir: layout.tag_dir(),
            layout,
        }
    }

    /// The storage.
    pub fn file_io(&self) -> &FileIORef {
        &self.file_io
    }

    /// The branch's directories.
    pub fn layout(&self) -> &BranchLayout {
        &self.layout
    }

    /// The snapshot a tag points at.
    ///
    /// # Errors
    /// [`Error::TagNotFound`] when absent; `Corrupt` when malformed.
    pub fn tag(&self, name: &str) -> Result<Snapshot> {
        let (path, text) = self.tag_text(name)?;
        Snapshot::from_json_str(&path, &text)
    }

    /// The tag with its own fields (Java `Tag`): when it was created and how long it is kept.
    ///
    /// # Errors
    /// As [`TagManager::tag`]; `Corrupt` when a tag field is malformed.
    pub fn tag_info(&self, name: &str) -> Result<Tag> {
        let (path, text) = self.tag_text(name)?;
        Tag::from_json_str(&path, &text)
    }

    fn tag_text(&self, name: &str) -> Result<(String, String)> {
        let path = self.layout.tag_path(name);
        let bytes = self.file_io.read(&path).map_err(|e| {
            if e.is_not_found() {
                Error::TagNotFound {
                    name: name.to_string(),
                    path: self.dir.clone(),
                }
            } else {
                Error::io(e)
            }
        })?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| Error::corrupt(&path, e.to_string()))?
            .to_string();
        Ok((path, text))
    }

    /// Tag names, sorted.
    ///
    /// # Errors
    /// Storage errors; a missing directory gives an empty list.
    pub fn tag_names(&self) -> Result<Vec<String>> {
        match self.file_io.list(&self.dir) {
            Ok(e) => Ok(e
                .iter()
                .filter(|e| !e.is_dir)
                .filter_map(|e| e.name().strip_prefix(TAG_PREFIX).map(str::to_string))
                .collect()),
            Err(e) if e.is_not_found() => Ok(Vec::new()),
            Err(e) => Err(Error::io(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAPSHOT: &str = r#""version": 3, "id": 1, "schemaId": 0,
        "baseManifestList": "manifest-list-a-0", "deltaManifestList": "manifest-list-a-1",
        "commitUser": "u", "commitIdentifier": 1, "commitKind": "APPEND",
        "timeMillis": 1721614343270"#;

    fn tag(extra: &str) -> Result<Tag> {
        Tag::from_json_str("t/tag/tag-1", &format!("{{{SNAPSHOT}{extra}}}"))
    }

    #[test]
    fn tag_fields_as_jackson_writes_them() {
        // The tag of paimon-cpp's orc/append_table_with_tag: 2026-02-04T06:08:10.000000012.
        let t =
            tag(r#", "tagCreateTime": [2026, 2, 4, 6, 8, 10, 12], "tagTimeRetained": 3.000000000"#)
                .unwrap();
        assert_eq!(t.snapshot.id, 1);
        assert_eq!(t.create_time, Some((1_770_185_290_000, 12)));
        assert_eq!(t.time_retained, Some((3, 0)));
        // Jackson drops zero seconds and nanos from the array.
        let t = tag(r#", "tagCreateTime": [2026, 2, 4, 6, 8], "tagTimeRetained": 1.5"#).unwrap();
        assert_eq!(t.create_time, Some((1_770_185_280_000, 0)));
        assert_eq!(t.time_retained, Some((1, 500_000_000)));
        let t = tag(r#", "tagCreateTime": "2026-02-04T06:08:10.000000012""#).unwrap();
        assert_eq!(t.create_time, Some((1_770_185_290_000, 12)));
        assert_eq!(tag("").unwrap().create_time, None);
        for bad in [
            r#", "tagCreateTime": [2026, 13, 4, 6, 8]"#,
            r#", "tagCreateTime": "yesterday""#,
            r#", "tagTimeRetained": -1"#,
            r#", "tagTimeRetained": "PT1H""#,
        ] {
            let e = tag(bad).unwrap_err().to_string();
            assert!(e.contains("t/tag/tag-1"), "{e}");
        }
    }
}
