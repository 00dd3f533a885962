//! The storage of a REST table under `data-token.enabled` (Java `RESTTokenFileIO`): its files
//! are read and written with the data token the server hands out (`GET .../token`), fetched
//! again before it expires, so a long scan or write outlives any one token.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;

use paimon_io::{BoxFuture, FileIO, FileIORef, FileStatus, FileWriter};
use serde_json::Value;

use super::client::{Object, RestClient};
use super::messages::Response;
use crate::catalog::Identifier;

/// A data token that expires within this is fetched again before the next file access (Java
/// `RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`, one hour).
pub(crate) const REFRESH_BEFORE_EXPIRY_MILLIS: i64 = 3_600_000;

/// How a table's FileIO is made from its storage options.
pub(crate) type MakeFileIO = fn(&str, &BTreeMap<String, String>) -> paimon_io::Result<FileIORef>;

/// A FileIO over the table's current data token, refreshed as Java's `RESTTokenFileIO` does.
pub(crate) struct RestTokenFileIO {
    client: RestClient,
    /// `.../tables/{t}/token`.
    token_path: String,
    id: Identifier,
    /// The table's path (what the FileIO is made for).
    path: String,
    /// The catalog's storage options, under the token's.
    base: BTreeMap<String, String>,
    make: MakeFileIO,
    current: Mutex<Option<Current>>,
}

#[derive(Clone)]
struct Current {
    io: FileIORef,
    options: BTreeMap<String, String>,
    expires_at_millis: i64,
}

impl std::fmt::Debug for RestTokenFileIO {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token's values are credentials: only when it expires is shown.
        let expires = self
            .current
            .lock()
            .ok()
            .and_then(|c| c.as_ref().map(|c| c.expires_at_millis));
        f.debug_struct("RestTokenFileIO")
            .field("table", &self.id.full_table_name())
            .field("path", &self.path)
            .field("expires_at_millis", &expires)
            .finish_non_exhaustive()
    }
}

impl RestTokenFileIO {
    /// The storage of table `id` at `path`: `base` options with the token from `token_path`
    /// over them; the first token is fetched now.
    ///
    /// # Errors
    /// The token call's errors; options the storage refuses.
    pub(crate) fn new(
        client: RestClient,
        token_path: String,
        id: Identifier,
        path: &str,
        base: BTreeMap<String, String>,
        make: MakeFileIO,
    ) -> crate::error::Result<Self> {
        let io = RestTokenFileIO {
            client,
            token_path,
            id,
            path: path.to_string(),
            base,
            make,
            current: Mutex::new(None),
        };
        io.fresh().map_err(crate::error::Error::io)?;
        Ok(io)
    }

    /// The storage options in effect now (the catalog's with the current token over them),
    /// refreshed first when the token is about to expire: what a worker needs to read or
    /// write the table's files, and never the catalog's own credentials.
    ///
    /// # Errors
    /// The token call's errors.
    pub(crate) fn current_options(&self) -> paimon_io::Result<BTreeMap<String, String>> {
        Ok(self.fresh()?.options)
    }

    /// The current FileIO and options, with a new token when the old one expires within
    /// [`REFRESH_BEFORE_EXPIRY_MILLIS`] (Java `shouldRefresh`).
    fn fresh(&self) -> paimon_io::Result<Current> {
        let mut slot = self
            .current
            .lock()
            .map_err(|_| self.failure("lock poisoned"))?;
        let now = chrono::Utc::now().timestamp_millis();
        if let Some(c) = slot.as_ref() {
            if c.expires_at_millis.saturating_sub(now) >= REFRESH_BEFORE_EXPIRY_MILLIS {
                return Ok(c.clone());
            }
        }
        let (token, expires_at_millis) = fetch(&self.client, &self.token_path, &self.id)
            .map_err(|e| self.failure(&e.to_string()))?;
        let mut options = self.base.clone();
        options.extend(token);
        let io = (self.make)(&self.path, &options)?;
        let c = Current {
            io,
            options,
            expires_at_millis,
        };
        *slot = Some(c.clone());
        Ok(c)
    }

    fn failure(&self, reason: &str) -> paimon_io::Error {
        paimon_io::Error::Config {
            path: self.path.clone(),
            reason: format!(
                "the data token of table {}: {reason}",
                self.id.full_table_name()
            ),
        }
    }

    fn io(&self) -> paimon_io::Result<FileIORef> {
        Ok(self.fresh()?.io)
    }
}

/// `GET .../token` (`token_path`) of table `id`: the token's options and when it expires
/// (epoch millis; never when the server does not say).
///
/// # Errors
/// Transport and server errors; a malformed token.
pub(crate) fn fetch(
    client: &RestClient,
    token_path: &str,
    id: &Identifier,
) -> crate::error::Result<(BTreeMap<String, String>, i64)> {
    let body = client.get(token_path, &[], &Object::table(id.full_table_name()))?;
    let r = Response {
        uri: client.uri(),
        what: format!("GET {token_path}"),
        body: &body,
    };
    let expires = r
        .body
        .get("expiresAtMillis")
        .and_then(Value::as_i64)
        .unwrap_or(i64::MAX);
    Ok((r.map("token")?, expires))
}

impl FileIO for RestTokenFileIO {
    fn read(&self, path: &str) -> paimon_io::Result<bytes::Bytes> {
        self.io()?.read(path)
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> paimon_io::Result<bytes::Bytes> {
        self.io()?.read_range(path, range)
    }

    fn read_range_async<'a>(
        &'a self,
        path: &'a str,
        range: Range<u64>,
    ) -> BoxFuture<'a, paimon_io::Result<bytes::Bytes>> {
        Box::pin(async move { self.io()?.read_range_async(path, range).await })
    }

    fn size(&self, path: &str) -> paimon_io::Result<u64> {
        self.io()?.size(path)
    }

    fn read_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, paimon_io::Result<bytes::Bytes>> {
        Box::pin(async move { self.io()?.read_async(path).await })
    }

    fn size_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, paimon_io::Result<u64>> {
        Box::pin(async move { self.io()?.size_async(path).await })
    }

    fn list_async<'a>(&'a self, dir: &'a str) -> BoxFuture<'a, paimon_io::Result<Vec<FileStatus>>> {
        Box::pin(async move { self.io()?.list_async(dir).await })
    }

    fn exists(&self, path: &str) -> paimon_io::Result<bool> {
        self.io()?.exists(path)
    }

    fn list(&self, dir: &str) -> paimon_io::Result<Vec<FileStatus>> {
        self.io()?.list(dir)
    }

    fn create(&self, path: &str) -> paimon_io::Result<Box<dyn FileWriter>> {
        self.io()?.create(path)
    }

    fn write_new(&self, path: &str, data: &[u8]) -> paimon_io::Result<()> {
        self.io()?.write_new(path, data)
    }

    fn overwrite(&self, path: &str, data: &[u8]) -> paimon_io::Result<()> {
        self.io()?.overwrite(path, data)
    }

    fn publish_if_absent(&self, path: &str, data: &[u8]) -> paimon_io::Result<bool> {
        self.io()?.publish_if_absent(path, data)
    }

    fn delete(&self, path: &str) -> paimon_io::Result<bool> {
        self.io()?.delete(path)
    }

    fn delete_dir(&self, path: &str) -> paimon_io::Result<bool> {
        self.io()?.delete_dir(path)
    }

    fn delete_empty_dir(&self, path: &str) -> paimon_io::Result<bool> {
        self.io()?.delete_empty_dir(path)
    }

    fn rename_dir(&self, from: &str, to: &str) -> paimon_io::Result<()> {
        self.io()?.rename_dir(from, to)
    }

    fn mkdirs(&self, path: &str) -> paimon_io::Result<()> {
        self.io()?.mkdirs(path)
    }

    fn status(&self, path: &str) -> paimon_io::Result<FileStatus> {
        self.io()?.status(path)
    }

    fn storage_options(&self) -> Option<paimon_io::Result<BTreeMap<String, String>>> {
        Some(self.current_options())
    }
}

#[cfg(test)]
mod tests;
