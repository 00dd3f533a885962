//! `SplitReader::read_async`, the data plane's entry for async callers, on every fixture case
//! (each split read on one current-thread runtime): Java's rows, and not one blocking storage
//! call: schema, index and data files (Parquet, ORC, Avro, blob) are all fetched through the
//! `FileIO`'s async methods. The fixture files fit in the footer tail the reader fetches; the
//! data plane's `ranged_reads` tests cover files of many row groups.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use clap::Parser;
use futures::StreamExt;
use paimon_cli::compare::diff_rows;
use paimon_cli::read_cmd::{output_fields, reader_builder, with_kind_field};
use paimon_cli::rows::batch_to_json_rows;
use paimon_cli::scan_args::ScanArgs;
use paimon_io::{BoxFuture, FileIO, FileIORef, FileStatus};

use crate::fixtures::cases;
use crate::skips::skip_reason;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    scan: ScanArgs,
}

/// Storage that serves the async calls and counts the blocking ones.
#[derive(Debug)]
struct BlockingCalls {
    inner: FileIORef,
    count: AtomicUsize,
    calls: Mutex<Vec<String>>,
}

impl BlockingCalls {
    fn record(&self, what: &str, path: &str) {
        self.count.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut c) = self.calls.lock() {
            c.push(format!("{what} {path}"));
        }
    }
}

impl FileIO for BlockingCalls {
    fn read(&self, path: &str) -> paimon_io::Result<bytes::Bytes> {
        self.record("read", path);
        self.inner.read(path)
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> paimon_io::Result<bytes::Bytes> {
        self.record(&format!("read_range {range:?}"), path);
        self.inner.read_range(path, range)
    }

    fn size(&self, path: &str) -> paimon_io::Result<u64> {
        self.record("size", path);
        self.inner.size(path)
    }

    fn exists(&self, path: &str) -> paimon_io::Result<bool> {
        self.record("exists", path);
        self.inner.exists(path)
    }

    fn list(&self, dir: &str) -> paimon_io::Result<Vec<FileStatus>> {
        self.record("list", dir);
        self.inner.list(dir)
    }

    fn read_range_async<'a>(
        &'a self,
        path: &'a str,
        range: Range<u64>,
    ) -> BoxFuture<'a, paimon_io::Result<bytes::Bytes>> {
        Box::pin(async move { self.inner.read_range(path, range) })
    }

    fn read_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, paimon_io::Result<bytes::Bytes>> {
        Box::pin(async move { self.inner.read(path) })
    }

    fn size_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, paimon_io::Result<u64>> {
        Box::pin(async move { self.inner.size(path) })
    }

    fn list_async<'a>(&'a self, dir: &'a str) -> BoxFuture<'a, paimon_io::Result<Vec<FileStatus>>> {
        Box::pin(async move { self.inner.list(dir) })
    }
}

/// Reads the case with `read_async`, split by split on one task: the rows' differences from
/// Java's (`None` when equal), and the blocking calls the read made.
fn run_case(
    table: &Path,
    args: &[String],
    expected: &Path,
) -> Result<(Option<String>, Vec<String>), String> {
    let cli = Cli::try_parse_from(std::iter::once("read".to_string()).chain(args.iter().cloned()))
        .map_err(|e| e.to_string())?;
    let table_s = table.to_string_lossy().to_string();
    let opened = cli.scan.open(&table_s).map_err(|e| format!("{e:#}"))?;
    let plan = opened.scan.plan().map_err(|e| e.to_string())?;
    let io = Arc::new(BlockingCalls {
        inner: Arc::clone(&opened.io),
        count: AtomicUsize::new(0),
        calls: Mutex::new(Vec::new()),
    });
    let reader = reader_builder(io.clone(), &opened).build();
    let fields = with_kind_field(
        output_fields(&opened.schema, opened.select.as_deref()).map_err(|e| e.to_string())?,
        cli.scan.with_kind,
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    let mut got = Vec::new();
    for split in plan.wire_splits() {
        let batches: Vec<_> = rt.block_on(reader.read_async(&opened.path, &split).collect());
        for b in batches {
            let b = b.map_err(|e| e.to_string())?;
            got.extend(
                batch_to_json_rows(&b, &fields)
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .map(|v| v.to_string()),
            );
        }
    }
    let want: Vec<String> = std::fs::read_to_string(expected)
        .map_err(|e| e.to_string())?
        .lines()
        .map(str::to_string)
        .collect();
    let calls = io.calls.lock().map(|c| c.clone()).unwrap_or_default();
    assert_eq!(calls.len(), io.count.load(Ordering::SeqCst));
    Ok((diff_rows(&want, &got, &fields), calls))
}

#[test]
fn async_reads_give_javas_rows_without_one_blocking_call() {
    let cases = cases();
    let (mut passed, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    let mut blocking: BTreeMap<String, usize> = BTreeMap::new();
    for (case, table, args, expected) in &cases {
        let result = run_case(table, args, expected);
        let rows_ok = matches!(result, Ok((None, _)));
        match (skip_reason(case), rows_ok) {
            (None, true) => passed += 1,
            (None, false) => failures.push(format!("FAIL {case} {args:?}: {:?}", result)),
            (Some(_), false) => skipped += 1,
            (Some(_), true) => failures.push(format!("{case} passes but is listed in skips.rs")),
        }
        let Ok((_, calls)) = result else { continue };
        if !calls.is_empty() {
            blocking.insert(case.clone(), calls.len());
            failures.push(format!("{case}: blocking calls {calls:?}"));
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    eprintln!(
        "async reads: {} cases, {passed} passed, {skipped} skipped (skips.rs), {} failed; \
         {} cases made blocking calls: {blocking:?}",
        cases.len(),
        failures.len(),
        blocking.len()
    );
    assert!(
        failures.is_empty(),
        "{} async-read failures",
        failures.len()
    );
    assert!(passed > 300, "only {passed} cases passed");
}
