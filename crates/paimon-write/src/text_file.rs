//! One CSV or JSON-lines data file of a format table being written, spelled as Java's
//! `CsvFormatWriter` and `JsonFormatWriter` spell theirs (UTF-8, no compression).
//!
//! Values are Java's text of them (`CastExecutors` to STRING, the schema mapper's
//! [`paimon_data::schema_mapper::conform`]): `2024-01-02`, `2024-01-02 03:04:05.123`, `12.30`.
//! CSV: a field holding the delimiter, the quote, the escape character or a line break is
//! quoted, with the quote and escape characters inside it preceded by the escape character
//! (Java escapes only quotes, so Java's own reader drops a lone escape character; this form it
//! reads back whole); a null is `csv.null-literal`; with `csv.include-header` each file starts
//! with the column names. JSON: one object per row with the columns by name, a null as `null`;
//! integers, finite floating-point numbers and booleans are JSON numbers and booleans (Java
//! writes every value as a JSON string, and reads either, as pypaimon 2.1 reads the typed
//! form), other values strings. BINARY and nested columns are refused: Java writes them as
//! Base64 and nested JSON, which these files are not read back from here.

use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use paimon_data::format_table::CsvFormat;
use paimon_io::FileWriter;
use paimon_spec::types::{DataField, DataType, TypeKind};

use crate::data_file::{close_stream, FinishedFile};
use crate::error::{Error, Result};

/// The text formats of format tables.
#[derive(Debug, Clone)]
pub enum TextKind {
    /// Delimited text, columns by position.
    Csv(CsvFormat),
    /// One JSON object per line, columns by name.
    Json,
}

/// How every CSV or JSON file of a format table's write is spelled: the format and the files'
/// columns.
#[derive(Debug, Clone)]
pub struct TextFormat {
    kind: TextKind,
    fields: Vec<DataField>,
}

impl TextFormat {
    /// Files of `fields` in `kind`, uncompressed.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a codec other than `none`, a BINARY, VARBINARY or nested
    /// column (naming it), or a CSV null literal that holds a character CSV quotes.
    pub fn try_new(
        table: &str,
        kind: TextKind,
        fields: &[DataField],
        compression: &str,
    ) -> Result<Self> {
        let name = match kind {
            TextKind::Csv(_) => "CSV",
            TextKind::Json => "JSON",
        };
        if !compression.eq_ignore_ascii_case("none") {
            return Err(Error::Unsupported {
                feature: format!(
                    "table {table}: writing {name} format-table files compressed with \
                     {compression} (set format-table.file.compression = none)"
                ),
            });
        }
        for f in fields {
            let scalar = matches!(
                f.data_type.kind,
                TypeKind::Boolean
                    | TypeKind::TinyInt
                    | TypeKind::SmallInt
                    | TypeKind::Int
                    | TypeKind::BigInt
                    | TypeKind::Float
                    | TypeKind::Double
                    | TypeKind::Decimal { .. }
                    | TypeKind::Char { .. }
                    | TypeKind::VarChar { .. }
                    | TypeKind::Date
                    | TypeKind::Time { .. }
                    | TypeKind::Timestamp { .. }
                    | TypeKind::LocalZonedTimestamp { .. }
            );
            if !scalar {
                return Err(Error::Unsupported {
                    feature: format!(
                        "table {table}: writing column {} of type {} to {name} files",
                        f.name, f.data_type
                    ),
                });
            }
        }
        if let TextKind::Csv(csv) = &kind {
            if csv.null_literal.bytes().any(|b| needs_quote(csv, b)) {
                return Err(Error::Unsupported {
                    feature: format!(
                        "table {table}: csv.null-literal {:?} holds a character CSV quotes",
                        csv.null_literal
                    ),
                });
            }
        }
        Ok(TextFormat {
            kind,
            fields: fields.to_vec(),
        })
    }
}

fn needs_quote(csv: &CsvFormat, b: u8) -> bool {
    b == csv.delimiter
        || b == csv.quote
        || b == csv.escape
        || b == b'\n'
        || b == b'\r'
        || csv.line_delimiter.as_bytes().first() == Some(&b)
}

/// A CSV or JSON file open for writing.
#[derive(Debug)]
pub struct TextFile {
    path: String,
    out: Option<Box<dyn FileWriter>>,
    format: TextFormat,
    rows: u64,
    line: Vec<u8>,
}

impl TextFile {
    /// Starts a file at `path` on `out` (a CSV header is written with the first row, as Java
    /// does).
    pub fn new(path: &str, out: Box<dyn FileWriter>, format: &TextFormat) -> Self {
        TextFile {
            path: path.to_string(),
            out: Some(out),
            format: format.clone(),
            rows: 0,
            line: Vec::new(),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Bytes written so far (Java `AbstractTextFileWriter.reachTargetSize` compares the
    /// stream's position).
    pub fn data_size(&self) -> u64 {
        self.out.as_ref().map_or(0, |o| o.position())
    }

    fn error(&self, table: &str, reason: impl Into<String>) -> Error {
        Error::Text {
            table: table.to_string(),
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// Appends a batch (the file's columns, in order).
    ///
    /// # Errors
    /// [`Error::Text`] for a batch of another layout or a value with no text form;
    /// [`Error::Io`] when the storage fails (the file must then be aborted).
    pub fn write(&mut self, table: &str, batch: &RecordBatch) -> Result<()> {
        if batch.num_columns() != self.format.fields.len() {
            return Err(self.error(
                table,
                format!(
                    "a batch of {} columns for a row of {}",
                    batch.num_columns(),
                    self.format.fields.len()
                ),
            ));
        }
        let mut texts = Vec::with_capacity(self.format.fields.len());
        for (f, column) in self.format.fields.iter().zip(batch.columns()) {
            let text = paimon_data::schema_mapper::conform(
                column,
                &f.data_type,
                &DataType::string(),
                &self.path,
            )
            .map_err(|e| self.error(table, format!("column {}: {e}", f.name)))?;
            texts.push(text);
        }
        let texts: Vec<&arrow_array::StringArray> =
            texts.iter().map(|t| t.as_string::<i32>()).collect();
        let mut buf = std::mem::take(&mut self.line);
        buf.clear();
        if self.rows == 0 {
            if let TextKind::Csv(csv) = &self.format.kind {
                if csv.header {
                    for (i, f) in self.format.fields.iter().enumerate() {
                        if i > 0 {
                            buf.push(csv.delimiter);
                        }
                        csv_field(csv, &f.name, &mut buf);
                    }
                    buf.extend_from_slice(csv.line_delimiter.as_bytes());
                }
            }
        }
        for row in 0..batch.num_rows() {
            match &self.format.kind {
                TextKind::Csv(csv) => {
                    for (i, t) in texts.iter().enumerate() {
                        if i > 0 {
                            buf.push(csv.delimiter);
                        }
                        if t.is_null(row) {
                            buf.extend_from_slice(csv.null_literal.as_bytes());
                        } else {
                            csv_field(csv, t.value(row), &mut buf);
                        }
                    }
                    buf.extend_from_slice(csv.line_delimiter.as_bytes());
                }
                TextKind::Json => {
                    buf.push(b'{');
                    for (i, (f, t)) in self.format.fields.iter().zip(&texts).enumerate() {
                        if i > 0 {
                            buf.push(b',');
                        }
                        json_string(&f.name, &mut buf);
                        buf.push(b':');
                        json_value(&f.data_type, t, row, &mut buf);
                    }
                    buf.extend_from_slice(b"}\n");
                }
            }
        }
        let written = match self.out.as_mut() {
            Some(out) => out.write_all(&buf),
            None => Err(std::io::Error::other("the file already failed")),
        };
        self.line = buf;
        written.map_err(|e| Error::Io {
            table: table.to_string(),
            path: self.path.clone(),
            source: paimon_io::Error::from_io(&self.path, e),
        })?;
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    /// Closes the file (no statistics are kept for format-table files).
    ///
    /// # Errors
    /// [`Error::Io`] when the storage fails; the file must then be treated as not written.
    pub fn finish(mut self, table: &str) -> Result<FinishedFile> {
        let out = self
            .out
            .take()
            .ok_or_else(|| Error::Internal(format!("stream of {} already taken", self.path)))?;
        let size = close_stream(out, table, &self.path)?;
        Ok(FinishedFile {
            size,
            rows: self.rows,
            stats: Vec::new(),
        })
    }

    /// Abandons the file.
    pub fn abort(mut self) {
        if let Some(o) = self.out.take() {
            let _ = o.abort();
        }
    }
}

/// A CSV field: as is, or quoted with the quote and escape characters escaped.
fn csv_field(csv: &CsvFormat, value: &str, buf: &mut Vec<u8>) {
    if !value.bytes().any(|b| needs_quote(csv, b)) {
        buf.extend_from_slice(value.as_bytes());
        return;
    }
    buf.push(csv.quote);
    for b in value.bytes() {
        if b == csv.quote || b == csv.escape {
            buf.push(csv.escape);
        }
        buf.push(b);
    }
    buf.push(csv.quote);
}

fn json_string(s: &str, buf: &mut Vec<u8>) {
    // Serializing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *buf, s);
}

/// One JSON value: numbers and booleans bare, everything else as a string.
fn json_value(t: &DataType, texts: &arrow_array::StringArray, row: usize, buf: &mut Vec<u8>) {
    if texts.is_null(row) {
        buf.extend_from_slice(b"null");
        return;
    }
    let text = texts.value(row);
    let bare = match t.kind {
        TypeKind::TinyInt
        | TypeKind::SmallInt
        | TypeKind::Int
        | TypeKind::BigInt
        | TypeKind::Boolean => true,
        // NaN and the infinities have no JSON number: Java's text in a string.
        TypeKind::Float | TypeKind::Double => text.parse::<f64>().is_ok_and(f64::is_finite),
        _ => false,
    };
    if bare {
        buf.extend_from_slice(text.as_bytes());
    } else {
        json_string(text, buf);
    }
}
