//! One data file of a format table (Java `FormatTable`, a Hive-style directory of plain files)
//! decoded into the table's columns: the file's columns by name, cast to the table's types,
//! and the partition columns from the partition directory's values, as Java's
//! `FormatReadBuilder` reads them (the file is read with the row type without partition
//! columns; a partition column the file also holds is taken from the path).

use std::collections::BTreeMap;
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
    /// Delimited text, columns by position (read here; not written yet).
    Csv(CsvFormat),
    /// JSON lines, columns by name (read here; not written yet).
    Json,
    /// One string column per line (not read or written here yet).
    Text,
}

/// How a CSV format table's files are spelled (Java `CsvOptions`, with its defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvFormat {
    /// `csv.field-delimiter`, default `,`.
    pub delimiter: u8,
    /// `csv.quote-character`, default `"`.
    pub quote: u8,
    /// `csv.escape-character`, default `\`.
    pub escape: u8,
    /// `csv.include-header`, default false.
    pub header: bool,
}

impl Default for CsvFormat {
    fn default() -> Self {
        CsvFormat {
            delimiter: b',',
            quote: b'"',
            escape: b'\\',
            header: false,
        }
    }
}

impl FormatTableFormat {
    /// The format a table's options name (`file.format`, default Parquet, any case), with the
    /// `csv.*` options of a CSV table.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a name Java's format tables do not know, a CSV option of
    /// more than one byte, a `csv.line-delimiter` other than `\n` or a `csv.null-literal`
    /// other than the empty string (Java's defaults).
    pub fn from_options(options: &BTreeMap<String, String>) -> Result<Self> {
        let name = options.get("file.format").map_or("parquet", |v| v.trim());
        Ok(match name.to_ascii_lowercase().as_str() {
            "parquet" => Self::Parquet,
            "orc" => Self::Orc,
            "csv" => Self::Csv(csv_format(options)?),
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
            Self::Csv(_) => "csv",
            Self::Json => "json",
            Self::Text => "text",
        }
    }
}

fn csv_format(options: &BTreeMap<String, String>) -> Result<CsvFormat> {
    let mut f = CsvFormat::default();
    let byte = |key: &str, default: u8| -> Result<u8> {
        match options.get(key) {
            None => Ok(default),
            Some(v) if v.len() == 1 => Ok(v.as_bytes()[0]),
            Some(v) => Err(Error::unsupported(format!(
                "{key} = {v:?} (one ASCII character)"
            ))),
        }
    };
    f.delimiter = byte("csv.field-delimiter", f.delimiter)?;
    f.quote = byte("csv.quote-character", f.quote)?;
    f.escape = byte("csv.escape-character", f.escape)?;
    f.header = options
        .get("csv.include-header")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    if options.get("csv.line-delimiter").is_some_and(|v| v != "\n") {
        return Err(Error::unsupported("csv.line-delimiter other than \\n"));
    }
    if options
        .get("csv.null-literal")
        .is_some_and(|v| !v.is_empty())
    {
        return Err(Error::unsupported(
            "csv.null-literal other than the empty string",
        ));
    }
    Ok(f)
}

/// Decodes the `columns` of a CSV or JSON file (the table's columns but the partition ones, as
/// Java reads them: CSV by position, JSON by name).
fn decode_text(
    format: FormatTableFormat,
    path: &str,
    data: Bytes,
    columns: &[DataField],
    batch_size: usize,
) -> Result<Vec<RecordBatch>> {
    let schema = Arc::new(to_arrow_schema(columns));
    let bad = |e: arrow_schema::ArrowError| Error::corrupt(path, e.to_string());
    let reader = std::io::Cursor::new(data);
    let batches: std::result::Result<Vec<RecordBatch>, _> = match format {
        FormatTableFormat::Csv(f) => arrow::csv::ReaderBuilder::new(schema)
            .with_header(f.header)
            .with_delimiter(f.delimiter)
            .with_quote(f.quote)
            .with_escape(f.escape)
            .with_batch_size(batch_size)
            .build(reader)
            .map_err(bad)?
            .collect(),
        FormatTableFormat::Json => arrow::json::ReaderBuilder::new(schema)
            .with_batch_size(batch_size)
            .build(std::io::BufReader::new(reader))
            .map_err(bad)?
            .collect(),
        other => {
            return Err(Error::unsupported(format!(
                "reading {} format tables ({path}); Parquet, ORC, CSV and JSON are read",
                other.name()
            )))
        }
    };
    batches.map_err(bad)
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
/// Format errors naming the file; [`Error::Unsupported`] for text files; a value
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
    let file_fields: Vec<DataField> = fields
        .iter()
        .filter(|f| !partition_keys.contains(&f.name))
        .cloned()
        .collect();
    let decoded: Vec<RecordBatch> = match format {
        FormatTableFormat::Parquet | FormatTableFormat::Orc => {
            let decoder = if format == FormatTableFormat::Parquet {
                FileFormat::Parquet
            } else {
                FileFormat::Orc
            };
            let req = DecodeRequest {
                columns: file_fields.iter().map(|f| f.name.clone()).collect(),
                types: Vec::new(),
                rows: None,
                batch_size: batch_size.max(1),
                expected_rows: None,
            };
            decode(decoder, path, data, &req)?.collect::<Result<_>>()?
        }
        _ => decode_text(format, path, data, &file_fields, batch_size.max(1))?,
    };
    let schema: SchemaRef = Arc::new(to_arrow_schema(fields));
    let constants = partition_constants(file, fields, partition_keys)?;
    let mut out = Vec::new();
    for batch in decoded {
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
