//! A request as the handlers see it: method, the path's decoded segments, the query, the
//! caller, and the body (parsed as JSON on demand: malformed JSON is a 400).

use serde_json::Value;

use super::error::ApiError;
use crate::auth::{Access, User};

/// One request to the REST API.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, `DELETE`...
    pub method: String,
    /// The path's segments after `/v1/`, percent-decoded.
    pub segments: Vec<String>,
    /// The query's pairs, decoded.
    pub query: Vec<(String, String)>,
    /// The caller; `None` when the server runs without `--auth` (everything allowed).
    pub user: Option<User>,
    /// The body bytes.
    pub body: Vec<u8>,
}

/// The string `key` of a JSON object from a `request` body (Java's request class name, for
/// the message): a 400 naming both when it is absent or not a string.
pub fn str_field<'a>(object: &'a Value, request: &str, key: &str) -> Result<&'a str, ApiError> {
    object
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request(format!("{request}: no string \"{key}\"")))
}

impl Request {
    /// The body as JSON.
    ///
    /// # Errors
    /// 400 when the body is not a JSON object.
    pub fn json(&self) -> Result<Value, ApiError> {
        let v: Value = serde_json::from_slice(&self.body)
            .map_err(|e| ApiError::bad_request(format!("malformed JSON body: {e}")))?;
        if !v.is_object() {
            return Err(ApiError::bad_request("the JSON body is not an object"));
        }
        Ok(v)
    }

    /// A query parameter.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the caller may act at `access` on `database` (or one of its tables).
    pub fn may(&self, access: Access, database: &str, table: Option<&str>) -> bool {
        self.user
            .as_ref()
            .is_none_or(|u| u.may(access, database, table))
    }

    /// 403 unless the caller may act at `access` on the table `database.table`.
    pub fn require_table(
        &self,
        access: Access,
        database: &str,
        table: &str,
    ) -> Result<(), ApiError> {
        if self.may(access, database, Some(table)) {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "TABLE",
                format!("{database}.{table}"),
                access_name(access),
            ))
        }
    }

    /// 403 unless the caller may act at `access` on the database itself.
    pub fn require_database(&self, access: Access, database: &str) -> Result<(), ApiError> {
        if self.may(access, database, None) {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "DATABASE",
                database,
                access_name(access),
            ))
        }
    }

    /// 403 unless the caller may act at `access` on the whole catalog.
    pub fn require_catalog(&self, access: Access) -> Result<(), ApiError> {
        if self.user.as_ref().is_none_or(|u| u.may_on_catalog(access)) {
            Ok(())
        } else {
            Err(ApiError::new(
                403,
                format!(
                    "{} access to the catalog is not granted",
                    access_name(access)
                ),
            ))
        }
    }

    /// Whether the caller sees `database` in listings.
    pub fn sees_database(&self, database: &str) -> bool {
        self.user.as_ref().is_none_or(|u| u.sees_database(database))
    }
}

fn access_name(a: Access) -> &'static str {
    match a {
        Access::Read => "read",
        Access::Write => "write",
        Access::Admin => "admin",
    }
}

/// Percent-decodes one path segment or query part as Java's `URLDecoder` (`+` is a space).
///
/// # Errors
/// 400 on a bad escape or bytes that are not UTF-8.
pub fn decode(s: &str) -> Result<String, ApiError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| ApiError::bad_request(format!("bad percent escape in {s:?}")))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| ApiError::bad_request(format!("{s:?} is not UTF-8")))
}

/// The query's `k=v` pairs, decoded.
///
/// # Errors
/// 400 on a bad escape.
pub fn parse_query(q: Option<&str>) -> Result<Vec<(String, String)>, ApiError> {
    let Some(q) = q else {
        return Ok(Vec::new());
    };
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Ok((decode(k)?, decode(v)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_as_javas_url_decoder() {
        assert_eq!(decode("a+b%2Fc%24d.%C3%A9").unwrap(), "a b/c$d.é");
        assert_eq!(decode("%2E%2E%2Fx").unwrap(), "../x");
        assert_eq!(decode("%zz").unwrap_err().status, 400);
        assert_eq!(decode("%").unwrap_err().status, 400);
        assert_eq!(decode("%FF").unwrap_err().status, 400);
        assert_eq!(
            parse_query(Some("warehouse=w+1&pageToken=")).unwrap(),
            vec![
                ("warehouse".to_string(), "w 1".to_string()),
                ("pageToken".to_string(), String::new())
            ]
        );
    }
}
