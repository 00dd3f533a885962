//! `paimon-bench`: the baselines and in-process figures of `scripts/bench.sh` (issue 6).
//!
//! * `raw TABLE [--select c1,c2] [--threads N]`: plans the table with paimon-meta, then
//!   decodes every planned data file with the format's own Arrow decoder (the `parquet` crate's
//!   `ParquetRecordBatchReader`, `orc-rust`, `arrow-avro`) at the same projection, batch size
//!   and thread count as `paimon read`, without merging, deletion vectors or schema mapping.
//!   `paimon read --format null` against this is our reader's overhead.
//! * `plan TABLE [--repeat R]`: opens and plans the table in-process, prints the time of each
//!   plan (run it under `/usr/bin/time -v` for peak memory).
//! * `pushdown TABLE --filter EXPR [--select ..]`: plans and reads through a
//!   `paimon_io::CountingFileIO`, with and without the filter; prints rows, bytes read and time.
//! * `write SOURCE --out DIR [--reps N]`: writes the source table's rows into a new table with
//!   `paimon_write::TableWrite` and commits them, against the parquet crate's `ArrowWriter`
//!   writing the same batches (see [`mod@write`]).
//! * `commit-latency TABLE --out DIR [--reps N]`: one-row commits into a copy of the table's
//!   metadata against the same commits into an empty table.
//!
//! Each command prints one `key=value` line per measurement, for the script to parse.
//! Compare two runs by running `scripts/bench.sh` before and after a change: it measures the
//! baseline in the same run and records the ratios in `docs/benchmarks.md`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use paimon_io::{file_io_for, CountingFileIO, FileIORef};
use paimon_meta::Table;

mod write;

#[derive(Debug, Parser)]
#[command(name = "paimon-bench")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decode the planned files with the raw format decoders.
    Raw {
        table: String,
        #[arg(long)]
        select: Option<String>,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long = "batch-size", default_value_t = paimon_data::reader::DEFAULT_BATCH_SIZE)]
        batch_size: usize,
    },
    /// Time planning.
    Plan {
        table: String,
        #[arg(long, default_value_t = 1)]
        repeat: usize,
    },
    /// Bytes read and time with and without a filter.
    Pushdown {
        table: String,
        #[arg(long)]
        filter: String,
        #[arg(long)]
        select: Option<String>,
    },
    /// Commit latency on a copy of a table's metadata against an empty table.
    CommitLatency {
        table: String,
        #[arg(long)]
        out: String,
        #[arg(long, default_value_t = 3)]
        reps: usize,
    },
    /// Write the source table's rows: TableWrite + commit against ArrowWriter.
    Write {
        source: String,
        #[arg(long)]
        out: String,
        #[arg(long, default_value_t = 1)]
        reps: usize,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Raw {
            table,
            select,
            threads,
            batch_size,
        } => raw(&table, select.as_deref(), threads, batch_size),
        Command::Plan { table, repeat } => plan(&table, repeat),
        Command::Pushdown {
            table,
            filter,
            select,
        } => pushdown(&table, &filter, select.as_deref()),
        Command::Write { source, out, reps } => write::write(&source, &out, reps),
        Command::CommitLatency { table, out, reps } => write::commit_latency(&table, &out, reps),
    }
}

fn columns(select: Option<&str>) -> Option<Vec<String>> {
    select.map(|s| s.split(',').map(|c| c.trim().to_string()).collect())
}

fn open(table: &str) -> Result<(FileIORef, Table)> {
    let io = file_io_for(table).map_err(|e| anyhow!("{table}: {e}"))?;
    let t = Table::open(io.clone(), table).map_err(|e| anyhow!("{e}"))?;
    Ok((io, t))
}

fn raw(table: &str, select: Option<&str>, threads: usize, batch_size: usize) -> Result<()> {
    let start = Instant::now();
    let (_, t) = open(table)?;
    let plan = t.scan().plan().map_err(|e| anyhow!("{e}"))?;
    let files: Vec<String> = plan
        .splits
        .iter()
        .flat_map(|s| {
            s.data_files
                .iter()
                .map(move |f| format!("{}/{}", s.bucket_path.trim_end_matches('/'), f.file_name))
        })
        .map(|p| p.strip_prefix("file:").map(str::to_string).unwrap_or(p))
        .collect();
    let cols = columns(select);
    let next = AtomicUsize::new(0);
    let rows = AtomicUsize::new(0);
    std::thread::scope(|scope| -> Result<()> {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(i) else {
                            return Ok(());
                        };
                        let n = decode_file(path, cols.as_deref(), batch_size)?;
                        rows.fetch_add(n, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().map_err(|_| anyhow!("decode thread panicked"))??;
        }
        Ok(())
    })?;
    println!(
        "rows={} files={} ms={:.1}",
        rows.load(Ordering::Relaxed),
        files.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}

/// Decodes one file with its format's Arrow reader; returns the row count.
fn decode_file(path: &str, cols: Option<&[String]>, batch_size: usize) -> Result<usize> {
    let data = bytes::Bytes::from(std::fs::read(path).with_context(|| path.to_string())?);
    let wanted = |name: &str| cols.is_none_or(|c| c.iter().any(|x| x == name));
    let mut rows = 0;
    if path.ends_with(".parquet") {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        use parquet::arrow::ProjectionMask;
        let b = ParquetRecordBatchReaderBuilder::try_new(data)?;
        let roots: Vec<usize> = b
            .schema()
            .fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| wanted(f.name()))
            .map(|(i, _)| i)
            .collect();
        let mask = ProjectionMask::roots(b.parquet_schema(), roots);
        for batch in b
            .with_projection(mask)
            .with_batch_size(batch_size)
            .build()?
        {
            rows += batch?.num_rows();
        }
    } else if path.ends_with(".orc") {
        use orc_rust::arrow_reader::ArrowReaderBuilder;
        use orc_rust::projection::ProjectionMask;
        let b = ArrowReaderBuilder::try_new(data)?;
        let root = b.file_metadata().root_data_type();
        let names: Vec<&str> = root
            .children()
            .iter()
            .map(|c| c.name())
            .filter(|n| wanted(n))
            .collect();
        let mask = ProjectionMask::named_roots(root, &names);
        for batch in b.with_projection(mask).with_batch_size(batch_size).build() {
            rows += batch?.num_rows();
        }
    } else if path.ends_with(".avro") {
        let reader = arrow_avro::reader::ReaderBuilder::new()
            .with_batch_size(batch_size)
            .build(std::io::Cursor::new(data))?;
        let schema = reader.schema();
        let idx: Vec<usize> = schema
            .fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| wanted(f.name()))
            .map(|(i, _)| i)
            .collect();
        for batch in reader {
            rows += batch?.project(&idx)?.num_rows();
        }
    } else {
        bail!("{path}: not a Parquet, ORC or Avro file");
    }
    Ok(rows)
}

fn plan(table: &str, repeat: usize) -> Result<()> {
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        let (_, t) = open(table)?;
        let plan = t.scan().plan().map_err(|e| anyhow!("{e}"))?;
        let files: usize = plan.splits.iter().map(|s| s.data_files.len()).sum();
        println!(
            "splits={} files={} ms={:.1}",
            plan.splits.len(),
            files,
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}

fn pushdown(table: &str, filter: &str, select: Option<&str>) -> Result<()> {
    for with_filter in [false, true] {
        let inner = file_io_for(table).map_err(|e| anyhow!("{table}: {e}"))?;
        let counting = Arc::new(CountingFileIO::new(inner));
        let io: FileIORef = counting.clone();
        let start = Instant::now();
        let mut scan = paimon_rs::Table::open(io, table)?.scan();
        if let Some(cols) = columns(select) {
            scan = scan.with_projection(cols);
        }
        if with_filter {
            scan = scan.with_filter(filter)?;
        }
        let opened = scan.open()?;
        let plan = opened.plan()?;
        let meta_bytes = counting.bytes_read();
        let files: usize = plan
            .splits
            .iter()
            .filter_map(paimon_rs::Split::files_split)
            .map(|s| s.data_files.len())
            .sum();
        let mut rows = 0;
        for batch in scan
            .reader_builder(&opened)
            .build()
            .read_any_splits(table, &plan.splits)
            .map_err(|e| anyhow!("{e}"))?
        {
            rows += batch.map_err(|e| anyhow!("{e}"))?.num_rows();
        }
        println!(
            "filter={} rows={} files={} data_bytes={} meta_bytes={} ms={:.1}",
            with_filter,
            rows,
            files,
            counting.bytes_read() - meta_bytes,
            meta_bytes,
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}
