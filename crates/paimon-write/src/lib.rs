//! # paimon-write: Arrow in, data files and commit messages out
//!
//! The data plane of writing. A [`TableWrite`] takes Arrow `RecordBatch`es for one table,
//! routes each row to its partition and bucket exactly as Java Paimon would, writes data files
//! in the table's format (rolled at `target-file-size`, with Java's statistics) and hands out
//! one [`CommitMessage`] per partition and bucket. It never reads snapshots or manifests:
//! whatever it must know of the table's current state (the largest sequence number per bucket)
//! is given to it; a committer in the control plane turns the messages into a snapshot. So it
//! never depends on `paimon-meta` nor on an engine crate (`scripts/check-boundaries.sh`).
//!
//! The tour:
//! - [`bucket`]: Java's `DefaultBucketFunction` over bucket-key `BinaryRow`s;
//! - [`stats`]: column statistics read back from the written footer, per stats mode;
//! - [`data_file`]: the table's `file.format`: [`parquet_file`] (Java's schema and field ids,
//!   statistics from the footer), [`avro_file`] (Java's Avro schema, statistics collected
//!   row by row) or [`orc_file`] (paimon-format's ORC encoder, statistics collected row by row);
//! - [`rolling`]: the files of one bucket, rolled at the target size, and their `DataFileMeta`;
//! - [`conform`]: batches from outside matched to the table's columns by name, with row kinds;
//! - [`table_write`]: [`TableWrite`] itself;
//! - [`compact`]: [`TableCompact`], which runs the compaction tasks a planner hands out;
//! - [`dv_index`]: a bucket's deletion vectors, restored and written as Java's index files.
//!
//! ```no_run
//! use std::sync::Arc;
//! use paimon_io::LocalFileIO;
//! use paimon_spec::schema::TableSchema;
//! use paimon_write::TableWrite;
//! # fn batch() -> arrow_array::RecordBatch { unimplemented!() }
//! let schema_json = std::fs::read_to_string("/tmp/t/schema/schema-0").unwrap();
//! let schema = TableSchema::from_json_str(&schema_json).unwrap();
//! let mut write = TableWrite::try_new(Arc::new(LocalFileIO::new()), "/tmp/t", &schema).unwrap();
//! write.write(&batch()).unwrap();
//! for message in write.prepare_commit().unwrap() {
//!     println!("bucket {}: {} new files", message.bucket, message.data_increment.new_files.len());
//! }
//! ```

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod arrow_datum;
pub mod avro_file;
pub mod bucket;
pub mod compact;
mod compact_changelog;
mod compact_lookup;
pub mod conform;
mod cross_partition;
pub mod data_file;
pub mod dv_index;
mod dynamic_bucket;
pub mod error;
pub mod format_table;
pub mod key_value;
pub mod kv_buffer;
pub mod options;
pub mod orc_file;
mod parquet_columns;
pub mod parquet_file;
mod parquet_int96;
pub mod paths;
mod postpone;
pub mod rolling;
mod sink;
pub mod stats;
pub mod table_write;
pub mod text_file;
mod threads;

pub use compact::TableCompact;
pub use dynamic_bucket::BucketIndexFile;
pub use error::{Error, Result};
pub use paimon_split::commit::CommitMessage;
pub use table_write::TableWrite;
