//! `paimon compact TABLE [--partition k=v] [--full]`: compaction planned by paimon-meta
//! ([`paimon_meta::maintenance::CompactPlanner`]), run by paimon-write ([`TableCompact`]) and
//! committed by paimon-meta as one COMPACT snapshot. [`compact_table`] is the same as a library
//! call; it lives here because it is the one crate that may use both planes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use paimon_meta::maintenance::CompactPlanner;
use paimon_meta::Table;
use paimon_split::commit::{CommitMessage, DEFAULT_COMMIT_MESSAGE_VERSION};
use paimon_split::{decode_compact_task, encode_compact_task, CompactTask};
use paimon_write::TableCompact;

use crate::scan_args::table_location;
use crate::write_cmd::{
    describe_snapshots, open, partition_spec, write_message_files, write_numbered_files,
};

/// A finished task: its index in the plan and its message.
type Done = (usize, CommitMessage);

/// Java `BatchWriteBuilder.COMMIT_IDENTIFIER`.
const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// `paimon compact TABLE`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Table directory.
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
    /// Table directory.
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

/// What a compaction did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactOutcome {
    /// The snapshot planned from.
    pub planned_from: Option<i64>,
    /// Tasks run.
    pub tasks: usize,
    /// Files retired.
    pub files_before: usize,
    /// Files in their place (rewritten or upgraded).
    pub files_after: usize,
    /// Snapshots committed (one COMPACT snapshot, or none when there was nothing to do).
    pub snapshots: Vec<i64>,
}

/// Plans `planner`'s tasks, runs them on `threads` threads and commits the results as
/// `commit_user`. Nothing is committed when any task or the commit fails, and the files the
/// tasks wrote are deleted then.
///
/// # Errors
/// Planning, rewrite and commit errors; a commit conflict (another commit removed an input
/// file) among them.
pub fn compact_table(
    table: &Table,
    planner: &CompactPlanner,
    commit_user: &str,
    threads: usize,
) -> std::result::Result<CompactOutcome, CompactError> {
    let plan = planner.plan()?;
    let mut outcome = CompactOutcome {
        planned_from: plan.snapshot_id,
        tasks: plan.tasks.len(),
        ..CompactOutcome::default()
    };
    if plan.tasks.is_empty() {
        return Ok(outcome);
    }
    let worker = TableCompact::try_new(table.file_io().clone(), table.path(), table.schema())?;
    let messages = run_tasks(&worker, &plan.tasks, threads.max(1));
    let done = match messages {
        Ok(m) => m,
        Err((done, e)) => {
            delete_written(table, &worker, &plan.tasks, &done);
            return Err(e);
        }
    };
    let messages: Vec<CommitMessage> = done.iter().map(|(_, m)| m.clone()).collect();
    for m in &messages {
        outcome.files_before += m.compact_increment.compact_before.len();
        outcome.files_after += m.compact_increment.compact_after.len();
    }
    match table
        .new_commit(commit_user)
        .commit(BATCH_COMMIT_IDENTIFIER, &messages)
    {
        Ok(ids) => {
            outcome.snapshots = ids;
            Ok(outcome)
        }
        Err(e) => {
            delete_written(table, &worker, &plan.tasks, &done);
            Err(e.into())
        }
    }
}

/// Why [`compact_table`] failed; nothing was committed.
#[derive(Debug)]
pub enum CompactError {
    /// Planning or committing (the control plane): unsupported tables, metadata errors, commit
    /// conflicts.
    Meta(Box<paimon_meta::Error>),
    /// A task's rewrite (the data plane).
    Write(Box<paimon_write::Error>),
}

impl std::fmt::Display for CompactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompactError::Meta(e) => e.fmt(f),
            CompactError::Write(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CompactError {}

impl From<paimon_meta::Error> for CompactError {
    fn from(e: paimon_meta::Error) -> Self {
        CompactError::Meta(Box::new(e))
    }
}

impl From<paimon_write::Error> for CompactError {
    fn from(e: paimon_write::Error) -> Self {
        CompactError::Write(Box::new(e))
    }
}

/// Runs the tasks on a pool of threads, in plan order of results; on failure the messages of
/// the tasks that did finish come back with the error.
fn run_tasks(
    worker: &TableCompact,
    tasks: &[CompactTask],
    threads: usize,
) -> std::result::Result<Vec<Done>, (Vec<Done>, CompactError)> {
    type TaskResult = std::result::Result<CommitMessage, paimon_write::Error>;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<TaskResult>>> =
        Mutex::new((0..tasks.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.min(tasks.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(task) = tasks.get(i) else {
                    break;
                };
                let r = worker.run(task);
                let failed = r.is_err();
                if let Ok(mut all) = results.lock() {
                    all[i] = Some(r);
                }
                if failed {
                    // Later tasks are not started.
                    next.store(tasks.len(), Ordering::Relaxed);
                    break;
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    let mut done = Vec::new();
    let mut error = None;
    for (i, r) in results.into_iter().enumerate() {
        match r {
            None => {}
            Some(Ok(m)) => done.push((i, m)),
            Some(Err(e)) => error = error.or(Some(CompactError::from(e))),
        }
    }
    match error {
        None => Ok(done),
        Some(e) => Err((done, e)),
    }
}

/// Deletes the files the messages' compactions wrote (not the upgraded inputs, which keep
/// their names).
fn delete_written(table: &Table, worker: &TableCompact, tasks: &[CompactTask], done: &[Done]) {
    for (i, m) in done {
        // Where the worker wrote: derived from the task's partition and bucket, not its
        // `bucket_path`.
        let Some(dir) = tasks.get(*i).and_then(|t| worker.output_dir(&t.split).ok()) else {
            continue;
        };
        let c = &m.compact_increment;
        for f in &c.compact_after {
            if c.compact_before.iter().any(|b| b.file_name == f.file_name) {
                continue;
            }
            let path = paimon_spec::layout::join(&dir, &f.file_name);
            let _ = table.file_io().delete(&path);
        }
        for f in &c.new_index_files {
            let _ = table
                .file_io()
                .delete(&table.layout().index_path(&f.file_name));
        }
    }
}

pub fn compact(a: CompactArgs) -> Result<()> {
    let path = table_location(&a.table);
    compact_in(&path, &a).with_context(|| format!("compact {path}"))
}

fn compact_in(path: &str, a: &CompactArgs) -> Result<()> {
    let table = open(path)?;
    let mut planner = table.compact_planner().with_full(a.full);
    if let Some(text) = &a.partition {
        planner = planner.with_partition(partition_spec(text, &table)?);
    }
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    if a.plan_only {
        let dir = a.out_dir.as_deref().ok_or_else(|| anyhow!("--out-dir"))?;
        let plan = planner.plan().map_err(|e| anyhow!("{e}"))?;
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
    let o = compact_table(&table, &planner, &user, threads).map_err(|e| anyhow!("{e}"))?;
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
    let worker = TableCompact::try_new(table.file_io().clone(), table.path(), table.schema())
        .map_err(|e| anyhow!("{e}"))?;
    let messages = run_tasks(&worker, &tasks, 1).map_err(|(done, e)| {
        delete_written(&table, &worker, &tasks, &done);
        anyhow!("{e}")
    })?;
    let messages: Vec<CommitMessage> = messages.into_iter().map(|(_, m)| m).collect();
    let written = write_message_files(&a.out_dir, &messages, a.message_version)?;
    crate::outln!(
        "{} tasks run; {} message files in {} (not committed)",
        tasks.len(),
        written.len(),
        a.out_dir.display()
    );
    Ok(())
}
