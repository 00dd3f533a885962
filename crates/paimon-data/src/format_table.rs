//! One data file of a format table (Java `FormatTable`, a Hive-style directory of plain files)
//! decoded into the table's columns: the file's columns by name, cast to the table's types,
//! and the partition columns from the partition directory's values, as Java's
//! `FormatReadBuilder` reads them (the file is read with the row type without partition
//! columns; a partition column the file also holds is taken from the path).

use std::sync::Arc;

use arrow_array::{new_null_array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, SchemaRef};
use bytes::Bytes;
use paimon_spec::types::{DataField, DataType};

use crate::arrow_schema::{to_arrow_schema, to_arrow_type};
use crate::datum::repeat;
use crate::error::{Error, Result};
use crate::format::{decode, DecodeRequest, FileFormat};
use crate::schema_mapper::conform;

/// Rows per decoded batch when the caller does not say.
pub const DEFAULT_BATCH_ROWS: usize = 8192;

/// The file format of a format table (`file.format`; Java `FormatTable.Format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatTableFormat {
    /// Apache Parquet.
    Parquet,
    /// Apache ORC.
    Orc,
    /// Comma-separated text (not read or written here yet).
    Csv,
    /// JSON lines (not read or written here yet).
    Json,
    /// One string column per line (not read or written here yet).
    Text,
}

impl FormatTableFormat {
    /// The format `file.format` names (default Parquet, any case).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a name Java's format tables do not know.
    pub fn parse(name: Option<&str>) -> Result<Self> {
        let name = name.map_or("parquet", str::trim);
        Ok(match name.to_ascii_lowercase().as_str() {
            "parquet" => Self::Parquet,
            "orc" => Self::Orc,
            "csv" => Self::Csv,
            "json" => Self::Json,
            "text" => Self::Text,
            other => {
                return Err(Error::unsupported(format!(
                    "format table file.format '{other}' (Java knows parquet, orc, csv, json, text)"
                )))
            }
        })
    }

    /// The name as `file.format` spells it, and the file extension without its dot.
    pub fn name(self) -> &'static str {
        match self {
            Self::Parquet => "parquet",
            Self::Orc => "orc",
            Self::Csv => "csv",
            Self::Json => "json",
            Self::Text => "text",
        }
    }

    /// The decoder of this crate for the format, or why there is none yet.
    fn decoder(self, path: &str) -> Result<FileFormat> {
        match self {
            Self::Parquet => Ok(FileFormat::Parquet),
            Self::Orc => Ok(FileFormat::Orc),
            other => Err(Error::unsupported(format!(
                "reading {} format tables ({path}); Parquet and ORC are read",
                other.name()
            ))),
        }
    }
}

/// One data file of a format table and the partition it lies in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatFile {
    /// The file's path.
    pub path: String,
    /// The value of each partition column, in the table's partition-key order, as the
    /// partition directories name it (unescaped); `None` for the default partition name.
    pub partition: Vec<Option<String>>,
}

/// Decodes `data`, the bytes of `file`, into batches of `fields` (the table's columns, in its
/// order). `partition_keys` name the columns taken from `file.partition`; the others are read
/// from the file by name (a column the file lacks reads as nulls).
///
/// # Errors
/// Format errors naming the file; [`Error::Unsupported`] for CSV, JSON and text files; a value
/// that does not cast to its column's type (the file's or the partition directory's).
pub fn decode_format_file(
    format: FormatTableFormat,
    file: &FormatFile,
    data: Bytes,
    fields: &[DataField],
    partition_keys: &[String],
    batch_size: usize,
) -> Result<Vec<RecordBatch>> {
    let path = file.path.as_str();
    if file.partition.len() != partition_keys.len() {
        return Err(Error::Internal(format!(
            "{path}: {} partition values for {} partition keys",
            file.partition.len(),
            partition_keys.len()
        )));
    }
    let decoder = format.decoder(path)?;
    let is_partition = |f: &DataField| partition_keys.contains(&f.name);
    let req = DecodeRequest {
        columns: fields
            .iter()
            .filter(|f| !is_partition(f))
            .map(|f| f.name.clone())
            .collect(),
        types: Vec::new(),
        rows: None,
        batch_size: batch_size.max(1),
        expected_rows: None,
    };
    let schema: SchemaRef = Arc::new(to_arrow_schema(fields));
    let constants = partition_constants(file, fields, partition_keys)?;
    let mut out = Vec::new();
    for batch in decode(decoder, path, data, &req)? {
        let batch = batch?;
        let n = batch.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(fields.len());
        for f in fields {
            let column = match constants.iter().find(|(name, _)| *name == f.name) {
                Some((_, value)) => repeat(value, n)?,
                None => file_column(&batch, f, path)?,
            };
            columns.push(column);
        }
        out.push(
            RecordBatch::try_new(Arc::clone(&schema), columns)
                .map_err(|e| Error::arrow(path, e))?,
        );
    }
    Ok(out)
}

/// Each partition column's value as a one-element array of its type.
fn partition_constants<'a>(
    file: &FormatFile,
    fields: &'a [DataField],
    partition_keys: &[String],
) -> Result<Vec<(&'a str, ArrayRef)>> {
    let mut out = Vec::new();
    for (key, value) in partition_keys.iter().zip(&file.partition) {
        let field = fields.iter().find(|f| &f.name == key).ok_or_else(|| {
            Error::Internal(format!("partition key {key} is not a column of the table"))
        })?;
        let text: ArrayRef = Arc::new(StringArray::from(vec![value.as_deref()]));
        let typed =
            conform(&text, &DataType::string(), &field.data_type, &file.path).map_err(|e| {
                Error::Cast {
                    path: file.path.clone(),
                    reason: format!("partition value {value:?} of column {key}: {e}"),
                }
            })?;
        out.push((field.name.as_str(), typed));
    }
    Ok(out)
}

/// The column `f` of a decoded batch, cast to the table's type; nulls when the file lacks it.
fn file_column(batch: &RecordBatch, f: &DataField, path: &str) -> Result<ArrayRef> {
    let want: ArrowType = to_arrow_type(&f.data_type);
    let Some(column) = batch.column_by_name(&f.name) else {
        return Ok(new_null_array(&want, batch.num_rows()));
    };
    if column.data_type() == &want {
        return Ok(Arc::clone(column));
    }
    let options = arrow_cast::CastOptions {
        safe: false,
        ..Default::default()
    };
    arrow_cast::cast_with_options(column, &want, &options).map_err(|e| Error::Cast {
        path: path.to_string(),
        reason: format!(
            "column {}: {} does not cast to {want}: {e}",
            f.name,
            column.data_type()
        ),
    })
}

/// A one-row batch of `file`'s partition columns (in `partition_keys` order, typed as the
/// table's columns), for pruning partitions with a predicate over them.
///
/// # Errors
/// A partition value that does not cast to its column's type.
pub fn partition_batch(
    file: &FormatFile,
    fields: &[DataField],
    partition_keys: &[String],
) -> Result<RecordBatch> {
    let constants = partition_constants(file, fields, partition_keys)?;
    let key_fields: Vec<DataField> = constants
        .iter()
        .filter_map(|(name, _)| fields.iter().find(|f| f.name == *name).cloned())
        .collect();
    let schema = Arc::new(to_arrow_schema(&key_fields));
    let columns = constants.into_iter().map(|(_, a)| a).collect();
    RecordBatch::try_new(schema, columns).map_err(|e| Error::arrow(&file.path, e))
}
