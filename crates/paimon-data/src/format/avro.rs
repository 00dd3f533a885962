//! Avro object-container decoding with `arrow-avro` (Java `AvroBulkFormat`).
//!
//! Avro has no row skipping, so deletion vectors are applied after decoding.

use std::io::Cursor;

use arrow_avro::reader::ReaderBuilder;
use bytes::Bytes;

use super::{BatchIter, DecodeRequest, SelectAfterDecode};
use crate::error::{Error, Result};

pub(super) fn decode(path: &str, data: Bytes, req: &DecodeRequest) -> Result<BatchIter> {
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
