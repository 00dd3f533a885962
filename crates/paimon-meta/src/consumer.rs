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
}
