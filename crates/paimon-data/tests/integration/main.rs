//! Integration tests of paimon-data: Java-written tables and splits from
//! `../shared/testdata/paimon-cpp`, read in place.

mod async_footers;
mod common;
mod hostile_splits;
mod incremental_diff;
mod parallel;
mod ranged_reads;
mod row_count;
mod splits;
