//! `paimon-bench write SOURCE --out DIR`: the write figures of issue 13.
//!
//! The source table's rows are read into memory once (not timed). Then, alternating `--reps`
//! times, one thread each unless said:
//! * ours: a new table with the source's schema and options at `DIR/t-N`; a `TableWrite`
//!   writes every batch (partition and bucket routing, rolling, Java's statistics, key and
//!   sequence columns on primary-key tables, merging per flush) and `prepare_commit`; then the
//!   commit is timed on its own;
//! * ours on every core: the same with `TableWrite::with_threads(cores)`, each Parquet row
//!   group's columns encoded side by side (the same encoding);
//! * baseline: the parquet crate's `ArrowWriter` writing the same batches into one file with the
//!   writer properties ours uses (`file.compression` zstd, its level), nothing else;
//! * split baseline: `ArrowWriter`s writing the same batches into one file per partition value
//!   (the files a partitioned table needs; one file when the table has no partition keys),
//!   each batch cut where the partition changes.
//!
//! Prints `rows=.. ours_ms=.. commit_ms=.. raw_ms=.. split_ms=.. ours_bytes=.. raw_bytes=..
//! split_files=.. cores=.. ours_cores_ms=..` with the best time of each (on one core,
//! `ours_cores_ms` is `ours_ms`). The output directory is emptied before each run.

use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use arrow_array::RecordBatch;
use paimon_data::SplitReader;
use paimon_io::FileIORef;
use paimon_meta::commit::{create_table_at, BATCH_COMMIT_IDENTIFIER};
use paimon_meta::Table;
use paimon_spec::schema::TableSchema;
use paimon_write::parquet_file::writer_properties;
use paimon_write::{CommitMessage, TableWrite};
use parquet::arrow::ArrowWriter;

use crate::open;

/// Runs the figure (see the module docs).
pub fn write(source: &str, out: &str, reps: usize) -> Result<()> {
    let (io, t) = open(source)?;
    let plan = t.scan().plan().map_err(|e| anyhow!("{e}"))?;
    let reader = SplitReader::builder(io.clone()).build();
    let mut batches: Vec<RecordBatch> = Vec::new();
    for split in &plan.splits {
        for b in reader.read(t.path(), split).map_err(|e| anyhow!("{e}"))? {
            batches.push(b.map_err(|e| anyhow!("{e}"))?);
        }
    }
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let schema = t.schema().as_ref().clone();
    let level = schema
        .options
        .get("file.compression.zstd-level")
        .map(|v| v.parse::<i32>())
        .transpose()
        .context("file.compression.zstd-level")?
        .unwrap_or(1);
    let props =
        writer_properties(&t.options().file_compression, level).map_err(|e| anyhow!("{e}"))?;
    let (mut ours, mut commit, mut raw, mut split) = (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    // Ours again with the columns encoded on every core (`TableWrite::with_threads`).
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut ours_cores = f64::MAX;
    let mut split_files = 0;
    let partition_cols: Vec<usize> = schema
        .partition_keys
        .iter()
        .map(|k| {
            batches
                .first()
                .and_then(|b| b.schema().index_of(k).ok())
                .ok_or_else(|| anyhow!("{source}: no column {k}"))
        })
        .collect::<Result<_>>()?;
    let (mut ours_bytes, mut raw_bytes) = (0u64, 0u64);
    std::fs::create_dir_all(out).with_context(|| out.to_string())?;
    for rep in 0..reps.max(1) {
        // Ours.
        let dir = format!("{}/t-{rep}", out.trim_end_matches('/'));
        let _ = std::fs::remove_dir_all(&dir);
        let (table, messages, secs) = write_ours(&io, &dir, &schema, &batches, 1)?;
        ours = ours.min(secs);
        let start = Instant::now();
        table
            .new_commit("paimon-bench")
            .commit(BATCH_COMMIT_IDENTIFIER, &messages)
            .map_err(|e| anyhow!("{e}"))?;
        commit = commit.min(start.elapsed().as_secs_f64());
        ours_bytes = messages
            .iter()
            .flat_map(|m| &m.data_increment.new_files)
            .map(|f| f.file_size.max(0) as u64)
            .sum();
        std::fs::remove_dir_all(&dir).with_context(|| dir.clone())?;
        if cores > 1 {
            let (_, _, secs) = write_ours(&io, &dir, &schema, &batches, cores)?;
            ours_cores = ours_cores.min(secs);
            std::fs::remove_dir_all(&dir).with_context(|| dir.clone())?;
        } else {
            ours_cores = ours;
        }

        // The parquet crate alone.
        let file = format!("{}/raw-{rep}.parquet", out.trim_end_matches('/'));
        let start = Instant::now();
        let f = std::fs::File::create(&file).with_context(|| file.clone())?;
        let first = batches
            .first()
            .ok_or_else(|| anyhow!("{source}: no rows to write"))?;
        let mut writer = ArrowWriter::try_new(f, first.schema(), Some(props.clone()))?;
        for b in &batches {
            writer.write(b)?;
        }
        writer.close()?;
        raw = raw.min(start.elapsed().as_secs_f64());
        raw_bytes = std::fs::metadata(&file)?.len();
        std::fs::remove_file(&file)?;

        // The parquet crate alone, one file per partition.
        let start = Instant::now();
        let files = write_per_partition(&batches, &partition_cols, out, rep, &props)?;
        split = split.min(start.elapsed().as_secs_f64());
        split_files = files.len();
        for f in files {
            std::fs::remove_file(&f)?;
        }
    }
    println!(
        "rows={rows} ours_ms={:.1} commit_ms={:.1} raw_ms={:.1} split_ms={:.1} ours_bytes={ours_bytes} raw_bytes={raw_bytes} split_files={split_files} cores={cores} ours_cores_ms={:.1}",
        ours * 1e3,
        commit * 1e3,
        raw * 1e3,
        split * 1e3,
        ours_cores * 1e3
    );
    Ok(())
}

/// Creates a table of `schema` at `dir` and writes `batches` into it with a `TableWrite` on
/// `threads` threads, up to `prepare_commit`; the table, the messages and the seconds the
/// write took (not the table's creation).
fn write_ours(
    io: &FileIORef,
    dir: &str,
    schema: &TableSchema,
    batches: &[RecordBatch],
    threads: usize,
) -> Result<(Table, Vec<CommitMessage>, f64)> {
    let table =
        create_table_at(io.clone(), dir, schema.clone(), false).map_err(|e| anyhow!("{e}"))?;
    let start = Instant::now();
    let mut w = TableWrite::try_new(io.clone(), dir, table.schema())
        .and_then(|w| w.with_threads(threads))
        .map_err(|e| anyhow!("{e}"))?;
    for b in batches {
        w.write_conformed(b, None).map_err(|e| anyhow!("{e}"))?;
    }
    let messages = w.prepare_commit().map_err(|e| anyhow!("{e}"))?;
    Ok((table, messages, start.elapsed().as_secs_f64()))
}

/// Writes `batches` with one `ArrowWriter` per value of the `partition` columns (one writer
/// when there are none), each batch cut into runs of equal values; returns the files.
fn write_per_partition(
    batches: &[RecordBatch],
    partition: &[usize],
    out: &str,
    rep: usize,
    props: &parquet::file::properties::WriterProperties,
) -> Result<Vec<String>> {
    let mut writers: std::collections::HashMap<String, ArrowWriter<std::fs::File>> =
        std::collections::HashMap::new();
    let mut files = Vec::new();
    for b in batches {
        let columns: Vec<_> = partition.iter().map(|&i| b.column(i).clone()).collect();
        let runs = if columns.is_empty() {
            std::iter::once(0..b.num_rows()).collect()
        } else {
            arrow_ord::partition::partition(&columns)?.ranges()
        };
        for run in runs {
            let key = columns
                .iter()
                .map(|c| arrow_cast::display::array_value_to_string(c, run.start))
                .collect::<std::result::Result<Vec<_>, _>>()?
                .join("/");
            let w = match writers.entry(key) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let file = format!(
                        "{}/split-{rep}-{}.parquet",
                        out.trim_end_matches('/'),
                        files.len()
                    );
                    let f = std::fs::File::create(&file).with_context(|| file.clone())?;
                    files.push(file);
                    e.insert(ArrowWriter::try_new(f, b.schema(), Some(props.clone()))?)
                }
            };
            w.write(&b.slice(run.start, run.len()))?;
        }
    }
    for (_, w) in writers {
        w.close()?;
    }
    Ok(files)
}

/// `paimon-bench commit-latency TABLE --out DIR`: for each of `reps`, the metadata of `TABLE`
/// (schemas, snapshots, manifests; no data files) copied afresh to `DIR/meta` and one commit
/// of one written row into that copy, against the same commits into an empty table with the
/// same schema at `DIR/empty`. Prints `manifests=.. ms=.. empty_ms=..` (best of each;
/// `manifests` counts data manifests, not manifest lists).
pub fn commit_latency(table: &str, out: &str, reps: usize) -> Result<()> {
    let (io, t) = open(table)?;
    let plan = t.scan().plan().map_err(|e| anyhow!("{e}"))?;
    let split = plan
        .splits
        .first()
        .ok_or_else(|| anyhow!("{table}: no data"))?;
    let reader = SplitReader::builder(io.clone()).with_limit(1).build();
    let mut row = None;
    for b in reader.read(t.path(), split).map_err(|e| anyhow!("{e}"))? {
        let b = b.map_err(|e| anyhow!("{e}"))?;
        if b.num_rows() > 0 {
            row = Some(b.slice(0, 1));
            break;
        }
    }
    let row = row.ok_or_else(|| anyhow!("{table}: no row to write"))?;
    let out = out.trim_end_matches('/');
    let meta = format!("{out}/meta");
    let empty = format!("{out}/empty");
    // A fresh copy of the metadata for every rep: a commit into a table of many small
    // manifests may merge them, which would make every later commit into the same copy cheap.
    let copy_meta = || -> Result<Table> {
        let _ = std::fs::remove_dir_all(&meta);
        for sub in ["schema", "snapshot", "manifest"] {
            copy_dir(
                &std::path::Path::new(table.trim_start_matches("file:")).join(sub),
                &std::path::Path::new(&meta).join(sub),
            )?;
        }
        Table::open(io.clone(), &meta).map_err(|e| anyhow!("{e}"))
    };
    let _ = std::fs::remove_dir_all(&empty);
    let manifests = std::fs::read_dir(format!("{}/manifest", table.trim_start_matches("file:")))?
        .filter(|e| {
            e.as_ref().is_ok_and(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with("manifest-") && !name.starts_with("manifest-list-")
            })
        })
        .count();
    let fresh = create_table_at(io.clone(), &empty, t.schema().as_ref().clone(), false)
        .map_err(|e| anyhow!("{e}"))?;
    // The row is written as Parquet whatever the table's `file.format` (the planning table's
    // is Avro, which TableWrite does not write); only the commit is timed.
    let mut write_schema = t.schema().as_ref().clone();
    write_schema
        .options
        .insert("file.format".into(), "parquet".into());
    let (mut full_s, mut empty_s) = (f64::MAX, f64::MAX);
    for rep in 0..reps.max(1) {
        let copy = copy_meta()?;
        for (target, best) in [(&copy, &mut full_s), (&fresh, &mut empty_s)] {
            let mut w = TableWrite::try_new(io.clone(), target.path(), &write_schema)
                .map_err(|e| anyhow!("{e}"))?;
            w.write_conformed(&row, None).map_err(|e| anyhow!("{e}"))?;
            let messages = w.prepare_commit().map_err(|e| anyhow!("{e}"))?;
            let start = Instant::now();
            target
                .new_commit("paimon-bench")
                .commit(rep as i64, &messages)
                .map_err(|e| anyhow!("{e}"))?;
            *best = best.min(start.elapsed().as_secs_f64());
        }
    }
    println!(
        "manifests={manifests} ms={:.1} empty_ms={:.1}",
        full_s * 1e3,
        empty_s * 1e3
    );
    Ok(())
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| to.display().to_string())?;
    for e in std::fs::read_dir(from).with_context(|| from.display().to_string())? {
        let e = e?;
        if e.file_type()?.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}
