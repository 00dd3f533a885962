//! `paimon compact TABLE [--partition k=v] [--full]` and `paimon compact-task`: argument
//! parsing and output around paimon-rs's compaction ([`paimon_rs::CompactBuilder`]: planned by
//! paimon-meta, run by paimon-write, committed as one COMPACT snapshot).

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use paimon_split::commit::{CommitMessage, DEFAULT_COMMIT_MESSAGE_VERSION};
use paimon_split::{decode_compact_task, encode_compact_task};

use crate::scan_args::table_location;
use crate::write_cmd::{
    describe_snapshots, open, partition_pairs, partition_spec, write_message_files,
    write_numbered_files,
};

/// `paimon compact TABLE`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// Only this partition: `k=v,k2=v2` (a prefix of the partition columns).
    #[arg(long)]
    pub partition: Option<String>,
    /// Full compaction: every bucket (partition of an unaware-bucket table) into as few
    /// files as the target size allows; primary-key tables into the last level.
    #[arg(long)]
    pub full: bool,
    /// Tasks run at once (default: the available cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Plan only: write one file per compaction task into `--out-dir` (for `paimon
    /// compact-task` in other processes), run and commit nothing.
    #[arg(long = "plan-only", requires = "out_dir")]
    pub plan_only: bool,
    /// Where `--plan-only` writes the task files (`task-NNNN.bin`).
    #[arg(long = "out-dir")]
    pub out_dir: Option<PathBuf>,
}

/// `paimon compact-task TABLE TASK_FILE... --out-dir D`: the worker side of `compact
/// --plan-only`.
#[derive(Debug, Args)]
pub struct CompactTaskArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// Task files written by `paimon compact --plan-only`.
    #[arg(required = true)]
    pub tasks: Vec<PathBuf>,
    /// Where the commit messages go (`message-NNNN.bin`, Java `CommitMessageSerializer`
    /// bytes), for `paimon commit`.
    #[arg(long = "out-dir")]
    pub out_dir: PathBuf,
    /// Commit-message serializer version written.
    #[arg(long = "message-version", default_value_t = DEFAULT_COMMIT_MESSAGE_VERSION)]
    pub message_version: i32,
}

pub fn compact(a: CompactArgs) -> Result<()> {
    let path = table_location(&a.table);
    compact_in(&path, &a).with_context(|| format!("compact {path}"))
}

fn compact_in(path: &str, a: &CompactArgs) -> Result<()> {
    let table = paimon_rs::Table::from_meta(open(path)?);
    let mut compact = table.compact().with_full(a.full);
    if let Some(text) = &a.partition {
        // Checked here so the error names the argument.
        partition_spec(text, table.meta())?;
        compact = compact.with_partition(partition_pairs(text)?);
    }
    if let Some(n) = a.threads {
        compact = compact.with_threads(n);
    }
    if a.plan_only {
        let dir = a.out_dir.as_deref().ok_or_else(|| anyhow!("--out-dir"))?;
        let plan = compact.plan().map_err(|e| anyhow!("{e}"))?;
        write_numbered_files(dir, "task", &plan.tasks, |t| {
            encode_compact_task(t).map_err(|e| anyhow!("{e}"))
        })?;
        crate::outln!(
            "{} tasks planned from {} into {} (nothing run or committed)",
            plan.tasks.len(),
            plan.snapshot_id.map_or_else(
                || "an empty table".to_string(),
                |id| format!("snapshot {id}")
            ),
            dir.display()
        );
        return Ok(());
    }
    let user = paimon_meta::commit::fresh_commit_user("paimon-cli-compact");
    let o = compact
        .with_commit_user(user)
        .run()
        .map_err(|e| anyhow!("{e}"))?;
    crate::outln!(
        "{} tasks: {} files compacted into {}; {}",
        o.tasks,
        o.files_before,
        o.files_after,
        describe_snapshots(&o.snapshots)
    );
    Ok(())
}

pub fn compact_task(a: CompactTaskArgs) -> Result<()> {
    let path = table_location(&a.table);
    compact_task_in(&path, &a).with_context(|| format!("compact-task {path}"))
}

/// Runs task files one after another and writes their messages; on a failure the files the
/// finished tasks wrote are deleted and no message is written.
fn compact_task_in(path: &str, a: &CompactTaskArgs) -> Result<()> {
    let table = open(path)?;
    let mut tasks = Vec::new();
    for file in &a.tasks {
        let bytes = std::fs::read(file).with_context(|| format!("task file {}", file.display()))?;
        tasks.push(
            decode_compact_task(&bytes)
                .map_err(|e| anyhow!("task file {}: {e}", file.display()))?,
        );
    }
    let messages: Vec<CommitMessage> =
        paimon_rs::compaction::run_compact_tasks(&table, &tasks, 1).map_err(|e| anyhow!("{e}"))?;
    let written = write_message_files(&a.out_dir, &messages, a.message_version)?;
    crate::outln!(
        "{} tasks run; {} message files in {} (not committed)",
        tasks.len(),
        written.len(),
        a.out_dir.display()
    );
    Ok(())
}
