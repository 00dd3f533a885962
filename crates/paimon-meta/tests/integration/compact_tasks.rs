//! Compaction tasks as bytes (`paimon_split::compact_codec`): every task the planner makes,
//! full and minor, over the bundled fixture warehouse and the shared paimon-cpp tables, comes
//! back from its bytes as it was; cut or damaged bytes give an error, never a panic.

use std::path::Path;
use std::sync::Arc;

use paimon_meta::Table;
use paimon_split::{decode_compact_task, encode_compact_task, CompactTask};

use crate::common::{all_tables, repo};

fn fixture_tables() -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for db in std::fs::read_dir(repo().join("fixtures/warehouse")).unwrap() {
        for t in std::fs::read_dir(db.unwrap().path()).unwrap() {
            let p = t.unwrap().path();
            if p.join("snapshot").is_dir() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The tasks of full and minor compaction of the table at `p` (refusals leave none).
fn planned(p: &Path) -> Vec<CompactTask> {
    let Ok(table) = Table::open(Arc::new(paimon_io::LocalFileIO::new()), p.to_str().unwrap())
    else {
        return Vec::new();
    };
    let mut tasks = Vec::new();
    for full in [true, false] {
        if let Ok(plan) = table.compact_planner().with_full(full).plan() {
            tasks.extend(plan.tasks);
        }
    }
    tasks
}

#[test]
fn every_planned_task_round_trips_through_its_bytes() {
    let mut count = 0;
    let mut lookups = 0;
    let mut with_dvs = 0;
    for p in fixture_tables().into_iter().chain(all_tables()) {
        for task in planned(&p) {
            let bytes = encode_compact_task(&task).unwrap();
            let back =
                decode_compact_task(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert_eq!(back, task, "{}", p.display());
            count += 1;
            lookups += usize::from(task.lookup.is_some());
            with_dvs += usize::from(task.split.data_deletion_files.is_some());
        }
    }
    // The fixtures hold lookup (deletion-vector, first-row) tasks and inputs with vectors.
    assert!(
        count > 50 && lookups > 0 && with_dvs > 0,
        "{count} {lookups} {with_dvs}"
    );
}

#[test]
fn cut_or_damaged_task_bytes_are_errors() {
    let p = repo().join("fixtures/warehouse/pk.db/dv32");
    let tasks = planned(&p);
    let task = tasks
        .iter()
        .find(|t| t.lookup.is_some())
        .unwrap_or(&tasks[0]);
    let bytes = encode_compact_task(task).unwrap();
    for n in 0..bytes.len() {
        assert!(
            decode_compact_task(&bytes[..n]).is_err(),
            "prefix of {n} bytes"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode_compact_task(&longer).is_err());
    // Every single-byte change decodes to an error or to some task, never a panic.
    for i in 0..bytes.len() {
        let mut d = bytes.clone();
        d[i] ^= 0x5a;
        let _ = decode_compact_task(&d);
    }
    let mut version = bytes.clone();
    version[11] = 2;
    let e = decode_compact_task(&version).unwrap_err().to_string();
    assert!(e.contains("version 2"), "{e}");
}
