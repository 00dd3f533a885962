//! Integration tests of paimon-write: bucket ids against Java's, files read back by
//! paimon-data and by Java (the oracle).

mod all_types;
mod append;
mod bucket_java;
mod common;
mod messages;
mod pk;
