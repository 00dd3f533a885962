//! What the BTree and bitmap writers share: the rows to index, their order (NULLs first, then
//! by key, rows of equal keys in the order given, as pypaimon's builder sorts them) and the
//! encoded file with its manifest metadata.

use std::cmp::Ordering;

use paimon_spec::binary::Datum;
use paimon_spec::predicate::compare_datums;
use paimon_spec::types::DataType;

use super::file_meta::SortedIndexFileMeta;
use super::key::encode_key;
use super::{BITMAP_INDEX, BTREE_INDEX};
use crate::error::{Error, Result};

/// One row to index: its key (`Datum::Null` for NULL) and its row id local to the index
/// file's row range.
pub type IndexRow = (Datum, u64);

/// An encoded global index file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedIndex {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Rows indexed (NULL rows included): the manifest's `_ROW_COUNT`.
    pub row_count: i64,
    /// The manifest's `_INDEX_META` ([`SortedIndexFileMeta::encode`]).
    pub meta: Vec<u8>,
}

/// Writer options (Java / pypaimon `btree-index.block-size`,
/// `bitmap-index.dictionary-block-size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexWriteOptions {
    /// Target size of a BTree data block (64 KiB by default).
    pub btree_block_size: usize,
    /// Target size of a bitmap dictionary block (16 KiB by default).
    pub bitmap_dictionary_block_size: usize,
}

impl Default for IndexWriteOptions {
    fn default() -> Self {
        IndexWriteOptions {
            btree_block_size: 64 * 1024,
            bitmap_dictionary_block_size: 16 * 1024,
        }
    }
}

fn key_order(a: &Datum, b: &Datum) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        // NaN and other incomparable keys sort last among equals (never reached for keys of
        // one type other than NaN).
        (false, false) => compare_datums(a, b).unwrap_or_else(|| {
            let nan = |d: &Datum| match d {
                Datum::Float(f) => f.is_nan(),
                Datum::Double(f) => f.is_nan(),
                _ => false,
            };
            nan(a).cmp(&nan(b))
        }),
    }
}

/// Sorts `rows` the way the writers expect them: NULLs first, then by key; rows with equal
/// keys keep their order.
pub fn sort_index_rows(rows: &mut [IndexRow]) {
    rows.sort_by(|a, b| key_order(&a.0, &b.0));
}

/// Encodes a global index file of `index_type` ([`BTREE_INDEX`] or [`BITMAP_INDEX`]) over
/// `rows` (any order) whose keys are of `key_type`.
///
/// # Errors
/// `Unsupported` for another index type, an unindexable key type, a key of another type, or
/// sizes beyond what the footer can hold.
pub fn encode_scalar_index(
    index_type: &str,
    rows: &[IndexRow],
    key_type: &DataType,
    options: &IndexWriteOptions,
) -> Result<EncodedIndex> {
    let mut sorted = rows.to_vec();
    sort_index_rows(&mut sorted);
    let bytes = match index_type {
        BTREE_INDEX => super::btree_write::encode_btree(&sorted, key_type, options)?,
        BITMAP_INDEX => super::bitmap_write::encode_bitmap(&sorted, key_type, options)?,
        other => {
            return Err(Error::unsupported(
                "global index",
                format!("index type '{other}'"),
            ))
        }
    };
    let first = sorted.iter().find(|r| !r.0.is_null());
    let meta = SortedIndexFileMeta {
        first_key: first.map(|r| encode_key(&r.0, key_type)).transpose()?,
        last_key: sorted
            .last()
            .filter(|r| !r.0.is_null())
            .map(|r| encode_key(&r.0, key_type))
            .transpose()?,
        has_nulls: sorted.first().is_some_and(|r| r.0.is_null()),
    };
    Ok(EncodedIndex {
        bytes,
        row_count: rows.len() as i64,
        meta: meta.encode(),
    })
}

/// Whether two non-null keys are one key for the writers.
pub(super) fn same_key(a: &Datum, b: &Datum) -> bool {
    !a.is_null() && !b.is_null() && key_order(a, b) == Ordering::Equal
}
