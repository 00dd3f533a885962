//! DLF credentials (Java `DLFToken`) and where they come from (Java `DLFTokenLoader`): the
//! catalog's options, a token file (`DLFLocalFileTokenLoader`), or the ECS metadata service
//! (`DLFECSTokenLoader`).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use chrono::NaiveDateTime;
use serde_json::Value;

use crate::catalog::rest::client;
use crate::error::{CatalogFailure, Error, Result};

/// `Expiration` as Java's `DLFToken` parses it (UTC, `yyyy-MM-dd'T'HH:mm:ss'Z'`).
const EXPIRATION_FORMAT: &str = "%Y-%m-%dT%H:%M:%SZ";
/// Attempts to read a token file that is missing or half written (Java tries 5 times).
const FILE_ATTEMPTS: u32 = 5;
/// Pause between those attempts, times the attempt number (Java waits whole seconds; a
/// rewrite of a small file takes milliseconds).
const FILE_RETRY_PAUSE: Duration = Duration::from_millis(100);
/// How long the ECS metadata service may take.
const ECS_TIMEOUT: Duration = Duration::from_secs(10);

/// DLF credentials: an access key, an optional security token (STS) and when they expire.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct DlfToken {
    pub(crate) access_key_id: String,
    pub(crate) access_key_secret: String,
    pub(crate) security_token: Option<String>,
    /// Epoch millis of `Expiration`; `None` never expires.
    pub(crate) expires_at_millis: Option<i64>,
}

impl std::fmt::Debug for DlfToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret and the security token stay out of logs and error messages.
        f.debug_struct("DlfToken")
            .field("access_key_id", &self.access_key_id)
            .field("expires_at_millis", &self.expires_at_millis)
            .finish_non_exhaustive()
    }
}

impl DlfToken {
    /// The token in `text`, JSON as Java's `DLFToken` reads it (`AccessKeyId`,
    /// `AccessKeySecret`, `SecurityToken`, `Expiration`; other fields ignored).
    ///
    /// # Errors
    /// A `reason` for text that is not such JSON (missing key, malformed expiration).
    pub(crate) fn from_json(text: &str) -> std::result::Result<Self, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let field = |k: &str| match v.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("field {k:?} is not a string")),
        };
        let required = |k: &str| {
            field(k)?
                .filter(|s| !s.is_empty())
                .ok_or_else(|| format!("field {k:?} is missing"))
        };
        let expires_at_millis = match field("Expiration")? {
            None => None,
            Some(e) => Some(
                NaiveDateTime::parse_from_str(&e, EXPIRATION_FORMAT)
                    .map_err(|err| format!("Expiration {e:?} is not yyyy-MM-ddTHH:mm:ssZ ({err})"))?
                    .and_utc()
                    .timestamp_millis(),
            ),
        };
        Ok(DlfToken {
            access_key_id: required("AccessKeyId")?,
            access_key_secret: required("AccessKeySecret")?,
            security_token: field("SecurityToken")?,
            expires_at_millis,
        })
    }
}

/// Where a catalog's DLF credentials come from.
#[derive(Debug)]
pub(crate) enum TokenSource {
    /// `dlf.access-key-id`, `dlf.access-key-secret`, `dlf.security-token`: never refreshed.
    Static(DlfToken),
    /// `dlf.token-path` (loader `local_file`): re-read before the token expires, and when
    /// the file changes.
    File(PathBuf),
    /// Loader `ecs`: `dlf.token-ecs-metadata-url`, with `dlf.token-ecs-role-name` or the
    /// role the service names.
    Ecs {
        url: String,
        role: Mutex<Option<String>>,
    },
}

/// A token as loaded, with what tells whether it went stale.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub(crate) token: DlfToken,
    /// The token file's modification time when it was read.
    pub(crate) modified: Option<SystemTime>,
}

impl TokenSource {
    /// What errors name: the file or the metadata URL.
    pub(crate) fn describe(&self) -> String {
        match self {
            TokenSource::Static(_) => "DLF access key options".to_string(),
            TokenSource::File(p) => format!("DLF token file {}", p.display()),
            TokenSource::Ecs { url, .. } => format!("DLF token from ECS metadata {url}"),
        }
    }

    /// Whether `loaded` must be loaded again at `now_millis`: Java refreshes a token that
    /// expires within `safe_millis`; a token file is also re-read once it has changed.
    pub(crate) fn stale(&self, loaded: &Loaded, now_millis: i64, safe_millis: i64) -> bool {
        if let TokenSource::File(p) = self {
            if modified(p).is_some_and(|m| Some(m) != loaded.modified) {
                return true;
            }
        }
        match (self, loaded.token.expires_at_millis) {
            (TokenSource::Static(_), _) | (_, None) => false,
            (_, Some(at)) => at.saturating_sub(now_millis) < safe_millis,
        }
    }

    /// Loads the token; `uri` is the catalog's, for errors.
    ///
    /// # Errors
    /// [`CatalogFailure::NotAuthorized`] naming the file or URL: unreadable, not a token,
    /// the metadata service unreachable or refusing.
    pub(crate) fn load(&self, uri: &str) -> Result<Loaded> {
        let fail = |reason: String| {
            Error::catalog(uri, CatalogFailure::NotAuthorized, self.describe(), reason)
        };
        match self {
            TokenSource::Static(t) => Ok(Loaded {
                token: t.clone(),
                modified: None,
            }),
            TokenSource::File(p) => {
                let mut last = String::new();
                for attempt in 1..=FILE_ATTEMPTS {
                    let before = modified(p);
                    match std::fs::read_to_string(p)
                        .map_err(|e| e.to_string())
                        .and_then(|t| DlfToken::from_json(&t))
                    {
                        Ok(token) => {
                            return Ok(Loaded {
                                token,
                                modified: before,
                            })
                        }
                        Err(e) => last = e,
                    }
                    if attempt < FILE_ATTEMPTS {
                        std::thread::sleep(FILE_RETRY_PAUSE * attempt);
                    }
                }
                Err(fail(format!("{last} (after {FILE_ATTEMPTS} attempts)")))
            }
            TokenSource::Ecs { url, role } => {
                let known = role.lock().ok().and_then(|r| r.clone());
                let name = match known {
                    Some(r) => r,
                    None => {
                        let r = ecs_get(url).map_err(|e| fail(format!("role name: {e}")))?;
                        let r = r.trim().to_string();
                        if let Ok(mut slot) = role.lock() {
                            *slot = Some(r.clone());
                        }
                        r
                    }
                };
                let text = ecs_get(&format!("{url}{name}"))
                    .map_err(|e| fail(format!("role {name}: {e}")))?;
                let token =
                    DlfToken::from_json(&text).map_err(|e| fail(format!("role {name}: {e}")))?;
                Ok(Loaded {
                    token,
                    modified: None,
                })
            }
        }
    }
}

fn modified(p: &std::path::Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// `GET url` of the metadata service: the body of a 2xx answer that is not empty.
fn ecs_get(url: &str) -> std::result::Result<String, String> {
    let req = client::http_client(ECS_TIMEOUT, ECS_TIMEOUT)?.get(url);
    client::run(async move {
        let resp = req.send().await.map_err(|e| e.to_string())?;
        let status = resp.status();
        let text = resp.text().await.map_err(|e| e.to_string())?;
        if !status.is_success() {
            return Err(format!("HTTP {}", status.as_u16()));
        }
        if text.trim().is_empty() {
            return Err("empty answer".to_string());
        }
        Ok(text)
    })?
}
