//! Integration tests of the format model against real tables written by Java Paimon.

mod predicate_json;
mod schemas;
