//! Tags, branches, rollback and streaming consumers of a [`Table`], as Java 1.4.2's `Table`
//! API makes them (see `paimon_meta::maintenance` and `paimon_meta::branch` for the files each
//! leaves).

use paimon_meta::branch::BranchStart;
use paimon_meta::maintenance::{RollbackReport, TagDeleteReport};
use paimon_meta::schema_manager::Tag;

use crate::error::Result;
use crate::table::Table;

/// Where [`Table::rollback_to`] goes: a snapshot id or a tag name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RollbackTarget {
    /// A snapshot id (its tag when the snapshot has expired).
    Snapshot(i64),
    /// A tag name.
    Tag(String),
}

impl From<i64> for RollbackTarget {
    fn from(id: i64) -> Self {
        RollbackTarget::Snapshot(id)
    }
}

impl From<&str> for RollbackTarget {
    fn from(name: &str) -> Self {
        RollbackTarget::Tag(name.to_string())
    }
}

impl RollbackTarget {
    /// `N` (all digits) is a snapshot id, anything else a tag name, as the CLI's `--to`.
    pub fn parse(text: &str) -> RollbackTarget {
        match text.parse::<i64>() {
            Ok(id) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
                RollbackTarget::Snapshot(id)
            }
            _ => RollbackTarget::Tag(text.to_string()),
        }
    }
}

impl Table {
    /// Tags `snapshot` (the latest when `None`) as `name`; returns the tagged snapshot's id.
    ///
    /// # Errors
    /// A tag of that name exists; a blank or path-like name; no such snapshot.
    pub fn create_tag(&self, name: &str, snapshot: Option<i64>) -> Result<i64> {
        Ok(self.meta().create_tag(name, snapshot, None)?.id)
    }

    /// [`Table::create_tag`] with a retention time (`tagTimeRetained`) in milliseconds.
    ///
    /// # Errors
    /// As [`Table::create_tag`].
    pub fn create_tag_retained(
        &self,
        name: &str,
        snapshot: Option<i64>,
        time_retained_ms: u64,
    ) -> Result<i64> {
        Ok(self
            .meta()
            .create_tag(name, snapshot, Some(time_retained_ms))?
            .id)
    }

    /// Tags the first snapshot committed at or after `time_millis`; returns its id.
    ///
    /// # Errors
    /// As [`Table::create_tag`]; no snapshot that recent.
    pub fn create_tag_from_timestamp(&self, name: &str, time_millis: i64) -> Result<i64> {
        Ok(self
            .meta()
            .create_tag_from_timestamp(name, time_millis, None)?
            .id)
    }

    /// Deletes tag `name`, with the files only it kept alive (a missing tag is no error).
    ///
    /// # Errors
    /// Storage errors; corrupt metadata.
    pub fn delete_tag(&self, name: &str) -> Result<TagDeleteReport> {
        Ok(self.meta().delete_tag(name)?)
    }

    /// Renames tag `from` to `to`.
    ///
    /// # Errors
    /// `from` is missing or `to` exists.
    pub fn rename_tag(&self, from: &str, to: &str) -> Result<()> {
        Ok(self.meta().rename_tag(from, to)?)
    }

    /// The tags, by name.
    ///
    /// # Errors
    /// Storage errors; a malformed tag file.
    pub fn tags(&self) -> Result<Vec<(String, Tag)>> {
        Ok(self.meta().tags()?)
    }

    /// Creates branch `name`, empty or from a tag or snapshot.
    ///
    /// # Errors
    /// `main`, a numeric, blank or path-like name; a branch that exists; a missing start.
    pub fn create_branch(&self, name: &str, start: &BranchStart) -> Result<()> {
        Ok(self.meta().create_branch(name, start)?)
    }

    /// Deletes branch `name`.
    ///
    /// # Errors
    /// No such branch.
    pub fn delete_branch(&self, name: &str) -> Result<()> {
        Ok(self.meta().delete_branch(name)?)
    }

    /// The branches besides `main`.
    ///
    /// # Errors
    /// Storage errors.
    pub fn branches(&self) -> Result<Vec<String>> {
        Ok(self.meta().branches()?)
    }

    /// Makes branch `name`'s snapshots, schemas and tags this branch's.
    ///
    /// # Errors
    /// No such branch, or one without snapshots; `main` or this branch itself.
    pub fn fast_forward(&self, name: &str) -> Result<()> {
        Ok(self.meta().fast_forward(name)?)
    }

    /// Rolls this branch back to a snapshot or tag (`table.rollback_to(5)`,
    /// `table.rollback_to("t1")`), as Java's `rollbackTo`.
    ///
    /// # Errors
    /// No such snapshot or tag; storage errors.
    pub fn rollback_to(&self, target: impl Into<RollbackTarget>) -> Result<RollbackReport> {
        Ok(match target.into() {
            RollbackTarget::Snapshot(id) => self.meta().rollback_to_snapshot(id)?,
            RollbackTarget::Tag(name) => self.meta().rollback_to_tag(&name)?,
        })
    }

    /// The next snapshot streaming consumer `id` reads (`None` for a new consumer).
    ///
    /// # Errors
    /// An id that is not a plain name; a malformed consumer file.
    pub fn consumer(&self, id: &str) -> Result<Option<i64>> {
        Ok(self.meta().consumer_manager().consumer(id)?)
    }

    /// Saves that consumer `id` reads `next_snapshot` next (`consumer/consumer-<id>`, as
    /// Java's `ConsumerManager`); snapshot expiry keeps it from then on.
    ///
    /// # Errors
    /// As [`Table::consumer`]; storage errors.
    pub fn reset_consumer(&self, id: &str, next_snapshot: i64) -> Result<()> {
        Ok(self
            .meta()
            .consumer_manager()
            .reset_consumer(id, next_snapshot)?)
    }

    /// Removes consumer `id`; `false` when it did not exist.
    ///
    /// # Errors
    /// As [`Table::consumer`].
    pub fn delete_consumer(&self, id: &str) -> Result<bool> {
        Ok(self.meta().consumer_manager().delete_consumer(id)?)
    }

    /// Removes the consumers whose whole id matches the regular expression `including` (every
    /// consumer when `None`) and not `excluding`, as Java's `clear_consumers`; returns the ids
    /// removed, sorted.
    ///
    /// # Errors
    /// A pattern that does not compile (nothing is removed then); storage errors.
    pub fn clear_consumers(
        &self,
        including: Option<&str>,
        excluding: Option<&str>,
    ) -> Result<Vec<String>> {
        Ok(self
            .meta()
            .consumer_manager()
            .clear_consumers(including, excluding)?)
    }
}
