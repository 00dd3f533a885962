//! ORC: the footer check run before `orc-rust` builds a schema ([`tail`]), the file encoder of
//! data files and manifests ([`mod@write`]), ORC manifests read into [`crate::value`] records
//! ([`records`]) and the manifest-family encoder ([`manifest_encode`]).

pub mod manifest_encode;
pub mod records;
pub mod tail;
pub mod write;

pub use records::{read_orc, MAGIC};
