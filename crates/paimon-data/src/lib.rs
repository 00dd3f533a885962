//! # paimon-data: split in, Arrow out
//!
//! The data plane of paimon-rs: given a table location, a `DataSplit` (as a value or Java
//! bytes) and [`ReadOptions`], [`SplitReader`] streams Arrow `RecordBatch`es with the rows
//! Java Paimon returns for that split. It never reads snapshots or manifests; it needs only
//! the split, the table's `schema/schema-N` files and the data and index files, and never
//! depends on the control plane (`paimon-meta`) nor on an engine crate
//! (`scripts/check-boundaries.sh`).
//!
//! The tour:
//! - [`arrow_schema`]: the Paimon → Arrow type mapping every crate uses;
//! - [`format`](mod@format): pure Parquet / ORC / Avro decoders over bytes, with row selection;
//! - [`deletion_vector`]: 32- and 64-bit deletion vectors, checksummed;
//! - [`schema_mapper`]: schema evolution by field id and Java's cast semantics;
//! - [`merge`]: merge-on-read of primary-key sorted runs;
//! - [`reader`]: [`SplitReader`], which picks the read path per split;
//! - [`filter`]: exact predicate evaluation on output batches.
//!
//! ```no_run
//! use std::sync::Arc;
//! use paimon_data::SplitReader;
//! use paimon_io::LocalFileIO;
//!
//! let reader = SplitReader::builder(Arc::new(LocalFileIO::new()))
//!     .with_batch_size(1024)
//!     .with_projection(["f0", "f1"])
//!     .build();
//! let split_bytes = std::fs::read("/path/to/table/data_splits/data_split-01").unwrap();
//! for batch in reader.read_bytes("/path/to/table", &split_bytes).unwrap() {
//!     println!("{} rows", batch.unwrap().num_rows());
//! }
//! ```
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod arrow_schema;
pub mod datum;
pub mod deletion_vector;
pub mod error;
pub mod filter;
pub mod format;
pub mod format_table;
pub mod merge;
pub mod reader;
pub mod schema_mapper;

pub use error::{Error, Result};
pub use reader::{PlanBatches, ReadOptions, SplitBatches, SplitReader, SplitReaderBuilder};
