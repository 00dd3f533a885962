//! Avro object-container decoding with `arrow-avro` (Java `AvroBulkFormat`).
//!
//! Avro has no row skipping, so deletion vectors are applied after decoding.

use std::io::{Cursor, Read};

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_avro::reader::ReaderBuilder;
use arrow_schema::DataType as ArrowType;
use bytes::Bytes;

use super::ranged::RangedFile;
use super::stream::range_error;
use super::{check_file_rows, BatchIter, DecodeRequest, SelectAfterDecode};
use crate::error::{Error, Result};

/// Bytes fetched at a time past what a block needs: blocks of a few KiB to a few MiB are read
/// many per request, and memory stays bounded by the largest block plus this.
pub(crate) const READ_AHEAD: u64 = 4 << 20;

/// Bytes fetched first for the header; a longer header doubles it until it fits.
const HEADER_PROBE: u64 = 64 << 10;

pub(super) fn decode(path: &str, file: RangedFile, req: &DecodeRequest) -> Result<BatchIter> {
    let len = file.len();
    let fetch = |range: std::ops::Range<u64>| file.read(range).map_err(|e| range_error(path, e));
    // The header, by a prefix grown until it holds the whole header.
    let mut probe = HEADER_PROBE.min(len);
    let (first, header_end) = loop {
        let first = fetch(0..probe)?;
        match parse_header(&first) {
            Ok(end) => break (first, end),
            Err(Short) if probe < len => probe = probe.saturating_mul(2).min(len),
            Err(Short) => {
                return Err(Error::corrupt(path, "truncated header: no sync marker"));
            }
            Err(Bad(reason)) => return Err(Error::corrupt(path, reason)),
        }
    };
    let file_header = first.slice(..header_end);
    let sync: [u8; 16] = file_header
        .get(header_end - 16..)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| Error::corrupt(path, "truncated header: no sync marker"))?;
    let wrapped = wrap_root_union(&file_header).map_err(|reason| Error::corrupt(path, reason))?;
    let unnest = wrapped.is_some();
    let header = wrapped.unwrap_or(file_header);
    let schema = ReaderBuilder::new()
        .build(Cursor::new(header.clone()))
        .map_err(|e| Error::arrow(path, e))?
        .schema();
    let fields = match (unnest, schema.fields().first().map(|f| f.data_type())) {
        (false, _) => schema.fields().clone(),
        (true, Some(ArrowType::Struct(fields))) => fields.clone(),
        (true, other) => {
            return Err(Error::corrupt(
                path,
                format!("root union decoded as {other:?}, not a record"),
            ))
        }
    };
    let indices: Vec<usize> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| req.columns.iter().any(|c| c == f.name()))
        .map(|(i, _)| i)
        .collect();
    let owned = path.to_string();
    let at = header_end as u64;
    let blocks = Blocks {
        path: path.to_string(),
        header,
        stream: BlockStream {
            file,
            sync,
            buf: first.slice(header_end..),
            buf_start: at,
            pos: at,
            index: 0,
        },
        req: req.clone(),
        rows: 0,
        done: false,
        batch_size: req.batch_size.max(1),
        pending: None,
    };
    let projected: BatchIter = Box::new(blocks.map(move |r| {
        let batch = r?;
        let batch = if unnest {
            unnest_root(batch).map_err(|reason| Error::corrupt(&owned, reason))?
        } else {
            batch
        };
        batch.project(&indices).map_err(|e| Error::arrow(&owned, e))
    }));
    Ok(match &req.rows {
        Some(rows) if !rows.is_all() => Box::new(SelectAfterDecode::new(projected, rows, path)),
        _ => projected,
    })
}

/// Java writes vector-store files (`….vector.avro`) from a nullable row type, so their writer
/// schema is the union `["null", {record}]`, which `arrow-avro` refuses as a file's root. A
/// record whose one field has that union type is encoded exactly like the bare union, so the
/// header's schema is rewritten to such a record (the blocks stay as they are) and
/// [`unnest_root`] takes the field apart after decoding. `None` when the root is a record.
fn wrap_root_union(data: &Bytes) -> std::result::Result<Option<Bytes>, String> {
    let mut pos = 4usize;
    let mut entries: Vec<(&[u8], &[u8])> = Vec::new();
    loop {
        let count = read_long(data, &mut pos)?;
        if count == 0 {
            break;
        }
        if count < 0 {
            read_long(data, &mut pos)?;
        }
        for _ in 0..count.unsigned_abs() {
            let mut kv = [&data[..0]; 2];
            for part in &mut kv {
                let len = read_long(data, &mut pos)?;
                let start = pos;
                skip(data, &mut pos, len, "metadata entry")?;
                *part = &data[start..pos];
            }
            entries.push((kv[0], kv[1]));
        }
    }
    let Some(&(_, schema)) = entries.iter().find(|(k, _)| *k == b"avro.schema") else {
        return Err("header has no avro.schema".into());
    };
    if schema.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
        return Ok(None);
    }
    let mut wrapper =
        br#"{"type":"record","name":"paimon_rs_root","fields":[{"name":"root","type":"#.to_vec();
    wrapper.extend_from_slice(schema);
    wrapper.extend_from_slice(b"}]}");
    let mut out = Vec::with_capacity(data.len() + wrapper.len());
    out.extend_from_slice(&data[..4]);
    write_long(&mut out, entries.len() as i64);
    for (k, v) in &entries {
        let v: &[u8] = if *k == b"avro.schema" { &wrapper } else { v };
        write_long(&mut out, k.len() as i64);
        out.extend_from_slice(k);
        write_long(&mut out, v.len() as i64);
        out.extend_from_slice(v);
    }
    write_long(&mut out, 0);
    out.extend_from_slice(&data[pos..]);
    Ok(Some(Bytes::from(out)))
}

/// The columns of the record inside [`wrap_root_union`]'s one field. A null row has no
/// columns to give: Paimon never writes one, so it is an error rather than a row of nulls.
fn unnest_root(batch: RecordBatch) -> std::result::Result<RecordBatch, String> {
    let root = batch
        .columns()
        .first()
        .and_then(|c| c.as_struct_opt())
        .ok_or("the root union did not decode to a record")?;
    if root.null_count() > 0 {
        return Err(format!("{} rows are null records", root.null_count()));
    }
    Ok(RecordBatch::from(root.clone()))
}

/// The batches of an object-container file, decoded one block at a time. `arrow-avro`'s
/// `Reader` spins forever on a block whose bytes hold more than the rows it claims (its row
/// count runs out before its bytes do, and it waits for the bytes to run out too; a fuzzed
/// 1.8 KB file kept it busy for minutes): each block is decoded by a reader of its own, made
/// to decode exactly the block's rows in one batch, and then dropped. Bytes after a block's
/// rows are ignored, as Java's `DataFileStream` ignores them.
///
/// The blocks' rows are checked against the metadata's count once the last block is read
/// (the count is in the blocks, and reading them all first would read the file twice).
struct Blocks {
    path: String,
    header: Bytes,
    stream: BlockStream,
    req: DecodeRequest,
    /// Rows the blocks read so far claim.
    rows: u64,
    done: bool,
    batch_size: usize,
    /// The rest of the last block's batch, handed out `batch_size` rows at a time.
    pending: Option<RecordBatch>,
}

impl Blocks {
    fn decode_block(&self, rows: u64, block: Bytes) -> Result<RecordBatch> {
        let rows = usize::try_from(rows).unwrap_or(usize::MAX);
        let bytes = Cursor::new(self.header.clone()).chain(Cursor::new(block));
        let mut reader = ReaderBuilder::new()
            .with_batch_size(rows)
            .build(std::io::BufReader::new(bytes))
            .map_err(|e| Error::arrow(&self.path, e))?;
        let batch = reader
            .next()
            .transpose()
            .map_err(|e| Error::arrow(&self.path, e))?
            .ok_or_else(|| {
                Error::corrupt(
                    &self.path,
                    format!("a block of {rows} rows decoded to none"),
                )
            })?;
        if batch.num_rows() != rows {
            return Err(Error::corrupt(
                &self.path,
                format!("a block of {rows} rows decoded {} rows", batch.num_rows()),
            ));
        }
        Ok(batch)
    }

    /// The next block's rows and bytes, or `None` after the last, when the rows are checked.
    fn next_block(&mut self) -> Result<Option<(u64, Bytes)>> {
        let Some((rows, bytes)) = self.stream.next_block(&self.path)? else {
            check_file_rows(&self.path, &self.req, self.rows)?;
            return Ok(None);
        };
        self.rows = self.rows.checked_add(rows).ok_or_else(|| {
            Error::corrupt(
                &self.path,
                format!("block {}: row counts overflow", self.stream.index),
            )
        })?;
        Ok(Some((rows, bytes)))
    }
}

impl Iterator for Blocks {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(batch) = self.pending.take() {
                if batch.num_rows() > self.batch_size {
                    let rest = batch.num_rows() - self.batch_size;
                    self.pending = Some(batch.slice(self.batch_size, rest));
                    return Some(Ok(batch.slice(0, self.batch_size)));
                }
                return Some(Ok(batch));
            }
            if self.done {
                return None;
            }
            let decoded = match self.next_block() {
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Ok(Some((0, _))) => continue,
                Ok(Some((rows, block))) => self.decode_block(rows, block),
                Err(e) => Err(e),
            };
            match decoded {
                Ok(batch) => self.pending = Some(batch),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

/// The blocks of an object-container file (`docs`: Avro spec, "Object Container Files"),
/// `[count][size][size bytes][sync]` up to the very end of the file, fetched by ranged reads
/// of at least [`READ_AHEAD`] bytes. Each block's framing is checked as it is reached: the
/// decoder would stop quietly at a cut-off block and drop its rows without a word.
struct BlockStream {
    file: RangedFile,
    sync: [u8; 16],
    /// Fetched bytes from `buf_start` on.
    buf: Bytes,
    buf_start: u64,
    /// The next block's offset.
    pos: u64,
    /// The next block's index.
    index: usize,
}

/// The longest `[count][size]` prefix of a block: two 10-byte varints.
const BLOCK_PREFIX_MAX: u64 = 20;

impl BlockStream {
    /// The bytes from `pos` on, at least `want` of them or up to the file's end, fetching
    /// what the buffer lacks (and [`READ_AHEAD`] more) in one ranged read.
    fn at(&mut self, path: &str, want: u64) -> Result<Bytes> {
        let len = self.file.len();
        let end = self.pos.saturating_add(want).min(len);
        let buf_end = self.buf_start + self.buf.len() as u64;
        if end > buf_end {
            let keep = to_usize(self.pos.saturating_sub(self.buf_start));
            let rest = self.buf.slice(keep.min(self.buf.len())..);
            let from = self.pos.max(buf_end);
            let to = end.max(from.saturating_add(READ_AHEAD)).min(len);
            let fetched = self.file.read(from..to).map_err(|e| range_error(path, e))?;
            self.buf = if rest.is_empty() {
                fetched
            } else {
                let mut joined = Vec::with_capacity(rest.len() + fetched.len());
                joined.extend_from_slice(&rest);
                joined.extend_from_slice(&fetched);
                Bytes::from(joined)
            };
            self.buf_start = from - rest.len() as u64;
        }
        let s = to_usize(self.pos - self.buf_start);
        Ok(self.buf.slice(s..))
    }

    fn next_block(&mut self, path: &str) -> Result<Option<(u64, Bytes)>> {
        let len = self.file.len();
        if self.pos >= len {
            return Ok(None);
        }
        let block = self.index;
        let corrupt = |reason: String| Error::corrupt(path, format!("block {block}: {reason}"));
        let head = self.at(path, BLOCK_PREFIX_MAX)?;
        let mut p = 0usize;
        let count = read_long(&head, &mut p).map_err(corrupt)?;
        let size = read_long(&head, &mut p).map_err(corrupt)?;
        if count < 0 {
            return Err(corrupt(format!("negative row count {count}")));
        }
        let left = len - self.pos;
        let total = u64::try_from(size)
            .ok()
            .and_then(|n| n.checked_add(p as u64 + 16))
            .filter(|t| *t <= left + 16)
            .ok_or_else(|| {
                corrupt(format!(
                    "block of {size} bytes exceeds the file ({len} bytes)"
                ))
            })?;
        if total > left {
            return Err(corrupt(format!(
                "sync marker missing or wrong at byte {} (file cut off?)",
                self.pos + total - 16
            )));
        }
        let bytes = self.at(path, total)?;
        let t = to_usize(total);
        if bytes.get(t - 16..t) != Some(self.sync.as_slice()) {
            return Err(corrupt(format!(
                "sync marker missing or wrong at byte {} (file cut off?)",
                self.pos + total - 16
            )));
        }
        self.pos += total;
        self.index += 1;
        Ok(Some((count.unsigned_abs(), bytes.slice(..t))))
    }
}

fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// Why a header did not parse: the bytes at hand end inside it, or it is wrong.
enum HeaderError {
    Short,
    Bad(String),
}
use HeaderError::{Bad, Short};

/// The end of the header (magic, metadata map, sync marker) at the start of `data`.
fn parse_header(data: &[u8]) -> std::result::Result<usize, HeaderError> {
    if data.len() < 4 {
        return Err(if b"Obj\x01".starts_with(data) {
            Short
        } else {
            Bad("not an Avro object container file (bad magic)".into())
        });
    }
    if data.get(..4) != Some(b"Obj\x01".as_slice()) {
        return Err(Bad("not an Avro object container file (bad magic)".into()));
    }
    let mut pos = 4usize;
    let long = |pos: &mut usize| match read_long(data, pos) {
        Ok(v) => Ok(v),
        Err(_) if *pos >= data.len() => Err(Short),
        Err(e) => Err(Bad(e)),
    };
    // File metadata: a map<string, bytes> written as blocks, ended by a zero count.
    loop {
        let count = long(&mut pos)?;
        if count == 0 {
            break;
        }
        if count < 0 {
            long(&mut pos)?; // the block's byte size
        }
        for _ in 0..count.unsigned_abs() {
            for _ in 0..2 {
                let len = long(&mut pos)?;
                let n = usize::try_from(len)
                    .map_err(|_| Bad(format!("metadata entry of {len} bytes")))?;
                pos = pos.checked_add(n).ok_or(Short)?;
                if pos > data.len() {
                    return Err(Short);
                }
            }
        }
    }
    if pos + 16 > data.len() {
        return Err(Short);
    }
    Ok(pos + 16)
}

/// An Avro zig-zag varint long.
fn read_long(data: &[u8], pos: &mut usize) -> std::result::Result<i64, String> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *data
            .get(*pos)
            .ok_or_else(|| format!("truncated varint at byte {pos}"))?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(((v >> 1) as i64) ^ -((v & 1) as i64));
        }
    }
    Err(format!("varint longer than 10 bytes at byte {pos}"))
}

/// Appends an Avro zig-zag varint long.
fn write_long(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

fn skip(data: &[u8], pos: &mut usize, len: i64, what: &str) -> std::result::Result<(), String> {
    let end = usize::try_from(len)
        .ok()
        .and_then(|n| pos.checked_add(n))
        .filter(|end| *end <= data.len())
        .ok_or_else(|| {
            format!(
                "{what} of {len} bytes exceeds the file ({} bytes)",
                data.len()
            )
        })?;
    *pos = end;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use arrow_array::types::Float32Type;

    use super::*;

    fn request(columns: &[&str]) -> DecodeRequest {
        DecodeRequest {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            types: Vec::new(),
            rows: None,
            batch_size: 1024,
            expected_rows: None,
        }
    }

    fn decode_all(data: Bytes, columns: &[&str]) -> Result<Vec<RecordBatch>> {
        let file = RangedFile::memory("test.vector.avro", data);
        decode("test.vector.avro", file, &request(columns))?.collect()
    }

    /// The vector-store file of `append/vector_store`'s snapshot 2, as Java 1.4.2 wrote it: root
    /// `["null", record]`, rows 1100..1109 with emb `[i, i / 2, -i]` and row 1103's emb null
    /// (fixtures/README.md, and Java's rows in fixtures/expected/append/vector_store).
    #[test]
    fn java_vector_store_file_with_a_union_root_decodes() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/warehouse/append.db/vector_store/bucket-0");
        let mut found = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().ends_with(".vector.avro") {
                continue;
            }
            let data = Bytes::from(std::fs::read(&path).unwrap());
            let header_end = parse_header(&data).ok().unwrap();
            assert!(wrap_root_union(&data.slice(..header_end))
                .unwrap()
                .is_some());
            let batches = decode_all(data, &["emb"]).unwrap();
            let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
            if rows != 10 {
                continue;
            }
            found += 1;
            let batch = &batches[0];
            assert_eq!(batch.schema().field(0).name(), "emb");
            let emb = batch.column(0).as_list::<i32>();
            for (k, id) in (1100..1110).enumerate() {
                if id == 1103 {
                    assert!(emb.is_null(k));
                    continue;
                }
                let v = emb.value(k);
                let v: Vec<f32> = v.as_primitive::<Float32Type>().values().to_vec();
                assert_eq!(
                    v,
                    vec![id as f32, id as f32 * 0.5, -(id as f32)],
                    "row id {id}"
                );
            }
        }
        assert_eq!(
            found,
            1,
            "one 10-row vector-store file in {}",
            dir.display()
        );
    }

    fn union_root_file(rows: Vec<apache_avro::types::Value>) -> Bytes {
        let schema = apache_avro::Schema::parse_str(
            r#"["null", {"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]}]"#,
        )
        .unwrap();
        let mut w = apache_avro::Writer::new(&schema, Vec::new());
        for r in rows {
            w.append(r).unwrap();
        }
        Bytes::from(w.into_inner().unwrap())
    }

    #[test]
    fn union_root_rows_decode_and_a_null_row_is_an_error() {
        use apache_avro::types::Value;
        let rec = |a: i32| {
            Value::Union(
                1,
                Box::new(Value::Record(vec![("a".into(), Value::Int(a))])),
            )
        };
        let batches = decode_all(union_root_file(vec![rec(7), rec(-3)]), &["a"]).unwrap();
        let a = batches[0]
            .column(0)
            .as_primitive::<arrow_array::types::Int32Type>();
        assert_eq!(a.values().to_vec(), vec![7, -3]);

        let null_row = union_root_file(vec![rec(1), Value::Union(0, Box::new(Value::Null))]);
        let err = decode_all(null_row, &["a"]).unwrap_err().to_string();
        assert!(err.contains("1 rows are null records"), "{err}");
    }
}

#[cfg(test)]
mod block_tests {
    use std::path::PathBuf;

    use super::*;

    /// fuzz/regressions/data_file/avro-block-bytes-beyond-its-rows-spin: a 1.8 KB file (after
    /// the fuzz target's 4 header bytes) whose one block claims 25 rows but holds more bytes
    /// than they take. `arrow-avro`'s `Reader` spun on it for minutes; decoded block by block,
    /// its 25 rows come out and the extra bytes are ignored, as Java ignores them.
    #[test]
    fn a_block_with_bytes_beyond_its_rows_decodes_its_rows() {
        let input = std::fs::read(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../fuzz/regressions/data_file/avro-block-bytes-beyond-its-rows-spin"),
        )
        .unwrap();
        let data = Bytes::from(input[4..].to_vec());
        let req = DecodeRequest {
            columns: vec!["id".into(), "name".into()],
            types: Vec::new(),
            rows: None,
            batch_size: 10,
            expected_rows: Some(25),
        };
        let file = RangedFile::memory("t.avro", data);
        let batches: Vec<RecordBatch> = decode("t.avro", file, &req)
            .unwrap()
            .collect::<Result<_>>()
            .unwrap();
        // Batches of at most 10 rows: the block's 25 rows sliced 10, 10, 5.
        let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(sizes, [10, 10, 5]);
        assert_eq!(batches[0].num_columns(), 2);
    }
}

#[cfg(test)]
mod stream_tests {
    use std::sync::Arc;

    use apache_avro::types::Value;
    use arrow_array::types::Int64Type;
    use paimon_io::{CountingFileIO, FileIORef, LocalFileIO};

    use super::*;

    const ROWS: i64 = 200_000;

    /// The payload of row `i`: 100 bytes that differ per row, so blocks do not shrink.
    fn payload(i: i64) -> String {
        format!("{i:0>100}")
    }

    /// An uncompressed file of `ROWS` rows `{id: i, payload}` in apache-avro's default blocks
    /// (about 16 KB each), some 22 MB in all, at a path of its own.
    fn big_file(tag: &str) -> (std::path::PathBuf, u64) {
        let schema = apache_avro::Schema::parse_str(
            r#"{"type": "record", "name": "r", "fields": [
                {"name": "id", "type": "long"}, {"name": "payload", "type": "string"}]}"#,
        )
        .unwrap();
        let mut w = apache_avro::Writer::new(&schema, Vec::new());
        for i in 0..ROWS {
            w.append(Value::Record(vec![
                ("id".into(), Value::Long(i)),
                ("payload".into(), Value::String(payload(i))),
            ]))
            .unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let path = std::env::temp_dir().join(format!(
            "paimon-avro-stream-{tag}-{}.avro",
            std::process::id()
        ));
        std::fs::write(&path, &bytes).unwrap();
        (path, bytes.len() as u64)
    }

    fn open(path: &std::path::Path, len: u64) -> (Arc<CountingFileIO>, RangedFile) {
        let counting = Arc::new(CountingFileIO::new(Arc::new(LocalFileIO::new())));
        let io: FileIORef = counting.clone();
        let file = RangedFile::open(io, &path.display().to_string(), len, 0);
        (counting, file)
    }

    fn request(columns: &[&str]) -> DecodeRequest {
        DecodeRequest {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            types: Vec::new(),
            rows: None,
            batch_size: 1024,
            expected_rows: Some(ROWS),
        }
    }

    #[test]
    fn a_full_read_fetches_each_byte_once_in_bounded_pieces() {
        let (path, len) = big_file("full");
        let (counting, file) = open(&path, len);
        let batches: Vec<RecordBatch> = decode("big.avro", file, &request(&["id", "payload"]))
            .unwrap()
            .collect::<Result<_>>()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        let mut next = 0i64;
        for b in &batches {
            let ids = b.column(0).as_primitive::<Int64Type>();
            let payloads = b.column(1).as_string::<i32>();
            for k in 0..b.num_rows() {
                assert_eq!(ids.value(k), next);
                assert_eq!(payloads.value(k), payload(next));
                next += 1;
            }
        }
        assert_eq!(next, ROWS);
        let reads = counting.reads();
        assert!(
            len > 5 * READ_AHEAD,
            "the file ({len} bytes) spans many read-aheads"
        );
        // Consecutive ranges, from the start to the end: nothing read twice, nothing skipped.
        let mut at = 0;
        for r in &reads {
            assert_eq!(r.range.start, at, "{reads:?}");
            assert!(r.range.end - r.range.start <= READ_AHEAD, "{r:?}");
            at = r.range.end;
        }
        assert_eq!(at, len);
    }

    #[test]
    fn a_reader_stopped_after_one_batch_fetches_one_read_ahead() {
        let (path, len) = big_file("first");
        let (counting, file) = open(&path, len);
        let mut batches = decode("big.avro", file, &request(&["id"])).unwrap();
        let first = batches.next().unwrap().unwrap();
        drop(batches);
        let _ = std::fs::remove_file(&path);
        let ids = first.column(0).as_primitive::<Int64Type>();
        assert_eq!(ids.value(0), 0);
        assert_eq!(ids.value(first.num_rows() - 1), first.num_rows() as i64 - 1);
        let bytes = counting.bytes_read();
        assert!(
            bytes <= HEADER_PROBE + READ_AHEAD,
            "{bytes} bytes of {len} read for one batch"
        );
    }

    #[test]
    fn a_file_cut_inside_its_last_block_is_an_error_naming_the_file() {
        let (path, len) = big_file("cut");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
        let (_, file) = open(&path, len - 100);
        let err = decode("big.avro", file, &request(&["id"]))
            .unwrap()
            .find_map(|r| r.err())
            .unwrap()
            .to_string();
        let _ = std::fs::remove_file(&path);
        // The last block lost 100 of its bytes: its size runs past the file's end.
        assert!(err.contains("corrupt file big.avro: block "), "{err}");
        assert!(
            err.contains(&format!("exceeds the file ({} bytes)", len - 100)),
            "{err}"
        );
    }
}
