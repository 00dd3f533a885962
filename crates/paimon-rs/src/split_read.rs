//! [`SplitRead`]: the worker's side of a planned scan. A worker gets split bytes (Java
//! `SPLIT_V1` frames, `DataSplit.serialize` bytes, Java object streams) and the read options
//! bytes of [`paimon_split::read_options`] from its planner ([`TableScan::read_options_bytes`],
//! a Flight ticket), and reads them here, never wiring a `paimon_data::SplitReader` by hand:
//!
//! ```no_run
//! # fn main() -> paimon_rs::Result<()> {
//! # let (split_bytes, options_bytes) = (Vec::<u8>::new(), Vec::<u8>::new());
//! let io = paimon_rs::io::file_io_for("/wh/db.db/t")?;
//! for batch in paimon_rs::read_split(io, "/wh/db.db/t", &split_bytes, &options_bytes)? {
//!     println!("{} rows", batch?.num_rows());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Both inputs are untrusted: the options are decoded with their bounds
//! ([`paimon_split::decode_read_options`]), the split with the split codecs, and the reader
//! reads only files inside the table's roots and applies (or refuses) everything a split
//! carries besides its files (row ranges, query-auth row filters and column masks).
//!
//! [`TableScan::read_options_bytes`]: crate::TableScan::read_options_bytes

use std::sync::Arc;

use arrow_array::RecordBatch;
use futures::stream::{BoxStream, StreamExt};
use paimon_data::{SplitBatches, SplitReader, SplitReaderBuilder};
use paimon_io::FileIORef;
use paimon_memory::MemoryPool;
use paimon_split::{decode_read_options, SplitReadOptions};

use crate::error::{Error, Result};
use crate::scan::split_stream;

/// A read of one table's splits with the options its planner sent.
#[derive(Debug, Clone)]
pub struct SplitRead {
    io: FileIORef,
    table_path: String,
    options: SplitReadOptions,
    memory_pool: Option<Arc<dyn MemoryPool>>,
}

impl SplitRead {
    /// A read of the table at `table_path` on `io` with `options`.
    pub fn new(io: FileIORef, table_path: &str, options: SplitReadOptions) -> Self {
        SplitRead {
            io,
            table_path: table_path.trim_end_matches('/').to_string(),
            options,
            memory_pool: None,
        }
    }

    /// A read with the options of `options_bytes` (an empty slice: the defaults).
    ///
    /// # Errors
    /// [`Error::Split`] naming what is wrong with the options bytes.
    pub fn from_bytes(io: FileIORef, table_path: &str, options_bytes: &[u8]) -> Result<Self> {
        let options = if options_bytes.is_empty() {
            SplitReadOptions::default()
        } else {
            decode_read_options(options_bytes)?
        };
        Ok(SplitRead::new(io, table_path, options))
    }

    /// Bounds the decoded data in flight by `pool` (a worker's per-query pool).
    pub fn with_memory_pool(mut self, pool: Arc<dyn MemoryPool>) -> Self {
        self.memory_pool = Some(pool);
        self
    }

    /// The options read with.
    pub fn options(&self) -> &SplitReadOptions {
        &self.options
    }

    /// The table directory read.
    pub fn table_path(&self) -> &str {
        &self.table_path
    }

    /// The data plane's reader of these options (one thread).
    pub fn reader(&self) -> SplitReader {
        self.reader_builder().build()
    }

    /// The builder of [`SplitRead::reader`], for callers that tune what the options leave
    /// to the worker (threads, late materialization, coalescing).
    pub fn reader_builder(&self) -> SplitReaderBuilder {
        let mut b = SplitReader::builder(Arc::clone(&self.io)).with_split_options(&self.options);
        if let Some(p) = &self.memory_pool {
            b = b.with_memory_pool(Arc::clone(p));
        }
        b
    }

    /// The Arrow schema of the batches read.
    ///
    /// # Errors
    /// The schema file cannot be read; a projected column it does not have.
    pub fn output_schema(&self) -> Result<arrow_schema::SchemaRef> {
        Ok(self.reader().output_schema(&self.table_path)?)
    }

    /// Reads one split's bytes (any envelope the split codecs read) on the calling thread.
    ///
    /// # Errors
    /// Bytes that are not a split; the reader's errors (a file outside the table, a split
    /// carrying what the reader cannot apply).
    pub fn read_bytes(&self, split_bytes: &[u8]) -> Result<SplitBatches> {
        Ok(self.reader().read_bytes(&self.table_path, split_bytes)?)
    }

    /// Reads splits' bytes one after the other as an async stream (no thread started), at
    /// most the options' limit in all; the stream ends after an error.
    ///
    /// # Errors
    /// Bytes of a split that are not a split (before anything is read).
    pub fn stream_bytes(
        &self,
        splits: &[Vec<u8>],
    ) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        let splits = splits
            .iter()
            .map(|b| Ok(paimon_split::decode_any(b)?.split))
            .collect::<Result<Vec<_>>>()?;
        let limit = self
            .options
            .limit
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        Ok(
            split_stream(self.reader(), self.table_path.clone(), splits, limit)
                .map(|r| r.map_err(Error::from))
                .boxed(),
        )
    }
}

/// Reads one split's bytes of the table at `table_path` with the read options bytes of its
/// planner ([`SplitRead::from_bytes`] then [`SplitRead::read_bytes`]).
///
/// # Errors
/// As [`SplitRead::from_bytes`] and [`SplitRead::read_bytes`].
pub fn read_split(
    io: FileIORef,
    table_path: &str,
    split_bytes: &[u8],
    options_bytes: &[u8],
) -> Result<SplitBatches> {
    SplitRead::from_bytes(io, table_path, options_bytes)?.read_bytes(split_bytes)
}
