//! Parquet manifests (`manifest.format=parquet`): read into [`crate::value`] records
//! ([`records`]) and written from them ([`manifest_encode`]).

pub mod manifest_encode;
pub mod records;

pub use records::{read_parquet, MAGIC};
