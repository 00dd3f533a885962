//! Branches as Java 1.4.2's `FileSystemBranchManager` makes them: `branch/branch-<name>/`
//! holds the branch's own `schema/`, `snapshot/` and `tag/` directories (data and manifests
//! stay shared at the table root). A new branch gets copies of the main branch's schema files
//! (every one up to the latest, or up to the snapshot's schema) and, when made from a tag, that
//! tag file and its snapshot file.

use paimon_spec::layout::{self, BranchLayout, BRANCH_PREFIX, MAIN_BRANCH};

use crate::error::{Error, Result};
use crate::snapshot::{Snapshot, SnapshotManager};
use crate::table::Table;
use crate::tag_write::invalid;

/// What a new branch starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchStart {
    /// No snapshot: only the schema (Java `createBranch(name)`).
    Empty,
    /// A tag: the tag and its snapshot (Java `createBranch(name, tagName)`).
    Tag(String),
    /// A snapshot of this branch, copied with the schemas it needs.
    Snapshot(i64),
}

/// Java `BranchManager.validateBranch` plus a plain directory name.
fn check_branch_name(table: &str, name: &str) -> Result<()> {
    if name == MAIN_BRANCH {
        return Err(invalid(
            table,
            format!("Branch name '{name}' is the default branch and cannot be used."),
        ));
    }
    if name.trim().is_empty() {
        return Err(invalid(table, format!("Branch name '{name}' is blank.")));
    }
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(
            table,
            format!("Branch name cannot be pure numeric string but is '{name}'."),
        ));
    }
    layout::check_file_name("branch name", name).map_err(|e| invalid(table, e.to_string()))
}

impl Table {
    fn branch_layout(&self, name: &str) -> BranchLayout {
        self.layout().branch(name)
    }

    fn branch_exists(&self, name: &str) -> Result<bool> {
        self.file_io()
            .exists(self.branch_layout(name).root())
            .map_err(Error::io)
    }

    /// The table's branches besides `main`, sorted (Java `BranchManager.branches`).
    ///
    /// # Errors
    /// Storage errors.
    pub fn branches(&self) -> Result<Vec<String>> {
        let entries = match self.file_io().list(&self.layout().branch_dir()) {
            Ok(e) => e,
            Err(e) if e.is_not_found() => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(e)),
        };
        let mut out: Vec<String> = entries
            .iter()
            .filter(|e| e.is_dir)
            .filter_map(|e| e.name().strip_prefix(BRANCH_PREFIX).map(str::to_string))
            .collect();
        out.sort();
        Ok(out)
    }

    /// Creates branch `name` of the table from `start` (Java `createBranch`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `main`, a blank, numeric or path-like name, or a branch
    /// that exists; [`Error::TagNotFound`]/[`Error::SnapshotNotFound`] for a missing start;
    /// storage errors.
    pub fn create_branch(&self, name: &str, start: &BranchStart) -> Result<()> {
        check_branch_name(self.path(), name)?;
        if self.branch_exists(name)? {
            return Err(invalid(
                self.path(),
                format!("Branch name '{name}' already exists."),
            ));
        }
        let main = self.snapshot_manager().layout().clone();
        let target = self.branch_layout(name);
        let io = self.file_io();
        let schema_id = match start {
            BranchStart::Empty => self.schema().id,
            BranchStart::Tag(tag) => {
                let tags = self.tag_manager();
                let snapshot = tags.tag(tag)?;
                let tag_bytes = io.read(&main.tag_path(tag)).map_err(Error::io)?;
                io.write_new(&target.tag_path(tag), &tag_bytes)
                    .map_err(Error::io)?;
                // Java copies the snapshot file; when it has expired, the tag holds it.
                self.copy_snapshot_to(&snapshot, &target)?;
                snapshot.schema_id
            }
            BranchStart::Snapshot(id) => {
                let snapshot = self.snapshot_manager().snapshot(*id)?;
                self.copy_snapshot_to(&snapshot, &target)?;
                snapshot.schema_id
            }
        };
        for id in 0..=schema_id {
            let from = main.schema_path(id);
            match io.read(&from) {
                Ok(b) => io
                    .write_new(&target.schema_path(id), &b)
                    .map_err(Error::io)?,
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(Error::io(e)),
            }
        }
        Ok(())
    }

    fn copy_snapshot_to(&self, snapshot: &Snapshot, target: &BranchLayout) -> Result<()> {
        let io = self.file_io();
        let bytes = match io.read(&self.snapshot_manager().snapshot_path(snapshot.id)) {
            Ok(b) => b.to_vec(),
            Err(e) if e.is_not_found() => snapshot.to_json().into_bytes(),
            Err(e) => return Err(Error::io(e)),
        };
        io.write_new(&target.snapshot_path(snapshot.id), &bytes)
            .map_err(Error::io)
    }

    /// Deletes branch `name` and everything under its directory (Java `dropBranch`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when it does not exist or is `main`; storage errors.
    pub fn delete_branch(&self, name: &str) -> Result<()> {
        check_branch_name(self.path(), name)?;
        if !self.branch_exists(name)? {
            return Err(invalid(
                self.path(),
                format!("Branch name '{name}' doesn't exist."),
            ));
        }
        self.file_io()
            .delete_dir(self.branch_layout(name).root())
            .map_err(Error::io)?;
        Ok(())
    }

    /// Renames branch `from` to `to` (Java `FileSystemBranchManager.renameBranch`): one
    /// rename of the branch's directory, so a reader sees the old name or the new one.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `main`, a bad new name, a missing branch or a new name
    /// that exists; [`Error::Unsupported`] on storage without directory renames (object
    /// stores); storage errors.
    pub fn rename_branch(&self, from: &str, to: &str) -> Result<()> {
        if from == MAIN_BRANCH {
            return Err(invalid(self.path(), "Cannot rename the main branch."));
        }
        check_branch_name(self.path(), from)?;
        if !self.branch_exists(from)? {
            return Err(invalid(
                self.path(),
                format!("Branch name '{from}' doesn't exist."),
            ));
        }
        check_branch_name(self.path(), to)?;
        if self.branch_exists(to)? {
            return Err(invalid(
                self.path(),
                format!("Branch name '{to}' already exists."),
            ));
        }
        self.file_io()
            .rename_dir(
                self.branch_layout(from).root(),
                self.branch_layout(to).root(),
            )
            .map_err(Error::io)
    }

    /// Makes branch `name`'s history this branch's (Java `fastForward`): this branch's
    /// snapshots from the branch's earliest on, its schemas from that snapshot's schema on and
    /// its tags of those snapshots are removed with the `LATEST` hint, then the branch's
    /// snapshot, schema and tag files (hints included) are copied over.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `main`, this branch itself, a missing branch or one
    /// without snapshots; storage errors.
    pub fn fast_forward(&self, name: &str) -> Result<()> {
        if name == MAIN_BRANCH {
            return Err(invalid(
                self.path(),
                format!("Branch name '{name}' do not use in fast-forward."),
            ));
        }
        if name == self.branch() {
            return Err(invalid(
                self.path(),
                format!("Fast-forward from the current branch '{name}' is not allowed."),
            ));
        }
        check_branch_name(self.path(), name)?;
        if !self.branch_exists(name)? {
            return Err(invalid(
                self.path(),
                format!("Branch name '{name}' doesn't exist."),
            ));
        }
        let io = self.file_io();
        let source = self.branch_layout(name);
        let source_snapshots = SnapshotManager::new(io.clone(), source.root());
        let Some(earliest) = source_snapshots.earliest_id()? else {
            return Err(invalid(
                self.path(),
                format!("Cannot fast forward branch {name}, because it does not have snapshot."),
            ));
        };
        let earliest_schema = source_snapshots.snapshot(earliest)?.schema_id;
        let snapshots = self.snapshot_manager();
        let target = snapshots.layout().clone();
        let mut doomed: Vec<String> = snapshots
            .snapshot_ids()?
            .into_iter()
            .filter(|id| *id >= earliest)
            .map(|id| target.snapshot_path(id))
            .collect();
        doomed.extend(
            self.schema_manager()
                .schema_ids()?
                .into_iter()
                .filter(|id| *id >= earliest_schema)
                .map(|id| target.schema_path(id)),
        );
        for (id, (_, names)) in self.tag_manager().tags_by_snapshot()? {
            if id >= earliest {
                doomed.extend(names.iter().map(|n| target.tag_path(n)));
            }
        }
        delete_quietly(self, &target.latest_hint())?;
        for path in &doomed {
            delete_quietly(self, path)?;
        }
        for (from, to) in [
            (source.snapshot_dir(), target.snapshot_dir()),
            (source.schema_dir(), target.schema_dir()),
            (source.tag_dir(), target.tag_dir()),
        ] {
            copy_files(self, &from, &to)?;
        }
        Ok(())
    }
}

fn delete_quietly(table: &Table, path: &str) -> Result<()> {
    match table.file_io().delete(path) {
        Ok(_) => Ok(()),
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(Error::io(e)),
    }
}

/// Java `FileIO.copyFiles(from, to, overwrite = true)`: every file directly in `from`.
fn copy_files(table: &Table, from: &str, to: &str) -> Result<()> {
    let io = table.file_io();
    let entries = match io.list(from) {
        Ok(e) => e,
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => return Err(Error::io(e)),
    };
    for e in entries.iter().filter(|e| !e.is_dir) {
        let bytes = io.read(&e.path).map_err(Error::io)?;
        io.overwrite(&layout::join(to, e.name()), &bytes)
            .map_err(Error::io)?;
    }
    Ok(())
}
