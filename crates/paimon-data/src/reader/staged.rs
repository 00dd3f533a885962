//! Reading a split for an async caller ([`super::SplitReader::read_async`]) without a thread
//! of its own and without entering a runtime.
//!
//! The read pipeline is blocking code. Rather than run it on a thread, the async driver
//! fetches ahead, through the `FileIO`'s async calls, what the pipeline is about to ask of
//! storage, and runs the pipeline on the polling task between awaits, where it finds those
//! bytes at hand in a [`StagedIO`]:
//!
//! | when | what is fetched ahead |
//! |---|---|
//! | before the split is set up | the schema listing and the schema files it needs, the size of each deletion-vector index file the split names where the reader finds it (the path rule of [`super::paths`] first) and the frame of each vector in it |
//! | after setup | each Parquet/ORC data file's size and tail (its footer), 8 at a time, with what planning it reads beyond the tail: an ORC file's stripe footers, a Parquet file's page index when the read has a filter |
//! | before each batch | the planned column chunks of the row group being decoded and of the next one, in every file open; the next files of a whole-file format (Avro), up to 32 MiB ahead |
//!
//! A data file's staged ranges are held until the pipeline lets go of the file (they are
//! slices of what the pipeline keeps, so they cost nothing more meanwhile).
//!
//! What was not foreseen is read by the blocking calls on the polling thread, which is still
//! correct: anything the staging failed to fetch (the blocking call then reports the error),
//! and the bucket directory of a deletion file when the table's schema could not be read
//! ahead to locate it. Before setup the driver also stages the existence of each external
//! data path.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Range;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use bytes::Bytes;
use futures::{Stream, StreamExt};
use paimon_io::{BoxFuture, FileIO, FileIORef, FileStatus};
use paimon_split::Split;

use super::{paths, SchemaCache, SplitBatches, SplitReader};
use crate::error::Result;
use crate::format::{
    fetch_tail, orc_stripe_footers, parquet_page_index, range_error, FileFormat,
    LateMaterialization, RangedFile, WeakRangedFile,
};

/// Data-file tails fetched at once.
const TAIL_FETCHES: usize = 8;

/// Ranges a file's opening reads beyond its tail (ORC stripe footers) less than this apart
/// are fetched as one.
const BEYOND_GAP: u64 = 64 << 10;

/// Bytes of whole-format data files (Avro) staged ahead of the pipeline, beyond the next one.
const WHOLE_AHEAD: u64 = 32 << 20;

/// A [`FileIO`] over the reader's that answers the blocking calls of a split's read from what
/// the async driver fetched ahead, and passes every other call through.
#[derive(Debug)]
pub(crate) struct StagedIO {
    inner: FileIORef,
    state: Mutex<Staged>,
}

#[derive(Debug, Default)]
struct Staged {
    /// Whole files (schema files, whole-format data files), handed out once.
    whole: HashMap<String, Bytes>,
    /// File sizes; a staged size also answers `exists`.
    sizes: HashMap<String, u64>,
    /// Ranges of ranged data files fetched ahead (where each starts, its bytes): the tail and
    /// what planning reads beyond it.
    ranges: HashMap<String, Vec<(u64, Bytes)>>,
    /// Directory listings.
    lists: HashMap<String, Vec<FileStatus>>,
    /// The ranged files the pipeline has opened, by path.
    open: Vec<(String, WeakRangedFile)>,
    /// Whole files the pipeline has taken.
    taken: HashSet<String>,
    /// Paths the async calls found missing: `exists` answers `false` for them.
    absent: HashSet<String>,
}

impl StagedIO {
    fn new(inner: FileIORef) -> Self {
        StagedIO {
            inner,
            state: Mutex::new(Staged::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Staged> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records a file the pipeline opened, to fetch its planned ranges before each batch.
    pub(crate) fn register(&self, file: &RangedFile) {
        let mut st = self.state();
        st.forget_closed();
        st.open.push((file.path().to_string(), file.downgrade()));
    }

    /// Stages the whole file `path`; other failures than a missing file are left to the
    /// blocking call. A path of size 0 (a FIFO or a device reports 0) is not opened here: the
    /// blocking call refuses it from its status.
    async fn stage_whole(&self, path: &str) {
        match self.inner.size_async(path).await {
            Ok(0) => return,
            Err(paimon_io::Error::NotFound { .. }) => {
                self.state().absent.insert(path.to_string());
                return;
            }
            _ => {}
        }
        match self.inner.read_async(path).await {
            Ok(bytes) => {
                let mut st = self.state();
                st.sizes.insert(path.to_string(), bytes.len() as u64);
                st.whole.insert(path.to_string(), bytes);
            }
            Err(paimon_io::Error::NotFound { .. }) => {
                self.state().absent.insert(path.to_string());
            }
            Err(_) => {}
        }
    }

    /// Stages the size of `path`, or that it is missing, to answer `exists`.
    async fn stage_size(&self, path: &str) {
        match self.inner.size_async(path).await {
            Ok(n) => {
                self.state().sizes.insert(path.to_string(), n);
            }
            Err(paimon_io::Error::NotFound { .. }) => {
                self.state().absent.insert(path.to_string());
            }
            Err(_) => {}
        }
    }

    /// Stages the frame of the deletion vector at `offset` (entry length `length`) of the index
    /// file `path`, whose size is staged: the range
    /// [`crate::deletion_vector::DeletionVector::read_in_file`] reads. An entry out of range
    /// is left to the blocking call, which refuses it.
    async fn stage_entry(&self, path: &str, offset: i64, length: i64) {
        let Some(size) = self.state().sizes.get(path).copied() else {
            return;
        };
        let (Ok(start), Ok(len)) = (u64::try_from(offset), u64::try_from(length)) else {
            return;
        };
        let end = start.saturating_add(len);
        if len > crate::deletion_vector::MAX_ENTRY_BYTES || end > size {
            return;
        }
        let range = start..end.saturating_add(8).min(size);
        if let Ok(bytes) = self.inner.read_range_async(path, range).await {
            self.state()
                .ranges
                .entry(path.to_string())
                .or_default()
                .push((start, bytes));
        }
    }

    fn absent(&self, path: &str) -> bool {
        self.state().absent.contains(path)
    }

    /// Stages the size and tail of the ranged data file `path`, and what planning it reads
    /// beyond the tail: the stripe footers of an ORC file, the page index of a Parquet file
    /// when the read `filtered` (only a filter reads it).
    async fn stage_tail(&self, path: &str, format: FileFormat, filtered: bool) {
        self.stage_size(path).await;
        // A path of size 0 (a FIFO or a device reports 0) is not opened here: the blocking
        // call refuses it from its status.
        let Some(len) = self.state().sizes.get(path).copied().filter(|n| *n > 0) else {
            return;
        };
        let Ok((start, tail)) = fetch_tail(self.inner.as_ref(), path, len).await else {
            return;
        };
        let beyond: Vec<Range<u64>> = match format {
            FileFormat::Orc => orc_stripe_footers(len, start, &tail).unwrap_or_default(),
            FileFormat::Parquet if filtered => parquet_page_index(&tail).into_iter().collect(),
            _ => Vec::new(),
        };
        // Neighbours less than a tail's length apart are fetched as one, the rest 8 at a time.
        let mut wanted: Vec<Range<u64>> = Vec::new();
        let mut sorted: Vec<Range<u64>> = beyond
            .into_iter()
            .filter(|r| r.start < start && r.start < r.end)
            .collect();
        sorted.sort_by_key(|r| r.start);
        for r in sorted {
            match wanted.last_mut() {
                Some(last) if r.start <= last.end.saturating_add(BEYOND_GAP) => {
                    last.end = last.end.max(r.end);
                }
                _ => wanted.push(r),
            }
        }
        let fetches = wanted.into_iter().map(|r| {
            let tail = &tail;
            async move {
                let head = self
                    .inner
                    .read_range_async(path, r.start..r.end.min(start))
                    .await
                    .ok()?;
                // A range running into the tail is staged whole: it is read as one.
                let staged = match usize::try_from(r.end.saturating_sub(start)) {
                    Ok(0) | Err(_) => head,
                    Ok(n) => {
                        let n = n.min(tail.len());
                        let mut joined = Vec::with_capacity(head.len() + n);
                        joined.extend_from_slice(&head);
                        joined.extend_from_slice(&tail[..n]);
                        Bytes::from(joined)
                    }
                };
                Some((r.start, staged))
            }
        });
        let mut ranges: Vec<(u64, Bytes)> = futures::stream::iter(fetches)
            .buffered(TAIL_FETCHES)
            .filter_map(|r| async move { r })
            .collect()
            .await;
        ranges.push((start, tail));
        self.state().ranges.insert(path.to_string(), ranges);
    }

    /// Fetches the planned ranges due next in every open file.
    async fn prefetch_open(&self) -> Result<()> {
        let open: Vec<RangedFile> = {
            let mut st = self.state();
            st.forget_closed();
            st.open.iter().filter_map(|(_, f)| f.upgrade()).collect()
        };
        for f in open {
            f.prefetch_async()
                .await
                .map_err(|e| range_error(f.path(), e))?;
        }
        Ok(())
    }

    fn take_whole(&self, path: &str) -> Option<Bytes> {
        let mut st = self.state();
        let b = st.whole.remove(path)?;
        st.taken.insert(path.to_string());
        Some(b)
    }

    fn taken(&self, path: &str) -> bool {
        self.state().taken.contains(path)
    }
}

impl Staged {
    /// Lets go of the files the pipeline closed, and of their staged ranges.
    fn forget_closed(&mut self) {
        let closed: Vec<String> = self
            .open
            .iter()
            .filter(|(_, f)| f.upgrade().is_none())
            .map(|(p, _)| p.clone())
            .collect();
        self.open.retain(|(_, f)| f.upgrade().is_some());
        for path in closed {
            if !self.open.iter().any(|(p, _)| *p == path) {
                self.ranges.remove(&path);
            }
        }
    }
}

impl FileIO for StagedIO {
    fn read(&self, path: &str) -> paimon_io::Result<Bytes> {
        match self.take_whole(path) {
            Some(b) => Ok(b),
            None => self.inner.read(path),
        }
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> paimon_io::Result<Bytes> {
        {
            let st = self.state();
            let hit = st.ranges.get(path).and_then(|staged| {
                staged.iter().find_map(|(start, b)| {
                    let s = usize::try_from(range.start.checked_sub(*start)?).ok()?;
                    let e = usize::try_from(range.end.checked_sub(*start)?).ok()?;
                    (s <= e && e <= b.len()).then(|| b.slice(s..e))
                })
            });
            if let Some(b) = hit {
                return Ok(b);
            }
        }
        self.inner.read_range(path, range)
    }

    fn read_range_async<'a>(
        &'a self,
        path: &'a str,
        range: Range<u64>,
    ) -> BoxFuture<'a, paimon_io::Result<Bytes>> {
        self.inner.read_range_async(path, range)
    }

    fn read_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, paimon_io::Result<Bytes>> {
        self.inner.read_async(path)
    }

    fn size(&self, path: &str) -> paimon_io::Result<u64> {
        match self.state().sizes.get(path) {
            Some(n) => Ok(*n),
            None => self.inner.size(path),
        }
    }

    fn size_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, paimon_io::Result<u64>> {
        self.inner.size_async(path)
    }

    fn exists(&self, path: &str) -> paimon_io::Result<bool> {
        {
            let st = self.state();
            if st.sizes.contains_key(path) {
                return Ok(true);
            }
            if st.absent.contains(path) {
                return Ok(false);
            }
        }
        self.inner.exists(path)
    }

    /// A staged file whose ranges or whole bytes were fetched is a regular file of its staged
    /// size; any other path is asked of the storage (a directory's size answers no `is_dir`).
    fn status(&self, path: &str) -> paimon_io::Result<FileStatus> {
        let staged = {
            let st = self.state();
            st.sizes
                .get(path)
                .copied()
                .filter(|_| st.ranges.contains_key(path) || st.whole.contains_key(path))
        };
        match staged {
            Some(n) => Ok(FileStatus {
                path: path.to_string(),
                size: n,
                is_dir: false,
                modified_ms: None,
            }),
            None => self.inner.status(path),
        }
    }

    fn list(&self, dir: &str) -> paimon_io::Result<Vec<FileStatus>> {
        match self.state().lists.get(dir) {
            Some(l) => Ok(l.clone()),
            None => self.inner.list(dir),
        }
    }

    fn list_async<'a>(&'a self, dir: &'a str) -> BoxFuture<'a, paimon_io::Result<Vec<FileStatus>>> {
        self.inner.list_async(dir)
    }
}

/// The read of one split, driven from an async task.
struct Driver {
    stage: Arc<StagedIO>,
    batches: SplitBatches,
    /// Data files of whole-file formats not read yet (path, size), in split order.
    whole: VecDeque<(String, u64)>,
}

impl Driver {
    /// Stages what the pipeline reads next, then runs it to its next batch. A task is opened
    /// (footers read from the staged tails, ranges planned) before its first ranges are
    /// fetched, so that its first batch is decoded from fetched bytes too.
    async fn next(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            self.stage_next_whole().await;
            if let Err(e) = self.batches.open_next()? {
                return Some(Err(e));
            }
            if let Err(e) = self.stage.prefetch_open().await {
                return Some(Err(e));
            }
            if let Some(b) = self.batches.next_of_open() {
                return Some(b);
            }
        }
    }

    /// Stages the data files of whole-file formats the pipeline reads next, in split order:
    /// the next one, and more while the staged ones hold less than [`WHOLE_AHEAD`] bytes (a
    /// merge opens the files of a key range at once).
    async fn stage_next_whole(&mut self) {
        // Files the pipeline read, and those before them, are done with (a file whose rows
        // were all deleted is skipped unread).
        if let Some(last) = self.whole.iter().rposition(|(p, _)| self.stage.taken(p)) {
            self.whole.drain(..=last);
        }
        let mut held = 0u64;
        let mut wanted = Vec::new();
        for (i, (path, size)) in self.whole.iter().enumerate() {
            if i > 0 && held.saturating_add(*size) > WHOLE_AHEAD {
                break;
            }
            held = held.saturating_add(*size);
            if !self.stage.state().whole.contains_key(path) && !self.stage.taken(path) {
                wanted.push(path.clone());
            }
        }
        for path in wanted {
            self.stage.stage_whole(&path).await;
        }
    }
}

/// [`SplitReader::read_async`]'s stream.
pub(crate) fn read_async(
    reader: &SplitReader,
    table_path: &str,
    split: &Split,
) -> impl Stream<Item = Result<RecordBatch>> + Send + 'static {
    enum State {
        Start(Box<(SplitReader, String, Split)>),
        Running(Box<Driver>),
        Done,
    }
    let start = State::Start(Box::new((
        reader.clone(),
        table_path.to_string(),
        split.clone(),
    )));
    futures::stream::unfold(start, |state| async move {
        let mut driver = match state {
            State::Done => return None,
            State::Running(d) => d,
            State::Start(start) => match start_read(start.0, &start.1, &start.2).await {
                Ok(d) => Box::new(d),
                Err(e) => return Some((Err(e), State::Done)),
            },
        };
        match driver.next().await {
            None => None,
            Some(Err(e)) => Some((Err(e), State::Done)),
            Some(Ok(b)) => Some((Ok(b), State::Running(driver))),
        }
    })
}

/// Stages the split's setup, sets it up, and stages its data files' tails.
async fn start_read(reader: SplitReader, table: &str, split: &Split) -> Result<Driver> {
    let stage = Arc::new(StagedIO::new(reader.io.clone()));
    stage_setup(&stage, &reader, table, split).await;
    // Only a filter reads a Parquet page index (a query-auth split's row filter is one).
    let filtered = reader.options.predicate.is_some() || matches!(split, Split::QueryAuth { .. });
    // Late materialization samples a file's rows and evaluates the filter over every row
    // group when the file is opened, before the driver could fetch them: by default the
    // async read filters after decoding instead (the same rows).
    let mut options = (*reader.options).clone();
    if options.late_materialization == LateMaterialization::Auto {
        options.late_materialization = LateMaterialization::Never;
    }
    let staged = SplitReader {
        io: stage.clone(),
        stage: Some(stage.clone()),
        options: Arc::new(options),
        ..reader
    };
    let batches = staged.read_any(table, split)?;
    let mut whole = VecDeque::new();
    let mut ranged = Vec::new();
    for (path, size) in &batches.data_paths {
        match FileFormat::from_file_name(path) {
            Ok(f @ (FileFormat::Parquet | FileFormat::Orc)) => ranged.push((path.clone(), f)),
            _ => whole.push_back((path.clone(), *size)),
        }
    }
    let fetches: Vec<_> = ranged
        .iter()
        .map(|(p, f)| stage.stage_tail(p, *f, filtered))
        .collect();
    futures::stream::iter(fetches)
        .buffer_unordered(TAIL_FETCHES)
        .collect::<Vec<()>>()
        .await;
    Ok(Driver {
        stage,
        batches,
        whole,
    })
}

/// Stages the schema files and deletion-vector index files the setup of `split` reads.
async fn stage_setup(stage: &StagedIO, reader: &SplitReader, table: &str, split: &Split) {
    let dir = SchemaCache::schema_dir(table, reader.options.branch.as_deref());
    let mut ids: Vec<i64> = Vec::new();
    let table_id = match reader.options.schema_id {
        Some(id) => Some(id),
        None => match stage.inner.list_async(&dir).await {
            Ok(list) => {
                let id = SchemaCache::latest_id(&list);
                stage.state().lists.insert(dir.clone(), list);
                id
            }
            Err(_) => None,
        },
    };
    ids.extend(table_id);
    let files = split.files_split();
    ids.extend(
        files
            .iter()
            .flat_map(|s| s.data_files.iter().map(|f| f.schema_id)),
    );
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        if !reader.schemas.contains(&dir, id) {
            stage.stage_whole(&SchemaCache::schema_path(&dir, id)).await;
        }
    }
    // Where the split's files may lie and its bucket directory, from the table's schema
    // (staged above); without them the blocking calls locate and check the files.
    let located = match (table_id, files) {
        (Some(id), Some(split)) => reader.schemas.get(stage, &dir, id).ok().and_then(|t| {
            let roots = paths::roots(table, &t, &reader.options).ok()?;
            let bucket = paths::bucket_dir(table, &split.bucket_path, &t).ok()?;
            Some((roots, bucket))
        }),
        _ => None,
    };
    let Some((roots, bucket_dir)) = located else {
        return;
    };
    let mut entries: Vec<(String, i64, i64)> = files
        .iter()
        .flat_map(|s| (0..s.data_files.len()).filter_map(|i| s.deletion_file(i)))
        .map(|df| (reader.options.rewrite_path(&df.path), df.offset, df.length))
        .collect();
    entries.sort_unstable();
    entries.dedup();
    for (path, offset, length) in entries {
        // The reader's candidates in its order; a path the rule refuses is not touched.
        let Ok(candidates) = paths::index_candidates(table, &roots, &bucket_dir, &path) else {
            continue;
        };
        for c in candidates {
            stage.stage_size(&c).await;
            if !stage.absent(&c) {
                stage.stage_entry(&c, offset, length).await;
                break;
            }
        }
    }
    // A data file's external path is checked for existence before it is read.
    let mut external: Vec<String> = files
        .iter()
        .flat_map(|s| s.data_files.iter().chain(&s.before_files))
        .filter_map(|f| f.external_path.as_deref())
        .map(|p| reader.options.rewrite_path(p))
        .filter(|p| paths::check(table, &roots, paths::EXTERNAL_PATH, p).is_ok())
        .collect();
    external.sort_unstable();
    external.dedup();
    let checks: Vec<_> = external.iter().map(|p| stage.stage_size(p)).collect();
    futures::stream::iter(checks)
        .buffer_unordered(TAIL_FETCHES)
        .collect::<Vec<()>>()
        .await;
}
