//! A minimal Avro object-container reader (Java writes manifests with `DataFileWriter`).
//!
//! ```text
//! "Obj\x01" | metadata map {avro.schema, avro.codec} | 16-byte sync
//! { count: long | size: long | block bytes (codec-compressed) | sync }*
//! ```
//!
//! Supports the codecs Paimon writes: `null`, `deflate` (raw deflate), `snappy` (with a
//! 4-byte big-endian CRC32 of the uncompressed block) and `zstandard`. Decoding is pure: bytes
//! in, [`Value`] records out; every length is checked and bad bytes give a reason, never a panic.

use crate::error::{Error, Result};

pub mod container;
mod decode;
pub mod encode;
mod schema;

use std::io::Read;

pub use decode::Cursor;
pub use schema::{RecordSchema, Schema};

use crate::value::Value;

/// The container magic.
pub use container::MAGIC;

/// Largest decompressed block accepted, to bound memory on corrupt input.
const MAX_BLOCK_SIZE: usize = 1 << 30;

/// The least [`InflateBudget`] of a file, whatever its size.
pub const MIN_INFLATE_BUDGET: usize = 64 << 20;

/// How many times its own size a file's compressed blocks may inflate to together, beyond
/// [`MIN_INFLATE_BUDGET`]. Manifest entries compress about 5 to 15 times (each names a
/// random file name and carries statistics), so 64 leaves a wide margin for real files while
/// a decompression bomb (deflate reaches 1032:1, zstd far more on zeros) is stopped at 64 MiB
/// for any file up to 1 MiB, and at 512 MiB for an 8 MiB manifest (Paimon's target size).
pub const INFLATE_RATIO: usize = 64;

/// The bytes all the compressed blocks of one container file may inflate to together:
/// `max(MIN_INFLATE_BUDGET, INFLATE_RATIO × file size)`, and no more than the memory pool
/// has free when the file is opened ([`InflateBudget::for_file_within`]). Shared by the
/// threads decoding the file's blocks in parallel, so a file of many blocks cannot make each
/// thread inflate the per-block limit (1 GiB) at once.
#[derive(Debug)]
pub struct InflateBudget {
    remaining: std::sync::atomic::AtomicUsize,
    limit: usize,
    file_len: usize,
    /// The pool's free bytes, when they bound the budget below the file's own.
    pool_free: Option<usize>,
    /// Whether a take was refused.
    exhausted: std::sync::atomic::AtomicBool,
}

impl InflateBudget {
    /// The budget of a container of `file_len` bytes.
    pub fn for_file(file_len: usize) -> Self {
        Self::with_limit(
            file_len,
            file_len
                .saturating_mul(INFLATE_RATIO)
                .max(MIN_INFLATE_BUDGET),
        )
    }

    /// The budget of a container of `file_len` bytes read within a memory pool with
    /// `pool_free` bytes free (`None`: no limit): the smaller of [`InflateBudget::for_file`]
    /// and `pool_free`.
    pub fn for_file_within(file_len: usize, pool_free: Option<usize>) -> Self {
        let mut budget = Self::for_file(file_len);
        if let Some(free) = pool_free.filter(|f| *f < budget.limit) {
            budget = Self::with_limit(file_len, free);
            budget.pool_free = Some(free);
        }
        budget
    }

    /// A budget of exactly `limit` bytes for a file of `file_len` bytes.
    pub fn with_limit(file_len: usize, limit: usize) -> Self {
        InflateBudget {
            remaining: std::sync::atomic::AtomicUsize::new(limit),
            limit,
            file_len,
            pool_free: None,
            exhausted: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// A fresh budget of the same limit, for decoding the same file again.
    pub fn renewed(&self) -> Self {
        InflateBudget {
            remaining: std::sync::atomic::AtomicUsize::new(self.limit),
            limit: self.limit,
            file_len: self.file_len,
            pool_free: self.pool_free,
            exhausted: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The whole budget in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The memory pool's free bytes when they, not the file's size, set the budget.
    pub fn pool_free(&self) -> Option<usize> {
        self.pool_free
    }

    /// Whether the blocks asked for more than the budget.
    pub fn exhausted(&self) -> bool {
        self.exhausted.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Takes `n` inflated bytes from the budget.
    ///
    /// # Errors
    /// A reason naming the budget when fewer than `n` bytes are left.
    fn take(&self, n: usize) -> Result<()> {
        use std::sync::atomic::Ordering;
        self.remaining
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |r| r.checked_sub(n))
            .map(|_| ())
            .map_err(|_| {
                self.exhausted.store(true, Ordering::Release);
                bad(self.reason())
            })
    }

    /// Why a take was refused.
    pub fn reason(&self) -> String {
        match self.pool_free {
            Some(free) => format!(
                "the compressed blocks inflate beyond {} bytes, the memory pool's free bytes \
                 when the {}-byte file was opened (the file's own budget is max({MIN_INFLATE_BUDGET}, \
                 {INFLATE_RATIO} x its size))",
                free, self.file_len
            ),
            None => format!(
                "the compressed blocks inflate beyond {} bytes, the budget of a {}-byte \
                 file (max({MIN_INFLATE_BUDGET}, {INFLATE_RATIO} x its size)): a \
                 decompression bomb or a corrupt file",
                self.limit, self.file_len
            ),
        }
    }
}

/// A reader whose every byte is taken from an [`InflateBudget`].
struct Budgeted<'b, R> {
    inner: R,
    budget: &'b InflateBudget,
}

impl<R: Read> Read for Budgeted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.budget.take(n).map_err(std::io::Error::other)?;
        Ok(n)
    }
}

/// A parsed container header.
#[derive(Debug, Clone)]
pub struct Header {
    /// The writer schema.
    pub schema: Schema,
    /// The codec name (`null` when absent).
    pub codec: String,
    /// The 16-byte sync marker.
    pub sync: [u8; 16],
}

/// Decodes every record of an Avro object-container file.
///
/// # Errors
/// A reason string when the bytes are not a valid container; callers add the file path.
pub fn read_container(bytes: &[u8]) -> Result<Vec<Value>> {
    read_container_within(bytes, &InflateBudget::for_file(bytes.len()))
}

/// [`read_container`] with the blocks' inflated bytes taken from `budget`.
///
/// # Errors
/// As [`read_container`], and when the blocks inflate beyond `budget`.
pub fn read_container_within(bytes: &[u8], budget: &InflateBudget) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for_each_record_within(bytes, budget, |v| {
        out.push(v);
        Ok(())
    })?;
    Ok(out)
}

/// Decodes the records of a container one at a time.
///
/// # Errors
/// A reason string when the bytes are not a valid container, or the callback's error.
pub fn for_each_record(bytes: &[u8], f: impl FnMut(Value) -> Result<()>) -> Result<()> {
    for_each_record_within(bytes, &InflateBudget::for_file(bytes.len()), f)
}

/// [`for_each_record`] with the blocks' inflated bytes taken from `budget`.
///
/// # Errors
/// As [`for_each_record`].
pub fn for_each_record_within(
    bytes: &[u8],
    budget: &InflateBudget,
    mut f: impl FnMut(Value) -> Result<()>,
) -> Result<()> {
    for_each_block_within(
        bytes,
        budget,
        |h| Ok(h.schema.clone()),
        |schema, bc, count| {
            for _ in 0..count {
                f(bc.read_value(schema)?)?;
            }
            Ok(())
        },
    )
}

/// Walks the blocks of a container: `plan` is called once with the header (to resolve the
/// writer schema into whatever the caller decodes with), then `on_block` once per block with a
/// cursor over the decompressed bytes and the record count. `on_block` must consume exactly the
/// block's records; trailing bytes are an error.
///
/// # Errors
/// A reason string when the bytes are not a valid container, or the callbacks' errors.
pub fn for_each_block<P>(
    bytes: &[u8],
    plan: impl FnOnce(&Header) -> Result<P>,
    on_block: impl FnMut(&P, &mut Cursor<'_>, usize) -> Result<()>,
) -> Result<()> {
    for_each_block_within(bytes, &InflateBudget::for_file(bytes.len()), plan, on_block)
}

/// [`for_each_block`] with the blocks' inflated bytes taken from `budget`.
///
/// # Errors
/// As [`for_each_block`], and when the blocks inflate beyond `budget`.
pub fn for_each_block_within<P>(
    bytes: &[u8],
    budget: &InflateBudget,
    plan: impl FnOnce(&Header) -> Result<P>,
    mut on_block: impl FnMut(&P, &mut Cursor<'_>, usize) -> Result<()>,
) -> Result<()> {
    let mut c = Cursor::new(bytes);
    let header = read_header(&mut c)?;
    let p = plan(&header)?;
    let zero_width = header.schema.can_be_empty();
    let mut zero_width_records = 0usize;
    while c.remaining() > 0 {
        let count = c.read_long()?;
        let count =
            usize::try_from(count).map_err(|_| bad(format!("negative block count {count}")))?;
        let data = c.read_bytes()?;
        let sync = c.take(16)?;
        if sync != header.sync {
            return Err(bad(format!(
                "sync marker mismatch before offset {}",
                c.pos()
            )));
        }
        let block = decompress(&header.codec, data, budget)?;
        let mut bc = Cursor::new(&block);
        if zero_width {
            // Records that may take no bytes cannot be bounded by the block size; bound them
            // over the whole file as empty array items are bounded.
            zero_width_records = zero_width_records.saturating_add(count);
            if zero_width_records > decode::MAX_EMPTY_ITEMS {
                return Err(bad(format!(
                    "blocks claim {zero_width_records} records of a schema that may encode in \
                     zero bytes; at most {} are accepted",
                    decode::MAX_EMPTY_ITEMS
                )));
            }
        } else if count > block.len() {
            return Err(bad(format!(
                "block claims {count} records in {} bytes",
                block.len()
            )));
        }
        on_block(&p, &mut bc, count)?;
        if bc.remaining() != 0 {
            return Err(bad(format!("{} trailing bytes in a block", bc.remaining())));
        }
    }
    Ok(())
}

/// One block of a container, located but not decompressed: `count` records in
/// `bytes[start..end]` (codec-compressed).
#[derive(Debug, Clone, Copy)]
pub struct BlockSpan {
    /// Records in the block.
    pub count: usize,
    /// Start of the compressed block bytes.
    pub start: usize,
    /// End of the compressed block bytes.
    pub end: usize,
}

/// Reads the header and locates every block (checking each sync marker) without decompressing
/// any, so that blocks can be decoded independently with [`decode_block`].
///
/// # Errors
/// A reason string when the container framing is invalid.
pub fn locate_blocks(bytes: &[u8]) -> Result<(Header, Vec<BlockSpan>)> {
    let mut c = Cursor::new(bytes);
    let header = read_header(&mut c)?;
    let zero_width = header.schema.can_be_empty();
    let mut records = 0usize;
    let mut spans = Vec::new();
    while c.remaining() > 0 {
        let count = c.read_long()?;
        let count =
            usize::try_from(count).map_err(|_| bad(format!("negative block count {count}")))?;
        let data = c.read_bytes()?;
        let end = c.pos();
        let start = end - data.len();
        let sync = c.take(16)?;
        if sync != header.sync {
            return Err(bad(format!(
                "sync marker mismatch before offset {}",
                c.pos()
            )));
        }
        records = records.saturating_add(count);
        if zero_width && records > decode::MAX_EMPTY_ITEMS {
            return Err(bad(format!(
                "blocks claim {records} records of a schema that may encode in zero bytes; at \
                 most {} are accepted",
                decode::MAX_EMPTY_ITEMS
            )));
        }
        spans.push(BlockSpan { count, start, end });
    }
    Ok((header, spans))
}

/// Decompresses the block `span` of `bytes` (located by [`locate_blocks`]) and hands `on_block`
/// a cursor over it with the record count, as [`for_each_block`] does; `on_block` must consume
/// the whole block. The inflated bytes are taken from `budget`, the file's
/// ([`InflateBudget::for_file`]) shared by every block of it.
///
/// # Errors
/// A reason string when the block does not decompress or decode, has trailing bytes, or
/// inflates beyond what is left of `budget`.
pub fn decode_block<T>(
    header: &Header,
    bytes: &[u8],
    span: BlockSpan,
    budget: &InflateBudget,
    on_block: impl FnOnce(&mut Cursor<'_>, usize) -> Result<T>,
) -> Result<T> {
    let data = bytes.get(span.start..span.end).ok_or_else(|| {
        bad(format!(
            "block {}..{} beyond the file",
            span.start, span.end
        ))
    })?;
    if matches!(header.codec.as_str(), "null" | "") {
        return decode_records(header, data, span, on_block);
    }
    // A compressed block is inflated into this thread's buffer, which keeps its capacity for
    // the next block: planning decodes hundreds of blocks per thread, and a fresh vector
    // for each grew by doubling (copying) and was freed right after.
    BLOCK_BUFFER.with(|cell| {
        let Ok(mut buf) = cell.try_borrow_mut() else {
            let block = decompress(&header.codec, data, budget)?;
            return decode_records(header, &block, span, on_block);
        };
        buf.clear();
        let out = decompress_into(&header.codec, data, &mut buf, budget)
            .and_then(|()| decode_records(header, &buf, span, on_block));
        // Also after a failure: a corrupt block may have inflated far before it was refused.
        if buf.capacity() > KEPT_BLOCK_BUFFER {
            *buf = Vec::new();
        }
        out
    })
}

thread_local! {
    /// The buffer [`decode_block`] inflates blocks into.
    static BLOCK_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A block buffer bigger than this is freed after use rather than kept for the next block.
const KEPT_BLOCK_BUFFER: usize = 8 << 20;

/// Runs `on_block` over the `span.count` records of the inflated `block`, which it must
/// consume exactly.
fn decode_records<T>(
    header: &Header,
    block: &[u8],
    span: BlockSpan,
    on_block: impl FnOnce(&mut Cursor<'_>, usize) -> Result<T>,
) -> Result<T> {
    if !header.schema.can_be_empty() && span.count > block.len() {
        return Err(bad(format!(
            "block claims {} records in {} bytes",
            span.count,
            block.len()
        )));
    }
    let mut bc = Cursor::new(block);
    let out = on_block(&mut bc, span.count)?;
    if bc.remaining() != 0 {
        return Err(bad(format!("{} trailing bytes in a block", bc.remaining())));
    }
    Ok(out)
}

/// Reads the header: magic, metadata and sync marker.
///
/// # Errors
/// A reason when the header is malformed.
pub fn read_header(c: &mut Cursor<'_>) -> Result<Header> {
    if c.take(4)
        .map_err(|_| bad("file shorter than the Avro magic"))?
        != MAGIC
    {
        return Err(bad("not an Avro object container (bad magic)"));
    }
    let mut schema_json = None;
    let mut codec = "null".to_string();
    loop {
        let n = c.read_long()?;
        if n == 0 {
            break;
        }
        if n < 0 {
            let _size = c.read_long()?;
        }
        let n = n.unsigned_abs();
        if n > c.remaining() as u64 {
            return Err(bad(format!(
                "metadata block of {n} entries exceeds the file"
            )));
        }
        for _ in 0..n {
            let k = c.read_string()?;
            let v = c.read_bytes()?;
            match k.as_str() {
                "avro.schema" => {
                    schema_json = Some(
                        std::str::from_utf8(v)
                            .map_err(|e| bad(format!("avro.schema is not UTF-8: {e}")))?,
                    )
                }
                "avro.codec" => {
                    codec = std::str::from_utf8(v)
                        .map_err(|e| bad(format!("avro.codec is not UTF-8: {e}")))?
                        .to_string()
                }
                _ => {}
            }
        }
    }
    let mut sync = [0u8; 16];
    sync.copy_from_slice(c.take(16)?);
    let schema = parse_schema_cached(schema_json.ok_or(bad("header has no avro.schema"))?)?;
    Ok(Header {
        schema,
        codec,
        sync,
    })
}

/// How many writer schemas each thread keeps, with their JSON text ([`parse_schema_cached`]).
const SCHEMA_CACHE_SIZE: usize = 4;

/// Longest schema text kept in the cache (a manifest's is a few KiB); longer ones are parsed
/// each time, so that the cache never holds much.
const SCHEMA_CACHE_MAX_TEXT: usize = 64 << 10;

thread_local! {
    /// The last [`SCHEMA_CACHE_SIZE`] writer schemas this thread parsed, most recent last: the
    /// manifests of one table repeat the same few schema texts, whose parsing costs more than
    /// decoding a small manifest's entries.
    static SCHEMAS: std::cell::RefCell<Vec<(Box<str>, Schema)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// [`Schema::parse`] of `json`, or a clone of the schema parsed from the same text before on
/// this thread (records are shared, so the clone is cheap).
fn parse_schema_cached(json: &str) -> Result<Schema> {
    let hit = SCHEMAS.with(|cell| {
        cell.try_borrow()
            .ok()
            .and_then(|c| c.iter().find(|(t, _)| &**t == json).map(|(_, s)| s.clone()))
    });
    if let Some(schema) = hit {
        return Ok(schema);
    }
    let schema = Schema::parse(json)?;
    if json.len() > SCHEMA_CACHE_MAX_TEXT {
        return Ok(schema);
    }
    SCHEMAS.with(|cell| {
        if let Ok(mut c) = cell.try_borrow_mut() {
            if c.len() >= SCHEMA_CACHE_SIZE {
                c.remove(0);
            }
            c.push((json.into(), schema.clone()));
        }
    });
    Ok(schema)
}

thread_local! {
    /// One zstd decompression context per thread, reused block after block (creating one
    /// allocates and clears over 100 KiB, as much as a manifest block holds).
    static ZSTD_CONTEXT: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Decompresses the zstd frames of one block with this thread's context, appending to `out`.
fn zstd_decompress_into(data: &[u8], out: &mut Vec<u8>, budget: &InflateBudget) -> Result<()> {
    ZSTD_CONTEXT.with(|cell| {
        let mut slot = cell
            .try_borrow_mut()
            .map_err(|_| bad("zstd: decompression context already in use"))?;
        let ctx = match &mut *slot {
            Some(ctx) => ctx,
            None => slot.insert(
                zstd::zstd_safe::DCtx::try_create()
                    .ok_or(bad("zstd: cannot create a decompression context"))?,
            ),
        };
        // A previous block may have failed mid-frame.
        ctx.reset(zstd::zstd_safe::ResetDirective::SessionOnly)
            .map_err(|code| bad(format!("zstd: {}", zstd::zstd_safe::get_error_name(code))))?;
        read_limited_into(
            zstd::stream::read::Decoder::with_context(data, ctx),
            "zstandard",
            out,
            budget,
        )
    })
}

/// The block `data` compressed with `codec`, decompressed (borrowed when `codec` is null).
fn decompress<'a>(
    codec: &str,
    data: &'a [u8],
    budget: &InflateBudget,
) -> Result<std::borrow::Cow<'a, [u8]>> {
    use std::borrow::Cow;
    if matches!(codec, "null" | "") {
        return Ok(Cow::Borrowed(data));
    }
    // At most 4 MiB to start with, so that a corrupt block cannot reserve much before it fails.
    let mut out = Vec::with_capacity(data.len().saturating_mul(4).min(1 << 22));
    decompress_into(codec, data, &mut out, budget)?;
    Ok(Cow::Owned(out))
}

/// [`decompress`] of a compressed codec, appending to `out` (which keeps its capacity).
fn decompress_into(
    codec: &str,
    data: &[u8],
    out: &mut Vec<u8>,
    budget: &InflateBudget,
) -> Result<()> {
    match codec {
        "deflate" => read_limited_into(
            flate2::read::DeflateDecoder::new(data),
            "deflate",
            out,
            budget,
        ),
        "zstandard" | "zstd" => zstd_decompress_into(data, out, budget),
        "snappy" => {
            if data.len() < 4 {
                return Err(bad("snappy block shorter than its CRC"));
            }
            let (body, crc) = data.split_at(data.len() - 4);
            let len = snap::raw::decompress_len(body).map_err(|e| bad(format!("snappy: {e}")))?;
            if len > MAX_BLOCK_SIZE {
                return Err(bad(format!("snappy block claims {len} bytes")));
            }
            budget.take(len)?;
            let start = out.len();
            out.resize(start + len, 0);
            let n = snap::raw::Decoder::new()
                .decompress(body, &mut out[start..])
                .map_err(|e| bad(format!("snappy: {e}")))?;
            out.truncate(start + n);
            let expected = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
            if crc32fast::hash(&out[start..]) != expected {
                return Err(bad("snappy block CRC mismatch"));
            }
            Ok(())
        }
        other => Err(bad(format!("unsupported Avro codec '{other}'"))),
    }
}

/// Reads `r` to its end, appending to `out`, refusing more than [`MAX_BLOCK_SIZE`] bytes or
/// more than is left of `budget`.
fn read_limited_into(
    r: impl Read,
    what: &str,
    out: &mut Vec<u8>,
    budget: &InflateBudget,
) -> Result<()> {
    let start = out.len();
    let r = Budgeted { inner: r, budget };
    r.take(MAX_BLOCK_SIZE as u64 + 1)
        .read_to_end(out)
        .map_err(|e| bad(format!("{what} block: {e}")))?;
    if out.len() - start > MAX_BLOCK_SIZE {
        return Err(bad(format!(
            "{what} block decompresses beyond {MAX_BLOCK_SIZE} bytes"
        )));
    }
    Ok(())
}

/// An [`Error`] of Avro container: `reason` says what is wrong.
fn bad(reason: impl Into<String>) -> Error {
    Error::corrupt("Avro container", reason)
}

#[cfg(test)]
mod tests {
    use super::decode::MAX_EMPTY_ITEMS;
    use super::*;

    fn zz(v: i64) -> Vec<u8> {
        let mut u = ((v << 1) ^ (v >> 63)) as u64;
        let mut out = Vec::new();
        while u >= 0x80 {
            out.push((u as u8) | 0x80);
            u >>= 7;
        }
        out.push(u as u8);
        out
    }

    const SCHEMA: &str = r#"{"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"s","type":["null","string"]}]}"#;

    fn container(codec: &str, block: &[u8], count: i64) -> Vec<u8> {
        container_of(SCHEMA, codec, &[(count, block)])
    }

    /// A container with the given schema and `(record count, block bytes)` blocks.
    fn container_of(schema: &str, codec: &str, blocks: &[(i64, &[u8])]) -> Vec<u8> {
        let mut f = MAGIC.to_vec();
        f.extend(zz(2));
        for (k, v) in [
            ("avro.schema", schema.as_bytes()),
            ("avro.codec", codec.as_bytes()),
        ] {
            f.extend(zz(k.len() as i64));
            f.extend(k.as_bytes());
            f.extend(zz(v.len() as i64));
            f.extend(v);
        }
        f.extend(zz(0));
        f.extend([7u8; 16]);
        for (count, block) in blocks {
            f.extend(zz(*count));
            f.extend(zz(block.len() as i64));
            f.extend(*block);
            f.extend([7u8; 16]);
        }
        f
    }

    /// A schema text seen before on this thread gives the same schema, its record shared;
    /// another text gives its own; a text that does not parse is an error each time.
    #[test]
    fn header_schemas_are_parsed_once_per_text() {
        let first = read_header(&mut Cursor::new(&container("null", &[], 0))).unwrap();
        let again = read_header(&mut Cursor::new(&container("null", &[], 0))).unwrap();
        assert_eq!(first.schema, Schema::parse(SCHEMA).unwrap());
        match (&first.schema, &again.schema) {
            (Schema::Record(a), Schema::Record(b)) => assert!(std::sync::Arc::ptr_eq(a, b)),
            other => panic!("not records: {other:?}"),
        }
        let other = SCHEMA.replace("\"s\"", "\"t\"");
        let h = read_header(&mut Cursor::new(&container_of(&other, "null", &[]))).unwrap();
        let Schema::Record(r) = &h.schema else {
            panic!("not a record: {:?}", h.schema);
        };
        assert_eq!(&r.names[..], &["a".to_string(), "t".to_string()]);
        for _ in 0..2 {
            let bad = container_of("{\"type\":\"record\"", "null", &[]);
            assert!(read_header(&mut Cursor::new(&bad)).is_err());
        }
    }

    fn raw_block() -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(zz(5));
        b.extend(zz(1));
        b.extend(zz(2));
        b.extend(b"hi");
        b.extend(zz(-3));
        b.extend(zz(0));
        b
    }

    fn check(values: Vec<Value>) {
        assert_eq!(values.len(), 2);
        let r = values[0].as_record().unwrap();
        assert_eq!(r.get("a"), &Value::Int(5));
        assert_eq!(r.get("s"), &Value::String("hi".into()));
        assert_eq!(r.get("missing"), &Value::Null);
        assert_eq!(values[1].as_record().unwrap().get("s"), &Value::Null);
    }

    /// The thread's zstd context is reset before each block: a block that fails mid-frame does
    /// not spoil the next one, and frames of any size round-trip.
    #[test]
    fn zstd_blocks_decode_after_a_failed_one() {
        let raw: Vec<u8> = (0..200_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let good = zstd::encode_all(&raw[..], 3).unwrap();
        let mut bad = good.clone();
        bad.truncate(good.len() / 2);
        assert_eq!(
            decompress("zstandard", &good, &InflateBudget::for_file(0))
                .unwrap()
                .as_ref(),
            &raw[..]
        );
        assert!(decompress("zstandard", &bad, &InflateBudget::for_file(0)).is_err());
        assert_eq!(
            decompress("zstandard", &good, &InflateBudget::for_file(0))
                .unwrap()
                .as_ref(),
            &raw[..]
        );
        let small = zstd::encode_all(&b"abc"[..], 1).unwrap();
        assert_eq!(
            decompress("zstd", &small, &InflateBudget::for_file(0))
                .unwrap()
                .as_ref(),
            b"abc"
        );
    }

    #[test]
    fn reads_every_codec() {
        let raw = raw_block();
        check(read_container(&container("null", &raw, 2)).unwrap());
        let mut snappy = snap::raw::Encoder::new().compress_vec(&raw).unwrap();
        snappy.extend(crc32fast::hash(&raw).to_be_bytes());
        check(read_container(&container("snappy", &snappy, 2)).unwrap());
        let z = zstd::encode_all(&raw[..], 1).unwrap();
        check(read_container(&container("zstandard", &z, 2)).unwrap());
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut enc, &raw).unwrap();
        check(read_container(&container("deflate", &enc.finish().unwrap(), 2)).unwrap());
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        let good = container("null", &raw_block(), 2);
        for cut in 0..good.len() {
            let _ = read_container(&good[..cut]);
        }
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= 0xff;
            let _ = read_container(&b);
        }
        assert!(read_container(&container("null", &raw_block(), 3)).is_err());
        assert!(read_container(&container("lz5", &raw_block(), 2)).is_err());
        assert!(read_container(b"ORC").is_err());
    }

    /// Records of a schema that can encode in zero bytes cannot be bounded by the block size;
    /// a tiny file claiming 2^40 of them must fail fast instead of looping or allocating.
    #[test]
    fn zero_width_record_counts_are_bounded() {
        let empty = r#"{"type":"record","name":"r","fields":[]}"#;
        let nulls = r#"{"type":"record","name":"r","fields":[{"name":"n","type":"null"},{"name":"f","type":{"type":"fixed","name":"f0","size":0}}]}"#;
        for schema in [empty, nulls] {
            let huge = container_of(schema, "null", &[(1 << 40, &[])]);
            let err = read_container(&huge).unwrap_err();
            assert!(err.to_string().contains("zero bytes"), "{err}");
            // Many blocks each under the bound still add up past it.
            let half = (MAX_EMPTY_ITEMS / 2 + 1) as i64;
            let many = container_of(schema, "null", &[(half, &[]), (half, &[])]);
            assert!(read_container(&many)
                .unwrap_err()
                .to_string()
                .contains("zero bytes"));
            // Within the bound such records decode: three empty records.
            let ok = read_container(&container_of(schema, "null", &[(2, &[]), (1, &[])])).unwrap();
            assert_eq!(ok.len(), 3);
        }
    }
}
