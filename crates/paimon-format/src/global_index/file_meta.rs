//! The `_INDEX_META` bytes of a BTree or bitmap global index file's manifest entry (Java
//! `SortedIndexFileMeta`): the first and last keys, whether the file holds NULLs, and the
//! null-key flags of format version 1.

use super::block::Cursor;
use crate::error::{Error, Result};

const WHAT: &str = "sorted global index meta";
const FORMAT_VERSION_WITH_NULL_FLAGS: u8 = 1;
const FIRST_KEY_IS_NULL: u8 = 1;
const LAST_KEY_IS_NULL: u8 = 2;

/// First and last serialized keys of a sorted global index file (`None` when it holds only
/// NULLs) and whether it holds NULL rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedIndexFileMeta {
    /// The smallest key.
    pub first_key: Option<Vec<u8>>,
    /// The largest key.
    pub last_key: Option<Vec<u8>>,
    /// Whether some row holds NULL.
    pub has_nulls: bool,
}

impl SortedIndexFileMeta {
    /// The bytes Java and pypaimon store: little-endian lengths before each key, the null
    /// flag, the format version and the null-key flags.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut flags = 0;
        for (key, flag) in [
            (&self.first_key, FIRST_KEY_IS_NULL),
            (&self.last_key, LAST_KEY_IS_NULL),
        ] {
            match key {
                Some(k) => {
                    out.extend_from_slice(&(k.len() as u32).to_le_bytes());
                    out.extend_from_slice(k);
                }
                None => {
                    out.extend_from_slice(&0u32.to_le_bytes());
                    flags |= flag;
                }
            }
        }
        out.push(u8::from(self.has_nulls));
        out.push(FORMAT_VERSION_WITH_NULL_FLAGS);
        out.push(flags);
        out
    }

    /// Reads [`SortedIndexFileMeta::encode`]'s bytes (and the older form without flags).
    ///
    /// # Errors
    /// `Corrupt` when a length runs past the end.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut c = Cursor::new(bytes, WHAT);
        let key = |c: &mut Cursor<'_>| -> Result<Vec<u8>> {
            let len = c.take(4)?;
            let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
            Ok(c.take(len)?.to_vec())
        };
        let first = key(&mut c)?;
        let last = key(&mut c)?;
        let has_nulls = c
            .take(1)
            .map_err(|_| Error::corrupt(WHAT, "no null flag"))?[0]
            == 1;
        let rest = &bytes[c.pos..];
        let (mut first, mut last) = (Some(first), Some(last));
        if rest.len() >= 2 && rest[0] == FORMAT_VERSION_WITH_NULL_FLAGS {
            if rest[1] & FIRST_KEY_IS_NULL != 0 {
                first = None;
            }
            if rest[1] & LAST_KEY_IS_NULL != 0 {
                last = None;
            }
        } else if rest.len() < 2
            && has_nulls
            && first.as_ref().is_some_and(Vec::is_empty)
            && last.as_ref().is_some_and(Vec::is_empty)
        {
            first = None;
            last = None;
        }
        Ok(SortedIndexFileMeta {
            first_key: first,
            last_key: last,
            has_nulls,
        })
    }
}
