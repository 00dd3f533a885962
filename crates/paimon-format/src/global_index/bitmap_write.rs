//! Writing bitmap global index files ([`super::bitmap`] reads them), byte for byte as pypaimon
//! 2.1's `BitmapIndexWriter` with compression none: the NULL rows' and non-NULL rows' bitmaps,
//! then per distinct serialized key (in byte order) its bitmap, dictionary blocks of
//! `key -> bitmap handle` cut at the dictionary block size, the index block of
//! `first key -> dictionary block handle` and the 48-byte big-endian footer.

use std::collections::BTreeMap;

use paimon_spec::types::DataType;
use roaring::RoaringTreemap;

use super::btree_write::bitmap_bytes;
use super::encode::{IndexRow, IndexWriteOptions};
use super::key::encode_key;
use super::write_block::{put_block, put_raw, put_var, var_size};
use crate::error::{Error, Result};

const MAGIC: i32 = 0x4247_4958;
const VERSION: i32 = 1;

fn entry_size(key: &[u8], offset: u64, len: u64) -> usize {
    var_size(key.len() as u64) + key.len() + var_size(offset) + var_size(len)
}

fn dictionary_block(entries: &[(Vec<u8>, u64, u64)]) -> Vec<u8> {
    let mut out = Vec::new();
    put_var(&mut out, entries.len() as u64);
    for (key, offset, len) in entries {
        put_var(&mut out, key.len() as u64);
        out.extend_from_slice(key);
        put_var(&mut out, *offset);
        put_var(&mut out, *len);
    }
    out
}

fn as_i32(v: u64, what: &str) -> Result<i32> {
    i32::try_from(v)
        .map_err(|_| Error::unsupported("bitmap global index", format!("{what} {v} exceeds 2 GiB")))
}

/// Encodes `rows` (any order; equal serialized keys share one bitmap).
pub(super) fn encode_bitmap(
    rows: &[IndexRow],
    key_type: &DataType,
    options: &IndexWriteOptions,
) -> Result<Vec<u8>> {
    let mut nulls = RoaringTreemap::new();
    let mut not_nulls = RoaringTreemap::new();
    let mut bitmaps: BTreeMap<Vec<u8>, RoaringTreemap> = BTreeMap::new();
    for (key, row) in rows {
        if key.is_null() {
            nulls.insert(*row);
        } else {
            not_nulls.insert(*row);
            bitmaps
                .entry(encode_key(key, key_type)?)
                .or_default()
                .insert(*row);
        }
    }
    let mut file = Vec::new();
    let null_block = put_raw(&mut file, &bitmap_bytes(&nulls)?);
    let not_null_block = put_raw(&mut file, &bitmap_bytes(&not_nulls)?);

    // (first key, offset, length) of each dictionary block.
    let mut blocks: Vec<(Vec<u8>, u64, u64)> = Vec::new();
    let mut current: Vec<(Vec<u8>, u64, u64)> = Vec::new();
    let mut current_size = 0usize;
    let value_count = bitmaps.len();
    for (key, bitmap) in bitmaps {
        let (offset, len) = put_raw(&mut file, &bitmap_bytes(&bitmap)?);
        let size = entry_size(&key, offset, len);
        let after = var_size(current.len() as u64 + 1) + current_size + size;
        if !current.is_empty() && after > options.bitmap_dictionary_block_size {
            let (o, l) = put_block(&mut file, &dictionary_block(&current));
            blocks.push((current[0].0.clone(), o, l));
            current.clear();
            current_size = 0;
        }
        current.push((key, offset, len));
        current_size += size;
    }
    if let Some(first) = current.first() {
        let first = first.0.clone();
        let (o, l) = put_block(&mut file, &dictionary_block(&current));
        blocks.push((first, o, l));
    }
    let (index_offset, index_len) = put_block(&mut file, &dictionary_block(&blocks));

    let mut footer = Vec::with_capacity(48);
    for (offset, len, what) in [
        (null_block.0, null_block.1, "null rows bitmap"),
        (not_null_block.0, not_null_block.1, "non-null rows bitmap"),
        (index_offset, index_len, "index block"),
    ] {
        footer.extend_from_slice(&(offset as i64).to_be_bytes());
        footer.extend_from_slice(&as_i32(len, what)?.to_be_bytes());
    }
    footer.extend_from_slice(&as_i32(value_count as u64, "value count")?.to_be_bytes());
    footer.extend_from_slice(&VERSION.to_be_bytes());
    footer.extend_from_slice(&MAGIC.to_be_bytes());
    file.extend_from_slice(&footer);
    Ok(file)
}
