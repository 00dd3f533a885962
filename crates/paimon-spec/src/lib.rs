//! # paimon-spec: the Paimon format as data
//!
//! Types shared by the control plane (`paimon-meta`) and the data plane (`paimon-data`), with
//! no I/O: data types and their JSON form ([`types`]), table schemas ([`schema`]), typed table
//! options ([`options`]), Java's binary row layouts ([`binary`]) and the data-file metadata
//! carried in manifests, splits and commit messages ([`data_file`], [`index_file`], [`stats`]),
//! and every path of a table ([`layout`]). Both planes and the protocol build on it, so it
//! depends on no other paimon crate and does no I/O (`scripts/check-boundaries.sh`).
//!
//! ```
//! use paimon_spec::types::{DataType, TypeKind};
//! let t = DataType::from_json_str(r#""DECIMAL(10, 2) NOT NULL""#).unwrap();
//! assert_eq!(t.kind, TypeKind::Decimal { precision: 10, scale: 2 });
//! assert!(!t.nullable);
//! ```

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod binary;
pub mod calendar;
pub mod data_file;
pub mod error;
pub mod hash_index;
pub mod index_file;
pub mod jackson;
pub mod layout;
pub mod options;
pub mod partition_time;
pub mod predicate;
pub mod predicate_json;
pub mod schema;
pub mod stats;
pub mod type_sql;
pub mod types;

pub use error::{Error, Result};
