//! Input files of `paimon write`: Parquet, CSV, JSON lines and Arrow IPC read into batches of
//! a table's input schema (columns matched by name, cast to the table's types), with an
//! optional row-kind column taken out.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use arrow::array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow::datatypes::{DataType as ArrowType, Field, Schema, SchemaRef};
use paimon_spec::binary::RowKind;

use crate::write_cmd::parse_row_kind;

/// Rows per batch read from CSV and JSON.
const BATCH_ROWS: usize = 8192;

/// Takes each batch read, shaped as the table's input schema, with its row kinds.
pub type BatchSink<'a> = dyn FnMut(RecordBatch, Option<&[RowKind]>) -> Result<()> + 'a;

/// The format of an input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// Apache Parquet.
    Parquet,
    /// CSV with a header line naming the columns.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// Arrow IPC file (or stream).
    Arrow,
}

impl InputFormat {
    /// The format named by `path`'s extension.
    ///
    /// # Errors
    /// When the extension names none; `--input-format` then says.
    pub fn of_path(path: &Path) -> Result<Self> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        Ok(match ext.as_str() {
            "parquet" => InputFormat::Parquet,
            "csv" => InputFormat::Csv,
            "json" | "jsonl" | "ndjson" => InputFormat::Jsonl,
            "arrow" | "ipc" | "feather" | "arrows" => InputFormat::Arrow,
            _ => bail!(
                "{}: cannot tell the format from the extension; give --input-format",
                path.display()
            ),
        })
    }
}

/// Reads `path` and hands each batch (shaped as `target`) with its row kinds to `sink`;
/// returns the number of rows.
///
/// # Errors
/// Unreadable input, a missing or extra column, a value that does not cast, an unknown row
/// kind; `sink`'s errors.
pub fn read_input(
    path: &Path,
    format: InputFormat,
    target: &SchemaRef,
    kind_column: Option<&str>,
    sink: &mut BatchSink<'_>,
) -> Result<u64> {
    let ctx = || format!("input {}", path.display());
    let file = File::open(path).with_context(ctx)?;
    let mut rows = 0u64;
    let mut each = |batch: RecordBatch| -> Result<()> {
        rows += batch.num_rows() as u64;
        let (batch, kinds) = conform(&batch, target, kind_column)?;
        sink(batch, kinds.as_deref())
    };
    match format {
        InputFormat::Parquet => {
            let reader =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .with_context(ctx)?
                    .build()
                    .with_context(ctx)?;
            for b in reader {
                each(b.with_context(ctx)?)?;
            }
        }
        InputFormat::Arrow => match arrow::ipc::reader::FileReader::try_new(file, None) {
            Ok(reader) => {
                for b in reader {
                    each(b.with_context(ctx)?)?;
                }
            }
            Err(_) => {
                let file = File::open(path).with_context(ctx)?;
                let reader = arrow::ipc::reader::StreamReader::try_new(BufReader::new(file), None)
                    .with_context(ctx)?;
                for b in reader {
                    each(b.with_context(ctx)?)?;
                }
            }
        },
        InputFormat::Csv => {
            let mut header = String::new();
            BufReader::new(File::open(path).with_context(ctx)?)
                .read_line(&mut header)
                .with_context(ctx)?;
            let names: Vec<String> = header
                .trim_end_matches(['\r', '\n'])
                .split(',')
                .map(|s| s.trim().trim_matches('"').to_string())
                .collect();
            let schema = text_schema(target, kind_column, Some(&names)).with_context(ctx)?;
            let reader = arrow::csv::ReaderBuilder::new(schema)
                .with_header(true)
                .with_batch_size(BATCH_ROWS)
                .build(file)
                .with_context(ctx)?;
            for b in reader {
                each(b.with_context(ctx)?)?;
            }
        }
        InputFormat::Jsonl => {
            let schema = text_schema(target, kind_column, None).with_context(ctx)?;
            let reader = arrow::json::ReaderBuilder::new(schema)
                .with_batch_size(BATCH_ROWS)
                .with_strict_mode(true)
                .build(BufReader::new(file))
                .with_context(ctx)?;
            for b in reader {
                each(b.with_context(ctx)?)?;
            }
        }
    }
    Ok(rows)
}

/// The schema text readers parse into: the table's columns (nullable, so a missing value
/// reaches the writer's own NOT NULL check) plus the row-kind column, in the order of `names`
/// (a CSV header) when given.
fn text_schema(
    target: &SchemaRef,
    kind_column: Option<&str>,
    names: Option<&[String]>,
) -> Result<SchemaRef> {
    let field_of = |name: &str| -> Result<Field> {
        if Some(name) == kind_column {
            return Ok(Field::new(name, ArrowType::Utf8, true));
        }
        target
            .field_with_name(name)
            .map(|f| f.clone().with_nullable(true))
            .map_err(|_| anyhow!("column {name} is not a column of the table"))
    };
    let fields = match names {
        Some(names) => names
            .iter()
            .map(|n| field_of(n))
            .collect::<Result<Vec<_>>>()?,
        None => {
            let mut fs: Vec<Field> = target
                .fields()
                .iter()
                .map(|f| f.as_ref().clone().with_nullable(true))
                .collect();
            if let Some(k) = kind_column {
                fs.push(Field::new(k, ArrowType::Utf8, true));
            }
            fs
        }
    };
    Ok(Arc::new(Schema::new(fields)))
}

/// `batch` as the table's columns in order (cast where the types differ) and its row kinds.
fn conform(
    batch: &RecordBatch,
    target: &SchemaRef,
    kind_column: Option<&str>,
) -> Result<(RecordBatch, Option<Vec<RowKind>>)> {
    let schema = batch.schema();
    for f in schema.fields() {
        if Some(f.name().as_str()) != kind_column && target.field_with_name(f.name()).is_err() {
            bail!("column {} is not a column of the table", f.name());
        }
    }
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(target.fields().len());
    let mut fields = Vec::with_capacity(target.fields().len());
    for want in target.fields() {
        let (i, _) = schema
            .column_with_name(want.name())
            .ok_or_else(|| anyhow!("the input has no column {}", want.name()))?;
        let col = batch.column(i);
        let col = if col.data_type() == want.data_type() {
            col.clone()
        } else {
            arrow::compute::cast(col, want.data_type()).map_err(|e| {
                anyhow!(
                    "column {}: {} does not cast to {}: {e}",
                    want.name(),
                    col.data_type(),
                    want.data_type()
                )
            })?
        };
        fields.push(want.as_ref().clone().with_nullable(true));
        columns.push(col);
    }
    let kinds = match kind_column {
        None => None,
        Some(k) => {
            let (i, _) = schema
                .column_with_name(k)
                .ok_or_else(|| anyhow!("the input has no row-kind column {k}"))?;
            let col = arrow::compute::cast(batch.column(i), &ArrowType::Utf8)
                .map_err(|e| anyhow!("row-kind column {k}: {e}"))?;
            let col = col
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or_else(|| anyhow!("row-kind column {k} is not text"))?;
            let mut kinds = Vec::with_capacity(col.len());
            for r in 0..col.len() {
                let text = if col.is_null(r) { "" } else { col.value(r) };
                kinds.push(parse_row_kind(text).ok_or_else(|| {
                    anyhow!("row-kind column {k}: '{text}' is not one of +I, -U, +U, -D")
                })?);
            }
            Some(kinds)
        }
    };
    let batch =
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|e| anyhow!("{e}"))?;
    Ok((batch, kinds))
}
