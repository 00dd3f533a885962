//! Object stores (S3, OSS, GCS, Azure Blob, HDFS) through OpenDAL.
//!
//! OpenDAL is async; [`FileIO`] is sync. Every call is spawned on one small process-wide tokio
//! runtime and the caller's thread waits for its result on a channel, so the calls work from
//! plain threads, rayon workers and inside another tokio runtime alike (where OpenDAL's own
//! blocking wrapper would panic). The `*_async` reads ([`FileIO::read_range_async`],
//! [`FileIO::read_async`], [`FileIO::size_async`], [`FileIO::list_async`]) spawn the same way
//! and await the task's handle instead of waiting on a channel, so an async caller on any executor
//! (another tokio runtime included) never blocks and no runtime is nested.
//!
//! Writes: [`FileIO::create`] buffers up to [`write::PART_SIZE`] and then streams a multipart
//! upload; new files are conditional writes (`If-None-Match: *`) where the store supports
//! them, which is what makes [`FileIO::publish_if_absent`] atomic on S3, OSS, GCS and Azure.
//! On HDFS, new files and [`FileIO::publish_if_absent`] go through the hdfs-native client
//! itself (the `hdfs` module): the name node refuses to create an existing path and to rename
//! onto one, which OpenDAL's service does not let through.

mod config;
#[cfg(feature = "hdfs-native")]
mod hdfs;
pub(crate) mod location;
mod write;

use std::collections::HashMap;
use std::future::Future;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use futures::TryStreamExt;
use opendal::{ErrorKind, Operator};

use config::ServiceConfig;
pub use config::{S3Options, S3_OPTION_KEYS};
use location::{Location, Service};

use crate::error::{Error, Result};
use crate::{BoxFuture, FileIO, FileStatus, FileWriter};
use write::{is_taken, ObjectWriter};

/// [`FileIO`] over an object store, one OpenDAL operator per bucket (created on first use).
///
/// Paths are full URLs (`s3://bucket/key`); listings return URLs in the same form.
#[derive(Debug)]
pub struct ObjectStoreFileIO {
    config: ServiceConfig,
    operators: Mutex<HashMap<String, Operator>>,
    /// The name nodes' own clients, for the writes OpenDAL cannot make exclusive.
    #[cfg(feature = "hdfs-native")]
    hdfs: hdfs::HdfsClients,
}

impl ObjectStoreFileIO {
    /// The object store for URLs with `scheme`, configured from the environment.
    ///
    /// # Errors
    /// [`Error::UnsupportedScheme`] when the scheme's backend is not compiled in.
    pub fn for_scheme(scheme: &str, path: &str) -> Result<Self> {
        let unsupported = || Error::UnsupportedScheme {
            scheme: scheme.to_string(),
            path: path.to_string(),
        };
        let service = Service::for_scheme(scheme).ok_or_else(unsupported)?;
        let config = match service {
            #[cfg(feature = "s3")]
            Service::S3 => ServiceConfig::S3(S3Options::from_env()),
            #[cfg(feature = "oss")]
            Service::Oss => ServiceConfig::FromEnv(service),
            #[cfg(feature = "gcs")]
            Service::Gcs => ServiceConfig::FromEnv(service),
            #[cfg(feature = "azblob")]
            Service::Azblob => ServiceConfig::FromEnv(service),
            #[cfg(feature = "hdfs-native")]
            Service::HdfsNative => ServiceConfig::FromEnv(service),
            #[allow(unreachable_patterns)]
            _ => return Err(unsupported()),
        };
        Ok(Self::with_config(config))
    }

    /// An S3 store with explicit options instead of the environment.
    #[cfg(feature = "s3")]
    pub fn s3(options: S3Options) -> Self {
        Self::with_config(ServiceConfig::S3(options))
    }

    fn with_config(config: ServiceConfig) -> Self {
        ObjectStoreFileIO {
            config,
            operators: Mutex::new(HashMap::new()),
            #[cfg(feature = "hdfs-native")]
            hdfs: hdfs::HdfsClients::default(),
        }
    }

    /// The operator for `path`'s bucket and the key inside it.
    fn locate<'p>(&self, path: &'p str) -> Result<(Operator, Location<'p>)> {
        let loc = Location::parse(path).ok_or_else(|| Error::Config {
            path: path.to_string(),
            reason: "expected scheme://bucket/key".to_string(),
        })?;
        let mut ops = self.operators.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(op) = ops.get(loc.authority) {
            return Ok((op.clone(), loc));
        }
        // Operators capture the HTTP transport when built, so it must be installed first.
        runtime().map_err(|e| io_error(path, runtime_failed(&e)))?;
        let op = self.config.operator(&loc, path)?;
        ops.insert(loc.authority.to_string(), op.clone());
        Ok((op, loc))
    }
}

impl FileIO for ObjectStoreFileIO {
    fn read(&self, path: &str) -> Result<bytes::Bytes> {
        let (op, loc) = self.locate(path)?;
        let key = loc.key.to_string();
        let buf = run(path, async move { op.read(&key).await })?;
        Ok(buf.to_bytes())
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> Result<bytes::Bytes> {
        let (op, loc) = self.locate(path)?;
        run_io(
            path,
            read_range_on(op, loc.key.to_string(), path.to_string(), range),
        )
    }

    fn read_range_async<'a>(
        &'a self,
        path: &'a str,
        range: Range<u64>,
    ) -> BoxFuture<'a, Result<bytes::Bytes>> {
        Box::pin(async move {
            let (op, loc) = self.locate(path)?;
            let task = read_range_on(op, loc.key.to_string(), path.to_string(), range);
            spawn_io(path, task).await
        })
    }

    fn read_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<bytes::Bytes>> {
        Box::pin(async move {
            let (op, loc) = self.locate(path)?;
            let (key, p) = (loc.key.to_string(), path.to_string());
            let task = async move {
                op.read(&key)
                    .await
                    .map(|b| b.to_bytes())
                    .map_err(|e| map_error(&p, e))
            };
            spawn_io(path, task).await
        })
    }

    fn size_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<u64>> {
        Box::pin(async move {
            let (op, loc) = self.locate(path)?;
            let (key, p) = (loc.key.to_string(), path.to_string());
            let task = async move {
                op.stat(&key)
                    .await
                    .map(|m| m.content_length())
                    .map_err(|e| map_error(&p, e))
            };
            spawn_io(path, task).await
        })
    }

    fn list_async<'a>(&'a self, dir: &'a str) -> BoxFuture<'a, Result<Vec<FileStatus>>> {
        Box::pin(async move {
            let (op, loc) = self.locate(dir)?;
            spawn_io(dir, list_on(op, loc.dir_key(), dir.to_string())).await
        })
    }

    fn size(&self, path: &str) -> Result<u64> {
        let (op, loc) = self.locate(path)?;
        let key = loc.key.to_string();
        let meta = run(path, async move { op.stat(&key).await })?;
        Ok(meta.content_length())
    }

    fn exists(&self, path: &str) -> Result<bool> {
        let (op, loc) = self.locate(path)?;
        let key = loc.key.to_string();
        let dir = loc.dir_key();
        // Object stores have no directories: a "directory" exists when some key lies below it.
        run(path, async move {
            if !key.is_empty() {
                match op.stat(&key).await {
                    Ok(_) => return Ok(true),
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
            let mut lister = op.lister(&dir).await?;
            Ok(lister.try_next().await?.is_some())
        })
    }

    fn list(&self, dir: &str) -> Result<Vec<FileStatus>> {
        let (op, loc) = self.locate(dir)?;
        run_io(dir, list_on(op, loc.dir_key(), dir.to_string()))
    }

    fn create(&self, path: &str) -> Result<Box<dyn FileWriter>> {
        let (op, loc) = self.locate(path)?;
        #[cfg(feature = "hdfs-native")]
        if self.config.service() == Service::HdfsNative {
            return hdfs::create_new(&self.hdfs, &loc, path);
        }
        let conditional = op.info().capability().write_with_if_not_exists;
        // Without a conditional write the best the store allows is a check now: a concurrent
        // writer may still take the key before close.
        if !conditional && self.exists_file(&op, loc.key, path)? {
            return Err(Error::AlreadyExists {
                path: path.to_string(),
            });
        }
        Ok(Box::new(ObjectWriter::new(
            path,
            op,
            loc.key.to_string(),
            conditional,
        )))
    }

    fn write_new(&self, path: &str, data: &[u8]) -> Result<()> {
        let mut w = self.create(path)?;
        std::io::Write::write_all(&mut w, data).map_err(|e| Error::from_io(path, e))?;
        w.close().map(|_| ())
    }

    fn overwrite(&self, path: &str, data: &[u8]) -> Result<()> {
        // One PUT replaces an object whole: readers see the old or the new content.
        let (op, loc) = self.locate(path)?;
        let key = loc.key.to_string();
        let data = bytes::Bytes::copy_from_slice(data);
        run(path, async move { op.write(&key, data).await.map(|_| ()) })
    }

    fn publish_if_absent(&self, path: &str, data: &[u8]) -> Result<bool> {
        let (op, loc) = self.locate(path)?;
        #[cfg(feature = "hdfs-native")]
        if self.config.service() == Service::HdfsNative {
            return hdfs::publish_if_absent(&self.hdfs, &loc, path, data);
        }
        if !op.info().capability().write_with_if_not_exists {
            return Err(Error::Unsupported {
                path: path.to_string(),
                operation: "publish_if_absent (this store has no conditional create, and \
                            OpenDAL's rename on it replaces an existing target)",
            });
        }
        let key = loc.key.to_string();
        let data = bytes::Bytes::copy_from_slice(data);
        let res = run(path, async move {
            match op.write_with(&key, data).if_not_exists(true).await {
                Ok(_) => Ok(true),
                Err(e) if is_taken(&e) => Ok(false),
                Err(e) => Err(e),
            }
        });
        match res {
            Err(Error::AlreadyExists { .. }) => Ok(false),
            other => other,
        }
    }

    fn delete(&self, path: &str) -> Result<bool> {
        let (op, loc) = self.locate(path)?;
        // Object stores acknowledge deleting an absent key; the answer comes from a stat.
        if !self.exists_file(&op, loc.key, path)? {
            return Ok(false);
        }
        let key = loc.key.to_string();
        run(path, async move { op.delete(&key).await })?;
        Ok(true)
    }

    fn delete_dir(&self, path: &str) -> Result<bool> {
        let (op, loc) = self.locate(path)?;
        let dir = loc.dir_key();
        if dir.is_empty() {
            return Err(Error::Unsupported {
                path: path.to_string(),
                operation: "delete_dir of a whole bucket",
            });
        }
        if !self.exists(path)? {
            return Ok(false);
        }
        run(
            path,
            async move { op.delete_with(&dir).recursive(true).await },
        )?;
        Ok(true)
    }

    fn delete_empty_dir(&self, path: &str) -> Result<bool> {
        #[cfg(feature = "hdfs-native")]
        if self.config.service() == Service::HdfsNative {
            let (_, loc) = self.locate(path)?;
            return hdfs::delete_empty_dir(&self.hdfs, &loc, path);
        }
        // Object stores have no directories: one goes with its last key.
        let _ = path;
        Ok(false)
    }

    fn mkdirs(&self, path: &str) -> Result<()> {
        // Only HDFS has directories; on object stores a directory is any key's prefix.
        if self.config.service().has_directories() {
            let (op, loc) = self.locate(path)?;
            let dir = loc.dir_key();
            if !dir.is_empty() {
                run(path, async move { op.create_dir(&dir).await })?;
            }
        }
        Ok(())
    }

    fn status(&self, path: &str) -> Result<FileStatus> {
        let (op, loc) = self.locate(path)?;
        let key = loc.key.to_string();
        let file = if key.is_empty() {
            None
        } else {
            run(path, async move {
                match op.stat(&key).await {
                    Ok(m) => Ok(Some(m)),
                    Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(e),
                }
            })?
        };
        match file {
            Some(meta) if !meta.is_dir() => Ok(FileStatus {
                path: path.to_string(),
                size: meta.content_length(),
                is_dir: false,
                modified_ms: modified_ms(&meta),
            }),
            _ if self.exists(path)? => Ok(FileStatus {
                path: path.to_string(),
                size: 0,
                is_dir: true,
                modified_ms: None,
            }),
            _ => Err(Error::NotFound {
                path: path.to_string(),
            }),
        }
    }
}

impl ObjectStoreFileIO {
    /// Whether a file (not a directory prefix) is stored under `key`.
    fn exists_file(&self, op: &Operator, key: &str, path: &str) -> Result<bool> {
        let (op, key) = (op.clone(), key.to_string());
        run(path, async move {
            match op.stat(&key).await {
                Ok(m) => Ok(!m.is_dir()),
                Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
                Err(e) => Err(e),
            }
        })
    }
}

/// The entries under `prefix` (the key of `dir`), sorted by path; an absent directory is
/// [`Error::NotFound`].
async fn list_on(op: Operator, prefix: String, dir: String) -> Result<Vec<FileStatus>> {
    let entries = op.list(&prefix).await.map_err(|e| map_error(&dir, e))?;
    let mut marker = false;
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        if e.path() == prefix || e.path().is_empty() || e.path() == "/" {
            marker = true;
            continue;
        }
        let meta = e.metadata();
        let is_dir = meta.is_dir();
        out.push(FileStatus {
            path: crate::join(&dir, e.name().trim_end_matches('/')),
            size: if is_dir { 0 } else { meta.content_length() },
            is_dir,
            modified_ms: modified_ms(meta),
        });
    }
    if out.is_empty() && !marker && !prefix.is_empty() {
        return Err(Error::NotFound { path: dir });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Reads `range` of `key`, checking it as [`crate::LocalFileIO`] does.
async fn read_range_on(
    op: Operator,
    key: String,
    path: String,
    range: Range<u64>,
) -> Result<bytes::Bytes> {
    let size = |op: Operator, key: String| {
        let path = path.clone();
        async move {
            op.stat(&key)
                .await
                .map(|m| m.content_length())
                .map_err(|e| map_error(&path, e))
        }
    };
    let invalid = |size| Error::InvalidRange {
        path: path.clone(),
        start: range.start,
        end: range.end,
        size,
    };
    // An empty or inverted range cannot be sent as an HTTP range; check it against the size.
    if range.start >= range.end {
        let size = size(op, key).await?;
        return if range.start == range.end && range.end <= size {
            Ok(bytes::Bytes::new())
        } else {
            Err(invalid(size))
        };
    }
    let res = op.read_with(&key).range(range.clone()).await;
    match res {
        Ok(buf) if buf.len() as u64 == range.end - range.start => Ok(buf.to_bytes()),
        Ok(_) => Err(invalid(size(op, key).await?)),
        Err(e) if e.kind() == ErrorKind::NotFound => Err(map_error(&path, e)),
        // A range past the end fails as a short read or a 416, depending on the server:
        // report it like LocalFileIO when the size says so.
        Err(e) => match size(op, key).await {
            Ok(size) if range.end > size => Err(invalid(size)),
            _ => Err(map_error(&path, e)),
        },
    }
}

/// The last-modified time of `meta` in milliseconds since the epoch.
fn modified_ms(meta: &opendal::Metadata) -> Option<i64> {
    meta.last_modified()
        .map(|t| t.into_inner().as_millisecond())
}

fn runtime_failed(e: &str) -> String {
    format!("cannot start the I/O runtime: {e}")
}

/// The shared runtime that drives OpenDAL's futures.
fn runtime() -> std::result::Result<&'static tokio::runtime::Runtime, String> {
    static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> =
        OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            // reqwest is built without a TLS crypto provider; ring is installed as the process
            // default unless the application installed one already.
            let _ = rustls::crypto::ring::default_provider().install_default();
            opendal_http_transport_reqwest::install_default();
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("paimon-io")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Runs `fut` on the shared runtime and awaits its handle: an async caller on any executor
/// waits without blocking its thread.
async fn spawn_io<T, F>(path: &str, fut: F) -> Result<T>
where
    T: Send + 'static,
    F: Future<Output = Result<T>> + Send + 'static,
{
    let rt = runtime().map_err(|e| io_error(path, runtime_failed(&e)))?;
    rt.spawn(fut)
        .await
        .map_err(|e| io_error(path, format!("the I/O task failed: {e}")))?
}

/// Runs `fut` on the shared runtime and waits for it, mapping OpenDAL errors on `path`.
fn run<T, F>(path: &str, fut: F) -> Result<T>
where
    T: Send + 'static,
    F: Future<Output = opendal::Result<T>> + Send + 'static,
{
    let p = path.to_string();
    run_io(path, async move { fut.await.map_err(|e| map_error(&p, e)) })
}

/// Runs `fut` on the shared runtime and waits for it.
fn run_io<T, F>(path: &str, fut: F) -> Result<T>
where
    T: Send + 'static,
    F: Future<Output = Result<T>> + Send + 'static,
{
    let rt = runtime().map_err(|e| io_error(path, runtime_failed(&e)))?;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    rt.spawn(async move {
        // The receiver only goes away when the caller is gone; nothing is left to tell.
        let _ = tx.send(fut.await);
    });
    rx.recv()
        .map_err(|_| io_error(path, "the I/O task stopped without a result".to_string()))?
}

fn io_error(path: &str, reason: String) -> Error {
    Error::Io {
        path: path.to_string(),
        source: std::io::Error::other(reason),
    }
}

/// Maps an OpenDAL error to [`Error`], naming the full URL.
fn map_error(path: &str, e: opendal::Error) -> Error {
    let path = path.to_string();
    match e.kind() {
        ErrorKind::NotFound => Error::NotFound { path },
        // Only conditional writes carry a condition: theirs is that the key is free.
        ErrorKind::ConditionNotMatch | ErrorKind::AlreadyExists => Error::AlreadyExists { path },
        ErrorKind::RangeNotSatisfied => Error::InvalidRange {
            path,
            start: 0,
            end: 0,
            size: 0,
        },
        ErrorKind::ConfigInvalid => Error::Config {
            path,
            reason: e.to_string(),
        },
        kind => {
            let io_kind = match kind {
                ErrorKind::PermissionDenied => std::io::ErrorKind::PermissionDenied,
                ErrorKind::IsADirectory => std::io::ErrorKind::IsADirectory,
                ErrorKind::NotADirectory => std::io::ErrorKind::NotADirectory,
                _ => std::io::ErrorKind::Other,
            };
            Error::Io {
                path,
                source: std::io::Error::new(io_kind, e),
            }
        }
    }
}

/// `Arc` form for [`crate::file_io_for`].
pub(crate) fn file_io_for(scheme: &str, path: &str) -> Result<crate::FileIORef> {
    Ok(Arc::new(ObjectStoreFileIO::for_scheme(scheme, path)?))
}
