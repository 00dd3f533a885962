//! A data file read by byte ranges through a [`FileIO`], for decoders that ask for the
//! pieces they need (the `parquet` crate's and orc-rust's `ChunkReader`).
//!
//! Before decoding, the reader installs a plan ([`RangedFile::set_plan`]): the byte ranges
//! of the column chunks it will read, grouped by row group, nearby ranges coalesced so that
//! an object store sees one request per run of chunks less than
//! [`DEFAULT_COALESCE_GAP`] apart. A planned range is fetched whole on first touch and the
//! ranges of earlier groups are dropped then, so a file is held one row group at a time.
//! Requests outside the plan (footer, page index, a column no plan names) are read as asked,
//! the file's last [`TAIL_BYTES`] once for all, since every footer read starts there.

use std::io::Read;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use paimon_io::FileIORef;

/// Default largest gap between two planned ranges that are still fetched as one: reading up
/// to 1 MiB more costs less than another round trip to an object store (tens of ms), and
/// costs nothing on local disks where the page cache reads ahead anyway.
pub const DEFAULT_COALESCE_GAP: u64 = 1 << 20;

/// Bytes of the file's end read at the first footer request: a Parquet footer with its page
/// index, or an ORC tail, usually fits.
pub(crate) const TAIL_BYTES: u64 = 64 << 10;

/// Bytes a reader from [`RangedFile::reader_at`] fetches at a time outside the plan.
const WINDOW: u64 = 64 << 10;

/// One planned range: the coalesced column chunks of one row group (or stripe).
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    /// The bytes fetched.
    pub range: Range<u64>,
    /// The row group (or stripe) it belongs to; planned ranges come in group order.
    pub group: usize,
    /// The column chunks inside `range`, to check once fetched.
    pub chunks: Vec<Range<u64>>,
}

/// A check run on each column chunk when its planned range is fetched (the Parquet page
/// header walk of `parquet_pages`), given the bytes from the chunk to the planned range's end;
/// `Err` fails the read with the reason.
pub(crate) type ChunkCheck =
    fn(group: usize, chunk: &Range<u64>, bytes: &[u8]) -> Result<(), String>;

/// A data file, in memory or behind a [`FileIO`], read by ranges.
#[derive(Clone)]
pub(crate) struct RangedFile {
    inner: Arc<Inner>,
}

/// A [`RangedFile`] that does not keep the file (or its fetched ranges) alive: what an async
/// driver holds of the files a read has open.
#[derive(Clone)]
pub(crate) struct WeakRangedFile {
    inner: std::sync::Weak<Inner>,
}

impl std::fmt::Debug for WeakRangedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WeakRangedFile")
    }
}

impl WeakRangedFile {
    /// The file, while its reader still holds it.
    pub(crate) fn upgrade(&self) -> Option<RangedFile> {
        self.inner.upgrade().map(|inner| RangedFile { inner })
    }
}

struct Inner {
    source: Source,
    path: String,
    len: u64,
    gap: u64,
    state: Mutex<State>,
}

enum Source {
    Memory(Bytes),
    Io(FileIORef),
}

#[derive(Default)]
struct State {
    tail: Option<(u64, Bytes)>,
    plan: Vec<Planned>,
    check: Option<ChunkCheck>,
    /// Fetched planned ranges: (index in `plan`, bytes).
    fetched: Vec<(usize, Bytes)>,
    /// The group of the planned range last read.
    current: Option<usize>,
}

/// Runs the plan's check on the chunks of planned range `i` and keeps its bytes.
fn admit(st: &mut State, i: usize, bytes: Bytes) -> Result<(), RangeError> {
    let planned = &st.plan[i];
    if let Some(check) = st.check {
        // A reader started in a planned range stops at its end: the check sees the bytes the
        // decoder will.
        for c in &planned.chunks {
            let s = to_usize(c.start.saturating_sub(planned.range.start));
            if let Some(rest) = bytes.get(s..) {
                check(planned.group, c, rest).map_err(RangeError::Check)?;
            }
        }
    }
    if !st.fetched.iter().any(|(j, _)| *j == i) {
        st.fetched.push((i, bytes));
    }
    Ok(())
}

impl std::fmt::Debug for RangedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangedFile")
            .field("path", &self.inner.path)
            .field("len", &self.inner.len)
            .finish()
    }
}

/// A failed range read: the storage's error, or a planned chunk failing its check.
#[derive(Debug)]
pub(crate) enum RangeError {
    Io(paimon_io::Error),
    Check(String),
    OutOfBounds { start: u64, end: u64, len: u64 },
}

impl std::fmt::Display for RangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RangeError::Io(e) => write!(f, "{e}"),
            RangeError::Check(why) => write!(f, "{why}"),
            RangeError::OutOfBounds { start, end, len } => {
                write!(
                    f,
                    "bytes {start}..{end} are past the end of the file ({len} bytes)"
                )
            }
        }
    }
}

/// The storage error stays reachable through `source()`, so callers can tell a failed read
/// from a corrupt file.
impl std::error::Error for RangeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RangeError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl RangedFile {
    /// A file held in memory (the public `decode` API and tests): plans and checks apply,
    /// no bytes are copied.
    pub(crate) fn memory(path: &str, data: Bytes) -> Self {
        Self::new(
            path,
            data.len() as u64,
            Source::Memory(data),
            DEFAULT_COALESCE_GAP,
        )
    }

    /// The file at `path` of `io`, whose size is `len`; planned ranges at most `gap` bytes
    /// apart are fetched as one.
    pub(crate) fn open(io: FileIORef, path: &str, len: u64, gap: u64) -> Self {
        Self::new(path, len, Source::Io(io), gap)
    }

    fn new(path: &str, len: u64, source: Source, gap: u64) -> Self {
        RangedFile {
            inner: Arc::new(Inner {
                source,
                path: path.to_string(),
                len,
                gap,
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// A handle that does not keep the file alive.
    pub(crate) fn downgrade(&self) -> WeakRangedFile {
        WeakRangedFile {
            inner: Arc::downgrade(&self.inner),
        }
    }

    /// The file's size.
    pub(crate) fn len(&self) -> u64 {
        self.inner.len
    }

    /// The file's location.
    pub(crate) fn path(&self) -> &str {
        &self.inner.path
    }

    /// The largest gap between planned ranges fetched as one.
    pub(crate) fn coalesce_gap(&self) -> u64 {
        self.inner.gap
    }

    /// The whole file (for decoders that cannot read by ranges).
    ///
    /// # Errors
    /// The storage's error.
    pub(crate) fn whole(&self) -> Result<Bytes, paimon_io::Error> {
        match &self.inner.source {
            Source::Memory(b) => Ok(b.clone()),
            Source::Io(io) => io.read(&self.inner.path),
        }
    }

    /// The file's last [`TAIL_BYTES`] (or all of a smaller file).
    ///
    /// # Errors
    /// The storage's error.
    pub(crate) fn tail(&self) -> Result<Bytes, RangeError> {
        let len = self.inner.len;
        self.get(len.saturating_sub(TAIL_BYTES)..len, false)
    }

    /// Installs the ranges the decoder will read, in group order, and the check each planned
    /// chunk must pass once fetched. Replaces any earlier plan.
    pub(crate) fn set_plan(&self, plan: Vec<Planned>, check: Option<ChunkCheck>) {
        let mut st = self.state();
        st.plan = plan;
        st.check = check;
        st.fetched.clear();
        st.current = None;
    }

    /// Fetches the file's tail, and the whole footer when it is longer, through
    /// [`paimon_io::FileIO::read_range_async`], so that opening the file reads nothing more.
    ///
    /// # Errors
    /// The storage's error.
    pub(crate) async fn fetch_tail_async(&self) -> Result<(), RangeError> {
        let Source::Io(io) = &self.inner.source else {
            return Ok(());
        };
        let tail = fetch_tail(io.as_ref(), &self.inner.path, self.inner.len).await?;
        self.state().tail = Some(tail);
        Ok(())
    }

    /// Fetches, through [`paimon_io::FileIO::read_range_async`], the planned ranges of the
    /// group being decoded and of the next one, so that the decoder's next batch finds its
    /// bytes at hand (a batch that crosses more than one row group boundary still reads the
    /// third group itself).
    ///
    /// # Errors
    /// The storage's error, or a fetched chunk failing its check.
    pub(crate) async fn prefetch_async(&self) -> Result<(), RangeError> {
        let Source::Io(io) = &self.inner.source else {
            return Ok(());
        };
        let wanted: Vec<(usize, Range<u64>)> = {
            let st = self.state();
            let Some(first) = st.current.or_else(|| st.plan.first().map(|p| p.group)) else {
                return Ok(());
            };
            let mut groups: Vec<usize> = st
                .plan
                .iter()
                .map(|p| p.group)
                .filter(|g| *g >= first)
                .collect();
            groups.dedup();
            groups.truncate(2);
            st.plan
                .iter()
                .enumerate()
                .filter(|(i, p)| {
                    groups.contains(&p.group) && !st.fetched.iter().any(|(j, _)| j == i)
                })
                .map(|(i, p)| (i, p.range.clone()))
                .collect()
        };
        for (i, range) in wanted {
            let (fetch, held) = split_at_tail(&self.state(), &range);
            let head = if fetch.is_empty() {
                Bytes::new()
            } else {
                io.read_range_async(&self.inner.path, fetch)
                    .await
                    .map_err(RangeError::Io)?
            };
            let bytes = join(head, held);
            admit(&mut self.state(), i, bytes)?;
        }
        Ok(())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn read_source(&self, range: Range<u64>) -> Result<Bytes, RangeError> {
        match &self.inner.source {
            Source::Memory(b) => {
                let (s, e) = (to_usize(range.start), to_usize(range.end));
                b.get(s..e)
                    .map(|_| b.slice(s..e))
                    .ok_or(RangeError::OutOfBounds {
                        start: range.start,
                        end: range.end,
                        len: self.inner.len,
                    })
            }
            Source::Io(io) => io
                .read_range(&self.inner.path, range)
                .map_err(RangeError::Io),
        }
    }

    /// The bytes of `range`, from the tail, the plan or the storage. With `to_end`, as much
    /// of what follows `range.start` as is at hand (at least `range`), for sequential readers.
    fn get(&self, range: Range<u64>, to_end: bool) -> Result<Bytes, RangeError> {
        match self.lookup(range.clone(), to_end)? {
            Some((b, _)) => Ok(b),
            None => self.read_source(range),
        }
    }

    /// [`RangedFile::get`] from the plan or the tail only: `None` when `range` is in neither.
    fn lookup(&self, range: Range<u64>, to_end: bool) -> Result<Option<(Bytes, bool)>, RangeError> {
        let len = self.inner.len;
        if range.start > range.end || range.end > len {
            return Err(RangeError::OutOfBounds {
                start: range.start,
                end: range.end,
                len,
            });
        }
        let mut st = self.state();
        let slice = |start: u64, b: &Bytes| {
            let s = to_usize(range.start - start);
            let e = if to_end {
                b.len()
            } else {
                to_usize(range.end - start)
            };
            b.slice(s..e)
        };
        // The plan first: a planned chunk must pass its check even when it lies in the tail.
        let hit = st
            .plan
            .iter()
            .position(|p| p.range.start <= range.start && range.end <= p.range.end);
        if let Some(i) = hit {
            // Groups are decoded in order: the ranges of earlier groups are done with.
            let group = st.plan[i].group;
            st.current = Some(group);
            let state = &mut *st;
            let plan = &state.plan;
            state.fetched.retain(|(j, _)| plan[*j].group >= group);
            if let Some((_, b)) = st.fetched.iter().find(|(j, _)| *j == i) {
                return Ok(Some((slice(st.plan[i].range.start, b), true)));
            }
            let planned = st.plan[i].range.clone();
            let start = planned.start;
            let (fetch, held) = split_at_tail(&st, &planned);
            let head = if fetch.is_empty() {
                Bytes::new()
            } else {
                self.read_source(fetch)?
            };
            let bytes = join(head, held);
            admit(&mut st, i, bytes.clone())?;
            return Ok(Some((slice(start, &bytes), true)));
        }
        if st.tail.is_none() && range.end + TAIL_BYTES >= len && len > 0 {
            let start = len.saturating_sub(TAIL_BYTES).min(range.start);
            drop(st);
            let bytes = self.read_source(start..len)?;
            st = self.state();
            st.tail = Some((start, bytes));
        }
        if let Some((start, b)) = &st.tail {
            if *start <= range.start {
                return Ok(Some((slice(*start, b), false)));
            }
        }
        Ok(None)
    }

    /// The bytes of `range`, from the plan, the tail or the storage.
    ///
    /// # Errors
    /// The storage's error, or `range` past the file's end.
    pub(crate) fn bytes(&self, range: Range<u64>) -> Result<Bytes, RangeError> {
        self.get(range, false)
    }

    /// The bytes of `range`, read from the source as asked, outside any plan or tail (for
    /// sequential decoders that keep their own read-ahead, the Avro block stream).
    ///
    /// # Errors
    /// The storage's error, or `range` past the file's end.
    pub(crate) fn read(&self, range: Range<u64>) -> Result<Bytes, RangeError> {
        if range.start > range.end || range.end > self.inner.len {
            return Err(RangeError::OutOfBounds {
                start: range.start,
                end: range.end,
                len: self.inner.len,
            });
        }
        self.read_source(range)
    }

    /// A reader of the file from `start` on.
    pub(crate) fn reader_at(&self, start: u64) -> RangedRead {
        RangedRead {
            file: self.clone(),
            pos: start,
            buf: Bytes::new(),
            planned: false,
        }
    }
}

/// The last [`TAIL_BYTES`] of the file `path` of `io` (`len` bytes), or more when its footer
/// is longer (a Parquet footer: metadata, its 4-byte length, the magic; an ORC file's
/// postscript, footer and stripe statistics), fetched through
/// [`paimon_io::FileIO::read_range_async`]: where the tail starts, and its bytes.
///
/// # Errors
/// The storage's error.
pub(crate) async fn fetch_tail(
    io: &dyn paimon_io::FileIO,
    path: &str,
    len: u64,
) -> Result<(u64, Bytes), RangeError> {
    let start = len.saturating_sub(TAIL_BYTES);
    let tail = io
        .read_range_async(path, start..len)
        .await
        .map_err(RangeError::Io)?;
    let needed = super::tail_ranges::parquet_footer_len(&tail)
        .or_else(|| paimon_format::orc::tail::tail_len(&tail));
    match needed {
        Some(n) if n > len - start && n <= len => {
            let start = len - n;
            let tail = io
                .read_range_async(path, start..len)
                .await
                .map_err(RangeError::Io)?;
            Ok((start, tail))
        }
        _ => Ok((start, tail)),
    }
}

/// Planned ranges at most this long that end inside the tail already held are fetched only up
/// to the tail and joined with it (copying them once); longer ones are fetched whole.
const JOIN_WITH_TAIL: u64 = 4 << 20;

/// What of planned `range` must still be fetched, given the tail already held, and the part
/// of it the tail holds: a range inside the tail (a small file) needs no fetch, a short range
/// ending inside it (the last row group of a file of a few MB) only its head.
fn split_at_tail(st: &State, range: &Range<u64>) -> (Range<u64>, Option<Bytes>) {
    let Some((start, b)) = st.tail.as_ref() else {
        return (range.clone(), None);
    };
    let tail_end = *start + b.len() as u64;
    if range.end <= *start || range.end > tail_end {
        return (range.clone(), None);
    }
    if range.start >= *start {
        let (s, e) = (to_usize(range.start - start), to_usize(range.end - start));
        return (range.end..range.end, Some(b.slice(s..e)));
    }
    if range.end - range.start > JOIN_WITH_TAIL {
        return (range.clone(), None);
    }
    (
        range.start..*start,
        Some(b.slice(..to_usize(range.end - start))),
    )
}

/// The fetched head of a planned range followed by the part the tail holds.
fn join(head: Bytes, held: Option<Bytes>) -> Bytes {
    match held {
        None => head,
        Some(t) if head.is_empty() => t,
        Some(t) => {
            let mut v = Vec::with_capacity(head.len() + t.len());
            v.extend_from_slice(&head);
            v.extend_from_slice(&t);
            Bytes::from(v)
        }
    }
}

fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// Sequential reads from a [`RangedFile`], served from what is at hand and fetched a window
/// at a time beyond it. A reader that starts inside a planned range ends with it: a column
/// chunk's pages never run past it, and the chunk check saw exactly those bytes.
pub(crate) struct RangedRead {
    file: RangedFile,
    pos: u64,
    buf: Bytes,
    planned: bool,
}

impl Read for RangedRead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.buf.is_empty() {
            let len = self.file.len();
            if self.pos >= len || out.is_empty() || self.planned {
                return Ok(0);
            }
            let end = (self.pos + WINDOW.max(out.len() as u64)).min(len);
            // At hand (planned or tail): as much as that holds; else one window.
            let at_hand = self
                .file
                .lookup(self.pos..self.pos + 1, true)
                .map_err(std::io::Error::other)?;
            self.buf = match at_hand {
                Some((b, planned)) => {
                    self.planned = planned;
                    b
                }
                None => self
                    .file
                    .read_source(self.pos..end)
                    .map_err(std::io::Error::other)?,
            };
            self.pos += self.buf.len() as u64;
        }
        let n = out.len().min(self.buf.len());
        out[..n].copy_from_slice(&self.buf[..n]);
        self.buf = self.buf.slice(n..);
        Ok(n)
    }
}

impl parquet::file::reader::Length for RangedFile {
    fn len(&self) -> u64 {
        self.inner.len
    }
}

impl parquet::file::reader::ChunkReader for RangedFile {
    type T = RangedRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<RangedRead> {
        Ok(self.reader_at(start))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.get(start..start.saturating_add(length as u64), false)
            .map_err(|e| parquet::errors::ParquetError::External(Box::new(e)))
    }
}

impl orc_rust::reader::ChunkReader for RangedFile {
    type T = RangedRead;

    fn len(&self) -> u64 {
        self.inner.len
    }

    fn get_read(&self, offset_from_start: u64) -> std::io::Result<RangedRead> {
        Ok(self.reader_at(offset_from_start))
    }

    fn get_bytes(&self, offset_from_start: u64, length: u64) -> std::io::Result<Bytes> {
        self.get(
            offset_from_start..offset_from_start.saturating_add(length),
            false,
        )
        .map_err(std::io::Error::other)
    }
}

/// Coalesces `chunks` of one group (sorted or not) into planned ranges, merging neighbours
/// at most `gap` bytes apart.
pub(crate) fn coalesce_group(group: usize, mut chunks: Vec<Range<u64>>, gap: u64) -> Vec<Planned> {
    chunks.retain(|c| c.start < c.end);
    chunks.sort_by_key(|c| c.start);
    let mut out: Vec<Planned> = Vec::new();
    for c in chunks {
        match out.last_mut() {
            Some(p) if c.start <= p.range.end.saturating_add(gap) => {
                p.range.end = p.range.end.max(c.end);
                p.chunks.push(c);
            }
            _ => out.push(Planned {
                range: c.clone(),
                group,
                chunks: vec![c],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalescing_merges_neighbours_within_the_gap() {
        let p = coalesce_group(3, vec![50..60, 0..10, 12..20, 100..110], 5);
        let ranges: Vec<_> = p.iter().map(|p| p.range.clone()).collect();
        assert_eq!(ranges, vec![0..20, 50..60, 100..110]);
        assert_eq!(p[0].chunks, vec![0..10, 12..20]);
        assert!(p.iter().all(|p| p.group == 3));
    }

    #[test]
    fn reads_come_from_the_plan_tail_or_source() {
        let data: Vec<u8> = (0..=255u8).cycle().take(300_000).collect();
        let f = RangedFile::memory("f", Bytes::from(data.clone()));
        f.set_plan(
            coalesce_group(0, std::iter::once(1000..2000).collect(), 0),
            None,
        );
        assert_eq!(&f.get(1500..1600, false).unwrap()[..], &data[1500..1600]);
        // A sequential reader started in a planned range ends with it; outside, it goes on.
        let mut r = f.reader_at(1990);
        let mut buf = Vec::new();
        r.read_to_end(&mut buf).unwrap();
        assert_eq!(&buf[..], &data[1990..2000]);
        let mut r = f.reader_at(100);
        let mut buf = vec![0u8; 150_000];
        r.read_exact(&mut buf).unwrap();
        assert_eq!(&buf[..], &data[100..150_100]);
        let tail = f.get(299_990..300_000, false).unwrap();
        assert_eq!(&tail[..], &data[299_990..]);
        assert!(f.get(299_990..300_001, false).is_err());
    }

    /// Planned ranges and the tail: a range inside the tail is not fetched again, a short one
    /// ending inside it is fetched up to the tail only, a long one whole; the bytes are the
    /// file's either way.
    #[test]
    fn planned_ranges_reuse_the_tail() {
        use paimon_io::{CountingFileIO, LocalFileIO};

        let len = 6u64 << 20;
        let data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        let path = std::env::temp_dir().join(format!("paimon-ranged-tail-{}", std::process::id()));
        std::fs::write(&path, &data).unwrap();
        let path_str = path.display().to_string();
        let tail_start = len - TAIL_BYTES;
        // (planned range, bytes fetched for it after the tail)
        let cases = [
            (tail_start + 10..len - 8, 0),
            (tail_start - 1000..len - 8, 1000),
            (len - (5 << 20)..len - 8, (5 << 20) - 8),
        ];
        for (range, fetched) in cases {
            let counting = Arc::new(CountingFileIO::new(Arc::new(LocalFileIO::new())));
            let f = RangedFile::open(counting.clone(), &path_str, len, 0);
            f.set_plan(coalesce_group(0, vec![range.clone()], 0), None);
            let tail = f.tail().unwrap();
            assert_eq!(&tail[..], &data[to_usize(tail_start)..]);
            let before = counting.bytes_read();
            let got = f.get(range.clone(), false).unwrap();
            assert_eq!(&got[..], &data[to_usize(range.start)..to_usize(range.end)]);
            assert_eq!(counting.bytes_read() - before, fetched, "{range:?}");
        }
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_failing_check_fails_the_read() {
        let f = RangedFile::memory("f", Bytes::from(vec![0u8; 100]));
        f.set_plan(
            coalesce_group(2, std::iter::once(10..20).collect(), 0),
            Some(|g, c, _| Err(format!("group {g} chunk {c:?}"))),
        );
        let err = f.get(10..12, false).unwrap_err().to_string();
        assert_eq!(err, "group 2 chunk 10..20");
        assert!(f.get(30..40, false).is_ok());
    }

    /// An ORC file of 10 stripes read with a selection inside the last one (what stripe
    /// pruning leaves): only that stripe's bytes and the tail are fetched. orc-rust's writer
    /// writes no statistics, so the selection stands in for the pruning here; the pruning
    /// itself is tested on Java-written files (`prune/tests/orc.rs`).
    #[test]
    fn an_orc_read_of_one_stripe_fetches_that_stripe() {
        use std::sync::Arc as StdArc;

        use arrow_array::cast::AsArray;
        use arrow_array::types::Int64Type;
        use paimon_io::{CountingFileIO, LocalFileIO};

        use crate::format::orc::plan::tests::{orc_file, STRIPES};
        use crate::format::{decode_filtered, DecodeRequest, FileFormat, RowRanges};

        let file = orc_file();
        let meta =
            orc_rust::reader::metadata::read_metadata(&mut Bytes::from(file.clone())).unwrap();
        let stripes = meta.stripe_metadatas();
        assert_eq!(stripes.len(), STRIPES as usize);
        let last = &stripes[9];
        let last_len = last.index_length() + last.data_length() + last.footer_length();

        let path =
            std::env::temp_dir().join(format!("paimon-ranged-orc-{}.orc", std::process::id()));
        std::fs::write(&path, &file).unwrap();
        let path_str = path.display().to_string();
        let counting = StdArc::new(CountingFileIO::new(StdArc::new(LocalFileIO::new())));
        let data = RangedFile::open(
            counting.clone(),
            &path_str,
            file.len() as u64,
            DEFAULT_COALESCE_GAP,
        );
        let req = DecodeRequest {
            columns: (0..10).map(|c| format!("c{c}")).collect(),
            types: Vec::new(),
            rows: Some(RowRanges::excluding(100_000, 0..90_005)),
            batch_size: 4096,
            expected_rows: Some(100_000),
        };
        let got: Vec<i64> = decode_filtered(FileFormat::Orc, &path_str, data, &req, None)
            .unwrap()
            .flat_map(|b| {
                b.unwrap()
                    .column(0)
                    .as_primitive::<Int64Type>()
                    .values()
                    .to_vec()
            })
            .collect();
        let _ = std::fs::remove_file(&path);
        assert_eq!(got, (90_005..100_000).collect::<Vec<i64>>());
        let fetched = counting.bytes_read();
        eprintln!(
            "ORC, 1 of 10 stripes: fetched {fetched} of {} bytes, the stripe holds {last_len}",
            file.len()
        );
        assert!(fetched >= last.data_length(), "fetched {fetched}");
        assert!(
            fetched <= last_len + TAIL_BYTES,
            "fetched {fetched}, stripe {last_len}"
        );
    }
}
