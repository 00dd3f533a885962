//! ORC decoding with `orc-rust` (Java `OrcReaderFactory`).
//!
//! Columns are matched by top-level name; deletion vectors become an ORC `RowSelection`.

use bytes::Bytes;
use orc_rust::arrow_reader::ArrowReaderBuilder;
use orc_rust::projection::ProjectionMask;
use orc_rust::row_selection::{RowSelection, RowSelector};

use super::{BatchIter, DecodeRequest};
use crate::error::{Error, Result};

pub(super) fn decode(path: &str, data: Bytes, req: &DecodeRequest) -> Result<BatchIter> {
    let builder = ArrowReaderBuilder::try_new(data).map_err(|e| Error::Orc {
        path: path.to_string(),
        source: e,
    })?;
    let root = builder.file_metadata().root_data_type();
    let present: Vec<&str> = root
        .children()
        .iter()
        .map(|c| c.name())
        .filter(|n| req.columns.iter().any(|c| c == n))
        .collect();
    let mask = ProjectionMask::named_roots(root, &present);
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
    let reader = builder.build();
    let path = path.to_string();
    Ok(Box::new(
        reader.map(move |r| r.map_err(|e| Error::arrow(&path, e))),
    ))
}
