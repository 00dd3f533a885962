//! Writing BTree global index files ([`super::btree`] reads them), byte for byte as pypaimon
//! 2.1's `BTreeIndexWriter` without a bloom filter: one SST entry per distinct key (the count
//! and var-length row ids in write order), data blocks flushed once they exceed the block size,
//! the NULL rows' bitmap with its CRC32, the index block of `last key -> block handle` and the
//! 52-byte footer.

use paimon_spec::types::DataType;
use roaring::RoaringTreemap;

use super::encode::{IndexRow, IndexWriteOptions};
use super::key::encode_key;
use super::write_block::{put_block, put_var, SstBlock};
use crate::error::{Error, Result};

const MAGIC: u32 = 0x5042_5449;
const VERSION: u32 = 1;

/// The 64-bit portable serialization of `b` (CRoaring's, as pyroaring and Java write it).
pub(super) fn bitmap_bytes(b: &RoaringTreemap) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(b.serialized_size());
    b.serialize_into(&mut out)
        .map_err(|e| Error::corrupt("global index bitmap", e.to_string()))?;
    Ok(out)
}

/// Encodes `rows`, already in [`super::sort_index_rows`] order.
pub(super) fn encode_btree(
    rows: &[IndexRow],
    key_type: &DataType,
    options: &IndexWriteOptions,
) -> Result<Vec<u8>> {
    let mut file = Vec::new();
    let mut data = SstBlock::default();
    let mut index = SstBlock::default();
    let mut nulls: Option<RoaringTreemap> = None;
    let mut last_key: Option<Vec<u8>> = None;

    let mut flush = |file: &mut Vec<u8>, data: &mut SstBlock, last: &[u8]| {
        let (offset, len) = put_block(file, &data.finish());
        let mut handle = Vec::new();
        put_var(&mut handle, offset);
        put_var(&mut handle, len);
        index.add(last, &handle);
    };

    let mut i = 0;
    while i < rows.len() {
        let (key, row) = &rows[i];
        if key.is_null() {
            nulls.get_or_insert_with(RoaringTreemap::new).insert(*row);
            i += 1;
            continue;
        }
        // Consecutive rows of an equal key make one entry.
        let serialized = encode_key(key, key_type)?;
        let mut j = i;
        let mut value = Vec::new();
        while j < rows.len() && super::encode::same_key(&rows[j].0, key) {
            j += 1;
        }
        put_var(&mut value, (j - i) as u64);
        for (_, r) in &rows[i..j] {
            put_var(&mut value, *r);
        }
        data.add(&serialized, &value);
        last_key = Some(serialized);
        if data.memory() > options.btree_block_size {
            if let Some(last) = &last_key {
                flush(&mut file, &mut data, last);
            }
        }
        i = j;
    }
    if data.len() > 0 {
        if let Some(last) = &last_key {
            flush(&mut file, &mut data, last);
        }
    }
    let null_handle = match &nulls {
        Some(b) => {
            let bytes = bitmap_bytes(b)?;
            let offset = file.len() as u64;
            file.extend_from_slice(&bytes);
            file.extend_from_slice(&crc32fast::hash(&bytes).to_le_bytes());
            (offset, bytes.len() as u32)
        }
        None => (0, 0),
    };
    let (index_offset, index_len) = put_block(&mut file, &index.finish());
    // Footer: bloom filter handle (none), index block, null bitmap, version, magic.
    file.extend_from_slice(&0u64.to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(&0u64.to_le_bytes());
    file.extend_from_slice(&index_offset.to_le_bytes());
    file.extend_from_slice(&(index_len as u32).to_le_bytes());
    file.extend_from_slice(&null_handle.0.to_le_bytes());
    file.extend_from_slice(&null_handle.1.to_le_bytes());
    file.extend_from_slice(&VERSION.to_le_bytes());
    file.extend_from_slice(&MAGIC.to_le_bytes());
    Ok(file)
}
