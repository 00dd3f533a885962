//! Query auth through the REST server (Java `RESTCatalog.authTableQuery`): `POST
//! .../tables/{t}/auth` with the columns read (`AuthTableQueryRequest`), answered with the
//! caller's row filters (Java predicate JSON) and column masks (`AuthTableQueryResponse`). A
//! refusal or an unreachable server is an error: the read fails, it never goes on unfiltered.

use serde_json::{json, Value};

use super::client::{Object, RestClient};
use super::messages::Response;
use crate::catalog::Identifier;
use crate::error::Result;
use crate::query_auth::QueryAuthSource;
use paimon_split::frame::QueryAuth;

/// Asks a REST server for a caller's rules on one table.
#[derive(Debug, Clone)]
pub struct RestQueryAuth {
    client: RestClient,
    path: String,
    id: Identifier,
}

impl RestQueryAuth {
    pub(crate) fn new(client: RestClient, path: String, id: Identifier) -> Self {
        RestQueryAuth { client, path, id }
    }
}

impl QueryAuthSource for RestQueryAuth {
    fn auth(&self, select: Option<&[String]>) -> Result<Option<QueryAuth>> {
        let body = json!({ "select": select });
        let answer =
            self.client
                .post(&self.path, &body, &Object::table(self.id.full_table_name()))?;
        let r = Response {
            uri: self.client.uri(),
            what: format!("POST {}", self.path),
            body: &answer,
        };
        let filter = match answer.get("filter") {
            None | Some(Value::Null) => None,
            Some(_) => Some(r.strings("filter")?).filter(|f| !f.is_empty()),
        };
        let masks = r.map("columnMasking")?;
        if filter.is_none() && masks.is_empty() {
            return Ok(None);
        }
        Ok(Some(QueryAuth {
            filter,
            column_masking: (!masks.is_empty()).then_some(masks),
        }))
    }
}
