//! Orphan-file cleanup (Java `OrphanFilesClean`, `LocalOrphanFilesClean`).
//!
//! A file is an orphan when no snapshot, tag or changelog of any branch names it, and it is
//! older than the limit (younger files may belong to a commit in flight). Like Java, files are
//! matched by name, and only Paimon's own directories are searched: `manifest/`, `index/`,
//! `statistics/`, the partition/bucket directories, and stray non-snapshot files in the
//! snapshot and changelog directories. Schema, tag and hint files are never candidates.

use std::collections::HashSet;

use paimon_spec::layout::{self, BranchLayout};

use super::expire::metadata_names;
use super::{delete, now_millis, Files};
use crate::error::{Error, Result};
use crate::snapshot::{Snapshot, SnapshotManager};
use crate::table::Table;

/// An orphan-file cleanup of one table over all its branches; create with
/// [`RemoveOrphanFiles::new`], run with [`RemoveOrphanFiles::run`].
#[derive(Debug, Clone)]
pub struct RemoveOrphanFiles {
    table: Table,
    older_than_ms: i64,
    dry_run: bool,
}

/// What a cleanup removed (or, in a dry run, would remove).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrphanReport {
    /// Orphan files, sorted.
    pub files: Vec<String>,
    /// Their total size in bytes.
    pub bytes: u64,
}

impl RemoveOrphanFiles {
    /// A cleanup of `table` removing orphans older than one day (Java's `older_than` default).
    pub fn new(table: &Table) -> Self {
        RemoveOrphanFiles {
            table: table.clone(),
            older_than_ms: 86_400_000,
            dry_run: false,
        }
    }

    /// Only files last modified more than this long ago are removed.
    pub fn with_older_than_ms(mut self, ms: i64) -> Self {
        self.older_than_ms = ms;
        self
    }

    /// Lists the orphans without deleting them.
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Finds the orphans and, unless a dry run, deletes them.
    ///
    /// # Errors
    /// Storage errors and corrupt metadata (a snapshot that cannot be read stops the run: its
    /// files would otherwise look orphaned).
    pub fn run(&self) -> Result<OrphanReport> {
        let used = self.used_names()?;
        let cutoff = now_millis().saturating_sub(self.older_than_ms);
        let mut report = OrphanReport::default();
        for dir in self.candidate_dirs()? {
            for f in list(&self.table, &dir)? {
                if f.is_dir || used.contains(f.name()) {
                    continue;
                }
                if f.modified_ms.is_some_and(|m| m < cutoff) {
                    report.bytes += f.size;
                    report.files.push(f.path.clone());
                }
            }
        }
        for branch in self.branch_layouts()? {
            for dir in [branch.snapshot_dir(), branch.changelog_dir()] {
                for f in list(&self.table, &dir)? {
                    let name = f.name();
                    let known = layout::parse_id(layout::SNAPSHOT_PREFIX, name).is_some()
                        || layout::parse_id(layout::CHANGELOG_PREFIX, name).is_some()
                        || name == layout::EARLIEST
                        || name == layout::LATEST;
                    if !f.is_dir && !known && f.modified_ms.is_some_and(|m| m < cutoff) {
                        report.bytes += f.size;
                        report.files.push(f.path.clone());
                    }
                }
            }
        }
        report.files.sort();
        if !self.dry_run {
            for path in &report.files {
                delete(&self.table, path)?;
            }
        }
        Ok(report)
    }

    /// The main branch and every `branch/branch-NAME`.
    fn branch_layouts(&self) -> Result<Vec<BranchLayout>> {
        let mut out = vec![BranchLayout::at(self.table.path())];
        for e in list(&self.table, &self.table.layout().branch_dir())? {
            if let Some(name) = e.name().strip_prefix(layout::BRANCH_PREFIX) {
                if e.is_dir {
                    out.push(BranchLayout::at(&layout::branch_root(
                        self.table.path(),
                        name,
                    )));
                }
            }
        }
        Ok(out)
    }

    /// Names of every file any snapshot, tag or changelog of any branch uses (Java
    /// `OrphanFilesClean.getUsedFiles`): metadata files and data files with their extras,
    /// from every entry, deleted ones included.
    fn used_names(&self) -> Result<HashSet<String>> {
        let files = Files::new(&self.table);
        let mut used = HashSet::new();
        for branch in self.branch_layouts()? {
            for s in self.branch_snapshots(&branch)? {
                used.extend(metadata_names(&files, &[&s])?);
                let lists = [
                    Some(&s.base_manifest_list),
                    Some(&s.delta_manifest_list),
                    s.changelog_manifest_list.as_ref(),
                ];
                for list in lists.into_iter().flatten() {
                    for e in files.list_entries(list)? {
                        used.extend(e.file.extra_files.iter().cloned());
                        used.insert(e.file.file_name.clone());
                    }
                }
            }
        }
        Ok(used)
    }

    /// Snapshots, tags and long-lived changelogs of one branch.
    fn branch_snapshots(&self, branch: &BranchLayout) -> Result<Vec<Snapshot>> {
        let file_io = self.table.file_io();
        let snapshots = SnapshotManager::new(file_io.clone(), branch.root());
        let mut out = snapshots.snapshots()?;
        let tags = crate::schema_manager::TagManager::new(file_io.clone(), branch.root());
        for name in tags.tag_names()? {
            out.push(tags.tag(&name)?);
        }
        for f in list(&self.table, &branch.changelog_dir())? {
            if let Some(id) = layout::parse_id(layout::CHANGELOG_PREFIX, f.name()) {
                let path = branch.changelog_path(id);
                let bytes = file_io.read(&path).map_err(Error::io)?;
                let text = std::str::from_utf8(&bytes)
                    .map_err(|e| Error::corrupt(&path, e.to_string()))?;
                out.push(Snapshot::from_json_str(&path, text)?);
            }
        }
        Ok(out)
    }

    /// Directories whose files are matched against the used names (Java
    /// `OrphanFilesClean.listPaimonFileDirs`).
    fn candidate_dirs(&self) -> Result<Vec<String>> {
        let layout = self.table.layout();
        let mut dirs = vec![
            layout.manifest_dir(),
            layout.index_dir(),
            layout.statistics_dir(),
        ];
        let opts = self.table.options();
        // Never list (and so never delete) outside the table and its external roots, even if
        // the options were not checked when the table was opened.
        crate::table::check_path_options(opts).map_err(|e| Error::spec(self.table.path(), e))?;
        let mut roots = vec![layout.data_root(opts.data_file_path_directory.as_deref())];
        roots.extend(opts.data_file_external_paths.iter().cloned());
        let levels = self.table.schema().partition_fields().len();
        for root in roots {
            self.bucket_dirs(&root, levels, &mut dirs)?;
        }
        Ok(dirs)
    }

    /// Bucket directories `levels` partition levels below `dir` (Java `listFileDirs`:
    /// partition directories hold `=`, bucket directories start with `bucket-`).
    fn bucket_dirs(&self, dir: &str, levels: usize, out: &mut Vec<String>) -> Result<()> {
        for e in list(&self.table, dir)?.into_iter().filter(|e| e.is_dir) {
            if levels == 0 {
                if layout::parse_bucket_dir_name(e.name()).is_some() {
                    out.push(e.path.clone());
                }
            } else if e.name().contains('=') {
                self.bucket_dirs(&e.path, levels - 1, out)?;
            }
        }
        Ok(())
    }
}

/// A directory's entries; an absent directory has none.
fn list(table: &Table, dir: &str) -> Result<Vec<paimon_io::FileStatus>> {
    match table.file_io().list(dir) {
        Ok(e) => Ok(e),
        Err(e) if e.is_not_found() => Ok(Vec::new()),
        Err(e) => Err(Error::io(e)),
    }
}
