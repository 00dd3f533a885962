//! # paimon-format: Paimon's file codecs
//!
//! Pure decoders and encoders over bytes, shared by the control plane (`paimon-meta`: manifests,
//! index manifests) and the data plane (`paimon-data`, `paimon-write`: data files, file
//! indexes), which may not share a crate of either plane. No I/O: callers read the bytes and
//! name the file when they report an [`Error`].
//!
//! Every length and count read from bytes is checked before it is used: hostile bytes give an
//! [`Error`] naming what was being read and what is wrong, never a panic.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod avro;
pub mod error;
pub mod file_index;
pub mod global_index;
pub mod orc;
pub mod parquet;
pub mod value;

pub use error::{Error, Result};
