//! The write side of [`super::ObjectStoreFileIO`]: a streaming [`FileWriter`] that buffers
//! small files into one PUT and turns large ones into a multipart upload.

use opendal::Operator;

use super::run;
use crate::error::Result;
use crate::FileWriter;

/// Bytes buffered before a file becomes a multipart upload, and the size of each part after
/// that. S3 wants parts of at least 5 MiB; 8 MiB keeps a writer's memory bounded while few
/// parts are needed for a data file of a few hundred MiB.
pub(crate) const PART_SIZE: usize = 8 << 20;

/// A file being written to an object store (Java `PositionOutputStream` of the S3 and OSS
/// file systems). Nothing is visible before [`FileWriter::close`]; dropping the writer leaves
/// at most an incomplete multipart upload, which the store expires.
pub(crate) struct ObjectWriter {
    path: String,
    op: Operator,
    key: String,
    /// Ask the store to refuse the file when the key is taken (a conditional PUT or
    /// CompleteMultipartUpload).
    if_not_exists: bool,
    buf: Vec<u8>,
    /// The multipart upload, once more than [`PART_SIZE`] bytes came in.
    upload: Option<opendal::Writer>,
    pos: u64,
}

impl std::fmt::Debug for ObjectWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectWriter")
            .field("path", &self.path)
            .field("position", &self.pos)
            .field("multipart", &self.upload.is_some())
            .finish()
    }
}

impl ObjectWriter {
    pub(crate) fn new(path: &str, op: Operator, key: String, if_not_exists: bool) -> Self {
        ObjectWriter {
            path: path.to_string(),
            op,
            key,
            if_not_exists,
            buf: Vec::new(),
            upload: None,
            pos: 0,
        }
    }

    /// Sends the buffered bytes as the next part, starting the upload if needed.
    fn send_part(&mut self) -> Result<()> {
        let data = bytes::Bytes::from(std::mem::take(&mut self.buf));
        let upload = self.upload.take();
        let (op, key, cond) = (self.op.clone(), self.key.clone(), self.if_not_exists);
        let upload = run(&self.path, async move {
            let mut w = match upload {
                Some(w) => w,
                None => {
                    op.writer_with(&key)
                        .chunk(PART_SIZE)
                        .if_not_exists(cond)
                        .await?
                }
            };
            w.write(data).await?;
            Ok(w)
        })?;
        self.upload = Some(upload);
        Ok(())
    }
}

impl std::io::Write for ObjectWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        self.pos += data.len() as u64;
        if self.buf.len() >= PART_SIZE {
            self.send_part().map_err(std::io::Error::other)?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // Parts below the store's minimum size cannot be sent early; close sends the rest.
        Ok(())
    }
}

impl FileWriter for ObjectWriter {
    fn position(&self) -> u64 {
        self.pos
    }

    fn close(mut self: Box<Self>) -> Result<u64> {
        let data = bytes::Bytes::from(std::mem::take(&mut self.buf));
        let (op, key, cond) = (self.op.clone(), self.key.clone(), self.if_not_exists);
        let upload = self.upload.take();
        run(&self.path, async move {
            match upload {
                None => op
                    .write_with(&key, data)
                    .if_not_exists(cond)
                    .await
                    .map(|_| ()),
                Some(mut w) => {
                    if !data.is_empty() {
                        w.write(data).await?;
                    }
                    w.close().await.map(|_| ())
                }
            }
        })?;
        Ok(self.pos)
    }

    fn abort(mut self: Box<Self>) -> Result<()> {
        match self.upload.take() {
            None => Ok(()),
            Some(mut w) => run(&self.path, async move { w.abort().await }),
        }
    }
}

/// Whether `e` is the store refusing a conditional write because the key is taken.
pub(crate) fn is_taken(e: &opendal::Error) -> bool {
    matches!(
        e.kind(),
        opendal::ErrorKind::ConditionNotMatch | opendal::ErrorKind::AlreadyExists
    )
}
