//! [`ScanChoice`]: what a scan reads as a user names it (a snapshot, a tag, a time, an
//! incremental range or the changes since a snapshot), checked and applied in one place for
//! the `paimon` command, the Python package and the SQL providers.

use super::{IncrementalScanMode, ScanBuilder};
use crate::error::{Error, Result};

/// At most one snapshot selection for a scan, with the incremental scan mode (Java
/// `scan.snapshot-id`, `scan.tag-name`, `scan.timestamp-millis`, `incremental-between`,
/// `incremental-between-scan-mode`, and a streaming read restored after a snapshot). All
/// unset reads the latest snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanChoice {
    /// A snapshot id.
    pub snapshot: Option<i64>,
    /// A tag name.
    pub tag: Option<String>,
    /// The latest snapshot committed at or before this time, epoch millis.
    pub timestamp_ms: Option<i64>,
    /// What changed between two snapshot ids or tags.
    pub incremental: Option<(String, String)>,
    /// How `incremental` reads; `None` is the table's option. Only with `incremental`.
    pub incremental_mode: Option<IncrementalScanMode>,
    /// What changed after this snapshot, snapshot by snapshot.
    pub changes_since: Option<i64>,
}

impl ScanChoice {
    /// The names of the selections that are set, in the order of the fields (`snapshot`,
    /// `tag`, `timestamp_ms`, `incremental`, `changes_since`).
    pub fn chosen(&self) -> Vec<&'static str> {
        [
            ("snapshot", self.snapshot.is_some()),
            ("tag", self.tag.is_some()),
            ("timestamp_ms", self.timestamp_ms.is_some()),
            ("incremental", self.incremental.is_some()),
            ("changes_since", self.changes_since.is_some()),
        ]
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(name, _)| name)
        .collect()
    }

    /// Checks the choice without touching the table.
    ///
    /// # Errors
    /// [`Error::InvalidScan`] when more than one selection is set, or a mode without an
    /// incremental range.
    pub fn check(&self) -> Result<()> {
        let chosen = self.chosen();
        if chosen.len() > 1 {
            return Err(Error::InvalidScan {
                reason: format!("choose at most one of {}", chosen.join(", ")),
            });
        }
        if self.incremental_mode.is_some() && self.incremental.is_none() {
            return Err(Error::InvalidScan {
                reason: "incremental_mode needs incremental".into(),
            });
        }
        Ok(())
    }

    /// `scan` reading what this choice selects.
    ///
    /// # Errors
    /// As [`ScanChoice::check`].
    pub fn apply(&self, mut scan: ScanBuilder) -> Result<ScanBuilder> {
        self.check()?;
        if let Some(id) = self.snapshot {
            scan = scan.with_snapshot(id);
        }
        if let Some(tag) = &self.tag {
            scan = scan.with_tag(tag.clone());
        }
        if let Some(ms) = self.timestamp_ms {
            scan = scan.with_timestamp_ms(ms);
        }
        if let Some((a, b)) = &self.incremental {
            scan = scan.with_incremental_between(a.as_str(), b.as_str());
            if let Some(m) = self.incremental_mode {
                scan = scan.with_incremental_scan_mode(m);
            }
        }
        if let Some(n) = self.changes_since {
            scan = scan.with_changes_since(n);
        }
        Ok(scan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_what_is_set() {
        let c = ScanChoice {
            snapshot: Some(1),
            changes_since: Some(2),
            ..ScanChoice::default()
        };
        assert_eq!(c.chosen(), ["snapshot", "changes_since"]);
        assert!(ScanChoice::default().chosen().is_empty());
    }
}
