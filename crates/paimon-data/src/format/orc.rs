//! ORC decoding with `orc-rust` (Java `OrcReaderFactory`).
//!
//! Columns are matched by top-level name; deletion vectors become an ORC `RowSelection`.
//! Timestamps decode straight to the unit of the column's Paimon precision: `orc-rust`
//! defaults to nanoseconds, whose range (1677..2262) cannot hold every TIMESTAMP(0..6) value.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Fields, Schema};
use bytes::Bytes;
use orc_rust::arrow_reader::ArrowReaderBuilder;
use orc_rust::projection::ProjectionMask;
use orc_rust::row_selection::{RowSelection, RowSelector};
use orc_rust::schema::DataType as OrcType;

use super::{BatchIter, DecodeRequest};
use crate::error::{Error, Result};

pub(super) fn decode(path: &str, data: Bytes, req: &DecodeRequest) -> Result<BatchIter> {
    let path_for_errors = path.to_string();
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
    let char_columns: Vec<String> = root
        .children()
        .iter()
        .filter(|c| present.contains(&c.name()) && matches!(c.data_type(), OrcType::Char { .. }))
        .map(|c| c.name().to_string())
        .collect();
    let mask = ProjectionMask::named_roots(root, &present);
    let builder = builder.with_projection(mask);
    let schema = builder.schema();
    let fields: Vec<FieldRef> = schema
        .fields()
        .iter()
        .map(|f| match req.types.iter().find(|(n, _)| n == f.name()) {
            Some((_, want)) => Arc::new(
                f.as_ref()
                    .clone()
                    .with_data_type(retarget(f.data_type(), want)),
            ),
            None => f.clone(),
        })
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let mut builder = builder
        .with_schema(schema)
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
    let batches = reader.map(move |r| {
        r.map_err(|e| Error::arrow(&path, e))
            .and_then(|b| trim_chars(b, &char_columns, &path))
    });
    Ok(Box::new(PanicToError {
        inner: Some(batches),
        path: path_for_errors,
    }))
}

/// `orc-rust` 0.9 panics on some corrupt compressed streams (an `unwrap` in its
/// `Decompressor`); such a panic becomes a [`Error::Corrupt`] naming the file, and the
/// iteration ends there.
struct PanicToError<I> {
    inner: Option<I>,
    path: String,
}

impl<I: Iterator<Item = Result<RecordBatch>>> Iterator for PanicToError<I> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.next())) {
            Ok(item) => item,
            Err(payload) => {
                self.inner = None;
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Some(Err(Error::corrupt(
                    &self.path,
                    format!("the ORC decoder failed on a damaged stream: {msg}"),
                )))
            }
        }
    }
}

/// `decoded` (what `orc-rust` would produce) with each timestamp leaf switched to the unit of
/// the same leaf of `want`; anything else is left as `orc-rust` decodes it.
fn retarget(decoded: &ArrowType, want: &ArrowType) -> ArrowType {
    match (decoded, want) {
        (ArrowType::Timestamp(_, tz), ArrowType::Timestamp(unit, _)) => {
            ArrowType::Timestamp(*unit, tz.clone())
        }
        (ArrowType::Struct(d), ArrowType::Struct(w)) => ArrowType::Struct(
            d.iter()
                .enumerate()
                .map(|(i, f)| match w.get(i) {
                    Some(wf) => retarget_field(f, wf),
                    None => f.clone(),
                })
                .collect::<Fields>(),
        ),
        (ArrowType::List(d), ArrowType::List(w)) => ArrowType::List(retarget_field(d, w)),
        (ArrowType::Map(d, sorted), ArrowType::Map(w, _)) => {
            ArrowType::Map(retarget_field(d, w), *sorted)
        }
        _ => decoded.clone(),
    }
}

fn retarget_field(decoded: &FieldRef, want: &Field) -> FieldRef {
    Arc::new(
        decoded
            .as_ref()
            .clone()
            .with_data_type(retarget(decoded.data_type(), want.data_type())),
    )
}

/// Right-trims the blanks of top-level ORC `char(n)` columns, as Java's ORC reader
/// (`CharTreeReader`) does: the file holds values padded to n, Java returns them trimmed, so
/// a CHAR value written with trailing blanks loses them too (Java's behaviour, kept).
fn trim_chars(batch: RecordBatch, char_columns: &[String], path: &str) -> Result<RecordBatch> {
    if char_columns.is_empty() {
        return Ok(batch);
    }
    let schema = batch.schema();
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, col)| match col.as_string_opt::<i32>() {
            Some(s) if char_columns.iter().any(|c| c == f.name()) => Arc::new(
                s.iter()
                    .map(|v| v.map(|v| v.trim_end_matches(' ')))
                    .collect::<StringArray>(),
            ) as ArrayRef,
            _ => col.clone(),
        })
        .collect();
    RecordBatch::try_new(schema, columns).map_err(|e| Error::arrow(path, e))
}
