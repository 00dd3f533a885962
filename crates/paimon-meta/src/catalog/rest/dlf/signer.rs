//! The two DLF request signatures of Java 1.4.2: the default v4-style signer
//! (`DLFDefaultSigner`, `DLF4-HMAC-SHA256`, the default VPC endpoints) and the Aliyun OpenAPI
//! ROA signer (`DLFOpenApiSigner`, HMAC-SHA1, the `dlfnext` endpoints).

use base64::Engine as _;
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use md5::{Digest, Md5};
use sha1::Sha1;
use sha2::Sha256;

use super::token::DlfToken;
use crate::catalog::rest::paths::encode;
use crate::error::{Error, Result};

/// `x-dlf-date` of the default signer (Java `AUTH_DATE_TIME_FORMATTER`).
const DLF_DATE_FORMAT: &str = "%Y%m%dT%H%M%SZ";
/// `Date` of the OpenAPI signer (RFC 1123, always in English).
const GMT_DATE_FORMAT: &str = "%a, %d %b %Y %H:%M:%S GMT";

const ALGORITHM: &str = "DLF4-HMAC-SHA256";
const PRODUCT: &str = "DlfNext";
const REQUEST_TYPE: &str = "aliyun_v4_request";
const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";
const JSON: &str = "application/json";

/// Header names as Java sets them.
pub(crate) mod header {
    pub(crate) const AUTHORIZATION: &str = "Authorization";
    pub(crate) const CONTENT_MD5: &str = "Content-MD5";
    pub(crate) const CONTENT_TYPE: &str = "Content-Type";
    pub(crate) const DLF_DATE: &str = "x-dlf-date";
    pub(crate) const DLF_SECURITY_TOKEN: &str = "x-dlf-security-token";
    pub(crate) const DLF_VERSION: &str = "x-dlf-version";
    pub(crate) const DLF_CONTENT_SHA256: &str = "x-dlf-content-sha256";
    pub(crate) const DATE: &str = "Date";
    pub(crate) const ACCEPT: &str = "Accept";
    pub(crate) const HOST: &str = "Host";
    pub(crate) const ACS_SIGNATURE_METHOD: &str = "x-acs-signature-method";
    pub(crate) const ACS_SIGNATURE_NONCE: &str = "x-acs-signature-nonce";
    pub(crate) const ACS_SIGNATURE_VERSION: &str = "x-acs-signature-version";
    pub(crate) const ACS_VERSION: &str = "x-acs-version";
    pub(crate) const ACS_SECURITY_TOKEN: &str = "x-acs-security-token";
}

/// The request a signature covers (Java `RESTAuthParameter`): the method, the resource path as
/// sent (names already encoded), the query with its values as given (not encoded), and the
/// body exactly as sent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SignRequest<'a> {
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) query: &'a [(&'a str, &'a str)],
    pub(crate) body: Option<&'a str>,
}

/// `dlf.signing-algorithm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Signer {
    /// `default`: `DLF4-HMAC-SHA256` scoped to a region.
    Default {
        /// The region the credential is scoped to (`cn-hangzhou`).
        region: String,
    },
    /// `openapi`: Aliyun OpenAPI ROA, HMAC-SHA1 (`DlfNext/2026-01-18`).
    OpenApi,
}

impl Signer {
    /// The signer `dlf.signing-algorithm` names; `None` for a name Java does not know.
    pub(crate) fn named(name: &str, region: String) -> Option<Self> {
        match name {
            "default" => Some(Signer::Default { region }),
            "openapi" => Some(Signer::OpenApi),
            _ => None,
        }
    }

    /// The signer Java picks for an endpoint when the option is not set: `openapi` for a
    /// `dlfnext` host, `default` for any other.
    pub(crate) fn algorithm_of_uri(uri: &str) -> &'static str {
        if uri.to_ascii_lowercase().contains("dlfnext") {
            "openapi"
        } else {
            "default"
        }
    }

    /// The headers signed along (Java `signHeaders`), in Java's names; `nonce` is the
    /// OpenAPI signer's `x-acs-signature-nonce` (unused by the default signer).
    pub(crate) fn sign_headers(
        &self,
        body: Option<&str>,
        now: DateTime<Utc>,
        security_token: Option<&str>,
        host: &str,
        nonce: &str,
    ) -> Vec<(&'static str, String)> {
        let body = body.filter(|b| !b.is_empty());
        let mut h = Vec::new();
        match self {
            Signer::Default { .. } => {
                h.push((header::DLF_DATE, now.format(DLF_DATE_FORMAT).to_string()));
                h.push((header::DLF_CONTENT_SHA256, UNSIGNED_PAYLOAD.to_string()));
                h.push((header::DLF_VERSION, "v1".to_string()));
                if let Some(b) = body {
                    h.push((header::CONTENT_TYPE, JSON.to_string()));
                    h.push((header::CONTENT_MD5, md5_base64(b)));
                }
                if let Some(t) = security_token {
                    h.push((header::DLF_SECURITY_TOKEN, t.to_string()));
                }
            }
            Signer::OpenApi => {
                h.push((header::DATE, now.format(GMT_DATE_FORMAT).to_string()));
                h.push((header::ACCEPT, JSON.to_string()));
                if let Some(b) = body {
                    h.push((header::CONTENT_MD5, md5_base64(b)));
                    h.push((header::CONTENT_TYPE, JSON.to_string()));
                }
                h.push((header::HOST, host.to_string()));
                h.push((header::ACS_SIGNATURE_METHOD, "HMAC-SHA1".to_string()));
                h.push((header::ACS_SIGNATURE_NONCE, nonce.to_string()));
                h.push((header::ACS_SIGNATURE_VERSION, "1.0".to_string()));
                h.push((header::ACS_VERSION, "2026-01-18".to_string()));
                if let Some(t) = security_token {
                    h.push((header::ACS_SECURITY_TOKEN, t.to_string()));
                }
            }
        }
        h
    }

    /// The `Authorization` value for `req` signed with `token` over `headers` (those
    /// [`Signer::sign_headers`] made).
    ///
    /// # Errors
    /// [`Error::Internal`] when the default signer's headers lack `x-dlf-date` (a bug).
    pub(crate) fn authorization(
        &self,
        req: &SignRequest<'_>,
        token: &DlfToken,
        headers: &[(&str, String)],
    ) -> Result<String> {
        match self {
            Signer::Default { region } => default_authorization(region, req, token, headers),
            Signer::OpenApi => openapi_authorization(req, token, headers),
        }
    }
}

fn default_authorization(
    region: &str,
    req: &SignRequest<'_>,
    token: &DlfToken,
    headers: &[(&str, String)],
) -> Result<String> {
    let date_time = header_value(headers, header::DLF_DATE)
        .filter(|d| d.len() >= 8 && d.is_char_boundary(8))
        .ok_or_else(|| Error::Internal("DLF signature without an x-dlf-date header".into()))?;
    let date = &date_time[..8];

    // Method, path, the sorted query (values URL-encoded as Java's RESTAuthParameter keeps
    // them), the signed headers sorted by lower-case name, and the payload marker.
    let mut query: Vec<(&str, String)> = req
        .query
        .iter()
        .map(|(k, v)| (k.trim(), encode(v)))
        .collect();
    query.sort();
    query.dedup_by(|a, b| a.0 == b.0);
    let query = query
        .iter()
        .map(|(k, v)| {
            if v.is_empty() {
                k.to_string()
            } else {
                format!("{k}={}", v.trim())
            }
        })
        .collect::<Vec<_>>()
        .join("&");
    let mut signed: Vec<(String, &str)> = headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.trim()))
        .filter(|(k, _)| {
            [
                header::CONTENT_MD5,
                header::CONTENT_TYPE,
                header::DLF_CONTENT_SHA256,
                header::DLF_DATE,
                header::DLF_VERSION,
                header::DLF_SECURITY_TOKEN,
            ]
            .iter()
            .any(|s| s.eq_ignore_ascii_case(k))
        })
        .collect();
    signed.sort();
    let mut canonical = format!("{}\n{}\n{query}", req.method, req.path);
    for (k, v) in &signed {
        canonical.push_str(&format!("\n{k}:{v}"));
    }
    let payload = header_value(headers, header::DLF_CONTENT_SHA256).unwrap_or(UNSIGNED_PAYLOAD);
    canonical.push('\n');
    canonical.push_str(payload);

    let scope = format!("{date}/{region}/{PRODUCT}/{REQUEST_TYPE}");
    let string_to_sign = format!(
        "{ALGORITHM}\n{date_time}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let secret = format!("aliyun_v4{}", token.access_key_secret);
    let mut key = hmac_sha256(secret.as_bytes(), date.as_bytes())?;
    for part in [region, PRODUCT, REQUEST_TYPE] {
        key = hmac_sha256(&key, part.as_bytes())?;
    }
    let signature = hex(&hmac_sha256(&key, string_to_sign.as_bytes())?);
    Ok(format!(
        "{ALGORITHM} Credential={}/{scope},Signature={signature}",
        token.access_key_id
    ))
}

fn openapi_authorization(
    req: &SignRequest<'_>,
    token: &DlfToken,
    headers: &[(&str, String)],
) -> Result<String> {
    let mut acs: Vec<(String, &str)> = headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.trim()))
        .filter(|(k, _)| k.starts_with("x-acs-"))
        .collect();
    acs.sort();
    acs.dedup_by(|a, b| a.0 == b.0);
    // The resource as the server decodes it: the path and query values URL-decoded.
    let mut resource = url_decode(req.path);
    if !req.query.is_empty() {
        let mut query: Vec<(&str, &str)> = req.query.to_vec();
        query.sort();
        query.dedup_by(|a, b| a.0 == b.0);
        resource.push('?');
        let parts: Vec<String> = query
            .iter()
            .map(|(k, v)| {
                if v.is_empty() {
                    k.to_string()
                } else {
                    format!("{k}={v}")
                }
            })
            .collect();
        resource.push_str(&parts.join("&"));
    }
    let get = |name: &str| header_value(headers, name).unwrap_or("");
    let mut string_to_sign = format!(
        "{}\n{}\n{}\n{}\n{}\n",
        req.method,
        get(header::ACCEPT),
        get(header::CONTENT_MD5),
        get(header::CONTENT_TYPE),
        get(header::DATE)
    );
    for (k, v) in &acs {
        string_to_sign.push_str(&format!("{k}:{v}\n"));
    }
    string_to_sign.push_str(&resource);
    let mac = hmac_sha1(
        token.access_key_secret.as_bytes(),
        string_to_sign.as_bytes(),
    )?;
    let signature = base64::engine::general_purpose::STANDARD.encode(mac);
    Ok(format!("acs {}:{signature}", token.access_key_id))
}

/// The value of header `name` (case-insensitive) among `headers`.
fn header_value<'a>(headers: &'a [(&str, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Base64 of the MD5 of `body`'s UTF-8 bytes (`Content-MD5`).
fn md5_base64(body: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(Md5::digest(body.as_bytes()))
}

fn hmac_sha256(key: &[u8], data: &[u8]) -> Result<Vec<u8>> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .map_err(|e| Error::Internal(format!("HMAC-SHA256 key: {e}")))?;
    mac.update(data);
    Ok(mac.finalize().into_bytes().to_vec())
}

fn hmac_sha1(key: &[u8], data: &[u8]) -> Result<Vec<u8>> {
    let mut mac = <Hmac<Sha1> as KeyInit>::new_from_slice(key)
        .map_err(|e| Error::Internal(format!("HMAC-SHA1 key: {e}")))?;
    mac.update(data);
    Ok(mac.finalize().into_bytes().to_vec())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Java `URLDecoder.decode(s, UTF-8)`: `+` is a space, `%XX` a byte; a malformed escape is
/// kept as it is.
pub(super) fn url_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
