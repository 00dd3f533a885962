//! Postpone-bucket tables (`bucket = -2`): what Java's `PostponeBucketFileStoreWrite` changes
//! in the options of its writers. Every record goes to `bucket-postpone` as it came (no sort,
//! no merge, sequence number -1, see [`crate::kv_buffer::FlushMerge::AsTheyCame`]), in Avro
//! files without value stats named `data--u-<commit user>-s-<write id>-w-<uuid>-<n>.avro`;
//! batch reads skip them until a postpone compaction moves them into real buckets.

use std::collections::BTreeMap;

/// Java `PostponeBucketFileStoreWrite`: the options its writers use, from the table's `raw`
/// options: `file.format = avro`, `metadata.stats-mode = none` and the data-file prefix
/// `<prefix>-u-<commit_user>-s-<write_id>-w-` (Java's `getWriteId` reads the write id back
/// from a file name).
pub(crate) fn writer_options(
    raw: &BTreeMap<String, String>,
    commit_user: &str,
    write_id: i32,
) -> BTreeMap<String, String> {
    let mut options = raw.clone();
    let prefix = raw
        .get("data-file.prefix")
        .cloned()
        .unwrap_or_else(|| "data-".to_string());
    options.insert("file.format".into(), "avro".into());
    options.insert("metadata.stats-mode".into(), "none".into());
    options.insert(
        "data-file.prefix".into(),
        format!("{prefix}-u-{commit_user}-s-{write_id}-w-"),
    );
    options
}

/// A random write id in `[0, i32::MAX)`, as Java draws one per writer
/// (`ThreadLocalRandom.nextInt(Integer.MAX_VALUE)`).
pub(crate) fn random_write_id() -> i32 {
    let b = uuid::Uuid::new_v4();
    let b = b.as_bytes();
    let n = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) % (i32::MAX as u32);
    n as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_as_java_sets_them() {
        let raw = BTreeMap::from([
            ("bucket".to_string(), "-2".to_string()),
            ("file.format".to_string(), "parquet".to_string()),
        ]);
        let o = writer_options(&raw, "user-1", 42);
        assert_eq!(o["file.format"], "avro");
        assert_eq!(o["metadata.stats-mode"], "none");
        assert_eq!(o["data-file.prefix"], "data--u-user-1-s-42-w-");
        assert_eq!(o["bucket"], "-2");
        let id = random_write_id();
        assert!((0..i32::MAX).contains(&id));
    }
}
