//! Integration tests of paimon-meta against the real tables in `../shared/testdata/paimon-cpp`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

mod all_tables;
mod bucket;
mod common;
mod compact_tasks;
mod fallback;
mod file_pruning;
mod global_index;
mod java_changes;
mod java_commit;
mod java_expire;
mod java_incremental;
mod java_plans;
mod java_splits;
mod java_tags;
mod memory_pool;
mod pruning;
mod readme;
