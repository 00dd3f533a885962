//! Java's `BinaryRow`, `BinaryArray` and `BinaryMap` memory layouts.
//!
//! Row bytes are little-endian (Java `MemorySegment` native order); see
//! `docs/paimon-format.md` §4. Decoders check every offset and length against the buffer and
//! return [`crate::Error::Corrupt`] rather than panicking.
//!
//! ```text
//! | header + null bits (W) | 8-byte slot per field | variable part (8-byte aligned chunks) |
//! ```

mod array;
mod builder;
mod datum;
mod hash;
pub mod json;
mod row;
mod writer;

pub use array::{BinaryArray, BinaryMap};
pub use builder::BinaryRowBuilder;
pub use datum::Datum;
pub use hash::{murmur_hash_bytes, murmur_hash_words};
pub use row::{null_bits_width, BinaryRow};
pub use writer::{encode_array, encode_map, encode_row, encode_row_into, RowKind, RowWriter};

/// Largest string or binary length stored inline in a slot.
pub const MAX_FIX_PART_DATA_SIZE: usize = 7;

/// Rounds `n` up to a multiple of 8.
pub(crate) fn round_to_word(n: usize) -> usize {
    n.div_ceil(8) * 8
}
