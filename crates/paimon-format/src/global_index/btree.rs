//! BTree global index files (Java `BTreeIndexReader`, `BTreeFileFooter`, `SstFileReader`):
//! SST data blocks of `key -> (count, row ids)`, an index block of `last key -> block handle`,
//! an optional bloom filter, an optional null-row bitmap followed by its CRC32, and a 52-byte
//! little-endian footer ending with the version and the magic `0x50425449`.

use super::block::{bitmap, checked_block, slice, sst_entries, Cursor};
use super::key::decode_key;
use super::sorted::SortedIndex;
use crate::error::{Error, Result};
use paimon_spec::types::DataType;
use roaring::RoaringTreemap;

const WHAT: &str = "BTree global index";
const FOOTER_LEN: usize = 52;
const MAGIC: u32 = 0x5042_5449;

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

/// Decodes a whole BTree global index file whose keys are of `key_type`.
///
/// # Errors
/// `Corrupt` naming the footer, block or bitmap that does not follow the layout (bad magic,
/// handles outside the file, CRC mismatches, truncated entries); `Unsupported` for a footer
/// version other than 1, compressed blocks or an unindexable key type.
pub fn decode_btree_index(file: &[u8], key_type: &DataType) -> Result<SortedIndex> {
    if file.len() < FOOTER_LEN {
        return Err(Error::corrupt(
            WHAT,
            format!("{} bytes, shorter than the footer", file.len()),
        ));
    }
    let f = &file[file.len() - FOOTER_LEN..];
    let magic = le_u32(f, 48);
    if magic != MAGIC {
        return Err(Error::corrupt(
            WHAT,
            format!("bad footer magic {magic:#010x}"),
        ));
    }
    let version = le_u32(f, 44);
    if version != 1 {
        return Err(Error::unsupported(
            WHAT,
            format!("footer version {version}"),
        ));
    }
    let (index_offset, index_size) = (le_u64(f, 20), le_u32(f, 28));
    let (null_offset, null_size) = (le_u64(f, 32), le_u32(f, 40));
    let as_usize = |v: u64, what: &str| {
        usize::try_from(v).map_err(|_| Error::corrupt(WHAT, format!("{what} {v} out of range")))
    };

    let nulls = if null_offset == 0 && null_size == 0 {
        RoaringTreemap::new()
    } else {
        let bytes = slice(
            file,
            null_offset,
            u64::from(null_size),
            "BTree global index null bitmap",
        )?;
        let crc = slice(
            file,
            null_offset + u64::from(null_size),
            4,
            "BTree global index null bitmap CRC",
        )?;
        let stored = le_u32(crc, 0);
        let actual = crc32fast::hash(bytes);
        if stored != actual {
            return Err(Error::corrupt(
                "BTree global index null bitmap",
                format!("CRC32 {actual:#010x} does not match stored {stored:#010x}"),
            ));
        }
        bitmap(bytes, "BTree global index null bitmap")?
    };

    let index = checked_block(
        file,
        as_usize(index_offset, "index block offset")?,
        index_size as usize,
        "BTree global index index block",
    )?;
    let mut entries = Vec::new();
    for (_, handle) in sst_entries(index, "BTree global index index block")? {
        let mut h = Cursor::new(handle, "BTree global index block handle");
        let (offset, size) = h.handle()?;
        let block = checked_block(file, offset, size, "BTree global index data block")?;
        for (key, value) in sst_entries(block, "BTree global index data block")? {
            let key = decode_key(key, key_type)?;
            let mut v = Cursor::new(value, "BTree global index row ids");
            let n = v.var_len()?;
            let mut rows = RoaringTreemap::new();
            for _ in 0..n {
                rows.insert(v.var_long()?);
            }
            if !v.at_end() {
                return Err(Error::corrupt(
                    "BTree global index row ids",
                    format!("{} bytes after {n} row ids", value.len() - v.pos),
                ));
            }
            entries.push((key, rows));
        }
    }
    Ok(SortedIndex::new(entries, nulls))
}
