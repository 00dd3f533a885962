//! Who is calling: the bearer token of a request, or the basic-auth handshake's user name and
//! token, checked against [`Users`].

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use tonic::metadata::MetadataMap;
use tonic::Status;

use crate::auth::{Access, User, Users};

/// The caller of one request: a user, or anyone when the server has no users.
#[derive(Debug, Clone)]
pub(crate) struct Caller(Option<User>, bool);

impl Caller {
    /// The caller, marked as having row filters or column masks on some table (its SQL then
    /// names tables only as tables, never in a table function's string).
    pub(crate) fn under_policy(self, restricted: bool) -> Self {
        Caller(self.0, restricted)
    }

    /// Whether the caller has row filters or column masks on some table.
    pub(crate) fn restricted(&self) -> bool {
        self.1
    }

    /// The caller's user name; `None` when the server has no users.
    pub(crate) fn name(&self) -> Option<&str> {
        self.0.as_ref().map(|u| u.name.as_str())
    }

    /// Whether the caller may read `database.table`.
    pub(crate) fn may_read(&self, database: &str, table: &str) -> bool {
        self.0
            .as_ref()
            .is_none_or(|u| u.may(Access::Read, database, Some(table)))
    }

    /// Whether the caller may write into `database.table`.
    pub(crate) fn may_write(&self, database: &str, table: &str) -> bool {
        self.0
            .as_ref()
            .is_none_or(|u| u.may(Access::Write, database, Some(table)))
    }

    /// Whether the caller may write anywhere at all.
    pub(crate) fn writes_anywhere(&self) -> bool {
        self.0
            .as_ref()
            .is_none_or(|u| u.grants.iter().any(|g| g.access >= Access::Write))
    }

    /// Whether the caller may read every table.
    pub(crate) fn reads_catalog(&self) -> bool {
        self.0
            .as_ref()
            .is_none_or(|u| u.may_on_catalog(Access::Read))
    }

    /// Whether the caller sees `database` in listings.
    pub(crate) fn sees_database(&self, database: &str) -> bool {
        self.0.as_ref().is_none_or(|u| u.sees_database(database))
    }
}

/// The caller of a request with `metadata`.
///
/// # Errors
/// `UNAUTHENTICATED` when the server has users and the request carries no token, or one that
/// names none of them.
pub(crate) fn caller(users: Option<&Users>, metadata: &MetadataMap) -> Result<Caller, Status> {
    let Some(users) = users else {
        return Ok(Caller(None, false));
    };
    let token = bearer(metadata)?.ok_or_else(|| {
        Status::unauthenticated("no bearer token: send `authorization: Bearer TOKEN`, or log in with the handshake (user name, token as password)")
    })?;
    users
        .authenticate(token)
        .cloned()
        .map(|u| Caller(Some(u), false))
        .ok_or_else(|| Status::unauthenticated("unknown token"))
}

/// The token of an `authorization: Bearer TOKEN` header, if there is one.
fn bearer(metadata: &MetadataMap) -> Result<Option<&str>, Status> {
    let Some(value) = metadata.get("authorization") else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| Status::unauthenticated("the authorization header is not ASCII"))?;
    Ok(strip_scheme(text, "bearer"))
}

/// `text` after `scheme ` (the scheme matched ignoring case).
fn strip_scheme<'a>(text: &'a str, scheme: &str) -> Option<&'a str> {
    let (head, rest) = text.split_once(' ')?;
    head.eq_ignore_ascii_case(scheme).then(|| rest.trim())
}

/// The basic-auth handshake: `authorization: Basic base64(user:token)` (or a bearer token)
/// gives the token the caller then sends as `Bearer`.
///
/// # Errors
/// `UNAUTHENTICATED` for a missing or malformed header, an unknown token, or a user name that
/// is not the token's user.
pub(crate) fn handshake(users: Option<&Users>, metadata: &MetadataMap) -> Result<String, Status> {
    let Some(users) = users else {
        return Ok(String::new());
    };
    if let Some(token) = bearer(metadata)? {
        return match users.authenticate(token) {
            Some(_) => Ok(token.to_string()),
            None => Err(Status::unauthenticated("unknown token")),
        };
    }
    let header = metadata
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|t| strip_scheme(t, "basic"))
        .ok_or_else(|| {
            Status::unauthenticated("handshake: send `authorization: Basic base64(user:token)`")
        })?;
    let decoded = STANDARD
        .decode(header)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| {
            Status::unauthenticated("handshake: basic credentials are not base64 text")
        })?;
    let (name, token) = decoded.split_once(':').ok_or_else(|| {
        Status::unauthenticated("handshake: basic credentials are not user:token")
    })?;
    match users.authenticate(token) {
        Some(user) if user.name == name => Ok(token.to_string()),
        _ => Err(Status::unauthenticated("wrong user name or token")),
    }
}
