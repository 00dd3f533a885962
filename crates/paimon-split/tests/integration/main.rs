//! Integration tests of the split protocol: Java's golden bytes, Java-planned splits of real
//! tables, and property round trips.

mod commit_golden;
mod commit_oracle;
mod common;
mod cpp_commit_messages;
mod cpp_splits;
mod golden;
mod java20_frames;
mod java_rows;
mod peer_messages;
mod roundtrip;
mod write_context;
