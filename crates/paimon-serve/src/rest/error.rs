//! Errors as the REST API answers them (Java `ErrorResponse`): a status code Java's
//! `DefaultErrorHandler` maps to its exceptions (400 bad request, 401 not authorized,
//! 403 forbidden, 404 no such resource, 409 already exists, 500 server failure, 501 not
//! implemented) and a JSON body naming the resource.

use paimon_rs::meta::Error as MetaError;
use serde_json::{json, Value};

/// One error answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// `DATABASE`, `TABLE`, `SNAPSHOT`, `TAG`... when the error is about a resource.
    pub resource_type: Option<&'static str>,
    /// The resource's name.
    pub resource_name: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl ApiError {
    /// An error without a resource.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        ApiError {
            status,
            resource_type: None,
            resource_name: None,
            message: message.into(),
        }
    }

    /// 400: the request is malformed.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, message)
    }

    /// 404 about a resource.
    pub fn not_found(
        kind: &'static str,
        name: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ApiError {
            status: 404,
            resource_type: Some(kind),
            resource_name: Some(name.into()),
            message: message.into(),
        }
    }

    /// 409 about a resource that exists.
    pub fn exists(kind: &'static str, name: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError {
            status: 409,
            ..Self::not_found(kind, name, message)
        }
    }

    /// 403: the caller's grants do not allow it.
    pub fn forbidden(kind: &'static str, name: impl Into<String>, needs: &str) -> Self {
        let name = name.into();
        ApiError {
            status: 403,
            resource_type: Some(kind),
            message: format!(
                "{needs} access to {} {name} is not granted",
                kind.to_lowercase()
            ),
            resource_name: Some(name),
        }
    }

    /// The JSON body (Java `ErrorResponse`).
    pub fn body(&self) -> Value {
        json!({
            "message": self.message,
            "resourceType": self.resource_type,
            "resourceName": self.resource_name,
            "code": self.status,
        })
    }
}

impl From<MetaError> for ApiError {
    fn from(e: MetaError) -> Self {
        let message = e.to_string();
        let about = |status: u16, kind: &'static str, name: String| ApiError {
            status,
            resource_type: Some(kind),
            resource_name: Some(name),
            message: message.clone(),
        };
        match e {
            MetaError::CatalogObjectNotFound { kind, name, .. } => {
                about(404, resource_type(kind), name)
            }
            MetaError::CatalogObjectExists { kind, name, .. } => {
                about(409, resource_type(kind), name)
            }
            MetaError::SnapshotNotFound { id, .. } => about(404, "SNAPSHOT", id.to_string()),
            MetaError::SnapshotExpired { id, .. } => about(404, "SNAPSHOT", id.to_string()),
            MetaError::TagNotFound { name, .. } => about(404, "TAG", name),
            MetaError::NotFound { .. } => ApiError::new(404, message),
            MetaError::InvalidArgument { .. }
            | MetaError::InvalidCommit { .. }
            | MetaError::InvalidScan { .. }
            | MetaError::Spec { .. } => ApiError::new(400, message),
            MetaError::CommitConflict { .. } => ApiError::new(409, message),
            MetaError::Unsupported { .. } => ApiError::new(501, message),
            _ => ApiError::new(500, message),
        }
    }
}

fn resource_type(kind: &str) -> &'static str {
    match kind {
        "database" => "DATABASE",
        "table" => "TABLE",
        "view" => "VIEW",
        "function" => "FUNCTION",
        _ => "TABLE",
    }
}
