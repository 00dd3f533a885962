//! Bitmap global index files (Java `BitmapGlobalIndexReader`): the null-row and non-null-row
//! bitmaps, one roaring bitmap per distinct key, dictionary blocks of `key -> bitmap handle`,
//! an index block of `first key -> dictionary block handle`, and a 48-byte big-endian footer
//! ending with the value count, the version and the magic `0x42474958`.

use super::block::{bitmap, checked_block, slice, Cursor};
use super::key::decode_key;
use super::sorted::SortedIndex;
use crate::error::{Error, Result};
use paimon_spec::types::DataType;

const WHAT: &str = "bitmap global index";
const FOOTER_LEN: usize = 48;
const MAGIC: i32 = 0x4247_4958;

fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}

fn be_i32(b: &[u8], at: usize) -> i32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    i32::from_be_bytes(a)
}

fn handle(offset: i64, len: i32, what: &str) -> Result<(u64, u64)> {
    match (u64::try_from(offset), u64::try_from(len)) {
        (Ok(o), Ok(l)) => Ok((o, l)),
        _ => Err(Error::corrupt(
            what,
            format!("negative handle {offset}+{len}"),
        )),
    }
}

/// Decodes a whole bitmap global index file whose keys are of `key_type`.
///
/// # Errors
/// `Corrupt` naming the footer, block or bitmap that does not follow the layout; `Unsupported`
/// for a version other than 1, compressed blocks or an unindexable key type.
pub fn decode_bitmap_index(file: &[u8], key_type: &DataType) -> Result<SortedIndex> {
    if file.len() < FOOTER_LEN {
        return Err(Error::corrupt(
            WHAT,
            format!("{} bytes, shorter than the footer", file.len()),
        ));
    }
    let f = &file[file.len() - FOOTER_LEN..];
    let magic = be_i32(f, 44);
    if magic != MAGIC && crate::file_index::BitmapDictionary::parse(file, key_type).is_ok() {
        // Older Java writers (the paimon-cpp fixtures `append_with_global_index*`) stored a
        // `BitmapFileIndex` (its version byte first, no footer) as the bitmap global index.
        return Err(Error::unsupported(
            WHAT,
            format!(
                "layout (bad footer magic {magic:#010x}; the bytes read as a BitmapFileIndex, an older writer's bitmap global index)"
            ),
        ));
    }
    if magic != MAGIC {
        return Err(Error::corrupt(
            WHAT,
            format!("bad footer magic {magic:#010x}"),
        ));
    }
    let version = be_i32(f, 40);
    if version != 1 {
        return Err(Error::unsupported(
            WHAT,
            format!("footer version {version}"),
        ));
    }
    let (no, nl) = handle(be_i64(f, 0), be_i32(f, 8), "bitmap global index null rows")?;
    let nulls = bitmap(
        slice(file, no, nl, "bitmap global index null rows")?,
        "bitmap global index null rows",
    )?;
    let (io, il) = handle(
        be_i64(f, 24),
        be_i32(f, 32),
        "bitmap global index index block",
    )?;
    let value_count = be_i32(f, 36);
    let index = checked_block(
        file,
        io as usize,
        il as usize,
        "bitmap global index index block",
    )?;
    let mut c = Cursor::new(index, "bitmap global index index block");
    let blocks = c.var_len()?;
    let mut entries = Vec::new();
    for _ in 0..blocks {
        let kl = c.var_len()?;
        c.take(kl)?;
        let (offset, size) = c.handle()?;
        let dict = checked_block(file, offset, size, "bitmap global index dictionary block")?;
        let mut d = Cursor::new(dict, "bitmap global index dictionary block");
        let n = d.var_len()?;
        for _ in 0..n {
            let kl = d.var_len()?;
            let key = decode_key(d.take(kl)?, key_type)?;
            let (bo, bl) = d.handle()?;
            let rows = bitmap(
                slice(file, bo as u64, bl as u64, "bitmap global index key bitmap")?,
                "bitmap global index key bitmap",
            )?;
            entries.push((key, rows));
        }
    }
    if i64::from(value_count) != entries.len() as i64 {
        return Err(Error::corrupt(
            WHAT,
            format!(
                "footer counts {value_count} values, the dictionary holds {}",
                entries.len()
            ),
        ));
    }
    Ok(SortedIndex::new(entries, nulls))
}
