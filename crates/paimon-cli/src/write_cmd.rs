//! `paimon write` and `paimon commit`: rows from a file written by paimon-write's
//! `TableWrite` and committed by paimon-meta's `TableCommit`, in one step or in two processes
//! through message files (Java `CommitMessageSerializer` bytes).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use clap::Args;
use paimon_io::file_io_for;
use paimon_meta::commit::PartitionSpec;
use paimon_meta::Table;
use paimon_split::commit::{
    decode_commit_message, encode_commit_message, CommitMessage, DEFAULT_COMMIT_MESSAGE_VERSION,
};
use paimon_split::encode_write_context;
use paimon_write::TableWrite;

use crate::input::{read_input, InputFormat};
use crate::scan_args::table_location;
use paimon_rs::table_writer::open_writer;
use paimon_rs::Overwrite;

/// `paimon write TABLE --from FILE`.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// The rows: Parquet, CSV (with a header line), JSON lines or Arrow IPC.
    #[arg(long)]
    pub from: PathBuf,
    /// The input's format (default: from the extension: .parquet, .csv, .json/.jsonl/.ndjson,
    /// .arrow/.ipc/.feather).
    #[arg(long = "input-format")]
    pub input_format: Option<InputFormat>,
    /// Replace data instead of appending: the partition of `--partition`, else the partitions
    /// written (`dynamic-partition-overwrite`, default true) or the whole table.
    #[arg(long, conflicts_with = "prepare_only")]
    pub overwrite: bool,
    /// The partition `--overwrite` replaces: `k=v,k2=v2` (a prefix of the partition columns).
    #[arg(long, requires = "overwrite")]
    pub partition: Option<String>,
    /// A column holding each row's kind (`+I`, `-U`, `+U`, `-D`); not a table column.
    #[arg(long = "row-kind-column")]
    pub row_kind_column: Option<String>,
    /// Write the data files and one message file per commit message into `--out-dir`;
    /// commit nothing (see `paimon commit`).
    #[arg(long = "prepare-only", requires = "out_dir")]
    pub prepare_only: bool,
    /// Where `--prepare-only` puts the message files (`message-0000.bin`, ...).
    #[arg(long = "out-dir")]
    pub out_dir: Option<PathBuf>,
    /// Commit-message serializer version of the message files: 14 (the default) for Java 2.1,
    /// pypaimon 2.1 and paimon-rust 0.4; 11 for Java 1.4, 12 for Java 2.0.
    #[arg(long = "message-version", default_value_t = DEFAULT_COMMIT_MESSAGE_VERSION)]
    pub message_version: i32,
    /// Threads encoding the columns of Parquet files (default: every core); the encoding is
    /// the same whatever the count (with more than one, where a file rolls is estimated).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write as a worker with the write context of `paimon write-context` (schema, restored
    /// sequence numbers, hash index, overwrite): no schema or snapshot file is read.
    #[arg(long, requires = "prepare_only", conflicts_with_all = ["overwrite", "partition"])]
    pub context: Option<PathBuf>,
}

/// `paimon write-context TABLE -o FILE`.
#[derive(Debug, Args)]
pub struct WriteContextArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// The rows written with the context replace the table's (committed as an overwrite).
    #[arg(long)]
    pub overwrite: bool,
    /// The commit user the messages will be committed as, recorded in the context.
    #[arg(long = "commit-user")]
    pub commit_user: Option<String>,
    /// Where the context bytes go.
    #[arg(short = 'o', long = "out")]
    pub out: PathBuf,
}

/// `paimon commit TABLE MESSAGE_FILE...`.
#[derive(Debug, Args)]
pub struct CommitArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// Message files written by `paimon write --prepare-only`.
    #[arg(required = true)]
    pub messages: Vec<PathBuf>,
    /// The commit user (default: `paimon-cli-` and the SHA-256 of the message files' bytes,
    /// sorted, so committing the same files again, in any order, does nothing). With it,
    /// `--identifier` is required.
    #[arg(long = "commit-user", requires = "identifier")]
    pub commit_user: Option<String>,
    /// The commit identifier; a user's identifier is committed at most once (default 1).
    #[arg(long)]
    pub identifier: Option<i64>,
    /// Commit-message serializer version of the message files (default 14; 11 for messages
    /// Java 1.4 wrote).
    #[arg(long = "message-version", default_value_t = DEFAULT_COMMIT_MESSAGE_VERSION)]
    pub message_version: i32,
}

pub fn write(a: WriteArgs) -> Result<()> {
    if let Some(t) = crate::format_table_cmd::open(&a.table)? {
        return crate::format_table_cmd::write(&a, &t);
    }
    let path = table_location(&a.table);
    write_in(&path, &a).with_context(|| format!("write {path}"))
}

/// `paimon write-context`: the planner's half of a distributed write.
pub fn write_context(a: WriteContextArgs) -> Result<()> {
    let path = table_location(&a.table);
    let table = open(&path).with_context(|| format!("write-context {path}"))?;
    let ctx = table
        .write_context(a.overwrite, a.commit_user.as_deref())
        .map_err(|e| anyhow!("write-context {path}: {e}"))?;
    let bytes = encode_write_context(&ctx).map_err(|e| anyhow!("write-context {path}: {e}"))?;
    std::fs::write(&a.out, &bytes).with_context(|| format!("-o {}", a.out.display()))?;
    crate::outln!(
        "wrote the write context of {path} (schema {}, {}) to {}",
        ctx.schema.id,
        ctx.snapshot_id
            .map_or("no snapshot".to_string(), |id| format!("snapshot {id}")),
        a.out.display()
    );
    Ok(())
}

/// `paimon write --context`: a worker writing with the planner's context only.
fn write_with_context(path: &str, file: &Path, a: &WriteArgs) -> Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("--context {}", file.display()))?;
    // Under a catalog the context must be for the table the catalog names `db.table`.
    let expected = match crate::catalog_cmd::catalog_for(path)? {
        Some(_) => open(path)?.path().to_string(),
        None => path.to_string(),
    };
    let ctx = paimon_rs::write_context::write_context_for(&bytes, &expected)
        .map_err(|e| anyhow!("--context {}: {}", file.display(), e.chain()))?;
    let io = file_io_for(&ctx.table_path).map_err(|e| anyhow!("{e}"))?;
    let writer = TableWrite::from_context(io, &ctx)
        .and_then(|w| w.with_threads(threads(a)))
        .map_err(|e| anyhow!("{e}"))?;
    let (rows, messages) = write_rows(writer, a)?;
    prepared(a, rows, &messages)?;
    if ctx.compact_after {
        crate::outln!(
            "this table is compacted after writes (deletion vectors, first-row or the lookup \
             changelog): its rows reach batch reads after `paimon commit` and `paimon compact`"
        );
    }
    Ok(())
}

fn threads(a: &WriteArgs) -> usize {
    a.threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

fn write_in(path: &str, a: &WriteArgs) -> Result<()> {
    if let Some(file) = &a.context {
        return write_with_context(path, file, a);
    }
    let table = open(path)?;
    // Parse everything the commit needs before a file is written.
    let partition = match &a.partition {
        Some(text) => {
            partition_spec(text, &table)?;
            Some(partition_pairs(text)?)
        }
        None => None,
    };
    if a.prepare_only {
        let writer = open_writer(&table, false, false, threads(a))?;
        let (rows, messages) = write_rows(writer, a)?;
        return prepared(a, rows, &messages);
    }
    let format = match a.input_format {
        Some(f) => f,
        None => InputFormat::of_path(&a.from)?,
    };
    let mut write = paimon_rs::Table::from_meta(table)
        .write()
        .with_threads(threads(a))
        .with_commit_user(paimon_meta::commit::fresh_commit_user("paimon-cli-write"));
    if a.overwrite {
        write = write.with_overwrite(match partition {
            Some(pairs) => Overwrite::Partition(pairs),
            None => Overwrite::AsConfigured,
        });
    }
    if let Some(k) = &a.row_kind_column {
        write = write.with_row_kind_column(k.clone());
    }
    let mut w = write.begin()?;
    let input = w.input_schema().clone();
    let result = read_input(
        &a.from,
        format,
        &input,
        a.row_kind_column.as_deref(),
        &mut |batch| Ok(w.write(&batch)?),
    );
    let rows = match result {
        Ok(r) => r,
        Err(e) => {
            w.abort();
            return Err(e);
        }
    };
    let report = w.commit()?;
    crate::outln!(
        "wrote {rows} rows into {} files; {}",
        report.files,
        describe_snapshots(&report.all_snapshots())
    );
    Ok(())
}

/// Writes the rows of `--from` with `writer` and prepares their commit messages; the files
/// written are deleted on an error.
fn write_rows(mut writer: TableWrite, a: &WriteArgs) -> Result<(u64, Vec<CommitMessage>)> {
    let format = match a.input_format {
        Some(f) => f,
        None => InputFormat::of_path(&a.from)?,
    };
    let input = writer.input_schema().clone();
    let result = read_input(
        &a.from,
        format,
        &input,
        a.row_kind_column.as_deref(),
        &mut |batch| {
            writer
                .write_conformed(&batch, a.row_kind_column.as_deref())
                .map_err(|e| anyhow!("{e}"))
        },
    )
    .and_then(|rows| {
        let messages = writer.prepare_commit().map_err(|e| anyhow!("{e}"))?;
        Ok((rows, messages))
    });
    if result.is_err() {
        writer.abort();
    }
    result
}

fn file_count(messages: &[CommitMessage]) -> usize {
    messages
        .iter()
        .map(|m| m.data_increment.new_files.len())
        .sum()
}

/// `--prepare-only`: the message files into `--out-dir`.
fn prepared(a: &WriteArgs, rows: u64, messages: &[CommitMessage]) -> Result<()> {
    let dir = a.out_dir.as_deref().ok_or_else(|| anyhow!("--out-dir"))?;
    let written = write_message_files(dir, messages, a.message_version)?;
    crate::outln!(
        "wrote {rows} rows into {} files; {} message files in {} (not committed)",
        file_count(messages),
        written.len(),
        dir.display()
    );
    Ok(())
}

pub fn commit(a: CommitArgs) -> Result<()> {
    let path = table_location(&a.table);
    commit_in(&path, &a).with_context(|| format!("commit {path}"))
}

fn commit_in(path: &str, a: &CommitArgs) -> Result<()> {
    let table = open(path)?;
    let mut messages = Vec::new();
    let mut contents = Vec::new();
    for file in &a.messages {
        let bytes =
            std::fs::read(file).with_context(|| format!("message file {}", file.display()))?;
        messages.push(
            decode_commit_message(&bytes, a.message_version)
                .map_err(|e| anyhow!("message file {}: {e}", file.display()))?,
        );
        contents.push(bytes);
    }
    let user = match &a.commit_user {
        Some(u) => u.clone(),
        None => default_commit_user(contents),
    };
    let identifier = a.identifier.unwrap_or(1);
    let ids = table
        .new_commit(&user)
        .commit(identifier, &messages)
        .map_err(|e| anyhow!("{e}"))?;
    if ids.is_empty() {
        crate::outln!(
            "nothing committed: user {user} identifier {identifier} is already committed or the \
             messages carry no files"
        );
    } else {
        crate::outln!(
            "{} (user {user}, identifier {identifier})",
            describe_snapshots(&ids)
        );
    }
    Ok(())
}

/// The commit user of `paimon commit` without `--commit-user`: `paimon-cli-` and the SHA-256
/// of the message files' bytes, sorted, each preceded by its length, so the same set of
/// messages gets the same user whatever the order of the files.
fn default_commit_user(mut contents: Vec<Vec<u8>>) -> String {
    use sha2::{Digest, Sha256};
    contents.sort();
    let mut h = Sha256::new();
    for c in &contents {
        h.update((c.len() as u64).to_be_bytes());
        h.update(c);
    }
    let digest: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("paimon-cli-{digest}")
}

/// Opens the table at `path` (`db.table` under `--catalog-option`). With the test hook `PAIMON_TEST_FAULT_PUBLISH=<p>` set, its
/// storage fails snapshot publishes with probability `p` ([`paimon_io::FaultyFileIO`]).
pub(crate) fn open(path: &str) -> Result<Table> {
    if crate::catalog_cmd::catalog()?.is_some() {
        // `db.table` through the catalog (its commits go through it too).
        return Ok(crate::scan_args::open_table(path)?.1);
    }
    let io = file_io_for(path).map_err(|e| anyhow!("{e}"))?;
    let io = paimon_io::FaultyFileIO::from_env(io, path).map_err(|e| anyhow!("{e}"))?;
    Table::open(io, path).map_err(|e| anyhow!("{e}"))
}

/// `k=v,k2=v2` as pairs.
pub(crate) fn partition_pairs(text: &str) -> Result<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| anyhow!("--partition takes k=v,... (got '{part}')"))?;
        pairs.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(pairs)
}

/// `k=v,k2=v2` typed by the partition columns.
pub(crate) fn partition_spec(text: &str, table: &Table) -> Result<PartitionSpec> {
    let pairs = partition_pairs(text)?;
    table
        .partition_spec(&pairs)
        .map_err(|e| anyhow!("--partition: {e}"))
}

pub(crate) fn write_message_files(
    dir: &Path,
    messages: &[CommitMessage],
    version: i32,
) -> Result<Vec<PathBuf>> {
    write_numbered_files(dir, "message", messages, |m| {
        encode_commit_message(m, version).map_err(|e| anyhow!("{e}"))
    })
}

/// Writes `encode(item)` of each item into `dir` (made if missing) as `<prefix>-NNNN.bin`;
/// the paths written.
pub(crate) fn write_numbered_files<T>(
    dir: &Path,
    prefix: &str,
    items: &[T],
    encode: impl Fn(&T) -> Result<Vec<u8>>,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("--out-dir {}", dir.display()))?;
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = dir.join(format!("{prefix}-{i:04}.bin"));
        std::fs::write(&p, encode(item)?).with_context(|| p.display().to_string())?;
        out.push(p);
    }
    Ok(out)
}

pub(crate) fn describe_snapshots(ids: &[i64]) -> String {
    match ids {
        [] => "no snapshot (nothing to commit)".into(),
        [one] => format!("committed snapshot {one}"),
        many => format!(
            "committed snapshots {}",
            many.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}
