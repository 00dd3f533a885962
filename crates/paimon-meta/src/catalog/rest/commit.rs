//! Commits through the REST server (Java `RESTSnapshotCommit`): the committer builds the
//! snapshot and its manifests as for any table, then `POST .../tables/{t}/commit` hands the
//! snapshot to the server, which decides. A lost answer (connection dropped, timeout, 5xx)
//! is an unknown outcome: the committer keeps its files and, before trying again, looks for
//! its commit user and identifier among the table's snapshots, so a commit lands once.

use serde_json::{json, Value};

use super::client::{Object, RestClient};
use crate::catalog::{Identifier, Published, SnapshotCommit};
use crate::error::{CatalogFailure, Error, Result};
use crate::snapshot::Snapshot;
use crate::table::Table;

/// Publishes snapshots through a REST catalog's commit endpoint.
#[derive(Debug, Clone)]
pub struct RestSnapshotCommit {
    client: RestClient,
    path: String,
    id: Identifier,
    table_id: String,
}

impl RestSnapshotCommit {
    pub(crate) fn new(client: RestClient, path: String, id: Identifier, table_id: String) -> Self {
        RestSnapshotCommit {
            client,
            path,
            id,
            table_id,
        }
    }
}

impl SnapshotCommit for RestSnapshotCommit {
    fn publish(&self, _table: &Table, snapshot: &Snapshot) -> Result<Published> {
        let snapshot: Value = serde_json::from_str(&snapshot.to_json())
            .map_err(|e| Error::Internal(format!("snapshot JSON does not parse: {e}")))?;
        let body = json!({"tableId": self.table_id, "snapshot": snapshot, "statistics": []});
        let about = Object::table(self.id.to_string());
        match self.client.post(&self.path, &body, &about) {
            Ok(v) => match v.get("success").and_then(Value::as_bool) {
                Some(true) => Ok(Published::Committed),
                Some(false) => Ok(Published::Lost),
                None => Ok(Published::Unknown(Error::catalog(
                    self.client.uri(),
                    CatalogFailure::MalformedResponse,
                    format!("POST {}", self.path),
                    format!("no boolean \"success\" in {v}"),
                ))),
            },
            // Another committer took the snapshot id.
            Err(Error::CatalogObjectExists { .. }) => Ok(Published::Lost),
            Err(
                e @ Error::Catalog {
                    failure:
                        CatalogFailure::Unreachable
                        | CatalogFailure::ServerError
                        | CatalogFailure::MalformedResponse,
                    ..
                },
            ) => Ok(Published::Unknown(e)),
            // Refused (not authorized, no such table, bad request): nothing was published.
            Err(e) => Err(e),
        }
    }
}
