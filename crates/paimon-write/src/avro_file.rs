//! One Avro data file being written (Java `AvroFileFormat`'s writer over
//! `AvroSchemaConverter.convertToSchema`).
//!
//! The header schema is the one Java derives from the file's row type: record
//! `org.apache.paimon.avro.generated.record`, nested rows named `<parent>_<field>`, nullable
//! types as `["null", T]` with `"default": null`; TINYINT and SMALLINT as `int`, decimals as
//! `bytes` with the `decimal` logical type, timestamps as `long` with `timestamp-millis|micros`
//! (`local-timestamp-*` for the local zone variant), maps with string keys as Avro maps and any
//! other map (and multisets, maps to INT) as arrays of `{key, value}` records. Java keeps no footer statistics for Avro: it collects them row by row while
//! writing ([`crate::stats::StatsCollector`] does the same here).

use std::io::Write;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, ListArray, MapArray, RecordBatch, StructArray};
use arrow_avro::schema::SCHEMA_METADATA_KEY;
use arrow_avro::writer::format::AvroBinaryFormat;
use arrow_avro::writer::{Encoder, WriterBuilder};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema, SchemaRef};
use paimon_format::avro::container::{self as avro_container, AvroCodec, BLOCK_SIZE};
use paimon_io::FileWriter;
use paimon_spec::types::{DataField, DataType, TypeKind};

use crate::data_file::{close_stream, FinishedFile};
use crate::error::{Error, Result};
use crate::stats::{StatsCollector, StatsMode};

/// The name Java gives the top-level record.
const ROW_NAME: &str = "org.apache.paimon.avro.generated.record";

/// The Avro codec for `file.compression` (Java `AvroFileFormat`: Avro's `CodecFactory`
/// names, `zstd` for zstandard).
///
/// # Errors
/// [`Error::InvalidOption`] for a codec Avro does not have.
pub fn avro_codec(compression: &str) -> Result<AvroCodec> {
    AvroCodec::from_compression(compression).ok_or_else(|| Error::InvalidOption {
        key: "file.compression".into(),
        value: compression.to_string(),
        reason: "not an Avro codec the writer has (zstd, snappy, deflate, none)".into(),
    })
}

/// The header schema JSON Java writes for a file of `fields`.
///
/// # Errors
/// [`Error::Unsupported`] for types Java's Avro writer refuses too (TIMESTAMP above precision
/// 6, TIME above 3) or has no layout for here (VARIANT, BLOB, VECTOR).
pub fn avro_schema_json(table: &str, fields: &[DataField]) -> Result<String> {
    let mut out = String::new();
    record_json(table, fields, ROW_NAME, &mut out)?;
    Ok(out)
}

fn record_json(table: &str, fields: &[DataField], name: &str, out: &mut String) -> Result<()> {
    out.push_str(&format!(
        "{{\"type\":\"record\",\"name\":{},\"fields\":[",
        json_string(name)
    ));
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"name\":{},\"type\":", json_string(&f.name)));
        type_json(
            table,
            &f.name,
            &f.data_type,
            &format!("{name}_{}", f.name),
            out,
        )?;
        if f.data_type.nullable {
            out.push_str(",\"default\":null");
        }
        out.push('}');
    }
    out.push_str("]}");
    Ok(())
}

fn type_json(
    table: &str,
    column: &str,
    ty: &DataType,
    row_name: &str,
    out: &mut String,
) -> Result<()> {
    if ty.nullable {
        out.push_str("[\"null\",");
    }
    let unsupported = |what: &str| {
        Err(Error::Unsupported {
            feature: format!(
                "table {table}: writing column {column} of type {ty} to Avro ({what})"
            ),
        })
    };
    match &ty.kind {
        TypeKind::Boolean => out.push_str("\"boolean\""),
        TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int => out.push_str("\"int\""),
        TypeKind::BigInt => out.push_str("\"long\""),
        TypeKind::Float => out.push_str("\"float\""),
        TypeKind::Double => out.push_str("\"double\""),
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => out.push_str("\"string\""),
        TypeKind::Binary { .. } | TypeKind::VarBinary { .. } => out.push_str("\"bytes\""),
        TypeKind::Date => out.push_str("{\"type\":\"int\",\"logicalType\":\"date\"}"),
        TypeKind::Time { precision } if *precision <= 3 => {
            out.push_str("{\"type\":\"int\",\"logicalType\":\"time-millis\"}")
        }
        TypeKind::Time { .. } => return unsupported("Java's Avro writer takes TIME(0..3)"),
        TypeKind::Timestamp { precision } | TypeKind::LocalZonedTimestamp { precision } => {
            let local = if matches!(ty.kind, TypeKind::LocalZonedTimestamp { .. }) {
                "local-"
            } else {
                ""
            };
            let unit = match precision {
                0..=3 => "millis",
                4..=6 => "micros",
                _ => return unsupported("Java's Avro writer takes precision 0..6"),
            };
            out.push_str(&format!(
                "{{\"type\":\"long\",\"logicalType\":\"{local}timestamp-{unit}\"}}"
            ));
        }
        TypeKind::Decimal { precision, scale } => out.push_str(&format!(
            "{{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":{precision},\"scale\":{scale}}}"
        )),
        TypeKind::Row(children) => record_json(table, children, row_name, out)?,
        TypeKind::Array(element) => {
            out.push_str("{\"type\":\"array\",\"items\":");
            type_json(table, column, element, row_name, out)?;
            out.push('}');
        }
        TypeKind::Map { key, value } if is_string(key) => {
            out.push_str("{\"type\":\"map\",\"values\":");
            type_json(table, column, value, row_name, out)?;
            out.push('}');
        }
        TypeKind::Map { key, value } => array_map_json(table, column, key, value, row_name, out)?,
        TypeKind::Multiset(element) => {
            let count = DataType::nullable(TypeKind::Int);
            if is_string(element) {
                out.push_str("{\"type\":\"map\",\"values\":");
                type_json(table, column, &count, row_name, out)?;
                out.push('}');
            } else {
                array_map_json(table, column, element, &count, row_name, out)?;
            }
        }
        _ => return unsupported("no Java-compatible Avro layout written yet"),
    }
    if ty.nullable {
        out.push(']');
    }
    Ok(())
}

/// A map whose keys are not strings: an array of `{key, value}` records named `row_name`.
fn array_map_json(
    table: &str,
    column: &str,
    key: &DataType,
    value: &DataType,
    row_name: &str,
    out: &mut String,
) -> Result<()> {
    out.push_str(&format!(
        "{{\"type\":\"array\",\"items\":{{\"type\":\"record\",\"name\":{},\"fields\":[{{\"name\":\"key\",\"type\":",
        json_string(row_name)
    ));
    type_json(table, column, key, &format!("{row_name}_key"), out)?;
    out.push_str("},{\"name\":\"value\",\"type\":");
    type_json(table, column, value, &format!("{row_name}_value"), out)?;
    if value.nullable {
        out.push_str(",\"default\":null");
    }
    out.push_str("}]}}");
    Ok(())
}

fn is_string(ty: &DataType) -> bool {
    matches!(ty.kind, TypeKind::Char { .. } | TypeKind::VarChar { .. })
}

/// A JSON string literal of `s`.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An Arrow type as the Avro encoder takes it: maps become lists of their entries wherever
/// Java writes them as arrays of `{key, value}` records.
fn encodable_type(paimon: &DataType, arrow: &ArrowType) -> ArrowType {
    match (&paimon.kind, arrow) {
        (TypeKind::Map { key: k, .. } | TypeKind::Multiset(k), ArrowType::Map(entries, _))
            if !is_string(k) =>
        {
            ArrowType::List(Arc::new(Field::new(
                "element",
                entries_type(paimon, entries.data_type()),
                false,
            )))
        }
        (TypeKind::Map { .. } | TypeKind::Multiset(_), ArrowType::Map(entries, sorted)) => {
            ArrowType::Map(
                Arc::new(
                    entries
                        .as_ref()
                        .clone()
                        .with_data_type(entries_type(paimon, entries.data_type())),
                ),
                *sorted,
            )
        }
        (TypeKind::Array(e), ArrowType::List(f)) => ArrowType::List(Arc::new(
            f.as_ref()
                .clone()
                .with_data_type(encodable_type(e, f.data_type())),
        )),
        (TypeKind::Row(children), ArrowType::Struct(fields)) => ArrowType::Struct(Fields::from(
            children
                .iter()
                .zip(fields.iter())
                .map(|(c, f)| {
                    f.as_ref()
                        .clone()
                        .with_data_type(encodable_type(&c.data_type, f.data_type()))
                })
                .collect::<Vec<_>>(),
        )),
        _ => arrow.clone(),
    }
}

/// The entries struct of a map, its key and value fields named `key` and `value` (the Avro
/// record's field names), their types made encodable.
fn entries_type(paimon: &DataType, entries: &ArrowType) -> ArrowType {
    let ArrowType::Struct(kv) = entries else {
        return entries.clone();
    };
    let (key_ty, value_ty) = match &paimon.kind {
        TypeKind::Map { key, value } => (key.as_ref().clone(), value.as_ref().clone()),
        TypeKind::Multiset(e) => (e.as_ref().clone(), DataType::not_null(TypeKind::Int)),
        _ => return entries.clone(),
    };
    if kv.len() != 2 {
        return entries.clone();
    }
    ArrowType::Struct(Fields::from(vec![
        Field::new(
            "key",
            encodable_type(&key_ty, kv[0].data_type()),
            kv[0].is_nullable(),
        ),
        Field::new(
            "value",
            encodable_type(&value_ty, kv[1].data_type()),
            kv[1].is_nullable(),
        ),
    ]))
}

/// `array` rebuilt with the type [`encodable_type`] gives it (offsets, validity and values
/// are reused).
fn encodable_array(paimon: &DataType, array: &ArrayRef, to: &ArrowType) -> Result<ArrayRef> {
    if array.data_type() == to {
        return Ok(array.clone());
    }
    let internal = |what: &str| Error::Internal(format!("Avro column as {to}: {what}"));
    match (&paimon.kind, to) {
        (TypeKind::Map { .. } | TypeKind::Multiset(_), ArrowType::List(item)) => {
            let map = array
                .as_any()
                .downcast_ref::<MapArray>()
                .ok_or_else(|| internal("not a map array"))?;
            let entries = encodable_entries(paimon, map.entries(), item.data_type())?;
            let list = ListArray::try_new(
                item.clone(),
                map.offsets().clone(),
                entries,
                map.nulls().cloned(),
            )
            .map_err(|e| internal(&e.to_string()))?;
            Ok(Arc::new(list))
        }
        (TypeKind::Map { .. } | TypeKind::Multiset(_), ArrowType::Map(entries_field, sorted)) => {
            let map = array
                .as_any()
                .downcast_ref::<MapArray>()
                .ok_or_else(|| internal("not a map array"))?;
            let entries = encodable_entries(paimon, map.entries(), entries_field.data_type())?;
            let entries = entries
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or_else(|| internal("map entries are not a struct"))?
                .clone();
            let out = MapArray::try_new(
                entries_field.clone(),
                map.offsets().clone(),
                entries,
                map.nulls().cloned(),
                *sorted,
            )
            .map_err(|e| internal(&e.to_string()))?;
            Ok(Arc::new(out))
        }
        (TypeKind::Array(e), ArrowType::List(item)) => {
            let list = array
                .as_any()
                .downcast_ref::<ListArray>()
                .ok_or_else(|| internal("not a list array"))?;
            let values = encodable_array(e, list.values(), item.data_type())?;
            let out = ListArray::try_new(
                item.clone(),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )
            .map_err(|e| internal(&e.to_string()))?;
            Ok(Arc::new(out))
        }
        (TypeKind::Row(children), ArrowType::Struct(fields)) => {
            let st = array
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or_else(|| internal("not a struct array"))?;
            let columns = children
                .iter()
                .zip(fields.iter())
                .zip(st.columns())
                .map(|((c, f), col)| encodable_array(&c.data_type, col, f.data_type()))
                .collect::<Result<Vec<_>>>()?;
            let out = StructArray::try_new(fields.clone(), columns, st.nulls().cloned())
                .map_err(|e| internal(&e.to_string()))?;
            Ok(Arc::new(out))
        }
        _ => Err(internal(&format!(
            "no conversion from {}",
            array.data_type()
        ))),
    }
}

/// Map entries as the struct of [`entries_type`].
fn encodable_entries(paimon: &DataType, entries: &StructArray, to: &ArrowType) -> Result<ArrayRef> {
    let internal = |what: String| Error::Internal(format!("Avro map entries: {what}"));
    let (ArrowType::Struct(fields), [keys, values]) = (to, entries.columns()) else {
        return Err(internal("not a key/value struct".into()));
    };
    let (key_ty, value_ty) = match &paimon.kind {
        TypeKind::Map { key, value } => (key.as_ref().clone(), value.as_ref().clone()),
        TypeKind::Multiset(e) => (e.as_ref().clone(), DataType::not_null(TypeKind::Int)),
        _ => return Err(internal("not a map type".into())),
    };
    let columns = vec![
        encodable_array(&key_ty, keys, fields[0].data_type())?,
        encodable_array(&value_ty, values, fields[1].data_type())?,
    ];
    let out = StructArray::try_new(fields.clone(), columns, entries.nulls().cloned())
        .map_err(|e| internal(e.to_string()))?;
    Ok(Arc::new(out))
}

/// What every Avro file of one table is written with.
#[derive(Debug, Clone)]
pub struct AvroFormat {
    codec: AvroCodec,
    /// The header schema JSON.
    json: String,
    /// The encoder's Arrow schema, with the header schema JSON in its metadata.
    schema: SchemaRef,
    /// The file's row, for the conversion of each batch.
    fields: Vec<DataField>,
}

impl AvroFormat {
    /// The format of files of `fields`, before [`AvroFormat::for_batches`].
    ///
    /// # Errors
    /// As [`avro_schema_json`] and [`avro_codec`].
    pub fn try_new(table: &str, fields: &[DataField], compression: &str) -> Result<Self> {
        let json = avro_schema_json(table, fields)?;
        let codec = avro_codec(compression)?;
        let schema = Arc::new(Schema::new_with_metadata(
            Vec::<Field>::new(),
            [(SCHEMA_METADATA_KEY.to_string(), json.clone())].into(),
        ));
        Ok(AvroFormat {
            codec,
            json,
            schema,
            fields: fields.to_vec(),
        })
    }

    /// The format for batches of `arrow_schema` (one column per field, Paimon types as the
    /// readers map them).
    pub fn for_batches(mut self, arrow_schema: &SchemaRef) -> Self {
        let encodable: Vec<Field> = self
            .fields
            .iter()
            .zip(arrow_schema.fields())
            .map(|(f, a)| {
                Field::new(
                    a.name(),
                    encodable_type(&f.data_type, a.data_type()),
                    a.is_nullable(),
                )
            })
            .collect();
        self.schema = Arc::new(Schema::new_with_metadata(
            encodable,
            self.schema.metadata().clone(),
        ));
        self
    }
}

/// An Avro file open for writing: records are encoded by arrow-avro's row encoder with the
/// header schema, and framed into blocks of about [`BLOCK_SIZE`] bytes here (arrow-avro's own
/// container writer puts a schema of its own making in the header).
pub struct AvroFile {
    path: String,
    encoder: Encoder,
    out: Box<dyn FileWriter>,
    format: AvroFormat,
    sync: [u8; 16],
    pending: Vec<u8>,
    pending_rows: i64,
    stats: StatsCollector,
    rows: u64,
}

impl std::fmt::Debug for AvroFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AvroFile")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl AvroFile {
    /// Starts a file at `path` on `out` (writes the header).
    ///
    /// # Errors
    /// [`Error::Avro`] when the encoder rejects the schema; [`Error::Io`] when the header
    /// cannot be written.
    pub fn try_new(
        table: &str,
        path: &str,
        mut out: Box<dyn FileWriter>,
        format: &AvroFormat,
    ) -> Result<Self> {
        let encoder = match WriterBuilder::new(format.schema.as_ref().clone())
            .build_encoder::<AvroBinaryFormat>()
        {
            Ok(e) => e,
            Err(e) => {
                let _ = out.abort();
                return Err(avro_err(table, path, e));
            }
        };
        let sync = *uuid::Uuid::new_v4().as_bytes();
        let header = avro_container::header(&format.json, format.codec, sync);
        if let Err(e) = out.write_all(&header) {
            let _ = out.abort();
            return Err(io_err(table, path, e));
        }
        Ok(AvroFile {
            path: path.to_string(),
            encoder,
            out,
            format: format.clone(),
            sync,
            pending: Vec::new(),
            pending_rows: 0,
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

    /// Bytes written so far plus the records not yet in a block (Java's Avro writer compares
    /// its stream position to the target size).
    pub fn data_size(&self) -> u64 {
        self.out.position() + self.pending.len() as u64
    }

    /// Appends a batch (in the file's row).
    ///
    /// # Errors
    /// [`Error::Avro`] when encoding fails, [`Error::Io`] when the storage does.
    pub fn write(&mut self, table: &str, batch: &RecordBatch) -> Result<()> {
        let columns = self
            .format
            .fields
            .iter()
            .zip(batch.columns())
            .zip(self.format.schema.fields())
            .map(|((f, c), to)| encodable_array(&f.data_type, c, to.data_type()))
            .collect::<Result<Vec<_>>>()?;
        let encodable = RecordBatch::try_new(self.format.schema.clone(), columns)
            .map_err(|e| Error::Internal(format!("Avro batch of {}: {e}", self.path)))?;
        self.encoder
            .encode(&encodable)
            .map_err(|e| avro_err(table, &self.path, e))?;
        let encoded = self.encoder.flush();
        self.pending.extend_from_slice(encoded.bytes());
        self.pending_rows += encoded.len() as i64;
        self.stats.collect(batch);
        self.rows += batch.num_rows() as u64;
        if self.pending.len() >= BLOCK_SIZE {
            self.write_block(table)?;
        }
        Ok(())
    }

    fn write_block(&mut self, table: &str) -> Result<()> {
        if self.pending_rows == 0 {
            return Ok(());
        }
        let block = avro_container::block(
            self.format.codec,
            self.pending_rows,
            &self.pending,
            self.sync,
        )
        .map_err(|e| Error::Avro {
            table: table.to_string(),
            path: self.path.clone(),
            reason: e.to_string(),
        })?;
        self.out
            .write_all(&block)
            .map_err(|e| io_err(table, &self.path, e))?;
        self.pending.clear();
        self.pending_rows = 0;
        Ok(())
    }

    /// Writes the last block and closes the file; the statistics are those collected from
    /// every row, with each field's mode.
    ///
    /// # Errors
    /// [`Error::Avro`] or [`Error::Io`] when the storage fails; the file is then removed where
    /// possible and must be treated as not written.
    pub fn finish(
        mut self,
        table: &str,
        _fields: &[DataField],
        modes: &[StatsMode],
    ) -> Result<FinishedFile> {
        if let Err(e) = self.write_block(table) {
            self.abort();
            return Err(e);
        }
        let size = close_stream(self.out, table, &self.path)?;
        Ok(FinishedFile {
            size,
            rows: self.rows,
            stats: self.stats.finish(modes),
        })
    }

    /// Abandons the file; what was written is removed where the storage allows.
    pub fn abort(self) {
        let _ = self.out.abort();
    }
}

fn io_err(table: &str, path: &str, e: std::io::Error) -> Error {
    Error::Io {
        table: table.to_string(),
        path: path.to_string(),
        source: paimon_io::Error::from_io(path, e),
    }
}

fn avro_err(table: &str, path: &str, e: arrow_avro::errors::AvroError) -> Error {
    Error::Avro {
        table: table.to_string(),
        path: path.to_string(),
        reason: e.to_string(),
    }
}
