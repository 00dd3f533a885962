//! Writing tags as Java 1.4.2's `TagManager` does: `tag/tag-<name>` holds the tagged
//! snapshot's JSON, byte for byte as `Snapshot.toJson`, plus `tagCreateTime` and
//! `tagTimeRetained` when the tag has a retention time (Java leaves both out otherwise, so
//! readers older than 0.8 can still read the tag).

use std::collections::BTreeMap;

use paimon_spec::layout;

use crate::error::{Error, Result};
use crate::schema_manager::{Tag, TagManager};
use crate::snapshot::Snapshot;

impl Tag {
    /// The tag file Java 1.4.2 writes (`Tag.toJson`): the snapshot's JSON with
    /// `"tagCreateTime" : [ y, m, d, h, min, s, nanos ]` (Jackson's `LocalDateTime` array,
    /// seconds and nanos left out when zero) and `"tagTimeRetained" : secs.nnnnnnnnn` (Jackson's
    /// `Duration`) appended; without either field, exactly the snapshot's JSON.
    pub fn to_json(&self) -> String {
        let base = self.snapshot.to_json();
        let mut extra = Vec::new();
        if let Some((millis, nanos)) = self.create_time {
            extra.push(format!(
                "\"tagCreateTime\" : [ {} ]",
                local_date_time_parts(millis, nanos)
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some((secs, nanos)) = self.time_retained {
            extra.push(format!("\"tagTimeRetained\" : {secs}.{nanos:09}"));
        }
        if extra.is_empty() {
            return base;
        }
        let body = base.strip_suffix("\n}").unwrap_or(&base);
        let mut out = body.to_string();
        for e in extra {
            out.push_str(",\n  ");
            out.push_str(&e);
        }
        out.push_str("\n}");
        out
    }
}

/// The fields Jackson writes for a `LocalDateTime` given as wall-clock millis since
/// 1970-01-01T00:00 and nanos within the milli: `[y, m, d, h, min]`, then the second when the
/// second or the nanos are not zero, then the nanos when they are not zero.
fn local_date_time_parts(millis: i64, sub_milli_nanos: i32) -> Vec<i64> {
    let days = millis.div_euclid(86_400_000);
    let of_day = millis.rem_euclid(86_400_000);
    let (y, m, d) = paimon_spec::calendar::civil_from_days(days);
    let (h, mi, s) = (of_day / 3_600_000, of_day / 60_000 % 60, of_day / 1000 % 60);
    let nanos = of_day % 1000 * 1_000_000 + i64::from(sub_milli_nanos);
    let mut parts = vec![y, i64::from(m), i64::from(d), h, mi];
    if s != 0 || nanos != 0 {
        parts.push(s);
    }
    if nanos != 0 {
        parts.push(nanos);
    }
    parts
}

/// Now as Java's `LocalDateTime.now()` in UTC: wall-clock millis and the nanos within the milli
/// (microsecond precision, as the JVM's clock gives on Linux).
pub(crate) fn now_local_date_time() -> (i64, i32) {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let millis = i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
    let micros_in_milli = i32::try_from(d.subsec_micros() % 1000).unwrap_or(0);
    (millis, micros_in_milli * 1000)
}

/// A tag name Java accepts (not blank) that is also one plain file name (`tag-<name>` must stay
/// inside `tag/`).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the table otherwise.
pub(crate) fn check_tag_name(table: &str, name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(invalid(table, "Tag name shouldn't be blank."));
    }
    layout::check_file_name("tag name", name).map_err(|e| invalid(table, e.to_string()))
}

pub(crate) fn invalid(table: &str, reason: impl Into<String>) -> Error {
    Error::InvalidArgument {
        table: table.to_string(),
        reason: reason.into(),
    }
}

impl TagManager {
    /// Whether `tag-<name>` exists.
    ///
    /// # Errors
    /// Storage errors.
    pub fn exists(&self, name: &str) -> Result<bool> {
        self.file_io()
            .exists(&self.layout().tag_path(name))
            .map_err(Error::io)
    }

    /// Writes `tag` as `tag-<name>`, replacing any tag of that name (Java
    /// `createOrReplaceTag`'s `overwriteFileUtf8`).
    ///
    /// # Errors
    /// Storage errors.
    pub fn write(&self, name: &str, tag: &Tag) -> Result<()> {
        self.file_io()
            .overwrite(&self.layout().tag_path(name), tag.to_json().as_bytes())
            .map_err(Error::io)
    }

    /// Removes `tag-<name>`; `false` when it was absent.
    ///
    /// # Errors
    /// Storage errors.
    pub fn delete(&self, name: &str) -> Result<bool> {
        match self.file_io().delete(&self.layout().tag_path(name)) {
            Ok(deleted) => Ok(deleted),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(Error::io(e)),
        }
    }

    /// Renames tag `from` to `to` (Java `renameTag`): the new file is created only if absent,
    /// then the old one is removed.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `from` does not exist or `to` does; storage errors.
    pub fn rename(&self, table: &str, from: &str, to: &str) -> Result<()> {
        check_tag_name(table, from)?;
        check_tag_name(table, to)?;
        if !self.exists(from)? {
            return Err(invalid(table, format!("Tag '{from}' doesn't exist.")));
        }
        let bytes = self
            .file_io()
            .read(&self.layout().tag_path(from))
            .map_err(Error::io)?;
        let created = self
            .file_io()
            .publish_if_absent(&self.layout().tag_path(to), &bytes)
            .map_err(Error::io)?;
        if !created {
            return Err(invalid(table, format!("Tag '{to}' already exists.")));
        }
        self.delete(from)?;
        Ok(())
    }

    /// Every tag by the id of the snapshot it keeps, with the names of that snapshot's tags
    /// sorted (Java `TagManager.tags()`).
    ///
    /// # Errors
    /// Storage errors; `Corrupt` for a malformed tag file.
    pub fn tags_by_snapshot(&self) -> Result<BTreeMap<i64, (Snapshot, Vec<String>)>> {
        let mut out: BTreeMap<i64, (Snapshot, Vec<String>)> = BTreeMap::new();
        let mut names = self.tag_names()?;
        names.sort();
        for name in names {
            let s = match self.tag(&name) {
                Ok(s) => s,
                // Removed since the listing.
                Err(Error::TagNotFound { .. }) => continue,
                Err(e) => return Err(e),
            };
            out.entry(s.id)
                .or_insert_with(|| (s, Vec::new()))
                .1
                .push(name);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(rel: &str) -> String {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(rel);
        std::fs::read_to_string(p).unwrap()
    }

    /// A tag written by Java 1.4.2's `createTag("ttl", 12, Duration.ofHours(1))` on a copy of
    /// fixtures' pk.db/many_snapshots (tagCreateTime 2026-12-06T19:31:03.973008031): our encoder
    /// gives the same bytes.
    #[test]
    fn tag_with_retention_reencodes_as_java_writes_it() {
        let snapshot = fixture("fixtures/warehouse/pk.db/many_snapshots/snapshot/snapshot-12");
        let java = format!(
            "{},\n  \"tagCreateTime\" : [ 2026, 12, 6, 19, 31, 3, 973008031 ],\n  \
             \"tagTimeRetained\" : 3600.000000000\n}}",
            snapshot.strip_suffix("\n}").unwrap()
        );
        let tag = Tag::from_json_str("tag-ttl", &java).unwrap();
        assert_eq!(tag.time_retained, Some((3600, 0)));
        assert_eq!(tag.to_json(), java);
        // Without retention Java writes the snapshot JSON itself.
        let plain = Tag {
            snapshot: tag.snapshot.clone(),
            create_time: None,
            time_retained: None,
        };
        assert_eq!(plain.to_json(), snapshot);
    }

    #[test]
    fn jackson_drops_zero_seconds_and_nanos() {
        // 2026-02-04T06:08 exactly, then with 10 s, then with 12 ns.
        assert_eq!(
            local_date_time_parts(1_770_185_280_000, 0),
            vec![2026, 2, 4, 6, 8]
        );
        assert_eq!(
            local_date_time_parts(1_770_185_290_000, 0),
            vec![2026, 2, 4, 6, 8, 10]
        );
        assert_eq!(
            local_date_time_parts(1_770_185_280_000, 12),
            vec![2026, 2, 4, 6, 8, 0, 12]
        );
    }

    #[test]
    fn names_that_are_not_plain_file_names_are_refused() {
        for bad in ["", "  ", "a/b", "..", "x\\y"] {
            let e = check_tag_name("/t", bad).unwrap_err().to_string();
            assert!(e.contains("/t"), "{e}");
        }
        check_tag_name("/t", "2026-01-01").unwrap();
    }
}
