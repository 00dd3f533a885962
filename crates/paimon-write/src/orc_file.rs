//! One ORC data file being written, through paimon-format's ORC encoder
//! ([`paimon_format::orc::write`]), with Java Paimon's type mapping (`OrcTypeUtil`): CHAR, VARCHAR
//! and STRING as ORC `string` (which Java reads into its CHAR/VARCHAR columns), BINARY and
//! VARBINARY as `binary`, TIME as `int` (milliseconds of the day), TIMESTAMP as `timestamp`,
//! TIMESTAMP WITH LOCAL TIME ZONE as `timestamp with local time zone`, ARRAY as `list`, MAP as
//! `map`, MULTISET as `map<element, int>` and ROW as `struct`. Column statistics are collected
//! row by row ([`crate::stats::StatsCollector`]), giving the values Java's
//! `OrcSimpleStatsExtractor` reads back from its own footers.

use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use paimon_format::orc::write::{OrcCodec, OrcColumn, OrcType, OrcWriter};
use paimon_io::FileWriter;
use paimon_spec::types::{DataField, DataType, TypeKind};

use crate::data_file::{close_stream, FinishedFile};
use crate::error::{Error, Result};
use crate::sink::Sink;
use crate::stats::{StatsCollector, StatsMode};

/// What every ORC file of one table is written with.
#[derive(Debug, Clone)]
pub struct OrcFormat {
    codec: OrcCodec,
    types: Vec<(String, OrcType)>,
    fields: Vec<DataField>,
    stripe_size: usize,
}

impl OrcFormat {
    /// The format of files of `fields` for `file.compression` (zstd at `zstd_level`); stripes
    /// are closed at a quarter of `target_file_size` (1..64 MiB) of buffered values, so that
    /// rolling, which sees only the stripes written, overshoots the target by little.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a column type Java has no ORC form for;
    /// [`Error::InvalidOption`] for a codec ORC does not have here.
    pub fn try_new(
        table: &str,
        fields: &[DataField],
        compression: &str,
        zstd_level: i32,
        target_file_size: u64,
    ) -> Result<Self> {
        let types = fields
            .iter()
            .map(|f| {
                orc_type(&f.data_type)
                    .map(|t| (f.name.clone(), t))
                    .map_err(|t| Error::Unsupported {
                        feature: format!(
                            "table {table}: writing column {} of type {} to ORC ({t} has no ORC \
                             form in Java Paimon)",
                            f.name, f.data_type
                        ),
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        let codec =
            OrcCodec::from_name(compression, zstd_level).ok_or_else(|| Error::InvalidOption {
                key: "file.compression".into(),
                value: compression.to_string(),
                reason: "not an ORC codec the writer has (zstd, snappy, zlib, lz4, none)".into(),
            })?;
        let stripe_size = usize::try_from(target_file_size / 4)
            .unwrap_or(usize::MAX)
            .clamp(1 << 20, 64 << 20);
        Ok(OrcFormat {
            codec,
            types,
            fields: fields.to_vec(),
            stripe_size,
        })
    }
}

/// The ORC type of a Paimon type (Java `OrcTypeUtil.convertToOrcType`); the type's text when
/// it has none.
fn orc_type(t: &DataType) -> std::result::Result<OrcType, String> {
    Ok(match &t.kind {
        TypeKind::Boolean => OrcType::Boolean,
        TypeKind::TinyInt => OrcType::Byte,
        TypeKind::SmallInt => OrcType::Short,
        TypeKind::Int | TypeKind::Time { .. } => OrcType::Int,
        TypeKind::BigInt => OrcType::Long,
        TypeKind::Float => OrcType::Float,
        TypeKind::Double => OrcType::Double,
        TypeKind::Decimal { precision, scale } => OrcType::Decimal {
            precision: *precision,
            scale: *scale,
        },
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => OrcType::String,
        TypeKind::Binary { .. } | TypeKind::VarBinary { .. } => OrcType::Binary,
        TypeKind::Date => OrcType::Date,
        TypeKind::Timestamp { .. } => OrcType::Timestamp,
        TypeKind::LocalZonedTimestamp { .. } => OrcType::TimestampInstant,
        TypeKind::Array(e) => OrcType::List(Box::new(orc_type(e)?)),
        TypeKind::Multiset(e) => OrcType::Map(Box::new(orc_type(e)?), Box::new(OrcType::Int)),
        TypeKind::Map { key, value } => {
            OrcType::Map(Box::new(orc_type(key)?), Box::new(orc_type(value)?))
        }
        TypeKind::Row(fields) => OrcType::Struct(
            fields
                .iter()
                .map(|f| Ok((f.name.clone(), orc_type(&f.data_type)?)))
                .collect::<std::result::Result<_, String>>()?,
        ),
        _ => return Err(t.to_string()),
    })
}

/// The slots of an array pushed into a column: a range, or the positions of a parent's
/// non-null rows.
enum Rows {
    Range(Range<usize>),
    Indices(Vec<usize>),
}

impl Rows {
    fn iter(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        match self {
            Rows::Range(r) => Box::new(r.clone()),
            Rows::Indices(v) => Box::new(v.iter().copied()),
        }
    }
}

/// Pushes the slots `rows` of `array` into column `id` (of type `t`) and its children.
fn push(
    cols: &mut [OrcColumn],
    id: usize,
    t: &OrcType,
    array: &dyn Array,
    rows: &Rows,
) -> std::result::Result<(), String> {
    let Some((col, children)) = cols.get_mut(id..).and_then(|c| c.split_first_mut()) else {
        return Err(format!("no ORC column {id}"));
    };
    let mismatch = || {
        format!(
            "an Arrow {} array where ORC type {t:?} was expected",
            array.data_type()
        )
    };
    macro_rules! each {
        ($values:expr, |$v:ident| $push:expr) => {{
            let values = $values;
            for i in rows.iter() {
                if values.is_null(i) {
                    col.push_null();
                } else {
                    let $v = values.value(i);
                    $push;
                }
            }
        }};
    }
    match (t, array.data_type()) {
        (OrcType::Boolean, ArrowType::Boolean) => each!(array.as_boolean(), |v| col.push_bool(v)),
        (OrcType::Byte, ArrowType::Int8) => {
            each!(array.as_primitive::<Int8Type>(), |v| col.push_byte(v))
        }
        (OrcType::Short, ArrowType::Int16) => each!(array.as_primitive::<Int16Type>(), |v| col
            .push_long(i64::from(v))),
        (OrcType::Int, ArrowType::Int32) => each!(array.as_primitive::<Int32Type>(), |v| col
            .push_long(i64::from(v))),
        (OrcType::Int, ArrowType::Time32(TimeUnit::Millisecond)) => {
            each!(array.as_primitive::<Time32MillisecondType>(), |v| col
                .push_long(i64::from(v)))
        }
        (OrcType::Long, ArrowType::Int64) => {
            each!(array.as_primitive::<Int64Type>(), |v| col.push_long(v))
        }
        (OrcType::Date, ArrowType::Date32) => each!(array.as_primitive::<Date32Type>(), |v| col
            .push_long(i64::from(v))),
        (OrcType::Float, ArrowType::Float32) => {
            each!(array.as_primitive::<Float32Type>(), |v| col.push_f32(v))
        }
        (OrcType::Double, ArrowType::Float64) => {
            each!(array.as_primitive::<Float64Type>(), |v| col.push_f64(v))
        }
        (OrcType::String, ArrowType::Utf8) => {
            each!(array.as_string::<i32>(), |v| col.push_bytes(v.as_bytes()))
        }
        (OrcType::String, ArrowType::LargeUtf8) => {
            each!(array.as_string::<i64>(), |v| col.push_bytes(v.as_bytes()))
        }
        (OrcType::Binary, ArrowType::Binary) => {
            each!(array.as_binary::<i32>(), |v| col.push_bytes(v))
        }
        (OrcType::Binary, ArrowType::LargeBinary) => {
            each!(array.as_binary::<i64>(), |v| col.push_bytes(v))
        }
        (OrcType::Decimal { .. }, ArrowType::Decimal128(..)) => {
            each!(array.as_primitive::<Decimal128Type>(), |v| col
                .push_decimal(v))
        }
        (OrcType::Timestamp | OrcType::TimestampInstant, ArrowType::Timestamp(unit, _)) => {
            let per_second: i64 = match unit {
                TimeUnit::Second => 1,
                TimeUnit::Millisecond => 1_000,
                TimeUnit::Microsecond => 1_000_000,
                TimeUnit::Nanosecond => 1_000_000_000,
            };
            let value_at: &dyn Fn(usize) -> Option<i64> = match unit {
                TimeUnit::Second => &timestamp_at(array.as_primitive::<TimestampSecondType>()),
                TimeUnit::Millisecond => {
                    &timestamp_at(array.as_primitive::<TimestampMillisecondType>())
                }
                TimeUnit::Microsecond => {
                    &timestamp_at(array.as_primitive::<TimestampMicrosecondType>())
                }
                TimeUnit::Nanosecond => {
                    &timestamp_at(array.as_primitive::<TimestampNanosecondType>())
                }
            };
            for i in rows.iter() {
                match value_at(i) {
                    None => col.push_null(),
                    Some(v) => {
                        let nanos = v.rem_euclid(per_second) * (1_000_000_000 / per_second);
                        col.push_timestamp(v.div_euclid(per_second), nanos as u32)
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
        }
        (OrcType::List(e), ArrowType::List(_)) => {
            let list = array.as_list::<i32>();
            let offsets = list.value_offsets();
            let mut elements = Vec::new();
            for i in rows.iter() {
                if list.is_null(i) {
                    col.push_null();
                } else {
                    let (a, b) = (offsets[i] as usize, offsets[i + 1] as usize);
                    col.push_length(b - a);
                    elements.extend(a..b);
                }
            }
            push(
                children,
                0,
                e,
                list.values().as_ref(),
                &Rows::Indices(elements),
            )?;
        }
        (OrcType::Map(k, v), ArrowType::Map(..)) => {
            let map = array.as_map();
            let offsets = map.value_offsets();
            let mut entries = Vec::new();
            for i in rows.iter() {
                if map.is_null(i) {
                    col.push_null();
                } else {
                    let (a, b) = (offsets[i] as usize, offsets[i + 1] as usize);
                    col.push_length(b - a);
                    entries.extend(a..b);
                }
            }
            let entries = Rows::Indices(entries);
            push(children, 0, k, map.keys().as_ref(), &entries)?;
            push(
                children,
                k.column_count(),
                v,
                map.values().as_ref(),
                &entries,
            )?;
        }
        (OrcType::Struct(fields), ArrowType::Struct(_)) => {
            let s = array.as_struct();
            if s.num_columns() != fields.len() {
                return Err(mismatch());
            }
            let mut valid = Vec::new();
            for i in rows.iter() {
                if s.is_null(i) {
                    col.push_null();
                } else {
                    col.push_struct();
                    valid.push(i);
                }
            }
            let valid = Rows::Indices(valid);
            let mut child = 0;
            for ((_, ft), c) in fields.iter().zip(s.columns()) {
                push(children, child, ft, c.as_ref(), &valid)?;
                child += ft.column_count();
            }
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

/// The value at a position of a timestamp array, `None` when null.
fn timestamp_at<T: arrow_array::types::ArrowTimestampType>(
    a: &arrow_array::PrimitiveArray<T>,
) -> impl Fn(usize) -> Option<i64> + '_ {
    move |i| (!a.is_null(i)).then(|| a.value(i))
}

/// An ORC file open for writing.
pub struct OrcFile {
    path: String,
    writer: Option<OrcWriter<Sink>>,
    out: Sink,
    types: Vec<(String, OrcType)>,
    stats: StatsCollector,
    rows: u64,
}

impl std::fmt::Debug for OrcFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrcFile")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl OrcFile {
    /// Starts a file at `path` on `out`.
    ///
    /// # Errors
    /// [`Error::Orc`] when the storage refuses the file's first bytes.
    pub fn try_new(
        table: &str,
        path: &str,
        out: Box<dyn FileWriter>,
        format: &OrcFormat,
    ) -> Result<Self> {
        let out = Sink::new(out);
        let writer = OrcWriter::try_new(
            out.clone(),
            format.types.clone(),
            format.codec,
            format.stripe_size,
        );
        let writer = match writer {
            Ok(w) => w,
            Err(e) => {
                if let Some(o) = out.take() {
                    let _ = o.abort();
                }
                return Err(Error::Orc {
                    table: table.to_string(),
                    path: path.to_string(),
                    reason: e.to_string(),
                });
            }
        };
        Ok(OrcFile {
            path: path.to_string(),
            writer: Some(writer),
            out,
            types: format.types.clone(),
            stats: StatsCollector::new(&format.fields),
            rows: 0,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Bytes of the stripes written so far (the open stripe is not counted).
    pub fn data_size(&self) -> u64 {
        self.out.position()
    }

    /// Java `OrcBulkWriter.length()`: the bytes written plus a fifth of the open stripe's
    /// buffered values (what Java's format tables roll at).
    pub fn estimated_length(&self) -> u64 {
        let buffered = self.writer.as_ref().map_or(0, OrcWriter::buffered);
        self.out.position() + buffered.div_ceil(5)
    }

    fn error(&self, table: &str, reason: String) -> Error {
        Error::Orc {
            table: table.to_string(),
            path: self.path.clone(),
            reason,
        }
    }

    /// Appends a batch (in the file's row). A value ORC cannot hold fails the file: it must
    /// then be aborted.
    ///
    /// # Errors
    /// [`Error::Orc`] naming the column for a value ORC cannot hold or a batch of another
    /// layout, or when the storage failed.
    pub fn write(&mut self, table: &str, batch: &RecordBatch) -> Result<()> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(self.error(table, "the file already failed".into()));
        };
        if batch.num_columns() != self.types.len() {
            return Err(self.error(
                table,
                format!(
                    "a batch of {} columns for a row of {}",
                    batch.num_columns(),
                    self.types.len()
                ),
            ));
        }
        let rows = Rows::Range(0..batch.num_rows());
        let cols = writer.columns();
        for _ in 0..batch.num_rows() {
            cols[0].push_struct();
        }
        let mut id = 1;
        let mut failed = None;
        for ((name, t), column) in self.types.iter().zip(batch.columns()) {
            if let Err(e) = push(cols, id, t, column.as_ref(), &rows) {
                failed = Some(format!("column {name}: {e}"));
                break;
            }
            id += t.column_count();
        }
        let result = match failed {
            Some(reason) => Err(reason),
            None => writer
                .end_rows(batch.num_rows() as u64)
                .map_err(|e| e.to_string()),
        };
        if let Err(reason) = result {
            // The columns may hold part of the batch: the file cannot be finished.
            self.writer = None;
            return Err(self.error(table, reason));
        }
        self.stats.collect(batch);
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    /// Writes the last stripe and the footer and closes the file.
    ///
    /// # Errors
    /// [`Error::Orc`] or [`Error::Io`] when the storage fails or an earlier batch failed; the
    /// file must then be treated as not written.
    pub fn finish(
        mut self,
        table: &str,
        _fields: &[DataField],
        modes: &[StatsMode],
    ) -> Result<FinishedFile> {
        let finished = match self.writer.take() {
            Some(w) => w.finish().map(|_| ()).map_err(|e| e.to_string()),
            None => Err("an earlier batch failed".to_string()),
        };
        if let Err(reason) = finished {
            if let Some(o) = self.out.take() {
                let _ = o.abort();
            }
            return Err(self.error(table, reason));
        }
        let path = self.path.clone();
        let out = self
            .out
            .take()
            .ok_or_else(|| Error::Internal(format!("stream of {path} already taken")))?;
        let size = close_stream(out, table, &path)?;
        Ok(FinishedFile {
            size,
            rows: self.rows,
            stats: self.stats.finish(modes),
        })
    }

    /// Abandons the file.
    pub fn abort(mut self) {
        self.writer = None;
        if let Some(o) = self.out.take() {
            let _ = o.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn writers_stay_send() {
        fn send<T: Send>() {}
        send::<super::OrcFile>();
        send::<crate::TableWrite>();
        send::<crate::TableCompact>();
    }
}
