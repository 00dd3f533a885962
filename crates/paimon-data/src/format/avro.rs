//! Avro object-container decoding with `arrow-avro` (Java `AvroBulkFormat`).
//!
//! Avro has no row skipping, so deletion vectors are applied after decoding.

use std::io::Cursor;

use arrow_avro::reader::ReaderBuilder;
use bytes::Bytes;

use super::{check_file_rows, BatchIter, DecodeRequest, SelectAfterDecode};
use crate::error::{Error, Result};

pub(super) fn decode(path: &str, data: Bytes, req: &DecodeRequest) -> Result<BatchIter> {
    let rows = check_container(&data).map_err(|reason| Error::corrupt(path, reason))?;
    check_file_rows(path, req, rows)?;
    let reader = ReaderBuilder::new()
        .with_batch_size(req.batch_size.max(1))
        .build(Cursor::new(data))
        .map_err(|e| Error::arrow(path, e))?;
    let schema = reader.schema();
    let indices: Vec<usize> = schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| req.columns.iter().any(|c| c == f.name()))
        .map(|(i, _)| i)
        .collect();
    let owned = path.to_string();
    let projected: BatchIter = Box::new(reader.map(move |r| {
        r.and_then(|b| b.project(&indices))
            .map_err(|e| Error::arrow(&owned, e))
    }));
    Ok(match &req.rows {
        Some(rows) if !rows.is_all() => Box::new(SelectAfterDecode::new(projected, rows, path)),
        _ => projected,
    })
}

/// Walks the object-container framing (`docs`: Avro spec, "Object Container Files"): header,
/// then blocks of `[count][size][size bytes][sync]` up to the very end of the file. The decoder
/// stops quietly at a cut-off block, which would drop its rows without a word. Returns the
/// rows the blocks claim.
fn check_container(data: &[u8]) -> std::result::Result<u64, String> {
    let mut pos = 4usize;
    if data.get(..4) != Some(b"Obj\x01".as_slice()) {
        return Err("not an Avro object container file (bad magic)".into());
    }
    // File metadata: a map<string, bytes> written as blocks, ended by a zero count.
    loop {
        let count = read_long(data, &mut pos)?;
        if count == 0 {
            break;
        }
        if count < 0 {
            read_long(data, &mut pos)?; // the block's byte size
        }
        for _ in 0..count.unsigned_abs() {
            for _ in 0..2 {
                let len = read_long(data, &mut pos)?;
                skip(data, &mut pos, len, "metadata entry")?;
            }
        }
    }
    let sync = data
        .get(pos..pos + 16)
        .ok_or("truncated header: no sync marker")?;
    pos += 16;
    let mut block = 0usize;
    let mut rows = 0u64;
    while pos < data.len() {
        let count = read_long(data, &mut pos)?;
        let size = read_long(data, &mut pos)?;
        if count < 0 {
            return Err(format!("block {block}: negative row count {count}"));
        }
        rows = rows
            .checked_add(count.unsigned_abs())
            .ok_or_else(|| format!("block {block}: row counts overflow"))?;
        skip(data, &mut pos, size, "block")
            .map_err(|e| format!("block {block} at byte {pos}: {e}"))?;
        if data.get(pos..pos + 16) != Some(sync) {
            return Err(format!(
                "block {block}: sync marker missing or wrong at byte {pos} (file cut off?)"
            ));
        }
        pos += 16;
        block += 1;
    }
    Ok(rows)
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
