//! Integration tests of paimon-write: bucket ids against Java's, files read back by
//! paimon-data and by Java (the oracle).

mod all_types;
mod append;
mod avro;
mod bucket_java;
mod common;
mod from_context;
mod merge_engines;
mod messages;
mod orc_nested;
mod orc_timestamps;
mod parquet_int96;
mod parquet_threads;
mod pk;
