//! TIMESTAMP(7..9) values in Parquet, which Java writes as `INT96` wherever they are, top level
//! or inside ROW, ARRAY, MULTISET and MAP (Paimon `ParquetSchemaConverter`,
//! `ParquetRowDataWriter.timestampToInt96`): 8 bytes of nanoseconds in the day, then 4 bytes of
//! Julian day, both little-endian, from the epoch milliseconds divided and remaindered toward
//! zero (so an instant before 1970 has a negative nanosecond count in its day, as Java's).
//!
//! The parquet crate's Arrow writer has no INT96 path, so each INT96 leaf column is buffered
//! here for the open row group, with the repetition and definition levels of its path, and
//! written through the low-level column writer; every other leaf goes through the Arrow
//! writers. A top-level INT96 field is left out of the Arrow writers' schema; a nested one
//! cannot be (its siblings share its parents), so the Arrow writers see it as INT64 and its
//! chunk is dropped for the INT96 one.

mod levels;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowLeafColumn};
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::{LogicalType, TimeUnit as PqTimeUnit, Type as PhysicalType};
use parquet::data_type::{Int96, Int96Type};
use parquet::errors::ParquetError;
use parquet::file::writer::SerializedRowGroupWriter;
use parquet::schema::types::{SchemaDescriptor, Type, TypePtr};

use levels::Levels;

type Result<T> = std::result::Result<T, ParquetError>;

const MILLIS_IN_DAY: i64 = 86_400_000;
/// Julian day number of 1970-01-01.
const JULIAN_EPOCH_OFFSET_DAYS: i64 = 2_440_588;

/// The INT96 value Java writes for `nanos` since the epoch.
pub(crate) fn int96_of(nanos: i64) -> Int96 {
    let millis = nanos.div_euclid(1_000_000);
    let nano_of_milli = nanos.rem_euclid(1_000_000);
    let julian_day = millis / MILLIS_IN_DAY + JULIAN_EPOCH_OFFSET_DAYS;
    let nanos_of_day = (millis % MILLIS_IN_DAY) * 1_000_000 + nano_of_milli;
    let mut v = Int96::new();
    let n = nanos_of_day as u64;
    v.set_data(n as u32, (n >> 32) as u32, julian_day as u32);
    v
}

/// Whether an Arrow type is one Java writes as INT96 (a nanosecond timestamp: the batches'
/// type of TIMESTAMP(7..9) and its local-zone variant).
fn is_int96(t: &ArrowType) -> bool {
    matches!(t, ArrowType::Timestamp(TimeUnit::Nanosecond, _))
}

/// Whether `t` holds an INT96 leaf anywhere.
fn holds_int96(t: &ArrowType) -> bool {
    match t {
        ArrowType::Struct(fields) => fields.iter().any(|f| holds_int96(f.data_type())),
        ArrowType::List(f) | ArrowType::Map(f, _) => holds_int96(f.data_type()),
        t => is_int96(t),
    }
}

/// Whether a file of `schema` has INT96 columns.
pub(crate) fn has_int96(schema: &Schema) -> bool {
    schema.fields().iter().any(|f| holds_int96(f.data_type()))
}

/// How a top-level field reaches the Arrow column writers.
#[derive(Debug)]
enum FieldPlan {
    /// As it is.
    Plain,
    /// Not at all: the field is one INT96 column.
    Removed,
    /// As this field, its nested INT96 leaves seen as INT64.
    Retyped(FieldRef),
}

/// Where a leaf column of the file comes from.
#[derive(Debug)]
enum LeafPlan {
    /// The next Arrow column chunk.
    Arrow,
    /// This buffer; `drops_chunk`: the Arrow writers also made a chunk for it (as INT64).
    Int96 {
        column: Int96Column,
        drops_chunk: bool,
    },
}

/// The layout of a file with INT96 columns: the file's Parquet schema, the schema the Arrow
/// column writers encode, and the source of each leaf column.
#[derive(Debug)]
pub(crate) struct Int96Layout {
    fields: Vec<FieldPlan>,
    leaves: Vec<LeafPlan>,
}

/// What [`Int96Layout::new`] sets up: the layout, the file's Parquet schema, and the Arrow and
/// Parquet schemas of the Arrow column writers.
pub(crate) type Int96Setup = (Int96Layout, TypePtr, SchemaRef, Arc<SchemaDescriptor>);

impl Int96Layout {
    /// The layout of a file whose batches have `arrow`'s schema.
    pub(crate) fn new(arrow: &SchemaRef) -> Result<Int96Setup> {
        let full = ArrowSchemaConverter::new().convert(arrow)?;
        let root = Arc::new(with_int96_leaves(full.root_schema())?);
        let descr = SchemaDescriptor::new(root.clone());
        let mut fields = Vec::with_capacity(arrow.fields().len());
        let mut writer_fields = Vec::with_capacity(arrow.fields().len());
        let mut leaves = Vec::with_capacity(descr.num_columns());
        for (index, f) in arrow.fields().iter().enumerate() {
            let plan = if is_int96(f.data_type()) {
                FieldPlan::Removed
            } else if holds_int96(f.data_type()) {
                FieldPlan::Retyped(Arc::new(retyped_field(f)))
            } else {
                FieldPlan::Plain
            };
            let mut paths = Vec::new();
            leaf_paths(f, &mut Vec::new(), &mut paths);
            for (path, int96) in paths {
                if !int96 {
                    leaves.push(LeafPlan::Arrow);
                    continue;
                }
                let col = descr.columns().get(leaves.len()).ok_or_else(|| {
                    ParquetError::General("more Arrow leaves than Parquet columns".into())
                })?;
                leaves.push(LeafPlan::Int96 {
                    column: Int96Column {
                        field: index,
                        nullable: f.is_nullable(),
                        path,
                        max_def: col.max_def_level(),
                        max_rep: col.max_rep_level(),
                        levels: Levels::default(),
                    },
                    drops_chunk: !matches!(plan, FieldPlan::Removed),
                });
            }
            match &plan {
                FieldPlan::Plain => writer_fields.push(f.clone()),
                FieldPlan::Retyped(r) => writer_fields.push(r.clone()),
                FieldPlan::Removed => {}
            }
            fields.push(plan);
        }
        if leaves.len() != descr.num_columns() {
            return Err(ParquetError::General(format!(
                "{} leaf columns in the Arrow schema, {} in the Parquet schema",
                leaves.len(),
                descr.num_columns()
            )));
        }
        let writers = Arc::new(Schema::new_with_metadata(
            writer_fields,
            arrow.metadata().clone(),
        ));
        let writers_descr = Arc::new(ArrowSchemaConverter::new().convert(&writers)?);
        Ok((Int96Layout { fields, leaves }, root, writers, writers_descr))
    }

    /// Buffers the INT96 columns of `batch` and returns the leaves of the others for the
    /// Arrow column writers.
    pub(crate) fn split(&mut self, batch: &RecordBatch) -> Result<Vec<ArrowLeafColumn>> {
        for leaf in &mut self.leaves {
            if let LeafPlan::Int96 { column, .. } = leaf {
                let array = batch.columns().get(column.field).ok_or_else(|| {
                    ParquetError::General(format!("the batch has no column {}", column.field))
                })?;
                column.push(array)?;
            }
        }
        let mut out = Vec::new();
        let fields = batch.schema_ref().fields().clone();
        for ((plan, field), column) in self.fields.iter().zip(fields.iter()).zip(batch.columns()) {
            match plan {
                FieldPlan::Plain => out.extend(compute_leaves(field, column)?),
                FieldPlan::Removed => {}
                FieldPlan::Retyped(f) => {
                    let column = retype(column, f.data_type())?;
                    out.extend(compute_leaves(f, &column)?);
                }
            }
        }
        Ok(out)
    }

    /// Bytes buffered in the INT96 columns.
    pub(crate) fn buffered(&self) -> usize {
        self.leaves
            .iter()
            .map(|l| match l {
                LeafPlan::Int96 { column, .. } => column.buffered(),
                LeafPlan::Arrow => 0,
            })
            .sum()
    }

    /// Writes the row group's columns in the file's order: the Arrow `chunks` and the
    /// buffered INT96 columns (emptied).
    pub(crate) fn write_row_group<W: std::io::Write + Send>(
        &mut self,
        chunks: Vec<ArrowColumnChunk>,
        group: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        let mut chunks = chunks.into_iter();
        let missing = || ParquetError::General("fewer Arrow column chunks than leaves".into());
        for leaf in &mut self.leaves {
            match leaf {
                LeafPlan::Arrow => chunks
                    .next()
                    .ok_or_else(missing)?
                    .append_to_row_group(group)?,
                LeafPlan::Int96 {
                    column,
                    drops_chunk,
                } => {
                    if *drops_chunk {
                        chunks.next().ok_or_else(missing)?;
                    }
                    column.write(group)?;
                }
            }
        }
        if chunks.next().is_some() {
            return Err(ParquetError::General(
                "a column chunk of the row group has no leaf".into(),
            ));
        }
        Ok(())
    }
}

/// The leaves of `f` in Parquet's column order, each with its path (the child index at each
/// ROW and MAP on the way; ARRAY has one child and takes no step) and whether it is INT96.
fn leaf_paths(f: &Field, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, bool)>) {
    match f.data_type() {
        ArrowType::Struct(children) => {
            for (k, c) in children.iter().enumerate() {
                path.push(k);
                leaf_paths(c, path, out);
                path.pop();
            }
        }
        ArrowType::List(e) => leaf_paths(e, path, out),
        ArrowType::Map(entries, _) => leaf_paths(entries, path, out),
        t => out.push((path.clone(), is_int96(t))),
    }
}

/// `f` with every INT96 leaf typed INT64 (same name, nullability and metadata).
fn retyped_field(f: &Field) -> Field {
    f.clone().with_data_type(retyped(f.data_type()))
}

fn retyped(t: &ArrowType) -> ArrowType {
    match t {
        ArrowType::Struct(children) => ArrowType::Struct(Fields::from(
            children
                .iter()
                .map(|c| retyped_field(c))
                .collect::<Vec<_>>(),
        )),
        ArrowType::List(e) => ArrowType::List(Arc::new(retyped_field(e))),
        ArrowType::Map(e, sorted) => ArrowType::Map(Arc::new(retyped_field(e)), *sorted),
        t if is_int96(t) => ArrowType::Int64,
        t => t.clone(),
    }
}

/// `array` as `to` ([`retyped`] of its type): the same buffers, nanosecond timestamps read as
/// INT64.
fn retype(array: &ArrayRef, to: &ArrowType) -> Result<ArrayRef> {
    let data = retype_data(array.to_data(), to)?;
    Ok(arrow_array::make_array(data))
}

fn retype_data(data: arrow_data::ArrayData, to: &ArrowType) -> Result<arrow_data::ArrayData> {
    let children: Vec<&ArrowType> = match to {
        ArrowType::Struct(fields) => fields.iter().map(|f| f.data_type()).collect(),
        ArrowType::List(e) | ArrowType::Map(e, _) => vec![e.data_type()],
        _ => Vec::new(),
    };
    let child_data = data
        .child_data()
        .iter()
        .zip(children)
        .map(|(c, t)| retype_data(c.clone(), t))
        .collect::<Result<Vec<_>>>()?;
    data.into_builder()
        .data_type(to.clone())
        .child_data(child_data)
        .build()
        .map_err(|e| ParquetError::General(format!("retyping an INT96 column: {e}")))
}

/// The Parquet schema `t` with every nanosecond TIMESTAMP leaf as a plain INT96 (same name,
/// repetition and field id), as Java declares TIMESTAMP(7..9).
fn with_int96_leaves(t: &Type) -> Result<Type> {
    let info = t.get_basic_info();
    if t.is_primitive() {
        let nanos = matches!(
            info.logical_type_ref(),
            Some(LogicalType::Timestamp(t)) if t.unit == PqTimeUnit::NANOS
        );
        if !nanos {
            return Ok(t.clone());
        }
        let mut b = Type::primitive_type_builder(info.name(), PhysicalType::INT96)
            .with_repetition(info.repetition());
        if info.has_id() {
            b = b.with_id(Some(info.id()));
        }
        return b.build();
    }
    let fields = t
        .get_fields()
        .iter()
        .map(|f| with_int96_leaves(f).map(Arc::new))
        .collect::<Result<Vec<_>>>()?;
    let mut b = Type::group_type_builder(info.name())
        .with_fields(fields)
        .with_converted_type(info.converted_type())
        .with_logical_type(info.logical_type_ref().cloned());
    if info.has_repetition() {
        b = b.with_repetition(info.repetition());
    }
    if info.has_id() {
        b = b.with_id(Some(info.id()));
    }
    b.build()
}

/// One INT96 leaf column's values and levels in the open row group.
#[derive(Debug)]
pub(crate) struct Int96Column {
    /// The top-level field it lies under, whether that field is nullable, and the path below
    /// it ([`leaf_paths`]).
    field: usize,
    nullable: bool,
    path: Vec<usize>,
    max_def: i16,
    max_rep: i16,
    levels: Levels,
}

impl Int96Column {
    /// Buffers a batch's top-level column holding this leaf.
    fn push(&mut self, column: &ArrayRef) -> Result<()> {
        for row in 0..column.len() {
            let top = levels::Node {
                array: column.as_ref(),
                index: row,
                nullable: self.nullable,
            };
            self.levels
                .visit(top, &self.path, levels::Above::default())?;
        }
        Ok(())
    }

    /// Bytes buffered.
    fn buffered(&self) -> usize {
        self.levels.values.len() * 12 + self.levels.defs.len() * 4
    }

    /// Writes the buffered values as the row group's next column and empties the buffer.
    fn write<W: std::io::Write + Send>(
        &mut self,
        group: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        let mut col = group
            .next_column()?
            .ok_or_else(|| ParquetError::General("no INT96 column left in the row group".into()))?;
        let l = &self.levels;
        let defs = (self.max_def > 0).then_some(l.defs.as_slice());
        let reps = (self.max_rep > 0).then_some(l.reps.as_slice());
        col.typed::<Int96Type>()
            .write_batch(&l.values, defs, reps)?;
        col.close()?;
        self.levels.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::int96_of;

    #[test]
    fn int96_is_javas_day_and_nanos_of_day() {
        // 1970-01-02 00:00:00.000000001: Julian day 2440589, 1 ns.
        let v = int96_of(86_400_000_000_000 + 1);
        assert_eq!(v.data(), &[1, 0, 2_440_589]);
        // 1 ns before the epoch: Java's millis is -1 (nano of milli 999,999), divided toward
        // zero: day 2440588, nanos of day -1 ms + 999,999 ns = -1 ns.
        let v = int96_of(-1);
        let nanos = (u64::from(v.data()[1]) << 32 | u64::from(v.data()[0])) as i64;
        assert_eq!((nanos, v.data()[2]), (-1, 2_440_588));
    }
}
