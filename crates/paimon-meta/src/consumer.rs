//! Streaming consumers of a table (Java `ConsumerManager`, `Consumer`): `consumer/consumer-<id>`
//! holds `{"nextSnapshot": N}`, the next snapshot the consumer reads. Snapshot expiry keeps
//! every snapshot from the smallest of them on.

use std::collections::BTreeMap;

use paimon_io::FileIORef;
use paimon_spec::layout::{BranchLayout, CONSUMER_PREFIX};

use crate::error::{Error, Result};

/// The consumers of one branch.
#[derive(Debug, Clone)]
pub struct ConsumerManager {
    file_io: FileIORef,
    layout: BranchLayout,
}

impl ConsumerManager {
    /// The consumers under `branch_root/consumer`.
    pub fn new(file_io: FileIORef, branch_root: &str) -> Self {
        ConsumerManager {
            file_io,
            layout: BranchLayout::at(branch_root),
        }
    }

    /// Each consumer's next snapshot, by consumer id (Java `consumers()`).
    ///
    /// # Errors
    /// Storage errors; `Corrupt` naming the file when a consumer file is not
    /// `{"nextSnapshot": N}`. A missing directory means no consumer.
    pub fn consumers(&self) -> Result<BTreeMap<String, i64>> {
        let dir = self.layout.consumer_dir();
        let entries = match self.file_io.list(&dir) {
            Ok(e) => e,
            Err(e) if e.is_not_found() => return Ok(BTreeMap::new()),
            Err(e) => return Err(Error::io(e)),
        };
        let mut out = BTreeMap::new();
        for e in entries.iter().filter(|e| !e.is_dir) {
            let Some(id) = e.name().strip_prefix(CONSUMER_PREFIX) else {
                continue;
            };
            let bytes = match self.file_io.read(&e.path) {
                Ok(b) => b,
                // Removed since the listing (Java reads it as absent).
                Err(err) if err.is_not_found() => continue,
                Err(err) => return Err(Error::io(err)),
            };
            out.insert(id.to_string(), next_snapshot(&e.path, &bytes)?);
        }
        Ok(out)
    }

    /// The next snapshot consumer `id` reads, `None` when it has no file (Java `consumer`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an id that is not a plain file name; storage errors;
    /// `Corrupt` naming the file when it is malformed.
    pub fn consumer(&self, id: &str) -> Result<Option<i64>> {
        let path = self.path_of(id)?;
        match self.file_io.read(&path) {
            Ok(b) => next_snapshot(&path, &b).map(Some),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(Error::io(e)),
        }
    }

    /// Saves that consumer `id` reads `next_snapshot` next, as Java's `resetConsumer` writes
    /// it (`{\n  "nextSnapshot" : N\n}`, replacing the file).
    ///
    /// # Errors
    /// As [`ConsumerManager::consumer`].
    pub fn reset_consumer(&self, id: &str, next_snapshot: i64) -> Result<()> {
        let path = self.path_of(id)?;
        let json = format!("{{\n  \"nextSnapshot\" : {next_snapshot}\n}}");
        self.file_io
            .overwrite(&path, json.as_bytes())
            .map_err(Error::io)
    }

    /// Removes consumer `id` (Java `deleteConsumer`); `false` when it had no file.
    ///
    /// # Errors
    /// As [`ConsumerManager::consumer`].
    pub fn delete_consumer(&self, id: &str) -> Result<bool> {
        let path = self.path_of(id)?;
        match self.file_io.delete(&path) {
            Ok(d) => Ok(d),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(Error::io(e)),
        }
    }

    /// Removes the consumers whose file was last written before `before_millis` (Java
    /// `expire`, run with now minus `consumer.expiration-time`); returns their ids.
    ///
    /// # Errors
    /// Storage errors.
    pub fn expire(&self, before_millis: i64) -> Result<Vec<String>> {
        self.remove_where(|_, e| e.modified_ms.is_some_and(|m| m < before_millis))
    }

    /// Removes the consumers whose id matches `including` (every consumer when `None`) and
    /// does not match `excluding` (Java `clearConsumers`, each pattern matching the whole id;
    /// a blank pattern is none, as Java's `clear_consumers` procedures take it); returns the
    /// ids removed, sorted. Patterns are Rust `regex` syntax, which is Java's for classes,
    /// alternations and repetitions but has no look-around or back-references.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a pattern that does not compile (checked before anything
    /// is removed); storage errors.
    pub fn clear_consumers(
        &self,
        including: Option<&str>,
        excluding: Option<&str>,
    ) -> Result<Vec<String>> {
        let including = self.whole_match("including", including)?;
        let excluding = self.whole_match("excluding", excluding)?;
        let mut gone = self.remove_where(|id, _| {
            including.as_ref().is_none_or(|p| p.is_match(id))
                && !excluding.as_ref().is_some_and(|p| p.is_match(id))
        })?;
        gone.sort();
        Ok(gone)
    }

    /// `pattern` compiled to match a whole id, `None` when it is absent or blank.
    fn whole_match(&self, which: &str, pattern: Option<&str>) -> Result<Option<regex::Regex>> {
        let Some(p) = pattern.filter(|p| !p.trim().is_empty()) else {
            return Ok(None);
        };
        regex::Regex::new(&format!("^(?:{p})$"))
            .map(Some)
            .map_err(|e| Error::InvalidArgument {
                table: self.layout.root().to_string(),
                reason: format!(
                    "{which} consumers pattern '{p}' is not a regular expression: {}",
                    e.to_string().lines().last().unwrap_or_default().trim()
                ),
            })
    }

    /// Deletes each consumer file for which `remove(id, file)` holds; returns their ids (a
    /// file gone since the listing is skipped).
    fn remove_where(
        &self,
        remove: impl Fn(&str, &paimon_io::FileStatus) -> bool,
    ) -> Result<Vec<String>> {
        let entries = match self.file_io.list(&self.layout.consumer_dir()) {
            Ok(e) => e,
            Err(e) if e.is_not_found() => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(e)),
        };
        let mut out = Vec::new();
        for e in entries.iter().filter(|e| !e.is_dir) {
            let Some(id) = e.name().strip_prefix(CONSUMER_PREFIX) else {
                continue;
            };
            if remove(id, e) {
                match self.file_io.delete(&e.path) {
                    Ok(_) => out.push(id.to_string()),
                    Err(err) if err.is_not_found() => {}
                    Err(err) => return Err(Error::io(err)),
                }
            }
        }
        Ok(out)
    }

    fn path_of(&self, id: &str) -> Result<String> {
        paimon_spec::layout::check_file_name("consumer id", id).map_err(|e| {
            Error::InvalidArgument {
                table: self.layout.root().to_string(),
                reason: e.to_string(),
            }
        })?;
        Ok(self.layout.consumer_path(id))
    }

    /// The smallest next snapshot of any consumer (Java `minNextSnapshot`).
    ///
    /// # Errors
    /// As [`ConsumerManager::consumers`].
    pub fn min_next_snapshot(&self) -> Result<Option<i64>> {
        Ok(self.consumers()?.into_values().min())
    }
}

fn next_snapshot(path: &str, bytes: &[u8]) -> Result<i64> {
    let bad = |why: String| Error::corrupt(path, format!("consumer file: {why}"));
    let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
    v.get("nextSnapshot")
        .and_then(serde_json::Value::as_i64)
        .ok_or_else(|| bad("no integer nextSnapshot".into()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn reads_next_snapshots_and_refuses_malformed_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let io: FileIORef = Arc::new(paimon_io::LocalFileIO::new());
        let m = ConsumerManager::new(io, root);
        assert_eq!(m.min_next_snapshot().unwrap(), None);
        let consumers = dir.path().join("consumer");
        std::fs::create_dir_all(&consumers).unwrap();
        std::fs::write(consumers.join("consumer-a"), r#"{"nextSnapshot":7}"#).unwrap();
        std::fs::write(consumers.join("consumer-b"), r#"{"nextSnapshot" : 4}"#).unwrap();
        std::fs::write(consumers.join("not-a-consumer"), "x").unwrap();
        assert_eq!(m.min_next_snapshot().unwrap(), Some(4));
        assert_eq!(m.consumers().unwrap().len(), 2);
        std::fs::write(consumers.join("consumer-c"), "{}").unwrap();
        let err = m.consumers().unwrap_err().to_string();
        assert!(err.contains("consumer-c"), "{err}");
    }

    /// The bytes Java 1.4.2's `ConsumerManager.resetConsumer(id, new Consumer(5))` writes.
    #[test]
    fn writes_consumers_as_java_and_expires_old_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let io: FileIORef = Arc::new(paimon_io::LocalFileIO::new());
        let m = ConsumerManager::new(io, root);
        assert_eq!(m.consumer("job").unwrap(), None);
        m.reset_consumer("job", 5).unwrap();
        let text = std::fs::read_to_string(dir.path().join("consumer/consumer-job")).unwrap();
        assert_eq!(text, "{\n  \"nextSnapshot\" : 5\n}");
        assert_eq!(m.consumer("job").unwrap(), Some(5));
        m.reset_consumer("other", 9).unwrap();
        assert_eq!(m.min_next_snapshot().unwrap(), Some(5));
        assert!(m.reset_consumer("../x", 1).is_err());
        // Files written before the cutoff go; later ones stay.
        assert!(m.expire(0).unwrap().is_empty());
        let future = i64::MAX;
        let mut gone = m.expire(future).unwrap();
        gone.sort();
        assert_eq!(gone, vec!["job".to_string(), "other".to_string()]);
        assert_eq!(m.min_next_snapshot().unwrap(), None);
        assert!(!m.delete_consumer("job").unwrap());
    }

    /// Java's `clearConsumers`: the whole id must match `including` and not `excluding`.
    #[test]
    fn clears_consumers_by_whole_id_patterns() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let io: FileIORef = Arc::new(paimon_io::LocalFileIO::new());
        let m = ConsumerManager::new(io, root);
        assert!(m.clear_consumers(None, None).unwrap().is_empty());
        for id in ["job-1", "job-2", "job", "other"] {
            m.reset_consumer(id, 3).unwrap();
        }
        // A pattern that does not compile removes nothing.
        let err = m
            .clear_consumers(Some("job-("), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("'job-('") && err.contains(root), "{err}");
        assert_eq!(m.consumers().unwrap().len(), 4);
        // `job` matches only the id `job`, not `job-1`.
        assert_eq!(
            m.clear_consumers(Some("jo"), None).unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            m.clear_consumers(Some("job-.*"), Some("job-2")).unwrap(),
            vec!["job-1".to_string()]
        );
        // Blank patterns are none: everything but the excluded ids goes.
        assert_eq!(
            m.clear_consumers(Some(" "), Some("oth.r|job")).unwrap(),
            vec!["job-2".to_string()]
        );
        let left: Vec<String> = m.consumers().unwrap().into_keys().collect();
        assert_eq!(left, vec!["job".to_string(), "other".to_string()]);
        assert_eq!(m.clear_consumers(None, None).unwrap().len(), 2);
        assert_eq!(m.min_next_snapshot().unwrap(), None);
    }
}
