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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatTableFormat {
    /// Apache Parquet.
    Parquet,
    /// Apache ORC.
    Orc,
    /// Delimited text, columns by position.
    Csv(CsvFormat),
    /// JSON lines, columns by name.
    Json,
    /// One string column per line (not read or written here yet).
    Text,
}

/// How a CSV format table's files are spelled (Java `CsvOptions`, with its defaults and its
/// fallback keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvFormat {
    /// `csv.field-delimiter` (or `field-delimiter`, `seq`), default `,`.
    pub delimiter: u8,
    /// `csv.quote-character` (or `quote`), default `"`.
    pub quote: u8,
    /// `csv.escape-character` (or `escape`), default `\`.
    pub escape: u8,
    /// `csv.include-header` (or `header`), default false.
    pub header: bool,
    /// `csv.line-delimiter` (or `lineSep`), default `\n`: `\n`, `\r\n` or one other ASCII
    /// character.
    pub line_delimiter: String,
    /// `csv.null-literal` (or `nullvalue`), default the empty string: the text of a null, and
    /// a field equal to it reads as null.
    pub null_literal: String,
}

impl Default for CsvFormat {
    fn default() -> Self {
        CsvFormat {
            delimiter: b',',
            quote: b'"',
            escape: b'\\',
            header: false,
            line_delimiter: "\n".to_string(),
            null_literal: String::new(),
        }
    }
}

impl FormatTableFormat {
    /// The format a table's options name (`file.format`, default Parquet, any case), with the
    /// `csv.*` options of a CSV table.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a name Java's format tables do not know, a CSV field
    /// delimiter, quote or escape that is not one ASCII character (or two of them equal, which
    /// Java's parser refuses), a `csv.line-delimiter` other than `\n`, `\r\n` or one ASCII
    /// character, or a `json.line-delimiter` other than `\n`.
    pub fn from_options(options: &BTreeMap<String, String>) -> Result<Self> {
        let name = options.get("file.format").map_or("parquet", |v| v.trim());
        Ok(match name.to_ascii_lowercase().as_str() {
            "parquet" => Self::Parquet,
            "orc" => Self::Orc,
            "csv" => Self::Csv(csv_format(options)?),
            "json" => {
                if options
                    .get("json.line-delimiter")
                    .is_some_and(|v| v != "\n")
                {
                    return Err(Error::unsupported("json.line-delimiter other than \\n"));
                }
                Self::Json
            }
            "text" => Self::Text,
            other => {
                return Err(Error::unsupported(format!(
                    "format table file.format '{other}' (Java knows parquet, orc, csv, json, text)"
                )))
            }
        })
    }

    /// The name as `file.format` spells it, and the file extension without its dot.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Parquet => "parquet",
            Self::Orc => "orc",
            Self::Csv(_) => "csv",
            Self::Json => "json",
            Self::Text => "text",
        }
    }
}

/// The value of the first of `keys` the options hold (Java's key, then its fallback keys).
fn option<'a>(options: &'a BTreeMap<String, String>, keys: &[&str]) -> Option<&'a String> {
    keys.iter().find_map(|k| options.get(*k))
}

fn csv_format(options: &BTreeMap<String, String>) -> Result<CsvFormat> {
    let mut f = CsvFormat::default();
    let byte = |keys: &[&str], default: u8| -> Result<u8> {
        match option(options, keys) {
            None => Ok(default),
            Some(v) if v.len() == 1 && v.is_ascii() => Ok(v.as_bytes()[0]),
            Some(v) => Err(Error::unsupported(format!(
                "{} = {v:?} (one ASCII character)",
                keys[0]
            ))),
        }
    };
    f.delimiter = byte(
        &["csv.field-delimiter", "field-delimiter", "seq"],
        f.delimiter,
    )?;
    f.quote = byte(&["csv.quote-character", "quote"], f.quote)?;
    f.escape = byte(&["csv.escape-character", "escape"], f.escape)?;
    if f.delimiter == f.quote || f.delimiter == f.escape || f.quote == f.escape {
        return Err(Error::unsupported(
            "a CSV field delimiter, quote and escape character that are not all different \
             (Java's CsvParser refuses them)",
        ));
    }
    f.header = option(options, &["csv.include-header", "header"])
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    if let Some(v) = option(options, &["csv.line-delimiter", "lineSep"]) {
        let plain = v == "\n" || v == "\r\n" || (v.len() == 1 && v.is_ascii());
        let clash = v.len() == 1 && [f.delimiter, f.quote, f.escape].contains(&v.as_bytes()[0]);
        if !plain || clash {
            return Err(Error::unsupported(format!(
                "csv.line-delimiter = {v:?} (\\n, \\r\\n or one ASCII character other than \
                 the field delimiter, quote and escape)"
            )));
        }
        f.line_delimiter = v.clone();
    }
    if let Some(v) = option(options, &["csv.null-literal", "nullvalue"]) {
        f.null_literal = v.clone();
    }
    Ok(f)
}

/// Decodes the `columns` of a CSV or JSON file (the table's columns but the partition ones, as
/// Java reads them: CSV by position, JSON by name).
fn decode_text(
    format: &FormatTableFormat,
    path: &str,
    data: Bytes,
    columns: &[DataField],
    batch_size: usize,
) -> Result<Vec<RecordBatch>> {
    let schema = Arc::new(to_arrow_schema(columns));
    let bad = |e: arrow_schema::ArrowError| Error::corrupt(path, e.to_string());
    let reader = std::io::Cursor::new(data);
    let batches: std::result::Result<Vec<RecordBatch>, _> = match format {
        FormatTableFormat::Csv(f) if !f.null_literal.is_empty() => {
            return decode_csv_as_text(f, path, reader, columns, batch_size)
        }
        FormatTableFormat::Csv(f) => csv_reader(f, schema, batch_size)
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

fn csv_reader(f: &CsvFormat, schema: SchemaRef, batch_size: usize) -> arrow::csv::ReaderBuilder {
    let builder = arrow::csv::ReaderBuilder::new(schema)
        .with_header(f.header)
        .with_delimiter(f.delimiter)
        .with_quote(f.quote)
        .with_escape(f.escape)
        .with_batch_size(batch_size);
    // `\n` and `\r\n` both end records by default; another delimiter is one byte.
    match f.line_delimiter.as_bytes() {
        [b] if *b != b'\n' => builder.with_terminator(*b),
        _ => builder,
    }
}

/// A CSV file with a `csv.null-literal`: every column read as text, the fields equal to the
/// literal made null (and no others), then cast to the column's type as Java casts strings.
fn decode_csv_as_text(
    f: &CsvFormat,
    path: &str,
    reader: std::io::Cursor<Bytes>,
    columns: &[DataField],
    batch_size: usize,
) -> Result<Vec<RecordBatch>> {
    let text_fields: Vec<DataField> = columns
        .iter()
        .map(|c| DataField::new(c.id, c.name.clone(), DataType::string()))
        .collect();
    let text_schema = Arc::new(to_arrow_schema(&text_fields));
    let schema: SchemaRef = Arc::new(to_arrow_schema(columns));
    let bad = |e: arrow_schema::ArrowError| Error::corrupt(path, e.to_string());
    let mut out = Vec::new();
    // Only the literal is null: an empty field stays an empty string (`[^\s\S]` matches no
    // text at all).
    let never_null = regex::Regex::new(r"[^\s\S]")
        .map_err(|e| Error::Internal(format!("the never-null pattern: {e}")))?;
    for batch in csv_reader(f, text_schema, batch_size)
        .with_null_regex(never_null)
        .build(reader)
        .map_err(bad)?
    {
        let batch = batch.map_err(bad)?;
        let mut typed: Vec<ArrayRef> = Vec::with_capacity(columns.len());
        for (c, column) in columns.iter().zip(batch.columns()) {
            let strings = column
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or_else(|| Error::corrupt(path, "a CSV column not read as text"))?;
            let nulled: ArrayRef = Arc::new(
                strings
                    .iter()
                    .map(|v| v.filter(|v| *v != f.null_literal))
                    .collect::<StringArray>(),
            );
            typed.push(conform(&nulled, &DataType::string(), &c.data_type, path)?);
        }
        out.push(RecordBatch::try_new(Arc::clone(&schema), typed).map_err(bad)?);
    }
    Ok(out)
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
    format: &FormatTableFormat,
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
            let decoder = if *format == FormatTableFormat::Parquet {
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
