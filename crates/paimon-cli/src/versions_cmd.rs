//! `paimon tag|branch|rollback`: tags, branches and rollback of a table through paimon-rs's
//! [`paimon_rs::Table`] (files as Java 1.4.2's `TagManager`, `BranchManager` and `rollbackTo`
//! leave them).

use anyhow::Result;
use clap::{Args, Subcommand};
use paimon_rs::{BranchStart, RollbackTarget};

use crate::maintenance_cmd::open_table;

/// `paimon tag ...`.
#[derive(Debug, Args)]
pub struct TagArgs {
    #[command(subcommand)]
    pub command: TagCommand,
}

/// The tag subcommands.
#[derive(Debug, Subcommand)]
pub enum TagCommand {
    /// Tag a snapshot (the latest by default).
    Create {
        /// Table directory (`db.table` under a catalog).
        table: String,
        /// Tag name.
        name: String,
        /// Snapshot id to tag (default: the latest).
        #[arg(long = "snapshot", conflicts_with = "timestamp")]
        snapshot: Option<i64>,
        /// Tag the first snapshot committed at or after this time (epoch millis), as Java's
        /// `create_tag_from_timestamp`.
        #[arg(long = "timestamp")]
        timestamp: Option<i64>,
        /// Keep the tag this long (`tagTimeRetained`), e.g. `1 d`.
        #[arg(long = "time-retained", value_parser = crate::maintenance_cmd::duration)]
        time_retained: Option<i64>,
    },
    /// Delete a tag and the files only it kept alive.
    Delete {
        /// Table directory (`db.table` under a catalog).
        table: String,
        /// Tag name.
        name: String,
    },
    /// Rename a tag.
    Rename {
        /// Table directory (`db.table` under a catalog).
        table: String,
        /// Current name.
        from: String,
        /// New name.
        to: String,
    },
    /// List the tags: name, snapshot id, commit time (epoch millis).
    List {
        /// Table directory (`db.table` under a catalog).
        table: String,
    },
}

/// `paimon branch ...`.
#[derive(Debug, Args)]
pub struct BranchArgs {
    #[command(subcommand)]
    pub command: BranchCommand,
}

/// The branch subcommands.
#[derive(Debug, Subcommand)]
pub enum BranchCommand {
    /// Create a branch: empty (schema only), from a tag or from a snapshot.
    Create {
        /// Table directory (`db.table` under a catalog).
        table: String,
        /// Branch name.
        name: String,
        /// Start from this tag.
        #[arg(long = "tag", conflicts_with = "snapshot")]
        tag: Option<String>,
        /// Start from this snapshot.
        #[arg(long = "snapshot")]
        snapshot: Option<i64>,
    },
    /// Delete a branch.
    Delete {
        /// Table directory (`db.table` under a catalog).
        table: String,
        /// Branch name.
        name: String,
    },
    /// List the branches besides main.
    List {
        /// Table directory (`db.table` under a catalog).
        table: String,
    },
    /// Make a branch's snapshots, schemas and tags the main branch's.
    FastForward {
        /// Table directory (`db.table` under a catalog).
        table: String,
        /// Branch name.
        name: String,
    },
}

/// `paimon rollback TABLE --to N|TAG`.
#[derive(Debug, Args)]
pub struct RollbackArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// A snapshot id (digits) or a tag name.
    #[arg(long = "to")]
    pub to: String,
}

pub fn tag(a: TagArgs) -> Result<()> {
    match a.command {
        TagCommand::Create {
            table,
            name,
            snapshot,
            timestamp,
            time_retained,
        } => {
            let t = open_table(&table)?;
            let id = match (timestamp, time_retained) {
                (Some(ts), None) => t.create_tag_from_timestamp(&name, ts)?,
                (Some(ts), Some(ms)) => {
                    t.meta()
                        .create_tag_from_timestamp(&name, ts, u64::try_from(ms).ok())?
                        .id
                }
                (None, Some(ms)) => {
                    t.create_tag_retained(&name, snapshot, u64::try_from(ms).unwrap_or(0))?
                }
                (None, None) => t.create_tag(&name, snapshot)?,
            };
            crate::outln!("created tag {name} of snapshot {id}");
        }
        TagCommand::Delete { table, name } => {
            let r = open_table(&table)?.delete_tag(&name)?;
            crate::outln!(
                "deleted tag {name} ({} data, {} metadata files removed)",
                r.data_files.len(),
                r.metadata_files.len()
            );
        }
        TagCommand::Rename { table, from, to } => {
            open_table(&table)?.rename_tag(&from, &to)?;
            crate::outln!("renamed tag {from} to {to}");
        }
        TagCommand::List { table } => {
            for (name, t) in open_table(&table)?.tags()? {
                crate::outln!("{name}\t{}\t{}", t.snapshot.id, t.snapshot.time_millis);
            }
        }
    }
    Ok(())
}

pub fn branch(a: BranchArgs) -> Result<()> {
    match a.command {
        BranchCommand::Create {
            table,
            name,
            tag,
            snapshot,
        } => {
            let start = match (tag, snapshot) {
                (Some(t), _) => BranchStart::Tag(t),
                (None, Some(s)) => BranchStart::Snapshot(s),
                (None, None) => BranchStart::Empty,
            };
            open_table(&table)?.create_branch(&name, &start)?;
            crate::outln!("created branch {name}");
        }
        BranchCommand::Delete { table, name } => {
            open_table(&table)?.delete_branch(&name)?;
            crate::outln!("deleted branch {name}");
        }
        BranchCommand::List { table } => {
            for b in open_table(&table)?.branches()? {
                crate::outln!("{b}");
            }
        }
        BranchCommand::FastForward { table, name } => {
            open_table(&table)?.fast_forward(&name)?;
            crate::outln!("fast-forwarded main to branch {name}");
        }
    }
    Ok(())
}

pub fn rollback(a: RollbackArgs) -> Result<()> {
    let r = open_table(&a.table)?.rollback_to(RollbackTarget::parse(&a.to))?;
    crate::outln!(
        "rolled back to snapshot {} ({} snapshots, {} changelogs, {} tags removed{})",
        r.snapshot_id,
        r.snapshots.len(),
        r.changelogs.len(),
        r.tags.len(),
        if r.restored_from_tag {
            "; snapshot restored from its tag"
        } else {
            ""
        }
    );
    Ok(())
}
