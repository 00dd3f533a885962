//! Acceptance suite: plan and read every reference table through the public API, as an engine
//! would, and compare with Java Paimon's rows (multisets, all columns, exact values).
//!
//! Cases that cannot pass yet are listed, each with its reason, in `skips.rs`; a skipped case
//! that starts passing fails the suite so the list stays honest.

mod alter_table;
mod async_read;
mod blob_descriptors;
mod commit_once;
mod compact;
mod cpp_compact;
mod cpp_tables;
mod cross_partition;
mod data_evolution_write;
mod dynamic_bucket;
mod external_paths;
mod fallback_time_travel;
mod filtered_plans;
mod fixtures;
mod format_table;
mod hostile_paths;
mod hostile_s3;
mod hostile_tasks;
mod late_filter;
mod maintenance;
mod memory_budget;
mod memory_limit;
mod partition_expire;
mod paths;
mod plan_summary;
mod postpone_bucket;
mod projection;
mod projection_ids;
mod read_split_options;
mod row_tracking_compact;
mod serve;
mod skips;
mod split_rules;
mod sql;
mod sql_call;
mod sql_consumers;
mod sql_ddl;
mod sql_dml_append;
mod sql_global_index;
mod sql_merge;
mod sql_show_tags;
mod sql_write;
mod system_tables;
mod variant;
mod versions;
mod write_cmd;
mod write_processes;
