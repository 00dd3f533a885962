//! Read options of a [`super::SplitReader`] (the tunables of one read).

use std::sync::Arc;

use paimon_memory::MemoryPool;
use paimon_spec::predicate::Predicate;

use crate::format::{LateMaterialization, DEFAULT_COALESCE_GAP};

/// Default rows per batch: Arrow kernels amortize well from a few thousand rows; Java's
/// `read.batch-size` default is 1024 but larger batches are cheaper in Arrow.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// Options of one read. Every field has a default that reads the split exactly as Java does.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Target rows per output batch. Default [`DEFAULT_BATCH_SIZE`]. Batches may be smaller
    /// (file ends, filtered rows) but never larger.
    pub batch_size: usize,
    /// Output columns by name, in this order; `None` (default) = every column of the table
    /// schema. The system columns `_ROW_ID` and `_SEQUENCE_NUMBER` (BIGINT) may be named too.
    pub projection: Option<Vec<String>>,
    /// Output columns by field id, in this order, resolved against the schema read (so a
    /// column renamed since keeps its id); the system columns by their reserved ids
    /// ([`super::ROW_ID_FIELD_ID`], [`super::SEQUENCE_NUMBER_FIELD_ID`]). The columns come out
    /// under their names in that schema. Not together with [`ReadOptions::projection`].
    /// Default none.
    pub projection_ids: Option<Vec<i32>>,
    /// Rows must satisfy this predicate (applied exactly, after pruning). Default none.
    pub predicate: Option<Predicate>,
    /// Stop after this many output rows. Default none.
    pub limit: Option<usize>,
    /// Read as this schema id instead of the table's latest schema. Default none (latest).
    pub schema_id: Option<i64>,
    /// Branch whose schema files describe the table (`<table>/branch/branch-<name>/schema`);
    /// default none = main.
    pub branch: Option<String>,
    /// Prefix rewrites applied to the absolute paths a split carries (external data paths,
    /// deletion-vector files), first match wins: `(from, to)` turns `from/x` into `to/x`.
    /// For workers that see external storage under another root. Default none.
    pub path_rewrites: Vec<(String, String)>,
    /// Add a leading `_ROW_KIND` column (Utf8: `+I`, `-U`, `+U`, `-D`, Java `RowKind`
    /// short strings). Rows of streaming splits (incremental and changelog reads) carry their
    /// file's `_VALUE_KIND`, retractions included; merged rows the kind of the merge result,
    /// as Java's (`+U` when a deduplicated key's last record was one); rows of raw-convertible
    /// batch splits and of append tables are `+I`, as Java's raw file read gives them.
    /// Default false.
    pub with_row_kind: bool,
    /// Threads that decode files (or merge sections) at once in
    /// [`super::SplitReader::read_splits`]. Default 1: the caller's thread does all the work,
    /// which suits engines that already run one reader per core (DataFusion partitions, Spark
    /// tasks); a standalone reader wants `std::thread::available_parallelism()`, which the
    /// `paimon` CLI uses unless `--threads` is given.
    pub parallelism: usize,
    /// The pool that bounds the decoded Arrow data the read keeps in flight; default `None`:
    /// batches of [`ReadOptions::batch_size`] rows, and a parallel read buffers up to 32
    /// batches per task for 4 tasks per thread ahead of the consumer. The same pool may bound
    /// the planning of the splits (paimon-meta `ScanBuilder::with_memory_pool`) and other
    /// reads.
    ///
    /// The read's budget is what a bounded pool has free when the read starts
    /// ([`ReadOptions::budget_bytes`]; an unbounded pool sets none). The batches a parallel
    /// read buffers for the consumer are reserved from the pool while they wait (a worker
    /// waits for room, in the budget and in the pool); the batch of the task being drained
    /// is reserved when it fits and flows anyway when the read holds nothing else, except
    /// that the read fails with `ResourcesExhausted` when other consumers hold the whole pool.
    ///
    /// Covered, as `RecordBatch::get_array_memory_size` counts it: the batches a parallel
    /// [`super::SplitReader::read_splits`] buffers ahead of the consumer (at most half the
    /// budget; one batch of the task being drained may always wait, so a batch larger than
    /// the budget still flows) and the batches its tasks hold while decoding or merging:
    /// every batch is cut to `budget / (8 x (parallelism + 1))` bytes, a merge of `k` sorted
    /// runs reads each run in batches of `1/k` of that, so the tasks together stay under
    /// `3/8` of the budget. Rows per batch come from the bytes per row measured on the
    /// read's earlier batches; a read's first files are cut by an estimate from their size
    /// and row count, which can be off by the files' compression ratio.
    ///
    /// Not covered: the batch the caller holds; each open data file's bytes in memory (a
    /// Parquet file's projected column chunks of one row group, coalesced per
    /// [`ReadOptions::coalesce_gap`], an ORC stripe's projected streams, a whole Avro or blob
    /// file: one per running task, one per sorted run of a merge); a format decoder's own
    /// buffers (a Parquet page and dictionary per column); deletion
    /// vectors and index files; a data-evolution group of several files, which is assembled
    /// whole; the rows an incremental diff pins while comparing its two sides; under
    /// [`super::SplitReader::read_async`], what it fetches ahead (each data file's footer tail
    /// until the file is opened, the next row group's ranges, up to 32 MiB of Avro files).
    pub memory_pool: Option<Arc<dyn MemoryPool>>,
    /// When the predicate of a raw read is pushed into the Parquet decoder, so that the other
    /// projected columns are decoded only for the rows it keeps. Default
    /// [`LateMaterialization::Auto`]: when a sample of the file shows it keeps at most 0.5% of
    /// the rows. Rows are the same either way. [`super::SplitReader::read_async`] reads
    /// `Auto` as `Never`, so that opening a file reads nothing it could not fetch ahead.
    pub late_materialization: LateMaterialization,
    /// Parquet files are read by byte ranges: the footer, then the column chunks of the
    /// projected (and filtered) columns in the row groups that survive pruning, one row group
    /// at a time. Chunks of a row group at most this many bytes apart are fetched in one
    /// request. Default [`DEFAULT_COALESCE_GAP`] (1 MiB); 0 fetches each chunk alone.
    pub coalesce_gap: u64,
    /// BLOB columns stored as descriptors (table option `blob-descriptor-field`): `Some(true)`
    /// returns the serialized descriptors, `Some(false)` the bytes they point to; `None`
    /// (default) follows the table option `blob-as-descriptor` (default false: the bytes),
    /// as Java's read does.
    pub blob_as_descriptor: Option<bool>,
    /// Roots a BLOB descriptor may point under besides the table directory and its
    /// `data-file.external-paths`: absolute paths or URLs. A descriptor pointing elsewhere
    /// fails the read. Default none.
    pub blob_roots: Vec<String>,
    /// The read option `blob.descriptor-path-rewrite`: directory names (such as `raw_blob`) a
    /// BLOB descriptor's URI is redirected by: the part of the URI from its last directory of
    /// such a name is read under the table directory instead (for descriptors written with
    /// another machine's absolute paths). Default none.
    pub blob_descriptor_dirs: Vec<String>,
}

impl ReadOptions {
    /// Bytes of decoded data a read starting now may keep in flight: the free bytes of a
    /// bounded [`ReadOptions::memory_pool`] (at least 1), `None` without a bound.
    pub fn budget_bytes(&self) -> Option<usize> {
        let pool = self.memory_pool.as_ref()?;
        Some(pool.limit()?.saturating_sub(pool.reserved()).max(1))
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            batch_size: DEFAULT_BATCH_SIZE,
            projection: None,
            projection_ids: None,
            predicate: None,
            limit: None,
            schema_id: None,
            branch: None,
            path_rewrites: Vec::new(),
            with_row_kind: false,
            parallelism: 1,
            memory_pool: None,
            late_materialization: LateMaterialization::Auto,
            coalesce_gap: DEFAULT_COALESCE_GAP,
            blob_as_descriptor: None,
            blob_roots: Vec::new(),
            blob_descriptor_dirs: Vec::new(),
        }
    }
}

impl ReadOptions {
    /// `path` with the first matching [`ReadOptions::path_rewrites`] prefix replaced. A `..`
    /// in the replacement (the caller's own path) is resolved; one in the rest of `path` is
    /// kept, for the reader's path rule to refuse.
    pub fn rewrite_path(&self, path: &str) -> String {
        for (from, to) in &self.path_rewrites {
            if let Some(rest) = path.strip_prefix(from.as_str()) {
                return format!("{}{}", super::paths::resolve_parent_segments(to), rest);
            }
        }
        path.to_string()
    }
}
