//! The HDFS writes that need the name node's own guarantees, through the hdfs-native client
//! directly: OpenDAL's hdfs-native service creates files by overwriting and renames by deleting
//! the target first, so neither "create if absent" nor "publish if absent" can go through it.
//!
//! * [`create_new`]: the name node's `create` without overwrite refuses an existing path, so
//!   of two writers creating one file exactly one gets it.
//! * [`publish_if_absent`]: Java's `HadoopFileIO.tryToWriteAtomic` protocol. The bytes go to
//!   a hidden temporary file beside the target, which is then renamed without overwrite; the
//!   name node refuses the rename when the target exists (`FileAlreadyExistsException`), so
//!   of racing publishers exactly one wins and readers only ever see a whole file.

use std::collections::HashMap;
use std::sync::Mutex;

use hdfs_native::{Client, ClientBuilder, HdfsError, WriteOptions};

use super::location::Location;
use super::{io_error, run_io, write::PART_SIZE};
use crate::error::{Error, Result};
use crate::FileWriter;

/// One hdfs-native client per name node (`host:port` or name service).
#[derive(Default)]
pub(crate) struct HdfsClients {
    clients: Mutex<HashMap<String, Client>>,
}

impl std::fmt::Debug for HdfsClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        f.debug_struct("HdfsClients")
            .field("name_nodes", &clients.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl HdfsClients {
    /// The client of `loc`'s name node, built on first use (its tasks run on the I/O runtime,
    /// where every call of this module is spawned).
    fn client(&self, loc: &Location<'_>, path: &str) -> Result<Client> {
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = clients.get(loc.authority) {
            return Ok(c.clone());
        }
        let rt = super::runtime().map_err(|e| io_error(path, super::runtime_failed(&e)))?;
        let client = ClientBuilder::new()
            .with_url(format!("hdfs://{}", loc.authority))
            .with_io_runtime(rt.handle().clone())
            .build()
            .map_err(|e| Error::Config {
                path: path.to_string(),
                reason: e.to_string(),
            })?;
        clients.insert(loc.authority.to_string(), client.clone());
        Ok(client)
    }
}

/// The absolute HDFS path of `loc` (`/a/b`).
fn hdfs_path(loc: &Location<'_>) -> String {
    format!("/{}", loc.key)
}

/// Maps an hdfs-native error on `path` to [`Error`].
fn map_hdfs(path: &str, e: HdfsError) -> Error {
    let path = path.to_string();
    match e {
        HdfsError::AlreadyExists(_) => Error::AlreadyExists { path },
        HdfsError::FileNotFound(_) => Error::NotFound { path },
        HdfsError::RPCError(class, _) if class.ends_with("FileNotFoundException") => {
            Error::NotFound { path }
        }
        HdfsError::IOError(source) => Error::Io { path, source },
        other => io_error(&path, other.to_string()),
    }
}

/// Opens `loc` for writing; [`Error::AlreadyExists`] when a file or directory is there.
pub(crate) fn create_new(
    clients: &HdfsClients,
    loc: &Location<'_>,
    path: &str,
) -> Result<Box<dyn FileWriter>> {
    let client = clients.client(loc, path)?;
    let target = hdfs_path(loc);
    let (c, t, p) = (client.clone(), target.clone(), path.to_string());
    let file = run_io(path, async move {
        c.create(&t, WriteOptions::default())
            .await
            .map_err(|e| map_hdfs(&p, e))
    })?;
    Ok(Box::new(HdfsWriter {
        path: path.to_string(),
        client,
        target,
        file: Some(file),
        buf: Vec::new(),
        pos: 0,
    }))
}

/// Publishes `data` at `loc` unless a file is there: `Ok(false)` when another writer got it.
pub(crate) fn publish_if_absent(
    clients: &HdfsClients,
    loc: &Location<'_>,
    path: &str,
    data: &[u8],
) -> Result<bool> {
    let client = clients.client(loc, path)?;
    let target = hdfs_path(loc);
    let (dir, name) = target.rsplit_once('/').unwrap_or(("", &target));
    let tmp = format!("{dir}/{}", crate::hidden_temp_name(name));
    let (p, data) = (path.to_string(), bytes::Bytes::copy_from_slice(data));
    run_io(path, async move {
        let written = async {
            let mut f = client.create(&tmp, WriteOptions::default()).await?;
            f.write_bytes(data).await?;
            f.close().await
        }
        .await;
        let published = match written {
            Ok(()) => client.rename(&tmp, &target, false).await,
            Err(e) => Err(e),
        };
        match published {
            Ok(()) => Ok(true),
            Err(e) => {
                // The temporary file is ours alone; a failed cleanup leaves a hidden orphan.
                let _ = client.delete(&tmp, false).await;
                match e {
                    HdfsError::AlreadyExists(_) => Ok(false),
                    e => Err(map_hdfs(&p, e)),
                }
            }
        }
    })
}

/// Deletes the directory at `loc` if it is empty: the name node's non-recursive delete
/// refuses a non-empty directory (`PathIsNotEmptyDirectoryException`), atomically.
/// `Ok(false)` when it holds something or is absent; a file there is left alone.
pub(crate) fn delete_empty_dir(
    clients: &HdfsClients,
    loc: &Location<'_>,
    path: &str,
) -> Result<bool> {
    let client = clients.client(loc, path)?;
    let target = hdfs_path(loc);
    let p = path.to_string();
    run_io(path, async move {
        match client.get_file_info(&target).await {
            Ok(status) if status.isdir => {}
            Ok(_) => return Err(io_error(&p, "not a directory".to_string())),
            Err(HdfsError::FileNotFound(_)) => return Ok(false),
            Err(e) => return Err(map_hdfs(&p, e)),
        }
        match client.delete(&target, false).await {
            Ok(deleted) => Ok(deleted),
            Err(HdfsError::FileNotFound(_)) => Ok(false),
            Err(HdfsError::RPCError(class, _))
                if class.ends_with("PathIsNotEmptyDirectoryException")
                    || class.ends_with("FileNotFoundException") =>
            {
                Ok(false)
            }
            Err(e) => Err(map_hdfs(&p, e)),
        }
    })
}

/// A file being written to HDFS. The name node created it at open (so the path is ours);
/// bytes go to the data nodes in pieces of [`PART_SIZE`]. [`FileWriter::abort`] deletes it.
struct HdfsWriter {
    path: String,
    client: Client,
    target: String,
    file: Option<hdfs_native::file::FileWriter>,
    buf: Vec<u8>,
    pos: u64,
}

impl std::fmt::Debug for HdfsWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HdfsWriter")
            .field("path", &self.path)
            .field("position", &self.pos)
            .finish()
    }
}

impl HdfsWriter {
    /// Sends the buffered bytes to the data nodes; `close` also completes the file.
    fn send(&mut self, close: bool) -> Result<()> {
        let Some(mut file) = self.file.take() else {
            return Err(io_error(&self.path, "the file is closed".to_string()));
        };
        let data = bytes::Bytes::from(std::mem::take(&mut self.buf));
        let p = self.path.clone();
        let file = run_io(&self.path, async move {
            let res = async {
                if !data.is_empty() {
                    file.write_bytes(data).await?;
                }
                if close {
                    file.close().await?;
                }
                Ok(())
            }
            .await;
            res.map(|()| file).map_err(|e| map_hdfs(&p, e))
        })?;
        if !close {
            self.file = Some(file);
        }
        Ok(())
    }
}

impl std::io::Write for HdfsWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        self.pos += data.len() as u64;
        if self.buf.len() >= PART_SIZE {
            self.send(false).map_err(std::io::Error::other)?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl FileWriter for HdfsWriter {
    fn position(&self) -> u64 {
        self.pos
    }

    fn close(mut self: Box<Self>) -> Result<u64> {
        self.send(true)?;
        Ok(self.pos)
    }

    fn abort(mut self: Box<Self>) -> Result<()> {
        // Dropping the writer ends its lease; the partial file is then deleted.
        drop(self.file.take());
        let (client, target, p) = (self.client.clone(), self.target.clone(), self.path.clone());
        run_io(&self.path, async move {
            client
                .delete(&target, false)
                .await
                .map(|_| ())
                .map_err(|e| map_hdfs(&p, e))
        })
    }
}
