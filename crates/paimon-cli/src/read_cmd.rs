//! `paimon read` and `paimon read-split`: plan (or take split files) and read into Arrow.
//!
//! Output is written only once every split has been read, so a failure never leaves partial
//! rows behind: the command prints one error line and exits 1.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use clap::{Args, ValueEnum};
use paimon_data::format::LateMaterialization;
use paimon_data::reader::ROW_KIND;
use paimon_data::SplitReader;
use paimon_io::{file_io_for, FileIORef};
use paimon_memory::{GreedyMemoryPool, MemoryPool};
use paimon_rs::SplitRead;
use paimon_spec::schema::TableSchema;
use paimon_spec::types::{DataField, DataType, TypeKind};
use paimon_split::{decode_read_options, Split, SplitReadOptions};

use crate::filter::parse_filter;
use crate::incremental_split::incremental_as_data_split;
use crate::progress::Progress;
use crate::rows::batch_to_json_rows;
use crate::scan_args::{table_location, OpenedScan, ScanArgs};

/// Output formats.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// An aligned text table.
    Table,
    /// CSV with a header.
    Csv,
    /// JSON lines in the oracle's row encoding.
    Jsonl,
    /// A Parquet file.
    Parquet,
    /// An Arrow IPC file.
    Arrow,
    /// Read everything, print only the row count.
    Null,
}

/// Output options shared by `read` and `read-split`.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Write here instead of stdout (required for parquet and arrow).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Stop after this many rows.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Rows per batch.
    #[arg(long = "batch-size")]
    pub batch_size: Option<usize>,
    /// Threads decoding files at once (default: the cores available to the process).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Bytes of decoded data the read keeps in flight, e.g. `64MiB`, `512MB` or `1048576`
    /// (units are powers of 1024, as in Paimon's table options). Bounds the batches buffered
    /// between threads and each batch's size; not the data files' own bytes or the output,
    /// which this command gathers before writing it (`--format null` streams). Default: none.
    #[arg(long = "memory-budget", value_parser = parse_memory_budget)]
    pub memory_budget: Option<usize>,
    /// When a filter is pushed into the Parquet decoder (its columns decoded first, the others
    /// only for the rows it keeps): `auto` when a sample shows it keeps at most 0.5% of a
    /// file's rows, `always`, or `never`. Rows are the same either way.
    #[arg(long = "late-materialization", value_enum, default_value = "auto")]
    pub late_materialization: LateMode,
    /// BLOB columns stored as descriptors (table option `blob-descriptor-field`):
    /// `--blob-as-descriptor` (or `=true`) prints the serialized descriptors, `=false` the
    /// bytes they point to. Default: the table option `blob-as-descriptor`, else the bytes.
    #[arg(long = "blob-as-descriptor", num_args = 0..=1, default_missing_value = "true")]
    pub blob_as_descriptor: Option<bool>,
    /// A root (absolute path or URL) BLOB descriptors may point under besides the table
    /// directory and its `data-file.external-paths` (repeatable). Descriptors pointing
    /// anywhere else fail the read.
    #[arg(long = "blob-root")]
    pub blob_roots: Vec<String>,
    /// Directory names, comma separated (read option `blob.descriptor-path-rewrite`): a BLOB
    /// descriptor URI with a directory of such a name is read from that directory of the
    /// table instead, e.g. `raw_blob` turns `/elsewhere/raw_blob/x.bin` into
    /// `TABLE/raw_blob/x.bin` (for descriptors written with another machine's paths).
    #[arg(long = "blob-descriptor-path-rewrite", value_delimiter = ',')]
    pub blob_descriptor_dirs: Vec<String>,
}

/// `--late-materialization`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum LateMode {
    /// When a sample of the file shows the filter is selective.
    Auto,
    /// Whenever the filter can be pushed.
    Always,
    /// Never.
    Never,
}

impl From<LateMode> for LateMaterialization {
    fn from(m: LateMode) -> Self {
        match m {
            LateMode::Auto => LateMaterialization::Auto,
            LateMode::Always => LateMaterialization::Always,
            LateMode::Never => LateMaterialization::Never,
        }
    }
}

/// `--memory-budget`: a number of bytes with an optional unit, `b`, `k`/`kb`/`kib`,
/// `m`/`mb`/`mib`, `g`/`gb`/`gib` or `t`/`tb`/`tib` (case-insensitive, all powers of 1024).
pub(crate) fn parse_memory_budget(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    // Paimon's `MemorySize` units read `kb`, `mb`, ... as powers of 1024 already; the IEC
    // spellings mean the same.
    let java_spelling = match lower.strip_suffix("ib") {
        Some(head) if head.ends_with(['k', 'm', 'g', 't']) => format!("{head}b"),
        _ => lower,
    };
    paimon_spec::options::parse_memory_size(&java_spelling)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            format!("'{t}' is not a memory size above zero such as 64MiB, 512MB or 1048576")
        })
}

/// `paimon read TABLE`.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Table directory.
    pub table: String,
    #[command(flatten)]
    pub scan: ScanArgs,
    /// Read as streaming consumer ID: the changes of each snapshot from the consumer's saved
    /// next snapshot on (`consumer/consumer-ID`, as Java's `ConsumerManager` writes it), saving
    /// the next snapshot after each snapshot's rows are written. A new consumer starts after
    /// `--changes-since N`, or reads the latest snapshot whole.
    #[arg(long = "consumer-id")]
    pub consumer_id: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `paimon read-split TABLE SPLIT_FILE...`.
#[derive(Debug, Args)]
pub struct ReadSplitArgs {
    /// Table directory (for its schema files).
    pub table: String,
    /// Split files (raw DataSplit or FallbackDataSplit, SPLIT_V1 frame or Java object stream).
    #[arg(required = true)]
    pub splits: Vec<PathBuf>,
    /// Only these columns: `c1,c2`.
    #[arg(long)]
    pub select: Option<String>,
    /// SQL predicate.
    #[arg(long)]
    pub filter: Option<String>,
    /// Read with this schema id (default: the table's latest).
    #[arg(long = "schema-id")]
    pub schema_id: Option<i64>,
    /// Branch whose schema files describe the table.
    #[arg(long)]
    pub branch: Option<String>,
    /// Bound on the memory the read holds, e.g. `256MiB` (as `read --memory-limit`).
    #[arg(long = "memory-limit", value_parser = parse_memory_budget)]
    pub memory_limit: Option<usize>,
    /// Read options bytes from a planner (docs/split-protocol.md: schema, branch, columns,
    /// filter, limit, batch size, row kinds), e.g. a Flight split ticket's `options`;
    /// instead of `--select`, `--filter`, `--schema-id` and `--branch`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["select", "filter", "schema_id", "branch"])]
    pub options: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The Paimon fields of the output columns, in order.
pub fn output_fields(schema: &TableSchema, select: Option<&[String]>) -> Result<Vec<DataField>> {
    let Some(cols) = select else {
        return Ok(schema.fields.clone());
    };
    cols.iter()
        .map(|c| match schema.field(c) {
            Some(f) => Ok(f.clone()),
            None if c == "_ROW_ID" || c == "_SEQUENCE_NUMBER" => Ok(DataField::new(
                i32::MAX - 5,
                c.clone(),
                DataType::nullable(TypeKind::BigInt),
            )),
            None => Err(anyhow!("unknown column '{c}'")),
        })
        .collect()
}

/// `fields` after a leading `_ROW_KIND` STRING field when `with_kind` (`--with-kind`).
pub fn with_kind_field(fields: Vec<DataField>, with_kind: bool) -> Vec<DataField> {
    if !with_kind {
        return fields;
    }
    // Not a Paimon field: the id only has to differ from the table's.
    let kind = DataField::new(i32::MIN, ROW_KIND, DataType::string());
    std::iter::once(kind).chain(fields).collect()
}

/// The rows the data splits among `splits` hold (before merging, deletions and filters).
fn planned_rows(splits: &[Split]) -> u64 {
    splits
        .iter()
        .filter_map(Split::files_split)
        .map(|d| u64::try_from(d.row_count()).unwrap_or(0))
        .sum()
}

/// Reads `splits` and returns every batch, or the first error. A progress bar shows on
/// stderr when it is a terminal and the read takes more than a second ([`Progress`]).
pub fn read_all(
    reader: &SplitReader,
    table: &str,
    splits: &[Split],
    limit: Option<usize>,
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let it = reader
        .read_any_splits(table, splits)
        .map_err(|e| anyhow!("{e}"))?;
    let schema = it.schema();
    let mut batches = Vec::new();
    let mut rows = 0usize;
    let mut progress = Progress::new(planned_rows(splits));
    for b in it {
        let b = b.map_err(|e| anyhow!("{e}"))?;
        rows += b.num_rows();
        progress.add(b.num_rows());
        batches.push(b);
        if limit.is_some_and(|l| rows >= l) {
            break;
        }
    }
    progress.finish();
    if let Some(l) = limit {
        let mut kept = Vec::new();
        let mut left = l;
        for b in batches {
            if left == 0 {
                break;
            }
            let n = b.num_rows().min(left);
            left -= n;
            kept.push(b.slice(0, n));
        }
        batches = kept;
    }
    Ok((schema, batches))
}

/// Reads `splits` and prints only the row count (`--format null`), streaming: no batch is
/// kept, so memory stays at what the reader itself holds.
fn count_rows(reader: &SplitReader, table: &str, splits: &[Split]) -> Result<()> {
    let mut rows = 0usize;
    let mut progress = Progress::new(planned_rows(splits));
    for b in reader
        .read_any_splits(table, splits)
        .map_err(|e| anyhow!("{e}"))?
    {
        let n = b.map_err(|e| anyhow!("{e}"))?.num_rows();
        rows += n;
        progress.add(n);
    }
    progress.finish();
    println!("{rows}");
    Ok(())
}

/// Plans and reads `table` with `scan`, returning the rows in the JSON row encoding: what
/// `paimon read --format jsonl` prints. For tests and scripts.
///
/// # Errors
/// Any planning or reading error.
pub fn read_to_json_lines(table: &str, scan: &ScanArgs) -> Result<Vec<String>> {
    read_to_json_lines_with(table, scan, None)
}

/// [`read_to_json_lines`] with the reader tuned by `output`'s batch size, threads and memory
/// budget (its format and limit are not used).
///
/// # Errors
/// Any planning or reading error.
pub fn read_to_json_lines_with(
    table: &str,
    scan: &ScanArgs,
    output: Option<&OutputArgs>,
) -> Result<Vec<String>> {
    let opened = scan.open(table)?;
    let plan = opened.scan.plan().map_err(|e| anyhow!("{e}"))?;
    let mut b = reader_builder(Arc::clone(&opened.io), &opened);
    if let Some(o) = output {
        b = tune(b, o, opened.pool.as_ref())?;
    } else if let Some(p) = &opened.pool {
        b = b.with_memory_pool(Arc::clone(p));
    }
    let reader = b.build();
    let fields = with_kind_field(
        output_fields(&opened.schema, opened.select.as_deref())?,
        scan.with_kind,
    );
    let (_, batches) = read_all(&reader, &opened.path, &plan.wire_splits(), None)?;
    let mut out = Vec::new();
    for b in &batches {
        out.extend(
            batch_to_json_rows(b, &fields)?
                .into_iter()
                .map(|v| v.to_string()),
        );
    }
    Ok(out)
}

pub fn read(a: ReadArgs) -> Result<()> {
    if let Some(t) = crate::format_table_cmd::open(&a.table)? {
        return crate::format_table_cmd::read(&a, &t);
    }
    if let Some(id) = &a.consumer_id {
        return crate::consumer_read::read_as_consumer(&a, id);
    }
    let opened = a.scan.open(&a.table)?;
    let mut planned = a.scan.snapshot;
    read_opened(&a, &opened, &mut planned).map_err(|e| explain_expiry(&opened, planned, e))
}

/// A read whose snapshot is expired meanwhile fails on a manifest or data file that expiration
/// deleted; when snapshot `id` is gone by now, the error says so before naming the file.
fn explain_expiry(opened: &OpenedScan, id: Option<i64>, e: anyhow::Error) -> anyhow::Error {
    let Some(id) = id else { return e };
    if format!("{e:#}").contains(&format!("snapshot {id} ")) {
        return e;
    }
    let sm = opened.table.snapshot_manager();
    // Java's expiration deletes data files and manifests first and the snapshot file last, so
    // a missing file can be seen while the snapshot file still exists: give the expiration a
    // moment to finish before deciding the error is something else.
    // Expiration removes the oldest snapshots, so only a read of the earliest one can race it.
    let earliest_now = matches!(sm.earliest_id(), Ok(Some(n)) if n >= id);
    let missing_file = earliest_now && format!("{e:#}").contains("not found");
    let mut gone = opened.io.exists(&sm.snapshot_path(id));
    for _ in 0..if missing_file { 100 } else { 0 } {
        if matches!(gone, Ok(false)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        gone = opened.io.exists(&sm.snapshot_path(id));
    }
    match gone {
        Ok(false) => {
            let earliest = match sm.earliest_id() {
                Ok(Some(n)) => format!(" (earliest is now {n})"),
                _ => String::new(),
            };
            anyhow!("snapshot {id} has expired during the read{earliest}: {e:#}")
        }
        _ => e,
    }
}

/// Threads of a read without `--threads`: one per available core. The library's default
/// stays 1 ([`paimon_data::ReadOptions::parallelism`]), for engines that run a reader per core.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `b` with the batch size, threads and memory budget of `o`, reading within `pool` (of
/// `--memory-limit`) when given.
pub(crate) fn tune(
    mut b: paimon_data::SplitReaderBuilder,
    o: &OutputArgs,
    pool: Option<&Arc<dyn MemoryPool>>,
) -> Result<paimon_data::SplitReaderBuilder> {
    if let Some(n) = o.batch_size {
        b = b.with_batch_size(n);
    }
    b = b.with_parallelism(o.threads.unwrap_or_else(default_threads));
    match (o.memory_budget, pool) {
        (Some(_), Some(_)) => bail!("give --memory-limit or --memory-budget, not both"),
        (Some(n), None) => b = b.with_memory_budget(n),
        (None, Some(p)) => b = b.with_memory_pool(Arc::clone(p)),
        (None, None) => {}
    }
    if let Some(on) = o.blob_as_descriptor {
        b = b.with_blob_as_descriptor(on);
    }
    for root in &o.blob_roots {
        b = b.with_blob_root(root.clone());
    }
    for dir in &o.blob_descriptor_dirs {
        b = b.with_blob_descriptor_dir(dir.trim());
    }
    Ok(b.with_late_materialization(o.late_materialization.into()))
}

/// The reader of `opened`'s splits as its arguments ask (schema, projection, filter, branch,
/// row kinds, the pool of `--memory-limit`) through `io`: the facade's
/// ([`paimon_rs::TableScan::reader_builder_on`]).
pub fn reader_builder(io: FileIORef, opened: &OpenedScan) -> paimon_data::SplitReaderBuilder {
    opened.table_scan.reader_builder_on(io, &opened.opened)
}

fn read_opened(a: &ReadArgs, opened: &OpenedScan, planned: &mut Option<i64>) -> Result<()> {
    let plan = opened.scan.plan().map_err(|e| anyhow!("{e}"))?;
    *planned = plan.snapshot_id.or(*planned);
    let mut b = tune(
        reader_builder(Arc::clone(&opened.io), opened),
        &a.output,
        opened.pool.as_ref(),
    )?;
    if let Some(l) = a.output.limit {
        b = b.with_limit(l);
    }
    let reader = b.build();
    if a.output.format == Format::Null {
        return count_rows(&reader, &opened.path, &plan.wire_splits());
    }
    let fields = with_kind_field(
        output_fields(&opened.schema, opened.select.as_deref())?,
        a.scan.with_kind,
    );
    let (schema, batches) = read_all(&reader, &opened.path, &plan.wire_splits(), a.output.limit)?;
    write_output(&a.output, &schema, &batches, &fields)
}

/// `paimon read-split`: the splits read through the facade's [`SplitRead`] with the read
/// options of `--options FILE` or of the flags.
pub fn read_split(a: ReadSplitArgs) -> Result<()> {
    let path = table_location(&a.table);
    let io = file_io_for(&path).map_err(|e| anyhow!("{path}: {e}"))?;
    let mut options = match &a.options {
        Some(f) => {
            let bytes =
                std::fs::read(f).with_context(|| format!("{}: cannot read", f.display()))?;
            decode_read_options(&bytes).map_err(|e| anyhow!("{}: {e}", f.display()))?
        }
        None => SplitReadOptions {
            schema_id: a.schema_id,
            branch: a.branch.clone(),
            projection: a.select.as_ref().map(|s| {
                s.split(',')
                    .map(|c| c.trim().to_string())
                    .collect::<Vec<_>>()
            }),
            ..SplitReadOptions::default()
        },
    };
    let mut splits = Vec::new();
    for f in &a.splits {
        let bytes = std::fs::read(f).with_context(|| format!("{}: cannot read", f.display()))?;
        let mut split = paimon_split::decode_any(&bytes)
            .map_err(|e| anyhow!("{}: {e}", f.display()))?
            .split;
        if let Split::Incremental(inc) = split {
            let d = incremental_as_data_split(&io, &path, options.branch.as_deref(), inc)
                .map_err(|e| anyhow!("{}: {e}", f.display()))?;
            split = Split::Data(d);
        }
        splits.push(split);
    }
    let table_schema = SplitRead::new(Arc::clone(&io), &path, options.clone())
        .reader()
        .table_schema(&path)
        .map_err(|e| anyhow!("{e}"))?;
    if let Some(f) = &a.filter {
        options.filter = Some(parse_filter(f, &table_schema)?);
    }
    if let Some(l) = a.output.limit {
        let l = u64::try_from(l).unwrap_or(u64::MAX);
        options.limit = Some(options.limit.map_or(l, |n| n.min(l)));
    }
    let limit = options
        .limit
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let fields = with_kind_field(
        output_fields(&table_schema, options.projection.as_deref())?,
        options.with_row_kind,
    );
    let pool = a
        .memory_limit
        .map(|n| Arc::new(GreedyMemoryPool::new(n)) as Arc<dyn MemoryPool>);
    let read = SplitRead::new(io, &path, options);
    let reader = tune(read.reader_builder(), &a.output, pool.as_ref())?.build();
    if a.output.format == Format::Null {
        return count_rows(&reader, &path, &splits);
    }
    let (schema, batches) = read_all(&reader, &path, &splits, limit)?;
    write_output(&a.output, &schema, &batches, &fields)
}

pub(crate) fn write_output(
    o: &OutputArgs,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    fields: &[DataField],
) -> Result<()> {
    if o.format == Format::Null {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        crate::outln!("{rows}");
        return Ok(());
    }
    let mut buf: Vec<u8> = Vec::new();
    match o.format {
        Format::Table => {
            let text =
                arrow::util::pretty::pretty_format_batches(batches).map_err(|e| anyhow!("{e}"))?;
            writeln!(buf, "{text}")?;
        }
        Format::Csv => {
            let mut w = arrow::csv::WriterBuilder::new()
                .with_header(true)
                .build(&mut buf);
            for b in batches {
                w.write(b).map_err(|e| anyhow!("{e}"))?;
            }
        }
        Format::Jsonl => {
            for b in batches {
                for row in batch_to_json_rows(b, fields)? {
                    writeln!(buf, "{row}")?;
                }
            }
        }
        Format::Parquet => {
            let mut w = parquet::arrow::ArrowWriter::try_new(&mut buf, Arc::clone(schema), None)
                .map_err(|e| anyhow!("{e}"))?;
            for b in batches {
                w.write(b).map_err(|e| anyhow!("{e}"))?;
            }
            w.close().map_err(|e| anyhow!("{e}"))?;
        }
        Format::Arrow => {
            let mut w = arrow::ipc::writer::FileWriter::try_new(&mut buf, schema)
                .map_err(|e| anyhow!("{e}"))?;
            for b in batches {
                w.write(b).map_err(|e| anyhow!("{e}"))?;
            }
            w.finish().map_err(|e| anyhow!("{e}"))?;
        }
        Format::Null => {}
    }
    match &o.out {
        Some(p) => {
            let tmp = p.with_extension("partial");
            std::fs::write(&tmp, &buf)
                .with_context(|| format!("{}: cannot write", tmp.display()))?;
            std::fs::rename(&tmp, p).with_context(|| format!("{}: cannot write", p.display()))?;
        }
        None => {
            if matches!(o.format, Format::Parquet | Format::Arrow) {
                return Err(anyhow!("--format {:?} needs --out FILE", o.format));
            }
            if let Err(e) = std::io::stdout().lock().write_all(&buf) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(anyhow!("cannot write to stdout: {e}"));
                }
            }
        }
    }
    Ok(())
}

/// `paimon compare-rows TABLE EXPECTED ACTUAL`.
#[derive(Debug, Args)]
pub struct CompareRowsArgs {
    /// Table directory whose schema types the columns (the scan options choose which one:
    /// the latest, or a time-travel snapshot's).
    pub table: String,
    /// Expected rows (JSON lines).
    pub expected: PathBuf,
    /// Actual rows: JSON lines, or an Arrow IPC file (`*.arrow`, e.g. written by another
    /// reader) whose batches are encoded into JSON lines first.
    pub actual: PathBuf,
    /// The scan the rows came from: `--select c1,c2` names the columns the files hold
    /// (default: all, in schema order), `--with-kind` a leading `_ROW_KIND`, and the
    /// snapshot options the schema.
    #[command(flatten)]
    pub scan: ScanArgs,
}

pub fn compare_rows(a: CompareRowsArgs) -> Result<()> {
    let opened = a.scan.open(&a.table)?;
    let fields = with_kind_field(
        output_fields(&opened.schema, opened.select.as_deref())?,
        a.scan.with_kind,
    );
    let read = |p: &PathBuf| -> Result<Vec<String>> {
        if p.extension().is_some_and(|e| e == "arrow") {
            return arrow_file_rows(p, &fields);
        }
        Ok(std::fs::read_to_string(p)
            .with_context(|| format!("{}: cannot read", p.display()))?
            .lines()
            .map(str::to_string)
            .collect())
    };
    match crate::compare::diff_rows(&read(&a.expected)?, &read(&a.actual)?, &fields) {
        None => Ok(()),
        Some(d) => Err(anyhow!(
            "{} vs {}: {d}",
            a.expected.display(),
            a.actual.display()
        )),
    }
}

/// The rows of the Arrow IPC file at `p`, in the JSON row encoding of `fields`.
fn arrow_file_rows(p: &PathBuf, fields: &[DataField]) -> Result<Vec<String>> {
    let file = std::fs::File::open(p).with_context(|| format!("{}: cannot read", p.display()))?;
    let reader = arrow::ipc::reader::FileReader::try_new(file, None)
        .map_err(|e| anyhow!("{}: {e}", p.display()))?;
    let mut out = Vec::new();
    for b in reader {
        let b = b.map_err(|e| anyhow!("{}: {e}", p.display()))?;
        out.extend(
            batch_to_json_rows(&b, fields)?
                .into_iter()
                .map(|v| v.to_string()),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::parse_memory_budget;

    #[test]
    fn memory_budgets_read_bytes_and_binary_units() {
        let mib = 1usize << 20;
        assert_eq!(parse_memory_budget("1048576"), Ok(mib));
        assert_eq!(parse_memory_budget("64MiB"), Ok(64 * mib));
        assert_eq!(parse_memory_budget("64mib"), Ok(64 * mib));
        assert_eq!(parse_memory_budget("512MB"), Ok(512 * mib));
        assert_eq!(parse_memory_budget("512 mb"), Ok(512 * mib));
        assert_eq!(parse_memory_budget("16KiB"), Ok(16 << 10));
        assert_eq!(parse_memory_budget("2g"), Ok(2 << 30));
        assert_eq!(parse_memory_budget("100b"), Ok(100));
        for bad in ["", "0", "MiB", "1.5GB", "-1", "10 xb", "12ib"] {
            assert!(parse_memory_budget(bad).is_err(), "{bad:?}");
        }
    }
}
