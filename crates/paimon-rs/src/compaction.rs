//! Compaction in one call: planned by paimon-meta ([`CompactPlanner`]), each task rewritten by
//! paimon-write ([`TableCompact`]) on a pool of threads, committed by paimon-meta as one
//! COMPACT snapshot. `paimon compact`, the Python package and the lookup compaction after a
//! write ([`crate::table_writer::compact_written`]) all run [`compact_table`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use paimon_meta::maintenance::CompactPlanner;
use paimon_spec::layout::POSTPONE_BUCKET;
use paimon_split::commit::CommitMessage;
use paimon_split::CompactTask;
use paimon_write::TableCompact;

use crate::error::{Error, Result};
use crate::table::{available_cores, Table};

/// A finished task: its index in the plan and its message.
type Done = (usize, CommitMessage);

/// Java `BatchWriteBuilder.COMMIT_IDENTIFIER`.
const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// What a compaction did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactReport {
    /// The snapshot planned from (`None` for a table without snapshots).
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

/// `table.compact()`: which buckets, how, and on how many threads; [`CompactBuilder::run`]
/// plans, rewrites and commits, [`CompactBuilder::plan`] only plans (tasks for workers).
#[derive(Debug, Clone)]
pub struct CompactBuilder {
    table: Table,
    full: bool,
    partition: Option<Vec<(String, String)>>,
    threads: Option<usize>,
    commit_user: Option<String>,
}

impl CompactBuilder {
    pub(crate) fn new(table: Table) -> Self {
        CompactBuilder {
            table,
            full: false,
            partition: None,
            threads: None,
            commit_user: None,
        }
    }

    /// Full compaction: every bucket (partition of an unaware-bucket table) into as few files
    /// as the target size allows; primary-key tables into the last level. Default: Java's
    /// pickers decide (minor compaction).
    pub fn with_full(mut self, full: bool) -> Self {
        self.full = full;
        self
    }

    /// Only the partitions matching these `column = value` pairs (a prefix of the partition
    /// columns, values as partition directories spell them).
    pub fn with_partition<K: Into<String>, V: Into<String>>(
        mut self,
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.partition = Some(
            pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        );
        self
    }

    /// Tasks run at once (default: the available cores).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// The commit user of the COMPACT snapshot (default: a fresh one).
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = Some(user.into());
        self
    }

    /// The planner of this compaction.
    ///
    /// # Errors
    /// A partition that does not name the table's partition columns.
    pub fn planner(&self) -> Result<CompactPlanner> {
        let t = self.table.meta();
        let mut planner = t.compact_planner().with_full(self.full);
        if let Some(pairs) = &self.partition {
            planner = planner.with_partition(t.partition_spec(pairs)?);
        }
        Ok(planner)
    }

    /// The tasks [`CompactBuilder::run`] would run, for workers in other processes
    /// (`paimon_split::encode_compact_task` turns each into bytes, [`run_compact_tasks`] runs
    /// them); nothing runs or is committed.
    ///
    /// # Errors
    /// Planning errors (unsupported tables, metadata errors).
    pub fn plan(&self) -> Result<paimon_meta::maintenance::CompactPlan> {
        Ok(self.planner()?.plan()?)
    }

    /// Plans, runs every task and commits them as one COMPACT snapshot (a postpone-bucket
    /// table: its postpone compaction, [`crate::postpone_compaction::compact_postpone`]).
    /// Nothing is committed
    /// when a task or the commit fails, and the files the tasks wrote are deleted then.
    ///
    /// # Errors
    /// Planning, rewrite and commit errors; a commit conflict (another commit removed an
    /// input file) among them ([`Error::is_commit_conflict`]).
    pub fn run(&self) -> Result<CompactReport> {
        let user = match &self.commit_user {
            Some(u) => u.clone(),
            None => paimon_meta::commit::fresh_commit_user("paimon-rs-compact"),
        };
        let meta = self.table.meta();
        if meta.is_primary_key_table() && meta.options().bucket == POSTPONE_BUCKET {
            if self.partition.is_some() {
                return Err(Error::invalid(
                    "partition",
                    "the postpone compaction redistributes every partition",
                ));
            }
            return crate::postpone_compaction::compact_postpone(meta, &user);
        }
        let threads = self.threads.unwrap_or_else(available_cores);
        compact_table(meta, &self.planner()?, &user, threads)
    }
}

/// Plans `planner`'s tasks, runs them on `threads` threads and commits the results as
/// `commit_user`. Nothing is committed when any task or the commit fails, and the files the
/// tasks wrote are deleted then.
///
/// # Errors
/// Planning, rewrite and commit errors; a commit conflict (another commit removed an input
/// file) among them.
pub fn compact_table(
    table: &paimon_meta::Table,
    planner: &CompactPlanner,
    commit_user: &str,
    threads: usize,
) -> Result<CompactReport> {
    let plan = planner.plan()?;
    let mut report = CompactReport {
        planned_from: plan.snapshot_id,
        tasks: plan.tasks.len(),
        ..CompactReport::default()
    };
    if plan.tasks.is_empty() {
        return Ok(report);
    }
    let worker = TableCompact::try_new(table.file_io().clone(), table.path(), table.schema())?;
    let done = match run_tasks(&worker, &plan.tasks, threads.max(1)) {
        Ok(m) => m,
        Err((done, e)) => {
            delete_written(table, &worker, &plan.tasks, &done);
            return Err(e);
        }
    };
    let messages: Vec<CommitMessage> = done.iter().map(|(_, m)| m.clone()).collect();
    for m in &messages {
        report.files_before += m.compact_increment.compact_before.len();
        report.files_after += m.compact_increment.compact_after.len();
    }
    match table
        .new_commit(commit_user)
        .commit(BATCH_COMMIT_IDENTIFIER, &messages)
    {
        Ok(ids) => {
            report.snapshots = ids;
            Ok(report)
        }
        Err(e) => {
            delete_written(table, &worker, &plan.tasks, &done);
            Err(e.into())
        }
    }
}

/// A worker's side of a distributed compaction: runs `tasks` (planned by
/// [`CompactBuilder::plan`], possibly in another process) on `threads` threads and returns
/// their commit messages in task order; nothing is committed. On a failure the files the
/// finished tasks wrote are deleted and no message is returned.
///
/// # Errors
/// A task's rewrite error; a table the compaction cannot write.
pub fn run_compact_tasks(
    table: &paimon_meta::Table,
    tasks: &[CompactTask],
    threads: usize,
) -> Result<Vec<CommitMessage>> {
    let worker = TableCompact::try_new(table.file_io().clone(), table.path(), table.schema())?;
    match run_tasks(&worker, tasks, threads.max(1)) {
        Ok(done) => Ok(done.into_iter().map(|(_, m)| m).collect()),
        Err((done, e)) => {
            delete_written(table, &worker, tasks, &done);
            Err(e)
        }
    }
}

/// Runs the tasks on a pool of threads, in plan order of results; on failure the messages of
/// the tasks that did finish come back with the error.
fn run_tasks(
    worker: &TableCompact,
    tasks: &[CompactTask],
    threads: usize,
) -> std::result::Result<Vec<Done>, (Vec<Done>, Error)> {
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
            Some(Err(e)) => error = error.or(Some(Error::from(e))),
        }
    }
    match error {
        None => Ok(done),
        Some(e) => Err((done, e)),
    }
}

/// Deletes the files the messages' compactions wrote (not the upgraded inputs, which keep
/// their names).
fn delete_written(
    table: &paimon_meta::Table,
    worker: &TableCompact,
    tasks: &[CompactTask],
    done: &[Done],
) {
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
