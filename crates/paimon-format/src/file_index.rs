//! File indexes: the per-data-file bloom filters and bitmap dictionaries Java writes into
//! `_EMBEDDED_FILE_INDEX` or a `<data file>.index` sidecar (Java `FileIndexFormat`,
//! `BloomFilterFileIndex`, `BitmapFileIndex`), and whether a predicate may match a file by them.
//!
//! ```text
//! container  magic i64 | version i32 (=1) | head length i32 | column count i32
//!            { column utf | index count i32 | { index type utf | start i32 | length i32 } }
//!            redundant length i32 | ... | bodies (start is absolute in the container)
//! bloom      num hash functions i32 BE | bit set bytes (bit i: byte i / 8, mask 1 << i % 8)
//! bitmap v1  version u8 | rows i32 | values i32 | has null u8 | [null offset i32]
//!            { value | offset i32 }
//! bitmap v2  version u8 | rows i32 | values i32 | has null u8 | [null offset, null length]
//!            block count i32 | { first value | block offset i32 } | blocks length i32
//!            blocks: { entry count i32 | { value | offset i32 | length i32 } }
//! ```
//!
//! Everything here is a pure function over untrusted bytes: malformed input gives a
//! [`FileIndexError`], never a panic, and work stays proportional to the input length.
//! Pruning only ever answers "no row can match" when the index proves it; types whose equality
//! the index cannot decide exactly as SQL does (floating point, decimals, CHAR padding) and
//! operators it does not cover always "may match".

use std::collections::HashMap;
use std::collections::HashSet;

use paimon_spec::binary::Datum;
use paimon_spec::predicate::{LeafOp, Predicate};
use paimon_spec::types::{DataType, TypeKind};

/// `FileIndexFormat.MAGIC`.
const MAGIC: i64 = 1_493_475_289_347_502;
/// Index type names as Java writes them (`BloomFilterFileIndexFactory.BLOOM_FILTER`,
/// `BitmapFileIndexFactory.BITMAP_INDEX`).
const BLOOM_FILTER: &str = "bloom-filter";
const BITMAP: &str = "bitmap";

/// Why file-index bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIndexError {
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for FileIndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "file index: {}", self.reason)
    }
}

impl std::error::Error for FileIndexError {}

fn err<T>(reason: impl Into<String>) -> Result<T, FileIndexError> {
    Err(FileIndexError {
        reason: reason.into(),
    })
}

/// A big-endian cursor over bytes (Java `DataInputStream`).
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn at(bytes: &'a [u8], pos: usize) -> Self {
        Cursor { bytes, pos }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], FileIndexError> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => err(format!(
                "truncated: {n} bytes wanted at offset {} of {}",
                self.pos,
                self.bytes.len()
            )),
        }
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FileIndexError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, FileIndexError> {
        Ok(self.array::<1>()?[0])
    }

    fn i16(&mut self) -> Result<i16, FileIndexError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32, FileIndexError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64, FileIndexError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// A non-negative `i32` as a length or offset.
    fn len(&mut self, what: &str) -> Result<usize, FileIndexError> {
        let v = self.i32()?;
        usize::try_from(v).or_else(|_| err(format!("negative {what} {v}")))
    }

    /// Java `DataInput.readUTF`: u16 length, then modified UTF-8 (plain UTF-8 for the ASCII
    /// column and index names Paimon writes).
    fn utf(&mut self) -> Result<String, FileIndexError> {
        let n = usize::from(u16::from_be_bytes(self.array()?));
        let b = self.take(n)?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => err("name is not UTF-8"),
        }
    }
}

/// The header of a file-index container: per column, per index type, its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct FileIndexFile<'a> {
    columns: HashMap<String, Vec<(String, &'a [u8])>>,
}

impl<'a> FileIndexFile<'a> {
    /// Decodes the container header of `bytes` (the embedded index or a sidecar file).
    ///
    /// # Errors
    /// Wrong magic or version, a truncated header, or an index body outside `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, FileIndexError> {
        let mut c = Cursor::at(bytes, 0);
        let magic = c.i64()?;
        if magic != MAGIC {
            return err(format!("bad magic {magic}"));
        }
        let version = c.i32()?;
        if version != 1 {
            return err(format!("unsupported container version {version}"));
        }
        let _head_length = c.i32()?;
        let column_count = c.len("column count")?;
        let mut columns: HashMap<String, Vec<(String, &'a [u8])>> = HashMap::new();
        for _ in 0..column_count {
            let column = c.utf()?;
            let index_count = c.len("index count")?;
            for _ in 0..index_count {
                let index_type = c.utf()?;
                let start = c.len("index start")?;
                let length = c.len("index length")?;
                let body = start
                    .checked_add(length)
                    .and_then(|end| bytes.get(start..end));
                let Some(body) = body else {
                    return err(format!(
                        "index {index_type} of column {column} at {start}+{length} is outside \
                         the {} bytes",
                        bytes.len()
                    ));
                };
                columns
                    .entry(column.clone())
                    .or_default()
                    .push((index_type, body));
            }
        }
        Ok(FileIndexFile { columns })
    }

    /// The indexes of `column` as (index type, bytes).
    pub fn indexes(&self, column: &str) -> &[(String, &'a [u8])] {
        self.columns.get(column).map_or(&[], Vec::as_slice)
    }
}

/// Java `BloomFilter64` as stored by `BloomFilterFileIndex`.
#[derive(Debug, Clone, PartialEq)]
pub struct BloomFilter64<'a> {
    num_hash_functions: i32,
    words: &'a [u8],
    num_bits: i32,
}

impl<'a> BloomFilter64<'a> {
    /// Decodes a bloom-filter index body.
    ///
    /// # Errors
    /// Fewer than 4 bytes, a bit set that is empty or too large for Java's `int` bit index, or
    /// more hash functions than bits (each test would loop that often).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, FileIndexError> {
        let mut c = Cursor::at(bytes, 0);
        let num_hash_functions = c.i32()?;
        let words = &bytes[c.pos..];
        let num_bits = words
            .len()
            .checked_mul(8)
            .and_then(|b| i32::try_from(b).ok())
            .filter(|b| *b > 0);
        let Some(num_bits) = num_bits else {
            return err(format!("bloom filter with {} bit-set bytes", words.len()));
        };
        // Java sizes k as about 0.7 bits per item, so a filter never has more hash functions
        // than bits; more would only make each test loop up to 2^31 times on damaged bytes.
        if num_hash_functions > num_bits {
            return err(format!(
                "bloom filter with {num_hash_functions} hash functions over {num_bits} bits"
            ));
        }
        Ok(BloomFilter64 {
            num_hash_functions,
            words,
            num_bits,
        })
    }

    /// Java `BloomFilter64.testHash`: false means the value was never added.
    pub fn test_hash(&self, hash64: i64) -> bool {
        let hash1 = hash64 as i32;
        let hash2 = ((hash64 as u64) >> 32) as i32;
        for i in 1..=self.num_hash_functions {
            let mut combined = hash1.wrapping_add(i.wrapping_mul(hash2));
            if combined < 0 {
                combined = !combined;
            }
            // combined >= 0 and num_bits > 0, so the index is in range.
            let pos = (combined % self.num_bits) as usize;
            let bit = self
                .words
                .get(pos / 8)
                .is_some_and(|b| b & (1 << (pos % 8)) != 0);
            if !bit {
                return false;
            }
        }
        true
    }
}

/// Java `FastHash` for one value of `ty`, or `None` where a bloom filter cannot decide SQL
/// equality exactly (floating point: 0.0 = -0.0 hash differently) or the type has no hash.
pub fn fast_hash(ty: &DataType, v: &Datum) -> Option<i64> {
    let int = |v: &Datum| -> Option<i64> {
        match v {
            Datum::TinyInt(_) | Datum::SmallInt(_) | Datum::Int(_) | Datum::BigInt(_) => v.as_i64(),
            _ => None,
        }
    };
    match (&ty.kind, v) {
        (TypeKind::TinyInt, _) => int(v).filter(|x| i8::try_from(*x).is_ok()).map(long_hash),
        (TypeKind::SmallInt, _) => int(v).filter(|x| i16::try_from(*x).is_ok()).map(long_hash),
        (TypeKind::Int, _) => int(v).filter(|x| i32::try_from(*x).is_ok()).map(long_hash),
        (TypeKind::BigInt, _) => int(v).map(long_hash),
        (TypeKind::Date, Datum::Date(d)) => Some(long_hash(i64::from(*d))),
        (TypeKind::Time { .. }, Datum::Time(t)) => Some(long_hash(i64::from(*t))),
        (TypeKind::VarChar { .. }, Datum::String(s)) => Some(xxh64(s.as_bytes()) as i64),
        (TypeKind::Binary { .. } | TypeKind::VarBinary { .. }, Datum::Binary(b)) => {
            Some(xxh64(b) as i64)
        }
        (TypeKind::Timestamp { precision }, Datum::Timestamp { millis, nanos })
        | (
            TypeKind::LocalZonedTimestamp { precision },
            Datum::LocalZonedTimestamp { millis, nanos },
        ) => {
            if *precision <= 3 {
                Some(long_hash(*millis))
            } else {
                let micros = millis
                    .checked_mul(1000)?
                    .checked_add(i64::from(*nanos) / 1000)?;
                Some(long_hash(micros))
            }
        }
        _ => None,
    }
}

/// Thomas Wang's 64-bit integer hash (Java `FastHash.getLongHash`, arithmetic shifts).
fn long_hash(key: i64) -> i64 {
    let mut key = (!key).wrapping_add(key.wrapping_shl(21));
    key ^= key >> 24;
    key = key
        .wrapping_add(key.wrapping_shl(3))
        .wrapping_add(key.wrapping_shl(8));
    key ^= key >> 14;
    key = key
        .wrapping_add(key.wrapping_shl(2))
        .wrapping_add(key.wrapping_shl(4));
    key ^= key >> 28;
    key.wrapping_add(key.wrapping_shl(31))
}

/// XXH64 with seed 0 (what Java's `LongHashFunction.xx()` computes).
pub fn xxh64(data: &[u8]) -> u64 {
    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const P3: u64 = 0x1656_67B1_9E37_79F9;
    const P4: u64 = 0x85EB_CA77_C2B2_AE63;
    const P5: u64 = 0x27D4_EB2F_1656_67C5;
    fn round(acc: u64, lane: u64) -> u64 {
        acc.wrapping_add(lane.wrapping_mul(P2))
            .rotate_left(31)
            .wrapping_mul(P1)
    }
    fn merge(acc: u64, v: u64) -> u64 {
        (acc ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4)
    }
    let word = |b: &[u8]| -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        u64::from_le_bytes(a)
    };
    let half = |b: &[u8]| -> u64 {
        let mut a = [0u8; 4];
        a.copy_from_slice(&b[..4]);
        u64::from(u32::from_le_bytes(a))
    };
    let mut rest = data;
    let mut h = if data.len() >= 32 {
        let mut v = [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)];
        while rest.len() >= 32 {
            for (i, acc) in v.iter_mut().enumerate() {
                *acc = round(*acc, word(&rest[i * 8..]));
            }
            rest = &rest[32..];
        }
        let mut h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        for acc in v {
            h = merge(h, acc);
        }
        h
    } else {
        P5
    };
    h = h.wrapping_add(data.len() as u64);
    while rest.len() >= 8 {
        h ^= round(0, word(rest));
        h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
        rest = &rest[8..];
    }
    if rest.len() >= 4 {
        h ^= half(rest).wrapping_mul(P1);
        h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        rest = &rest[4..];
    }
    for b in rest {
        h ^= u64::from(*b).wrapping_mul(P5);
        h = h.rotate_left(11).wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// A bitmap dictionary key, compared as Java's `HashMap` keys are (exact values).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum BitmapKey {
    Bytes(Vec<u8>),
    Int(i64),
    Bool(bool),
}

/// How a bitmap index of one column type stores its values; `None` for types whose SQL
/// equality the dictionary cannot decide exactly (floating point, CHAR padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyCodec {
    String,
    Byte,
    Short,
    Int,
    Long,
    Bool,
    /// Stored but not usable for pruning (FLOAT / DOUBLE / CHAR): parsed to skip past it.
    Skip(usize),
    SkipString,
}

impl KeyCodec {
    fn of(ty: &DataType) -> Option<KeyCodec> {
        Some(match &ty.kind {
            TypeKind::VarChar { .. } => KeyCodec::String,
            TypeKind::Char { .. } => KeyCodec::SkipString,
            TypeKind::Boolean => KeyCodec::Bool,
            TypeKind::TinyInt => KeyCodec::Byte,
            TypeKind::SmallInt => KeyCodec::Short,
            TypeKind::Int | TypeKind::Date | TypeKind::Time { .. } => KeyCodec::Int,
            TypeKind::BigInt => KeyCodec::Long,
            TypeKind::Float => KeyCodec::Skip(4),
            TypeKind::Double => KeyCodec::Skip(8),
            _ => return None,
        })
    }

    fn read(self, c: &mut Cursor<'_>) -> Result<Option<BitmapKey>, FileIndexError> {
        Ok(match self {
            KeyCodec::String => {
                let n = c.len("string length")?;
                Some(BitmapKey::Bytes(c.take(n)?.to_vec()))
            }
            KeyCodec::SkipString => {
                let n = c.len("string length")?;
                c.take(n)?;
                None
            }
            KeyCodec::Byte => Some(BitmapKey::Int(i64::from(c.u8()? as i8))),
            KeyCodec::Short => Some(BitmapKey::Int(i64::from(c.i16()?))),
            KeyCodec::Int => Some(BitmapKey::Int(i64::from(c.i32()?))),
            KeyCodec::Long => Some(BitmapKey::Int(c.i64()?)),
            KeyCodec::Bool => Some(BitmapKey::Bool(c.u8()? != 0)),
            KeyCodec::Skip(n) => {
                c.take(n)?;
                None
            }
        })
    }

    /// The dictionary key a literal would have, `None` when it cannot be stored in this type.
    fn key_of(self, v: &Datum) -> Option<BitmapKey> {
        let int = |lo: i64, hi: i64| match v {
            Datum::TinyInt(_) | Datum::SmallInt(_) | Datum::Int(_) | Datum::BigInt(_) => v
                .as_i64()
                .filter(|x| (lo..=hi).contains(x))
                .map(BitmapKey::Int),
            Datum::Date(d) | Datum::Time(d) if self == KeyCodec::Int => {
                Some(BitmapKey::Int(i64::from(*d)))
            }
            _ => None,
        };
        match self {
            KeyCodec::String => match v {
                Datum::String(s) => Some(BitmapKey::Bytes(s.as_bytes().to_vec())),
                _ => None,
            },
            KeyCodec::Bool => match v {
                Datum::Boolean(b) => Some(BitmapKey::Bool(*b)),
                _ => None,
            },
            KeyCodec::Byte => int(i64::from(i8::MIN), i64::from(i8::MAX)),
            KeyCodec::Short => int(i64::from(i16::MIN), i64::from(i16::MAX)),
            KeyCodec::Int => int(i64::from(i32::MIN), i64::from(i32::MAX)),
            KeyCodec::Long => int(i64::MIN, i64::MAX),
            KeyCodec::Skip(_) | KeyCodec::SkipString => None,
        }
    }
}

/// The dictionary of a bitmap index (`BitmapFileIndexMeta` V1 / V2): which values and whether
/// a null occur in the file. The bitmaps themselves are not needed to prune a whole file.
#[derive(Debug, Clone, PartialEq)]
pub struct BitmapDictionary {
    codec: Option<KeyCodec>,
    has_null: bool,
    values: HashSet<BitmapKey>,
}

impl BitmapDictionary {
    /// Decodes the dictionary of a bitmap index body for a column of type `ty`.
    ///
    /// # Errors
    /// An unknown version, a truncated dictionary, or more entries than the bytes can hold.
    pub fn parse(bytes: &[u8], ty: &DataType) -> Result<Self, FileIndexError> {
        let Some(codec) = KeyCodec::of(ty) else {
            // A type Java cannot index: nothing to learn from the bytes.
            return Ok(BitmapDictionary {
                codec: None,
                has_null: true,
                values: HashSet::new(),
            });
        };
        let mut c = Cursor::at(bytes, 0);
        let version = c.u8()?;
        let _rows = c.i32()?;
        let value_count = c.len("value count")?;
        let has_null = c.u8()? != 0;
        let mut values = HashSet::new();
        // Every entry takes at least 5 bytes (V1) or 9 (V2 blocks), so the bytes bound the work.
        let mut budget = bytes.len();
        let spend = |budget: &mut usize| -> Result<(), FileIndexError> {
            *budget = budget
                .checked_sub(1)
                .map_or_else(|| err("more dictionary entries than bytes"), Ok)?;
            Ok(())
        };
        match version {
            1 => {
                if has_null {
                    c.i32()?;
                }
                for _ in 0..value_count {
                    spend(&mut budget)?;
                    if let Some(k) = codec.read(&mut c)? {
                        values.insert(k);
                    }
                    c.i32()?;
                }
            }
            2 => {
                if has_null {
                    c.i32()?;
                    c.i32()?;
                }
                let block_count = c.len("block count")?;
                let mut offsets = Vec::new();
                for _ in 0..block_count {
                    spend(&mut budget)?;
                    codec.read(&mut c)?;
                    offsets.push(c.len("block offset")?);
                }
                let _blocks_length = c.len("blocks length")?;
                let blocks_start = c.pos;
                offsets.sort_unstable();
                offsets.dedup();
                for off in offsets {
                    let Some(at) = blocks_start.checked_add(off) else {
                        return err(format!("block offset {off} overflows"));
                    };
                    let mut b = Cursor::at(bytes, at);
                    let entries = b.len("block entry count")?;
                    for _ in 0..entries {
                        spend(&mut budget)?;
                        if let Some(k) = codec.read(&mut b)? {
                            values.insert(k);
                        }
                        b.i32()?;
                        b.i32()?;
                    }
                }
            }
            v => return err(format!("unsupported bitmap index version {v}")),
        }
        Ok(BitmapDictionary {
            codec: Some(codec),
            has_null,
            values,
        })
    }

    /// False when no row of the file can satisfy `column op literals` by this dictionary.
    fn may_match(&self, op: LeafOp, literals: &[Datum]) -> bool {
        let Some(codec) = self.codec else {
            return true;
        };
        let contains = |v: &Datum| {
            if v.is_null() {
                // `col = NULL` holds for no row, but Java keeps the file: stay conservative.
                return true;
            }
            // A literal of another kind (or out of the column's range) is not judged.
            codec.key_of(v).is_none_or(|k| self.values.contains(&k))
        };
        match op {
            LeafOp::IsNull => self.has_null,
            LeafOp::Eq => literals.first().is_none_or(contains),
            LeafOp::In => literals.is_empty() || literals.iter().any(contains),
            _ => true,
        }
    }
}

/// Whether a file whose index is `index` may hold a row matching `pred`. `column` maps a
/// predicate column to its name and type in the file's schema (`None`: not in the file, or its
/// type changed), which is how Java looks the column up in the index.
///
/// # Errors
/// A malformed container or index body.
pub fn may_match(
    pred: &Predicate,
    index: &FileIndexFile<'_>,
    column: &dyn Fn(&str) -> Option<(String, DataType)>,
) -> Result<bool, FileIndexError> {
    Ok(match pred {
        Predicate::AlwaysTrue => true,
        Predicate::AlwaysFalse => false,
        Predicate::And(c) => {
            for p in c {
                if !may_match(p, index, column)? {
                    return Ok(false);
                }
            }
            true
        }
        Predicate::Or(c) => {
            for p in c {
                if may_match(p, index, column)? {
                    return Ok(true);
                }
            }
            c.is_empty()
        }
        // A NOT over an index answer is not an index answer ("no row equals 5" says nothing
        // about "some row differs from 5").
        Predicate::Not(_) => true,
        Predicate::Leaf {
            column: name,
            op,
            literals,
        } => {
            let Some((file_name, ty)) = column(name) else {
                return Ok(true);
            };
            for (index_type, bytes) in index.indexes(&file_name) {
                let keep = match index_type.as_str() {
                    BLOOM_FILTER => {
                        bloom_may_match(&BloomFilter64::parse(bytes)?, &ty, *op, literals)
                    }
                    BITMAP => BitmapDictionary::parse(bytes, &ty)?.may_match(*op, literals),
                    _ => true,
                };
                if !keep {
                    return Ok(false);
                }
            }
            true
        }
    })
}

fn bloom_may_match(
    bloom: &BloomFilter64<'_>,
    ty: &DataType,
    op: LeafOp,
    literals: &[Datum],
) -> bool {
    let test = |v: &Datum| fast_hash(ty, v).is_none_or(|h| bloom.test_hash(h));
    match op {
        LeafOp::Eq => literals.first().is_none_or(test),
        LeafOp::In => literals.is_empty() || literals.iter().any(test),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(kind: TypeKind) -> DataType {
        DataType {
            nullable: true,
            kind,
        }
    }

    /// Values computed by Java (`LongHashFunction.xx().hashBytes`, `FastHash.getLongHash`).
    #[test]
    fn hashes_match_java() {
        let xx = |s: &str| xxh64(s.as_bytes()) as i64;
        assert_eq!(xx(""), -1_205_034_819_632_174_695);
        assert_eq!(xx("a"), -3_292_477_735_350_538_661);
        assert_eq!(xx("abc"), 4_952_883_123_889_572_249);
        assert_eq!(xx("n1005"), 7_883_765_310_837_313_980);
        assert_eq!(
            xx("0123456789abcdef0123456789abcdefXYZ0123"),
            -4_902_413_596_343_207_754
        );
        assert_eq!(long_hash(0), 0);
        assert_eq!(long_hash(1), 6_614_235_796_240_398_542);
        assert_eq!(long_hash(-1), 6_614_246_905_173_314_819);
        assert_eq!(long_hash(2007), -771_731_006_983_742_754);
        assert_eq!(long_hash(i64::MIN), 4_316_648_529_147_585_864);
    }

    fn container(columns: &[(&str, &str, &[u8])]) -> Vec<u8> {
        let mut head = Vec::new();
        head.extend_from_slice(&(columns.len() as i32).to_be_bytes());
        let names: usize = columns
            .iter()
            .map(|(c, t, _)| 2 + c.len() + 2 + t.len())
            .sum();
        let head_len = 8 + 4 + 4 + 4 + columns.len() * (4 + 8) + 4 + names;
        let mut body = Vec::new();
        for (c, t, b) in columns {
            head.extend_from_slice(&(c.len() as u16).to_be_bytes());
            head.extend_from_slice(c.as_bytes());
            head.extend_from_slice(&1i32.to_be_bytes());
            head.extend_from_slice(&(t.len() as u16).to_be_bytes());
            head.extend_from_slice(t.as_bytes());
            head.extend_from_slice(&((head_len + body.len()) as i32).to_be_bytes());
            head.extend_from_slice(&(b.len() as i32).to_be_bytes());
            body.extend_from_slice(b);
        }
        head.extend_from_slice(&0i32.to_be_bytes());
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC.to_be_bytes());
        out.extend_from_slice(&1i32.to_be_bytes());
        out.extend_from_slice(&(head_len as i32).to_be_bytes());
        out.extend_from_slice(&head);
        assert_eq!(out.len(), head_len);
        out.extend_from_slice(&body);
        out
    }

    fn bitmap_v1(values: &[&str], has_null: bool) -> Vec<u8> {
        let mut b = vec![1u8];
        b.extend_from_slice(&10i32.to_be_bytes());
        b.extend_from_slice(&(values.len() as i32).to_be_bytes());
        b.push(u8::from(has_null));
        if has_null {
            b.extend_from_slice(&(-1i32).to_be_bytes());
        }
        for (i, v) in values.iter().enumerate() {
            b.extend_from_slice(&(v.len() as i32).to_be_bytes());
            b.extend_from_slice(v.as_bytes());
            b.extend_from_slice(&(i as i32 * 10).to_be_bytes());
        }
        b
    }

    #[test]
    fn bitmap_dictionary_prunes_absent_values_only() {
        let bytes = container(&[("c", "bitmap", &bitmap_v1(&["red", "blue"], false))]);
        let idx = FileIndexFile::parse(&bytes).unwrap();
        let col =
            |n: &str| (n == "c").then(|| ("c".to_string(), ty(TypeKind::VarChar { length: 10 })));
        let eq = |v: &str| Predicate::leaf("c", LeafOp::Eq, vec![Datum::String(v.into())]);
        assert!(may_match(&eq("red"), &idx, &col).unwrap());
        assert!(!may_match(&eq("green"), &idx, &col).unwrap());
        assert!(!may_match(&Predicate::leaf("c", LeafOp::IsNull, vec![]), &idx, &col).unwrap());
        assert!(may_match(&Predicate::Or(vec![eq("green"), eq("blue")]), &idx, &col).unwrap());
        assert!(may_match(&Predicate::Not(Box::new(eq("red"))), &idx, &col).unwrap());
        assert!(may_match(
            &Predicate::leaf("other", LeafOp::Eq, vec![Datum::Int(1)]),
            &idx,
            &col
        )
        .unwrap());
    }

    #[test]
    fn bloom_filter_round_trip() {
        // A 128-bit filter with 2 hash functions holding 42, built as Java's addHash does.
        let mut words = [0u8; 16];
        let h = fast_hash(&ty(TypeKind::Int), &Datum::Int(42)).unwrap();
        let (h1, h2) = (h as i32, ((h as u64) >> 32) as i32);
        for i in 1..=2 {
            let mut c = h1.wrapping_add(i * h2);
            if c < 0 {
                c = !c;
            }
            let pos = (c % 128) as usize;
            words[pos / 8] |= 1 << (pos % 8);
        }
        let mut body = 2i32.to_be_bytes().to_vec();
        body.extend_from_slice(&words);
        let bloom = BloomFilter64::parse(&body).unwrap();
        assert!(bloom.test_hash(h));
        let misses = (0..1000)
            .filter(|v| !bloom.test_hash(fast_hash(&ty(TypeKind::Int), &Datum::Int(*v)).unwrap()))
            .count();
        assert!(misses > 900);
    }

    #[test]
    fn malformed_bytes_are_errors_not_panics() {
        let good = container(&[("c", "bitmap", &bitmap_v1(&["red"], true))]);
        let t = ty(TypeKind::VarChar { length: 10 });
        for n in 0..good.len() {
            let _ = FileIndexFile::parse(&good[..n]);
        }
        let body = bitmap_v1(&["red", "blue"], true);
        for n in 0..body.len() {
            let _ = BitmapDictionary::parse(&body[..n], &t);
        }
        // A huge declared count with few bytes ends at the bytes, not in an allocation.
        let mut huge = vec![1u8];
        huge.extend_from_slice(&0i32.to_be_bytes());
        huge.extend_from_slice(&i32::MAX.to_be_bytes());
        huge.push(0);
        assert!(BitmapDictionary::parse(&huge, &t).is_err());
        assert!(BloomFilter64::parse(&[0, 0, 0, 1]).is_err());
        // 2^31 - 1 hash functions over 16 bits: refused, not tested 2^31 times per value.
        let mut many = i32::MAX.to_be_bytes().to_vec();
        many.extend_from_slice(&[0xff, 0xff]);
        let e = BloomFilter64::parse(&many).unwrap_err();
        assert!(
            e.reason.contains("2147483647 hash functions over 16 bits"),
            "{e}"
        );
        let mut sixteen = 16i32.to_be_bytes().to_vec();
        sixteen.extend_from_slice(&[0xff, 0xff]);
        assert!(BloomFilter64::parse(&sixteen).unwrap().test_hash(12345));
        assert!(FileIndexFile::parse(&[0xff; 64]).is_err());
    }
}
