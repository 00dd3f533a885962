//! Integration tests of paimon-data: Java-written tables and splits from
//! `../shared/testdata/paimon-cpp`, read in place.

mod common;
mod incremental_diff;
mod parallel;
mod ranged_reads;
mod row_count;
mod splits;
