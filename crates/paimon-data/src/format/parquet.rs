//! Parquet decoding with the `parquet` crate's Arrow reader (Java `ParquetReaderFactory`).
//!
//! Columns are matched by top-level name, as Java does; deletion vectors become a
//! `RowSelection`, so deleted rows are skipped inside the decoder.

use bytes::Bytes;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use parquet::arrow::ProjectionMask;

use super::{BatchIter, DecodeRequest};
use crate::error::{Error, Result};

pub(super) fn decode(path: &str, data: Bytes, req: &DecodeRequest) -> Result<BatchIter> {
    let perr = |e| Error::Parquet {
        path: path.to_string(),
        source: e,
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(data).map_err(perr)?;
    let roots: Vec<usize> = builder
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| req.columns.iter().any(|c| c == f.name()))
        .map(|(i, _)| i)
        .collect();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let mut builder = builder
        .with_projection(mask)
        .with_batch_size(req.batch_size.max(1));
    if let Some(rows) = &req.rows {
        if rows.selected() == 0 {
            return Ok(Box::new(std::iter::empty()));
        }
        if !rows.is_all() {
            let selectors: Vec<RowSelector> = rows
                .runs()
                .into_iter()
                .map(|(keep, n)| {
                    if keep {
                        RowSelector::select(n)
                    } else {
                        RowSelector::skip(n)
                    }
                })
                .collect();
            builder = builder.with_row_selection(RowSelection::from(selectors));
        }
    }
    let reader = builder.build().map_err(perr)?;
    let path = path.to_string();
    Ok(Box::new(
        reader.map(move |r| r.map_err(|e| Error::arrow(&path, e))),
    ))
}
