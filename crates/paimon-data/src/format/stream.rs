//! The async entry point of the data plane: a Parquet file decoded as a [`Stream`] whose I/O
//! goes through [`paimon_io::FileIO::read_range_async`], for async callers (DataFusion) that
//! must not block their runtime.
//!
//! The footer is fetched asynchronously before the file is opened, and before each batch the
//! planned column chunks of the row group being decoded and of the next one
//! ([`super::ranged`]); decoding itself runs on the polling task, between awaits. No thread
//! is started and no runtime entered: the stream runs on whatever executor polls it.

use arrow_array::RecordBatch;
use futures::Stream;
use paimon_io::FileIORef;

use super::ranged::{RangeError, RangedFile};
use super::{decode_filtered, BatchIter, DecodeRequest, FileFormat};
use crate::error::{Error, Result};

/// Decodes the Parquet file `path` of `io` (`len` bytes) as `req` asks, its reads async.
/// Planned ranges at most `coalesce_gap` bytes apart are fetched as one
/// ([`super::DEFAULT_COALESCE_GAP`] is the sync reader's default).
///
/// The decoder may still read by itself, on the polling thread: a page index that does not
/// lie in the file's last 64 KiB, and the chunks of a third row group when one batch spans
/// more than one row-group boundary (row groups smaller than the batch size).
pub fn decode_parquet_stream(
    io: FileIORef,
    path: String,
    len: u64,
    req: DecodeRequest,
    coalesce_gap: u64,
) -> impl Stream<Item = Result<RecordBatch>> + Send + 'static {
    enum State {
        Start {
            io: FileIORef,
            path: String,
            len: u64,
            req: DecodeRequest,
            gap: u64,
        },
        Running {
            data: RangedFile,
            path: String,
            batches: BatchIter,
        },
        Done,
    }
    let start = State::Start {
        io,
        path,
        len,
        req,
        gap: coalesce_gap,
    };
    futures::stream::unfold(start, |state| async move {
        let (data, path, mut batches) = match state {
            State::Done => return None,
            State::Running {
                data,
                path,
                batches,
            } => (data, path, batches),
            State::Start {
                io,
                path,
                len,
                req,
                gap,
            } => {
                let data = RangedFile::open(io, &path, len, gap);
                if let Err(e) = data.fetch_tail_async().await {
                    return Some((Err(range_error(&path, e)), State::Done));
                }
                match decode_filtered(FileFormat::Parquet, &path, data.clone(), &req, None) {
                    Ok(b) => (data, path, b),
                    Err(e) => return Some((Err(e), State::Done)),
                }
            }
        };
        if let Err(e) = data.prefetch_async().await {
            return Some((Err(range_error(&path, e)), State::Done));
        }
        match batches.next() {
            None => None,
            Some(Err(e)) => Some((Err(e), State::Done)),
            Some(Ok(b)) => Some((
                Ok(b),
                State::Running {
                    data,
                    path,
                    batches,
                },
            )),
        }
    })
}

pub(crate) fn range_error(path: &str, e: RangeError) -> Error {
    match e {
        RangeError::Io(e) => Error::io(path, e),
        other => Error::corrupt(path, other.to_string()),
    }
}
