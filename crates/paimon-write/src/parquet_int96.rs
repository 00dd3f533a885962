//! TIMESTAMP(7..9) columns in Parquet, which Java writes as `INT96` (Paimon
//! `ParquetRowDataWriter.timestampToInt96`): 8 bytes of nanoseconds in the day, then 4 bytes of
//! Julian day, both little-endian, from the epoch milliseconds divided and remaindered toward
//! zero (so an instant before 1970 has a negative nanosecond count in its day, as Java's). The
//! parquet crate's Arrow writer has no INT96 path, so these columns are buffered here for the
//! open row group and written through the low-level column writer; every other column goes
//! through the Arrow writers.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType as ArrowType, Schema, SchemaRef, TimeUnit};
use paimon_spec::types::{DataField, TypeKind};
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::Type as PhysicalType;
use parquet::data_type::{Int96, Int96Type};
use parquet::errors::ParquetError;
use parquet::file::writer::SerializedRowGroupWriter;
use parquet::schema::types::{SchemaDescriptor, Type, TypePtr};

type Result<T> = std::result::Result<T, ParquetError>;

const MILLIS_IN_DAY: i64 = 86_400_000;
/// Julian day number of 1970-01-01.
const JULIAN_EPOCH_OFFSET_DAYS: i64 = 2_440_588;

/// Whether a top-level field is written as INT96.
pub(crate) fn is_int96(f: &DataField) -> bool {
    matches!(
        f.data_type.kind,
        TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision }
            if precision > 6
    )
}

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

/// The Parquet schema of a file whose Arrow schema is `arrow`, with the top-level fields
/// flagged in `int96` as INT96 columns (same name, repetition and field id), and the Arrow
/// schema and Parquet schema of the other fields (what the Arrow column writers encode).
pub(crate) fn schemas(
    arrow: &SchemaRef,
    int96: &[bool],
) -> Result<(TypePtr, SchemaRef, Arc<SchemaDescriptor>)> {
    let full = ArrowSchemaConverter::new().convert(arrow)?;
    let root = full.root_schema();
    let fields: Vec<TypePtr> = root
        .get_fields()
        .iter()
        .zip(int96)
        .map(|(f, &flag)| {
            if !flag {
                return Ok(f.clone());
            }
            let info = f.get_basic_info();
            let mut b = Type::primitive_type_builder(info.name(), PhysicalType::INT96)
                .with_repetition(info.repetition());
            if info.has_id() {
                b = b.with_id(Some(info.id()));
            }
            b.build().map(Arc::new)
        })
        .collect::<Result<_>>()?;
    let root = Type::group_type_builder(root.name())
        .with_fields(fields)
        .build()?;
    let others: Vec<_> = arrow
        .fields()
        .iter()
        .zip(int96)
        .filter(|(_, &flag)| !flag)
        .map(|(f, _)| f.clone())
        .collect();
    let others = Arc::new(Schema::new_with_metadata(others, arrow.metadata().clone()));
    let others_descr = Arc::new(ArrowSchemaConverter::new().convert(&others)?);
    Ok((Arc::new(root), others, others_descr))
}

/// One INT96 column's values and definition levels in the open row group.
#[derive(Debug, Default)]
pub(crate) struct Int96Column {
    values: Vec<Int96>,
    defs: Vec<i16>,
    nullable: bool,
}

impl Int96Column {
    pub(crate) fn new(nullable: bool) -> Self {
        Int96Column {
            nullable,
            ..Default::default()
        }
    }

    /// Buffers a batch's column (nanosecond timestamps, with or without a zone).
    pub(crate) fn push(&mut self, column: &ArrayRef) -> Result<()> {
        if !matches!(
            column.data_type(),
            ArrowType::Timestamp(TimeUnit::Nanosecond, _)
        ) {
            return Err(ParquetError::General(format!(
                "an INT96 column of Arrow type {}",
                column.data_type()
            )));
        }
        let a = column.as_primitive::<TimestampNanosecondType>();
        for i in 0..a.len() {
            if a.is_null(i) {
                if !self.nullable {
                    return Err(ParquetError::General(
                        "a null in a NOT NULL INT96 column".into(),
                    ));
                }
                self.defs.push(0);
            } else {
                self.values.push(int96_of(a.value(i)));
                self.defs.push(1);
            }
        }
        Ok(())
    }

    /// Bytes buffered.
    pub(crate) fn buffered(&self) -> usize {
        self.values.len() * 12
    }

    /// Writes the buffered values as the row group's next column and empties the buffer.
    pub(crate) fn write<W: std::io::Write + Send>(
        &mut self,
        group: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        let mut col = group
            .next_column()?
            .ok_or_else(|| ParquetError::General("no INT96 column left in the row group".into()))?;
        let defs = self.nullable.then_some(self.defs.as_slice());
        col.typed::<Int96Type>()
            .write_batch(&self.values, defs, None)?;
        col.close()?;
        self.values.clear();
        self.defs.clear();
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
