//! A distributed compaction: the planner plans tasks and sends them as bytes, workers run
//! them (commit messages back as bytes), and the planner commits every message as one
//! COMPACT snapshot. Then the one-call form, and expiry and orphan cleanup.
//!
//! `cargo run -p paimon-rs --example compaction_tasks` (on a temporary copy of
//! `fixtures/warehouse/pk.db/dedup_uncompacted`).

use std::path::Path;
use std::time::Duration;

use paimon_rs::split::commit::{
    decode_commit_message, encode_commit_message, DEFAULT_COMMIT_MESSAGE_VERSION,
};
use paimon_rs::split::{decode_compact_task, encode_compact_task};
use paimon_rs::Table;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()))?;
        } else {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

fn main() -> Result<()> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/warehouse/pk.db/dedup_uncompacted");
    let dir = std::env::temp_dir().join(format!("paimon-rs-compact-{}", std::process::id()));
    copy_dir(&src, &dir)?;
    let table = Table::open_path(&dir.display().to_string())?;

    // Planner: tasks as bytes.
    let plan = table.compact().with_full(true).plan()?;
    let tasks: Vec<Vec<u8>> = plan
        .tasks
        .iter()
        .map(encode_compact_task)
        .collect::<std::result::Result<_, _>>()?;
    println!(
        "planned {} tasks from snapshot {:?}",
        tasks.len(),
        plan.snapshot_id
    );

    // Workers (any process): decode, run, send the messages back as bytes.
    let mut messages = Vec::new();
    for bytes in &tasks {
        let task = decode_compact_task(bytes)?;
        let done = paimon_rs::compaction::run_compact_tasks(table.meta(), &[task], 1)?;
        for m in done {
            messages.push(encode_commit_message(&m, DEFAULT_COMMIT_MESSAGE_VERSION)?);
        }
    }

    // Planner: one COMPACT snapshot.
    let decoded = messages
        .iter()
        .map(|b| decode_commit_message(b, DEFAULT_COMMIT_MESSAGE_VERSION))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let ids = table.new_commit("example-compactor").commit(1, &decoded)?;
    println!("committed {} messages: snapshots {ids:?}", decoded.len());

    // The same in one call (nothing left to do now).
    let report = table.compact().with_full(true).run()?;
    println!("one-call compaction: {report:?}");

    let expired = table
        .expire_snapshots()
        .with_retain_max(1)
        .with_retain_min(1)
        .with_older_than(Duration::ZERO)
        .run()?;
    println!(
        "expired snapshots {:?}; earliest now {:?}",
        expired.expired, expired.earliest
    );
    let orphans = table
        .remove_orphan_files()
        .with_older_than(Duration::ZERO)
        .with_dry_run(true)
        .run()?;
    println!("{} orphan files", orphans.files.len());
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
