//! Parquet decoding with the `parquet` crate's Arrow reader (Java `ParquetReaderFactory`).
//!
//! Columns are matched by top-level name, as Java does; deletion vectors become a
//! `RowSelection`, so deleted rows are skipped inside the decoder.
//!
//! Java writes TIMESTAMP(7..9) as INT96, which the `parquet` crate converts to nanoseconds
//! with wrapping arithmetic. The columns holding INT96 leaves are therefore decoded a second
//! time at microsecond unit, in step with the main decode, and a value outside the nanosecond
//! range fails the read ([`Error::TimestampOutOfRange`]) instead of coming back wrapped.
//! INT64 nanosecond timestamps need no such check: they are Arrow's range by construction.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Schema, TimeUnit};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelector,
};
use parquet::arrow::ProjectionMask;
use parquet::basic::Type as PhysicalType;
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;

use super::ranged::{coalesce_group, Planned, RangedFile};
use super::ts_range::find_out_of_range;
use super::{
    check_file_rows, BatchIter, DecodeRequest, FilePredicate, LateMaterialization, RowRanges,
};
use crate::error::{Error, Result};

/// Decodes `data`; with `filter`, the predicate's columns are decoded first and the other
/// columns only for rows it keeps ([`super::parquet_filter`]). The flag tells whether the
/// filter was pushed (then fewer rows than selected may come back).
///
/// Only the row groups holding selected rows are decoded, and `data` is given a plan of their
/// projected column chunks ([`super::ranged`]), so a file behind a `FileIO` is read by those
/// ranges: the footer, then one row group's chunks at a time.
pub(super) fn decode(
    path: &str,
    data: RangedFile,
    req: &DecodeRequest,
    filter: Option<(&FilePredicate, LateMaterialization)>,
) -> Result<(BatchIter, bool)> {
    let perr = |e| Error::Parquet {
        path: path.to_string(),
        source: e,
    };
    let builder = ParquetRecordBatchReaderBuilder::try_new(data.clone()).map_err(perr)?;
    let total = file_rows(path, builder.metadata())?;
    check_file_rows(path, req, total)?;
    let roots: Vec<usize> = builder
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| req.columns.iter().any(|c| c == f.name()))
        .map(|(i, _)| i)
        .collect();
    refuse_shredded_variants(path, builder.schema(), &roots)?;
    if matches!(&req.rows, Some(rows) if rows.selected() == 0) {
        return Ok((Box::new(std::iter::empty()), false));
    }
    let groups = GroupSelection::new(builder.metadata(), req.rows.as_ref());
    let int96_roots: Vec<usize> = {
        let descr = builder.parquet_schema();
        let mut r: Vec<usize> = (0..descr.num_columns())
            .filter(|&leaf| descr.column(leaf).physical_type() == PhysicalType::INT96)
            .map(|leaf| descr.get_column_root_idx(leaf))
            .filter(|root| roots.contains(root))
            .collect();
        r.dedup();
        r
    };
    let has_int96 = !int96_roots.is_empty();
    // The INT96 check decodes in step with the main decode, row for row: no row filter then.
    let pushed = match filter {
        Some((f, mode)) if !has_int96 && mode != LateMaterialization::Never => {
            super::parquet_filter::plan(f, builder.schema(), builder.parquet_schema(), &roots)
                .map(|p| (p, mode))
        }
        _ => None,
    };
    let mut planned_roots = roots.clone();
    if let Some((p, _)) = &pushed {
        planned_roots.extend(&p.roots);
    }
    data.set_plan(
        plan_chunks(
            builder.metadata(),
            &groups.row_groups,
            &planned_roots,
            data.coalesce_gap(),
        ),
        Some(check_chunk_pages),
    );
    let check = if int96_roots.is_empty() {
        None
    } else {
        let schema = micros_schema(&builder);
        let options = ArrowReaderOptions::new().with_schema(Arc::new(schema));
        let meta =
            ArrowReaderMetadata::try_new(builder.metadata().clone(), options).map_err(perr)?;
        let check = ParquetRecordBatchReaderBuilder::new_with_metadata(data.clone(), meta);
        let mask = ProjectionMask::roots(check.parquet_schema(), int96_roots);
        Some(build(check, mask, &groups, req.batch_size).map_err(perr)?)
    };
    let row_filter = pushed
        .filter(|(p, mode)| {
            *mode == LateMaterialization::Always
                || p.selective(
                    &data,
                    builder.metadata(),
                    Some(groups.row_groups.clone()),
                    groups.selection.clone(),
                )
        })
        .map(|(p, _)| p.into_row_filter());
    let filtered = row_filter.is_some();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let builder = match row_filter {
        Some(f) => builder.with_row_filter(f),
        None => builder,
    };
    let reader = build(builder, mask, &groups, req.batch_size).map_err(perr)?;
    let path = path.to_string();
    let batches: BatchIter = match check {
        None => Box::new(reader.map(move |r| r.map_err(|e| Error::arrow(&path, e)))),
        Some(check) => Box::new(CheckedBatches {
            reader,
            check,
            path,
        }),
    };
    Ok((batches, filtered))
}

/// The row groups holding selected rows, and the selection restated over them alone (what
/// the `parquet` crate expects once row groups are chosen).
struct GroupSelection {
    row_groups: Vec<usize>,
    selection: Option<RowSelection>,
}

impl GroupSelection {
    fn new(meta: &ParquetMetaData, rows: Option<&RowRanges>) -> Self {
        let all: Vec<usize> = (0..meta.num_row_groups()).collect();
        let Some(rows) = rows.filter(|r| !r.is_all()) else {
            return GroupSelection {
                row_groups: all,
                selection: None,
            };
        };
        let mut row_groups = Vec::new();
        let mut selectors = Vec::new();
        let mut start = 0u64;
        for (i, rg) in meta.row_groups().iter().enumerate() {
            let end = start + u64::try_from(rg.num_rows()).unwrap_or(0);
            let kept = rows.within(start..end);
            if kept.iter().any(|r| r.start < r.end) {
                row_groups.push(i);
                let mut pos = start;
                for r in kept {
                    if r.start > pos {
                        selectors.push(RowSelector::skip(to_usize(r.start - pos)));
                    }
                    selectors.push(RowSelector::select(to_usize(r.end - r.start)));
                    pos = r.end;
                }
                if pos < end {
                    selectors.push(RowSelector::skip(to_usize(end - pos)));
                }
            }
            start = end;
        }
        GroupSelection {
            row_groups,
            selection: Some(RowSelection::from(selectors)),
        }
    }
}

/// Refuses a shredded VARIANT column among the columns read (`roots`).
///
/// Java writes a VARIANT column as a group of `metadata` and `value`; shredded (Java's
/// `variant.shreddingSchema`, the Parquet variant shredding spec) the group gains a
/// `typed_value` holding the shredded part of each value, which `value` then lacks. Reading
/// only `metadata` and `value` would silently drop the shredded fields, so until variants are
/// reconstructed from `typed_value` such a column is [`Error::Unsupported`], naming it and the
/// file. (A ROW column with fields named `metadata` and `typed_value` is refused too; Paimon
/// writes no such column for anything but a shredded variant.)
fn refuse_shredded_variants(path: &str, schema: &Schema, roots: &[usize]) -> Result<()> {
    for &i in roots {
        let field = schema.field(i);
        let ArrowType::Struct(children) = field.data_type() else {
            continue;
        };
        let has = |name: &str| children.iter().any(|c| c.name() == name);
        if has("metadata") && has("typed_value") {
            return Err(Error::unsupported(format!(
                "shredded VARIANT column {} in {path}: its typed_value (variant shredding) \
                 cannot be read yet, and reading the rest would drop the shredded fields",
                field.name()
            )));
        }
    }
    Ok(())
}

fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// The byte ranges of the column chunks of `roots` in `row_groups`, coalesced per row group.
fn plan_chunks(
    meta: &ParquetMetaData,
    row_groups: &[usize],
    roots: &[usize],
    gap: u64,
) -> Vec<Planned> {
    let descr = meta.file_metadata().schema_descr();
    let leaves: Vec<usize> = (0..descr.num_columns())
        .filter(|&leaf| roots.contains(&descr.get_column_root_idx(leaf)))
        .collect();
    let mut plan = Vec::new();
    for &g in row_groups {
        let Some(rg) = meta.row_groups().get(g) else {
            continue;
        };
        let chunks = leaves
            .iter()
            .filter_map(|&leaf| rg.columns().get(leaf))
            .map(|c| {
                let (start, len) = c.byte_range();
                start..start.saturating_add(len)
            })
            .collect();
        plan.extend(coalesce_group(g, chunks, gap));
    }
    plan
}

/// The page-header walk of [`super::parquet_pages`] on one fetched column chunk.
fn check_chunk_pages(group: usize, chunk: &Range<u64>, bytes: &[u8]) -> Result<(), String> {
    let len = usize::try_from(chunk.end - chunk.start).unwrap_or(usize::MAX);
    super::parquet_pages::check_chunk(bytes, len).map_err(|(offset, why)| {
        format!(
            "row group {group}, column chunk at byte {}: page header at byte {}: {why}",
            chunk.start,
            chunk.start + offset as u64
        )
    })
}

/// The rows of the file's row groups (what the reader decodes), which must agree with the
/// footer's own total.
fn file_rows(path: &str, meta: &parquet::file::metadata::ParquetMetaData) -> Result<u64> {
    let mut total = 0u64;
    for rg in meta.row_groups() {
        let n = u64::try_from(rg.num_rows())
            .map_err(|_| Error::corrupt(path, format!("row group of {} rows", rg.num_rows())))?;
        total = total
            .checked_add(n)
            .ok_or_else(|| Error::corrupt(path, "row group row counts overflow"))?;
    }
    let footer = meta.file_metadata().num_rows();
    if u64::try_from(footer).ok() != Some(total) {
        return Err(Error::corrupt(
            path,
            format!("the footer counts {footer} rows but its row groups hold {total}"),
        ));
    }
    Ok(total)
}

fn build(
    builder: ParquetRecordBatchReaderBuilder<RangedFile>,
    mask: ProjectionMask,
    groups: &GroupSelection,
    batch_size: usize,
) -> Result<ParquetRecordBatchReader, ParquetError> {
    let mut builder = builder
        .with_projection(mask)
        .with_row_groups(groups.row_groups.clone())
        .with_batch_size(batch_size.max(1));
    if let Some(selection) = groups.selection.clone() {
        builder = builder.with_row_selection(selection);
    }
    builder.build()
}

/// The file's Arrow schema with every INT96 leaf read as `Timestamp(us)`. Arrow leaves follow
/// the Parquet leaf columns in depth-first order.
fn micros_schema(builder: &ParquetRecordBatchReaderBuilder<RangedFile>) -> Schema {
    let descr = builder.parquet_schema();
    let mut leaves = (0..descr.num_columns()).map(|i| descr.column(i).physical_type());
    let fields: Vec<Field> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| retarget_field(f, &mut leaves))
        .collect();
    Schema::new_with_metadata(fields, builder.schema().metadata().clone())
}

fn retarget_field(f: &Field, leaves: &mut impl Iterator<Item = PhysicalType>) -> Field {
    f.clone().with_data_type(retarget(f.data_type(), leaves))
}

fn retarget(dt: &ArrowType, leaves: &mut impl Iterator<Item = PhysicalType>) -> ArrowType {
    let child = |f: &arrow_schema::FieldRef, leaves: &mut _| Arc::new(retarget_field(f, leaves));
    match dt {
        ArrowType::Struct(fs) => ArrowType::Struct(fs.iter().map(|f| child(f, leaves)).collect()),
        ArrowType::List(f) => ArrowType::List(child(f, leaves)),
        ArrowType::LargeList(f) => ArrowType::LargeList(child(f, leaves)),
        ArrowType::FixedSizeList(f, n) => ArrowType::FixedSizeList(child(f, leaves), *n),
        ArrowType::Map(f, sorted) => ArrowType::Map(child(f, leaves), *sorted),
        ArrowType::Timestamp(TimeUnit::Nanosecond, tz) => match leaves.next() {
            Some(PhysicalType::INT96) => ArrowType::Timestamp(TimeUnit::Microsecond, tz.clone()),
            _ => dt.clone(),
        },
        other => {
            leaves.next();
            other.clone()
        }
    }
}

/// The main decode, each batch checked against the same rows decoded at microsecond unit.
struct CheckedBatches {
    reader: ParquetRecordBatchReader,
    check: ParquetRecordBatchReader,
    path: String,
}

impl CheckedBatches {
    fn verify(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let micros = match self.check.next() {
            Some(Ok(m)) => m,
            Some(Err(e)) => return Err(Error::arrow(&self.path, e)),
            None => {
                return Err(Error::Internal(format!(
                    "the microsecond check of {} ended before its decode",
                    self.path
                )))
            }
        };
        if micros.num_rows() != batch.num_rows() {
            return Err(Error::Internal(format!(
                "the microsecond check of {} is not in step with its decode",
                self.path
            )));
        }
        let schema = micros.schema();
        let main = batch.schema();
        for (f, col) in schema.fields().iter().zip(micros.columns()) {
            let Ok(main_field) = main.field_with_name(f.name()) else {
                continue;
            };
            if let Some(hit) = find_out_of_range(col, main_field.data_type(), f.name()) {
                return Err(Error::TimestampOutOfRange {
                    path: self.path.clone(),
                    column: hit.column,
                    value: hit.value,
                });
            }
        }
        Ok(batch)
    }
}

impl Iterator for CheckedBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.reader.next()? {
            Ok(b) => b,
            Err(e) => return Some(Err(Error::arrow(&self.path, e))),
        };
        Some(self.verify(batch))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::cast::AsArray;
    use arrow_array::types::TimestampNanosecondType;
    use parquet::data_type::{Int96, Int96Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    use super::*;
    use bytes::Bytes;

    const JULIAN_EPOCH: u32 = 2_440_588;

    fn int96(julian_day: u32, nanos_of_day: u64) -> Int96 {
        let mut v = Int96::new();
        v.set_data(nanos_of_day as u32, (nanos_of_day >> 32) as u32, julian_day);
        v
    }

    /// A file with one optional INT96 column `c_ts9` holding `values`.
    fn int96_file(values: &[Int96]) -> Bytes {
        let schema = Arc::new(parse_message_type("message m { optional int96 c_ts9; }").unwrap());
        let mut out = Vec::new();
        let mut writer =
            SerializedFileWriter::new(&mut out, schema, Arc::new(WriterProperties::new())).unwrap();
        let mut rg = writer.next_row_group().unwrap();
        let mut col = rg.next_column().unwrap().unwrap();
        let defs = vec![1i16; values.len()];
        col.typed::<Int96Type>()
            .write_batch(values, Some(&defs), None)
            .unwrap();
        col.close().unwrap();
        rg.close().unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    }

    fn request() -> DecodeRequest {
        DecodeRequest {
            columns: vec!["c_ts9".into()],
            types: Vec::new(),
            rows: None,
            batch_size: 1024,
            expected_rows: None,
        }
    }

    #[test]
    fn int96_in_range_reads_unchanged() {
        // 1970-01-02T00:00:00.000000123 and 2262-04-11T00:00:00.
        let data = int96_file(&[
            int96(JULIAN_EPOCH + 1, 123),
            int96(JULIAN_EPOCH + 106_751, 0),
        ]);
        let batches: Vec<_> = decode(
            "f.parquet",
            RangedFile::memory("f.parquet", data),
            &request(),
            None,
        )
        .unwrap()
        .0
        .collect::<Result<_>>()
        .unwrap();
        let ts = batches[0]
            .column(0)
            .as_primitive::<TimestampNanosecondType>();
        assert_eq!(ts.value(0), 86_400_000_000_123);
        assert_eq!(ts.value(1), 106_751 * 86_400_000_000_000);
    }

    #[test]
    fn int96_out_of_range_is_an_error_not_a_wrapped_value() {
        // 0001-01-01T00:00:00 is Julian day 1721426.
        let data = int96_file(&[int96(JULIAN_EPOCH, 0), int96(1_721_426, 0)]);
        let err = decode(
            "f.parquet",
            RangedFile::memory("f.parquet", data),
            &request(),
            None,
        )
        .unwrap()
        .0
        .collect::<Result<Vec<_>>>()
        .unwrap_err();
        match &err {
            Error::TimestampOutOfRange {
                path,
                column,
                value,
            } => {
                assert_eq!(
                    (path.as_str(), column.as_str(), value.as_str()),
                    ("f.parquet", "c_ts9", "0001-01-01T00:00:00")
                );
            }
            other => panic!("unexpected {other}"),
        }
        assert!(err.to_string().contains(
            "timestamp 0001-01-01T00:00:00 of column c_ts9 is outside the range Arrow nanosecond"
        ));
    }

    #[test]
    fn deleted_out_of_range_rows_do_not_fail() {
        let data = int96_file(&[int96(JULIAN_EPOCH, 0), int96(1_721_426, 0)]);
        let mut req = request();
        req.rows = Some(super::super::RowRanges::excluding(2, [1]));
        let batches: Vec<_> = decode(
            "f.parquet",
            RangedFile::memory("f.parquet", data),
            &req,
            None,
        )
        .unwrap()
        .0
        .collect::<Result<_>>()
        .unwrap();
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
    }
}
