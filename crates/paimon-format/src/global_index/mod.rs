//! Scalar global index files (Java `BTreeIndexReader`, `BitmapIndexReader`,
//! `SortedIndexFileMeta`): pure decoders over a whole file's bytes, and the encoders writing
//! the same bytes pypaimon 2.1 writes ([`encode_scalar_index`]).
//!
//! Both index types decode to a [`SortedIndex`]: the distinct keys in key order, each with the
//! row ids (local to the index file's row range) holding it, and the rows holding NULL.
//! Planning evaluates predicates on it ([`SortedIndex::equal`], [`SortedIndex::range`], ...).

mod bitmap;
mod bitmap_write;
mod block;
mod btree;
mod btree_write;
mod encode;
mod file_meta;
mod key;
mod sorted;
mod write_block;

pub use bitmap::decode_bitmap_index;
pub use btree::decode_btree_index;
pub use encode::{encode_scalar_index, sort_index_rows, EncodedIndex, IndexRow, IndexWriteOptions};
pub use file_meta::SortedIndexFileMeta;
pub use key::{decode_key, encode_key};
pub use sorted::SortedIndex;

/// `_INDEX_TYPE` of BTree global index files.
pub const BTREE_INDEX: &str = "btree";
/// `_INDEX_TYPE` of bitmap global index files.
pub const BITMAP_INDEX: &str = "bitmap";

use crate::error::{Error, Result};
use paimon_spec::types::DataType;

/// Decodes a scalar global index file of `index_type` ([`BTREE_INDEX`] or [`BITMAP_INDEX`])
/// whose keys are of `key_type`.
///
/// # Errors
/// `Corrupt` on bytes that do not follow the layout; `Unsupported` for another index type, a
/// key type the format does not index, or a block compression other than none.
pub fn decode_scalar_index(
    index_type: &str,
    bytes: &[u8],
    key_type: &DataType,
) -> Result<SortedIndex> {
    match index_type {
        BTREE_INDEX => decode_btree_index(bytes, key_type),
        BITMAP_INDEX => decode_bitmap_index(bytes, key_type),
        other => Err(Error::unsupported(
            "global index",
            format!("index type '{other}'"),
        )),
    }
}

#[cfg(test)]
mod encode_tests;
#[cfg(test)]
mod tests;
