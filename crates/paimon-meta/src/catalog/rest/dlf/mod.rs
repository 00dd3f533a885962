//! Alibaba DLF request signing (`token.provider = dlf`) as Java 1.4.2's `DLFAuthProvider`
//! does it: every request carries a date, the body's `Content-MD5`, the security token and an
//! `Authorization` signed with the caller's access key by the default v4-style signer or the
//! OpenAPI signer ([`signer`]); the key comes from the options, a token file or the ECS
//! metadata service ([`token`]) and is loaded again before it expires.

mod signer;
mod token;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use chrono::{DateTime, Utc};

use crate::catalog::options::keys;
use crate::error::{CatalogFailure, Error, Result};
pub(crate) use signer::SignRequest;
use signer::{header, Signer};
use token::{DlfToken, Loaded, TokenSource};

/// A DLF token file's text read as the catalog reads it (`dlf.token-path`, the ECS metadata
/// service's answer): the access key id and the expiry in epoch millis. What the fuzz crate
/// (`fuzz/fuzz_targets/dlf_token.rs`) drives; not an API.
///
/// # Errors
/// Why the text is not a token.
#[doc(hidden)]
pub fn fuzz_token_json(text: &str) -> std::result::Result<(String, Option<i64>), String> {
    DlfToken::from_json(text).map(|t| (t.access_key_id, t.expires_at_millis))
}

/// The `dlf_token` fuzz target's checks on one input (bytes that are not UTF-8 pass): a token
/// read has an access key id, a refusal says why. Not an API.
///
/// # Errors
/// Which check failed (a defect of the reader, not a refusal of the text).
#[doc(hidden)]
pub fn fuzz_check_token(bytes: &[u8]) -> std::result::Result<(), String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(());
    };
    match fuzz_token_json(text) {
        Ok((id, _)) if id.is_empty() => Err("a token without an access key id".into()),
        Err(why) if why.is_empty() => Err("a refusal without a reason".into()),
        _ => Ok(()),
    }
}

/// A token that expires within this is loaded again (Java
/// `RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`, one hour).
const REFRESH_BEFORE_EXPIRY_MILLIS: i64 = 3_600_000;

/// The ECS metadata service's credentials URL (Java's default of
/// `dlf.token-ecs-metadata-url`).
const ECS_METADATA_URL: &str = "http://100.100.100.200/latest/meta-data/Ram/security-credentials/";

/// Signs a catalog's requests with DLF credentials (Java `DLFAuthProvider`).
#[derive(Debug)]
pub(crate) struct DlfAuth {
    /// The catalog's URI, for errors.
    uri: String,
    /// The host (with port) of `uri`, as Java's `extractHost` takes it.
    host: String,
    signer: Signer,
    source: TokenSource,
    token: Mutex<Option<Loaded>>,
}

impl DlfAuth {
    /// The provider the catalog options describe (Java `DLFAuthProviderFactory`): a
    /// `dlf.token-loader` (`local_file`, `ecs`), else a `dlf.token-path`, else the access key
    /// options; the region from `dlf.region` or the URI; the signer from
    /// `dlf.signing-algorithm` or the URI (`openapi` for `dlfnext` hosts).
    ///
    /// # Errors
    /// [`CatalogFailure::InvalidOptions`] naming the option that is missing or wrong.
    pub(crate) fn from_options(uri: &str, options: &BTreeMap<String, String>) -> Result<Self> {
        let get = |k: &str| options.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
        let invalid = |key: &str, reason: String| {
            Error::catalog(
                uri,
                CatalogFailure::InvalidOptions,
                format!("option {key}"),
                reason,
            )
        };
        let algorithm = get(keys::DLF_SIGNING_ALGORITHM).unwrap_or(Signer::algorithm_of_uri(uri));
        let region = match get(keys::DLF_REGION) {
            Some(r) => r.to_string(),
            None if algorithm == "default" => region_of_uri(uri).ok_or_else(|| {
                invalid(
                    keys::DLF_REGION,
                    format!(
                        "option {:?} is required: no region in uri {uri:?}",
                        keys::DLF_REGION
                    ),
                )
            })?,
            // The OpenAPI signer does not sign with a region.
            None => region_of_uri(uri).unwrap_or_default(),
        };
        let signer = Signer::named(algorithm, region).ok_or_else(|| {
            invalid(
                keys::DLF_SIGNING_ALGORITHM,
                format!(
                    "unknown DLF signing algorithm {algorithm:?} (supported: default, openapi)"
                ),
            )
        })?;
        let token_path = || {
            get(keys::DLF_TOKEN_PATH)
                .map(|p| TokenSource::File(PathBuf::from(p)))
                .ok_or_else(|| {
                    invalid(
                        keys::DLF_TOKEN_PATH,
                        format!(
                            "option {:?} is required by the local_file token loader",
                            keys::DLF_TOKEN_PATH
                        ),
                    )
                })
        };
        let source = match get(keys::DLF_TOKEN_LOADER) {
            Some("local_file") => token_path()?,
            Some("ecs") => TokenSource::Ecs {
                url: get(keys::DLF_TOKEN_ECS_METADATA_URL)
                    .unwrap_or(ECS_METADATA_URL)
                    .to_string(),
                role: Mutex::new(get(keys::DLF_TOKEN_ECS_ROLE_NAME).map(str::to_string)),
            },
            Some(other) => {
                return Err(invalid(
                    keys::DLF_TOKEN_LOADER,
                    format!("unknown DLF token loader {other:?} (supported: local_file, ecs)"),
                ))
            }
            None if get(keys::DLF_TOKEN_PATH).is_some() => token_path()?,
            None => match (
                get(keys::DLF_ACCESS_KEY_ID),
                get(keys::DLF_ACCESS_KEY_SECRET),
            ) {
                (Some(id), Some(secret)) => TokenSource::Static(DlfToken {
                    access_key_id: id.to_string(),
                    access_key_secret: secret.to_string(),
                    security_token: get(keys::DLF_SECURITY_TOKEN).map(str::to_string),
                    expires_at_millis: None,
                }),
                (Some(_), None) => {
                    return Err(invalid(
                        keys::DLF_ACCESS_KEY_SECRET,
                        format!(
                            "option {:?} is required with {:?}",
                            keys::DLF_ACCESS_KEY_SECRET,
                            keys::DLF_ACCESS_KEY_ID
                        ),
                    ))
                }
                (None, _) => {
                    return Err(invalid(
                        keys::DLF_ACCESS_KEY_ID,
                        format!(
                            "token.provider dlf needs option {:?} and {:?}, or {:?}, or {:?}",
                            keys::DLF_ACCESS_KEY_ID,
                            keys::DLF_ACCESS_KEY_SECRET,
                            keys::DLF_TOKEN_PATH,
                            keys::DLF_TOKEN_LOADER
                        ),
                    ))
                }
            },
        };
        Ok(DlfAuth {
            uri: uri.to_string(),
            host: host_of_uri(uri).to_string(),
            signer,
            source,
            token: Mutex::new(None),
        })
    }

    /// The headers that sign `req` now: the signer's own and `Authorization`.
    ///
    /// # Errors
    /// The token's load errors ([`CatalogFailure::NotAuthorized`] naming its file or URL).
    pub(crate) fn headers(&self, req: &SignRequest<'_>) -> Result<Vec<(&'static str, String)>> {
        let token = self.fresh_token()?;
        self.sign(req, &token, Utc::now(), &nonce())
    }

    /// The signature headers for `req` with `token` at `now`.
    fn sign(
        &self,
        req: &SignRequest<'_>,
        token: &DlfToken,
        now: DateTime<Utc>,
        nonce: &str,
    ) -> Result<Vec<(&'static str, String)>> {
        let mut headers = self.signer.sign_headers(
            req.body,
            now,
            token.security_token.as_deref(),
            &self.host,
            nonce,
        );
        let authorization = self.signer.authorization(req, token, &headers)?;
        headers.push((header::AUTHORIZATION, authorization));
        Ok(headers)
    }

    /// The token to sign with, loaded again when missing or stale (Java `getFreshToken`).
    fn fresh_token(&self) -> Result<DlfToken> {
        let mut slot = self
            .token
            .lock()
            .map_err(|_| Error::Internal("the DLF token lock is poisoned".into()))?;
        let now = Utc::now().timestamp_millis();
        let stale = slot
            .as_ref()
            .is_none_or(|l| self.source.stale(l, now, REFRESH_BEFORE_EXPIRY_MILLIS));
        if stale {
            *slot = Some(self.source.load(&self.uri)?);
        }
        slot.as_ref()
            .map(|l| l.token.clone())
            .ok_or_else(|| Error::Internal("no DLF token after loading".into()))
    }
}

/// Java `DLFAuthProvider.extractHost`: the URI without `http(s)://` up to the first `/`.
fn host_of_uri(uri: &str) -> &str {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))
        .unwrap_or(uri);
    rest.split('/').next().unwrap_or(rest)
}

/// Java `DLFAuthProviderFactory.parseRegionFromUri`: the first match of
/// `(?:pre-)?([a-z]+-[a-z]+(?:-\d+)?)` in `uri`, without the `pre-`.
fn region_of_uri(uri: &str) -> Option<String> {
    let b = uri.as_bytes();
    let letters = |from: usize| {
        b[from..]
            .iter()
            .take_while(|c| c.is_ascii_lowercase())
            .count()
    };
    // The group at `at`: letters, `-`, letters, then `-digits` when present.
    let group_at = |at: usize| -> Option<usize> {
        let first = letters(at);
        if first == 0 || b.get(at + first) != Some(&b'-') {
            return None;
        }
        let second = letters(at + first + 1);
        if second == 0 {
            return None;
        }
        let mut end = at + first + 1 + second;
        if b.get(end) == Some(&b'-') {
            let digits = b[end + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits > 0 {
                end += 1 + digits;
            }
        }
        Some(end)
    };
    (0..b.len()).find_map(|s| {
        let with_pre = b[s..]
            .starts_with(b"pre-")
            .then(|| group_at(s + 4).map(|e| (s + 4, e)))
            .flatten();
        with_pre
            .or_else(|| group_at(s).map(|e| (s, e)))
            .map(|(from, to)| uri[from..to].to_string())
    })
}

/// A nonce no other request of this process repeats: a random UUID, the time in millis and
/// a counter (Java: UUID, millis and the thread id).
fn nonce() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}{}{}",
        uuid::Uuid::new_v4(),
        Utc::now().timestamp_millis(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests;
