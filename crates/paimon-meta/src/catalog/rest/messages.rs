//! The JSON bodies of the REST API 1.0 as Java 1.4.2 writes and reads them (`requests.*`,
//! `responses.*`, `Schema`, `SchemaChange`, `Identifier`).

use serde_json::{json, Map, Value};

use paimon_spec::schema::TableSchema;

use crate::catalog::Identifier;
use crate::commit::SchemaChange;
use crate::error::{CatalogFailure, Error, Result};

/// `Identifier`: `{"database": .., "object": ..}`.
pub(crate) fn identifier(id: &Identifier) -> Value {
    json!({"database": id.database, "object": id.object})
}

/// `Schema` (what `CreateTableRequest` carries): fields, keys, options, comment.
pub(crate) fn schema(s: &TableSchema) -> Value {
    let full = s.to_json();
    let mut m = Map::new();
    for k in ["fields", "partitionKeys", "primaryKeys", "options"] {
        m.insert(k.to_string(), full.get(k).cloned().unwrap_or(Value::Null));
    }
    m.insert(
        "comment".to_string(),
        s.comment.as_ref().map_or(Value::Null, |c| json!(c)),
    );
    Value::Object(m)
}

/// One `SchemaChange` with its `action`.
pub(crate) fn schema_change(c: &SchemaChange) -> Value {
    match c {
        SchemaChange::SetOption { key, value } => {
            json!({"action": "setOption", "key": key, "value": value})
        }
        SchemaChange::RemoveOption { key } => json!({"action": "removeOption", "key": key}),
        SchemaChange::AddColumn { name, data_type } => json!({
            "action": "addColumn", "fieldNames": [name], "dataType": data_type.to_json(),
            "comment": null, "move": null
        }),
        SchemaChange::RenameColumn { from, to } => {
            json!({"action": "renameColumn", "fieldNames": [from], "newName": to})
        }
        SchemaChange::DropColumn { name } => json!({"action": "dropColumn", "fieldNames": [name]}),
        SchemaChange::UpdateColumnType { name, data_type } => json!({
            "action": "updateColumnType", "fieldNames": [name],
            "newDataType": data_type.to_json(), "keepNullability": true
        }),
    }
}

/// Reads response fields, naming the call in errors.
pub(crate) struct Response<'a> {
    pub(crate) uri: &'a str,
    pub(crate) what: String,
    pub(crate) body: &'a Value,
}

impl Response<'_> {
    fn bad(&self, reason: String) -> Error {
        Error::catalog(
            self.uri,
            CatalogFailure::MalformedResponse,
            &self.what,
            reason,
        )
    }

    /// A string field.
    pub(crate) fn str(&self, key: &str) -> Result<&str> {
        self.body
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| self.bad(format!("field {key:?} is not a string")))
    }

    /// A list of strings (`databases`, `tables`).
    pub(crate) fn strings(&self, key: &str) -> Result<Vec<String>> {
        match self.body.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| self.bad(format!("field {key:?} holds a non-string")))
                })
                .collect(),
            Some(_) => Err(self.bad(format!("field {key:?} is not a list"))),
        }
    }

    /// A string map (`options`, `defaults`, `token`); absent or null is empty.
    pub(crate) fn map(&self, key: &str) -> Result<std::collections::BTreeMap<String, String>> {
        match self.body.get(key) {
            None | Some(Value::Null) => Ok(Default::default()),
            Some(Value::Object(o)) => o
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    _ => Err(self.bad(format!("field {key:?}.{k} is not a string"))),
                })
                .collect(),
            Some(_) => Err(self.bad(format!("field {key:?} is not an object"))),
        }
    }

    /// `nextPageToken`, when there is a next page.
    pub(crate) fn next_page(&self) -> Option<String> {
        self.body
            .get("nextPageToken")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paimon_spec::types::DataType;

    /// The bodies Java's Jackson mapping reads: keys of `Schema`, `SchemaChange` actions.
    #[test]
    fn request_bodies_have_javas_keys() {
        let s = TableSchema::from_json_str(
            r#"{"version":3,"id":0,"fields":[{"id":0,"name":"a","type":"INT NOT NULL"}],
                "highestFieldId":0,"partitionKeys":[],"primaryKeys":["a"],
                "options":{"bucket":"1"},"timeMillis":5}"#,
        )
        .unwrap();
        assert_eq!(
            schema(&s),
            json!({"fields":[{"id":0,"name":"a","type":"INT NOT NULL"}],"partitionKeys":[],
                   "primaryKeys":["a"],"options":{"bucket":"1"},"comment":null})
        );
        let add = SchemaChange::AddColumn {
            name: "b".into(),
            data_type: DataType::from_json(&json!("BIGINT")).unwrap(),
        };
        assert_eq!(
            schema_change(&add),
            json!({"action":"addColumn","fieldNames":["b"],"dataType":"BIGINT",
                   "comment":null,"move":null})
        );
        assert_eq!(
            identifier(&Identifier::new("d", "t")),
            json!({"database":"d","object":"t"})
        );
    }

    #[test]
    fn malformed_fields_name_the_call_and_field() {
        let body = json!({"tables": [1]});
        let r = Response {
            uri: "http://h",
            what: "GET /v1/databases/d/tables".into(),
            body: &body,
        };
        let e = r.strings("tables").unwrap_err().to_string();
        assert_eq!(
            e,
            "catalog http://h: malformed response to GET /v1/databases/d/tables: field \"tables\" holds a non-string"
        );
    }
}
