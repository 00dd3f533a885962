//! Input files of `paimon write`: Parquet, CSV, JSON lines and Arrow IPC read into batches
//! (text formats parsed as the table's column types), which paimon-write's
//! `TableWrite::write_conformed` matches to the table by name, taking the row-kind column out.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use arrow::array::RecordBatch;
use arrow::datatypes::{Schema, SchemaRef};
use paimon_write::conform::text_fields;

/// Rows per batch read from CSV and JSON.
const BATCH_ROWS: usize = 8192;

/// Takes each batch read, with the columns of the input (the writer matches them to the table's
/// by name and takes the row kinds out).
pub type BatchSink<'a> = dyn FnMut(RecordBatch) -> Result<()> + 'a;

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

/// Reads `path` and hands each batch to `sink` (text formats parsed as `target`'s columns plus
/// the row-kind column); returns the number of rows.
///
/// # Errors
/// Unreadable input, a text column that is not a table column; `sink`'s errors.
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
        sink(batch)
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

/// The schema text readers parse into (paimon-write's `text_fields`).
fn text_schema(
    target: &SchemaRef,
    kind_column: Option<&str>,
    names: Option<&[String]>,
) -> Result<SchemaRef> {
    let fields = text_fields("input", target, kind_column, names).map_err(|e| anyhow!("{e}"))?;
    Ok(Arc::new(Schema::new(fields)))
}
