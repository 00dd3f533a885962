//! ORC decoding with `orc-rust` (Java `OrcReaderFactory`).
//!
//! Columns are matched by top-level name; deletion vectors become an ORC `RowSelection`.
//! Timestamps decode straight to the unit of the column's Paimon precision: `orc-rust`
//! defaults to nanoseconds, whose range (1677..2262) cannot hold every TIMESTAMP(0..6) value.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{
    ArrowError, DataType as ArrowType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit,
};
use orc_rust::arrow_reader::{ArrowReader, ArrowReaderBuilder};
use orc_rust::error::OrcError;
use orc_rust::projection::ProjectionMask;
use orc_rust::row_selection::{RowSelection, RowSelector};
use orc_rust::schema::DataType as OrcType;

use super::ranged::RangedFile;
use super::ts_range::format_timestamp_hybrid;
use super::{check_file_rows, BatchIter, DecodeRequest, RowRanges};
use crate::error::{Error, Result};

mod long_runs;
pub(super) mod plan;

/// Decodes `data`: orc-rust reads the tail, then the streams of the projected columns in the
/// stripes holding selected rows, which [`plan`] has planned as coalesced ranges.
pub(super) fn decode(path: &str, data: RangedFile, req: &DecodeRequest) -> Result<BatchIter> {
    match long_runs::coarsen(&data, req) {
        None => decode_as(path, data, req, true),
        Some((coarse, keep)) => {
            let batches = decode_as(path, data, &coarse, true)?;
            Ok(Box::new(super::SelectAfterDecode::new(
                batches, &keep, path,
            )))
        }
    }
}

/// [`decode`]; with `diagnose`, a timestamp overflow is looked into to name its column.
/// `orc-rust` panics on some damaged files; [`super::decode`] turns those into errors.
fn decode_as(
    path: &str,
    data: RangedFile,
    req: &DecodeRequest,
    diagnose: bool,
) -> Result<BatchIter> {
    // orc-rust recurses without end on a footer whose types form a cycle: a stack overflow, which
    // no guard catches.
    check_type_tree(&data).map_err(|reason| Error::corrupt(path, reason))?;
    // The file as opened: kept to plan its stripes, and to look into a failure.
    let for_diagnosis = (data.clone(), req.clone());
    let builder = ArrowReaderBuilder::try_new(data).map_err(|e| Error::Orc {
        path: path.to_string(),
        source: e,
    })?;
    let meta = builder.file_metadata();
    let stripe_rows = meta
        .stripe_metadatas()
        .iter()
        .try_fold(0u64, |acc, s| acc.checked_add(s.number_of_rows()))
        .ok_or_else(|| Error::corrupt(path, "stripe row counts overflow"))?;
    if meta.number_of_rows() != stripe_rows {
        return Err(Error::corrupt(
            path,
            format!(
                "the footer counts {} rows but its stripes hold {stripe_rows}",
                meta.number_of_rows()
            ),
        ));
    }
    check_file_rows(path, req, stripe_rows)?;
    let mut stripes = Vec::with_capacity(meta.stripe_metadatas().len());
    let mut start = 0u64;
    for s in meta.stripe_metadatas() {
        let end = start + s.number_of_rows();
        stripes.push((s.offset(), start..end));
        start = end;
    }
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
    // The stripes read: those holding a selected row.
    let read: Vec<usize> = (0..stripes.len())
        .filter(|&i| {
            req.rows
                .as_ref()
                .is_none_or(|rows| holds_selected(rows, &stripes[i].1))
        })
        .collect();
    let planned = &for_diagnosis.0;
    if let Some(p) = plan::plan_stripes(planned, meta, &root.project(&mask), &read) {
        planned.set_plan(p, None);
    }
    let present: Vec<String> = present.iter().map(|n| n.to_string()).collect();
    let builder = builder.with_projection(mask);
    let schema = builder.schema();
    let fields: Vec<FieldRef> = schema
        .fields()
        .iter()
        .map(|f| {
            let t = match req.types.iter().find(|(n, _)| n == f.name()) {
                Some((_, want)) => retarget(f.data_type(), want),
                None => f.data_type().clone(),
            };
            Arc::new(f.as_ref().clone().with_data_type(t))
        })
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let main_schema = schema.clone();
    let builder = builder
        .with_schema(schema.clone())
        .with_batch_size(req.batch_size.max(1));
    let reader: Box<dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>> + Send> =
        match &req.rows {
            Some(rows) if rows.selected() == 0 => return Ok(Box::new(std::iter::empty())),
            Some(rows) if !rows.is_all() => {
                let runs = stripe_runs(&stripes, rows);
                match runs.as_slice() {
                    // Every stripe holds a selected row: one reader over the whole file.
                    [(None, sel)] => Box::new(builder.with_row_selection(selection(sel)).build()),
                    _ => {
                        let data = for_diagnosis.0.clone();
                        let readers = runs
                            .iter()
                            .map(|run| open_run(&data, &present, &schema, req.batch_size, run))
                            .collect::<std::result::Result<Vec<_>, _>>()
                            .map_err(|e| Error::Orc {
                                path: path.to_string(),
                                source: e,
                            })?;
                        Box::new(readers.into_iter().flatten())
                    }
                }
            }
            _ => Box::new(builder.build()),
        };
    let path = path.to_string();
    let batches = reader.map(move |r| {
        r.map_err(|e| {
            let (data, req) = &for_diagnosis;
            let diagnosis = diagnose.then_some((data, req, main_schema.as_ref()));
            out_of_range_error(&path, &e, diagnosis)
                .or_else(|| null_map_key_error(&path, &e, diagnosis))
                .unwrap_or_else(|| Error::arrow(&path, e))
        })
        .and_then(|b| trim_chars(b, &char_columns, &path))
    });
    Ok(Box::new(batches))
}

/// A run of consecutive stripes to read: the byte range holding their offsets (`None`: every
/// stripe of the file) and the selection of their rows, positions relative to its first.
type StripeRun = (Option<Range<usize>>, RowRanges);

/// Whether the stripe of rows `stripe` holds a row of `rows`.
fn holds_selected(rows: &RowRanges, stripe: &Range<u64>) -> bool {
    rows.ranges()
        .iter()
        .any(|k| k.start < stripe.end && stripe.start < k.end)
}

/// The runs of consecutive stripes (`(offset, rows)` each) holding a row of `rows`: stripes
/// without one (pruned by their statistics, or deleted) are never read.
fn stripe_runs(stripes: &[(u64, Range<u64>)], rows: &RowRanges) -> Vec<StripeRun> {
    // A byte range selects stripes by offset: with offsets out of order it could take in a
    // stripe of another run, so such a (damaged) file is read whole.
    if stripes.windows(2).any(|w| w[0].0 >= w[1].0) {
        return vec![(None, rows.clone())];
    }
    let mut runs: Vec<Range<usize>> = Vec::new();
    for (i, (_, r)) in stripes.iter().enumerate() {
        if !holds_selected(rows, r) {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.end == i => run.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs.into_iter()
        .map(|run| {
            let first = &stripes[run.start];
            let last = &stripes[run.end - 1];
            let (start, end) = (first.1.start, last.1.end);
            let local = RowRanges {
                ranges: rows
                    .ranges()
                    .iter()
                    .filter_map(|k| {
                        let (s, e) = (k.start.max(start), k.end.min(end));
                        (s < e).then(|| s - start..e - start)
                    })
                    .collect(),
                total: end - start,
            };
            let bytes = (run.len() != stripes.len()).then(|| {
                let to = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
                to(first.0)..to(last.0).saturating_add(1)
            });
            (bytes, local)
        })
        .collect()
}

/// An ORC row selection of `rows`.
fn selection(rows: &RowRanges) -> RowSelection {
    RowSelection::from(
        rows.runs()
            .into_iter()
            .map(|(keep, n)| {
                if keep {
                    RowSelector::select(n)
                } else {
                    RowSelector::skip(n)
                }
            })
            .collect::<Vec<_>>(),
    )
}

/// [`paimon_format::orc::tail::check_type_tree`] on the file's tail, or, when the footer does not
/// fit in the tail, on as much of the file's end as its postscript names (the whole file when
/// the postscript is unreadable).
///
/// # Errors
/// The reason the type tree (or the tail) is unreadable.
pub(super) fn check_type_tree(data: &RangedFile) -> std::result::Result<(), String> {
    let tail = data.tail().map_err(|e| e.to_string())?;
    match paimon_format::orc::tail::check_type_tree(&tail) {
        Err(_) if (tail.len() as u64) < data.len() => {
            let len = data.len();
            let end = match paimon_format::orc::tail::tail_len(&tail) {
                Some(n) if n > tail.len() as u64 && n <= len => data.bytes(len - n..len),
                _ => data.whole().map_err(super::ranged::RangeError::Io),
            };
            paimon_format::orc::tail::check_type_tree(&end.map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())
        }
        other => other.map_err(|e| e.to_string()),
    }
}

/// A reader of the stripes of `run` only, decoding the `present` columns as `schema`.
fn open_run(
    data: &RangedFile,
    present: &[String],
    schema: &SchemaRef,
    batch_size: usize,
    run: &StripeRun,
) -> std::result::Result<ArrowReader<RangedFile>, OrcError> {
    let builder = ArrowReaderBuilder::try_new(data.clone())?;
    let names: Vec<&str> = present.iter().map(String::as_str).collect();
    let mask = ProjectionMask::named_roots(builder.file_metadata().root_data_type(), &names);
    let mut builder = builder
        .with_projection(mask)
        .with_schema(schema.clone())
        .with_batch_size(batch_size.max(1))
        .with_row_selection(selection(&run.1));
    if let Some(bytes) = &run.0 {
        builder = builder.with_file_byte_range(bytes.clone());
    }
    Ok(builder.build())
}

/// A [`Error::TimestampOutOfRange`] for `e` when it is `orc-rust`'s refusal of a timestamp
/// that nanoseconds cannot hold (it never wraps). The error carries the value but not the
/// column: when several columns decode to nanoseconds, each is decoded alone until one fails
/// the same way, which only this failing path pays for.
fn out_of_range_error(
    path: &str,
    e: &ArrowError,
    diagnose: Option<(&RangedFile, &DecodeRequest, &Schema)>,
) -> Option<Error> {
    let (seconds, nanoseconds) = nanos_overflow(e)?;
    let value = format_timestamp_hybrid(seconds, i64::try_from(nanoseconds).ok()?);
    let column = failing_column(path, diagnose, has_nanos, |e| {
        matches!(e, Error::TimestampOutOfRange { .. })
    });
    Some(Error::TimestampOutOfRange {
        path: path.to_string(),
        column,
        value,
    })
}

/// A [`Error::NullMapKey`] for `e` when it is `orc-rust`'s refusal of a map entry whose key is
/// null: it assembles a map's entries as a struct whose `keys` field is non-nullable, as the
/// Arrow Map type requires, and that struct rejects the null. The column is found as for
/// [`out_of_range_error`].
fn null_map_key_error(
    path: &str,
    e: &ArrowError,
    diagnose: Option<(&RangedFile, &DecodeRequest, &Schema)>,
) -> Option<Error> {
    if !is_null_map_key(e) {
        return None;
    }
    let column = failing_column(path, diagnose, has_map, |e| {
        matches!(e, Error::NullMapKey { .. })
    });
    Some(Error::NullMapKey {
        path: path.to_string(),
        column,
    })
}

/// The top-level column of `main_schema` behind a decoding error: the only column whose type
/// `may_fail`, or else the first such column that, decoded alone, fails as `is_same` says;
/// `(unknown)` without a diagnosis.
fn failing_column(
    path: &str,
    diagnose: Option<(&RangedFile, &DecodeRequest, &Schema)>,
    may_fail: fn(&ArrowType) -> bool,
    is_same: fn(&Error) -> bool,
) -> String {
    let Some((data, req, main_schema)) = diagnose else {
        return String::from("(unknown)");
    };
    let candidates: Vec<&str> = main_schema
        .fields()
        .iter()
        .filter(|f| may_fail(f.data_type()))
        .map(|f| f.name().as_str())
        .collect();
    let failing = |name: &&str| {
        let one = DecodeRequest {
            columns: vec![name.to_string()],
            ..req.clone()
        };
        decode_as(path, data.clone(), &one, false)
            .is_ok_and(|batches| batches.into_iter().any(|b| b.is_err_and(|e| is_same(&e))))
    };
    match candidates.as_slice() {
        [only] => only.to_string(),
        _ => candidates
            .iter()
            .copied()
            .find(failing)
            .map_or_else(|| String::from("(unknown)"), str::to_string),
    }
}

/// Whether `e` is the error `orc-rust` 0.9 raises for a null map key (see
/// [`null_map_key_error`]); its map decoder names the key field `keys`.
fn is_null_map_key(e: &ArrowError) -> bool {
    let ArrowError::ExternalError(source) = e else {
        return false;
    };
    matches!(
        source.downcast_ref::<OrcError>(),
        Some(OrcError::Arrow {
            source: ArrowError::InvalidArgumentError(m),
            ..
        }) if m.contains("non-nullable StructArray field \"keys\"")
    )
}

fn has_map(t: &ArrowType) -> bool {
    match t {
        ArrowType::Map(..) => true,
        ArrowType::Struct(fs) => fs.iter().any(|f| has_map(f.data_type())),
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _) => {
            has_map(f.data_type())
        }
        _ => false,
    }
}

/// The (seconds, nanoseconds) of an `orc-rust` timestamp that overflowed nanoseconds.
fn nanos_overflow(e: &ArrowError) -> Option<(i64, u64)> {
    let ArrowError::ExternalError(source) = e else {
        return None;
    };
    match source.downcast_ref::<OrcError>()? {
        OrcError::DecodeTimestamp {
            seconds,
            nanoseconds,
            to_time_unit: TimeUnit::Nanosecond,
            ..
        } => Some((*seconds, *nanoseconds)),
        _ => None,
    }
}

fn has_nanos(t: &ArrowType) -> bool {
    match t {
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => true,
        ArrowType::Struct(fs) => fs.iter().any(|f| has_nanos(f.data_type())),
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::Map(f, _) => {
            has_nanos(f.data_type())
        }
        ArrowType::FixedSizeList(f, _) => has_nanos(f.data_type()),
        _ => false,
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

#[cfg(test)]
mod timestamp_range_tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::TimestampNanosecondType;
    use arrow_array::{Array, TimestampMicrosecondArray};
    use orc_rust::arrow_writer::ArrowWriterBuilder;

    use super::*;
    use bytes::Bytes;

    /// 0001-01-01T00:00:00 in microseconds.
    const YEAR_1: i64 = -62_135_596_800_000_000;

    /// A file with columns `c_a` (always in range) and `c_ts9` holding `values`.
    fn orc_file(values: Vec<Option<i64>>) -> Bytes {
        let other = TimestampMicrosecondArray::from(vec![Some(7); values.len()]);
        let array = TimestampMicrosecondArray::from(values);
        let schema = Arc::new(Schema::new(vec![
            Field::new("c_a", other.data_type().clone(), true),
            Field::new("c_ts9", array.data_type().clone(), true),
        ]));
        let batch =
            RecordBatch::try_new(schema.clone(), vec![Arc::new(other), Arc::new(array)]).unwrap();
        let mut out = Vec::new();
        let mut writer = ArrowWriterBuilder::new(&mut out, schema)
            .try_build()
            .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    }

    fn request() -> DecodeRequest {
        let ns = ArrowType::Timestamp(TimeUnit::Nanosecond, None);
        DecodeRequest {
            columns: vec!["c_a".into(), "c_ts9".into()],
            types: vec![("c_a".into(), ns.clone()), ("c_ts9".into(), ns)],
            rows: None,
            batch_size: 1024,
            expected_rows: None,
        }
    }

    #[test]
    fn in_range_reads_unchanged() {
        let data = orc_file(vec![Some(1_000_001), None]);
        let batches: Vec<_> = decode("f.orc", RangedFile::memory("f.orc", data), &request())
            .unwrap()
            .collect::<Result<_>>()
            .unwrap();
        let ts = batches[0]
            .column(1)
            .as_primitive::<TimestampNanosecondType>();
        assert_eq!(ts.value(0), 1_000_001_000);
        assert!(ts.is_null(1));
    }

    #[test]
    fn out_of_range_names_column_and_value() {
        let data = orc_file(vec![Some(0), Some(YEAR_1)]);
        let err = decode("f.orc", RangedFile::memory("f.orc", data), &request())
            .unwrap()
            .collect::<Result<Vec<_>>>()
            .unwrap_err();
        // orc-rust writes proleptic seconds; Java's writer would store Julian 0001-01-01.
        assert!(
            matches!(
                &err,
                Error::TimestampOutOfRange { column, value, .. }
                    if column == "c_ts9" && value == "0001-01-03T00:00:00"
            ),
            "{err}"
        );
    }
}

#[cfg(test)]
mod null_map_key_tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;

    use super::*;
    use bytes::Bytes;

    /// paimon-cpp's `orc/nullable_map_key` file: `id INT, attrs MAP<STRING, INT>` with rows
    /// (1, {one: 10}), (2, {two: 20}), (3, {null: 30}), as its README lists them.
    fn file() -> Bytes {
        let path = format!(
            "{}/../../../shared/testdata/paimon-cpp/orc/nullable_map_key.db/nullable_map_key/\
             bucket-0/data-7e6899e9-f3cd-4d2e-86bc-7a5f383d5922-0.orc",
            env!("CARGO_MANIFEST_DIR")
        );
        Bytes::from(std::fs::read(&path).unwrap_or_else(|e| panic!("{path} missing: {e}")))
    }

    fn request(columns: &[&str]) -> DecodeRequest {
        DecodeRequest {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            types: Vec::new(),
            rows: None,
            batch_size: 1024,
            expected_rows: Some(3),
        }
    }

    #[test]
    fn null_key_is_a_typed_error_naming_the_column() {
        let err = decode(
            "f.orc",
            RangedFile::memory("f.orc", file()),
            &request(&["id", "attrs"]),
        )
        .unwrap()
        .collect::<Result<Vec<_>>>()
        .unwrap_err();
        assert!(
            matches!(&err, Error::NullMapKey { path, column } if path == "f.orc" && column == "attrs"),
            "{err}"
        );
    }

    #[test]
    fn other_columns_of_the_file_read() {
        let batches = decode(
            "f.orc",
            RangedFile::memory("f.orc", file()),
            &request(&["id"]),
        )
        .unwrap()
        .collect::<Result<Vec<_>>>()
        .unwrap();
        let ids: Vec<i32> = batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int32Type>().values().to_vec())
            .collect();
        assert_eq!(ids, [1, 2, 3]);
    }
}
